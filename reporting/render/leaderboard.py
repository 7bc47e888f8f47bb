"""Every model in the store side by side: one row per model, the verdicts with intervals.

    python -m reporting leaderboard [--results-dir results] [--out DIR]

For each model (the model name its runs were answered by) and experiment, the newest
finished run of that model holding scored samples of that experiment is judged
(``verdicts.verdict``, the same rules as at the end of a run). Writes ``leaderboard.md``,
``leaderboard.csv`` and ``leaderboard.html`` (one figure per experiment: every model's curve
on one axis, each with its 95% band) under ``DIR`` (default ``<results-dir>/leaderboard``).
Each entry names its run and scale: models judged on different grids are not comparable
number for number, and the table says so rather than hiding it. Published reference rows
(an experiment's declared tables: RULER's, Context Arena's) follow, each beside the models
whose runs were measured under its protocol, marked "published, not measured here"; where no
run is comparable, one line says why.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
from pathlib import Path

import pandas as pd

from reporting.gating.compare import RunData, overlay_curves, run_identity
from reporting.analysis.curve_tables import scored
from reporting.experiments import Experiment
from reporting.analysis import published
from reporting.render.report import escape, html_table, image_tag, page, published_table
from reporting.storage.store import ResultsStore, experiment_frames
from reporting.analysis.verdict_settings import (ABSOLUTE_EFFECTIVE_LENGTH, EFFECTIVE_LENGTH, LENGTH_AUC,
                               VerdictSettings)
from reporting.analysis.verdicts import NO_LENGTH_AXIS, Verdict, estimate_text, verdict


@dataclasses.dataclass
class Entry:
    """One model's verdict on one experiment, from its newest run of it."""

    model: str
    run_id: str
    scale: str | None
    verdict: Verdict
    frame: pd.DataFrame  # that run's records of the experiment


@dataclasses.dataclass
class Leaderboard:
    experiments: dict[str, Experiment]  # those some model ran, by name
    entries: dict[str, dict[str, Entry]]  # model -> experiment -> entry
    settings: VerdictSettings

    @property
    def models(self) -> list[str]:
        return sorted(self.entries)

    @functools.cached_property
    def references(self) -> list[tuple]:
        return published_references(self)


def collect(store: ResultsStore, experiments: dict[str, Experiment],
            settings: VerdictSettings = VerdictSettings()) -> Leaderboard:
    entries: dict[str, dict[str, Entry]] = {}
    for row in store.runs():  # oldest first: a newer run of a model replaces an older one
        if not row["finished_at"]:
            continue
        frame = store.frame(row["run_id"])
        if frame.empty:
            continue
        identity = run_identity(row["info"], frame)
        for name, part in experiment_frames(frame):
            experiment = experiments.get(name)
            if experiment is None or scored(part, experiment).empty:
                continue
            # a model's thinking and non-thinking runs are rows of their own
            settings_shown = ", ".join(f"{k}={v}" for k, v in
                                       identity.get("generation", {}).items())
            label = f"{identity['model']} ({settings_shown})" if settings_shown \
                else identity["model"]
            entries.setdefault(label, {})[name] = Entry(
                label, row["run_id"], identity["scale"],
                verdict(part, experiment, settings), part)
    ran = sorted({name for found in entries.values() for name in found})
    return Leaderboard({name: experiments[name] for name in ran}, entries, settings)


# -- the table ---------------------------------------------------------------------------
NUMBER_COLUMNS = {"effective length": EFFECTIVE_LENGTH,
                  "absolute effective length": ABSOLUTE_EFFECTIVE_LENGTH,
                  "length AUC": LENGTH_AUC}


def columns(board: Leaderboard) -> list[tuple[str, str]]:
    """(experiment, column) pairs, in order."""
    out = []
    for name, experiment in board.experiments.items():
        if experiment.length is None:
            out += [(name, experiment.metric.split(".")[-1] + " (all cells)")]
        else:
            out += [(name, column) for column in NUMBER_COLUMNS] + [(name, "length unit")]
        out += [(name, "n"), (name, "run")]
    return out


def cell(entry: Entry | None, column: str) -> str:
    if entry is None:
        return "—"
    v = entry.verdict
    if column == "n":
        return str(v.n)
    if column == "run":
        return f"{entry.run_id} ({entry.scale or '?'})"
    if column in NUMBER_COLUMNS:  # the value and interval, or "no verdict (reason)"
        return v.number_text(NUMBER_COLUMNS[column])
    if column == "length unit":  # a model's own tokens differ from another model's
        return v.length_unit or "—"
    return estimate_text(v.overall)  # an experiment without a length axis: its headline


def rows(board: Leaderboard) -> list[list[str]]:
    return [[model, *(cell(board.entries[model].get(name), column)
                      for name, column in columns(board))] for model in board.models]


def header(board: Leaderboard) -> list[str]:
    return ["model", *(f"{name} {column}" for name, column in columns(board))]


def rules_text(board: Leaderboard) -> str:
    s = board.settings
    bars = ", ".join(f"{name} {'>=' if e.higher_is_better else '<='} "
                     f"{s.absolute_for(e):g}" for name, e in board.experiments.items()
                     if e.length is not None and s.absolute_for(e) is not None) or "none"
    return (f"Effective length: the longest tested length up to which the headline mean stays "
            f">= {s.relative:g} x the mean at the shortest lengths (relative; a lower-is-better "
            f"metric may rise by at most {1 - s.relative:.0%}), or stays past a fixed bar "
            f"(absolute: {bars}); '>= L' when every tested length passed, '< L' when the "
            "shortest failed. Length AUC: area under the mean versus log(length), divided by "
            "the log-length span. Each value with its 95% bootstrap interval [low, high]; n: "
            f"scored samples. A length with fewer than {s.min_samples} scored samples is left "
            "out; 'no verdict (reason)' where the data support no number (too few samples, "
            "a base score at or below chance, no bar). Experiments without a length axis "
            f"({NO_LENGTH_AXIS}) show their headline mean over all cells.")


