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
import itertools
import math
import random
import re
from typing import Sequence

import numpy as np

from fixtures.tokens.counted import CountedText, chars_for_piece
from fixtures.data.registry import data_file, import_nltk, use_nltk_data
from fixtures.tokens.tokenizer import CountingFailed, o200k

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
CUT_STRIDE = 256  # o200k tokens between the corpus index's safe cuts


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
    return place_counted(CountedText.count(haystack, tokenizer), depth_percent, tokenizer)


def place_counted(haystack: CountedText, depth_percent: float, tokenizer) -> Placement:
    """``place`` on a counted haystack: no count of the whole text."""
    _check_depth(depth_percent)
    tokens = haystack.tokens
    if depth_percent == 0:
        return Placement(0, 0, tokens)
    if depth_percent == 100:
        return Placement(len(haystack.text), tokens, tokens)
    nominal = math.floor(tokens * depth_percent / 100)
    offset = boundary_before(haystack.text, haystack.token_offset(nominal, tokenizer))
    return Placement(offset, haystack.prefix_tokens(offset, tokenizer), tokens)


def insert_counted(haystack: CountedText, insertions: Sequence[tuple[int, str]],
                   tokenizer) -> CountedText:
    """``insert_at_offsets`` on a counted haystack, counted from the text around each
    insertion. Insertions at one offset are applied as ``insert_at_offsets`` applies them."""
    text = haystack.text
    edits = []
    for offset, group in itertools.groupby(sorted(insertions, key=lambda item: item[0],
                                                  reverse=True), key=lambda item: item[0]):
        # insert_at looks only at the characters on either side: play it on those
        left, right = text[max(0, offset - 1):offset], text[offset:offset + 1]
        local = left + right
        for _, inserted in group:
            local = insert_at(local, inserted, len(left))
        edits.append((offset, offset, local[len(left):len(local) - len(right)]))
    return haystack.edit(edits, tokenizer)


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
    corpus_texts' cache (the corpus index keeps the one copy it needs)."""
    return "".join(text + "\n\n" for _, text in corpus_texts.__wrapped__(include_bible))


@dataclasses.dataclass(frozen=True)
class CorpusIndex:
    """The corpus in o200k tokens, read once per process: where paragraphs start, and a safe
    cut (``fixtures/tokens/counted.py``) about every ``CUT_STRIDE`` tokens with its token index.

    Sequential haystacks are stretches of the corpus from a paragraph start: in o200k the cuts'
    token indices count them; in another unit the pieces between cuts are counted once, as a
    haystack first reaches them (``UnitSteps``)."""
    text: str
    tokens: int
    paragraph_tokens: np.ndarray  # token indices where a paragraph starts (after "\n\n")
    paragraph_chars: np.ndarray  # and their character offsets
    cut_tokens: np.ndarray
    cut_chars: np.ndarray


@functools.lru_cache(maxsize=2)
def corpus_index(include_bible: bool = False) -> CorpusIndex:
    tokenizer = o200k()
    text = corpus_text(include_bible)
    tokens = tokenizer.encode_array(text)  # uint32
    ids = np.unique(tokens)
    breaks = ids[[tokenizer.decode([int(i)]).endswith("\n\n") for i in ids]]
    paragraphs = np.concatenate([[0], np.flatnonzero(np.isin(tokens[:-1], breaks)) + 1])
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    starts = np.zeros(len(tokens), dtype=np.int64)  # each token's first byte
    np.cumsum(tokenizer.token_bytes()[tokens[:-1]], out=starts[1:])
    inside = np.flatnonzero((starts > 0) & (starts < len(data) - 1))
    at = starts[inside]
    visible = lambda b: (b >= 0x21) & (b <= 0x7E)  # noqa: E731
    safe = inside[(data[at] == 0x20) & visible(data[at - 1]) & visible(data[at + 1])]
    strides = np.searchsorted(safe, np.arange(0, len(tokens), CUT_STRIDE))
    cuts = np.unique(safe[strides[strides < len(safe)]])
    chars = _byte_to_char(data, starts[np.concatenate([paragraphs, cuts])])
    return CorpusIndex(text, len(tokens), paragraphs, chars[:len(paragraphs)], cuts,
                       chars[len(paragraphs):])


