"""Work with stored runs without calling any model.

    python -m reporting runs                         list the stored runs
    python -m reporting report RUN                   re-render RUN's plots and report.html
    python -m reporting compare RUN RUN [RUN...]     overlay runs; paired difference tables
    python -m reporting export RUN --format csv|jsonl|parquet|summary|inspect
    python -m reporting gate RUN --baseline B --fail-on EXPR   the CI gate, outside pytest
    python -m reporting leaderboard                  every model side by side, with verdicts
    python -m reporting merge STORE... --into DIR    join the shards of a run (--shard K/N)

Every command takes ``--results-dir`` (default ``results``). RUN is a run id or ``latest``.
Bad input ends with one line on stderr and exit status 2; ``gate`` exits 7 on a regression
and 8 when the runs cannot be compared, as the pytest gate does.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sqlite3
import sys
from pathlib import Path

from reporting.gating import gate
from reporting.analysis import verdict_settings
from reporting.gating.compare import RunData, compare_runs, format_deltas, overlay_curves, run_identity, \
    settings_lines, side_by_side, side_by_side_heatmaps, unit_mismatch
from reporting.experiments import Experiment
from reporting.render.report import build_comparison
from reporting.render.run_files import write_stored_run
from reporting.storage.sqlite import storage_problem
from reporting.storage.store import ResultsStore

USAGE_EXIT = 2
WRITE_FIX = {"the folder is read-only": "its stored runs can still be read: pass {} DIR to "
                                        "write elsewhere",
             "the disk is full": "free space, or pass {} DIR to write elsewhere"}


class CommandError(Exception):
    """One line for the user: what is wrong and how to fix it."""


def load_catalog(module: str) -> dict[str, Experiment]:
    """The experiments, found the way the root conftest finds them (``benchmarks``)."""
    try:
        package = importlib.import_module(module)
    except ImportError as error:
        raise CommandError(f"cannot import the experiments package {module!r} ({error}); run "
                           "from the project root or pass --experiments") from None
    return {p.EXPERIMENT.name: p.EXPERIMENT for p in package.experiment_packages()}


def open_store(results_dir: str) -> ResultsStore:
    database = Path(results_dir) / "contextrot.sqlite"
    if not database.exists():
        raise CommandError(f"no results store at {database}; pass --results-dir DIR (the "
                           "directory pytest wrote with --results-dir)")
    return ResultsStore(database, read_only=True)  # every command here only reads it


def output_folder(folder: Path, option: str) -> Path:
    """``folder``, made if missing; one line naming it (and ``option``) where it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        existing = next((p for p in (folder, *folder.parents) if p.exists()), folder)
        why = f"{existing} is a file, not a folder" if not existing.is_dir() else \
            f"{error.strerror or error}" + (f" ({existing})" if existing != folder else "")
        raise CommandError(f"{option} {folder}: the folder cannot be made: {why}; give a "
                           "folder you can write") from None
    if not os.access(folder, os.W_OK | os.X_OK):  # (a read-only mount too, even as root)
        raise CommandError(f"{option} {folder}: the folder is read-only; give a folder you "
                           "can write")
    return folder


def resolve_run(store: ResultsStore, run_id: str) -> str:
    runs = [r["run_id"] for r in store.runs()]
    if run_id == "latest" and runs:
        return runs[-1]
    if run_id not in runs:
        known = ", ".join(runs[-5:]) or "none"
        raise CommandError(f"no run {run_id!r} in {store.database} (latest: {known}); list "
                           f"them with `python -m reporting runs --results-dir "
                           f"{store.database.parent}`")
    return run_id


# -- commands ----------------------------------------------------------------------------
def command_runs(args) -> int:
    store = open_store(args.results_dir)
    for row in store.runs():
        frame = store.frame(row["run_id"])
        identity = run_identity(row["info"], frame)
        experiments = ",".join(sorted(frame["experiment"].unique())) if not frame.empty else "-"
        print(f"{row['run_id']}  started {row['started_at']}  exit {row['exit_status']}  "
              f"model {identity['model']} @ {identity['endpoint'] or '-'}  "
              f"samples {len(frame)}  experiments {experiments}")
    return 0