def markdown(board: Leaderboard) -> str:
    lines = ["# contextrot leaderboard", "", rules_text(board), "",
             *_markdown_table(header(board), rows(board))]
    for table, measured, why in board.references:
        lines.append("")
        if not measured:
            lines.append(published.not_shown_text(table, why))
            continue
        lines += [f"## {table.title}", "", *_markdown_table(*published.rows(table, measured)),
                  "", published.source_text(table) + (f" {why}" if why else "")]
    return "\n".join(lines) + "\n"


def _markdown_table(head: list[str], body: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(r) + " |" for r in body)]


# -- published reference rows ------------------------------------------------------------
def published_references(board: Leaderboard) -> list[tuple]:
    """(table, measured rows, why some or every model is not beside it) per published table
    of an experiment that some model ran: a model's row is its newest run's, measured under
    the table's protocol; a model whose run was not is named with the reason."""
    found = []
    for name, experiment in board.experiments.items():
        per_model = {model: published.references(entry.frame, experiment)
                     for model in board.models
                     if (entry := board.entries[model].get(name)) is not None}
        for i, table in enumerate(experiment.published_tables()):
            measured, apart = [], []
            for model, judged in per_model.items():
                reference, entry = judged[i], board.entries[model][name]
                if reference.comparable and not reference.error:
                    measured.append((f"{model} ({entry.run_id})", reference.measured or {}))
                else:
                    apart.append(f"{model}'s run {entry.run_id}: " + (
                        "; ".join(reference.problems) or
                        f"its row could not be computed ({reference.error})"))
            why = ""
            if apart:
                why = ("Not comparable: " if measured else "no run here is comparable: ") \
                    + "; ".join(apart)
            found.append((table, measured, why))
    return found


def csv_text(board: Leaderboard) -> str:
    """One row per model; every number and interval bound in a column of its own."""
    handle = io.StringIO()
    writer = csv.writer(handle, lineterminator="\n")
    fields = []
    for name, experiment in board.experiments.items():
        numbers = ["overall"] if experiment.length is None else [*NUMBER_COLUMNS.values(),
                                                                 "base"]
        fields += [(name, f, part) for f in numbers for part in ("value", "low", "high")]
        if experiment.length is not None:  # why a number is empty: "base score 0", ...
            fields += [(name, f, "no_verdict") for f in NUMBER_COLUMNS.values()]
        fields += [(name, "n", None), (name, "run_id", None), (name, "scale", None)]
    writer.writerow(["model", *(f"{n}.{f}" + (f".{p}" if p else "") for n, f, p in fields)])
    for model in board.models:
        out = [model]
        for name, field, part in fields:
            entry = board.entries[model].get(name)
            if entry is None:
                out.append("")
            elif part is None:
                out.append({"n": entry.verdict.n, "run_id": entry.run_id,
                            "scale": entry.scale}[field])
            elif part == "no_verdict":
                out.append(entry.verdict.no_verdict.get(field, ""))
            else:
                estimate = getattr(entry.verdict, field)
                value = None if estimate is None else getattr(estimate, part)
                out.append("" if value is None else value)
        writer.writerow(out)
    return handle.getvalue()


# -- the page ----------------------------------------------------------------------------
def figures(board: Leaderboard, out: Path) -> dict[str, Path]:
    """Per experiment, every model's curve on one axis."""
    drawn = {}
    for name, experiment in board.experiments.items():
        runs = [RunData(entry.run_id, {"model": model}, entry.frame, name=model)
                for model in board.models
                if (entry := board.entries[model].get(name)) is not None]
        path = overlay_curves(runs, experiment, out, title="every model")
        if path is not None:
            drawn[name] = path
    return drawn


def html(board: Leaderboard, drawn: dict[str, Path]) -> str:
    body = [f"<p>{escape(rules_text(board))}</p>",
            html_table(header(board), [[escape(v) for v in r] for r in rows(board)])]
    if not board.models:
        body.append("<p class='muted'>no finished run with scored samples in this store</p>")
    for table, measured, why in board.references:
        if not measured:
            body.append(f"<p class='muted'>{escape(published.not_shown_text(table, why))}</p>")
            continue
        body.append(f"<h2>{escape(table.title)}</h2>" + published_table(table, measured)
                    + (f"<p class='muted'>{escape(why)}</p>" if why else ""))
    for name, path in drawn.items():
        experiment = board.experiments[name]
        axis = experiment.length or "its most varied grid column"
        body.append(f"<h2>{escape(name)}: {escape(experiment.title)}</h2>"
                    f"<p class='muted'>{escape(experiment.metric.split('.')[-1])} against "
                    f"{escape(axis)}, one line per model, shaded: 95% interval</p>")
        body.append(image_tag(path, f"{name}: every model's curve"))
    return page("contextrot leaderboard", "".join(body))


def write(board: Leaderboard, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {"markdown": out / "leaderboard.md", "csv": out / "leaderboard.csv",
             "html": out / "leaderboard.html"}
    paths["markdown"].write_text(markdown(board), encoding="utf-8")
    paths["csv"].write_text(csv_text(board), encoding="utf-8")
    paths["html"].write_text(html(board, figures(board, out)), encoding="utf-8")
    return paths

