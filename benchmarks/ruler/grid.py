"""The grid: RULER's 13 tasks x target lengths x samples.

The task table is RULER's ``synthetic.yaml`` with each family's ``tokens_to_generate``,
metric and increment (spec ruler.md sections 2-3). Lengths are RULER's, powers of two: 4k is
4,096 tokens, 128k is 131,072 (ids say so: ``ctx4k``, ``ctx128k``, ``ctx1m``).
"""

from __future__ import annotations

import dataclasses

from benchmarks.texts import fitting
from benchmarks.texts.fitting import length_id
from fixtures.pytest_face.parametrize import SampleParams


@dataclasses.dataclass(frozen=True)
class Task:
    name: str
    family: str  # niah, vt, cwe, fwe, qa
    tokens_to_generate: int
    metric: str  # "string_match_all" or "string_match_part"
    haystack: str = ""  # niah and vt: "noise", "essay" or "needle"
    key_type: str = ""  # niah: "words", "numbers" or "uuids"
    value_type: str = ""
    keys: int = 1  # niah: needles' keys; RULER takes max(keys, queries)
    values: int = 1  # values per key
    queries: int = 1  # keys asked about
    dataset: str = ""  # qa: "squad" or "hotpotqa"

    @property
    def needs_data(self) -> bool:
        return self.family == "qa"


def _niah(name: str, haystack: str, key: str, value: str, keys: int = 1, values: int = 1,
          queries: int = 1) -> Task:
    return Task(name, "niah", 128, "string_match_all", haystack, key, value,
                max(keys, queries), values, queries)


TASKS: dict[str, Task] = {task.name: task for task in (
    _niah("niah_single_1", "noise", "words", "numbers"),
    _niah("niah_single_2", "essay", "words", "numbers"),
    _niah("niah_single_3", "essay", "words", "uuids"),
    _niah("niah_multikey_1", "essay", "words", "numbers", keys=4),
    _niah("niah_multikey_2", "needle", "words", "numbers"),
    _niah("niah_multikey_3", "needle", "uuids", "uuids"),
    _niah("niah_multivalue", "essay", "words", "numbers", values=4),
    _niah("niah_multiquery", "essay", "words", "numbers", queries=4),
    Task("vt", "vt", 30, "string_match_all", haystack="noise"),
    Task("cwe", "cwe", 120, "string_match_all"),
    Task("fwe", "fwe", 50, "string_match_all"),
    Task("qa_1", "qa", 32, "string_match_part", dataset="squad"),
    Task("qa_2", "qa", 32, "string_match_part", dataset="hotpotqa"),
)}

