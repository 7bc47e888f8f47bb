"""Haystacks: NoLiMa's shuffled books (the user's download), or contextrot's own.

NoLiMa's are ``haystack/rand_shuffle/*.txt`` in its folder. NoLiMa takes them in the order
``os.listdir`` gives, which differs between filesystems, and a haystack's position in that
order is added to its seed; here they are taken in sorted name order (``rand_book_1`` ...
``rand_book_5``), so the same files give the same tests on any machine. A file is read as
NoLiMa's ``open(path).read()`` reads it: UTF-8 text with universal newlines.

contextrot's own (``contextrot_book_1`` ... ``_5``) are built like NoLiMa's
(``random_book_gen_char.ipynb``): from a seeded random book of a public-domain selection
(NLTK's Gutenberg novels), a run of consecutive paragraphs from a random start until it holds
1,000 characters, again until the haystack holds ``OWN_CHARS`` characters; one paragraph a
line. Paragraphs that are headings, or that name one of contextrot's characters or any
answer of its needles (a conflicting fact), are left out. Nothing is written to disk.
"""

from __future__ import annotations

import bisect
import functools
import random
import re
from pathlib import Path

HAYSTACK_DIR = Path("haystack") / "rand_shuffle"
OWN_HAYSTACKS = tuple(f"contextrot_book_{n}" for n in range(1, 6))
OWN_BOOKS = ("austen-emma.txt", "austen-persuasion.txt", "austen-sense.txt",
             "carroll-alice.txt", "chesterton-ball.txt", "chesterton-brown.txt",
             "chesterton-thursday.txt", "melville-moby_dick.txt")
OWN_SEED = 42  # haystack n is drawn with random.Random(OWN_SEED + n)
OWN_CHARS = 170_000  # about 38k o200k tokens: NoLiMa's longest length, 32K, fits anywhere
SNIPPET_CHARS = 1_000  # NoLiMa's MIN_LEN_CHAR
MIN_PARAGRAPH_CHARS = 40  # shorter: a heading, a line of verse, a chapter number
ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
CORPUS = "nltk_data/corpora/gutenberg.zip"


def nolima_names(folder: Path) -> tuple[str, ...]:
    """The haystacks' file names in NoLiMa's folder, sorted (a listing: nothing is read)."""
    return tuple(sorted(p.name for p in (folder / HAYSTACK_DIR).glob("*.txt") if p.is_file()))


def read_text(path: Path) -> str:
    with open(path, encoding="utf-8") as handle:  # universal newlines, as NoLiMa reads it
        text = handle.read()
    if not text.strip():
        raise ValueError("the haystack is empty")
    return text


@functools.lru_cache(maxsize=8)
def own_text(name: str, forbidden: tuple[str, ...]) -> str:
    """contextrot's own haystack ``name``; ``forbidden``: names and answers no paragraph may
    hold (the characters and answers of contextrot's needle sets)."""
    number = OWN_HAYSTACKS.index(name) + 1
    books = _own_paragraphs(forbidden)
    rng = random.Random(OWN_SEED + number)
    lines: list[str] = []
    total = 0
    while total < OWN_CHARS:
        paragraphs = books[rng.choice(sorted(books))]
        at = rng.randrange(len(paragraphs))
        snippet = 0
        while snippet < SNIPPET_CHARS and at < len(paragraphs):
            lines.append(paragraphs[at])
            snippet += len(paragraphs[at]) + 1
            at += 1
        total += snippet
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=1)
def _own_paragraphs(forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """Each book's usable paragraphs, whitespace collapsed. The books are read from NLTK's
    Gutenberg zip (sha256-checked) as NLTK reads them (Latin-1), without importing NLTK; a
    conflicting paragraph is found by plain substring search (a regex alternation over four
    megabytes is seconds)."""
    import zipfile

    from fixtures.data.registry import data_file

    terms = [ARTICLE.sub("", term).lower() for term in forbidden]
    found = {}
    with zipfile.ZipFile(data_file(CORPUS)) as archive:
        for fileid in OWN_BOOKS:
            text = archive.read(f"gutenberg/{fileid}").decode("latin-1")
            text = text.replace("\r\n", "\n").strip()
            breaks = [0, *(m.end() for m in PARAGRAPH_BREAK.finditer(text))]
            conflicts = _conflicting(text.lower(), terms, breaks)
            paragraphs = (" ".join(text[start:end].split()) for number, (start, end) in
                          enumerate(zip(breaks, [*breaks[1:], len(text)]))
                          if number not in conflicts)
            found[fileid] = [p for p in paragraphs if len(p) >= MIN_PARAGRAPH_CHARS
                             and not p.upper().startswith("CHAPTER") and p.upper() != p]
    return found


def _conflicting(lower: str, terms: list[str], breaks: list[int]) -> set[int]:
    """The numbers of the paragraphs (starting at ``breaks``) holding a term as whole words."""
    found = set()
    for term in terms:
        at = lower.find(term)
        while at != -1:
            end = at + len(term)
            if (at == 0 or not lower[at - 1].isalnum()) and \
                    (end == len(lower) or not lower[end].isalnum()):
                found.add(bisect.bisect_right(breaks, at) - 1)
            at = lower.find(term, at + 1)
    return found
