"""The compact view of a run, and its full per-cell table as files.

Per experiment: the headline metric by length (the degradation curve as a table, with 95%
intervals and counts) and, where the grid has a second axis (depth, distractors, word pair,
pattern), a small matrix of means over it and length. An experiment without a length axis
gets the same over its most varied grid column. The full per-cell table (every grid cell,
its outcome counts and interval: ``summary.summarize``) goes to ``cells.md`` and ``cells.csv``
beside the run, and to report.html.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path
from typing import Iterable, Sequence

import pandas as pd

from reporting.experiments import Experiment
from reporting.storage.records import OUTCOMES
from reporting.analysis.blocks import blocked, interval_text, with_blocks
from reporting.analysis.stats import mean_interval
from reporting.analysis.summary import cached_share


def scored(frame: pd.DataFrame, experiment: Experiment) -> pd.DataFrame:
    """The experiment's ``ok`` samples with a headline score."""
    if frame.empty or experiment.metric not in frame:
        return pd.DataFrame(columns=list(frame.columns) or ["experiment", "outcome"])
    part = frame[(frame["experiment"] == experiment.name) & (frame["outcome"] == "ok")]
    return part.dropna(subset=[experiment.metric])


def axes_by_variety(frames: Sequence[pd.DataFrame], experiment: Experiment) -> list[str]:
    """Cell columns ordered by how many distinct values they take (most first)."""
    distinct = {}
    for column in experiment.cell:
        values = set()
        for frame in frames:
            if column in frame:
                values.update(frame[column].dropna().astype(str))
        distinct[column] = len(values)
    return sorted(experiment.cell, key=lambda c: (-distinct[c], -experiment.cell.index(c)))


def sorted_values(values: Iterable) -> list:
    values = list(dict.fromkeys(v for v in values if v is not None and v == v))
    try:
        return sorted(values, key=float)
    except (TypeError, ValueError):
        return sorted(values, key=str)


def curve_axes(frame: pd.DataFrame, experiment: Experiment) -> tuple[str | None, str | None]:
    """(x, second): the length axis (else the most varied cell column) and the most varied
    other cell column that takes more than one value here (else None)."""
    mine = frame[frame["experiment"] == experiment.name] if not frame.empty else frame
    varied = [c for c in axes_by_variety([mine], experiment)
              if c in mine and mine[c].dropna().nunique() > 1]
    x = experiment.length or (varied[0] if varied else
                              (experiment.cell[0] if experiment.cell else None))
    second = next((c for c in varied if c != x), None)
    return x, second


@dataclasses.dataclass
class CurvePoint:
    value: object  # the length (or the x column's value)
    mean: float | None
    low: float | None
    high: float | None
    n: int  # scored samples
    unscored: int  # samples at this x that were skipped, overflowed, blocked, refused or errored
    blocked: int = 0  # of those, the samples the provider blocked
    with_blocked: dict | None = None  # the mean with each block scored 0 (blocks.with_blocks)


def curve(frame: pd.DataFrame, experiment: Experiment, x: str) -> list[CurvePoint]:
    """The headline mean at each value of ``x``, pooled over the rest of the grid."""
    mine = frame[frame["experiment"] == experiment.name] if not frame.empty else frame
    if mine.empty or x not in mine:
        return []
    good, stopped = scored(mine, experiment), blocked(mine)
    points = []
    for value in sorted_values(mine[x]):
        values = good.loc[good[x] == value, experiment.metric].tolist() if not good.empty \
            else []
        mean, low, high, n = mean_interval(values, experiment.metric_kind)
        total = int((mine[x] == value).sum())
        blocks = int((stopped[x] == value).sum()) if not stopped.empty else 0
        points.append(CurvePoint(_plain(value), _finite(mean), _finite(low), _finite(high), n,
                                 total - n, blocks, with_blocks(values, blocks, experiment)))
    return points


def matrix(frame: pd.DataFrame, experiment: Experiment, x: str, y: str
           ) -> tuple[list, list, dict[tuple, tuple[float, int]]]:
    """(ys, xs, {(y, x): (mean, n)}) of the headline metric over two cell columns."""
    good = scored(frame, experiment)
    xs = sorted_values(good[x]) if not good.empty else []
    ys = sorted_values(good[y]) if not good.empty else []
    cells = {}
    for (yv, xv), part in good.groupby([y, x], sort=False):
        cells[(yv, xv)] = (float(part[experiment.metric].astype(float).mean()), len(part))
    return [_plain(v) for v in ys], [_plain(v) for v in xs], \
        {(_plain(a), _plain(b)): v for (a, b), v in cells.items()}


# -- text --------------------------------------------------------------------------------
def short(column: str | None) -> str:
    return (column or "").split(".")[-1]


def number(value) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"


