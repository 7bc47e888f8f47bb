"""The stimulus: a fixed continuation point, windows that grow backwards, the prompt.

Every tier's context ends at the same place in the text (the continuation point, a sentence
end), and a bigger tier adds text *before* it (reverse-linear growth): each smaller window is
a suffix of every bigger one. The real text after the point, up to the output budget and cut
at a sentence end, is the ground truth. Windows start at a sentence or paragraph start.

The continuation point defaults to the first sentence end at or after 1.1 x the largest
parametrized tier (so the largest window starts after the front matter); ``--continuation-
point`` sets it, which is how runs with different tier ceilings share one point.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib

import tiktoken

from fixtures.tokens.counted import safe_cut_after
from fixtures.tokens.tokenizer import ENCODING_NAME, o200k

from . import text as texts

INSTRUCTION = (
    "This tests how well you write long-form narrative when given a rich text as the starting "
    "point. Continue the story above from exactly where it stops, without steering it towards "
    "an ending. Keep developing its characters, their motives, the world and the plot. Keep "
    "the author's style, tone, voice, sentence structure and turns of phrase, while aiming "
    "for variety, depth and invention. Do not mention these instructions and do not comment "
    "on the text. Begin writing."
)
SEPARATOR = "\n\n"
TEMPLATE_ALLOWANCE = 32  # tokens a chat template adds around one user message
POINT_FACTOR = 1.1  # default continuation point: this many times the largest tier
MIN_TEXT_TOKENS = 128  # a tier whose budget leaves less text than this is skipped


@dataclasses.dataclass(frozen=True)
class Source:
    """The document prepared once per process: tokens, the continuation point, the truth."""
    document: texts.Document
    total_tokens: int
    point_char: int  # the continuation point: the context ends just before this character
    point_tokens: int  # o200k tokens before the point
    requested_point_tokens: int
    truth: str  # the real continuation
    starts: tuple[int, ...]  # token start offsets (characters) before the point
    window_starts: tuple[int, ...]  # places a window may start (after a boundary)

    @property
    def clamped(self) -> bool:
        """The text was too short for the requested point: it moved earlier."""
        return self.point_tokens < self.requested_point_tokens

    def report(self) -> dict:
        return {
            "text_source": self.document.source, "text_chars": len(self.document.text),
            "text_raw_chars": self.document.raw_chars,
            "input_truncated": self.document.truncated, "text_tokens": self.total_tokens,
            "continuation_point_tokens": self.point_tokens,
            "continuation_point_char": self.point_char,
            "continuation_point_clamped": self.clamped,
            "truth_sha256": hashlib.sha256(self.truth.encode()).hexdigest()[:16],
            "unused_tokens_after_truth": self.total_tokens - self.point_tokens
            - o200k().count(self.truth),
        }


@functools.lru_cache(maxsize=4)
def prepare(source: str, requested_point: int, max_tokens: int) -> Source:
    """Load the document, place the continuation point and cut the ground truth."""
    document = texts.load(source)
    return place(document, requested_point, max_tokens)


def place(document: texts.Document, requested_point: int, max_tokens: int) -> Source:
    body = document.text
    o200k()  # installs the offline vocabulary first
    encoding = tiktoken.get_encoding(ENCODING_NAME)  # public API, for decode_with_offsets
    tokens = encoding.encode(body, disallowed_special=())
    decoded, starts = encoding.decode_with_offsets(tokens)
    if decoded != body:  # only text that round-trips can be cut by token offsets
        raise texts.TextUnavailable(f"{document.source}: the text does not round-trip through "
                                    "o200k_base; remove invalid characters")
    ends = texts.sentence_ends(body)
    # Leave room after the point for a full ground truth; report it when that moves it.
    latest = max(len(tokens) - max_tokens, 0)
    target = min(requested_point, latest)
    target_char = starts[target] if target < len(starts) else len(body)
    latest_char = starts[latest] if latest < len(starts) else len(body)
    usable = [e for e in ends if e <= latest_char]
    if not usable:
        raise texts.TextUnavailable(f"{document.source}: no sentence end found before the "
                                    f"last {max_tokens} tokens; the continuation experiment "
                                    "needs prose with punctuation")
    later = [e for e in usable if e >= target_char]
    point_char = later[0] if later else usable[-1]
    point_tokens = bisect.bisect_left(starts, point_char)
    truth = ground_truth(body[point_char:], max_tokens)
    window_starts = tuple(sorted({0, *(_skip_space(body, b) for b in texts.boundaries(body)
                                       if b < point_char)}))
    return Source(document, len(tokens), point_char, point_tokens, requested_point, truth,
                  tuple(starts[:point_tokens]), window_starts)


def _skip_space(body: str, position: int) -> int:
    while position < len(body) and body[position].isspace():
        position += 1
    return position


def ground_truth(after: str, max_tokens: int) -> str:
    """The first ``max_tokens`` tokens after the point, cut at their last sentence end."""
    tokenizer = o200k()
    head = tokenizer.decode(tokenizer.encode(after)[:max_tokens])
    ends = texts.sentence_ends(head)
    return (head[:ends[-1]] if ends else head).strip()


def default_point(ceiling: int) -> int:
    return int(POINT_FACTOR * ceiling)


# -- windows ---------------------------------------------------------------------------------
def instruction_tokens() -> int:
    return o200k().count(SEPARATOR + INSTRUCTION)


def text_budget(context: int, max_tokens: int, allowance: float) -> int:
    """o200k tokens of text a tier holds: the context less the output, the instruction and
    the chat template, divided by the allowance for a tokenizer that needs more tokens."""
    room = context - max_tokens - instruction_tokens() - TEMPLATE_ALLOWANCE
    return max(int(room / allowance), 0)


@dataclasses.dataclass(frozen=True)
class Window:
    text: str
    start_char: int
    budget: int  # tokens of text the tier allowed, in the run's unit
    skip_reason: str = ""
    tokens: int | None = None  # the window's count, where it was composed (another unit)


def window(source: Source, budget: int) -> Window:
    """The last ``budget`` tokens before the point, started at the next sentence start."""
    if budget < MIN_TEXT_TOKENS:
        return Window("", source.point_char, budget,
                      f"the tier leaves {budget} tokens of text after the output budget and "
                      f"the instruction (fewer than {MIN_TEXT_TOKENS})")
    if budget > source.point_tokens:
        return Window("", 0, budget,
                      f"the text holds only {source.point_tokens} tokens before the "
                      f"continuation point, fewer than the tier's {budget} (it is never "
                      "repeated to fill a tier)")
    cut = source.starts[source.point_tokens - budget]
    index = bisect.bisect_left(source.window_starts, cut)
    start = source.window_starts[index] if index < len(source.window_starts) \
        else source.point_char
    body = source.document.text[start:source.point_char]
    if not body.strip():
        return Window("", start, budget, f"no whole sentence fits in {budget} tokens")
    return Window(body, start, budget)


def prompt(window_text: str) -> str:
    return f"{window_text}{SEPARATOR}{INSTRUCTION}"


# -- tiers in another unit (--tokenizer server or hf:PATH) ------------------------------------
PIECE_CHARS = 1_000  # about this many characters between the safe cuts counted before the point


def unit_text_budget(context: int, max_tokens: int, tokenizer) -> int:
    """Tokens of text a tier holds in the model's own unit: the context less the output, the
    instruction and the chat template as the server counts them (no allowance is needed)."""
    room = context - max_tokens - tokenizer.count(SEPARATOR + INSTRUCTION) \
        - tokenizer.chat_overhead
    return max(room, 0)


_WINDOWS: dict[tuple[int, int, str], Window] = {}  # a tier's window serves all its rounds


def unit_window(source: Source, budget: int, tokenizer) -> Window:
    """The window that starts at the earliest window start whose text to the point holds at
    most ``budget`` tokens of ``tokenizer``'s unit, composed from counts of the pieces between
    safe cuts (counted back from the point, once each) and of the text up to the first cut."""
    key = (id(source), budget, tokenizer.unit)
    if key not in _WINDOWS:
        _WINDOWS[key] = _unit_window(source, budget, tokenizer)
    return _WINDOWS[key]


def _unit_window(source: Source, budget: int, tokenizer) -> Window:
    if budget < MIN_TEXT_TOKENS:
        return window(source, budget)  # the same skip, whatever the unit
    text, point = source.document.text, source.point_char
    cuts = _cuts_before(text, point)
    ends = cuts[1:] + [point]
    suffix: dict[int, int] = {}  # cut index -> tokens from that cut to the point
    total, i = 0, len(cuts)
    while i > 0 and total <= budget:
        batch = range(max(0, i - 16), i)
        counts = tokenizer.count_pieces([text[cuts[j]:ends[j]] for j in batch])
        for j, count in zip(reversed(batch), reversed(counts)):
            total += count
            suffix[j] = total
        i = batch.start
    lowest = min((j for j, tokens in suffix.items() if tokens <= budget), default=len(cuts))
    if lowest == 0:  # all of it may fit: a tier larger than the text is skipped
        whole = tokenizer.count(text[:cuts[0]] if cuts else text[:point]) + suffix.get(0, 0)
        if whole < budget:
            return Window("", 0, budget, f"the text holds only {whole} tokens before the "
                          f"continuation point, fewer than the tier's {budget} (it is never "
                          "repeated to fill a tier)")
    low = cuts[lowest - 1] if lowest > 0 else 0
    starts = [start for start in source.window_starts if low <= start < point]
    following = [bisect.bisect_left(cuts, start + 1) for start in starts]
    heads = tokenizer.count_many([text[start:cuts[j] if j < len(cuts) else point]
                                  for start, j in zip(starts, following)])
    for start, j, head in zip(starts, following, heads):
        tokens = head + (suffix[j] if j < len(cuts) else 0)
        if tokens <= budget and text[start:point].strip():
            return Window(text[start:point], start, budget, tokens=tokens)
    return Window("", point, budget, f"no whole sentence fits in {budget} tokens")


def _cuts_before(text: str, point: int) -> list[int]:
    """Safe cuts about every PIECE_CHARS characters before ``point``, ascending."""
    cuts, position = [], 0
    while True:
        found = safe_cut_after(text, position + PIECE_CHARS) if position else \
            safe_cut_after(text, 1)
        if found >= point - 1:
            return cuts
        cuts.append(found)
        position = found
