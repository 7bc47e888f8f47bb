"""The grid of each phase: configurations x B strategies x benchmark items.

- Phase 1: the 14 configurations, one strategy (B1 camelCase), GSM8K.
- Phase 2: the top configurations of phase 1 (5), every strategy, GSM8K.
- Phase 3: the top configurations of phase 2 (3) with its best strategy, every benchmark
  (GSM8K, MMLU and the 1k / 4k / 8k secret-number haystacks).

A pattern without B (A, AA, AAA) does not depend on the strategy: it runs once per item with
the strategy ``none``. Phases 2 and 3 always include the two references, C01 (baseline) and
C03 (RE2), so every configuration can be compared with them on the same items.
"""

from __future__ import annotations

import dataclasses

from fixtures.pytest_face.parametrize import SampleParams

from . import items
from .patterns import BASELINE, BY_ID, CONFIGURATIONS, RE2
from .transforms import CAMELCASE, NONE, STRATEGIES

PHASES = (1, 2, 3)
BENCHMARKS = ("gsm8k", "mmlu", *items.NIAH_LENGTHS)
PHASE1_STRATEGY = CAMELCASE
TOP = {2: 5, 3: 3}  # phase -> how many configurations it takes from the phase before

# Items per configuration: the spec's numbers at full scale, a handful at test scale. GSM8K
# is the first 50 items in phases 1-2 and the first 100 in phase 3; NIAH counts are per
# length (3 x 17 + 100 + 50 = 201, the spec's "3 x 200" phase 3). Phase 1 at test scale is
# part of the main job on the embedded model: one item for each of the 14 configurations
# (its answers, up to 128 tokens each, are most of its time).
FULL_COUNTS = {"gsm8k": {1: 50, 2: 50, 3: 100}, "mmlu": 50, "niah": 17}
TEST_COUNTS = {"gsm8k": {1: 1, 2: 2, 3: 2}, "mmlu": 2, "niah": 1}
SMOKE_CONFIG = "C04"  # AB: one short GSM8K item exercises the transform and the assembly


@dataclasses.dataclass(frozen=True)
class Re3Sample(SampleParams):
    phase: int
    config_id: str
    pattern: str
    b_strategy: str  # "none" for a pattern without B
    benchmark: str  # gsm8k, mmlu, niah_1k, niah_4k, niah_8k
    item_id: str

    @property
    def id(self) -> str:
        return f"{self.config_id}-{self.b_strategy}-{self.item_id}"


@dataclasses.dataclass(frozen=True)
class Counts:
    gsm8k: int
    mmlu: int
    niah: int  # per context length


def counts(scale: str, phase: int, gsm8k: int | None = None, mmlu: int | None = None,
           niah: int | None = None) -> Counts:
    """Item counts for a phase: the options where given, else the scale's defaults."""
    table = FULL_COUNTS if scale == "full" else TEST_COUNTS
    chosen = Counts(gsm8k if gsm8k is not None else table["gsm8k"][phase],
                    mmlu if mmlu is not None else table["mmlu"],
                    niah if niah is not None else table["niah"])
    for name, value in dataclasses.asdict(chosen).items():
        if value < 1:
            raise ValueError(f"--re3-{name}-items {value}: give at least 1 item")
    return chosen


def benchmark_items(benchmark: str, count: Counts) -> list[str]:
    if benchmark == "gsm8k":
        return items.gsm8k_ids(count.gsm8k)
    if benchmark == "mmlu":
        return items.mmlu_ids(count.mmlu)
    return items.niah_ids(benchmark, count.niah)


def _samples(phase: int, runs: list[tuple[str, str]], benchmarks: tuple[str, ...],
             count: Counts) -> list[Re3Sample]:
    """``runs``: (configuration, strategy) pairs; a pattern without B gets ``none``, once."""
    pairs = sorted({(config, strategy if BY_ID[config].uses_b else NONE)
                    for config, strategy in runs},
                   key=lambda p: (p[0], (NONE, *STRATEGIES).index(p[1])))
    return [Re3Sample(phase, config, BY_ID[config].pattern, strategy, benchmark, item_id)
            for benchmark in benchmarks for config, strategy in pairs
            for item_id in benchmark_items(benchmark, count)]


def phase1(count: Counts, strategy: str = PHASE1_STRATEGY) -> list[Re3Sample]:
    return _samples(1, [(c.config_id, strategy) for c in CONFIGURATIONS], ("gsm8k",), count)


def phase2(top_configs: list[str], strategies: tuple[str, ...], count: Counts
           ) -> list[Re3Sample]:
    runs = [(config, strategy) for config in (*top_configs, BASELINE, RE2)
            for strategy in strategies]
    return _samples(2, runs, ("gsm8k",), count)


def phase3(top_configs: list[str], strategy: str, count: Counts) -> list[Re3Sample]:
    runs = [(config, strategy) for config in (*top_configs, BASELINE, RE2)]
    return _samples(3, runs, BENCHMARKS, count)


def parse_strategies(value: str | None, option: str) -> tuple[str, ...]:
    if value is None:
        return STRATEGIES
    chosen = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    unknown = [v for v in chosen if v not in STRATEGIES]
    if unknown or not chosen:
        raise ValueError(f"{option} {value!r}: name strategies from {', '.join(STRATEGIES)} "
                         "(comma-separated)")
    return chosen
