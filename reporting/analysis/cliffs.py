"""Cliffs: where an experiment's curve falls off between two neighbouring lengths.

Context Arena's rule: a fall of more than ``CLIFF_SHARE`` (30%) of the shorter length's
score, relative to it, between two neighbouring lengths of the curve. Here it must also be
more than noise: the two points' 95% intervals (Wilson for rates, bootstrap for means, as
the curve table shows them) must not overlap. The curve is the one the terminal prints:
the headline metric at each length, pooled over the rest of the grid, the experiment's
control records left out. For a metric where lower is better a cliff is the same rise.
Every experiment with a length axis gets the finding, in the terminal, summary.json and
report.html; a curve without a cliff says nothing.
"""

from __future__ import annotations

import pandas as pd

from reporting.analysis.curve_tables import CurvePoint, curve, value_text
from reporting.analysis.verdicts import without_control
from reporting.experiments import Experiment

CLIFF_SHARE = 0.30
RULE = (f"a relative fall of more than {CLIFF_SHARE:.0%} between neighbouring lengths, "
        "their 95% intervals apart (Context Arena's cliff, with intervals)")


def cliffs(points: list[CurvePoint], higher_is_better: bool = True,
           share: float = CLIFF_SHARE) -> list[dict]:
    """Each neighbouring pair of scored points whose score falls by more than ``share`` of
    the shorter one's, with intervals that do not overlap."""
    shown = [p for p in points if p.mean is not None and p.n]
    found = []
    sign = 1 if higher_is_better else -1
    for before, after in zip(shown, shown[1:]):
        if before.mean <= 0 or None in (before.low, before.high, after.low, after.high):
            continue
        fall = sign * (before.mean - after.mean) / before.mean
        apart = after.high < before.low if higher_is_better else after.low > before.high
        if fall > share and apart:
            found.append({"from": before.value, "to": after.value,
                          "from_mean": before.mean, "to_mean": after.mean,
                          "from_ci": [before.low, before.high], "to_ci": [after.low, after.high],
                          "from_n": before.n, "to_n": after.n, "relative_fall": fall})
    return found


def cliff_findings(frame: pd.DataFrame, experiment: Experiment) -> dict:
    """{"rule", "cliffs", "lines"} where the experiment's curve has a cliff, else {}."""
    if experiment.length is None or frame.empty or experiment.length not in frame:
        return {}
    points = curve(without_control(frame, experiment), experiment, experiment.length)
    found = cliffs(points, experiment.higher_is_better)
    if not found:
        return {}
    lines = [f"cliff: {experiment.metric.split('.')[-1]} {c['from_mean']:.3f} "
             f"[{c['from_ci'][0]:.3f}, {c['from_ci'][1]:.3f}] (n={c['from_n']}) at "
             f"{value_text(c['from'])} -> {c['to_mean']:.3f} [{c['to_ci'][0]:.3f}, "
             f"{c['to_ci'][1]:.3f}] (n={c['to_n']}) at {value_text(c['to'])}, a "
             f"{c['relative_fall']:.0%} relative fall ({RULE})" for c in found]
    return {"rule": RULE, "share": CLIFF_SHARE, "cliffs": found, "lines": lines}