def value_text(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def fixed_width(header: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """Left-aligned first column, right-aligned numbers."""
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]
    return "\n".join("  ".join(str(v).ljust(widths[i]) if i == 0 else str(v).rjust(widths[i])
                               for i, v in enumerate(row)) for row in [header, *body])


def curve_text(experiment: Experiment, points: Sequence[CurvePoint], x: str) -> str:
    metric = short(experiment.metric)
    blocks = any(p.blocked for p in points)  # the provider's blocks, beside the rate
    body = [[value_text(p.value),
             "—" if p.mean is None else f"{number(p.mean)} [{number(p.low)}, {number(p.high)}]",
             str(p.n), str(p.unscored),
             *([str(p.blocked), interval_text(p.with_blocked)] if blocks else [])]
            for p in points]
    return fixed_width([short(x), f"{metric} [95% CI]", "n", "not scored",
                        *(["blocked", WITH_BLOCKED] if blocks else [])], body)


def matrix_text(experiment: Experiment, frame: pd.DataFrame, x: str, y: str) -> str:
    ys, xs, cells = matrix(frame, experiment, x, y)
    body = [[value_text(yv), *(f"{number(cells[(yv, xv)][0])} ({cells[(yv, xv)][1]})"
                               if (yv, xv) in cells else "—" for xv in xs)] for yv in ys]
    return fixed_width([f"{short(y)} \\ {short(x)}", *(value_text(v) for v in xs)], body)


def compact_text(frame: pd.DataFrame, experiment: Experiment, verdict=None) -> str:
    """The experiment's compact summary: curve table, matrix (if any), verdict line."""
    x, y = curve_axes(frame, experiment)
    if x is None:
        return "no grid columns"
    parts = [f"{short(experiment.metric)} by {short(x)} (mean, 95% interval, scored samples):",
             _indent(curve_text(experiment, curve(frame, experiment, x), x))]
    if y is not None:
        parts += [f"{short(experiment.metric)} by {short(y)} and {short(x)} (mean (n); "
                  "intervals per cell in cells.md):",
                  _indent(matrix_text(experiment, frame, x, y))]
    if verdict is not None:
        parts.append(verdict.text())
    return "\n".join(parts)


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


# -- the full per-cell table, as files ---------------------------------------------------
def cells_markdown(experiments: dict[str, Experiment], summaries: dict[str, list[dict]]) -> str:
    lines = ["# Every grid cell", "",
             "Headline mean over scored (`ok`) samples with its 95% interval (Wilson for 0/1 "
             "scores, percentile bootstrap otherwise) and every outcome's count.", ""]
    for name, rows in summaries.items():
        experiment = experiments[name]
        lines += [f"## {name}: {experiment.title}", ""]
        columns = list(rows[0]["cell"]) if rows else []
        # budgets and thinking, where any sample of the experiment met them
        extra = [k for k in BUDGET_COLUMNS if any(row.get(k) for row in rows)]
        # the headline with each block scored 0, beside it, where the provider blocked any
        blocks = any(row.get("with_blocked") for row in rows)
        header = [*columns, f"{short(experiment.metric)} (mean)", "95% interval", "n scored",
                  *OUTCOMES, *([WITH_BLOCKED] if blocks else []), "prompt tokens cached",
                  *(BUDGET_COLUMNS[k] for k in extra)]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for row in rows:
            interval = "—" if row["ci_low"] is None else \
                f"[{number(row['ci_low'])}, {number(row['ci_high'])}]"
            lines.append("| " + " | ".join([*(str(row["cell"][c]) for c in columns),
                                            number(row["mean"]), interval, str(row["n"]),
                                            *(str(row["outcomes"][o]) for o in OUTCOMES),
                                            *([interval_text(row.get("with_blocked"))]
                                              if blocks else []),
                                            cached_share(row["prompt_tokens"],
                                                         row.get("cached_tokens")),
                                            *(_shown(row.get(k)) for k in extra)])
                         + " |")
        lines.append("")
    return "\n".join(lines)


def cells_csv(summaries: dict[str, list[dict]]) -> str:
    handle = io.StringIO()
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["experiment", "cell", "metric", "mean", "ci_low", "ci_high", "n",
                     *OUTCOMES, *(f"with_blocked_{k}" for k in INTERVAL_KEYS),
                     "prompt_tokens", "completion_tokens", "latency_s",
                     "cached_tokens", *BUDGET_COLUMNS])
    for name, rows in summaries.items():
        for row in rows:
            with_blocked = row.get("with_blocked") or {}
            writer.writerow([name, " ".join(f"{k}={v}" for k, v in row["cell"].items()),
                             row["metric"], row["mean"], row["ci_low"], row["ci_high"],
                             row["n"], *(row["outcomes"][o] for o in OUTCOMES),
                             *(with_blocked.get(k) for k in INTERVAL_KEYS),
                             row["prompt_tokens"], row["completion_tokens"], row["latency_s"],
                             row.get("cached_tokens"), *(row.get(k) for k in BUDGET_COLUMNS)])
    return handle.getvalue()


WITH_BLOCKED = "with blocks scored 0 [95% CI]"
INTERVAL_KEYS = ("mean", "ci_low", "ci_high", "n")
BUDGET_COLUMNS = {"hit_output_limit": "hit output limit",
                  "thinking_ran_out": "thinking ran out",
                  "reasoning_tokens": "reasoning tokens (mean)"}


def _shown(value) -> str:
    return "—" if value is None else f"{value:,.0f}" if isinstance(value, float) else str(value)


def write_cells(run_dir: Path, experiments: dict[str, Experiment],
                summaries: dict[str, list[dict]]) -> list[Path]:
    run_dir.mkdir(parents=True, exist_ok=True)
    markdown, table = run_dir / "cells.md", run_dir / "cells.csv"
    markdown.write_text(cells_markdown(experiments, summaries), encoding="utf-8")
    table.write_text(cells_csv(summaries), encoding="utf-8")
    return [markdown, table]


def _plain(value):
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _finite(value) -> float | None:
    return None if value is None or value != value else float(value)
