"""Comparing runs: who they were, which samples pair up, and how each grid cell moved.

Two runs are compared sample by sample: a sample of one run pairs with the sample of the other
that has the same node id *and* the same stimulus hash (the same prompt, byte for byte). Each
cell's change is then a paired difference, tested with an exact paired test (McNemar for 0/1
scores, a sign test otherwise; ``stats.paired_test``), and the p-values of all the cells
compared at once are adjusted for multiplicity (``stats.adjust_pvalues``).

``compare_runs`` also draws the runs over each other (curves) and side by side (heatmaps).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Sequence
from urllib.parse import urlsplit

import numpy as np
import pandas as pd

from reporting.analysis.curve_tables import axes_by_variety, scored, sorted_values
from reporting.experiments import Experiment, record_units
from reporting.analysis.stats import adjust_pvalues, mean_interval, paired_difference_interval, paired_test
from reporting.analysis.summary import cell_label

OVERALL = "all cells"
TOKENIZER = "o200k_base"  # the unit every spec's lengths are in (fixtures/tokens/tokenizer.py)


# -- identity ----------------------------------------------------------------------------
def endpoint_host(url: str | None) -> str | None:
    """host[:port] of an endpoint URL: never its credentials, path or query."""
    if not url:
        return None
    parts = urlsplit(url if "//" in url else f"//{url}")
    if not parts.hostname:
        return url if url in ("builtin", "terminal") else None
    return f"{parts.hostname}:{parts.port}" if parts.port else parts.hostname


def run_identity(info: dict, frame: pd.DataFrame) -> dict:
    """What a run was: model, endpoint host, judge, tokenizer, sampling, scale, seeds, versions.

    From the store's ``runs.info`` (the options the run was started with) and its records (the
    model identity each sample was answered by).
    """
    options = info.get("options", {})
    model = dict(info.get("model") or {})
    if not model and not frame.empty and "model.name" in frame:
        named = frame.dropna(subset=["model.name"])
        if not named.empty:
            first = named.iloc[0]
            model = {"name": first["model.name"], "endpoint": first.get("model.endpoint")}
    sampling = model_columns(frame, "model.sampling.")
    judge_model = options.get("judge_model")
    judge_host = endpoint_host(options.get("judge_base_url") or options.get("base_url"))
    judge = f"{judge_model} @ {judge_host or 'default endpoint'}" if judge_model \
        else "deterministic (no LLM judge)"
    return {
        "model": model.get("name") or options.get("model") or "embedded (default)",
        "endpoint": endpoint_host(model.get("endpoint") or options.get("base_url")),
        "judge": judge,
        "tokenizer": token_unit(info, frame),
        "sampling": sampling,
        # the run's generation settings (--temperature, --thinking, -M ...; {}: none set)
        "generation": model_columns(frame, "model.generation."),
        # what its requests carried, per experiment (what the gate compares)
        "requests": sent_requests(frame),
        # how an experiment sent its prompts where it offers a choice (records'
        # ``details.protocol``: RULER's fitting and answer prefix)
        "protocol": model_columns(frame, "details.protocol."),
        "scale": options.get("scale"),
        "seeds": {name: value for name, value in options.items() if "seed" in name},
        "versions": {k: v for k, v in (info.get("versions") or {}).items() if v},
    }


def model_columns(frame: pd.DataFrame, prefix: str) -> dict[str, str]:
    """Each column under ``prefix`` (its name less the prefix): its distinct values, joined."""
    found = {}
    if not frame.empty:
        for column in sorted(c for c in frame.columns if c.startswith(prefix)):
            values = sorted({str(v) for v in frame[column].dropna()})
            if values:
                found[column.removeprefix(prefix)] = ", ".join(values)
    return found


TOKEN_LIMITS = ("max_tokens", "max_completion_tokens")  # (fixtures/providers/generation.py's)


def sent_requests(frame: pd.DataFrame) -> dict[str, dict[str, str]]:
    """What each experiment's requests to the model under test carried, as the records say
    (``model.sampling``: every parameter sent but the token limit, after what the endpoint
    refused was dropped; ``model.token_limit``): each parameter's distinct values (``not
    sent`` where a request left it out), and the token limit's field with its value less the
    sample's answer budget (the thinking budget: ``max_completion_tokens = answer + 4``).
    How a value came to be sent (an option, a default, a refusal learnt) is not in it: runs
    whose requests were the same compare, whichever options made them. Also how thinking was
    read from answers (``--think-tags``), which the scores depend on."""
    found: dict[str, dict[str, str]] = {}
    if frame.empty or "model.name" not in frame or "experiment" not in frame:
        return found
    asked = frame[frame["model.name"].notna()]
    if not any(c.startswith(("model.sampling.", "model.token_limit.")) for c in asked):
        return found  # records from before requests were recorded: nothing to compare
    for experiment, part in asked.groupby("experiment", sort=True):
        carried: dict[str, str] = {}
        for column in sorted(c for c in part.columns if c.startswith("model.sampling.")):
            values = {"not sent" if _missing(v) else str(v) for v in part[column]}
            carried[column.removeprefix("model.sampling.")] = ", ".join(sorted(values))
        limits = pd.Series("not sent", index=part.index, dtype=object)
        answer = part["max_tokens"].fillna(0) if "max_tokens" in part else 0
        for name in reversed(TOKEN_LIMITS):  # (a request carries one)
            if f"model.token_limit.{name}" in part:
                sent = part[f"model.token_limit.{name}"]
                extra = (sent - answer)[sent.notna()]
                limits[extra.index] = [f"{name} = answer" + (f" + {e:g}" if e else "")
                                       for e in extra]
        carried["token limit"] = ", ".join(sorted(set(limits)))
        tags = part.get("model.generation.think_tags")
        if tags is not None and tags.notna().any():
            carried["think_tags"] = ", ".join(sorted({str(v) for v in tags.dropna()}))
        found[str(experiment)] = carried
    return found


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def token_unit(info: dict, frame: pd.DataFrame) -> str | None:
    """The unit a run's lengths are in: its records' (``token_unit``; runs before units were
    recorded say o200k_base in their info), several joined by ", " if a run mixed them."""
    units = record_units(frame)
    if units:
        return units
    tokenizer = info.get("tokenizer") or {}
    return tokenizer.get("name") if tokenizer else None


def unit_mismatch(identities: Sequence[tuple[str, dict]]) -> str | None:
    """One line when runs' lengths are in different token units (their scores at a length
    are not comparable), else None."""
    units = {run: identity.get("tokenizer") for run, identity in identities}
    if len({u for u in units.values() if u is not None}) <= 1:
        return None
    shown = "; ".join(f"{run}: {unit}" for run, unit in units.items())
    return (f"the runs' lengths are in different token units ({shown}); compare runs built "
            "with the same --tokenizer")


# -- pairing -----------------------------------------------------------------------------
def _keyed(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    if "nodeid" not in frame or frame["nodeid"].isna().all():
        frame["nodeid"] = frame["sample_id"]
    return frame


def stimulus_mismatches(baseline: pd.DataFrame, candidate: pd.DataFrame) -> list[str]:
    """Samples present in both runs under the same id but with a different prompt."""
    if baseline.empty or candidate.empty:
        return []
    merged = _keyed(baseline)[["nodeid", "stimulus_hash"]].merge(
        _keyed(candidate)[["nodeid", "stimulus_hash"]], on="nodeid", suffixes=("_b", "_c"))
    differ = merged[merged["stimulus_hash_b"] != merged["stimulus_hash_c"]]
    return sorted(differ["nodeid"].tolist())


def metric_column(experiment: Experiment, metric: str | None) -> str:
    """``None`` is the headline metric; ``accuracy`` means the score ``scores.accuracy``."""
    if metric is None:
        return experiment.metric
    return metric if "." in metric else f"scores.{metric}"


def paired_scores(baseline: pd.DataFrame, candidate: pd.DataFrame, experiment: Experiment,
                  column: str, extra: Sequence[str | None] = ()) -> pd.DataFrame:
    """One row per paired sample with a value in both runs: the cell columns (and ``extra``
    columns, e.g. the length axis), base, cand."""
    keys = list(dict.fromkeys([*experiment.cell, *(c for c in extra if c)]))

    def usable(frame: pd.DataFrame) -> pd.DataFrame:
        if frame.empty or column not in frame:
            return pd.DataFrame(columns=["nodeid", "stimulus_hash", column, *keys])
        frame = _keyed(frame)
        frame = frame[(frame["experiment"] == experiment.name) & (frame["outcome"] == "ok")]
        frame = frame.dropna(subset=[column])
        for key in keys:
            if key not in frame:
                frame = frame.assign(**{key: None})
        return frame[["nodeid", "stimulus_hash", column, *keys]]

    base = usable(baseline).rename(columns={column: "baseline"})
    cand = usable(candidate).rename(columns={column: "candidate"})
    pairs = cand.merge(base[["nodeid", "stimulus_hash", "baseline"]],
                       on=["nodeid", "stimulus_hash"])
    pairs["baseline"] = pairs["baseline"].astype(float)
    pairs["candidate"] = pairs["candidate"].astype(float)
    return pairs


# -- cell deltas -------------------------------------------------------------------------
@dataclasses.dataclass
class CellDelta:
    experiment: str
    metric: str
    cell: str  # "common=apple n=25", or OVERALL
    pairs: int
    baseline: float
    candidate: float
    delta: float  # candidate - baseline, mean over the pairs
    ci_low: float  # paired bootstrap 95% interval of the delta
    ci_high: float
    test: str  # "mcnemar" or "sign"
    p: float
    p_adjusted: float = math.nan

    def to_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and math.isnan(v) else v)
                for k, v in dataclasses.asdict(self).items()}


def _delta(experiment: Experiment, metric: str, cell: str, pairs: pd.DataFrame) -> CellDelta:
    base, cand = pairs["baseline"].to_numpy(), pairs["candidate"].to_numpy()
    test, p = paired_test(base, cand)
    low, high = paired_difference_interval(base, cand)
    return CellDelta(experiment.name, metric, cell, len(pairs), float(base.mean()),
                     float(cand.mean()), float((cand - base).mean()), low, high, test, p)


def compare_experiment(baseline: pd.DataFrame, candidate: pd.DataFrame,
                       experiment: Experiment, metric: str | None = None,
                       overall: bool = True) -> list[CellDelta]:
    """Paired deltas of one metric per grid cell (and over all cells), unadjusted."""
    column = metric_column(experiment, metric)
    name = column.split(".")[-1]
    pairs = paired_scores(baseline, candidate, experiment, column)
    if pairs.empty:
        return []
    found = []
    for _, cell in pairs.groupby(list(experiment.cell), sort=True, dropna=False):
        found.append(_delta(experiment, name, cell_label(experiment, cell.iloc[0]), cell))
    if overall and len(found) > 1:
        found.append(_delta(experiment, name, OVERALL, pairs))
    return found


def adjust(deltas: Sequence[CellDelta]) -> None:
    """Set every delta's multiplicity-adjusted p-value, the family being ``deltas``."""
    for delta, adjusted in zip(deltas, adjust_pvalues([d.p for d in deltas])):
        delta.p_adjusted = adjusted


