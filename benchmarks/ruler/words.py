"""Word lists: wonderwords' (pinned, as RULER reads them) and WordNet's for CWE's longest lists.

RULER reads the word lists shipped inside the ``wonderwords`` package (unpinned there; we pin
2.2.0, the version of RULER's 2024 results: 912 adjectives, 6,786 nouns, 1,042 verbs). Past
the 8,169-word vocabulary (CWE at about 128k tokens and beyond) RULER switches to an
undocumented ``english_words.json``; we use WordNet's lemma names instead (77,503 words,
from the data registry).
"""

from __future__ import annotations

import functools
import importlib.util
import random
from pathlib import Path

FIXED_SEED = 42  # RULER's fixed-seed shuffles (random.Random(42)), identical in every sample


@functools.lru_cache(maxsize=None)
def wonderwords_list(name: str) -> tuple[str, ...]:
    """One of wonderwords' lists (``nounlist.txt``, ...), one word a line, as RULER reads it.

    Read from the installed package's folder without importing it: wonderwords 2.2.0's
    import loads every list through a deprecated importlib API (a warning in each run)."""
    spec = importlib.util.find_spec("wonderwords")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("wonderwords is not installed: pip install wonderwords==2.2.0")
    folder = Path(list(spec.submodule_search_locations)[0])
    text = (folder / "assets" / name).read_text(encoding="utf-8")
    return tuple(line.rstrip() for line in text.splitlines(keepends=True))


def random_key_word(rng: random.Random) -> str:
    """A NIAH word key: uniform over the distinct ``adjective-noun`` pairs, as RULER's
    ``random.choice`` over their sorted set (6.2M strings, about 400 MB), without the set.

    A pair is drawn from the product and kept with probability 1 / (the number of ways it
    is spelled: "blue-eyed-..." can be "blue" + "eyed-..." when both are words), which is
    uniform over distinct strings.
    """
    adjectives, nouns = _word_set("adjectivelist.txt"), _word_set("nounlist.txt")
    while True:
        pair = f"{rng.choice(adjectives[0])}-{rng.choice(nouns[0])}"
        ways = sum(1 for at, character in enumerate(pair) if character == "-"
                   and pair[:at] in adjectives[1] and pair[at + 1:] in nouns[1])
        if ways == 1 or rng.random() < 1 / ways:
            return pair


@functools.lru_cache(maxsize=None)
def _word_set(name: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """A list's distinct words, sorted (to draw from) and as a set (to look up)."""
    words = frozenset(wonderwords_list(name))
    return tuple(sorted(words)), words


@functools.lru_cache(maxsize=1)
def cwe_vocabulary() -> tuple[str, ...]:
    """CWE's words: nouns, adjectives and verbs, de-duplicated, sorted, then shuffled by
    ``Random(42)`` as RULER does (8,169 words with wonderwords 2.2.0)."""
    words = sorted(set(wonderwords_list("nounlist.txt") + wonderwords_list("adjectivelist.txt")
                       + wonderwords_list("verblist.txt")))
    random.Random(FIXED_SEED).shuffle(words)
    return tuple(words)


def cwe_long_vocabulary() -> tuple[str, ...]:
    """The words for lists longer than ``cwe_vocabulary``: WordNet's lemma names."""
    from benchmarks.texts.wordnet import wordnet_vocabulary

    return wordnet_vocabulary()
