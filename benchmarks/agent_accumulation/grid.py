"""The grid: modes x conditions x accumulated lengths x needle counts x ledgers, and the
run's settings.

Ids read ``live-clear02-ctx32k-nd2-s003``: the mode (``traj`` or ``live``), the condition
(``full``, ``clear02``, ``drop050``, ``trim050``, ``compact16k``: fixed widths or a unit at
the end), the length (``fitting.length_id``), the needle count and the ledger's number, so
``-k`` selects exactly. Every condition of a length, needle count and number reads the same
ledger: that is what pairs a condition with ``full``.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Callable

from benchmarks.texts.fitting import K, M, length_id, parse_lengths
from fixtures.pytest_face.parametrize import SampleParams

MODES = ("trajectory", "live")
MODE_IDS = {"trajectory": "traj", "live": "live"}
LENGTHS = {"test": (8 * K, 16 * K), "full": (8 * K, 16 * K, 32 * K, 64 * K, 128 * K)}
MIN_LENGTH, MAX_LENGTH = 4 * K, M
SAMPLES = {"test": 2, "full": 10}
NEEDLES = {"test": (2,), "full": (2, 4, 8)}
CONDITIONS = {"test": "full,clear:2", "full": "full,clear:2,drop:0.5,trim:0.5"}
PAGES = 10  # the spec's default P
MAX_PAGES = 200
EXTRA_STEPS = 8  # the default step cap is P + 8: list_pages, P reads, submit, and room
# Output tokens per request: a call, or a reply with notes beside it (a reasoning model's
# thinking budget is added by the run's settings, fixtures/providers/generation.py).
MAX_TOKENS = 2048


@dataclasses.dataclass(frozen=True)
class Condition:
    """What the harness does to a live history before each request (spec section 4)."""

    kind: str  # full, clear, drop, trim, compact
    value: float = 0  # K (results kept), F (a fraction), T (tokens)

    @property
    def name(self) -> str:
        """``full``, ``clear:2``, ``drop:0.5``, ``trim:0.5``, ``compact:16384``: the record's
        ``params.condition``."""
        return self.kind if self.kind == "full" else f"{self.kind}:{self.value:g}"

    @property
    def id(self) -> str:
        if self.kind == "full":
            return "full"
        if self.kind == "clear":
            return f"clear{int(self.value):02d}"
        if self.kind == "compact":
            return "compact" + length_id(int(self.value)).removeprefix("ctx")
        return f"{self.kind}{round(self.value * 100):03d}"


FULL = Condition("full")


def mitigated(condition: str) -> bool:
    """A record's condition is a mitigation, not the measurement (``full``)."""
    return condition != FULL.name
CONDITION = re.compile(r"(full)|(clear):(\d+)|(drop|trim):(0?\.\d+|1(?:\.0*)?)|(compact):(\S+)")
CONDITION_HELP = ("full, clear:K (keep the last K tool results, 1-99), drop:F or trim:F (F a "
                  "fraction of 0.01 to 1 in hundredths), compact:T (T tokens, e.g. 32k)")


def parse_conditions(value: str) -> tuple[Condition, ...]:
    found = []
    for part in (p.strip() for p in value.split(",") if p.strip()):
        match = CONDITION.fullmatch(part.lower())
        condition = _condition(match) if match else None
        if condition is None:
            raise ValueError(f"--agent-conditions {value!r}: {part!r} is not a condition; "
                             f"write {CONDITION_HELP}, e.g. full,clear:2,drop:0.5")
        found.append(condition)
    if not found:
        raise ValueError(f"--agent-conditions {value!r}: give at least one, e.g. full,clear:2")
    return tuple(dict.fromkeys(found))


def _condition(match: re.Match) -> Condition | None:
    full, clear, kept, cut, fraction, compact, tokens = match.groups()
    if full:
        return FULL
    if clear:
        return Condition("clear", int(kept)) if 1 <= int(kept) <= 99 else None
    if cut:
        share = float(fraction)
        hundredths = share * 100
        if not 0 < share <= 1 or abs(hundredths - round(hundredths)) > 1e-9:
            return None
        return Condition(cut, round(hundredths) / 100)
    try:
        (threshold,) = parse_lengths(tokens, "--agent-conditions", 1024, "compact:32k")
    except ValueError:
        return None
    return Condition(compact, threshold)