def format_deltas(deltas: Sequence[CellDelta]) -> str:
    """A fixed-width difference table: cell, n pairs, baseline, candidate, delta [CI], p."""
    header = ["experiment", "metric", "cell", "pairs", "baseline", "candidate",
              "delta [95% CI]", "test", "p", "p adj"]
    body = [[d.experiment, d.metric, d.cell, str(d.pairs), f"{d.baseline:.3f}",
             f"{d.candidate:.3f}", f"{d.delta:+.3f} [{d.ci_low:+.3f}, {d.ci_high:+.3f}]",
             d.test, _p(d.p), _p(d.p_adjusted)] for d in deltas]
    widths = [max(len(row[i]) for row in [header] + body) for i in range(len(header))]
    return "\n".join("  ".join(value.ljust(widths[i]) if i < 3 else value.rjust(widths[i])
                               for i, value in enumerate(row)) for row in [header] + body)


def _p(value: float) -> str:
    if value is None or math.isnan(value):
        return "—"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


# -- a thinking run beside a non-thinking one --------------------------------------------
def side_by_side(runs: Sequence["RunData"], experiments: dict[str, Experiment]) -> str:
    """Per experiment and length (else over all its cells): each run's headline mean, its
    mean reasoning tokens and its samples whose thinking ran out, in columns side by side."""
    from reporting.analysis.budgets import flagged, reasoning_tokens

    header = ["experiment", "length"]
    for run in runs:
        header += [f"{run.run_id} score", "reasoning tok", "ran out"]
    body = []
    for name, experiment in sorted(experiments.items()):
        mine = [run.frame[run.frame["experiment"] == name] if not run.frame.empty
                and "experiment" in run.frame else pd.DataFrame() for run in runs]
        if all(frame.empty for frame in mine):
            continue
        x = experiment.length
        xs = sorted_values(v for f in mine if x and x in f for v in f[x]) if x else [None]
        for value in xs:
            shown = int(value) if isinstance(value, float) and value.is_integer() else value
            row = [name, "all" if value is None else str(shown)]
            for frame in mine:
                part = frame if value is None or frame.empty or x not in frame \
                    else frame[frame[x] == value]
                scores = scored(part, experiment)[experiment.metric] if not part.empty \
                    else []
                tokens = reasoning_tokens(part)
                row += [f"{float(np.mean(scores)):.3f}" if len(scores) else "—",
                        f"{tokens.mean():,.0f}" if len(tokens) else "—",
                        str(int(flagged(part, "thinking_ran_out").sum()))]
            body.append(row)
    if not body:
        return ""
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    return "\n".join("  ".join(v.ljust(widths[i]) if i < 2 else v.rjust(widths[i])
                               for i, v in enumerate(row)) for row in [header] + body)


