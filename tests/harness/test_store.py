"""The store's read side: each experiment's records come back as their own clean table."""

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
