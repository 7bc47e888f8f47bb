"""Haystacks from NLTK's Gutenberg selection: sequential or shuffled, with clean insertion.

Public API (also used by other experiments):

- ``split_sentences(text)``: sentences, with paragraph ends as boundaries and "Mr.", "3.5",
  initials and closing quotes handled (NLTK's Punkt with a title list, see below);
- ``sequential_haystack(tokenizer, budget_tokens, start_offset=0)``: the corpus in document
  order, from a paragraph start, cut at exactly ``budget_tokens`` tokens;
- ``shuffled_haystack(tokenizer, budget_tokens, seed)``: whole sentences in a seeded order;
- ``place(haystack, depth_percent, tokenizer)``: where a needle at that depth goes, the
  spec's rule: ``floor(tokens x depth / 100)`` o200k tokens in, then back to the sentence
  boundary at or before that point; 0 is the start, 100 the end. Returns the character offset
  and the realised depth in tokens;
- ``insert_at_depth(haystack, needle, depth_percent, tokenizer=None)``: the needle placed so,
  with whitespace on both sides (without a tokenizer the depth is read in characters).

Each corpus is read and tokenized once per process (``functools.lru_cache``); a haystack is a
slice of that token array (sequential) or a selection of pre-counted sentences (shuffled), so
a 900k-token haystack costs one decode, not a re-tokenization of the corpus.

Unlike the original (chroma-core/context-rot), boundaries are real sentence ends (a period,
question or exclamation mark, also when a closing quote or a newline follows; "Mr." and "3.5"
are not ends), the needle never touches the previous sentence, and the shuffle is seeded.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import math
import random
import re
from typing import Sequence

import numpy as np

from fixtures.data import data_file, import_nltk, use_nltk_data

BIBLE = "bible-kjv.txt"
# Titles and abbreviations that end in a period inside a sentence. Punkt learns these when
# trained; we give them instead (training on the corpus takes minutes). Single-letter initials
# ("J. Smith") are handled by Punkt itself.
ABBREVIATIONS = frozenset("""
mr mrs ms messrs mme mlle dr st rev revd capt col gen lieut lt sgt maj gov hon esq jr sr prof
fr mt ft vol vols chap ch no nos pp viz cf vs ibid
""".split())
PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
SENTENCE_END = re.compile(r"[.?!][\"'\u201d\u2019)\]]*$")  # a real end: . ? ! then closers
WHITESPACE = re.compile(r"\s+")
# How far before the nominal insertion point to look for a boundary first (characters).
BOUNDARY_WINDOW = 2_000


# -- sentences ---------------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _punkt():
    import_nltk()
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    parameters = PunktParameters()
    parameters.abbrev_types = set(ABBREVIATIONS)
    return PunktSentenceTokenizer(parameters)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of ``text``, in order.

    Paragraphs (split at blank lines) never share a sentence. Within a paragraph Punkt
    splits; a piece that starts in lower case is glued back to the previous one, because
    a lower-case start after "?" or "!" is the same sentence ('"Is it?" she asked.').
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in [*PARAGRAPH_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        paragraph = text[start:end]
        merged: list[list[int]] = []
        for s, e in _punkt().span_tokenize(paragraph):
            if merged and paragraph[s:s + 1].islower():
                merged[-1][1] = e
            else:
                merged.append([s, e])
        spans.extend((start + s, start + e) for s, e in merged)
        if match:
            start = match.end()
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, each on one line (hard line wraps become single spaces)."""
    sentences = (WHITESPACE.sub(" ", text[s:e]).strip() for s, e in sentence_spans(text))
    return [sentence for sentence in sentences if sentence]


def is_sentence_end(sentence: str) -> bool:
    """Whether a sentence ends in . ? or ! (possibly followed by closing quotes/brackets)."""
    return bool(SENTENCE_END.search(sentence.rstrip()))


