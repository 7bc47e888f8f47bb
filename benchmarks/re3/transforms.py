"""The prompt transformer: B is A re-tokenized by one strategy, with its meaning kept.

Every strategy keeps the answer recoverable (the unit tests check these as properties):
- ``camelcase`` (B1) joins some pairs of neighbouring words into one camelCase word. It keeps
  every character of every word, in order; only the first letter of a joined word may become
  upper case. Unlike the spec's sketch it never joins across a line break (a multiple-choice
  option or a paragraph stays on its line), keeps the rest of the joined word's case
  ("NASA" stays "NASA", where ``str.capitalize`` would give "Nasa"), and draws its coin flips
  from a generator seeded by the item, so B is the same in every run and every pattern.
- ``digitspace`` (B2) puts a space between neighbouring ASCII digits: "381" -> "3 8 1". The
  spec's ``re.sub(r'(\\d)(\\d)', ...)`` gives "3 81" (matches cannot overlap); a look-ahead
  spaces every pair. No digit is removed or reordered.
- ``lowercase`` / ``uppercase`` (B3, the two capitalisation shifts) change case only.
"""

from __future__ import annotations

import random
import re

CAMELCASE, DIGITSPACE, LOWERCASE, UPPERCASE = "camelcase", "digitspace", "lowercase", "uppercase"
NONE = "none"  # the strategy of a pattern without B (A, AA, AAA): nothing is transformed
STRATEGY_LABELS = {  # strategy -> the spec's name for it
    CAMELCASE: "B1 camelCase injection",
    DIGITSPACE: "B2 digit spacing",
    LOWERCASE: "B3 capitalisation shift (lower)",
    UPPERCASE: "B3 capitalisation shift (upper)",
}
STRATEGIES = tuple(STRATEGY_LABELS)
JOIN_PROBABILITY = 0.5  # the spec's coin: each word joins its right neighbour half the time

_PIECES = re.compile(r"(\s+)")  # words and the whitespace between them, both kept
_DIGIT_PAIR = re.compile(r"([0-9])(?=[0-9])")


def camelcase(text: str, seed: str) -> str:
    pieces = _PIECES.split(text)  # even indices: words (maybe ""), odd: whitespace runs
    rng = random.Random(f"re3-camelcase:{seed}")
    out, i = [], 0
    while i < len(pieces):
        word = pieces[i]
        can_join = (i + 2 < len(pieces) and word and pieces[i + 2]
                    and "\n" not in pieces[i + 1] and "\r" not in pieces[i + 1])
        if can_join and rng.random() < JOIN_PROBABILITY:
            out.append(word + _upper_first(pieces[i + 2]))
            i += 3  # the joined pair and the space between them
        else:
            out.append(word)
            i += 1
        if i < len(pieces) and i % 2 == 1:
            out.append(pieces[i])  # whitespace after a word is kept as it was
            i += 1
    return "".join(out)


def _upper_first(word: str) -> str:
    first = word[0].upper()
    # A few letters upper-case to two characters ("ß" -> "SS"); leave those alone.
    return (first if len(first) == 1 else word[0]) + word[1:]


def digitspace(text: str) -> str:
    return _DIGIT_PAIR.sub(r"\1 ", text)


def transform(strategy: str, text: str, seed: str) -> str:
    """B for prompt A; ``seed`` (the item id) fixes B1's choices."""
    if strategy == CAMELCASE:
        return camelcase(text, seed)
    if strategy == DIGITSPACE:
        return digitspace(text)
    if strategy == LOWERCASE:
        return text.lower()
    if strategy == UPPERCASE:
        return text.upper()
    if strategy == NONE:
        return ""
    raise ValueError(f"unknown B strategy {strategy!r}; expected one of {STRATEGIES}")
