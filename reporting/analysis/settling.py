"""Runs that stop when settled (``--settle``): where a length experiment still needs samples.

The rule reads the verdict (``verdicts.verdict``, unchanged) of the records so far:

- **settled** when the effective length's interval (the relative rule's, else the absolute
  rule's) spans at most ``steps`` steps of the grid of lengths (0 by default: a single
  length, the tightest a grid can state): nothing more is needed;
- otherwise the lengths still **uncertain** are those that move the interval: in the
  verdict's own bootstrap (``verdicts.resampled_curve``: the same resamples) a length whose
  pass or failure of the bar flips in more than ``FLIPS`` of the resamples, up to the first
  length above the interval (a length past a failure that holds in every resample cannot
  move the effective length). The base lengths set the bar, so while any length is
  uncertain they keep pace with it: each gets samples too while it has no more than it;
- with no effective length stated yet (too few samples, a base at chance) every length is
  uncertain: the budget (the grid) decides.

It assumes a curve that falls with length (rises, for a metric where lower is better): a
length whose pass holds in (nearly) every resample is taken to keep it with more samples.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import pandas as pd

from reporting.analysis.verdict_settings import VerdictSettings
from reporting.analysis.verdicts import ResampledCurve, Verdict, resampled_curve, verdict
from reporting.experiments import Experiment

FLIPS = 0.01  # a length that flips in at most 1% of the resamples no longer moves the
# 95% interval (2.5% a side) much; below 2.5%, so a length is sampled a little past the point
# where it alone would clear the interval's tail


def settled_text(steps: int) -> str:
    return "settled: the effective length's interval is " + (
        "one length of the grid" if steps == 0 else f"within {steps} step(s) of the grid")


@dataclasses.dataclass(frozen=True)
class Decision:
    settled: bool
    uncertain: tuple = ()  # the lengths that still get samples (none once settled)
    why: str = ""

    def needs(self, length) -> bool:
        return not self.settled and length in self.uncertain

    def reason(self, length) -> str:
        """Why a sample at ``length`` is not needed (its record's reason)."""
        return self.why if self.settled else \
            f"not needed: length {length} is settled (its pass or failure holds in the resamples)"


def threshold(found: Verdict) -> float | None:
    """The bar the stated effective length is measured against, or None."""
    if found.effective_length is not None and found.base is not None \
            and found.base.value is not None:
        relative = found.relative if found.higher_is_better else 2 - found.relative
        return relative * found.base.value
    if found.absolute_effective_length is not None:
        return found.absolute
    return None


def grid_span(low, high, grid: Sequence) -> int | None:
    """How many steps of ``grid`` the interval [low, high] spans (None: off the grid); 0, an
    effective length below the shortest length, is the step below it."""
    steps = [0, *sorted(grid)]
    if low not in steps or high not in steps:
        return None
    return steps.index(high) - steps.index(low)


def decide(frame: pd.DataFrame, experiment: Experiment, grid: Sequence,
           settings: VerdictSettings = VerdictSettings(), steps: int = 0) -> Decision:
    """Which lengths of ``grid`` still need samples, from the records in ``frame``."""
    everything = Decision(False, tuple(sorted(grid)), "no effective length stated yet")
    if frame.empty:
        return everything
    found = verdict(frame, experiment, settings)
    relative = found.effective_length is not None
    estimate = found.effective_length or found.absolute_effective_length
    bar = threshold(found)
    if estimate is None or bar is None or estimate.low is None or estimate.high is None:
        return everything
    span = grid_span(estimate.low, estimate.high, grid)
    if span is not None and span <= steps:
        return Decision(True, (), f"not needed: {settled_text(steps)} "
                                  f"([{estimate.low:g}, {estimate.high:g}])")
    curve = resampled_curve(frame, experiment, settings)
    uncertain = moving_lengths(curve, relative, estimate.high)
    return Decision(False, tuple(uncertain),
                    f"threshold {bar:g}: lengths {', '.join(map(str, uncertain))} uncertain")


def moving_lengths(curve: ResampledCurve, relative: bool, high) -> list:
    """The lengths whose samples can still move the effective length's interval, ascending."""
    observed, resampled = curve.passes(relative)
    flips = (resampled != observed[None, :]).mean(axis=0)
    # the lengths up to the first one above the interval's top (0: below the shortest)
    top = curve.lengths.index(high) + 1 if high in curve.lengths else 0
    window = range(min(top, len(curve.lengths) - 1) + 1)
    moving = [i for i in window if flips[i] > FLIPS] or \
        [i for i in window if flips[i] > 0] or list(window)
    if relative:  # the bar is the base's mean: it keeps pace with what is measured against it
        most = max(curve.counts[i] for i in moving)
        moving += [i for i in range(curve.base_k) if curve.counts[i] <= most]
    return sorted({curve.lengths[i] for i in moving})