def boundary_before(text: str, index: int) -> int:
    """The last real sentence boundary at or before ``index`` (0 when there is none).

    A boundary is the offset just after a sentence that ends in . ? or ! (closing quotes
    included) and is followed by whitespace. Only a window before ``index`` is split into
    sentences, widened until a boundary is found, so this is cheap on a 900k-token text.
    """
    index = max(0, min(index, len(text)))
    if index == len(text) and is_sentence_end(text):
        return index
    window = BOUNDARY_WINDOW
    while True:
        low = max(0, index - window)
        # Punkt decides a break from the word after it: give it some text past ``index``.
        high = min(len(text), index + 200)
        piece = text[low:high]
        found = [low + e for s, e in sentence_spans(piece)
                 if low + e <= index and (low + e < len(text) and text[low + e].isspace())
                 and is_sentence_end(piece[s:e])]
        if found:
            return found[-1]
        if low == 0:
            return 0
        window *= 4


def insert_at(text: str, insertion: str, offset: int) -> str:
    """``insertion`` at ``offset``, separated from its neighbours by whitespace."""
    left, right = text[:offset], text[offset:]
    if left and not left[-1].isspace():
        left += " "
    if right and not right[0].isspace():
        right = " " + right
    return left + insertion + right


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where a needle goes in a haystack, and how deep that is in o200k tokens."""
    offset: int  # character offset in the haystack: a sentence boundary, 0 or its end
    tokens_before: int  # tokens of the haystack before the offset
    tokens: int  # tokens of the whole haystack

    @property
    def depth(self) -> float:
        """The realised depth: percent of the haystack's tokens before the needle."""
        return 100 * self.tokens_before / self.tokens if self.tokens else 0.0


def place(haystack: str, depth_percent: float, tokenizer) -> Placement:
    """The spec's insertion point: ``floor(tokens x depth / 100)`` tokens into the haystack,
    moved back to the last sentence boundary at or before it (the start when there is none).
    Depth 0 is the start and 100 the end."""
    _check_depth(depth_percent)
    tokens = tokenizer.encode_array(haystack)
    if depth_percent == 0:
        return Placement(0, 0, len(tokens))
    if depth_percent == 100:
        return Placement(len(haystack), len(tokens), len(tokens))
    nominal = math.floor(len(tokens) * depth_percent / 100)
    # A prefix can end inside a multi-byte character: its replacement character is not text.
    offset = boundary_before(haystack, len(tokenizer.decode(tokens[:nominal]).rstrip("\ufffd")))
    return Placement(offset, tokenizer.count(haystack[:offset]), len(tokens))


def insert_at_depth(haystack: str, needle: str, depth_percent: float, tokenizer=None) -> str:
    """The needle at ``depth_percent`` of the haystack, moved back to a sentence boundary.

    With a tokenizer the depth is read in its tokens (``place``, the NIAH spec's rule);
    without one, in characters. 0 prepends and 100 appends, with whitespace on both sides.
    """
    if tokenizer is not None:
        return insert_at(haystack, needle, place(haystack, depth_percent, tokenizer).offset)
    _check_depth(depth_percent)
    if depth_percent in (0, 100):
        return insert_at(haystack, needle, len(haystack) if depth_percent else 0)
    nominal = int(len(haystack) * depth_percent / 100)
    return insert_at(haystack, needle, boundary_before(haystack, nominal))


def _check_depth(depth_percent: float) -> None:
    if not 0 <= depth_percent <= 100:
        raise ValueError(f"depth_percent must be in [0, 100], not {depth_percent}")


def insert_at_offsets(haystack: str, insertions: Sequence[tuple[int, str]]) -> str:
    """Several insertions at haystack offsets (each a boundary), applied from the end."""
    for offset, text in sorted(insertions, key=lambda item: item[0], reverse=True):
        haystack = insert_at(haystack, text, offset)
    return haystack


# -- the corpus --------------------------------------------------------------------------
@functools.lru_cache(maxsize=2)
def corpus_texts(include_bible: bool = False) -> tuple[tuple[str, str], ...]:
    """(file id, text) of NLTK's Gutenberg selection in file-id order (NLTK reads Latin-1)."""
    data_file("nltk_data/corpora/gutenberg.zip")  # sha256-checked before NLTK reads it
    use_nltk_data()
    from nltk.corpus import gutenberg

    # Some files have Windows line ends: normalise them, so "\n\n" is always a paragraph end.
    return tuple((fileid, gutenberg.raw(fileid).replace("\r\n", "\n").strip())
                 for fileid in gutenberg.fileids() if include_bible or fileid != BIBLE)


