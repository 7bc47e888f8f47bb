"""Fitting a prompt to its target length L: prompt plus ``tokens_to_generate`` at most L
tokens, in the run's token unit (``ctx.tokenizer``). Two procedures (``--ruler-fit``):

**ruler** (the default): RULER's own (spec section 2, FWE section 3.4), so prompts fill L as
RULER's do (RULER's code: 0.915 of L at 4k, 0.958 at 8k; see docs/ruler-protocol.md). Once
per task and length (per process and unit), a size n is searched on fresh samples: a probe
at the task's increment (CWE: 4,096 words) gives tokens per unit, the upper bound is 3x (CWE:
2x) the units that would fill L, and a binary search keeps the largest n whose fresh sample
fits. FWE instead grows its word count from B // 6 in steps of B // 32 (B = L less the tokens
to generate) while one sample is shorter than B, then steps back once. Every sample is then
built at that n; one that overflows is drawn afresh (RULER's generators draw from a running
random state: new needles, words, noise or documents; QA keeps its question) one whole
increment smaller (500 words of essay, 25 lines of noise or needles, 10 words, lines or
documents) until it fits. FWE has no such loop in RULER: its sample drops B // 32 words.

**per-sample**: each sample fitted to within a thousandth of L (0.998-1.000), as closely as
its size allows; prompts are then longer than RULER's at the same nominal length. Counting
can be slow (a server's ``/tokenize`` over HTTP), so whole prompts are counted as rarely as
possible:

- once per task and length (per process), a probe sample gives the cost of one unit of n
  (a line, a word, a document: the slope between two counted sizes) and the n that fits it;
- each sample starts there and moves by the composed estimate (its own last count plus
  units x their cost, the slope refined by every count), bracketing between the largest n
  known to fit and the smallest known not to, so a sample costs one count when it fits as
  the probe did and two or three when it does not.

A sample ends at the largest n that fits for which one more unit, by the estimate, would
not, or as soon as it is within a thousandth of L: closer than RULER's increment allows.
The last count is of the exact prompt sent. That search is shared
(benchmarks/texts/fitting.py: ``fit``, ``calibrate``); the rest of this module is RULER's.
"""

from __future__ import annotations

import itertools
from typing import Callable

from benchmarks.texts.fitting import Fitted, Maker, TooShort, calibrate, fit, per_tokenizer

from . import stimulus
from .grid import TASKS, RulerSample
from .stimulus import QaData

# the smallest size whose prompt still asks its question (10 common words; FWE's ranks 2-4)
FLOORS = {"cwe": stimulus.COMMON, "fwe": stimulus.FweMaker.MIN_WORDS}
CWE_PROBE = 4096  # RULER measures CWE's tokens per word on a list of this many words


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


def build(sample: RulerSample, tokenizer, qa: QaData | None = None,
          procedure: str = "ruler", draw: int = 0) -> Fitted:
    """The sample's prompt fitted to its length by ``procedure`` (TooShort if none fits);
    ``draw``: which of RULER's searches sizes it (0, a run's; others measure the spread)."""
    maker = _maker(sample.task, sample.length, sample.seed, sample.index, tokenizer, qa)
    budget = prompt_budget(sample.task, sample.length, tokenizer)
    if procedure == "ruler":
        size = ruler_size(sample.task, sample.length, tokenizer=tokenizer, qa=qa, draw=draw)
        family = TASKS[sample.task].family

        def drawn(attempt: int) -> Maker:  # the sample, then a fresh one per overflow
            if attempt == 0 or family == "fwe":
                return maker
            return _maker(sample.task, sample.length, f"{sample.seed}/redraw{attempt}",
                          sample.index, tokenizer, qa)

        return shrink(drawn, tokenizer.count, budget, size,
                      ruler_step(sample.task, sample.length, budget),
                      FLOORS.get(family, min(1, maker.minimum)))
    start, unit = calibration(sample.task, sample.length, tokenizer=tokenizer, qa=qa)
    return fit(maker, tokenizer.count, budget, start, unit)


