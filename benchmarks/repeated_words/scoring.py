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

import re

import Levenshtein

from .grid import RepeatedWordsSample
from .stimulus import gold_text

REFUSAL_MIN_COMMON = 15  # fewer copies of the common word than this (with other words) = refusal


def normalized_levenshtein(gold: str, output: str) -> float:
    """1 - distance / longer length, in characters; 1.0 for identical strings."""
    if gold == output:
        return 1.0
    if not gold or not output:
        return 0.0
    return 1.0 - Levenshtein.distance(gold, output) / max(len(gold), len(output))


QUOTES = "\"'`\u201c\u201d\u2018\u2019"  # quotes a model may put around its copy
CORE = re.compile(r"\w(?:.*\w)?")  # a token without the punctuation around it


def copy_text(output: str) -> str:
    """What the word-level scores read: the output without surrounding whitespace and quotes."""
    return output.strip().strip(QUOTES).strip()


def units(text: str, phrases: tuple[str, ...]) -> list[tuple[str, int]]:
    """Split on whitespace into words, joining the words of each known phrase into one unit.

    A word is read without its surrounding punctuation; a token that is only punctuation
    stays a unit of its own (as the original's ``split()`` counts it). Phrases are matched
    case-insensitively (longer ones first) and keep the output's spelling, so a miscased
    name is one unit that is not the name. Returns (unit, character offset) pairs.
    """
    tokens = []
    for match in re.finditer(r"\S+", text):
        core = CORE.search(match.group())
        tokens.append((core.group(), match.start() + core.start()) if core
                      else (match.group(), match.start()))
    patterns = sorted({tuple(p.casefold().split()) for p in phrases}, key=len, reverse=True)
    found, i = [], 0
    while i < len(tokens):
        for pattern in patterns:
            window = tokens[i:i + len(pattern)]
            if len(pattern) > 1 and tuple(t.casefold() for t, _ in window) == pattern:
                found.append((" ".join(t for t, _ in window), window[0][1]))
                i += len(pattern)
                break
        else:
            found.append(tokens[i])
            i += 1
    return found


def score(sample: RepeatedWordsSample, output: str) -> dict:
    gold = gold_text(sample)
    phrases = (sample.common, sample.modified)
    gold_units = units(gold, phrases)
    copy_units = units(copy_text(output), phrases)
    gold_offset = gold_units[sample.position][1]
    modified_at = [(index, offset) for index, (unit, offset) in enumerate(copy_units)
                   if unit == sample.modified]
    present = bool(modified_at)
    return {
        "levenshtein": normalized_levenshtein(gold, output.strip()),
        "modified_present": present,
        # character offset of the modified word equals the gold's (only defined when present)
        "position_correct": any(o == gold_offset for _, o in modified_at) if present else None,
        # word index equals the gold's (only defined when present)
        "word_position_correct": (any(i == sample.position for i, _ in modified_at)
                                  if present else None),
        "extra_modified": len(modified_at) > 1,
        # > 0: words omitted; < 0: words added
        "word_count_delta": len(gold_units) - len(copy_units),
        "common_count": sum(1 for unit, _ in copy_units if unit == sample.common),
        "other_words": sum(1 for unit, _ in copy_units if unit not in phrases),
    }


def refusal_reason(sample: RepeatedWordsSample, output: str | None) -> str | None:
    """The spec's two heuristics: words other than the pair, and fewer than 15 common words.

    Both must hold (an empty output is a refusal by itself). Returns why, or None. Words are
    read as the scores read them: the common word counts with punctuation around it
    ("apple," counts), as in the original, so a sloppy copy is an attempt, not a refusal.
    Unlike the original, "apples" does not count as "apple".
    """
    if output is None or not output.strip():
        return "empty output"
    scores = score(sample, output)
    other_words, copies = scores["other_words"], scores["common_count"]
    if other_words and copies < REFUSAL_MIN_COMMON:
        return f"{other_words} other words and only {copies} copies of {sample.common!r}"
    return None
