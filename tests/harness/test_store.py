"""The store's read side: each experiment's records come back as their own clean table."""

import sqlite3

from reporting.storage.records import SampleRecord
from reporting.storage.store import ResultsStore, experiment_frames, records_frame


def record(experiment, sample_id, **params):
    return SampleRecord(experiment=experiment, sample_id=sample_id, nodeid=sample_id,
                        run_id="r", params=params, scores={"right": True})


def test_each_experiment_gets_its_own_columns_with_integers_intact():
    frame = records_frame([record("a", "a1", length=500, depth=0),
                           record("a", "a2", length=1000, depth=50),
                           record("b", "b1", words=25)])
    parts = dict(experiment_frames(frame))
    assert sorted(parts) == ["a", "b"]
    assert parts["b"]["params.words"].tolist() == [25]
    assert parts["a"]["params.length"].tolist() == [500, 1000]
    assert parts["a"]["params.depth"].dtype.kind == "i"


def test_a_score_that_is_null_in_every_sample_keeps_its_column():
    one, two = record("a", "a1", length=500), record("b", "b1", words=25)
    one.scores["position_correct"] = None
    parts = dict(experiment_frames(records_frame([one, two])))
    assert parts["a"]["scores.position_correct"].isna().all()


def test_records_round_trip_through_sqlite_and_jsonl(tmp_path):
    store = ResultsStore(tmp_path / "db.sqlite")
    store.begin_run("r", {"options": {}})
    written = record("a", "a1", length=500)
    written.scores["nan_metric"] = float("nan")
    store.add(written, tmp_path / "r" / "samples.jsonl")
    (read,) = store.records("r")
    assert read.params == {"length": 500} and read.scores["nan_metric"] is None
    assert (tmp_path / "r" / "samples.jsonl").read_text().count("\n") == 1
    store.finish_run("r", 0)
    assert store.runs()[0]["exit_status"] == 0


class RefusingStore(ResultsStore):
    """A store that cannot take one sample's record (a fault of that record's, not of the
    store's: the disk and the folder are fine)."""

    def add(self, record, jsonl=None, text=None):
        if record.sample_id == "bad":
            raise ValueError("this record cannot be stored")
        super().add(record, jsonl, text)


def test_a_record_the_store_cannot_take_is_lost_alone_with_one_line(tmp_path, capsys):
    """The controller's reporter: the record is lost, one line says so (at once and in the
    run's summary), and the records after it are stored; the run is not stopped."""
    import types

    from fixtures.pytest_face.items import RUN_KEY
    from reporting.plugin import RunReporter
    from reporting.storage.records import REPORT_ATTRIBUTE
    from reporting.storage.run import RunContext

    config = types.SimpleNamespace(stash={RUN_KEY: RunContext("run", tmp_path)},
                                   pluginmanager=types.SimpleNamespace(
                                       get_plugin=lambda name: None))  # (no terminal)
    reporter = RunReporter(config, [], None)
    reporter.store = RefusingStore(tmp_path / "contextrot.sqlite")
    for sample in ("a", "bad", "b"):
        report = types.SimpleNamespace(when="teardown", nodeid=f"t.py::test[{sample}]")
        setattr(report, REPORT_ATTRIBUTE, SampleRecord(
            experiment="e", sample_id=sample, nodeid=report.nodeid, run_id="run",
            output="x").to_json())
        reporter.pytest_runtest_logreport(report)
    assert reporter.store_error is None and sorted(reporter.received) == \
        ["t.py::test[a]", "t.py::test[b]"]
    assert [r.sample_id for r in reporter.store.records("run", "e")] == ["a", "b"]
    line = ("contextrot: t.py::test[bad]: its record could not be stored (ValueError: this "
            "record cannot be stored); it is lost, the run goes on, and the same command "
            "runs it again")
    assert reporter.lines == [(line, "red")] and capsys.readouterr().err == line + "\n"
    reporter.store.close()


def test_a_run_read_once_is_what_each_read_apart_gives(tmp_path):
    """read_run (the end of a run's one read): the row runs() gives, the records records()
    gives (by node id, an unreadable one left out, said once), and every stored line in
    arrival order, as write_jsonl writes them."""
    warned = []
    store = ResultsStore(tmp_path / "db.sqlite", warn=warned.append)
    store.begin_run("r", {"options": {"scale": "test"}})
    for name in ("b2", "a1", "c3"):
        store.add(record("a", name, length=len(name)))
    store.add(record("a", "a1", length=7))  # a replaced record arrives anew
    with sqlite3.connect(tmp_path / "db.sqlite") as other:  # a record a crash left broken
        other.execute("UPDATE samples SET record = '{not json' WHERE sample_id = 'c3'")
    finished = store.finish_run("r", 3)
    stored = store.read_run("r")
    assert stored.row == store.runs()[0] and stored.row["finished_at"] == finished
    assert [r.to_json() for r in stored.records] == [r.to_json() for r in store.records("r")]
    assert [r.sample_id for r in stored.records] == ["a1", "b2"]
    assert [r.params for r in stored.received({"b2"})] == [{"length": 2}]
    store.write_jsonl("r", tmp_path / "from-store.jsonl")
    store.write_jsonl("r", tmp_path / "from-read.jsonl", stored.texts)
    assert (tmp_path / "from-read.jsonl").read_bytes() == \
        (tmp_path / "from-store.jsonl").read_bytes()
    assert [SampleRecord.from_json(stored.texts[i]).sample_id for i in (0, 2)] == ["b2", "a1"]
    assert stored.texts[1] == "{not json"  # arrival order: b2, c3, then a1 again
    assert len(warned) == 1 and "c3" in warned[0]