# -- RULER's procedure -------------------------------------------------------------------
def ruler_step(task_name: str, length: int, budget: int) -> int:
    """The size RULER drops from a sample that overflows: its ``incremental``; FWE's B // 32
    (B: the prompt's budget, L less the tokens to generate and any chat template)."""
    task = TASKS[task_name]
    if task.family == "fwe":
        return max(1, budget // 32)
    return stimulus.increment(task, length)


@per_tokenizer
def ruler_size(task_name: str, length: int, *, tokenizer, qa: QaData | None = None,
               draw: int = 0) -> int:
    """RULER's size for the task at this length, searched once per process and unit on
    fresh samples (their seeds ``ruler/<task>/<length>/search<i>``; QA: the first question,
    as RULER's search uses). See the module doc. Another ``draw`` searches on other fresh
    samples: where one sample's few tokens decide a whole increment, draws differ."""
    task = TASKS[task_name]
    budget = prompt_budget(task_name, length, tokenizer)
    step = ruler_step(task_name, length, budget)
    probes = itertools.count()
    prefix = f"ruler/{task_name}/{length}/" + (f"draw{draw}/" if draw else "")

    def fresh() -> Maker:
        return _maker(task_name, length, f"{prefix}search{next(probes)}", 0, tokenizer, qa)

    if task.family == "fwe":
        return fwe_size(fresh(), tokenizer.count, budget, step)
    # RULER's bound reads L less any chat template (its max_seq_length), not the budget
    limit = budget + task.tokens_to_generate
    probe = CWE_PROBE if task.family == "cwe" else step
    sample = fresh()
    # RULER's VT estimate leaves out the one-shot example (it counts it apart): with it, the
    # bound (3x) falls short of L at 8k
    example = tokenizer.count(sample.example) if task.family == "vt" else 0
    per_unit = (tokenizer.count(sample.prompt(probe).text) - example) / probe
    estimate = int(limit // per_unit) * 2 if task.family == "cwe" else int(limit / per_unit * 3)
    low, high, best = step, max(estimate, 2 * step), None
    while low <= high:
        middle = (low + high) // 2
        if tokenizer.count(fresh().prompt(middle).text) <= budget:
            best, low = middle, middle + 1
        else:
            high = middle - 1
    if best is None:  # not even one step fits: the smallest size (the needle alone, below
        return min(step, sample.minimum)  # TINY), or the step, which shrink then refuses
    return best


def fwe_size(maker: Maker, count: Callable[[str], int], budget: int, step: int) -> int:
    """FWE's word count: from B // 6 up by ``step`` while the prompt is shorter than B, then
    one step back (RULER counts the prompt with its answer prefix against B)."""
    words = budget // 6
    while count(maker.prompt(words).text) < budget:
        words += step
    return words - step


def shrink(drawn: Callable[[int], Maker], count: Callable[[str], int], budget: int, size: int,
           step: int, floor: int = 1) -> Fitted:
    """The sample at ``size``; while it overflows the budget, ``drawn(attempt)`` (a fresh
    sample, as RULER draws one) one ``step`` smaller. Drawing afresh matters: rebuilding the
    same draw smaller keeps the samples whose words or needles cost more tokens (CWE kept
    common words of 1.34 o200k tokens against RULER's 1.27). As RULER's, a size may fall
    under the step (500 words of essay at 1k); it stops where RULER would loop for ever, or
    under ``floor`` (the words CWE and FWE need)."""
    n, counts = size, 0
    while True:
        prompt = drawn(counts).prompt(n)
        tokens = count(prompt.text)
        counts += 1
        if tokens <= budget:
            return Fitted(n, prompt, tokens, counts, tokens / max(n, 1))
        if n - step < floor:  # (floor >= 1 but below TINY: never a size under 1)
            raise TooShort(f"{tokens} tokens at size {n} exceed the budget of {budget}, and "
                           f"RULER's step ({step}) leaves no smaller size")
        n -= step


def prompt_budget(task_name: str, length: int, tokenizer) -> int:
    """The prompt's share of L: RULER counts the prompt with its model template (here the
    endpoint's chat template, 0 tokens in o200k) plus ``tokens_to_generate``."""
    return length - TASKS[task_name].tokens_to_generate - getattr(tokenizer, "chat_overhead", 0)