def settings_lines(runs: Sequence["RunData"]) -> list[str]:
    """Each run's generation settings, one line each ("none set" for a default run)."""
    return [f"{run.run_id}: generation settings: " + (", ".join(
        f"{k}={v}" for k, v in run.identity.get("generation", {}).items()) or "none set")
        for run in runs]


# -- several runs on one figure ----------------------------------------------------------
@dataclasses.dataclass
class RunData:
    run_id: str
    identity: dict
    frame: pd.DataFrame
    name: str | None = None  # the legend's label; default "run (model)"

    @property
    def label(self) -> str:
        return self.name or f"{self.run_id} ({self.identity.get('model')})"


def overlay_curves(runs: Sequence[RunData], experiment: Experiment, out_dir: Path,
                   title: str = "runs overlaid") -> Path | None:
    """The headline metric against the length axis (else the most varied cell column), one
    line per run."""
    from reporting import plots

    frames = [scored(run.frame, experiment) for run in runs]
    if all(f.empty for f in frames):
        return None
    x_column = experiment.length or axes_by_variety(frames, experiment)[0]
    xs = sorted_values(v for f in frames if not f.empty for v in f[x_column])
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) for v in xs)
    positions = xs if numeric else list(range(len(xs)))
    fig, (ax,) = plots.panel_grid(1, columns=1, size=(7.0, 4.0))
    for run, frame in zip(runs, frames):
        groups = [frame.loc[frame[x_column] == x, experiment.metric].tolist()
                  if not frame.empty else [] for x in xs]
        plots.interval_curve(ax, positions, groups, kind=experiment.metric_kind,
                             label=run.label)
    if numeric and len(xs) > 2 and min(xs) > 0 and max(xs) / min(xs) >= 20:
        ax.set_xscale("log")
        ax.minorticks_off()
    ax.set_xticks(positions, [str(x) for x in xs])
    ax.set_xlabel(x_column.split(".")[-1])
    ax.set_ylabel(f"{experiment.metric.split('.')[-1]} (mean, 95% interval)")
    ax.set_title(f"{experiment.name}: {title}")
    ax.legend(fontsize=7)
    return plots.save_figure(fig, out_dir, f"{experiment.name}-curves.png")