def command_report(args) -> int:
    store = open_store(args.results_dir)
    run_id = resolve_run(store, args.run)
    run_dir = Path(args.out) if args.out else Path(args.results_dir) / run_id
    if args.out:
        output_folder(run_dir, "--out")
    files = write_stored_run(store, run_id, load_catalog(args.experiments), run_dir,
                             settings(args), warn=lambda message: print(message, file=sys.stderr))
    print(files.report)
    return 0


def settings(args) -> verdict_settings.VerdictSettings | None:
    """The verdict rules given on the command line; None: a stored run's own (or the
    defaults)."""
    try:
        return verdict_settings.from_args(args)
    except verdict_settings.SettingsError as error:
        raise CommandError(str(error)) from None


def command_leaderboard(args) -> int:
    from reporting.render.leaderboard import collect, markdown, write

    store = open_store(args.results_dir)
    board = collect(store, load_catalog(args.experiments),  # one rule for every model
                    settings(args) or verdict_settings.VerdictSettings())
    out = Path(args.out) if args.out else Path(args.results_dir) / "leaderboard"
    if args.out:
        output_folder(out, "--out")
    paths = write(board, out)
    print(markdown(board))
    print("written: " + ", ".join(str(p) for p in paths.values()))
    return 0


def command_merge(args) -> int:
    from reporting.storage.merge import MergeError, NotComparable, merge

    try:
        merged = merge(args.stores, args.into, load_catalog(args.experiments), settings(args),
                       run_id=args.run_id, warn=lambda message: print(message, file=sys.stderr))
    except NotComparable as error:
        print(f"merge: REFUSED (exit {gate.NOT_COMPARABLE_EXIT}): {error}", file=sys.stderr)
        return gate.NOT_COMPARABLE_EXIT
    except MergeError as error:
        raise CommandError(str(error)) from None
    print(f"merged {merged.records} records of {len(merged.shards)} shards "
          f"({'; '.join(merged.shards)}) into run {merged.run_id}")
    print(f"report: {merged.files.report}")
    return 0


def command_compare(args) -> int:
    store = open_store(args.results_dir)
    run_ids = [resolve_run(store, r) for r in args.runs]
    if len(set(run_ids)) < 2:
        raise CommandError("compare needs at least two different runs, e.g. "
                           "`python -m reporting compare RUN_A RUN_B`")
    experiments = load_catalog(args.experiments)
    if args.experiment:
        unknown = [e for e in args.experiment if e not in experiments]
        if unknown:
            raise CommandError(f"no experiment {unknown[0]!r}; choose from "
                               f"{', '.join(sorted(experiments))}")
        experiments = {k: v for k, v in experiments.items() if k in args.experiment}
    runs = []
    for run_id in run_ids:
        frame = store.frame(run_id)
        runs.append(RunData(run_id, run_identity(store.run_info(run_id), frame), frame))
    mixed = unit_mismatch([(r.run_id, r.identity) for r in runs])
    if mixed:
        print(f"compare: REFUSED (exit {gate.NOT_COMPARABLE_EXIT}): {mixed}", file=sys.stderr)
        return gate.NOT_COMPARABLE_EXIT
    out = Path(args.out) if args.out else Path(args.results_dir) / "compare" / "__".join(run_ids)
    if args.out:
        output_folder(out, "--out")
    figures: dict[str, list[Path]] = {}
    for name, experiment in sorted(experiments.items()):
        drawn = [overlay_curves(runs, experiment, out), side_by_side_heatmaps(runs, experiment,
                                                                              out)]
        if any(drawn):
            figures[name] = [p for p in drawn if p is not None]
    for line in settings_lines(runs):
        print(line)
    table = side_by_side(runs, experiments)
    if table:
        print("side by side (headline mean; mean reasoning tokens; samples whose thinking ran "
              "out):")
        print(table)
    deltas = compare_runs(runs, experiments)
    for run_id, found in deltas.items():
        print(f"{run_id} minus {run_ids[0]} (paired by sample id and stimulus hash; p adjusted "
              "with Benjamini-Hochberg):")
        print(format_deltas(found) if found else "  no paired samples")
    page = out / "compare.html"
    page.write_text(build_comparison(runs, figures, deltas), encoding="utf-8")
    print(f"plots and page: {page}")
    return 0


