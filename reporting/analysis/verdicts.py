"""One verdict per model and experiment: where its headline metric stops holding up.

From one run's records (one model), for an experiment that declares a length axis
(``Experiment.length``), the headline metric's mean at each tested length (pooled over the
rest of the grid: depths, modes, positions) gives a degradation curve, and from it:

- **effective length, relative rule** (NoLiMa): the longest length L such that the mean at
  every tested length up to L stays >= ``relative`` (0.85) x the *base score*, the mean at the
  shortest lengths (``VerdictSettings.base_count``);
- **effective length, absolute rule** (RULER): the same with a fixed bar (``absolute``);
- **length AUC** (contextarena): the area under mean-versus-log(length) divided by the
  log-length span, so a flat curve at v scores v (in the metric's own unit).

For a metric where lower is better (``higher_is_better=False``) "holding up" means staying
<= (2 - relative) x the base score (a rise of at most 15%), or <= the absolute bar.

An effective length is 0 when the shortest tested length already fails, and *censored* when
every tested length passes: the model may hold up beyond the longest length tried, so it is
shown as ">= L". Each number has a 95% percentile bootstrap interval that resamples the
scored samples within each length (a stratified bootstrap: ``scipy.stats.bootstrap`` with one
sample per length, seeded), and the sample count. Effective-length intervals are taken on
the grid of tested lengths (lower and higher order statistics, never interpolated).

A caveat the intervals share with every percentile bootstrap: a length whose few samples all
agree (3 of 3 right) always resamples to the same mean, so with a handful of samples per
length the intervals are narrower than the per-cell Wilson intervals suggest; read them with
the sample counts beside them.

No verdict from data that cannot support one (``no_verdict``: verdict number -> reason):
- a length with fewer than ``min_samples`` scored samples is left out of the curve and named
  (``thin_lengths``), as a length with none is; with no length left, or none scored, no
  number is stated ("too few samples", "no length scored");
- the relative rule needs a base above the experiment's chance level (``Experiment.chance``)
  and above 0 (85% of 0 is no bar): at or below it every length would "hold up" ("base
  score 0"). The absolute rule and the AUC do not read the base: they are still stated;
- the absolute rule needs a bar (and one past chance); the AUC needs two lengths.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from reporting.analysis.curve_tables import scored
from reporting.experiments import Experiment, length_unit
from reporting.analysis.stats import CONFIDENCE, mean_interval
from reporting.analysis.summary import plain_value
from reporting.analysis.verdict_settings import (ABSOLUTE_EFFECTIVE_LENGTH, EFFECTIVE_LENGTH, LENGTH_AUC,
                               VerdictSettings)

RESAMPLES = 2000
SEED = 0
BATCH_SCORES = 10_000_000
_TOLERANCE = 1e-12  # 0.85 x 1.0 must pass at exactly 0.85
NO_LENGTH_AXIS = "no length axis"
NO_VERDICT = "no verdict"
# why a verdict number is not stated (the first words of its "no verdict (...)")
TOO_FEW_SAMPLES = "too few samples"
MORE_SAMPLES = "run more samples or lower --verdict-min-samples"
NO_LENGTH_SCORED = "no length scored"
NO_BAR = "no bar for this metric"
ONE_LENGTH = "one length"
NUMBERS = (EFFECTIVE_LENGTH, ABSOLUTE_EFFECTIVE_LENGTH, LENGTH_AUC)


class NoVerdict(ValueError):
    """A verdict number the data cannot support, asked for by the gate."""


@dataclasses.dataclass
class Estimate:
    value: float | None
    low: float | None
    high: float | None

    def to_dict(self) -> dict:
        return {"value": plain_value(self.value), "low": plain_value(self.low), "high": plain_value(self.high)}


@dataclasses.dataclass
class Verdict:
    experiment: str
    metric: str
    higher_is_better: bool
    length_axis: str | None
    n: int  # scored samples behind the verdict
    overall: Estimate  # the headline mean over every scored sample
    lengths: list = dataclasses.field(default_factory=list)  # tested lengths, ascending
    counts: list = dataclasses.field(default_factory=list)  # scored samples per length
    means: list = dataclasses.field(default_factory=list)
    unscored_lengths: list = dataclasses.field(default_factory=list)  # none scored there
    base_lengths: list = dataclasses.field(default_factory=list)
    base: Estimate | None = None
    relative: float | None = None
    effective_length: Estimate | None = None
    effective_length_censored: bool = False  # every tested length passed
    absolute: float | None = None
    absolute_effective_length: Estimate | None = None
    absolute_effective_length_censored: bool = False
    length_auc: Estimate | None = None
    note: str = ""
    chance: float | None = None  # the experiment's chance level
    min_samples: int = 1
    thin_lengths: list = dataclasses.field(default_factory=list)  # left out: too few samples
    thin_counts: list = dataclasses.field(default_factory=list)
    # verdict number (``effective_length``, ...) -> why it is not stated ("base score 0")
    no_verdict: dict = dataclasses.field(default_factory=dict)
    length_unit: str = ""  # what the lengths count ("o200k_base tokens", "words")

    def number(self, name: str) -> float | None:
        """The point value of a verdict metric (``effective_length``, ...), for the gate."""
        estimate = getattr(self, name, None)
        return None if estimate is None else estimate.value

    def refusal(self) -> str | None:
        """Why the whole verdict is withheld (every number refused for one reason), or None."""
        reasons = {self.no_verdict.get(name) for name in NUMBERS}
        return reasons.pop() if len(reasons) == 1 and None not in reasons else None

    def why(self, name: str, advice: bool = True) -> str | None:
        """``no verdict (reason): explanation`` for a number that is not stated, else None;
        ``advice=False`` leaves out what to do (a table that says it once, below)."""
        reason = self.no_verdict.get(name)
        if reason is None:
            return None
        if reason == TOO_FEW_SAMPLES:
            explained = (f"every scored length has fewer than {self.min_samples} scored "
                         f"samples ({_counted(self.thin_lengths, self.thin_counts)})"
                         + (f"; {MORE_SAMPLES}" if advice else ""))
        elif reason == NO_LENGTH_SCORED:
            explained = f"no sample with a length ({self.length_axis}) was scored"
        elif reason.startswith("base score"):
            level = "0" if self.chance is None else f"chance ({self.chance:g})"
            explained = (f"the mean at {_join(self.base_lengths)} is at or below {level}, so "
                         "every length would hold up relative to it")
        elif reason == NO_BAR:
            explained = "give one with --verdict-absolute EXPERIMENT=VALUE"
        elif reason == ONE_LENGTH:
            explained = "an area needs two lengths"
        else:
            explained = ""
        return f"{NO_VERDICT} ({reason})" + (f": {explained}" if explained else "")

    def to_dict(self) -> dict:
        out = {}
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, Estimate):
                value = value.to_dict()
            elif field.name == "means":
                value = [round(float(v), 6) for v in value]
            elif isinstance(value, list):
                value = [plain_value(v) for v in value]
            out[field.name] = value
        return out

    def text(self) -> str:
        """The verdict for the terminal: each number with its 95% interval, rule and count."""
        if self.length_axis is None:
            return (f"verdict: {NO_LENGTH_AXIS}; {self.metric} over all cells "
                    f"{estimate_text(self.overall)} (n={self.n})")
        if self.refusal():
            return f"verdict: {self.why(EFFECTIVE_LENGTH)} (n={self.n})"
        bar = ">=" if self.higher_is_better else "<="
        factor = self.relative if self.higher_is_better else 2 - self.relative
        unit = f" {self.length_unit}" if self.length_unit else ""
        lines = [f"verdict (n={sum(self.counts)} scored samples over {len(self.lengths)} "
                 f"lengths, {_length(self.lengths[0])} to {_length(self.lengths[-1])}{unit}; "
                 "95% intervals):"]
        if self.effective_length is None:
            lines.append(f"  effective length, relative: {self.why(EFFECTIVE_LENGTH)}")
        else:
            lines.append(f"  effective length, relative: "
                         f"{self._length(self.effective_length, self.effective_length_censored)}"
                         f"  (mean {bar} {factor:g} x base {estimate_text(self.base)}, the mean "
                         f"at {_join(self.base_lengths)})")
        if self.absolute_effective_length is not None:
            shown = self._length(self.absolute_effective_length,
                                 self.absolute_effective_length_censored)
            lines.append(f"  effective length, absolute: {shown}  (mean {bar} "
                         f"{self.absolute:g})")
        else:
            lines.append(f"  effective length, absolute: {self.why(ABSOLUTE_EFFECTIVE_LENGTH)}")
        lines.append(f"  length AUC: {self.number_text(LENGTH_AUC)}")
        lines += [f"  {line}" for line in self.left_out()]
        return "\n".join(lines)

    def number_text(self, name: str) -> str:
        """One verdict number as the tables show it: the value and interval, or why not."""
        if name in self.no_verdict:
            return f"{NO_VERDICT} ({self.no_verdict[name]})"
        if name == LENGTH_AUC:
            return estimate_text(self.length_auc)
        censored = getattr(self, f"{name}_censored")
        return self._length(getattr(self, name), censored)

    def left_out(self) -> list[str]:
        """The tested lengths the verdict does not read, and why."""
        lines = []
        if self.thin_lengths:
            lines.append(f"lengths left out, fewer than {self.min_samples} scored samples: "
                         f"{_counted(self.thin_lengths, self.thin_counts)}")
        if self.unscored_lengths:
            lines.append(f"lengths with no scored sample: {_join(self.unscored_lengths)}")
        return lines

    def _length(self, estimate: Estimate, censored: bool) -> str:
        return length_text(estimate, censored, self.lengths)


def length_text(estimate: Estimate, censored: bool, lengths: Sequence) -> str:
    """``5,000 [1,000, 10,000]``; ``>= 10,000`` when censored; ``< 500`` when none passed."""
    def one(value):
        if value is None:
            return "—"
        if value == 0 and lengths:
            return f"< {_length(lengths[0])}"
        return _length(value)
    shown = f">= {_length(estimate.value)}" if censored else one(estimate.value)
    return f"{shown} [{one(estimate.low)}, {one(estimate.high)}]"


# -- computing ---------------------------------------------------------------------------
def verdict(frame: pd.DataFrame, experiment: Experiment,
            settings: VerdictSettings = VerdictSettings()) -> Verdict:
    """The verdict of one experiment from one run's records (any other experiments ignored,
    and the experiment's control records)."""
    frame = without_control(frame, experiment)
    usable = scored(frame, experiment)
    values = usable[experiment.metric].astype(float) if not usable.empty else pd.Series([])
    mean, low, high, n = mean_interval(values.tolist(), experiment.metric_kind)
    found = Verdict(experiment.name, experiment.metric.split(".")[-1],
                    experiment.higher_is_better, experiment.length, n,
                    Estimate(_finite(mean), _finite(low), _finite(high)),
                    chance=experiment.chance, min_samples=settings.min_samples)
    if experiment.length is None:
        found.note = NO_LENGTH_AXIS
        return found
    mine = frame[frame["experiment"] == experiment.name] if not frame.empty else frame
    found.length_unit = length_unit(experiment, mine)
    if experiment.length not in mine:
        found.no_verdict = dict.fromkeys(NUMBERS, NO_LENGTH_SCORED)
        return found
    scored_lengths = set(usable[experiment.length]) if not usable.empty else set()
    found.unscored_lengths = sorted(plain_value(v) for v in set(mine[experiment.length].dropna())
                                    - scored_lengths)
    if usable.empty:
        found.no_verdict = dict.fromkeys(NUMBERS, NO_LENGTH_SCORED)
        return found
    groups, thin = length_groups(usable, experiment, settings)
    found.thin_lengths = [plain_value(length) for length, _ in thin]
    found.thin_counts = [_size(values) for _, values in thin]
    if not groups:
        found.no_verdict = dict.fromkeys(NUMBERS, TOO_FEW_SAMPLES)
        return found
    lengths = [length for length, _ in groups]
    found.lengths, found.counts = [plain_value(v) for v in lengths], [_size(v) for _, v in groups]
    found.means = [curve_mean(v) for _, v in groups]
    rules = _Rules.of(experiment, settings, np.asarray(lengths, dtype=float))
    found.base_lengths = found.lengths[:rules.base_k]
    found.relative, found.absolute = settings.relative, rules.absolute
    observed = rules.statistics(np.asarray(found.means)[None, :])[:, 0]
    distribution = curve_bootstrap([v for _, v in groups], rules.statistics)
    base, rel, abs_, auc = observed
    low, high = _interval(distribution)
    found.base = Estimate(float(base), low[0], high[0])
    found.no_verdict = rules.refusals(float(base))
    if EFFECTIVE_LENGTH not in found.no_verdict:
        found.effective_length = rules.length_estimate(rel, distribution[1])
        found.effective_length_censored = int(rel) == len(lengths) - 1
    if ABSOLUTE_EFFECTIVE_LENGTH not in found.no_verdict:
        found.absolute_effective_length = rules.length_estimate(abs_, distribution[2])
        found.absolute_effective_length_censored = int(abs_) == len(lengths) - 1
    if LENGTH_AUC not in found.no_verdict:
        found.length_auc = Estimate(float(auc), low[3], high[3])
    return found


