"""The grid: sources x problem types x lengths x samples, and the run's settings.

Lengths are prompt tokens in the run's unit (``--tokenizer``; o200k by default), powers of
two from 1k to 1M at full scale (k = 1,024): a generated prompt fills its length, an original
row falls in the bin above the next shorter length asked for and at most this one. Ids read
``gen-bfs-ctx8k-s007``: the source (``gen`` built offline, ``oai`` the openai/graphwalks
rows), the problem type, the length and the sample's number in its cell, so ``-k``
selects exactly (``-k ctx8k`` never selects ``ctx128k``).
"""

from __future__ import annotations

import dataclasses
import importlib.util

from benchmarks.texts import fitting
from benchmarks.texts.fitting import length_id
from fixtures.pytest_face.parametrize import SampleParams

import benchmarks.graphwalks.original as original
from .graphs import PROBLEM_TYPES

K, M = fitting.K, fitting.M
LENGTHS = tuple(K << i for i in range(11))  # 1k .. 1M
# --scale test, for the embedded model (8k context, ~200 prompt tokens a second on two
# cores): one sample of each problem type at two short lengths, 4.5k o200k prompt tokens
# (5.9k of its own).
TEST_LENGTHS = (K, 5 * K // 4)
# Per source, problem type and length: 50 x 2 types x 11 lengths is about the original's
# 1,150 rows.
SAMPLES = {"full": 50, "test": 1}
MIN_LENGTH = 512  # the 2026 template alone is near 400 o200k tokens
SOURCES = ("generated", "original")
SOURCE_IDS = {"generated": "gen", "original": "oai"}
SOURCE_CHOICES = ("auto", "generated", "original")
# The output budget. The original's users give every model 16,384 tokens (lm-eval's
# max_gen_toks; it notes that less lowers gpt-5-nano's score); a reasoning model's thinking
# budget is added to it as in every experiment. The test scale caps the embedded model's
# reply at twice the answer's tokens plus 16.
ANSWER_CAP = "answer"
DEFAULT_MAX_TOKENS = {"full": 16_384, "test": ANSWER_CAP}
DEFAULT_TEMPERATURE = {"full": None, "test": 0.0}  # None: not sent


@dataclasses.dataclass(frozen=True)
class GraphwalksSample(SampleParams):
    source: str  # "generated" or "original"
    problem_type: str  # "bfs" or "parents"
    length: int  # prompt tokens in the run's unit: the target (generated) or the bin's top
    bin_low: int  # original rows: the bin's exclusive lower bound (generated: 0)
    index: int
    prompt: str  # "2025" or "2026": the template (generated), the rows' date (original)
    seed: int | None  # generated samples only

    @property
    def id(self) -> str:
        return (f"{SOURCE_IDS[self.source]}-{self.problem_type}-{length_id(self.length)}-"
                f"s{self.index:03d}")


@dataclasses.dataclass(frozen=True)
class Settings:
    sources: tuple[str, ...]
    lengths: tuple[int, ...]
    samples: int
    prompt: str
    seed: int
    max_tokens: int | str  # a number, or ANSWER_CAP
    temperature: float | None
    original_dir: str | None
    missing_original: str | None  # why the original source cannot run (when asked for)

    def output_cap(self, answer_tokens: int) -> int:
        return 2 * answer_tokens + 16 if self.max_tokens == ANSWER_CAP else self.max_tokens


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad value raises ValueError naming
    the fix. Reads no data: whether the original's files are there is a stat."""
    scale = option("scale")
    lengths = parse_lengths(option("graphwalks_lengths"), scale)
    samples = option("graphwalks_samples")
    samples = SAMPLES[scale] if samples is None else samples
    if samples < 1:
        raise ValueError(f"--graphwalks-samples {samples}: give 1 or more samples per "
                         "problem type and length")
    directory = option("graphwalks_original_dir")
    missing = original.missing(lengths, directory)
    if missing is None and importlib.util.find_spec("pyarrow") is None:
        missing = "reading openai/graphwalks' parquet files needs pyarrow: pip install pyarrow"
    choice = option("graphwalks_source")
    if choice == "auto":
        choice = "original" if missing is None else "generated"
    if choice == "original" and missing is not None:
        raise ValueError(missing)
    return Settings(sources=(choice,), lengths=lengths, samples=samples,
                    prompt=option("graphwalks_prompt"), seed=option("graphwalks_seed"),
                    max_tokens=_max_tokens(option("graphwalks_max_tokens"), scale),
                    temperature=DEFAULT_TEMPERATURE[scale], original_dir=directory,
                    missing_original=missing)


def _max_tokens(value: str | None, scale: str) -> int | str:
    if value is None:
        return DEFAULT_MAX_TOKENS[scale]
    if value.strip().lower() == ANSWER_CAP:
        return ANSWER_CAP
    tokens = int(value) if value.strip().isdigit() else 0
    if tokens < 1:
        raise ValueError(f"--graphwalks-max-tokens {value}: give a positive number of tokens "
                         f"or '{ANSWER_CAP}' (twice the answer's tokens plus 16)")
    return tokens


def parse_lengths(value: str | None, scale: str) -> tuple[int, ...]:
    """``--graphwalks-lengths 1k,8k,1m`` (k = 1,024 tokens, m = 1,048,576) or token counts."""
    if value is None:
        return LENGTHS if scale == "full" else TEST_LENGTHS
    return fitting.parse_lengths(value, "--graphwalks-lengths", MIN_LENGTH, "1k,8k,128k or 1m")


def build(s: Settings) -> list[GraphwalksSample]:
    """Source, problem type, length, then sample (a cell's samples run back to back)."""
    found = []
    for source in s.sources:
        generated = source == "generated"
        for kind in PROBLEM_TYPES:
            for position, length in enumerate(s.lengths):
                low = 0 if generated or not position else s.lengths[position - 1]
                found.extend(GraphwalksSample(source, kind, length, low, index, s.prompt,
                                              s.seed if generated else None)
                             for index in range(s.samples))
    return found


def smoke_rule(samples: list[GraphwalksSample]):
    """One small sample: the first BFS sample of the shortest length."""
    first = min(samples, default=None, key=lambda s: (s.length, s.problem_type, s.index))
    return lambda sample: sample == first