def command_export(args) -> int:
    store = open_store(args.results_dir)
    run_id = resolve_run(store, args.run)
    frame = store.frame(run_id)
    if frame.empty:  # (none stored, or none readable: each was named)
        raise CommandError(f"run {run_id!r} in {store.database} has no records to export; "
                           "run its command again, or export another run (`python -m "
                           "reporting runs` lists them)")
    if args.format == "inspect":
        return export_inspect(store, run_id, args)
    suffix = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet",
              "summary": "-summary.json"}[args.format]
    out = Path(args.out) if args.out else Path(args.results_dir) / run_id / f"export{suffix}"
    if args.out:
        output_folder(out.parent, "--out")
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
    if args.format == "jsonl":
        with out.open("w", encoding="utf-8") as handle:
            for record in store.records(run_id):
                handle.write(record.to_json() + "\n")
    elif args.format == "csv":
        frame.to_csv(out, index=False)
    elif args.format == "parquet":
        try:
            frame.astype({c: str for c in frame.columns if frame[c].dtype == object}) \
                .to_parquet(out, index=False)
        except ImportError:
            raise CommandError("Parquet needs pyarrow: `pip install pyarrow`, or export "
                               "--format csv|jsonl") from None
    else:  # the gate's baseline file: identity plus each sample's ids and scores
        identity = run_identity(store.run_info(run_id), frame)
        out.write_text(json.dumps({"run_id": run_id, "identity": identity,
                                   "samples": gate.compact_samples(frame)}, indent=1) + "\n")
    print(out)
    return 0


def export_inspect(store: ResultsStore, run_id: str, args) -> int:
    """One inspect_ai eval log per experiment (reporting/render/inspect_log.py)."""
    from reporting.render.inspect_log import InspectMissing, export_run

    out = Path(args.out) if args.out else Path(args.results_dir) / run_id / "inspect"
    if args.out:
        output_folder(out, "--out")
    try:
        paths = export_run(store, run_id, load_catalog(args.experiments), out)
    except InspectMissing as error:
        raise CommandError(str(error)) from None
    for path in paths:
        print(path)
    return 0


