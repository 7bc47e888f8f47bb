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
                             random_state=np.random.default_rng(seed))
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
