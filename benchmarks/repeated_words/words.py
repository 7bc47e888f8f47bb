"""How a text is read as words: one rule for the model's output, the gold and the pair's words.

A text is split on whitespace into tokens; a token is read without the punctuation around it
(``apples.`` and ``"apples`` are ``apples``; ``U.S.`` is ``U.S``), and a token of punctuation
alone is read as itself (``-``, as ``str.split()`` counts it). The words of a multi-word name
of the pair (``San Francisco``) are joined into one unit wherever they follow each other in
any case (``san francisco`` is one unit, and not the name: case is kept). Names are matched
left to right, a longer one first.

The reading is linear with a small constant, in C but for one step per *distinct* token: the
text is split with ``str.split``, each distinct token is read once, units are counted and
found with the list's (or string's) own ``count`` and ``index``/``find``, and multi-word names
are joined by substitutions over a string of one character a token. A 10,000-word copy reads
in about half a millisecond.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re

WORD = re.compile(r"\w(?:.*\w)?")  # a token (no whitespace) without the punctuation around it
SEPARATORS = re.compile(r"\s+")
FIRST_CODE = 0x100  # the character standing for the first distinct word of a text
FEW = 8  # offsets asked for one at a time; more are read from every token's start


def read_token(token: str) -> tuple[str, int]:
    """The token as a word, and where that word starts in it."""
    word = WORD.search(token)
    return (word.group(), word.start()) if word else (token, 0)


@dataclasses.dataclass(frozen=True)
class Pair:
    """The pair's words as units (read by the rule above), from the words as given.

    ``names``: the casefolded words of each multi-word name among them, longer names first.
    ``disjoint``: no two places where names stand can overlap, in any text (no name ends with
    the start of another or of itself, or holds another): then each name can be found on its
    own, in any order, and the gold reads as its n words.
    """

    given: tuple[str, str]
    common: str
    modified: str
    names: tuple[tuple[str, ...], ...]
    disjoint: bool

    def gold(self, n: int, position: int) -> tuple[int, int] | None:
        """The gold's units and the offset of its modified word, without reading it: the gold
        is the given words joined by spaces, so when the names cannot overlap it reads as n
        units (None when they can: read it)."""
        if not self.disjoint:
            return None
        common, modified = self.given
        return n, position * (len(common) + 1) + read_token(modified.split()[0])[1]


@functools.lru_cache(maxsize=64)
def read_pair(common: str, modified: str) -> Pair:
    """Raises ValueError, with the fix, when the two words read as the same unit."""
    units, names = [], set()
    for phrase in (common, modified):
        words = [read_token(token)[0] for token in phrase.split()]
        units.append(" ".join(words))
        if len(words) > 1:
            names.add(tuple(word.casefold() for word in words))
    if units[0] == units[1]:
        raise ValueError(f"--word-pair {common}/{modified}: both words read as {units[0]!r} "
                         "once the punctuation around them is set aside; choose words that "
                         "differ in letters, digits or case")
    names = sorted(names, key=len, reverse=True)
    disjoint = not any(_can_overlap(a, b) for a in names for b in names)
    pair = Pair((common, modified), units[0], units[1], tuple(names), disjoint)
    if not disjoint:  # names that can overlap: short golds must read back word for word
        for n in range(1, 3 * len(names[0]) + 1):
            for position in range(n):
                gold = " ".join([modified if i == position else common for i in range(n)])
                units = Units(gold, pair)
                if len(units) != n or units.indices(pair.modified) != [position]:
                    raise ValueError(
                        f"--word-pair {common}/{modified}: {gold!r} does not read back as "
                        f"{n} words with {modified!r} at word {position + 1} (the words run "
                        "into each other); choose words where neither is made of the other")
    return pair


def _can_overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether a place of name ``a`` and another place of name ``b`` can share a word: ``a``
    ends with the start of ``b`` (a proper part of it when they are one name), or holds it."""
    if a != b and any(a[i:i + len(b)] == b for i in range(len(a) - len(b) + 1)):
        return True
    longest = min(len(a), len(b)) - (a == b)
    return any(a[-k:] == b[:k] for k in range(1, longest + 1))


