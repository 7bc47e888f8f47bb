"""The grid: distractor variants x word lists; one sample is one whole conversation.

Ids read ``which_is_heavier-s007`` (variant, word-list number); a sample with a turn limit
other than the protocol's 100 carries it too (``which_is_heavier-t4-s007``), so ``-k``
selects exactly.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Callable

from fixtures.pytest_face.parametrize import SampleParams

# The original's variant names, in its order, with underscores (ids, options and params).
VARIANTS = ("which_is_heavier", "first_letters", "ambiguous_sentences",
            "reverse_sort_words_eng", "distractorless")
# The variants whose source eval graded with a fuzzy match (openai/evals registry:
# ambiguous-sentences ran FuzzyMatch; which-is-heavier, first-letters and reverse-sort-words-eng
# ran Match). ``--ast-distractor-match fuzzy`` applies it there only, ``fuzzy-all`` everywhere.
FUZZY_VARIANTS = ("ambiguous_sentences",)
DISTRACTOR_MATCHES = ("exact", "fuzzy", "fuzzy-all")
MAX_TURNS = 100
WORDS_PER_SAMPLE = 100
ORIGINAL_LISTS = 500
FULL_SAMPLES = 250  # the original runs 250 of its 500 lists
TEST_SAMPLES = 3
SMOKE_MAX_TURNS = 4  # the smoke sample: one conversation of at most this many turns
# Output budget per turn: the original's solvers allow 512; at test scale a reply needs only
# "[answer: ...]" (a reverse-sorted list of ten words is ~30 tokens), and the embedded model
# rambles, so 64 keeps the grid within minutes on a CPU.
MAX_TOKENS = {"full": 512, "test": 64}


@dataclasses.dataclass(frozen=True)
class Settings:
    """The run's protocol options (every one is a sample param: it changes the stimulus)."""
    variants: tuple[str, ...] = VARIANTS
    samples: int | None = None  # per variant; None: the scale's default
    max_turns: int = MAX_TURNS
    seed: int = 0
    word_source: str = "original"  # or "wordnet": new lists sampled from WordNet
    adversarial_pool: str = "distractors"  # or "original" (adds yes/no), "none"
    reverse_sort_ideals: str = "corrected"  # or "original" (keeps the two wrong ideals)
    distractor_match: str = "exact"  # or "fuzzy" (FUZZY_VARIANTS only), "fuzzy-all"
    max_tokens: int | None = None  # None: the scale's default


@dataclasses.dataclass(frozen=True)
class AlreadySaidThatSample(SampleParams):
    variant: str
    index: int  # the word list: a line of the original's file, or a generated list number
    max_turns: int
    seed: int
    word_source: str
    adversarial_pool: str
    reverse_sort_ideals: str
    distractor_match: str  # as applied to this variant: "exact" or "fuzzy"

    @property
    def id(self) -> str:
        # The turn limit comes before the list so that no id is a prefix of another.
        turns = "" if self.max_turns == MAX_TURNS else f"-t{self.max_turns}"
        return f"{self.variant}{turns}-s{self.index:03d}"

    @property
    def rng_seed(self) -> str:
        """The seed of this conversation's generator (str seeds hash the same everywhere)."""
        return f"already_said_that/{self.seed}/{self.word_source}/{self.variant}/{self.index}"


def parse_variants(values: list[str] | None) -> tuple[str, ...]:
    """``--ast-variant`` (repeatable, hyphens or underscores); default all five, in order."""
    if not values:
        return VARIANTS
    chosen = []
    for value in values:
        name = value.strip().replace("-", "_")
        if name not in VARIANTS:
            raise ValueError(f"--ast-variant {value!r}: unknown variant; choose from "
                             + ", ".join(v.replace("_", "-") for v in VARIANTS))
        chosen.append(name)
    return tuple(v for v in VARIANTS if v in chosen)


def distractor_match(variant: str, option: str) -> str:
    """How ``variant``'s distractor answers are graded under ``--ast-distractor-match``."""
    if option == "fuzzy-all" or (option == "fuzzy" and variant in FUZZY_VARIANTS):
        return "fuzzy"
    return "exact"


def check(settings: Settings) -> None:
    if settings.distractor_match not in DISTRACTOR_MATCHES:
        raise ValueError(f"--ast-distractor-match {settings.distractor_match!r}: choose from "
                         + ", ".join(DISTRACTOR_MATCHES))
    if not 1 <= settings.max_turns <= WORDS_PER_SAMPLE:
        raise ValueError(f"--ast-max-turns {settings.max_turns}: must be between 1 and "
                         f"{WORDS_PER_SAMPLE} (a sample has {WORDS_PER_SAMPLE} words)")
    if settings.samples is not None and settings.samples < 1:
        raise ValueError(f"--ast-samples {settings.samples}: must be at least 1")
    if settings.word_source == "original" and (settings.samples or 0) > ORIGINAL_LISTS:
        raise ValueError(f"--ast-samples {settings.samples}: the original has only "
                         f"{ORIGINAL_LISTS} word lists; add --ast-words wordnet for more")
    if settings.max_tokens is not None and settings.max_tokens < 1:
        raise ValueError(f"--ast-max-tokens {settings.max_tokens}: must be at least 1")


def list_numbers(settings: Settings, count: int) -> list[int]:
    """Which word lists: a seeded choice of the original's 500, or generated lists 0..n-1."""
    if settings.word_source == "wordnet":
        return list(range(count))
    rng = random.Random(f"already_said_that/select/{settings.seed}")
    return sorted(rng.sample(range(ORIGINAL_LISTS), count))


def build(scale: str, settings: Settings) -> list[AlreadySaidThatSample]:
    """Every variant x the chosen lists, plus the short smoke conversation."""
    check(settings)
    count = settings.samples or (FULL_SAMPLES if scale == "full" else TEST_SAMPLES)
    numbers = list_numbers(settings, count)

    def sample(variant: str, index: int, max_turns: int) -> AlreadySaidThatSample:
        return AlreadySaidThatSample(variant, index, max_turns, settings.seed,
                                     settings.word_source, settings.adversarial_pool,
                                     settings.reverse_sort_ideals,
                                     distractor_match(variant, settings.distractor_match))

    samples = [sample(v, i, settings.max_turns) for v in settings.variants for i in numbers]
    if settings.max_turns > SMOKE_MAX_TURNS:
        samples.append(sample(settings.variants[0], numbers[0], SMOKE_MAX_TURNS))
    return samples


def smoke_rule(samples: list[AlreadySaidThatSample]) -> Callable[[AlreadySaidThatSample], bool]:
    """Exactly one smoke sample: the short one, or the first when every sample is short."""
    short = [s for s in samples if s.max_turns <= SMOKE_MAX_TURNS]
    chosen = short[0] if short else samples[0]
    return lambda s: s == chosen


def max_tokens(scale: str, settings: Settings) -> int:
    return settings.max_tokens or MAX_TOKENS["full" if scale == "full" else "test"]