def command_gate(args) -> int:
    store = open_store(args.results_dir)
    run_id = resolve_run(store, args.run)
    experiments = load_catalog(args.experiments)
    try:
        thresholds = [gate.parse_threshold(t) for t in args.fail_on]
        gate.check_thresholds(thresholds, experiments)
        baseline = gate.load_baseline(args.baseline, store, current_run=run_id)
    except gate.GateUsageError as error:
        raise CommandError(str(error)) from None
    if baseline is None:
        print(f"gate: warning: no baseline yet at {args.baseline!r}; passes")
        return 0
    frame = store.frame(run_id)
    verdict = gate.evaluate(thresholds, baseline, run_identity(store.run_info(run_id), frame),
                            frame, experiments, args.gate_alpha,
                            settings(args) or verdict_settings.VerdictSettings(),
                            args.allow_different_settings)
    for line, _ in verdict.lines():
        print(line)
    return verdict.exit_status


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="python -m reporting", description=__doc__.split("\n")[0])
    commands = main.add_subparsers(dest="command", required=True)

    def command(name: str, handler, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--results-dir", default="results", metavar="DIR",
                         help="where pytest wrote the store (default: results)")
        sub.add_argument("--experiments", default="benchmarks", metavar="PACKAGE",
                         help="the package declaring the experiments (default: benchmarks)")
        sub.set_defaults(handler=handler)
        return sub

    def with_rules(sub: argparse.ArgumentParser) -> argparse.ArgumentParser:
        verdict_settings.add_options(sub.add_argument)
        return sub

    command("runs", command_runs, "list the stored runs")
    report = with_rules(command("report", command_report, "re-write a run's summary.json, "
                                "cells.md/.csv, plots and report.html"))
    report.add_argument("run", metavar="RUN")
    report.add_argument("--out", metavar="DIR",
                        help="where the files go (default: DIR/RUN; a read-only store's runs "
                             "are rendered elsewhere)")
    compare = command("compare", command_compare,
                      "overlay runs on the same curves, heatmaps side by side, and print "
                      "paired difference tables against the first run")
    compare.add_argument("runs", nargs="+", metavar="RUN")
    compare.add_argument("--experiment", action="append", metavar="NAME",
                         help="only this experiment (repeatable)")
    compare.add_argument("--out", metavar="DIR",
                         help="where the plots and compare.html go (default: "
                              "DIR/compare/RUN__RUN)")
    export = command("export", command_export, "export a run's records")
    export.add_argument("run", metavar="RUN")
    export.add_argument("--format", choices=("csv", "jsonl", "parquet", "summary", "inspect"),
                        required=True, help="summary: the gate's baseline file; inspect: "
                        "one inspect_ai eval log per experiment, for `inspect view`")
    export.add_argument("--out", metavar="PATH", help="default: DIR/RUN/export.FORMAT; "
                        "for inspect, a folder (default: DIR/RUN/inspect)")
    gate_command = with_rules(command("gate", command_gate,
                                      "gate RUN against a baseline, as pytest does"))
    gate_command.add_argument("run", metavar="RUN")
    gate_command.add_argument("--baseline", required=True, metavar="RUN|SUMMARY")
    gate_command.add_argument("--allow-different-settings", action="store_true",
                              help="gate against a baseline whose generation settings differ")
    gate_command.add_argument("--fail-on", action="append", required=True,
                              metavar="EXPERIMENT[.METRIC]:DELTA")
    gate_command.add_argument("--gate-alpha", type=float, default=gate.DEFAULT_ALPHA)
    board = with_rules(command("leaderboard", command_leaderboard,
                               "every model in the store side by side: verdicts with "
                               "intervals as Markdown, CSV and an HTML page with plots"))
    board.add_argument("--out", metavar="DIR", help="default: DIR/leaderboard")
    joined = with_rules(command("merge", command_merge,
                                "join the stores and run folders of a run's shards "
                                "(pytest --shard K/N) into one run"))
    joined.add_argument("stores", nargs="+", metavar="STORE",
                        help="a shard's results directory (or its contextrot.sqlite)")
    joined.add_argument("--into", required=True, metavar="DIR",
                        help="the results directory of the merged run")
    joined.add_argument("--run-id", default=None, metavar="ID",
                        help="the shards' run id (and the merged run's); needed when a store "
                             "holds several runs or the shards' ids differ")
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        for name, value in sorted(vars(args).items()):  # float() takes nan and inf
            if isinstance(value, float) and not math.isfinite(value):
                raise CommandError(f"--{name.replace('_', '-')} {value}: give a finite number "
                                   "(not NaN or Infinity)")
        if hasattr(args, "verdict_relative"):  # a bad rule is named before any store is read
            settings(args)
        return args.handler(args)
    except CommandError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_EXIT
    except (FileExistsError, NotADirectoryError) as error:
        print(f"error: {error.filename} is a file where a folder must go; give a folder",
              file=sys.stderr)
        return USAGE_EXIT
    except (sqlite3.DatabaseError, OSError) as error:
        problem = storage_problem(str(error))
        if problem is not None:  # a read-only folder, a full disk
            where = f" {error.filename}" if getattr(error, "filename", None) else ""
            out = "--into" if args.command == "merge" else "--out"
            print(f"error: cannot write{where} ({problem}); "
                  f"{WRITE_FIX[problem].format(out)}", file=sys.stderr)
        elif isinstance(error, sqlite3.DatabaseError):  # a store that a crash or a copy broke
            print(f"error: a results store is not a usable SQLite file ({error}); move it "
                  "aside or point --results-dir elsewhere", file=sys.stderr)
        else:
            raise
        return USAGE_EXIT


if __name__ == "__main__":
    sys.exit(main())
