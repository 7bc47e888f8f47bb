"""Intervals and paired tests, from scipy rather than by hand."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from scipy import stats

CONFIDENCE = 0.95


def wilson_interval(successes: int, total: int, confidence: float = CONFIDENCE
                    ) -> tuple[float, float]:
    """Wilson score interval for a rate; (nan, nan) with no trials."""
    if total == 0:
        return (math.nan, math.nan)
    ci = stats.binomtest(int(successes), int(total)).proportion_ci(
        confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def bootstrap_interval(values: Sequence[float], confidence: float = CONFIDENCE,
                       resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean (seeded: reports are reproducible)."""
    data = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if data.size == 0:
        return (math.nan, math.nan)
    if data.size == 1 or np.all(data == data[0]):
        return (float(data[0]), float(data[0]))
    result = stats.bootstrap((data,), np.mean, confidence_level=confidence,
                             n_resamples=resamples, method="percentile",
                             rng=np.random.default_rng(seed))  # scipy >= 1.15
    return (float(result.confidence_interval.low), float(result.confidence_interval.high))


def mean_interval(values: Sequence[float], kind: str) -> tuple[float, float, float, int]:
    """(mean, low, high, n) with Wilson for 0/1 rates and a bootstrap otherwise."""
    data = [float(v) for v in values if v is not None and not _isnan(v)]
    n = len(data)
    if n == 0:
        return (math.nan, math.nan, math.nan, 0)
    mean = sum(data) / n
    if kind == "rate":
        low, high = wilson_interval(round(sum(data)), n)
    else:
        low, high = bootstrap_interval(data)
    return (mean, low, high, n)


def mcnemar(only_first: int, only_second: int) -> float:
    """Exact McNemar p-value from the discordant pair counts (a two-sided binomial test)."""
    discordant = int(only_first) + int(only_second)
    if discordant == 0:
        return 1.0
    return float(stats.binomtest(int(only_first), discordant, 0.5).pvalue)


def _isnan(value) -> bool:
    try:
        return math.isnan(value)
    except TypeError:
        return False


# -- paired comparisons between two runs on the same stimuli -----------------------------
def is_binary(values: Sequence[float]) -> bool:
    """True when every value is 0 or 1 (booleans included): a rate, tested with McNemar."""
    return all(float(v) in (0.0, 1.0) for v in values)


def sign_test(differences: Sequence[float]) -> float:
    """Exact two-sided sign test on paired differences (ties carry no information)."""
    data = np.asarray(differences, dtype=float)
    return mcnemar(int((data > 0).sum()), int((data < 0).sum()))


def paired_test(baseline: Sequence[float], candidate: Sequence[float]) -> tuple[str, float]:
    """(test name, two-sided p) for paired scores: exact McNemar on 0/1 scores, else a sign test.

    Both are exact binomial tests on the pairs that changed, so they stay calibrated with the
    handful of samples a grid cell has (a paired bootstrap p-value is not, below ~20 pairs).
    """
    base = np.asarray(baseline, dtype=float)
    cand = np.asarray(candidate, dtype=float)
    if base.shape != cand.shape:
        raise ValueError("paired scores need as many baseline values as candidate values")
    if is_binary(base) and is_binary(cand):
        return "mcnemar", mcnemar(int(((cand > base)).sum()), int((cand < base).sum()))
    return "sign", sign_test(cand - base)


def paired_difference_interval(baseline: Sequence[float], candidate: Sequence[float],
                               confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Paired bootstrap interval of the mean difference (candidate - baseline).

    Resampling the per-sample differences is resampling the pairs: the pairing is kept. The
    differences are resampled in a canonical order, sorted by value, so the interval depends
    on the pairs alone, never on the order the rows came in (a seeded resample of another
    order draws other pairs).
    """
    differences = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    return bootstrap_interval(np.sort(differences).tolist(), confidence)


def paired_rates(baseline: Sequence[bool], candidate: Sequence[bool],
                 names: tuple[str, str] = ("baseline", "candidate")) -> dict:
    """Two conditions' 0/1 scores on the same samples (pair i: ``baseline[i]``,
    ``candidate[i]``): each rate with its Wilson interval, the gap (candidate - baseline) with
    its paired bootstrap interval, McNemar's exact p, and the pairs right under one only.
    Keyed by ``names`` (LongMemEval's focused vs full, an agent's condition vs full)."""
    n = len(baseline)
    found: dict = {"pairs": n}
    for name, values in zip(names, (baseline, candidate)):
        right = int(sum(values))
        low, high = wilson_interval(right, n)
        found[name] = {"correct": right, "n": n, "accuracy": right / n if n else math.nan,
                       "ci": [low, high]}
    if n:
        test, p = paired_test(list(baseline), list(candidate))
        low, high = paired_difference_interval(list(baseline), list(candidate))
        first, second = names
        found.update(gap=found[second]["accuracy"] - found[first]["accuracy"],
                     gap_ci=[low, high], test=test, p=p,
                     **{f"only_{second}": int(sum(b and not a for a, b in zip(baseline, candidate))),
                        f"only_{first}": int(sum(a and not b for a, b in zip(baseline, candidate)))})
    return found


def adjust_pvalues(pvalues: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (scipy), for testing many grid cells at once."""
    if len(pvalues) == 0:
        return []
    return [float(p) for p in stats.false_discovery_control(np.asarray(pvalues, dtype=float),
                                                             method="bh")]
