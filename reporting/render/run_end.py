"""The end of a run, in a process of its own: the gate, the run's files, the terminal's lines.

The statistics, the tables and the plots need pandas, scipy and matplotlib: about 150 MB and
two seconds of imports. A pytest process never loads them: the reporting plugin starts an
``EndProcess`` once samples are collected, which imports them while the samples run (at the
lowest priority: the samples' own processes come first), and hands it a ``RunEnd`` (pickled,
on stdin) as soon as the last record is in; the session's end reads back an ``Ended``. So a
single-process run keeps its memory for the model's prompts, the controller of ``-n 16``
stays small, and neither the imports nor xdist's shutdown delay the run's files.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from reporting.experiments import Experiment
from reporting.storage.records import NOT_NEEDED
from reporting.storage.run import RunContext


@dataclasses.dataclass
class RunEnd:
    """What the end of a run needs from the pytest session (no model, no pytest objects)."""

    run: RunContext
    experiments: dict[str, Experiment]
    settings: object  # verdict_settings.VerdictSettings
    thresholds: list  # thresholds.Threshold
    baseline: object | None  # gate.Baseline, loaded at session start (a bad one fails early)
    baseline_spec: str | None
    alpha: float
    received: list[str]  # node ids whose record arrived in this session: the run's table
    expected: int
    missing: list[str]
    stopped: bool  # a fatal fault or Ctrl-C: the missing samples were not run
    exit_status: int  # the session's, before the gate
    model_calls: int
    cached_calls: int
    allow_different_settings: bool = False  # gate a run whose generation settings differ
    inspect_log_dir: str | None = None  # --inspect-log-dir: the run as inspect_ai eval logs


@dataclasses.dataclass
class Ended:
    exit_status: int  # the gate's 7 or 8 when it failed a passing session
    lines: list[tuple[str, str | None]]  # the terminal's section: (text, colour)


def end_run(end: RunEnd) -> Ended:
    """Judge, store and render the run: gate.json, the store's final status, samples.jsonl,
    summary.json, cells, plots and report.html; then the lines the terminal prints. The store
    is read once: the gate, every file and the terminal's lines get the same frame (the
    inspect logs the same records)."""
    from reporting.analysis.curve_tables import compact_text
    from reporting.render.run_files import FRAME_OUTPUT_CHARS, write_run_files
    from reporting.storage.store import ResultsStore, experiment_frames, records_frame

    run, lines = end.run, []
    store = ResultsStore(run.database)
    try:
        stored = store.read_run(run.run_id)
        records = stored.received(set(end.received))  # this session's: the report's
        frame = records_frame(records, output_chars=FRAME_OUTPUT_CHARS)
        info = stored.row["info"]
        verdict, status = _gate(end, info, frame)
        finished = store.finish_run(run.run_id, status)
        store.write_jsonl(run.run_id, run.run_dir / "samples.jsonl", stored.texts)
        row = {**stored.row, "finished_at": finished, "exit_status": status}
    finally:
        store.close()
    files = write_run_files(
        run.run_dir, run.run_id, info, frame, end.experiments, end.settings,
        expected=end.expected, missing=end.missing, run_row=row,
        gate_lines=verdict.lines() if verdict else (),
        warn=lambda message: lines.append((message, "red")))
    if end.inspect_log_dir:
        from reporting.render.inspect_log import write_logs

        logs = write_logs(records, info, row, end.experiments, Path(end.inspect_log_dir),
                          files.verdicts)

    from reporting.render.report import experiment_order, on_embedded_model, samples_asked

    experiments, parts = end.experiments, dict(experiment_frames(frame))
    asked, embedded = samples_asked(info, frame), on_embedded_model(info)
    # those with a falling curve and a verdict first; an experiment that never started too
    for name in experiment_order(info, frame, files.verdicts):
        if name not in experiments:
            continue
        wanted, never = asked[name]
        ran = f"{len(parts[name]) if name in parts else 0} of {wanted} samples ran" + (
            f", {never} never ran" if never else "")
        settled = int((parts[name]["outcome"] == NOT_NEEDED).sum()) if name in parts else 0
        if settled:  # --settle: recorded, not run (docs/plan.md)
            ran += f", not_needed {settled}: the verdict was settled without them"
        lines.append((f"{name}: {experiments[name].title} ({ran})", "red" if never else None))
        if embedded and experiments[name].on_embedded:
            lines.append((f"  on the embedded 135M model: {experiments[name].on_embedded}",
                          None))
        if name not in parts:
            lines.append(("  never started", "red"))
            continue
        part = parts[name]
        lines += [(f"  {line}", None) for line in
                  compact_text(part, experiments[name], files.verdicts.get(name)).splitlines()]
        lines += [(f"  {line}", None) for line in files.findings.get(name, {}).get("lines", ())]
    run_dir = run.run_dir
    if files.summaries:
        lines.append((f"every grid cell (counts, intervals): {run_dir / 'cells.md'} and "
                      "cells.csv", None))
    lines.append((f"samples: {len(end.received)} received of {end.expected} expected; model "
                  f"calls: {end.model_calls} (+{end.cached_calls} served from the response "
                  "cache)", None))
    if "cached_tokens" in frame and frame["cached_tokens"].notna().any():
        from reporting.analysis.summary import cached_share, cached_total

        lines.append(("prompt tokens served by the endpoint's prefix cache: " + cached_share(
            int(frame["prompt_tokens"].fillna(0).sum()), cached_total(frame)), None))
    from reporting.analysis.summary import cost_line

    if (cost := cost_line(frame, info.get("prices"))) is not None:
        lines.append((cost, None))
    for name, paths in files.plots.items():
        lines.append((f"plots of {name}: {len(paths)} in {run_dir / 'plots' / name}", None))
    lines += missing_lines(end)
    if end.baseline_spec and end.baseline is None:
        lines.append((f"gate: warning: no baseline yet at {end.baseline_spec!r}; this run is "
                      f"saved and passes (use --baseline {run_dir / 'summary.json'} next "
                      "time)", "yellow"))
    lines += [(line, "red" if bad else None) for line, bad in
              (verdict.lines() if verdict else ())]
    if end.inspect_log_dir:
        lines.append((f"inspect logs: {len(logs)} in {end.inspect_log_dir} (inspect view "
                      f"--log-dir {end.inspect_log_dir})", None))
    lines += [(f"report: {files.report}", None), (f"results: {run_dir}", None)]
    return Ended(status, lines)


def missing_lines(end: RunEnd) -> list[tuple[str, str | None]]:
    if end.missing and end.stopped:
        return [(f"contextrot: {len(end.missing)} samples were not run (the run stopped); run "
                 "the same command again to finish them", "red")]
    if end.missing:
        return [(f"contextrot: {len(end.missing)} expected samples sent no record (a crashed "
                 "worker?): " + ", ".join(end.missing[:10]), "red")]
    return []


def _gate(end: RunEnd, info: dict, frame):
    """The CI gate's verdict (None without a baseline) and the exit status after it."""
    if end.baseline is None:
        return None, end.exit_status
    import json

    from reporting.gating import gate
    from reporting.gating.compare import run_identity

    verdict = gate.evaluate(end.thresholds, end.baseline, run_identity(info, frame), frame,
                            end.experiments, end.alpha, end.settings,
                            end.allow_different_settings)
    end.run.run_dir.mkdir(parents=True, exist_ok=True)
    (end.run.run_dir / "gate.json").write_text(json.dumps(verdict.to_dict(), indent=2) + "\n")
    # A harness failure (exit 1, 2, ...) says more than a regression: keep it.
    if verdict.exit_status and end.exit_status == 0:
        return verdict, verdict.exit_status
    return verdict, end.exit_status