@dataclasses.dataclass(frozen=True)
class AgentSample(SampleParams):
    mode: str  # trajectory or live
    condition: str  # Condition.name; trajectory: always full
    length: int  # the accumulated length the ledger is fitted to, in the run's unit
    needles: int  # k: the records that answer the task
    index: int  # the ledger's number in its cell
    pages: int
    max_steps: int
    seed: int  # --agent-seed

    @property
    def id(self) -> str:
        return (f"{MODE_IDS[self.mode]}-{self.condition_of().id}-{length_id(self.length)}-"
                f"nd{self.needles}-s{self.index:03d}")

    def condition_of(self) -> Condition:
        return parse_conditions(self.condition)[0]

    @property
    def ledger_seed(self) -> str:
        """The ledger's seed: the same for every mode and condition (a str seeds the same
        everywhere)."""
        return (f"agent_accumulation/{self.seed}/{length_id(self.length)}/nd{self.needles}/"
                f"p{self.pages}/s{self.index}")

    @property
    def prefix_group(self) -> tuple:
        """Every sample of one ledger starts with the same task and pages (fixtures/engine/prefix.py
        runs them back to back)."""
        return self.ledger_seed,

    @property
    def prefix_share(self) -> float:
        return 1.0 if self.mode == "trajectory" else 0.01  # a live episode: the task


@dataclasses.dataclass(frozen=True)
class Settings:
    modes: tuple[str, ...]
    conditions: tuple[Condition, ...]
    lengths: tuple[int, ...]
    needles: tuple[int, ...]
    samples: int
    pages: int
    max_steps: int
    seed: int


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad value raises ValueError naming the
    option and the fix (the experiment becomes one [unavailable] case)."""
    scale = "full" if option("scale") == "full" else "test"
    modes = _modes(option("agent_modes"))
    conditions = parse_conditions(option("agent_conditions") or CONDITIONS[scale])
    raw = option("agent_lengths")
    lengths = parse_lengths(raw, "--agent-lengths", MIN_LENGTH, "8k,32k,128k") if raw \
        else LENGTHS[scale]
    if lengths[-1] > MAX_LENGTH:
        raise ValueError(f"--agent-lengths {raw!r}: at most 1m (1,048,576 tokens)")
    needles = _needles(option("agent_needles"), scale)
    samples = option("agent_samples")
    samples = SAMPLES[scale] if samples is None else samples
    if samples < 1:
        raise ValueError(f"--agent-samples {samples}: give 1 or more ledgers per cell")
    pages = option("agent_pages")
    pages = PAGES if pages is None else pages
    if not 1 <= pages <= MAX_PAGES:
        raise ValueError(f"--agent-pages {pages}: give 1 to {MAX_PAGES} pages")
    steps = option("agent_max_steps")
    steps = pages + EXTRA_STEPS if steps is None else steps
    if steps < 2:
        raise ValueError(f"--agent-max-steps {steps}: an episode needs at least 2 requests "
                         f"(default P + {EXTRA_STEPS})")
    return Settings(modes, conditions, lengths, needles, samples, pages, steps,
                    option("agent_seed"))


def _modes(value: str | None) -> tuple[str, ...]:
    if not value:
        return MODES
    chosen = {part.strip().lower() for part in value.split(",") if part.strip()}
    if not chosen or not chosen <= set(MODES):
        raise ValueError(f"--agent-modes {value!r}: choose from trajectory,live")
    return tuple(m for m in MODES if m in chosen)


def _needles(value: str | None, scale: str) -> tuple[int, ...]:
    if not value:
        return NEEDLES[scale]
    try:
        found = sorted({int(part) for part in value.split(",") if part.strip()})
    except ValueError:
        found = []
    if not found or not all(1 <= k <= 32 for k in found):
        raise ValueError(f"--agent-needles {value!r}: give needle counts from 1 to 32, "
                         "e.g. 2,4,8")
    return tuple(found)


def build(s: Settings) -> list[AgentSample]:
    """Length, needles, ledger, then mode and condition: a ledger's samples run together."""
    samples = []
    for length in s.lengths:
        for needles in s.needles:
            for index in range(s.samples):
                for mode in s.modes:
                    for condition in (s.conditions if mode == "live" else (FULL,)):
                        samples.append(AgentSample(mode, condition.name, length, needles,
                                                   index, s.pages, s.max_steps, s.seed))
    return samples


def smoke_rule(samples: list[AgentSample]) -> Callable[[AgentSample], bool]:
    """One cheap sample: a trajectory (one request) at the smallest length, else the
    smallest live one."""
    first = min(samples, default=None, key=lambda s: (s.mode != "trajectory", s.length,
                                                      s.needles, s.index, s.condition != "full"))
    return lambda sample: sample == first
