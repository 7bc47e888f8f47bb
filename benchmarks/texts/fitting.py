"""Fitting a prompt to a token budget: the largest size n of a stimulus whose prompt, counted
in the run's unit, fits the budget, found with as few whole-prompt counts as possible (a
server's ``/tokenize`` over HTTP is slow).

A *maker* builds the prompt at any size n >= its ``minimum`` (words of haystack, lines of
noise, nodes of a graph). ``calibrate`` sizes a probe sample once: counted at the smallest
size, then fitted from the ratio estimate, it gives the n that fits and the cost of one unit
of n (the slope between two counted sizes). ``fit`` then fits each sample from there:

- each sample starts at the probe's n and moves by the composed estimate (its own last
  count plus units x their cost, the slope refined by every count), bracketing between the
  largest n known to fit and the smallest known not to, so a sample costs one count when it
  fits as the probe did and two or three when it does not;
- a sample ends at the largest n that fits for which one more unit, by the estimate, would
  not, or as soon as it is within a thousandth of the budget. The last count is of the exact
  prompt kept.

RULER's per-sample fitting (benchmarks/ruler/fitting.py) and GraphWalks' graphs use it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from typing import Callable, Protocol

MAX_COUNTS = 40  # a bracketing search on any count converges long before this
# Close enough: within a thousandth of the budget (4 tokens at 4k, 131 at 128k, far under
# RULER's increments of 500 words or 25 lines), no further count is spent.
SLACK = 1000
K, M = 1 << 10, 1 << 20  # a length's k and m: powers of two, as RULER's and OpenAI's bins
LENGTH = re.compile(r"(\d+(?:\.\d+)?)([km]?)", re.IGNORECASE)


class TooShort(ValueError):
    """Even the task's smallest size does not fit the target length."""


class Maker(Protocol):
    minimum: int

    def prompt(self, n: int) -> Prompt: ...


@dataclasses.dataclass(frozen=True)
class Fitted:
    size: int  # n
    prompt: Prompt
    tokens: int  # tokens of prompt.text
    counts: int  # whole prompts counted to get here
    unit: float  # tokens per unit of n, as last measured


def fit(maker: Maker, count: Callable[[str], int], budget: int, start: int,
        unit: float) -> Fitted:
    """The largest n >= maker.minimum with count(prompt(n)) <= budget (see the module doc)."""
    low, high = None, None  # (n, prompt, tokens): largest known to fit, smallest known not
    n, counts, counted = max(start, maker.minimum), 0, {}
    while counts < MAX_COUNTS:
        prompt = maker.prompt(n)
        tokens = count(prompt.text)
        counts += 1
        if tokens <= budget:
            low = (n, prompt, tokens)
        else:
            high = (n, prompt, tokens)
        # this sample's own cost of a unit: the slope to the farthest size counted (near
        # sizes differ by a few tokens of noise: where a needle fell, one word's tokens)
        far = max(counted, key=lambda size: abs(size - n), default=None)
        if far is not None and far != n:
            unit = max((tokens - counted[far]) / (n - far), 1e-9)
        counted[n] = tokens
        if low is None:
            if high[0] <= maker.minimum:
                raise TooShort(f"{tokens} tokens at the smallest size ({maker.minimum}) "
                               f"exceed the budget of {budget}")
            step = max(1, math.ceil((high[2] - budget) / unit))
            n = max(maker.minimum, high[0] - step)
            continue
        if budget - low[2] <= budget // SLACK:
            break
        guess = low[0] + math.floor((budget - low[2]) / unit)
        if high is not None:
            guess = min(guess, high[0] - 1)
            if counts >= 4:  # the estimate is off: halve the bracket instead
                guess = min(guess, (low[0] + high[0]) // 2) if guess > low[0] else guess
        if guess <= low[0]:
            break
        n = guess
    if low is None:
        raise TooShort(f"no size from {maker.minimum} fits {budget} tokens")
    return Fitted(low[0], low[1], low[2], counts, unit)


def calibrate(maker: Maker, count: Callable[[str], int], budget: int) -> tuple[int, float]:
    """(n, unit) for a probe sample: counted at the smallest size, then fitted from the
    ratio estimate (as RULER's first estimate, tokens / n)."""
    smallest = maker.minimum
    tokens = count(maker.prompt(smallest).text)
    if tokens > budget:
        raise TooShort(f"{tokens} tokens at the smallest size ({smallest}) exceed the "
                       f"budget of {budget}")
    ratio = tokens / smallest
    start = max(smallest, math.floor(budget / ratio))
    fitted = fit(maker, count, budget, start, ratio)
    if fitted.size > smallest:
        unit = (fitted.tokens - tokens) / (fitted.size - smallest)
    else:
        unit = fitted.unit
    return fitted.size, max(unit, 1e-9)


def per_tokenizer(function):
    """Cache by the tokenizer's identity (its ``identity`` string, else the object): a
    tokenizer object need not be hashable, and two of the same unit share the results."""
    cache: dict = {}

    @functools.wraps(function)
    def cached(*args, tokenizer, **kwargs):
        key = (args, getattr(tokenizer, "identity", None) or id(tokenizer),
               tuple(sorted((k, id(v)) for k, v in kwargs.items())))
        if key not in cache:  # (the arguments kept with it: their ids stay theirs)
            cache[key] = (function(*args, tokenizer=tokenizer, **kwargs), tokenizer, kwargs)
        return cache[key][0]
    return cached


def length_id(tokens: int) -> str:
    """``ctx4k`` (4,096), ``ctx1.5k`` (1,536), ``ctx1m`` (1,048,576), else ``ctx5000t``:
    each ends in its unit, so ``-k ctx4k`` never selects ``ctx64k``."""
    if tokens % M == 0:
        return f"ctx{tokens // M}m"
    if tokens % (K // 2) == 0:
        return f"ctx{tokens / K:g}k"
    return f"ctx{tokens}t"


def length_label(tokens: int) -> str:
    """``4K``, ``1.5K``, ``1M``, else ``5000``: a length for a table or a plot."""
    return length_id(tokens).removeprefix("ctx").upper().removesuffix("T")


def parse_lengths(value: str, option: str, minimum: int, example: str) -> tuple[int, ...]:
    """A lengths option, ``4k,8k,1m`` (k = 1,024 tokens, m = 1,048,576) or token counts:
    sorted, once each. A part that is no length of at least ``minimum`` tokens, or no part at
    all, raises ValueError naming ``option`` and an ``example`` of what to write."""
    lengths = set()
    for part in (p.strip() for p in value.split(",") if p.strip()):
        match = LENGTH.fullmatch(part)
        tokens = float(match.group(1)) * {"": 1, "k": K, "m": M}[match.group(2).lower()] \
            if match else 0.0
        if not tokens.is_integer() or tokens < minimum:
            raise ValueError(f"{option} {value!r}: {part!r} is not a length of at least "
                             f"{minimum} tokens; write e.g. {example} (k = 1,024)")
        lengths.add(int(tokens))
    if not lengths:
        raise ValueError(f"{option} {value!r}: give at least one length, e.g. {example}")
    return tuple(sorted(lengths))
