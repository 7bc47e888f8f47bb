"""The CI gate: fail a run only when a metric dropped past its threshold *and* significantly.

    pytest benchmarks -m repeated_words --baseline results/base/summary.json \\
        --fail-on "repeated_words.levenshtein:-0.05" --fail-on "niah:-5%"

A threshold ``EXPERIMENT[.METRIC]:DELTA`` names an experiment, optionally one of its scores
(default: its headline metric), and the change that counts as a regression: ``-0.05`` (an
absolute drop of more than 0.05) or ``-5%`` (relative to the baseline's mean); a positive
delta gates a metric where lower is better. Every grid cell of the experiment, and the
experiment over all its cells, is compared with the baseline sample by sample
(``compare.compare_experiment``); a cell regresses when its mean change is past the threshold
and its paired test is significant after the Benjamini-Hochberg adjustment across every cell
the gate looked at.

Exit statuses (pytest's own are 0-5): ``REGRESSION_EXIT`` (7) when a cell regressed,
``NOT_COMPARABLE_EXIT`` (8) when the baseline cannot be compared (other stimuli, judge or
tokenizer) or the gated score does not exist.

A verdict number can be gated too: ``niah.effective_length:-20%`` (also
``absolute_effective_length``, ``length_auc``; ``verdicts.py``). It is recomputed on both runs
from the samples they share, and its change is judged by a paired bootstrap (pairs resampled
within each length): regressed when past the threshold and the bootstrap p-value, adjusted
with the cells, is below alpha. A verdict that is "no verdict" on either side (too few
samples, a base score at chance, no bar) does not exist: gating it is exit 8, as for a
missing score.

No baseline yet (a missing file): the run is saved and passes with a warning.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Sequence

import pandas as pd

from reporting.gating.compare import (CellDelta, adjust, compare_experiment, metric_column, paired_scores,
                      run_identity, stimulus_mismatches)
from reporting.experiments import Experiment
from reporting.storage.records import SampleRecord
from reporting.storage.store import ResultsStore, records_frame
from reporting.gating.thresholds import (DEFAULT_ALPHA, NOT_COMPARABLE_EXIT, REGRESSION_EXIT,  # noqa: F401
                         GateUsageError, Threshold, check_thresholds, parse_threshold)
from reporting.analysis.verdict_settings import VERDICT_METRICS, VerdictSettings

# The identity fields that must match for scores to be comparable (the model may differ:
# a new model is exactly what one gates).
MUST_MATCH = ("judge", "tokenizer")


# -- the baseline ------------------------------------------------------------------------
@dataclasses.dataclass
class Baseline:
    source: str  # what --baseline named, for messages
    run_id: str
    identity: dict
    frame: pd.DataFrame


def _looks_like_path(spec: str) -> bool:
    return "/" in spec or spec.endswith((".json", ".jsonl"))


def load_baseline(spec: str, store: ResultsStore | None, current_run: str | None = None
                  ) -> Baseline | None:
    """The baseline named by ``--baseline``; None when it does not exist yet (first CI run).

    ``spec`` is a run id in the store, ``latest`` (the newest other run), a ``summary.json``
    (a run's own, or ``python -m reporting export RUN --format summary``) or a records
    ``.jsonl`` file. An unknown run id is an error, not a missing baseline: it is a typo.
    """
    path = Path(spec)
    if _looks_like_path(spec) or path.is_dir():
        text = _baseline_text(spec, path)
        if text is None:
            return None
        if not text.strip():  # a truncated copy must not pass every regression: exit 8
            return Baseline(spec, path.stem, {}, pd.DataFrame())
        if path.suffix == ".jsonl":
            records = _records(spec, text)
            frame = records_frame(records, output_chars=0)  # scores are paired, not texts
            run_id = records[0].run_id if records else path.stem
            return Baseline(spec, run_id, run_identity({}, frame), frame)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise GateUsageError(f"--baseline {spec}: not JSON ({error}); pass a run's "
                                 "summary.json or a records .jsonl") from None
        if not isinstance(data, dict):
            raise GateUsageError(f"--baseline {spec}: not a run's summary.json; pass one, or "
                                 "a records .jsonl")
        if "samples" not in data or "identity" not in data:
            raise GateUsageError(
                f"--baseline {spec}: this summary has no per-sample scores to pair; write one "
                "with `python -m reporting export RUN --format summary`")
        frame = pd.json_normalize(data["samples"], sep=".") if data["samples"] \
            else pd.DataFrame()
        return Baseline(spec, data.get("run_id", path.parent.name), data["identity"], frame)
    if store is None:
        return None
    if spec == "latest":
        finished = [r["run_id"] for r in store.runs()
                    if r["run_id"] != current_run and r["finished_at"]]
        if not finished:
            return None
        spec_run = finished[-1]
    else:
        spec_run = spec
    try:
        info = store.run_info(spec_run)
    except KeyError:
        raise GateUsageError(
            f"--baseline {spec!r}: no such run in {store.database}; list runs with "
            f"`python -m reporting runs --results-dir {store.database.parent}` or pass a "
            "summary.json path") from None
    frame = store.frame(spec_run, output_chars=0)  # scores are paired, not texts
    return Baseline(spec, spec_run, run_identity(info, frame), frame)


def _baseline_text(spec: str, path: Path) -> str | None:
    """The baseline file's text; None when it does not exist yet (the first CI run). A run's
    folder stands for its summary.json."""
    if path.is_dir():
        if not (path / "summary.json").is_file():
            raise GateUsageError(f"--baseline {spec} is a folder; give a run's summary.json "
                                 "(RESULTS/RUN/summary.json), a records .jsonl or a run id")
        path = path / "summary.json"
    if not path.exists():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        raise GateUsageError(f"--baseline {spec} cannot be read ({reason}); give a run's "
                             "summary.json or a records .jsonl you can read") from None


def _records(spec: str, text: str) -> list[SampleRecord]:
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(SampleRecord.from_json(line))
        except (ValueError, TypeError, AttributeError) as error:
            raise GateUsageError(f"--baseline {spec}: line {number} is not a sample record "
                                 f"({error}); pass a run's samples.jsonl or its summary.json"
                                 ) from None
    return records


def compact_samples(frame: pd.DataFrame) -> list[dict]:
    """What the gate needs of each sample to pair it: ids, hash, outcome, params and scores."""
    if frame.empty:
        return []
    keep = ["nodeid", "sample_id", "experiment", "stimulus_hash", "outcome"]
    columns = [c for c in frame.columns if c in keep or c.startswith(("params.", "scores."))]
    rows = []
    for row in frame[columns].to_dict(orient="records"):
        nested: dict = {}
        for key, value in row.items():
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            head, _, tail = key.partition(".")
            if tail:
                nested.setdefault(head, {})[tail] = value.item() if hasattr(value, "item") \
                    else value
            else:
                nested[key] = value
        rows.append(nested)
    return rows


# -- the verdict -------------------------------------------------------------------------
@dataclasses.dataclass
class Check:
    threshold: Threshold
    delta: CellDelta
    exceeded: bool
    significant: bool

    @property
    def regressed(self) -> bool:
        return self.exceeded and self.significant


@dataclasses.dataclass
class Verdict:
    baseline: str  # run id and source, for messages
    alpha: float
    checks: list[Check] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    refusal: str | None = None

    @property
    def regressions(self) -> list[Check]:
        return [c for c in self.checks if c.regressed]

    @property
    def exit_status(self) -> int:
        if self.refusal:
            return NOT_COMPARABLE_EXIT
        return REGRESSION_EXIT if self.regressions else 0

    def lines(self) -> list[tuple[str, bool]]:
        """Terminal lines, each with whether it is bad news (printed red)."""
        out = [(f"gate: baseline {self.baseline}", False)]
        out += [(f"gate: warning: {w}", False) for w in self.warnings]
        if self.refusal:
            return out + [(f"gate: REFUSED (exit {NOT_COMPARABLE_EXIT}): {self.refusal}", True)]
        for check in self.regressions:
            d = check.delta
            out.append((
                f"gate: REGRESSED {d.experiment} {d.metric} [{d.cell}]: {d.baseline:.3f} -> "
                f"{d.candidate:.3f} ({d.delta:+.3f}, 95% CI [{d.ci_low:+.3f}, {d.ci_high:+.3f}], "
                f"n={d.pairs} pairs; {d.test} p={d.p:.2g}, adjusted p={d.p_adjusted:.2g}) "
                f"past --fail-on {check.threshold.text}", True))
        unproven = [c for c in self.checks if c.exceeded and not c.significant]
        for check in unproven:
            d = check.delta
            out.append((f"gate: not significant: {d.experiment} {d.metric} [{d.cell}] "
                        f"{d.delta:+.3f} (n={d.pairs}, adjusted p={d.p_adjusted:.2g} >= "
                        f"{self.alpha})", False))
        if self.regressions:
            out.append((f"gate: FAILED (exit {REGRESSION_EXIT}): {len(self.regressions)} "
                        f"of {len(self.checks)} compared cells regressed", True))
        else:
            out.append((f"gate: passed: {len(self.checks)} cells compared, none dropped past "
                        "its threshold with significance", False))
        return out

    def to_dict(self) -> dict:
        return {"baseline": self.baseline, "alpha": self.alpha, "refusal": self.refusal,
                "warnings": self.warnings, "exit_status": self.exit_status,
                "lines": [[text, bad] for text, bad in self.lines()],
                "checks": [{"threshold": c.threshold.text, "exceeded": c.exceeded,
                            "significant": c.significant, "regressed": c.regressed,
                            **c.delta.to_dict()} for c in self.checks]}


def comparability_problem(baseline: Baseline, identity: dict, frame: pd.DataFrame,
                          allow_different_settings: bool = False) -> str | None:
    """Why the two runs' scores cannot be compared, or None."""
    if baseline.frame.empty:
        return (f"baseline {baseline.source} holds no samples (an empty or truncated file?); "
                "gate against a run's summary.json, or record a new baseline")
    for field in MUST_MATCH:
        theirs, ours = baseline.identity.get(field), identity.get(field)
        if theirs is not None and ours is not None and theirs != ours:
            return (f"the {field} differs: baseline {baseline.run_id} used {theirs!r}, this "
                    f"run {ours!r}; gate against a baseline made with the same {field}")
    if not allow_different_settings:
        problem = requests_problem(baseline, identity)
        if problem:
            return problem
    changed = stimulus_mismatches(baseline.frame, frame)
    if changed:
        return (f"the stimuli differ: {len(changed)} samples have another stimulus_hash than "
                f"in baseline {baseline.run_id} (e.g. {changed[0]}); the prompts changed, so "
                "record a new baseline")
    return None


def requests_problem(baseline: Baseline, identity: dict) -> str | None:
    """Why the two runs' requests are not the same, or None: what each experiment's requests
    carried (``compare.sent_requests``: the fields and values sent, the token limit's field
    and its value beyond the answer budget), never which options produced them. A baseline
    from before requests were recorded is compared by its generation settings."""
    theirs, ours = baseline.identity.get("requests"), identity.get("requests")
    if theirs and ours:
        for experiment in sorted(set(theirs) & set(ours)):
            before, now = theirs[experiment], ours[experiment]
            differ = [k for k in sorted(set(before) | set(now)) if before.get(k) != now.get(k)]
            if differ:
                def shown(carried: dict) -> str:
                    return "; ".join(f"{k}: {carried.get(k, 'not sent')}" for k in differ)
                return (f"the requests differ ({experiment}): baseline {baseline.run_id} sent "
                        f"{shown(before)}, this run {shown(now)}; gate against a baseline "
                        "whose requests carried the same, or pass --allow-different-settings")
        return None
    theirs, ours = baseline.identity.get("generation"), identity.get("generation")
    if theirs is not None and ours is not None and theirs != ours:
        # (a baseline from before settings were recorded: None)
        def settings(chosen: dict) -> str:
            return ", ".join(f"{k}={v}" for k, v in chosen.items()) or "none set"
        return (f"the generation settings differ: baseline {baseline.run_id} used "
                f"{settings(theirs)}, this run {settings(ours)}; gate against a baseline "
                "made with the same settings, or pass --allow-different-settings")
    return None


def verdict_delta(baseline: pd.DataFrame, candidate: pd.DataFrame, experiment: Experiment,
                  metric: str, settings: VerdictSettings) -> CellDelta | None:
    """How a verdict number (``effective_length``, ...) moved, over the paired samples;
    None without pairs; ``verdicts.NoVerdict`` when a side has no such number."""
    from reporting.analysis.verdicts import paired_delta

    pairs = paired_scores(baseline, candidate, experiment, experiment.metric,
                          extra=(experiment.length,))
    found = paired_delta(pairs, experiment, metric, settings)
    if found is None:
        return None
    return CellDelta(experiment.name, metric, "all lengths", found.pairs, found.baseline,
                     found.candidate, found.delta, found.ci_low, found.ci_high,
                     "paired bootstrap", found.p)


def evaluate(thresholds: Sequence[Threshold], baseline: Baseline, identity: dict,
             frame: pd.DataFrame, experiments: dict[str, Experiment],
             alpha: float = DEFAULT_ALPHA,
             settings: VerdictSettings = VerdictSettings(),
             allow_different_settings: bool = False) -> Verdict:
    verdict = Verdict(f"{baseline.run_id} ({baseline.source})", alpha)
    verdict.refusal = comparability_problem(baseline, identity, frame, allow_different_settings)
    if verdict.refusal:
        return verdict
    if baseline.identity.get("model") != identity.get("model"):
        verdict.warnings.append(f"the model differs: baseline {baseline.identity.get('model')}"
                                f", this run {identity.get('model')}")
    pending: list[tuple[Threshold, CellDelta]] = []
    for threshold in thresholds:
        experiment = experiments[threshold.experiment]
        column = metric_column(experiment, threshold.metric)
        ran_here = not frame.empty and (frame["experiment"] == experiment.name).any()
        ran_there = not baseline.frame.empty and \
            (baseline.frame["experiment"] == experiment.name).any()
        if not ran_here or not ran_there:
            verdict.warnings.append(f"{threshold.text}: {experiment.name} is not in "
                                    f"{'this run' if not ran_here else 'the baseline'}; "
                                    "not gated")
            continue
        if threshold.metric in VERDICT_METRICS:
            from reporting.analysis.verdicts import NoVerdict

            try:
                delta = verdict_delta(baseline.frame, frame, experiment, threshold.metric,
                                      settings)
            except NoVerdict as error:
                verdict.refusal = (f"--fail-on {threshold.text}: {experiment.name} "
                                   f"{threshold.metric}: {error}; a verdict that does not "
                                   "exist cannot be gated")
                return verdict
            if delta is None:
                verdict.warnings.append(f"{threshold.text}: no {threshold.metric} to compare "
                                        f"(no paired scored samples of {experiment.name}); "
                                        "not gated")
            else:
                pending.append((threshold, delta))
            continue
        if column not in frame:
            scores = sorted(c.removeprefix("scores.") for c in frame.columns
                            if c.startswith("scores."))
            verdict.refusal = (f"--fail-on {threshold.text}: {experiment.name} records have no "
                               f"score {column.removeprefix('scores.')!r}; its scores are "
                               f"{', '.join(scores)}")
            return verdict
        deltas = compare_experiment(baseline.frame, frame, experiment, threshold.metric)
        if not deltas:
            verdict.warnings.append(f"{threshold.text}: no sample of {experiment.name} was "
                                    "scored in both runs; not gated")
        pending.extend((threshold, d) for d in deltas)
    adjust([d for _, d in pending])
    verdict.checks = [Check(t, d, t.exceeded(d), d.p_adjusted < alpha) for t, d in pending]
    if thresholds and not verdict.checks:  # a gate that compared nothing passes nothing
        verdict.refusal = (f"no cell of {', '.join(sorted({t.experiment for t in thresholds}))}"
                           f" was scored in both this run and baseline {baseline.run_id}; run "
                           "the baseline's experiments (the same -m/-k) to gate them")
    return verdict