def side_by_side_heatmaps(runs: Sequence[RunData], experiment: Experiment,
                          out_dir: Path) -> Path | None:
    """One heatmap per run over the two most varied cell columns, then each run minus the first."""
    from reporting import plots

    if len(experiment.cell) < 2:
        return None
    frames = [scored(run.frame, experiment) for run in runs]
    if all(f.empty for f in frames):
        return None
    x_column, y_column = axes_by_variety(frames, experiment)[:2]
    xs = sorted_values(v for f in frames if not f.empty for v in f[x_column])
    ys = sorted_values(v for f in frames if not f.empty for v in f[y_column])
    matrices, counts = [], []
    for frame in frames:
        matrix = np.full((len(ys), len(xs)), np.nan)
        count = np.zeros((len(ys), len(xs)))
        for (i, y), (j, x) in ((a, b) for a in enumerate(ys) for b in enumerate(xs)):
            if frame.empty:
                continue
            values = frame.loc[(frame[y_column] == y) & (frame[x_column] == x),
                               experiment.metric]
            mean, _, _, n = mean_interval(values.tolist(), experiment.metric_kind)
            matrix[i, j], count[i, j] = mean, n
        matrices.append(matrix)
        counts.append(count)
    panels = len(runs) + len(runs) - 1
    size = (max(3.5, 0.7 * len(xs) + 1.5), max(2.5, 0.5 * len(ys) + 1.5))
    fig, axes = plots.panel_grid(panels, columns=min(panels, 3), size=size)
    low = min(0.0, np.nanmin([np.nanmin(m) if not np.isnan(m).all() else 0 for m in matrices]))
    high = max(1.0, np.nanmax([np.nanmax(m) if not np.isnan(m).all() else 1 for m in matrices]))
    labels = dict(row_labels=[str(y) for y in ys], col_labels=[str(x) for x in xs])
    for ax, run, matrix, count in zip(axes, runs, matrices, counts):
        plots.heatmap(ax, matrix, counts=count, missing_label="no data", vmin=low, vmax=high,
                      **labels)
        ax.set_title(run.label, fontsize=7)
        ax.set_xlabel(x_column.split(".")[-1])
        if ax is axes[0]:
            ax.set_ylabel(y_column.split(".")[-1])
    for ax, run, matrix in zip(axes[len(runs):], runs[1:], matrices[1:]):
        difference = matrix - matrices[0]
        spread = float(np.nanmax(np.abs(difference))) if not np.isnan(difference).all() else 0
        spread = 1.5 * max(spread, 0.05)  # mid-tones: the black cell labels stay legible
        plots.heatmap(ax, difference, missing_label="no data", vmin=-spread, vmax=spread,
                      cmap="RdBu", **labels)
        ax.set_title(f"{run.run_id} minus {runs[0].run_id}", fontsize=7)
        ax.set_xlabel(x_column.split(".")[-1])
    fig.suptitle(f"{experiment.name}: {experiment.metric.split('.')[-1]} per cell", y=1.04)
    return plots.save_figure(fig, out_dir, f"{experiment.name}-heatmaps.png")


def compare_runs(runs: Sequence[RunData], experiments: dict[str, Experiment]
                 ) -> dict[str, list[CellDelta]]:
    """Each later run's paired deltas against the first run, by run id.

    The multiplicity family is one run's cells across all experiments.
    """
    found: dict[str, list[CellDelta]] = {}
    for run in runs[1:]:
        deltas = [delta for _, experiment in sorted(experiments.items())
                  for delta in compare_experiment(runs[0].frame, run.frame, experiment)]
        adjust(deltas)
        found[run.run_id] = deltas
    return found
