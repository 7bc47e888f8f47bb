"""Runs that stop when settled (``--settle``): where a length experiment still needs samples.

The rule reads the verdict (``verdicts.verdict``, unchanged) of the records so far:

- **settled** when the effective length's interval (the relative rule's, else the absolute
  rule's) spans at most one step of the grid of lengths: nothing more is needed;
- otherwise the lengths still **uncertain** are those whose own interval (Wilson for a rate,
  a bootstrap for a mean: ``stats.mean_interval``) holds the verdict's threshold (the bar the
  effective length is measured against); when none does (the bootstrap of the whole curve is
  wider than each length's), the lengths inside the effective length's interval and the one
  above it;
- with no effective length stated yet (too few samples, a base at chance) every length is
  uncertain: the budget (the grid) decides.

It assumes a curve that falls with length (rises, for a metric where lower is better): a
length far above the threshold, or far below it, is taken to stay there with more samples.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import pandas as pd

from reporting.analysis.curve_tables import scored
from reporting.analysis.stats import mean_interval
from reporting.analysis.verdict_settings import VerdictSettings
from reporting.analysis.verdicts import Verdict, verdict, without_control
from reporting.experiments import Experiment

SETTLED = "settled: the effective length's interval spans at most one step of the grid"


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
            f"not needed: length {length} is settled (its interval is clear of the threshold)"


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
           settings: VerdictSettings = VerdictSettings()) -> Decision:
    """Which lengths of ``grid`` still need samples, from the records in ``frame``."""
    everything = Decision(False, tuple(sorted(grid)), "no effective length stated yet")
    if frame.empty:
        return everything
    found = verdict(frame, experiment, settings)
    estimate = found.effective_length or found.absolute_effective_length
    bar = threshold(found)
    if estimate is None or bar is None or estimate.low is None or estimate.high is None:
        return everything
    span = grid_span(estimate.low, estimate.high, grid)
    if span is not None and span <= 1:
        return Decision(True, (), f"not needed: {SETTLED} "
                                  f"([{estimate.low:g}, {estimate.high:g}])")
    usable = scored(without_control(frame, experiment), experiment)
    straddling = []
    for length, part in usable.groupby(experiment.length, sort=True):
        _, low, high, n = mean_interval(part[experiment.metric].astype(float).tolist(),
                                        experiment.metric_kind)
        if n and low <= bar <= high:
            straddling.append(length)
    if not straddling:
        steps = sorted(grid)
        top = min(len(steps) - 1, steps.index(estimate.high) + 1) \
            if estimate.high in steps else len(steps) - 1
        straddling = [s for s in steps[:top + 1] if s >= estimate.low]
    return Decision(False, tuple(sorted(straddling)),
                    f"threshold {bar:g}: lengths {', '.join(map(str, straddling))} uncertain")
