"""The pool of writings: public-domain passages, each with a format and a topic.

The original's assistant turns are GPT-4o's answers to "write a {format} about {topic}". Here
they are passages of the NLTK Gutenberg selection and Pride and Prejudice (spec section 6):

- each book is cut at paragraph (stanza, speech, verse) boundaries into passages of
  ``MIN_TOKENS`` to ``MAX_TOKENS`` o200k tokens, lengths drawn log-uniformly per passage (the
  original's answers run from 159 to 3.89k characters, about 40 to 800 tokens); prose is
  unwrapped to one line per paragraph, verse keeps its lines; headings and the Gutenberg
  title lines are dropped, and so are duplicates;
- the *format* comes from the genre: ``poem`` (Blake, Milton, Whitman), ``play scene``
  (Shakespeare), ``story`` (Austen, Chesterton, Melville, Carroll, Pride and Prejudice),
  ``scripture passage`` (the King James Bible, capped at ``BIBLE_CAP`` passages spread over
  the book so that it does not dominate); poems and stories under ``SHORT_TOKENS`` are a
  ``short poem`` / ``short story``, six formats in all;
- the *topic* is a noun of ``topics.py`` that occurs in the passage (twice or more when one
  does), the one given to the fewest passages so far, ties broken by a seeded generator:
  a request names something its passage is about, and topics spread over the pool.

Everything is a pure function of the corpus files (sha256-checked) and fixed seeds: the pool
is the same on every machine. It is built once per process (about a second).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import math
import random
import re
from typing import Callable, Iterable, Iterator

from . import topics as topic_list

MIN_TOKENS = 40
MAX_TOKENS = 800
SHORT_TOKENS = 150
BIBLE = "bible-kjv.txt"
BIBLE_CAP = 1500
PRIDE_AND_PREJUDICE = "gutenberg/pride-and-prejudice.txt"  # a data registry name
FAMILIES = {  # NLTK Gutenberg file id (or registry name) -> genre
    "blake-poems.txt": "poem", "milton-paradise.txt": "poem", "whitman-leaves.txt": "poem",
    "shakespeare-caesar.txt": "play", "shakespeare-hamlet.txt": "play",
    "shakespeare-macbeth.txt": "play", BIBLE: "scripture",
    "austen-emma.txt": "story", "austen-persuasion.txt": "story", "austen-sense.txt": "story",
    "chesterton-ball.txt": "story", "chesterton-brown.txt": "story",
    "chesterton-thursday.txt": "story", "melville-moby_dick.txt": "story",
    "carroll-alice.txt": "story", PRIDE_AND_PREJUDICE: "story",
}
VERSE = {"poem", "play"}  # keep their lines; prose is unwrapped
SEPARATOR = {"poem": "\n\n", "play": "\n\n", "story": "\n\n", "scripture": "\n"}
HEADING = re.compile(r"^(chapter|book|volume|act|actus|scene|scena|scoena|canto|part)\b",
                     re.IGNORECASE)
VERSE_NUMBER = re.compile(r"^\d+:\d+ ")
FOOTER = re.compile(r"^(\*\*\* ?)?end of (the )?project gutenberg", re.IGNORECASE | re.MULTILINE)
ASIDE = re.compile(r"\[(?:Illustration|_Copyright)[^\]]*\]\]?")  # Pride and Prejudice's plates


@dataclasses.dataclass(frozen=True)
class Passage:
    text: str
    format: str
    topic: str
    tokens: int  # o200k
    book: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.format, self.topic)

    @property
    def request(self) -> str:
        return request(self.format, self.topic)


def request(format: str, topic: str) -> str:
    """The user's request, lowercase, "a" even before a vowel (as in the sample seen)."""
    return f"write a {format} about {topic}"


def format_of(family: str, tokens: int) -> str:
    if family == "poem":
        return "short poem" if tokens < SHORT_TOKENS else "poem"
    if family == "story":
        return "short story" if tokens < SHORT_TOKENS else "story"
    return {"play": "play scene", "scripture": "scripture passage"}[family]


# -- cutting a book into passages ---------------------------------------------------------
def blocks(text: str, family: str) -> Iterator[list[str]]:
    """Paragraphs (stanzas, speeches, verses) as lists of whitespace-normalised lines;
    headings, bracketed title lines and poem titles are left out."""
    text = text.replace("\r\n", "\n")
    footer = FOOTER.search(text)  # one NLTK file keeps Project Gutenberg's licence
    text = ASIDE.sub("", text[:footer.start()] if footer else text)
    for raw in re.split(r"\n[ \t]*\n", text):
        lines = [" ".join(line.split()) for line in raw.split("\n")]
        lines = [line for line in lines if line and not line.startswith("}")]
        if not lines:
            continue
        joined = " ".join(lines)
        if not re.search(r"[a-z]", joined) or (joined.startswith("[") and joined.endswith("]")):
            continue
        if HEADING.match(joined) and len(joined) < 80:
            continue
        if family == "scripture" and not VERSE_NUMBER.match(joined):
            continue  # "The First Book of Moses: Called Genesis"
        yield _verse_paragraphs(raw, lines) if family in VERSE else [joined]


def _verse_paragraphs(raw: str, lines: list[str]) -> list[str]:
    """Milton's books are one block: mark where an indented line starts a verse paragraph
    (an empty string), so a long block splits there first."""
    marked: list[str] = []
    raw_lines = [line for line in raw.split("\n") if line.strip() and not
                 line.strip().startswith("}")]
    for index, (line, original) in enumerate(zip(lines, raw_lines)):
        if index and original[:2] == "  " and raw_lines[index - 1][:2] != "  ":
            marked.append("")
        marked.append(line)
    return marked


