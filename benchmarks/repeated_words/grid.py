"""The grid: word pairs x sequence lengths x positions of the unique word."""

from __future__ import annotations

import dataclasses

from fixtures.pytest_face.parametrize import SampleParams

from .words import read_pair

LENGTHS = (25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500, 10000)
# --scale test: 5 lengths x 3 positions, short enough for the embedded 8k-context model to
# answer in full (its output budget is twice the prompt).
TEST_LENGTHS = (25, 50, 100, 250, 500)
SMOKE = (25, 12)  # (n, position): one quick sample for CI

DEFAULT_PAIR = ("apple", "apples")
# The pairs of the Chroma report; ``--word-pair report`` selects all of them.
REPORT_PAIRS = (
    ("apple", "apples"), ("apples", "apple"), ("golden", "Golden"), ("orange", "run"),
    ("orange", "San Francisco"), ("San Francisco", "sf"),
    ("Golden Gate Bridge", "Golden Gate Park"),
)


@dataclasses.dataclass(frozen=True)
class RepeatedWordsSample(SampleParams):
    common: str
    modified: str
    n: int  # words in the sequence (a multi-word name counts as one word)
    position: int  # 0-based index of the modified word

    @property
    def prefix_group(self) -> tuple:
        """A length's positions share the prompt up to the modified word (fixtures/engine/prefix.py
        orders them back to back, the latest first)."""
        return self.common, self.modified, self.n

    @property
    def prefix_share(self) -> float:
        return self.position / self.n

    @property
    def id(self) -> str:
        # "n25w": the unit ends the number, so "-k n25w" does not select n250w
        return f"{pair_slug(self.common, self.modified)}-n{self.n}w-pos{self.position:04d}"


def pair_slug(common: str, modified: str) -> str:
    return f"{common}_{modified}".replace(" ", "+")


def positions(n: int) -> list[int]:
    """Every index below 100 words; from 100 on, every n//100-th index plus the last."""
    if n < 100:
        return list(range(n))
    found = list(range(0, n, n // 100))
    if found[-1] != n - 1:
        found.append(n - 1)
    return found


def test_positions(n: int) -> list[int]:
    return [0, n // 2, n - 1]


def build(scale: str, pairs: list[tuple[str, str]]) -> list[RepeatedWordsSample]:
    samples = []
    for common, modified in pairs:
        lengths = LENGTHS if scale == "full" else TEST_LENGTHS
        for n in lengths:
            for position in (positions(n) if scale == "full" else test_positions(n)):
                samples.append(RepeatedWordsSample(common, modified, n, position))
    return samples


def parse_pairs(values: list[str] | None) -> list[tuple[str, str]]:
    """``--word-pair common/modified`` (repeatable); ``report`` means the report's seven."""
    if not values:
        return [DEFAULT_PAIR]
    pairs: list[tuple[str, str]] = []
    for value in values:
        if value == "report":
            pairs.extend(REPORT_PAIRS)
            continue
        parts = [part.strip() for part in value.split("/")]
        if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
            raise ValueError(f"--word-pair {value!r}: write COMMON/MODIFIED with two different "
                             "words and one '/', e.g. --word-pair apple/apples")
        read_pair(parts[0], parts[1])  # ValueError: two words that read as one
        pairs.append((parts[0], parts[1]))
    return list(dict.fromkeys(pairs))