class EndProcess:
    """A child Python that loads the end's libraries while the samples run, then waits.

    Started when samples are collected; ``send`` hands it the ``RunEnd`` and ``result`` waits
    for the ``Ended``. Its imports (pandas, scipy, matplotlib: about two seconds of CPU) run
    in a thread at the lowest priority, on what the run leaves of the CPU, so they cost the
    run nothing; its own work runs at normal priority (niced, it would lose the CPU to
    exiting workers). A child that dies is replaced by a fresh one; a request that cannot be
    pickled (an experiment declared with a lambda) ends in-process.
    """

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="contextrot-end-")
        self._process: subprocess.Popen | None = None
        self._ended: Ended | None = None  # computed in-process (an unpicklable request)
        self._start()

    def _start(self) -> None:
        folder = Path(self._folder.name)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        with (folder / "stderr").open("wb") as stderr:
            # -c, not -m: the classes must unpickle as reporting.render.run_end's, not __main__'s
            # A session of its own: the terminal's Ctrl-C goes to the run's process group,
            # and the run's files must still be written from what was recorded.
            self._process = subprocess.Popen(
                [sys.executable, "-c", f"from {__name__} import main; main()",
                 str(folder / "ended.pickle")], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=stderr, env=env, start_new_session=True)

    def send(self, end: RunEnd) -> None:
        """Hand ``end`` to the child, which starts writing at once; ``result`` waits for it."""
        self._ended = None
        try:
            request = pickle.dumps(end)
        except (pickle.PicklingError, AttributeError, TypeError):
            self.close()
            try:
                self._ended = end_run(end)
            except Exception as error:  # as the child would report it: one line
                raise RuntimeError(f"{type(error).__name__}: {error}") from error
            return
        for attempt in range(2):
            try:
                self._process.stdin.write(request)
                self._process.stdin.close()
                return
            except (BrokenPipeError, OSError):  # it died before being asked: a fresh one
                self._kill()
                if attempt:
                    raise RuntimeError("the end's process could not be started") from None
                self._start()

    def result(self) -> Ended:
        """The child's ``Ended``; RuntimeError with its last line (the exception) when it
        failed."""
        if self._ended is not None:
            return self._ended
        code = self._process.wait()
        folder = Path(self._folder.name)
        try:
            if code != 0 or not (folder / "ended.pickle").exists():
                tail = (folder / "stderr").read_text(errors="replace").strip().splitlines()
                raise RuntimeError(tail[-1] if tail else f"exit status {code}")
            return pickle.loads((folder / "ended.pickle").read_bytes())
        finally:
            self._folder.cleanup()

    def close(self) -> None:
        """Stop a child that was never asked (collection only, a usage error, a crash)."""
        self._kill()
        self._folder.cleanup()

    def _kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()


def warm_up() -> None:
    """Import what ``end_run`` needs, before it is needed."""
    from reporting.analysis import curve_tables
    from reporting.gating import gate
    from reporting.render import report
    from reporting.render import run_files  # noqa: F401  (pandas, scipy, pyplot)


def _warm_up_meekly() -> None:
    """``warm_up`` at the lowest priority (Linux: a thread has its own nice value)."""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except OSError:
            pass
    warm_up()
    gc.freeze()  # the libraries' objects stay: the end's collections need not scan them


def main() -> None:
    warming = threading.Thread(target=_warm_up_meekly, name="contextrot-warm-up", daemon=True)
    warming.start()
    request = sys.stdin.buffer.read()
    if not request:  # the session ended without asking (nothing ran, or it crashed)
        return
    warming.join()
    Path(sys.argv[1]).write_bytes(pickle.dumps(end_run(pickle.loads(request))))
    # The run waits for this process to exit: skip the interpreter's teardown of pandas,
    # scipy and matplotlib (a third of a second), everything is written.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