K, M = fitting.K, fitting.M
LENGTHS = (4 * K, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K)  # config_models.sh
LONG_LENGTHS = (256 * K, 512 * K, M)  # beyond RULER's table: --ruler-lengths ...,1m
SAMPLES = 500  # NUM_SAMPLES in RULER's run.sh
# --scale test, for the embedded model (8k context, a few hundred prompt tokens a second):
# one sample of one task per family (retrieval, tracing, aggregation) at three short lengths,
# 13.5k prompt tokens in all. RULER's own rules for lengths under 4k apply (smaller
# increments, CWE's smaller example and repeats).
TEST_TASKS = ("niah_single_1", "vt", "cwe")
TEST_LENGTHS = (1 * K, 3 * K // 2, 2 * K)
TEST_SAMPLES = 1
# --scale test on the embedded model itself (no --model): a grid sized to what a 135M model
# does, so the main job shows a real degradation curve and verdict. A needle among needles of
# the same form (niah_multikey_2) from the needle alone to 18 lines; measured with this model
# (docs/experiments/ruler.md): right alone, about half the time among 2 others, almost never
# among 17. Ten samples a length: the fewest that carry a verdict (--verdict-min-samples).
EMBEDDED_TASKS = ("niah_multikey_2",)
EMBEDDED_LENGTHS = (216, 240, 288, 384, 512)
EMBEDDED_SAMPLES = 10
MIN_LENGTH = 192  # the tokens to generate (128) and a prompt of a few lines


@dataclasses.dataclass(frozen=True)
class RulerSample(SampleParams):
    task: str
    length: int  # target: prompt tokens + tokens_to_generate <= length, in the run's unit
    index: int  # sample number; QA: the question's index in its file
    width: int = 3  # digits of the index in the id (the grid's largest index sets it)

    @property
    def id(self) -> str:
        return f"{self.task}-{length_id(self.length)}-s{self.index:0{self.width}d}"

    @property
    def prefix_group(self) -> tuple | None:
        """A task and length's noise or essay haystack is one text up to its first needle, so
        its samples share a prompt prefix (fixtures/engine/prefix.py; the grid already runs them
        together, so this sizes what a prefix cache could serve in --plan)."""
        task = TASKS[self.task]
        shared = task.family == "niah" and task.haystack in ("noise", "essay")
        return (self.task, self.length) if shared else None

    @property
    def prefix_share(self) -> float:
        """The expected part before the first of k needles at uniform random depths: 1/(k+1)
        (the depths are drawn when the haystack is fitted, so the plan cannot know them)."""
        task = TASKS[self.task]
        return 1 / (task.keys * task.values + 1) if self.prefix_group else 0.0

    @property
    def seed(self) -> str:
        """Seeds every random choice of this sample (with the tokenizer, the stimulus)."""
        return f"ruler/{self.task}/{self.length}/{self.index}"

    def params(self) -> dict:
        return {"task": self.task, "length": self.length, "index": self.index}


def build(tasks: tuple[str, ...], lengths: tuple[int, ...], samples: int
          ) -> list[RulerSample]:
    """Every sample, task by task in RULER's order, then by length and index."""
    width = max(3, len(str(samples - 1)))
    return [RulerSample(task, length, index, width) for task in tasks
            for length in lengths for index in range(samples)]


def parse_tasks(value: str | None, scale: str, embedded: bool = False) -> tuple[str, ...]:
    """``--ruler-tasks``: ``all``, ``synthetic`` (the 11 needing no data) or names.
    ``embedded``: the model under test is the embedded one (its own test grid)."""
    if value is None:
        return tuple(TASKS) if scale == "full" else \
            EMBEDDED_TASKS if embedded else TEST_TASKS
    names: list[str] = []
    for part in (p.strip() for p in value.split(",") if p.strip()):
        if part == "all":
            names.extend(TASKS)
        elif part == "synthetic":
            names.extend(name for name, task in TASKS.items() if not task.needs_data)
        elif part in TASKS:
            names.append(part)
        else:
            raise ValueError(f"--ruler-tasks {value!r}: {part!r} is not a RULER task; use "
                             f"all, synthetic or some of {', '.join(TASKS)}")
    if not names:
        raise ValueError(f"--ruler-tasks {value!r}: name at least one task")
    chosen = set(names)
    return tuple(name for name in TASKS if name in chosen)  # RULER's order, once each


def parse_lengths(value: str | None, scale: str, embedded: bool = False) -> tuple[int, ...]:
    """``--ruler-lengths 4k,8k,1m`` (k = 1,024 tokens, m = 1,048,576) or token counts."""
    if value is None:
        return LENGTHS if scale == "full" else EMBEDDED_LENGTHS if embedded else TEST_LENGTHS
    return fitting.parse_lengths(value, "--ruler-lengths", MIN_LENGTH, "4k,8k,128k or 1m")


def parse_samples(value: int | None, scale: str, embedded: bool = False) -> int:
    if value is None:
        return SAMPLES if scale == "full" else EMBEDDED_SAMPLES if embedded else TEST_SAMPLES
    if value < 1:
        raise ValueError(f"--ruler-samples {value}: give at least 1 sample per task and length")
    return value
