"""Gate thresholds (``--fail-on EXPERIMENT[.METRIC]:DELTA``): parsing and checking.

A light module (no pandas, no scipy): the pytest plugin checks thresholds at configure time on
the controller, and xdist workers import the plugin. The gate itself is ``gate.py``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Sequence

from reporting.analysis.verdict_settings import VERDICT_METRICS

if TYPE_CHECKING:
    from reporting.gating.compare import CellDelta
    from reporting.experiments import Experiment

REGRESSION_EXIT = 7
NOT_COMPARABLE_EXIT = 8
DEFAULT_ALPHA = 0.05
_THRESHOLD = re.compile(r"^(?P<experiment>[A-Za-z_][\w-]*)(?:\.(?P<metric>[\w.]+))?:"
                        r"(?P<delta>[+-]?(?:\d+\.?\d*|\.\d+))(?P<percent>%)?$")


class GateUsageError(ValueError):
    """Bad gate input (a malformed threshold, an unknown run): one line naming the fix."""


@dataclasses.dataclass(frozen=True)
class Threshold:
    experiment: str
    metric: str | None  # None: the experiment's headline metric
    delta: float  # signed; a fraction when relative
    relative: bool
    text: str

    def exceeded(self, delta: CellDelta) -> bool:
        change = delta.delta
        if self.relative:
            if delta.baseline == 0:
                change = math.copysign(math.inf, change) if change else 0.0
            else:
                change = change / abs(delta.baseline)
        return change < self.delta if self.delta < 0 else change > self.delta


def parse_threshold(text: str) -> Threshold:
    match = _THRESHOLD.match(text.strip())
    if not match:
        raise GateUsageError(
            f"--fail-on {text!r} is not EXPERIMENT[.METRIC]:DELTA; write e.g. "
            "'niah.accuracy:-0.05' (an absolute drop) or 'repeated_words:-5%' (relative)")
    delta = float(match["delta"])
    if delta == 0:
        raise GateUsageError(f"--fail-on {text!r}: the delta must not be 0; a negative delta "
                             "gates a drop (higher is better), a positive one a rise")
    relative = match["percent"] is not None
    return Threshold(match["experiment"], match["metric"], delta / 100 if relative else delta,
                     relative, text.strip())


def check_thresholds(thresholds: Sequence[Threshold], experiments: dict[str, Experiment]) -> None:
    for threshold in thresholds:
        if threshold.experiment not in experiments:
            raise GateUsageError(
                f"--fail-on {threshold.text!r}: no experiment {threshold.experiment!r}; "
                f"choose one of {', '.join(sorted(experiments)) or '(none declared)'}")
        if threshold.metric in VERDICT_METRICS \
                and experiments[threshold.experiment].length is None:
            raise GateUsageError(
                f"--fail-on {threshold.text!r}: {threshold.experiment} has no length axis, so "
                f"it has no {threshold.metric}; gate its headline metric instead (e.g. "
                f"'{threshold.experiment}:-5%')")