def _byte_to_char(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Character offsets of UTF-8 byte offsets (each at a character's first byte)."""
    order = np.argsort(offsets, kind="stable")
    ordered = offsets[order]
    continuation = ((data & 0xC0) == 0x80).view(np.uint8)
    if not continuation.any():
        return offsets.copy()
    points = np.concatenate([[0], ordered])
    before = np.cumsum(np.add.reduceat(continuation, points, dtype=np.int64)[:-1]) \
        if len(ordered) else np.zeros(0, np.int64)
    chars = np.empty_like(offsets)
    chars[order] = ordered - before
    return chars


def corpus_token_count(tokenizer=None, include_bible: bool = False) -> int:
    """The corpus' length in o200k tokens."""
    return corpus_index(include_bible).tokens


class UnitSteps:
    """Tokens, in one unit, of the corpus between each indexed cut and the next: o200k's from
    the index, another unit's counted a batch at a time as haystacks reach them."""

    BATCH = 64  # pieces counted at least at once

    def __init__(self, tokenizer, index: CorpusIndex):
        self.tokenizer, self.index = tokenizer, index
        if getattr(tokenizer, "is_default", False):
            self.values = np.diff(index.cut_tokens)
        else:
            self.values = np.full(len(index.cut_chars) - 1, -1, dtype=np.int64)

    def between(self, first: int, last: int) -> np.ndarray:
        """The steps from cut ``first`` to cut ``last``."""
        missing = np.flatnonzero(self.values[first:last] < 0) + first
        if len(missing):
            text, chars = self.index.text, self.index.cut_chars
            self.values[missing] = self.tokenizer.count_pieces(
                [text[chars[j]:chars[j + 1]] for j in missing])
        return self.values[first:last]

    def reach(self, first: int, limit: int) -> tuple[int, int]:
        """The last cut ``j`` whose tokens from cut ``first`` are at most ``limit``, and those
        tokens."""
        if getattr(self.tokenizer, "is_default", False):
            cut_tokens = self.index.cut_tokens
            last = int(np.searchsorted(cut_tokens, cut_tokens[first] + limit, "right")) - 1
            return last, int(cut_tokens[last] - cut_tokens[first])
        used, last = 0, first
        while last < len(self.values):
            ahead = min(len(self.values), last + max(self.BATCH, 2 * (limit - used) //
                                                      CUT_STRIDE + 8))
            running = used + np.cumsum(self.between(last, ahead))
            within = int(np.searchsorted(running, limit, "right"))
            if within < ahead - last:
                return last + within, int(running[within - 1]) if within else used
            used, last = int(running[-1]), ahead
        return last, used


@functools.lru_cache(maxsize=4)
def unit_steps(tokenizer, include_bible: bool) -> UnitSteps:
    return UnitSteps(tokenizer, corpus_index(include_bible))


def sequential_haystack(tokenizer, budget_tokens: int, start_offset: int = 0, *,
                        include_bible: bool = False) -> str:
    """``budget_tokens`` tokens of the corpus in document order, cycling through it.

    It starts at the first paragraph start at or after ``start_offset`` (an o200k token
    index, taken modulo the corpus) and is cut at the token budget, as the original truncates.
    """
    return sequential_counted(tokenizer, budget_tokens, start_offset,
                              include_bible=include_bible).text


def sequential_counted(tokenizer, budget_tokens: int, start_offset: int = 0, *,
                       include_bible: bool = False) -> CountedText:
    """``sequential_haystack`` with its count in the unit, composed from the corpus index."""
    index = corpus_index(include_bible)
    if budget_tokens <= 0:
        return CountedText.count("", tokenizer)
    at = bisect.bisect_left(index.paragraph_tokens, start_offset % index.tokens)
    start = int(index.paragraph_chars[at]) if at < len(index.paragraph_chars) else 0
    return _stretch(tokenizer, index, start, budget_tokens, include_bible)


def _stretch(tokenizer, index: CorpusIndex, start: int, budget: int,
             include_bible: bool) -> CountedText:
    """The corpus from character ``start`` for ``budget`` tokens, wrapping round its end."""
    text, cut_chars = index.text, index.cut_chars
    first = int(np.searchsorted(cut_chars, start + 1))
    head_end = int(cut_chars[first]) if first < len(cut_chars) else len(text)
    head = tokenizer.count(text[start:head_end])
    if head >= budget:
        end = start + tokenizer.chars_for(text[start:head_end], budget)
        return CountedText.count(text[start:end], tokenizer)
    if first >= len(cut_chars):  # the corpus' last stretch: the rest comes from its start
        _counted_some(tokenizer, head)
        return CountedText.count(text[start:], tokenizer).concat(
            _stretch(tokenizer, index, 0, budget - head, include_bible), tokenizer)
    steps = unit_steps(tokenizer, include_bible)
    last, used = steps.reach(first, budget - head)
    left = budget - head - used
    cut = int(cut_chars[last])
    following = int(cut_chars[last + 1]) if last + 1 < len(cut_chars) else len(text)
    if last + 1 >= len(cut_chars) and left > tokenizer.count_pieces([text[cut:]])[0]:
        whole = CountedText.assemble(text[start:], cut_chars[first:] - start,
                                     steps.between(first, last), tokenizer)
        _counted_some(tokenizer, whole.tokens)
        return whole.concat(_stretch(tokenizer, index, 0, budget - whole.tokens,
                                     include_bible), tokenizer)
    end = cut + chars_for_piece(tokenizer, text[cut:following], left)
    return CountedText.assemble(text[start:end], cut_chars[first:last + 1] - start,
                                steps.between(first, last), tokenizer)


def _counted_some(tokenizer, tokens: int) -> None:
    """Wrapping round the corpus must use up some of the budget, or it never ends."""
    if tokens <= 0:
        raise CountingFailed(f"{tokenizer.name} counts {tokens} tokens in the whole corpus; "
                             "its counts are wrong: count in o200k (the default)")


@functools.lru_cache(maxsize=2)
def corpus_sentences(include_bible: bool = False) -> tuple[str, ...]:
    """Every sentence of every file, in order (each file split on its own)."""
    return tuple(sentence for _, text in corpus_texts(include_bible)
                 for sentence in split_sentences(text))


class SentenceCosts:
    """Tokens each corpus sentence adds when it follows another one after a space: all at
    once in o200k, a batch at a time in another unit (only the sentences a haystack
    considers are counted)."""

    BATCH = 512

    def __init__(self, tokenizer, include_bible: bool):
        self.tokenizer = tokenizer
        self.sentences = corpus_sentences(include_bible)
        self.values = np.full(len(self.sentences), -1, dtype=np.int64)
        self._smallest = None
        if getattr(tokenizer, "is_default", False):
            self._fill(np.arange(len(self.sentences)),
                       tokenizer.count_many([" " + s for s in self.sentences]))

    def _fill(self, positions: np.ndarray, counts) -> None:
        self.values[positions] = counts
        least = int(self.values[positions].min())
        self._smallest = least if self._smallest is None else min(self._smallest, least)

    def of(self, positions: Sequence[int]) -> np.ndarray:
        positions = np.asarray(positions, dtype=np.int64)
        missing = positions[self.values[positions] < 0]
        if len(missing):
            self._fill(missing, self.tokenizer.count_pieces(
                [" " + self.sentences[i] for i in missing]))
        return self.values[positions]

    def smallest(self) -> int:
        """The smallest cost counted so far (all of them in o200k)."""
        return 1 if self._smallest is None else self._smallest


@functools.lru_cache(maxsize=4)
def sentence_costs(tokenizer, include_bible: bool) -> SentenceCosts:
    return SentenceCosts(tokenizer, include_bible)


def shuffled_haystack(tokenizer, budget_tokens: int, seed: int, *,
                      include_bible: bool = False) -> str:
    """Whole sentences in an order shuffled by ``random.Random(seed)``, joined by spaces."""
    return shuffled_counted(tokenizer, budget_tokens, seed, include_bible=include_bible).text


def shuffled_sentences(tokenizer, budget_tokens: int, seed: int, *,
                       include_bible: bool = False) -> list[str]:
    """The sentences of ``shuffled_haystack``, in order."""
    sentences = corpus_sentences(include_bible)
    return [sentences[i] for i in _shuffled_choice(tokenizer, budget_tokens, seed,
                                                   include_bible)]


def _shuffled_choice(tokenizer, budget_tokens: int, seed: int,
                     include_bible: bool) -> list[int]:
    """Sentences are taken in the shuffled order while they fit; one that does not fit is
    passed over for a later, shorter one, so the haystack ends on a whole sentence within a
    few tokens of the budget. The order is reshuffled if the corpus runs out."""
    if budget_tokens <= 0:
        return []
    costs = sentence_costs(tokenizer, include_bible)
    rng = random.Random(seed)
    chosen: list[int] = []
    remaining = budget_tokens
    while remaining >= costs.smallest():
        order = list(range(len(costs.sentences)))
        rng.shuffle(order)
        taken = len(chosen)
        for start in range(0, len(order), costs.BATCH):
            batch = order[start:start + costs.BATCH]
            batch_costs = costs.of(batch).tolist()
            smallest = costs.smallest()
            for position, cost in zip(batch, batch_costs):
                if cost <= remaining:
                    chosen.append(position)
                    remaining -= cost
                    if remaining < smallest:
                        return chosen
        if len(chosen) == taken:  # a whole pass found nothing that fits
            break
    return chosen


def shuffled_counted(tokenizer, budget_tokens: int, seed: int, *,
                     include_bible: bool = False) -> CountedText:
    """``shuffled_haystack`` with its count, composed from the sentences' costs: a cut at
    every join of two sentences that is a safe cut."""
    chosen = _shuffled_choice(tokenizer, budget_tokens, seed, include_bible)
    sentences = corpus_sentences(include_bible)
    parts = [sentences[i] for i in chosen]
    text = " ".join(parts)
    if len(parts) < 2:
        return CountedText.count(text, tokenizer)
    lengths = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
    joins = np.cumsum(lengths[:-1] + 1) - 1  # the space before sentence k + 1
    safe = np.fromiter((_visible(a[-1]) and _visible(b[0]) for a, b in zip(parts, parts[1:])),
                       dtype=bool, count=len(parts) - 1)
    cuts = np.flatnonzero(safe)  # sentence k + 1 follows the cut at joins[k]
    if len(cuts) == 0:
        return CountedText.count(text, tokenizer)
    running = np.cumsum(sentence_costs(tokenizer, include_bible).of(chosen))
    steps = running[cuts[1:]] - running[cuts[:-1]]
    unsure = np.flatnonzero(np.diff(cuts) > 1)  # an unsafe join inside: counted instead
    if len(unsure):
        chars = joins[cuts]
        steps[unsure] = tokenizer.count_pieces([text[chars[i]:chars[i + 1]] for i in unsure])
    return CountedText.assemble(text, joins[cuts], steps, tokenizer)


def _visible(character: str) -> bool:
    return "!" <= character <= "~"
