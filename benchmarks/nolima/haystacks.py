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
    from benchmarks.texts.haystack import corpus_texts

    conflict = re.compile(r"\b(?:" + "|".join(re.escape(ARTICLE.sub("", f)) for f in forbidden)
                          + r")\b", re.IGNORECASE) if forbidden else None
    found = {}
    for fileid, text in corpus_texts():
        if fileid not in OWN_BOOKS:
            continue
        paragraphs = [" ".join(part.split()) for part in re.split(r"\n\s*\n", text)]
        found[fileid] = [p for p in paragraphs if len(p) >= MIN_PARAGRAPH_CHARS
                         and not p.upper().startswith("CHAPTER") and p.upper() != p
                         and not (conflict and conflict.search(p))]
    return found