def corpus_text(include_bible: bool = False) -> str:
    """The files in document order, each followed by a blank line. Read afresh, not from
    corpus_texts' cache: a sequential-only run then frees the text once it is tokenized."""
    return "".join(text + "\n\n" for _, text in corpus_texts.__wrapped__(include_bible))


@functools.lru_cache(maxsize=4)
def _corpus_tokens(tokenizer, include_bible: bool) -> tuple[np.ndarray, np.ndarray]:
    """The corpus' tokens, and the token indices where a paragraph starts."""
    tokens = tokenizer.encode_array(corpus_text(include_bible))  # uint32
    ids = np.unique(tokens)
    breaks = ids[[tokenizer.decode([int(i)]).endswith("\n\n") for i in ids]]
    starts = np.flatnonzero(np.isin(tokens[:-1], breaks)) + 1
    return tokens, np.concatenate([[0], starts])


def corpus_token_count(tokenizer, include_bible: bool = False) -> int:
    return len(_corpus_tokens(tokenizer, include_bible)[0])


def sequential_haystack(tokenizer, budget_tokens: int, start_offset: int = 0, *,
                        include_bible: bool = False) -> str:
    """``budget_tokens`` tokens of the corpus in document order, cycling through it.

    It starts at the first paragraph start at or after ``start_offset`` (a token index,
    taken modulo the corpus) and is cut at the token budget, as the original truncates.
    """
    if budget_tokens <= 0:
        return ""
    tokens, starts = _corpus_tokens(tokenizer, include_bible)
    at = bisect.bisect_left(starts, start_offset % len(tokens))
    first = int(starts[at]) if at < len(starts) else 0
    pieces, left = [], budget_tokens  # slices (views) of the corpus, wrapping round
    while left > 0:
        pieces.append(tokens[first:first + left])
        left, first = left - len(pieces[-1]), 0
    text = tokenizer.decode(pieces[0] if len(pieces) == 1 else np.concatenate(pieces))
    return text.rstrip("\ufffd")  # a multi-byte character cut in half at the end


@functools.lru_cache(maxsize=2)
def corpus_sentences(include_bible: bool = False) -> tuple[str, ...]:
    """Every sentence of every file, in order (each file split on its own)."""
    return tuple(sentence for _, text in corpus_texts(include_bible)
                 for sentence in split_sentences(text))


@functools.lru_cache(maxsize=4)
def _sentence_costs(tokenizer, include_bible: bool) -> np.ndarray:
    """Tokens each sentence adds when it follows another one after a space."""
    return np.asarray([tokenizer.count(" " + s) for s in corpus_sentences(include_bible)],
                      dtype=np.int64)


def shuffled_haystack(tokenizer, budget_tokens: int, seed: int, *,
                      include_bible: bool = False) -> str:
    """Whole sentences in an order shuffled by ``random.Random(seed)``, joined by spaces."""
    return " ".join(shuffled_sentences(tokenizer, budget_tokens, seed,
                                       include_bible=include_bible))


def shuffled_sentences(tokenizer, budget_tokens: int, seed: int, *,
                       include_bible: bool = False) -> list[str]:
    """The sentences of ``shuffled_haystack``, in order.

    Sentences are taken in the shuffled order while they fit; one that does not fit is
    passed over for a later, shorter one, so the haystack ends on a whole sentence within a
    few tokens of the budget. The order is reshuffled if the corpus runs out.
    """
    if budget_tokens <= 0:
        return []
    sentences = corpus_sentences(include_bible)
    costs = _sentence_costs(tokenizer, include_bible)
    rng = random.Random(seed)
    chosen: list[int] = []
    remaining = budget_tokens
    smallest = int(costs.min())
    while remaining >= smallest:
        order = list(range(len(sentences)))
        rng.shuffle(order)
        order_costs = costs[order]
        for position, cost in zip(order, order_costs.tolist()):
            if cost <= remaining:
                chosen.append(position)
                remaining -= cost
                if remaining < smallest:
                    break
        else:
            continue
        break
    return [sentences[i] for i in chosen]
