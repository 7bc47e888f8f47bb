"""The grid: needle sets x lengths x haystacks x tests x NoLiMa's 26 depths, and the settings.

Which sets run: ``--nolima-sets`` (file stems); by default NoLiMa's main set and its literal
control (``needle_set``, ``needle_set_ONLYDirect``) at ``--scale full``, contextrot's own pair
(``contextrot_latent``, ``contextrot_literal``) at ``--scale test``. NoLiMa's sets are read
from ``--nolima-dir`` (default: the data directory's ``nolima/``); when that default folder
is absent, its sets give way to contextrot's own and one ``nolima-unavailable`` case says what
to fetch and under which licence. A folder that is there but bad stops the grid with one line
naming the file.

``--scale test`` keeps, of each set, its first entry's first test (every question type), the
first haystack and NoLiMa's 13th depth (48%), at 250 and 1,000 tokens: six samples with the
default sets, about 4,500 o200k prompt tokens. At ``--scale full`` contextrot's own sets give each
test one of their five haystacks in turn (the n-th test the n-th haystack, modulo five), not
all five: a fifth of the samples (4,368 at NoLiMa's eight lengths), still every depth. NoLiMa's
sets run on every haystack, as NoLiMa runs them. Lengths that cannot fit the context known at
collection (``--max-context``, or the embedded model's 8,192) with the 192-token answer are
not built.

Ids read ``contextrot_latent.json-0001_place_T01_onehop-contextrot_book_1.txt-ctx1k-d048``:
the set's file, NoLiMa's test name, the haystack's file, the length and the depth in percent.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from fixtures.embedded.model import CONTEXT_LENGTH as EMBEDDED_CONTEXT
from fixtures.pytest_face.parametrize import SampleParams, tokens_id

from . import haystacks, needlesets

FULL_LENGTHS = (250, 500, 1000, 2000, 4000, 8000, 16000, 32000)  # NoLiMa's run configs
TEST_LENGTHS = (250, 1000)
BASE_LENGTHS = (250, 500, 1000)  # NoLiMa's "short contexts": the base score's lengths
# np.linspace(0, 100, 26): 0, 4, ..., 100 percent (exact: the step is 4.0)
DEPTHS = tuple(float(d) for d in np.linspace(0, 100, 26))
TEST_DEPTH_INDEX = 12  # 48%
NOLIMA_SETS = ("needle_set", "needle_set_ONLYDirect", "needle_set_hard", "needle_set_w_CoT",
               "needle_set_w_Distractor", "needle_set_MC")
DEFAULT_SETS = {"full": ("needle_set", "needle_set_ONLYDirect"),
                "test": ("contextrot_latent", "contextrot_literal")}
FOLDER = "nolima"  # in the data directory
MAX_OUTPUT_TOKENS = 192  # NoLiMa's model configs
TEMPERATURE, TOP_P, SEED = 0.0, 1.0, 43  # NoLiMa's request: greedy, seed 43
SYSTEM_PROMPT = "You are a helpful assistant"  # NoLiMa's connector's default


@dataclasses.dataclass(frozen=True)
class NolimaSample(SampleParams):
    set: str  # the needle set's file stem
    source: str  # "nolima" (the user's download) or "contextrot" (the suite's own)
    literal: bool  # a literal-match control (ONLYDirect, contextrot_literal)
    test: str  # NoLiMa's test name: {entry id}_{test id}_{question type}
    question_type: str
    haystack: str  # the haystack's file stem
    haystack_index: int  # its place in sorted name order: added to the seed
    length: int  # haystack tokens before the needle, in the run's unit
    depth: float  # percent, one of DEPTHS
    depth_index: int

    @property
    def id(self) -> str:
        return (f"{self.set}.json-{self.test}-{self.haystack}.txt-"
                f"{tokens_id('ctx', self.length)}-d{round(self.depth):03d}")


@dataclasses.dataclass(frozen=True)
class Settings:
    scale: str
    folder: Path  # NoLiMa's download
    sets: tuple[str, ...]
    lengths: tuple[int, ...]
    missing: str | None  # NoLiMa's data is absent: why, what to fetch, its licence

    def set_path(self, stem: str) -> Path:
        return needlesets.OWN_SETS[stem] if needlesets.is_own(stem) else \
            self.folder / "needlesets" / f"{stem}.json"

    def haystack_names(self, stem: str) -> tuple[str, ...]:
        if needlesets.is_own(stem):
            return haystacks.OWN_HAYSTACKS
        return tuple(name.removesuffix(".txt") for name in haystacks.nolima_names(self.folder))


def settings(option) -> Settings:
    """The run's settings from ``config.getoption``; a bad option raises ValueError naming the
    fix. Reads nothing but a folder listing."""
    from fixtures.data.registry import NOLIMA_LICENSE, NOLIMA_URL, data_dir

    scale = option("scale")
    given = option("nolima_dir")
    folder = Path(given).expanduser() if given else data_dir() / FOLDER
    sets = parse_sets(option("nolima_sets")) or DEFAULT_SETS[scale]
    lengths = parse_lengths(option("nolima_lengths")) or (
        FULL_LENGTHS if scale == "full" else TEST_LENGTHS)
    ceiling = option("max_context") or (EMBEDDED_CONTEXT if option("model") is None else None)
    if ceiling is not None:
        fitting = tuple(x for x in lengths if x + MAX_OUTPUT_TOKENS < ceiling)
        if not fitting:
            raise ValueError(f"--nolima-lengths: none of {', '.join(map(str, lengths))} fits "
                             f"a {ceiling}-token context with the {MAX_OUTPUT_TOKENS}-token "
                             "answer; give shorter lengths")
        lengths = fitting
    theirs = [s for s in sets if not needlesets.is_own(s)]
    missing = None
    if theirs and not folder.is_dir():
        if given:
            raise ValueError(f"--nolima-dir {given}: no such folder; give the folder holding "
                             "NoLiMa's needlesets/ and haystack/rand_shuffle/ (from "
                             f"{NOLIMA_URL.removesuffix('/resolve/main')})")
        missing = (f"NoLiMa's data is not in {folder}: fetch needlesets/"
                   f"{{{','.join(theirs)}}}.json and haystack/rand_shuffle/rand_book_{{1..5}}"
                   f".txt from {NOLIMA_URL.removesuffix('/resolve/main')} ({NOLIMA_LICENSE}) "
                   "into it, or give --nolima-dir; contextrot's own needles run instead")
        sets = tuple(dict.fromkeys(
            "contextrot_literal" if needlesets.is_literal(s) else
            "contextrot_latent" if not needlesets.is_own(s) else s for s in sets))
    return Settings(scale, folder, sets, lengths, missing)


def parse_sets(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    stems = tuple(dict.fromkeys(part.strip().removesuffix(".json") for part in value.split(",")
                                if part.strip()))
    bad = [s for s in stems if not needlesets.STEM.match(s)]
    if not stems or bad:
        raise ValueError(f"--nolima-sets {value!r}: give needle-set file stems of letters, "
                         f"digits and '_', e.g. {','.join(NOLIMA_SETS[:2])} (NoLiMa's) or "
                         "contextrot_latent,contextrot_literal (contextrot's own)")
    return stems


def parse_lengths(value: str | None) -> tuple[int, ...]:
    """``250,500,1k,32k``: haystack tokens (k is a thousand, as NoLiMa's lengths are)."""
    if not value:
        return ()
    lengths = set()
    for part in (p.strip().lower() for p in value.split(",") if p.strip()):
        try:
            number = float(part[:-1]) * 1000 if part.endswith("k") else float(part)
        except ValueError:
            number = 0
        if number < 1 or number != int(number):
            raise ValueError(f"--nolima-lengths {value!r}: {part!r} is not a length; give "
                             "haystack tokens such as 250,500,1k,32k")
        lengths.add(int(number))
    return tuple(sorted(lengths))


def build(s: Settings, tests: dict[str, tuple[needlesets.Test, ...]]) -> list[NolimaSample]:
    """Every sample in a fixed order: set, length, haystack, test, depth. ``tests``: each
    set's tests (needlesets.load)."""
    samples = []
    for stem in s.sets:
        chosen = tests[stem]
        names = s.haystack_names(stem)
        depths = list(enumerate(DEPTHS))
        if s.scale == "test":
            first = chosen[0]
            chosen = [t for t in chosen if (t.entry, t.test) == (first.entry, first.test)]
            names = names[:1]
            depths = [depths[TEST_DEPTH_INDEX]]
        own = needlesets.is_own(stem)
        source = "contextrot" if own else "nolima"
        literal = needlesets.is_literal(stem)
        for length in s.lengths:
            for index, name in enumerate(names):
                for number, test in enumerate(chosen):
                    if own and number % len(names) != index:  # one haystack a test, in turn
                        continue
                    for k, depth in depths:
                        samples.append(NolimaSample(stem, source, literal, test.name,
                                                    test.question_type, name, index, length,
                                                    depth, k))
    return samples


def smoke_rule(samples: list[NolimaSample]):
    """One small sample: the shortest length of the first sample's set and test."""
    first = min(range(len(samples)), default=None, key=lambda i: (samples[i].length, i))
    return lambda sample: first is not None and sample == samples[first]
