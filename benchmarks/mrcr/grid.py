"""The grid: sources x needle counts x token bins x samples, and the run's settings.

Bins are the original's, in o200k tokens of the message contents plus the answer:
[4096, 8192], then (8192, 16384] ... (524288, 1048576], named by their upper bound as the
original reports them (8K..1M; ids ``b8k`` ... ``b1m``). Below them, three *test-only* bins,
(512, 1024], (1024, 2048] and (2048, 4096] (ids ``tb1k``, ``tb2k``, ``tb4k``, labels
``test 0.5k-1k``...), give the test scale a curve within the embedded model's 8,192-token
context; they exist in no original.

Ids read ``gen-nd2-b8k-s007``: the source (``gen`` built offline, ``oai`` the openai/mrcr
rows), the needle count, the bin and the sample's number in its cell, so ``-k`` selects
exactly (``-k b8k`` never selects ``b128k``).
"""

from __future__ import annotations

import dataclasses
import importlib.util

from fixtures.embedded.model import CONTEXT_LENGTH as EMBEDDED_CONTEXT
from fixtures.pytest_face.parametrize import SampleParams

import benchmarks.mrcr.original as original

NEEDLES = (2, 4, 8)
SOURCES = ("generated", "openai")
SOURCE_IDS = {"generated": "gen", "openai": "oai"}
SOURCE_CHOICES = ("auto", "generated", "original", "both")
SAMPLES = {"full": 100, "test": 1}  # per (source, needle count, bin); the original has 100
TEST_NEEDLES = (2,)  # the test scale: 4 samples, 12k prompt tokens in all (a curve over 4 bins)
# The longest writing a generated sample may hold (o200k tokens): the pool's longest at full
# scale; at test scale shorter, so that the embedded model's replies (up to twice the
# answer) stay short on two cores.
MAX_PASSAGE = {"full": 800, "test": 200}
TEST_BIN_TOKENS_PER_NEEDLE = 256  # a test-only bin holds at most high / 256 needles
DEFAULT_MAX_BIN = "128k"  # full scale: up to Context Arena's AUC@128k; "1m" for all eight
# The request. The original sends the messages and nothing else: at full scale no output cap
# and no sampling parameter is sent unless asked. The test scale keeps a cap (the embedded
# model's replies stay short on two cores) and temperature 0 (the same replies run to run).
ANSWER_CAP = "answer"  # twice the answer's tokens plus 16, per sample
NO_CAP = "none"
DEFAULT_MAX_TOKENS = {"full": NO_CAP, "test": ANSWER_CAP}
DEFAULT_TEMPERATURE = {"full": None, "test": 0.0}  # None: not sent


@dataclasses.dataclass(frozen=True)
class Bin:
    low: int
    high: int
    test_only: bool = False

    @property
    def first(self) -> bool:
        return self.low == 4096 and not self.test_only

    def holds(self, size: int) -> bool:
        """The original's rule: the first bin is closed, the others left-open."""
        return (self.low <= size if self.first else self.low < size) and size <= self.high

    @property
    def name(self) -> str:
        """The upper bound as the original names it: 8k ... 512k, 1m."""
        return "1m" if self.high == 1 << 20 else f"{self.high >> 10}k"

    @property
    def id(self) -> str:
        return ("tb" if self.test_only else "b") + self.name

    @property
    def label(self) -> str:
        """``4k-8k``, ``512k-1M``; a test-only bin says so: ``test 1k-2k``."""
        high = "1M" if self.name == "1m" else self.name
        return f"{'test ' if self.test_only else ''}{self.low / 1024:g}k-{high}"


BINS = tuple(Bin(4096 << k, 8192 << k) for k in range(8))
TEST_BINS = (Bin(512, 1024, True), Bin(1024, 2048, True), Bin(2048, 4096, True))
BIN_NAMES = {b.name: b for b in BINS}


@dataclasses.dataclass(frozen=True)
class MrcrSample(SampleParams):
    source: str  # "generated" or "openai"
    needles: int
    bin: str  # the label, e.g. "4k-8k"
    bin_low: int
    bin_high: int  # the length axis: o200k tokens
    test_bin: bool
    index: int  # the sample's number in its cell (an original row: the index-th in its bin)
    seed: int | None  # generated samples only
    max_passage: int | None  # generated samples only: their longest writing, o200k tokens
    merge_user_messages: bool

    @property
    def id(self) -> str:
        return (f"{SOURCE_IDS[self.source]}-nd{self.needles}-{self.bin_of().id}-"
                f"s{self.index:03d}")

    def bin_of(self) -> Bin:
        return Bin(self.bin_low, self.bin_high, self.test_bin)


