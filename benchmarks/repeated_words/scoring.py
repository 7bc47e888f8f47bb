"""Scores of one copy: pure functions of (sample, output).

Differences from the original (chroma-core/context-rot), each a defect it has:
- Text is read as *units*: a multi-word name ("San Francisco") is one word, as the grid
  counts it. The original splits on spaces, so a perfect "San Francisco" copy "contains other
  words" and its position accuracy comes out empty.
- Presence and position look for the modified word as a whole unit. The original's substring
  tests break when one word is a prefix of the other (apples/apple: " apple" is found inside
  " apples"; ``str.index("apple")`` finds the first "apples").
- Position is correct when *a* copy of the modified word sits at the right place; a spurious
  earlier copy no longer hides a correct one (it is reported separately as ``extra_modified``).
- Leading and trailing whitespace of the output, and quotes around the whole copy, are
  ignored by the word-level scores: they are not part of copying. Levenshtein still counts the
  quotes (it measures the exact copy).
- A word is read without the punctuation around it ("apples." and '"apples' are "apples"),
  as the refusal rule already read "apple,": presence, position, counts and the refusal rule
  share this one reading of a word. Case is kept ("golden" is not "Golden").
- A multi-word name is one word whatever its case ("san francisco" is one word, so the word
  count is right), but only the exact name is the modified word.
"""

from __future__ import annotations

import Levenshtein

from .grid import RepeatedWordsSample
from .stimulus import gold_text
from .words import Units, read_pair

REFUSAL_MIN_COMMON = 15  # fewer copies of the common word than this (with other words) = refusal


def normalized_levenshtein(gold: str, output: str) -> float:
    """1 - distance / longer length, in characters; 1.0 for identical strings."""
    if gold == output:
        return 1.0
    if not gold or not output:
        return 0.0
    # The distance is at least the difference in length; told so, the library tries a narrow
    # band first (widening it until the distance is certain): the same distance, and a
    # near-copy of 10,000 words costs under a millisecond instead of 25.
    distance = Levenshtein.distance(gold, output, score_hint=abs(len(gold) - len(output)))
    return 1.0 - distance / max(len(gold), len(output))


QUOTES = "\"'`\u201c\u201d\u2018\u2019"  # quotes a model may put around its copy


def copy_text(output: str) -> str:
    """What the word-level scores read: the output without surrounding whitespace and quotes."""
    return output.strip().strip(QUOTES).strip()


def score(sample: RepeatedWordsSample, output: str) -> dict:
    pair = read_pair(sample.common, sample.modified)
    gold = gold_text(sample)
    gold_units, gold_offset = pair.gold(sample.n, sample.position) or _read_gold(gold, pair,
                                                                                 sample.position)
    copy = Units(copy_text(output), pair)
    modified_at = copy.indices(pair.modified)
    present = bool(modified_at)
    common_count = copy.count(pair.common)
    return {
        "levenshtein": normalized_levenshtein(gold, output.strip()),
        "modified_present": present,
        # character offset of the modified word equals the gold's (only defined when present)
        "position_correct": gold_offset in copy.offsets(modified_at) if present else None,
        # word index equals the gold's (only defined when present)
        "word_position_correct": sample.position in modified_at if present else None,
        "extra_modified": len(modified_at) > 1,
        # > 0: words omitted; < 0: words added
        "word_count_delta": gold_units - len(copy),
        "common_count": common_count,
        "other_words": len(copy) - common_count - len(modified_at),
    }


def _read_gold(gold: str, pair, position: int) -> tuple[int, int]:
    units = Units(gold, pair)
    return len(units), units.offsets([position])[0]


def refusal_reason(sample: RepeatedWordsSample, output: str | None,
                   scores: dict | None = None) -> str | None:
    """The spec's two heuristics: words other than the pair, and fewer than 15 common words.

    Both must hold (an empty output is a refusal by itself). Returns why, or None. Words are
    read as the scores read them: the common word counts with punctuation around it
    ("apple," counts), as in the original, so a sloppy copy is an attempt, not a refusal.
    Unlike the original, "apples" does not count as "apple". ``scores``: this output's
    ``score``, when already computed.
    """
    if output is None or not output.strip():
        return "empty output"
    if scores is None:
        scores = score(sample, output)
    other_words, copies = scores["other_words"], scores["common_count"]
    if other_words and copies < REFUSAL_MIN_COMMON:
        return f"{other_words} other words and only {copies} copies of {sample.common!r}"
    return None
