"""The rules behind a verdict (effective length, area under the curve) and their options.

A light module (no numpy, pandas or scipy): the pytest plugin loads it on every xdist worker.
The same options exist on ``pytest`` and on ``python -m reporting``; without them,
``report`` and ``merge`` re-judge a stored run by the rules it was run with (its options).
"""

from __future__ import annotations

import argparse
import dataclasses
import math

RELATIVE = 0.85  # NoLiMa: the longest length still scoring >= 85% of the short-context score
# RULER's fixed bar was Llama-2-7B's score at 4k (85.6%); ours applies to 0/1 ("rate")
# metrics unless an experiment is given its own (a continuous metric has no natural bar).
ABSOLUTE_FOR_RATES = 0.85
# Fewest scored samples a length needs to enter a verdict. The percentile bootstrap interval
# of a mean behaves like the normal-approximation one, which for a 0/1 score needs n x p >= 5
# and n x (1 - p) >= 5: at least 10 samples even at p = 1/2. With fewer, a 95% interval is not
# one (a length whose few samples agree resamples to a single value).
MIN_SAMPLES = 10

# The verdict's numbers, as the gate names them (``--fail-on niah.effective_length:-20%``).
EFFECTIVE_LENGTH = "effective_length"
ABSOLUTE_EFFECTIVE_LENGTH = "absolute_effective_length"
LENGTH_AUC = "length_auc"
VERDICT_METRICS = (EFFECTIVE_LENGTH, ABSOLUTE_EFFECTIVE_LENGTH, LENGTH_AUC)


class SettingsError(ValueError):
    """A malformed verdict option: one line naming the fix."""


@dataclasses.dataclass(frozen=True)
class VerdictSettings:
    relative: float = RELATIVE
    # (experiment or "" for every experiment, value); the last one given wins
    absolute: tuple[tuple[str, float], ...] = ()
    # how many of the shortest lengths make the base score; None: the shortest quarter
    base_lengths: int | None = None
    # a length with fewer scored samples is left out of the verdict (and named)
    min_samples: int = MIN_SAMPLES

    def __post_init__(self) -> None:
        if not 0 < self.relative <= 1:
            raise SettingsError(f"--verdict-relative {self.relative}: give a fraction in "
                                "(0, 1], e.g. 0.85 (85% of the short-context score)")
        if self.base_lengths is not None and self.base_lengths < 1:
            raise SettingsError(f"--verdict-base-lengths {self.base_lengths}: give at least 1")
        if self.min_samples < 1:
            raise SettingsError(f"--verdict-min-samples {self.min_samples}: give at least 1")

    def absolute_for(self, experiment) -> float | None:
        """The absolute bar of ``experiment``: its own, else the global one, else the default."""
        chosen = {name: value for name, value in self.absolute}
        if experiment.name in chosen:
            return chosen[experiment.name]
        if "" in chosen:
            return chosen[""]
        if experiment.absolute is not None:
            return experiment.absolute
        return ABSOLUTE_FOR_RATES if experiment.metric_kind == "rate" else None

    def base_count(self, lengths: int) -> int:
        """How many of ``lengths`` tested lengths make the base score (at least one)."""
        if self.base_lengths is not None:
            return min(self.base_lengths, lengths)
        return max(1, -(-lengths // 4))  # the shortest quarter, rounded up

    def to_dict(self) -> dict:
        return {"relative": self.relative, "base_lengths": self.base_lengths,
                "min_samples": self.min_samples,
                "absolute": {name or "*": value for name, value in self.absolute}}


def parse_absolute(text: str) -> tuple[str, float]:
    """``0.5`` (every experiment) or ``niah=0.5`` (one experiment)."""
    name, sep, value = text.strip().rpartition("=")
    try:
        bar = float(value)
    except ValueError:
        raise SettingsError(f"--verdict-absolute {text!r}: write VALUE or EXPERIMENT=VALUE, "
                            "e.g. 'niah=0.5'") from None
    if not math.isfinite(bar):  # float() takes nan and inf
        raise SettingsError(f"--verdict-absolute {text!r}: give a finite number (not NaN or "
                            "Infinity)")
    return (name.strip() if sep else "", bar)


_OPTIONS = ("verdict_relative", "verdict_absolute", "verdict_base_lengths",
            "verdict_min_samples")


def from_values(relative: float | None, absolute: list[str] | None,
                base_lengths: int | None, min_samples: int | None = None) -> VerdictSettings:
    return VerdictSettings(relative=RELATIVE if relative is None else relative,
                           absolute=tuple(parse_absolute(t) for t in absolute or ()),
                           base_lengths=base_lengths,
                           min_samples=MIN_SAMPLES if min_samples is None else min_samples)


def from_pytest(config) -> VerdictSettings:
    return from_values(*(config.getoption(name) for name in _OPTIONS))


def from_args(args: argparse.Namespace) -> VerdictSettings | None:
    """The rules given on the command line; None when no verdict option was given."""
    values = tuple(getattr(args, name) for name in _OPTIONS)
    return None if all(v is None for v in values) else from_values(*values)


def from_run_options(options: dict) -> VerdictSettings:
    """The rules a stored run was judged by (its pytest options), else the defaults."""
    return from_values(*(options.get(name) for name in _OPTIONS))


_HELP = {
    "relative": "effective length, relative rule: the longest length whose headline mean "
                "stays >= this fraction of the mean at the shortest lengths (default: 0.85)",
    "absolute": "effective length, absolute rule: the bar the headline mean must stay above, "
                "VALUE for every experiment or EXPERIMENT=VALUE (repeatable; default: 0.85 for "
                "0/1 metrics, none for continuous ones)",
    "base_lengths": "how many of the shortest tested lengths make the base score of the "
                    "relative rule (default: the shortest quarter, at least one)",
    "min_samples": "fewest scored samples a length needs to enter a verdict; a thinner length "
                   f"is left out and named, and with none left there is no verdict (default: "
                   f"{MIN_SAMPLES})",
}


def add_options(add) -> None:
    """Add the options with ``add`` (a pytest group's ``addoption`` or argparse's)."""
    add("--verdict-relative", type=float, default=None, metavar="FRACTION",
        help=_HELP["relative"])
    add("--verdict-absolute", action="append", default=None, metavar="[EXPERIMENT=]VALUE",
        help=_HELP["absolute"])
    add("--verdict-base-lengths", type=int, default=None, metavar="K",
        help=_HELP["base_lengths"])
    add("--verdict-min-samples", type=int, default=None, metavar="N",
        help=_HELP["min_samples"])
