"""The grid: haystack mode x needle x context length x depth x distractors x trial."""

from __future__ import annotations

import dataclasses

from fixtures.pytest_face.parametrize import SampleParams, tokens_id

LENGTHS = (500, 1_000, 5_000, 10_000, 50_000, 100_000, 500_000, 900_000)
DEPTHS = tuple(range(0, 101, 10))
DISTRACTOR_COUNTS = (0, 1, 4)  # none, one (seeded choice), all four
TRIALS = 5
MODES = ("seq", "shuf")  # sequential (document order), shuffled sentences
# --scale test: the spec's test mode has 12 samples (4 lengths x 3 depths); here they are
# spent on the curve by length in each of the four conditions (2 modes x 0/4 distractors): 3
# lengths x the middle depth. The embedded model reads about 200 prompt tokens a second on
# two cores, so these 12 samples (14k prompt tokens) take about a minute in the main job.
TEST_LENGTHS = (500, 1_000, 2_000)
# On the embedded model (no --model) the main job leaves out 2k: a 135M model's NIAH row
# shows the machinery, and RULER's grid sized to it shows its curve; 8 samples, 6k tokens.
EMBEDDED_TEST_LENGTHS = (500, 1_000)
TEST_DEPTHS = (50,)
TEST_DISTRACTOR_COUNTS = (0, 4)
TEST_TRIALS = 1
SMOKE = ("seq", 500, 50, 0, 0)  # (mode, length, depth, distractors, trial), first needle

SHUFFLE_SEED_BASE, SHUFFLE_SEED_STRIDE = 42, 1000  # the spec: seed = 42 + trial x 1000
# Sequential trials start this many tokens apart (modulo the corpus, 1.51M tokens without
# the Bible), so five trials read five different stretches of the corpus.
SEQUENTIAL_OFFSET_STRIDE = 300_007


@dataclasses.dataclass(frozen=True)
class NiahSample(SampleParams):
    mode: str  # "seq" or "shuf"
    question: str  # question id in the needle file
    needle: str  # needle id
    length: int  # target prompt length, o200k tokens (template + haystack + insertions)
    depth: int  # needle depth, percent of the document
    distractors: int  # how many distractors are in the document
    trial: int

    @property
    def id(self) -> str:
        # dx, not x: "x1" is in "ctx1k"; trials are two digits so "t01" is not in "t10"
        return (f"{self.mode}-{self.needle}-{tokens_id('ctx', self.length)}-d{self.depth:03d}"
                f"-dx{self.distractors}-t{self.trial:02d}")

    @property
    def prefix_group(self) -> tuple:
        """A cell's depths and distractor counts share its haystack up to the first insertion
        (fixtures/engine/prefix.py orders them back to back, the deepest first)."""
        return self.mode, self.question, self.needle, self.length, self.trial

    @property
    def prefix_share(self) -> float:
        return self.depth / 100

    @property
    def shuffle_seed(self) -> int:
        return SHUFFLE_SEED_BASE + self.trial * SHUFFLE_SEED_STRIDE

    @property
    def start_offset(self) -> int:
        return self.trial * SEQUENTIAL_OFFSET_STRIDE

    @property
    def distractor_seed(self) -> str:
        """Seeds where distractors go and which: no depth in it, so they stay put across depths."""
        return f"niah-distractors/{self.mode}/{self.question}/{self.length}/{self.distractors}/" \
               f"{self.trial}"


def build(scale: str, needles: list[tuple[str, str]], *, modes: tuple[str, ...] = MODES,
          distractor_counts: tuple[int, ...] | None = None, trials: int | None = None,
          embedded: bool = False) -> list[NiahSample]:
    """Every sample, in a fixed order; ``needles`` are (question id, needle id) pairs;
    ``embedded``: the model under test is the embedded one (its shorter test grid)."""
    full = scale == "full"
    lengths = LENGTHS if full else EMBEDDED_TEST_LENGTHS if embedded else TEST_LENGTHS
    depths = DEPTHS if full else TEST_DEPTHS
    counts = distractor_counts or (DISTRACTOR_COUNTS if full else TEST_DISTRACTOR_COUNTS)
    trials = trials or (TRIALS if full else TEST_TRIALS)
    return [NiahSample(mode, question, needle, length, depth, count, trial)
            for mode in modes for question, needle in needles for count in counts
            for length in lengths for depth in depths for trial in range(trials)]


def parse_modes(value: str) -> tuple[str, ...]:
    modes = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    if not modes or any(mode not in MODES for mode in modes):
        raise ValueError(f"--niah-modes {value!r}: use seq, shuf or seq,shuf")
    return modes


def parse_counts(value: str | None, available: int) -> tuple[int, ...] | None:
    """``--niah-distractors 0,1,4``: how many distractors, each at most ``available``."""
    if value is None:
        return None
    try:
        counts = tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        counts = ()
    if not counts or any(c < 0 for c in counts):
        raise ValueError(f"--niah-distractors {value!r}: give counts such as 0,1,4")
    if max(counts) > available:
        raise ValueError(f"--niah-distractors {value!r}: the needle file has only "
                         f"{available} distractors for some question; use at most {available}")
    return counts