@dataclasses.dataclass(frozen=True)
class Settings:
    sources: tuple[str, ...]
    needles: tuple[int, ...]
    bins: tuple[Bin, ...]
    samples: int
    seed: int
    merge_user_messages: bool
    max_tokens: int | str  # a number, ANSWER_CAP (twice the answer plus 16) or NO_CAP
    max_passage: int
    original_dir: str | None
    missing_original: str | None  # why the original source cannot run (when it was asked)
    temperature: float | None = None  # None: not sent, as the original sends none
    # the generated source at test scale on the embedded model: its test-only bins alone
    # (its main job leaves 4k-8k's 6k prompt tokens to RULER's grid sized to it)
    test_bins_only: bool = False

    def output_cap(self, answer_tokens: int) -> int | None:
        """The request's max_tokens; None: no cap is sent."""
        if self.max_tokens == ANSWER_CAP:
            return 2 * answer_tokens + 16
        return None if self.max_tokens == NO_CAP else self.max_tokens


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad value raises ValueError naming
    the fix. Reads no data: whether the original's files are there is a stat, not a read."""
    scale = option("scale")
    needles = _needles(option("mrcr_needles"), scale)
    samples = option("mrcr_samples")
    samples = SAMPLES[scale] if samples is None else samples  # 0 is refused, not the default
    if samples < 1:
        raise ValueError(f"--mrcr-samples {samples}: give 1 or more samples per cell")
    max_tokens = _max_tokens(option("mrcr_max_tokens"), scale)
    temperature = _temperature(option("mrcr_temperature"), scale)
    bins = _bins(option, scale)
    choice = option("mrcr_source")
    directory = option("mrcr_original_dir")
    missing = original.missing(needles, directory)
    if missing is None and importlib.util.find_spec("pyarrow") is None:
        missing = "reading openai/mrcr's parquet files needs pyarrow: pip install pyarrow"
    if choice == "auto":
        sources = ("openai",) if missing is None else ("generated",)
    else:
        sources = {"generated": ("generated",), "original": ("openai",),
                   "both": ("generated", "openai")}[choice]
    embedded_test = scale == "test" and option("model") is None and \
        option("mrcr_max_bin") is None
    return Settings(sources=sources, needles=needles, bins=bins, samples=samples,
                    test_bins_only=embedded_test,
                    seed=option("mrcr_seed"), merge_user_messages=option("mrcr_merge_user_messages"),
                    max_tokens=max_tokens, max_passage=MAX_PASSAGE[scale],
                    original_dir=directory,
                    missing_original=missing if "openai" in sources else None,
                    temperature=temperature)


def _max_tokens(value: str | None, scale: str) -> int | str:
    if value is None:
        return DEFAULT_MAX_TOKENS[scale]
    if value.strip().lower() in (ANSWER_CAP, NO_CAP):
        return value.strip().lower()
    try:
        tokens = int(value)
    except ValueError:
        tokens = 0
    if tokens < 1:
        raise ValueError(f"--mrcr-max-tokens {value}: give a positive number of tokens, "
                         f"'{ANSWER_CAP}' (twice the answer's tokens plus 16) or '{NO_CAP}' "
                         "(no cap sent, as the original)")
    return tokens


def _temperature(value: str | None, scale: str) -> float | None:
    if value is None:
        return DEFAULT_TEMPERATURE[scale]
    if value.strip().lower() == "none":
        return None
    try:
        temperature = float(value)
    except ValueError:
        temperature = -1.0
    if not 0 <= temperature <= 2:
        raise ValueError(f"--mrcr-temperature {value}: give a temperature from 0 to 2, or "
                         "'none' (not sent, as the original)")
    return temperature


def _needles(values: list[str] | None, scale: str) -> tuple[int, ...]:
    if not values:
        return TEST_NEEDLES if scale == "test" else NEEDLES
    found = set()
    for value in values:
        for part in value.split(","):
            if part.strip() not in {str(n) for n in NEEDLES}:
                raise ValueError(f"--mrcr-needles {value}: the original has 2, 4 and 8 needles "
                                 "(e.g. --mrcr-needles 2,8)")
            found.add(int(part))
    return tuple(sorted(found))


def _bins(option, scale: str) -> tuple[Bin, ...]:
    top = option("mrcr_max_bin")
    if top is not None and top.lower() not in BIN_NAMES:
        raise ValueError(f"--mrcr-max-bin {top}: one of {', '.join(BIN_NAMES)}")
    if scale == "test" and top is None:
        return TEST_BINS + BINS[:1]
    highest = BIN_NAMES[(top or DEFAULT_MAX_BIN).lower()].high
    # A bin that cannot fit the context known at collection is not built at all (a remote
    # model's context is unknown here: its bins are skipped at run time when too long).
    ceiling = option("max_context") or (EMBEDDED_CONTEXT if option("model") is None else None)
    chosen = tuple(b for b in BINS if b.high <= highest
                   and (ceiling is None or b.low < ceiling))
    if not chosen:
        raise ValueError(f"--max-context {ceiling}: MRCR's smallest bin starts at "
                         f"{BINS[0].low} tokens")
    return chosen


def build(s: Settings) -> list[MrcrSample]:
    """Source, needle count, bin, then sample (a cell's samples run back to back)."""
    samples = []
    for source in s.sources:
        if source == "openai" and s.missing_original is not None:
            continue
        if source == "openai":  # the original's rows hold no test-only bin
            bins = [b for b in s.bins if not b.test_only]
        else:
            bins = [b for b in s.bins if b.test_only or not s.test_bins_only]
        for needles in s.needles:
            for b in bins:
                if b.test_only and needles * TEST_BIN_TOKENS_PER_NEEDLE > b.high:
                    continue  # 8 needles and a preamble do not fit in 1,024 tokens
                for index in range(s.samples):
                    generated = source == "generated"
                    samples.append(MrcrSample(
                        source, needles, b.label, b.low, b.high, b.test_only, index,
                        s.seed if generated else None, s.max_passage if generated else None,
                        s.merge_user_messages))
    return samples


def smoke_rule(samples: list[MrcrSample]):
    """One small sample: the first of the smallest bin of the first source."""
    first = min(samples, default=None, key=lambda s: (SOURCES.index(s.source), s.bin_high,
                                                      s.needles, s.index))
    return lambda sample: sample == first