class Units:
    """A text read as units: how many, and where the pair's words stand among them.

    Without names to join, the units are a list, one a token (the tokens themselves when none
    has punctuation around it). With names, they are a string of one character a unit: one
    for each distinct word of the text, and one for each name joined from several words.
    """

    def __init__(self, text: str, pair: Pair):
        self.text = text
        self._tokens = tokens = text.split()
        readings = {token: read_token(token) for token in set(tokens)}
        self._word_start = {token: start for token, (_, start) in readings.items()}
        self._extra: dict[str, int] = {}  # a joined name's character -> its words beyond one
        self._code: dict[str, str] | None = None  # unit -> its character, with names
        if pair.names:
            self._units = self._join_names(readings, pair)
        elif all(token == word for token, (word, _) in readings.items()):
            self._units = tokens
        else:
            self._units = list(map({t: word for t, (word, _) in readings.items()}.__getitem__,
                                   tokens))

    def _join_names(self, readings: dict[str, tuple[str, int]], pair: Pair) -> str:
        words = sorted({word for word, _ in readings.values()})
        code = self._code = {word: chr(FIRST_CODE + i) for i, word in enumerate(words)}
        token_code = {token: code[word] for token, (word, _) in readings.items()}
        codes = "".join(map(token_code.__getitem__, self._tokens))
        rows = {}  # the pair's names as spelled, as rows of word characters
        for unit in (pair.common, pair.modified):
            parts = unit.split(" ")
            if len(parts) > 1 and all(part in code for part in parts):
                rows[unit] = "".join(code[part] for part in parts)
        patterns = []  # each name in any spelling: a character class a word
        for name in pair.names:
            classes = ["".join(re.escape(code[w]) for w in words if w.casefold() == part)
                       for part in name]
            if all(classes):
                patterns.append(("".join(f"[{c}]" for c in classes), len(name)))
        if pair.disjoint:  # each name on its own, in C; the exact spellings first
            for unit, row in rows.items():
                code[unit] = char = self._name_code(len(row))
                codes = codes.replace(row, char)
            for pattern, size in patterns:
                codes = re.sub(pattern, self._name_code(size), codes)
            return codes
        # Names that can overlap: one pass, trying them in order at each place.
        found = re.findall("|".join([p for p, _ in patterns] + ["."]), codes, flags=re.DOTALL)
        joined = {unit: self._name_code(len(unit)) for unit in sorted(set(found))
                  if len(unit) > 1}
        code.update((unit, joined[row]) for unit, row in rows.items() if row in joined)
        return "".join(joined.get(unit, unit) for unit in found)

    def _name_code(self, words: int) -> str:
        char = chr(FIRST_CODE + len(self._code) + len(self._extra))
        self._extra[char] = words - 1
        return char

    def __len__(self) -> int:
        return len(self._units)

    def _key(self, unit: str) -> str | None:
        return unit if self._code is None else self._code.get(unit)

    def count(self, unit: str) -> int:
        key = self._key(unit)
        return self._units.count(key) if key else 0

    def indices(self, unit: str) -> list[int]:
        """Where ``unit`` stands among the units."""
        key, units, found, index = self._key(unit), self._units, [], -1
        try:
            while key:
                index = units.index(key, index + 1)
                found.append(index)
        except ValueError:
            pass
        return found

    def offsets(self, indices: list[int]) -> list[int]:
        """The character offset in the text of each unit's first word."""
        if self._extra:  # a unit's first token: the units before it, and their extra words
            indices = [i + sum(self._units.count(char, 0, i) * extra
                               for char, extra in self._extra.items()) for i in indices]
        tokens, text = self._tokens, self.text
        lead = len(text) - len(text.lstrip())
        if len(indices) <= FEW and len(" ".join(tokens)) == len(text.strip()):
            # one character between tokens: a token starts after the tokens before it
            starts = [lead + len(" ".join(tokens[:t])) + (t > 0) for t in indices]
        else:  # every token's start, once: its length and the separator after it, summed
            steps = map(int.__add__, map(len, tokens), map(len, SEPARATORS.findall(text, lead)))
            every = list(itertools.accumulate(steps, initial=lead))
            starts = [every[t] for t in indices]
        return [start + self._word_start[tokens[t]] for start, t in zip(starts, indices)]
