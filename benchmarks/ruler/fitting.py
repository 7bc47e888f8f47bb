"""Fitting a prompt to its target length: the largest size n whose prompt plus
``tokens_to_generate`` is at most L tokens, in the run's token unit (``ctx.tokenizer``).

RULER (spec section 2) binary-searches n once per task and length on a probe sample, then
builds every sample at that n, shrinking by the task's increment when one comes out too long;
each step tokenizes the whole prompt. Counting can be slow (a server's ``/tokenize`` over
HTTP), so here whole prompts are counted as rarely as possible:

- once per task and length (per process), a probe sample gives the cost of one unit of n
  (a line, a word, a document: the slope between two counted sizes) and the n that fits it;
- each sample starts there and moves by the composed estimate (its own last count plus
  units x their cost, the slope refined by every count), bracketing between the largest n
  known to fit and the smallest known not to, so a sample costs one count when it fits as
  the probe did and two or three when it does not.

A sample ends at the largest n that fits for which one more unit, by the estimate, would
not, or as soon as it is within a thousandth of L: closer than RULER's increment allows.
The last count is of the exact prompt sent.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Callable, Protocol

from . import stimulus
from .grid import TASKS, RulerSample
from .stimulus import Prompt, QaData

MAX_COUNTS = 40  # a bracketing search on any count converges long before this
# Close enough: within a thousandth of the budget (4 tokens at 4k, 131 at 128k, far under
# RULER's increments of 500 words or 25 lines), no further count is spent.
SLACK = 1000


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


@per_tokenizer
def vt_example(*, tokenizer) -> tuple[str, tuple[str, ...]]:
    """VT's one-shot example, sized once per run (per tokenizer) to at most 500 tokens."""
    example = stimulus.VtExampleMaker()
    budget = stimulus.VT_EXAMPLE_TOKENS
    fitted = fit(example, tokenizer.count, budget, *calibrate(example, tokenizer.count, budget))
    return stimulus.vt_example_text(fitted.prompt), fitted.prompt.outputs


def _maker(task_name: str, length: int, seed: str, index: int, tokenizer,
           qa: QaData | None) -> Maker:
    task = TASKS[task_name]
    example = vt_example(tokenizer=tokenizer) if task.family == "vt" else None
    return stimulus.maker(task, length, seed, index, vt_example=example, qa=qa)


@per_tokenizer
def calibration(task_name: str, length: int, *, tokenizer, qa: QaData | None = None
                ) -> tuple[int, float]:
    """(n, tokens per unit) of the task at this length, from a probe sample (QA: the first
    question, as RULER's search uses); once per process and tokenizer."""
    probe = _maker(task_name, length, f"ruler/{task_name}/{length}/probe", 0, tokenizer, qa)
    return calibrate(probe, tokenizer.count, prompt_budget(task_name, length, tokenizer))


def build(sample: RulerSample, tokenizer, qa: QaData | None = None) -> Fitted:
    """The sample's prompt at the largest size that fits its length (TooShort if none)."""
    start, unit = calibration(sample.task, sample.length, tokenizer=tokenizer, qa=qa)
    return fit(_maker(sample.task, sample.length, sample.seed, sample.index, tokenizer, qa),
               tokenizer.count, prompt_budget(sample.task, sample.length, tokenizer), start,
               unit)


def prompt_budget(task_name: str, length: int, tokenizer) -> int:
    """The prompt's share of L: RULER counts the prompt with its model template (here the
    endpoint's chat template, 0 tokens in o200k) plus ``tokens_to_generate``."""
    return length - TASKS[task_name].tokens_to_generate - getattr(tokenizer, "chat_overhead", 0)
