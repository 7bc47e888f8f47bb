"""Where a needle goes: NoLiMa's ``BookHaystack`` procedure (spec section 2), step for step.

The book is tokenized once in the run's unit (o200k unless ``--tokenizer``). Valid positions
are token 0 and every token whose own decoded text holds a newline. For a length ``L`` and a
depth ``d`` (a fraction): the first valid position ``p`` with ``p / (L + 1) >= d``; the window
is ``L`` tokens from ``p - round(L * d)`` (numpy's round, half to even); the text before the
needle is decoded from the window's start to ``p + 1`` and cut at its last newline, the text
after it from ``p + 1`` to the window's end; the needle goes in as
``pre + " " + needle + "\\n" + post``. So the haystack is exactly ``L`` tokens before the
needle is added (less the partial line cut before it).

With a distractor (NoLiMa's ``needle_set_w_Distractor``): it is placed on its own at a depth
drawn outside a free zone of 0.2 around the needle's (fixed depths below 500 tokens), then
copied into the needle's haystack after the same 50 (25) characters that preceded it there.
"""

from __future__ import annotations

import dataclasses

import numpy as np

FREE_ZONE = 0.2  # NoLiMa's distractor_free_zone


class PlacementFailed(ValueError):
    """The haystack cannot hold this length at this depth (NoLiMa's asserts fail)."""


@dataclasses.dataclass(frozen=True)
class Tokenized:
    """A book in one unit: its tokens and its valid (newline) positions."""

    tokens: np.ndarray
    valid: np.ndarray
    decode: object  # tokens -> text

    @classmethod
    def of(cls, text: str, unit) -> "Tokenized":
        tokens = np.asarray(unit.encode_array(text) if hasattr(unit, "encode_array")
                            else unit.encode(text), dtype=np.int64)
        ids = np.unique(tokens)
        # each distinct token decoded once: "\n" in decode([token]), as NoLiMa asks of each
        newline = ids[[("\n" in unit.decode([int(i)])) for i in ids]]
        valid = np.concatenate([[0], np.flatnonzero(np.isin(tokens, newline))])
        return cls(tokens, valid, unit.decode)


@dataclasses.dataclass(frozen=True)
class Placed:
    text: str
    position: int  # p: the valid position the needle follows
    start: int  # the window's first token
    token_depth: int  # round(L * depth)


def place(book: Tokenized, needle: str, length: int, depth: float) -> Placed:
    delta = book.valid / (length + 1) - depth
    delta[delta < 0] = np.inf
    chosen = int(np.argmin(delta))
    position = int(book.valid[chosen])
    token_depth = int(np.round(length * depth))
    start, end = position - token_depth, position - token_depth + length
    if start < 0 or end > len(book.tokens):  # NoLiMa's asserts
        raise PlacementFailed(f"the haystack has {len(book.tokens)} tokens: too few for "
                              f"{length} tokens with the needle at depth {depth:g}")
    pre = book.decode(book.tokens[start:position + 1])
    pre = pre[:max(pre.rfind("\n"), 0)]
    post = book.decode(book.tokens[position + 1:end])
    return Placed(pre + " " + needle + "\n" + post, position, start, token_depth)


def distractor_depth(depth: float, length: int, draw: float) -> float:
    """The distractor's depth from the drawn ``draw`` (uniform on [0, distractor_span))."""
    left = max(0, depth - 2 * FREE_ZONE)
    if length < 500:
        return 0.7 if depth < 0.6 else 0.6 if depth > 0.75 else 0.5
    if draw > left:
        return depth + FREE_ZONE + (draw - left)
    return draw + FREE_ZONE


def distractor_span(depth: float) -> float:
    """The width NoLiMa draws the distractor's depth from (``np.random.uniform(0, width)``)."""
    return max(0, depth - 2 * FREE_ZONE) + max(0, 1 - (depth + 2 * FREE_ZONE))


def place_with_distractor(book: Tokenized, needle: str, distractor: str, length: int,
                          depth: float, draw: float) -> tuple[Placed, float]:
    where = distractor_depth(depth, length, draw)
    alone = place(book, distractor, length, where).text
    at = alone.index(distractor)
    before, after = (25, 23) if length < 500 else (50, 49)  # NoLiMa's offsets, as they are
    key = alone[max(at - before, 0):at - 1]
    placed = place(book, needle, length, depth)
    if placed.text.count(key) > 1:
        raise PlacementFailed("the text before the distractor occurs twice in the haystack "
                              "(NoLiMa stops here: 'Multiple spans found')")
    try:
        cut = placed.text.index(key) + after
    except ValueError:
        raise PlacementFailed("the text before the distractor is not in the needle's haystack "
                              "(NoLiMa stops here)") from None
    text = placed.text[:cut] + " " + distractor + "\n" + placed.text[cut:]
    return dataclasses.replace(placed, text=text), where
