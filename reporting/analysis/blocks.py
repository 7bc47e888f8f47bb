"""Samples the provider blocked, per cell and per experiment, and the rate with them.

A block (the outcome ``blocked``: a refusal, a safety or recitation filter, a blocked prompt,
a malformed function call, in the provider's words in ``details.block``) is neither a wrong
answer nor an error: the headline is computed over the answered (``ok``) samples, as for
every outcome but ``ok``, and beside it the same rate with each block scored 0, the score an
empty answer would get, so a curve that falls because a filter fires reads as such.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from reporting.analysis.stats import mean_interval
from reporting.experiments import Experiment

BLOCKED = "blocked"
BLOCK_COLUMN = "details.block"


def blocked(frame: pd.DataFrame) -> pd.DataFrame:
    """The blocked samples of ``frame``."""
    if frame.empty or "outcome" not in frame:
        return frame.iloc[0:0]
    return frame[frame["outcome"] == BLOCKED]


def with_blocks(values: list, blocks: int, experiment: Experiment) -> dict | None:
    """The headline over ``values`` and ``blocks`` more samples scored 0 (mean, 95% interval
    and n); None where nothing was blocked or 0 is not the worst score (a metric where lower
    is better has no score a block stands for)."""
    if not blocks or not experiment.higher_is_better:
        return None
    mean, low, high, n = mean_interval([*values, *[0.0] * blocks], experiment.metric_kind)
    return {"mean": _rounded(mean), "ci_low": _rounded(low), "ci_high": _rounded(high), "n": n}


def block_findings(frame: pd.DataFrame, experiment: Experiment) -> dict:
    """The experiment's blocks: how many, by what, the rate without and with them, and the
    lines that say so ({}: none blocked)."""
    found = blocked(frame)
    if found.empty:
        return {}
    by = Counter(str(b) for b in found.get(BLOCK_COLUMN, pd.Series(dtype=object)).fillna("?"))
    ok = frame[frame["outcome"] == "ok"]
    values = ok[experiment.metric].dropna().tolist() if experiment.metric in ok else []
    mean, low, high, n = mean_interval(values, experiment.metric_kind)
    without = {"mean": _rounded(mean), "ci_low": _rounded(low), "ci_high": _rounded(high),
               "n": n}
    with_them = with_blocks(values, len(found), experiment)
    metric = experiment.metric.split(".")[-1]
    named = ", ".join(f"{reason} {count}" for reason, count in sorted(by.items()))
    line = (f"{len(found)} of {len(frame)} samples blocked by the provider ({named}): not "
            f"scored; {metric} {_shown(without)} over the {n} answered")
    if with_them is not None:
        line += f", {_shown(with_them)} with each block scored 0"
    return {"blocked": len(found), "by": dict(sorted(by.items())), "without_blocked": without,
            "with_blocked": with_them, "lines": [line]}


def interval_text(found: dict | None) -> str:
    """``0.750 [0.470, 0.917]``, or "—"."""
    return "—" if not found or found["mean"] is None else _shown(found)


def _shown(found: dict) -> str:
    if found["mean"] is None:
        return "— (none answered)"
    return f"{found['mean']:.3f} [{found['ci_low']:.3f}, {found['ci_high']:.3f}]"


def _rounded(value: float) -> float | None:
    return None if value != value else round(float(value), 6)
