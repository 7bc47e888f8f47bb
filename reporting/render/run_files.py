"""The files of a finished run, written from its records alone.

    <run-id>/summary.json    per experiment: the verdict, every grid cell; each sample's ids
                             and scores (what a later run's gate pairs with)
    <run-id>/cells.md, .csv  every grid cell: outcome counts, headline mean and interval
    <run-id>/plots/<experiment>/*.png
    <run-id>/report.html

The pytest plugin writes them at the end of a run, ``python -m reporting report`` re-writes
them for a stored run, and ``python -m reporting merge`` for the run it joined from shards:
one code path, so a merged run's files are those of a run made in one place.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from reporting.gating.compare import run_identity
from reporting.analysis.aggregations import aggregation_findings
from reporting.analysis.blocks import block_findings
from reporting.analysis.budgets import budget_findings
from reporting.analysis.cliffs import cliff_findings
from reporting.analysis.curve_tables import write_cells
from reporting.experiments import Experiment
from reporting.gating.gate import compact_samples
from reporting.render.report import build_report, render_plots, samples_asked
from reporting.storage.records import NOT_NEEDED
from reporting.storage.store import ResultsStore, experiment_frames, records_frame
from reporting.analysis.summary import cached_total, cost_total, summarize
from reporting.analysis.verdict_settings import VerdictSettings, from_run_options
from reporting.analysis.verdicts import Verdict, verdicts

# A run's files read outputs only to show excerpts (report.html); the statistics read scores.
FRAME_OUTPUT_CHARS = 4000


@dataclasses.dataclass
class RunFiles:
    summaries: dict[str, list[dict]]
    verdicts: dict[str, Verdict]
    plots: dict[str, list[Path]]
    report: Path
    cells: list[Path]
    findings: dict[str, dict] = dataclasses.field(default_factory=dict)


def summaries_of(frame: pd.DataFrame, experiments: dict[str, Experiment]
                 ) -> dict[str, list[dict]]:
    return {name: summarize(part, experiments[name])
            for name, part in experiment_frames(frame) if name in experiments}


def findings_of(frame: pd.DataFrame, experiments: dict[str, Experiment]) -> dict[str, dict]:
    """Each experiment's extra findings (``Experiment.findings``), where it has any."""
    found = {}
    for name, part in experiment_frames(frame):
        if name not in experiments:
            continue
        finder = experiments[name].finder()
        result = dict(finder(part) or {}) if finder is not None else {}
        # the provider's blocks (the rate without and with them), budgets that ran out,
        # cliffs of the curve, the field's aggregates: every experiment's (each {} when it
        # has nothing to say)
        for key, extra in (("blocks", block_findings(part, experiments[name])),
                           ("budget", budget_findings(part, experiments[name])),
                           ("cliffs", cliff_findings(part, experiments[name])),
                           ("aggregations", aggregation_findings(part, experiments[name]))):
            if extra:
                result[key] = {k: v for k, v in extra.items() if k != "lines"}
                result["lines"] = [*result.get("lines", ()), *extra["lines"]]
        if result:
            found[name] = result
    return found


def not_needed_counts(frame: pd.DataFrame) -> dict[str, int]:
    if frame.empty:
        return {}
    settled = frame[frame["outcome"] == NOT_NEEDED]
    return {str(k): int(v) for k, v in settled.groupby("experiment").size().items()}


def write_run_files(run_dir: Path, run_id: str, info: dict, frame: pd.DataFrame,
                    experiments: dict[str, Experiment], settings: VerdictSettings, *,
                    expected: int | None = None, missing: Sequence[str] = (),
                    run_row: dict | None = None,
                    gate_lines: Sequence[tuple[str, bool]] = (),
                    warn: Callable[[str], None] = lambda message: None) -> RunFiles:
    run_dir.mkdir(parents=True, exist_ok=True)
    summaries = summaries_of(frame, experiments)
    found = verdicts(frame, experiments, settings)
    notes = findings_of(frame, experiments)
    model = info.get("model") or {}
    summary = {
        "run_id": run_id,
        "model": model,
        "identity": run_identity(info, frame),
        "expected": len(frame) if expected is None else expected,
        "received": len(frame),
        "missing": list(missing),
        # per experiment: (samples asked, samples that never ran)
        "asked": {name: {"asked": a, "never_ran": n}
                  for name, (a, n) in samples_asked(info, frame).items()},
        # --settle: the samples recorded as not needed, per experiment (docs/plan.md)
        "not_needed": not_needed_counts(frame),
        "model_calls": _total(frame, "model_calls"),
        "cached_calls": _total(frame, "cached_calls"),
        # the endpoint's prefix cache: prompt tokens it served (None: it does not say)
        "prompt_tokens": _total(frame, "prompt_tokens"),
        "cached_tokens": cached_total(frame) if not frame.empty else None,
        # USD at list prices (fixtures/engine/prices.py): the records' usage, and what this run sent
        "cost_usd": cost_total(frame) if not frame.empty else None,
        "spent_usd": cost_total(frame, "spent_usd") if not frame.empty else None,
        "prices": info.get("prices"),
        "verdict_rules": settings.to_dict(),
        "verdicts": {name: v.to_dict() for name, v in found.items()},
        "findings": notes,
        "experiments": summaries,
        # what a later run's gate pairs with (--baseline this-file)
        "samples": compact_samples(frame),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    cells = write_cells(run_dir, experiments, summaries)
    plots = render_plots(frame, experiments, run_dir / "plots", warn)
    page = build_report(run_id, info, frame, experiments, plots, run_row=run_row,
                        gate_lines=gate_lines, verdicts=found, settings=settings,
                        findings=notes, summaries=summaries)
    report = run_dir / "report.html"
    report.write_text(page, encoding="utf-8")
    return RunFiles(summaries, found, plots, report, cells, notes)


def write_stored_run(store: ResultsStore, run_id: str, experiments: dict[str, Experiment],
                     run_dir: Path, settings: VerdictSettings | None = None,
                     warn: Callable[[str], None] = lambda message: None) -> RunFiles:
    """Re-write a stored run's files from the store alone (no model is called); ``settings``
    None: the verdict rules the run was started with."""
    stored = store.read_run(run_id)
    frame = records_frame(stored.records, output_chars=FRAME_OUTPUT_CHARS)
    info, row = stored.row["info"], stored.row
    if settings is None:
        settings = from_run_options(info.get("options") or {})
    # the verdict the run's own gate reached, if it had one (in the run's folder beside the
    # store, wherever these files go)
    gate_file = store.database.parent / run_id / "gate.json"
    gate_lines = [tuple(line) for line in json.loads(gate_file.read_text()).get("lines", [])] \
        if gate_file.exists() else ()
    return write_run_files(run_dir, run_id, info, frame, experiments, settings,
                           expected=info.get("expected"), missing=info.get("missing") or (),
                           run_row=row, gate_lines=gate_lines, warn=warn)


def _total(frame: pd.DataFrame, column: str) -> int:
    return int(frame[column].fillna(0).sum()) if column in frame else 0