def length_groups(usable: pd.DataFrame, experiment: Experiment, settings: VerdictSettings
                  ) -> tuple[list, list]:
    """(length, scores) of the lengths with enough scored samples for a verdict, and the
    thinner ones, in ascending length (a length's scores: ``strata``)."""
    return _enough([(length, strata(part, experiment.metric, experiment.stratum))
                    for length, part in usable.groupby(experiment.length, sort=True)],
                   settings.min_samples)


@dataclasses.dataclass
class ResampledCurve:
    """The verdict's bootstrap as curves (the same seed, so the same resamples as the
    verdict's interval): which lengths pass the bar in each resample, for ``--settle``."""

    lengths: list
    counts: list  # scored samples per length
    base_k: int
    observed: np.ndarray  # (lengths,) the curve
    curves: np.ndarray  # (resamples, lengths)
    rules: "_Rules"

    def passes(self, relative: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(observed, resampled) passes of each length: the relative rule's bar (0.85 x each
        curve's own base), else the absolute one."""
        return self.rules.passes(self.observed[None, :], relative)[0], \
            self.rules.passes(self.curves, relative)


def resampled_curve(frame: pd.DataFrame, experiment: Experiment,
                    settings: VerdictSettings = VerdictSettings()) -> ResampledCurve | None:
    """The mean curve of ``verdict``'s lengths and its bootstrap; None without a length."""
    if experiment.length is None or frame.empty:
        return None
    usable = scored(without_control(frame, experiment), experiment)
    if usable.empty or experiment.length not in usable:
        return None
    groups, _ = length_groups(usable, experiment, settings)
    if not groups:
        return None
    lengths = [length for length, _ in groups]
    return ResampledCurve([plain_value(v) for v in lengths], [_size(v) for _, v in groups],
                          settings.base_count(len(lengths)),
                          np.asarray([curve_mean(v) for _, v in groups]),
                          curve_bootstrap([v for _, v in groups]).T,
                          _Rules.of(experiment, settings, np.asarray(lengths, dtype=float)))


def verdicts_first(names, verdicts: dict) -> list[str]:
    """The experiments in the order a reader wants them: those whose verdict states an
    effective length within the tested lengths (neither censored nor refused: a curve that
    falls where it was measured) first, then the rest; by name within each."""
    def has_curve(name) -> bool:
        verdict = verdicts.get(name)
        return verdict is not None and verdict.effective_length is not None \
            and bool(verdict.effective_length.value) \
            and not verdict.effective_length_censored \
            and EFFECTIVE_LENGTH not in verdict.no_verdict
    return sorted(names, key=lambda name: (not has_curve(name), name))


def without_control(frame: pd.DataFrame, experiment: Experiment) -> pd.DataFrame:
    """The records less the experiment's control ones (``Experiment.control``)."""
    if experiment.control is None or frame.empty:
        return frame
    column, value = experiment.control
    if column not in frame:
        return frame
    found = frame[column].map(value) if callable(value) else frame[column] == value
    control = (frame["experiment"] == experiment.name) & found.fillna(False).astype(bool)
    return frame[~control]


def strata(part: pd.DataFrame, metric: str, stratum: str | None) -> list[np.ndarray]:
    """One length's scores: one array, or one per stratum (in sorted order) when the
    experiment weighs its strata equally (``Experiment.stratum``)."""
    if stratum is None or stratum not in part:
        return [part[metric].astype(float).to_numpy()]
    return [group[metric].astype(float).to_numpy()
            for _, group in part.groupby(stratum, sort=True)]


def curve_mean(strata: Sequence[np.ndarray]) -> float:
    """A length's point on the curve: the mean of its strata's means (one stratum: its mean)."""
    return float(np.mean([values.mean() for values in strata]))


def _size(values) -> int:
    """Scored samples in one length's values (an array, or a list of strata)."""
    return len(values) if isinstance(values, np.ndarray) else sum(len(v) for v in values)


def _enough(groups: list, min_samples: int) -> tuple[list, list]:
    """(length, values) groups with at least ``min_samples`` values, and the thinner ones."""
    return ([g for g in groups if _size(g[1]) >= min_samples],
            [g for g in groups if _size(g[1]) < min_samples])


def verdicts(frame: pd.DataFrame, experiments: dict[str, Experiment],
             settings: VerdictSettings = VerdictSettings()) -> dict[str, Verdict]:
    """Every declared experiment present in ``frame``, by name."""
    if frame.empty:
        return {}
    present = sorted(set(frame["experiment"]) & set(experiments))
    return {name: verdict(frame, experiments[name], settings) for name in present}


@dataclasses.dataclass
class _Rules:
    """The rules applied to mean curves: arrays of shape (..., lengths)."""

    lengths: np.ndarray
    base_k: int
    relative: float
    absolute: float | None
    higher: bool
    chance: float | None

    @classmethod
    def of(cls, experiment: Experiment, settings: VerdictSettings, lengths: np.ndarray):
        return cls(lengths, settings.base_count(len(lengths)), settings.relative,
                   settings.absolute_for(experiment), experiment.higher_is_better,
                   experiment.chance)

    def _beats_chance(self, value: float) -> bool:
        if self.chance is None:
            return True
        return value > self.chance if self.higher else value < self.chance

    def refusals(self, base: float) -> dict[str, str]:
        """The verdict numbers these rules cannot state on a curve with this base score."""
        out = {}
        # 0.85 x a base at chance (or at 0) is a bar every length clears
        if not self._beats_chance(base) or (self.higher and base <= 0):
            out[EFFECTIVE_LENGTH] = f"base score {base:.3g}"
        if self.absolute is None:
            out[ABSOLUTE_EFFECTIVE_LENGTH] = NO_BAR
        elif not self._beats_chance(self.absolute):
            out[ABSOLUTE_EFFECTIVE_LENGTH] = (f"bar {self.absolute:g} at or below chance "
                                              f"{self.chance:g}")
        if len(self.lengths) < 2:
            out[LENGTH_AUC] = ONE_LENGTH
        return out

    def passes(self, means: np.ndarray, relative: bool = True) -> np.ndarray:
        """Whether each length of each curve clears the relative rule's bar (0.85 x the
        curve's own base), or the absolute one's."""
        if relative:
            bar = means[..., :self.base_k].mean(axis=-1)[..., None]
            if self.higher:
                return means >= self.relative * bar - _TOLERANCE
            return means <= (2 - self.relative) * bar + _TOLERANCE
        return means >= self.absolute - _TOLERANCE if self.higher \
            else means <= self.absolute + _TOLERANCE

    def statistics(self, means: np.ndarray) -> np.ndarray:
        """(base, relative index, absolute index, AUC) per curve; an index is -1 when the
        shortest length fails, else the position of the last length before the first failure."""
        base = means[..., :self.base_k].mean(axis=-1)
        rel = last_passing(self.passes(means))
        if self.absolute is None:
            absolute = np.full(rel.shape, np.nan)
        else:
            absolute = last_passing(self.passes(means, relative=False))
        if len(self.lengths) >= 2:
            x = np.log(self.lengths)
            auc = np.trapezoid(means, x, axis=-1) / (x[-1] - x[0])
        else:
            auc = np.full(rel.shape, np.nan)
        return np.stack([base, rel, absolute, auc]).astype(float)

    def at(self, index) -> np.ndarray:
        """Tested length at each index; 0 for -1 (not even the shortest length passed)."""
        return np.concatenate([[0.0], self.lengths])[np.asarray(index, dtype=int) + 1]

    def length_estimate(self, index: float, distribution: np.ndarray) -> Estimate:
        alpha = (1 - CONFIDENCE) / 2
        low = np.quantile(distribution, alpha, method="lower")
        high = np.quantile(distribution, 1 - alpha, method="higher")
        return Estimate(*(float(self.at(i)) for i in (index, low, high)))


def last_passing(passes: np.ndarray) -> np.ndarray:
    failing = ~passes
    first_failure = np.where(failing.any(axis=-1), failing.argmax(axis=-1), passes.shape[-1])
    return first_failure - 1


def _batch(samples: Sequence[np.ndarray]) -> int | None:
    """Resamples drawn at once: all (None) unless that would hold more than about 10M
    scores (RULER's 13 tasks x 6 lengths x 500 samples: 780M at once)."""
    held = RESAMPLES * sum(len(s) for s in samples)
    return None if held <= BATCH_SCORES else max(1, RESAMPLES * BATCH_SCORES // held)


def _resamplable(values: np.ndarray) -> np.ndarray:
    # scipy needs two observations per sample; a lone value resamples to itself either way
    return np.repeat(values, 2) if len(values) == 1 else values


def curve_bootstrap(groups: Sequence[Sequence[np.ndarray]],
                    statistic: Callable[[np.ndarray], np.ndarray] | None = None
                    ) -> np.ndarray:
    """Bootstrap distribution (statistics x resamples) of ``statistic(mean curve)``,
    resampling each length's values on their own (stratified); a length given as several
    strata is the mean of their means, each stratum resampled on its own. ``statistic``
    maps mean curves (..., lengths) to rows of statistics; None: the curves themselves
    (lengths x resamples; RULER's table reads them)."""
    if statistic is None:
        def statistic(means):
            return np.moveaxis(means, -1, 0)
    flat = [values for group in groups for values in group]
    bounds = np.cumsum([0] + [len(group) for group in groups])

    def of_samples(*samples, axis=-1):
        means = [s.mean(axis=axis) for s in samples]
        curve = [means[bounds[i]] if bounds[i + 1] - bounds[i] == 1 else
                 np.mean(means[bounds[i]:bounds[i + 1]], axis=0) for i in range(len(groups))]
        return statistic(np.stack(curve, axis=-1))

    with warnings.catch_warnings():
        # a statistic with no rule (no absolute bar, or one length: no AUC) is NaN by design;
        # scipy warns about its NaN interval, which is never shown (``_interval``)
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        result = stats.bootstrap(tuple(_resamplable(g) for g in flat), of_samples,
                                 vectorized=True, n_resamples=RESAMPLES, method="percentile",
                                 confidence_level=CONFIDENCE, rng=np.random.default_rng(SEED),
                                 batch=_batch(flat))
    return np.asarray(result.bootstrap_distribution)


def _interval(distribution: np.ndarray) -> tuple[list, list]:
    """Percentile interval of each statistic (row); None for a statistic never defined."""
    alpha = (1 - CONFIDENCE) / 2
    low, high = [], []
    for row in distribution:
        finite = row[np.isfinite(row)]
        low.append(float(np.quantile(finite, alpha)) if finite.size else None)
        high.append(float(np.quantile(finite, 1 - alpha)) if finite.size else None)
    return low, high


# -- comparing two runs (the gate) -------------------------------------------------------
@dataclasses.dataclass
class PairedVerdictDelta:
    metric: str
    pairs: int
    baseline: float
    candidate: float
    delta: float
    ci_low: float
    ci_high: float
    p: float  # two-sided paired-bootstrap p-value


def paired_delta(pairs: pd.DataFrame, experiment: Experiment, metric: str,
                 settings: VerdictSettings = VerdictSettings()) -> PairedVerdictDelta | None:
    """How a verdict number moved between two runs on the same samples.

    ``pairs`` has the length column and ``baseline``/``candidate`` headline scores, one row
    per paired sample (``compare.paired_scores``). Pairs are resampled within each length,
    the same draw for both runs, and the verdict recomputed on both sides: the interval and
    the p-value are those of the difference. None without pairs; ``NoVerdict`` when either
    side's curve supports no such number (the rules of ``verdict``: too few pairs at every
    length, a base at chance, no bar).
    """
    if pairs.empty or experiment.length not in pairs:
        return None
    groups, _ = _enough([(length, part[["baseline", "candidate"]].to_numpy(dtype=float))
                         for length, part in pairs.groupby(experiment.length, sort=True)],
                        settings.min_samples)
    if not groups:
        raise NoVerdict(f"{NO_VERDICT} ({TOO_FEW_SAMPLES}): no length has "
                        f"{settings.min_samples} paired scored samples")
    lengths = np.asarray([length for length, _ in groups], dtype=float)
    rules = _Rules.of(experiment, settings, lengths)
    row = {EFFECTIVE_LENGTH: 1, ABSOLUTE_EFFECTIVE_LENGTH: 2, LENGTH_AUC: 3}[metric]
    reasons = {}
    for side, column in (("baseline", 0), ("candidate", 1)):
        curve = np.array([[g[:, column].mean() for _, g in groups]])
        reasons[side] = rules.refusals(float(rules.statistics(curve)[0, 0])).get(metric)
    if reasons["baseline"] is not None and reasons["baseline"] == reasons["candidate"]:
        raise NoVerdict(f"{NO_VERDICT} ({reasons['baseline']}) in either run")
    for side, reason in reasons.items():
        if reason is not None:
            raise NoVerdict(f"{NO_VERDICT} ({reason}) in the {side}")

    def value(means: np.ndarray) -> np.ndarray:
        found = rules.statistics(means)[row]
        return rules.at(found) if row in (1, 2) else found

    def difference(*indices, axis=-1):
        base = np.stack([g[i, 0].mean(axis=axis) for (_, g), i in zip(groups, indices)], -1)
        cand = np.stack([g[i, 1].mean(axis=axis) for (_, g), i in zip(groups, indices)], -1)
        return value(cand) - value(base)

    base_curve = np.array([[g[:, 0].mean() for _, g in groups]])
    cand_curve = np.array([[g[:, 1].mean() for _, g in groups]])
    baseline, candidate = float(value(base_curve)[0]), float(value(cand_curve)[0])
    result = stats.bootstrap(tuple(_resamplable(np.arange(len(g))) for _, g in groups),
                             difference, vectorized=True, n_resamples=RESAMPLES,
                             method="percentile", confidence_level=CONFIDENCE,
                             rng=np.random.default_rng(SEED))
    draws = np.asarray(result.bootstrap_distribution)
    below = (np.sum(draws <= 0) + 1) / (len(draws) + 1)
    above = (np.sum(draws >= 0) + 1) / (len(draws) + 1)
    p = 1.0 if np.all(draws == 0) else min(1.0, 2 * min(below, above))
    return PairedVerdictDelta(metric, len(pairs), baseline, candidate, candidate - baseline,
                              float(result.confidence_interval.low),
                              float(result.confidence_interval.high), float(p))


# -- small helpers -----------------------------------------------------------------------
def _finite(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) or math.isinf(value) else value


def _length(value) -> str:
    value = plain_value(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.4g}" \
        if isinstance(value, float) else str(value)


def _join(values: Sequence) -> str:
    return ", ".join(_length(v) for v in values)


def _counted(lengths: Sequence, counts: Sequence) -> str:
    return ", ".join(f"{_length(v)}: {c}" for v, c in zip(lengths, counts))


def number_text(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def estimate_text(estimate: Estimate | None) -> str:
    if estimate is None or estimate.value is None:
        return "—"
    return (f"{number_text(estimate.value)} [{number_text(estimate.low)}, "
            f"{number_text(estimate.high)}]")