def units(block: list[str], family: str, count: Callable[[str], int]
          ) -> Iterator[tuple[str, int]]:
    """(text, tokens): the block as one unit, or, when longer than ``MAX_TOKENS``, pieces
    of it cut at verse paragraphs, then lines (verse) or sentences (prose)."""
    whole = "\n".join(line for line in block if line)
    tokens = count(whole)
    if tokens <= MAX_TOKENS:
        yield whole, tokens
        return
    if family in VERSE:
        paragraphs = "\n".join(block).split("\n\n")
        pieces = [line for paragraph in paragraphs for line in
                  ([paragraph] if count(paragraph) <= MAX_TOKENS else paragraph.split("\n"))]
        joiner = "\n"
    else:
        from benchmarks.texts.haystack import split_sentences

        pieces, joiner = split_sentences(whole), " "
    counted = ((piece, count(piece)) for piece in pieces)
    for text in _grouped(counted, joiner, lambda: MAX_TOKENS):
        yield text, count(text)


def _grouped(pieces: Iterable[tuple[str, int]], joiner: str,
             target: Callable[[], int]) -> Iterator[str]:
    """Consecutive (text, tokens) pieces joined while the group stays within ``MAX_TOKENS``
    (counting one token per joint) and short of its target length (a new one per group)."""
    group: list[str] = []
    size, goal = 0, target()
    for piece, tokens in pieces:
        if group and (size + tokens > MAX_TOKENS or size >= goal):
            yield joiner.join(group)
            group, size, goal = [], 0, target()
        group.append(piece)
        size += tokens + 1
    if group:
        yield joiner.join(group)


def book_passages(book: str, text: str, count: Callable[[str], int]) -> list[str]:
    """The book's passages in reading order (before formats and topics)."""
    family = FAMILIES[book]
    rng = random.Random(f"mrcr/passages/{book}")

    def target() -> int:
        return round(math.exp(rng.uniform(math.log(MIN_TOKENS), math.log(MAX_TOKENS))))

    pieces = (unit for block in blocks(text, family) for unit in units(block, family, count))
    found = list(_grouped(pieces, SEPARATOR[family], target))
    if book == BIBLE and len(found) > BIBLE_CAP:
        step = len(found) / BIBLE_CAP
        found = [found[int(i * step)] for i in range(BIBLE_CAP)]
    return found


# -- the pool ------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Pool:
    passages: tuple[Passage, ...]

    @functools.cached_property
    def by_key(self) -> dict[tuple[str, str], tuple[int, ...]]:
        return _index(self.passages, lambda p: p.key)

    @functools.cached_property
    def by_topic(self) -> dict[str, tuple[int, ...]]:
        return _index(self.passages, lambda p: p.topic)

    @functools.cached_property
    def by_format(self) -> dict[str, tuple[int, ...]]:
        return _index(self.passages, lambda p: p.format)

    @functools.cached_property
    def lengths(self) -> tuple[int, ...]:
        return tuple(p.tokens for p in self.passages)


def _index(passages, key) -> dict:
    found: dict = collections.defaultdict(list)
    for index, passage in enumerate(passages):
        found[key(passage)].append(index)
    return {k: tuple(v) for k, v in sorted(found.items())}


def assign(texts: list[tuple[str, str, int]], seed: str = "mrcr/topics") -> Pool:
    """Formats and topics for (book, passage text, o200k tokens); passages naming no topic are
    dropped. Topics go to the passages in a seeded order, each to the candidate topic with
    the fewest passages so far (among those occurring twice or more, when there are any)."""
    rng = random.Random(seed)
    order = list(range(len(texts)))
    rng.shuffle(order)
    given: collections.Counter = collections.Counter()
    chosen: dict[int, str] = {}
    for index in order:
        mentions = topic_list.mentions(texts[index][1])
        if not mentions:
            continue
        repeated = [t for t, n in mentions.items() if n >= 2]
        candidates = sorted(repeated or mentions)
        fewest = min(given[t] for t in candidates)
        topic = rng.choice([t for t in candidates if given[t] == fewest])
        given[topic] += 1
        chosen[index] = topic
    passages = []
    for index, (book, text, tokens) in enumerate(texts):
        if index in chosen:
            passages.append(Passage(text, format_of(FAMILIES[book], tokens), chosen[index],
                                    tokens, book))
    return Pool(tuple(passages))


def corpus() -> list[tuple[str, str]]:
    """(book, text) of every book, in a fixed order."""
    from benchmarks.texts.haystack import corpus_texts
    from fixtures.data.registry import data_file

    texts = [(fileid, text) for fileid, text in corpus_texts(include_bible=True)
             if fileid in FAMILIES]
    texts.append((PRIDE_AND_PREJUDICE, data_file(PRIDE_AND_PREJUDICE).read_text("utf-8")))
    return texts


@functools.lru_cache(maxsize=1)
def pool() -> Pool:
    """The pool, built once per process (o200k counts: the bins are defined in o200k)."""
    from fixtures.tokens.tokenizer import o200k

    count = o200k().count
    seen: set[str] = set()
    texts = []
    for book, text in corpus():
        for passage in book_passages(book, text, count):
            tokens = count(passage)
            if passage not in seen and MIN_TOKENS <= tokens <= MAX_TOKENS:
                seen.add(passage)
                texts.append((book, passage, tokens))
    return assign(texts)
