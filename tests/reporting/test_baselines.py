"""What ``--baseline`` may name, and what the gate says when it names nothing comparable."""

import json

import pytest

from reporting.gating import gate
from reporting.gating.compare import run_identity
from reporting.storage.store import ResultsStore, records_frame

from .helpers import EXPERIMENTS, open_store, rate_run, store_run

THRESHOLD = [gate.parse_threshold("toy_rate:-0.1")]


def summary_of(store, run_id, path):
    frame = store.frame(run_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"run_id": run_id, "identity": run_identity(
        store.run_info(run_id), frame), "samples": gate.compact_samples(frame)}))


def test_a_runs_folder_stands_for_its_summary_and_another_folder_is_one_line(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "base", rate_run("base", {1000: 18}))
    summary_of(store, "base", tmp_path / "base" / "summary.json")
    assert gate.load_baseline(str(tmp_path / "base"), None).run_id == "base"
    (tmp_path / "empty-folder").mkdir()
    with pytest.raises(gate.GateUsageError) as raised:
        gate.load_baseline(str(tmp_path / "empty-folder"), None)
    assert "is a folder; give a run's summary.json" in str(raised.value)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize("content", [b"", b"\n  \n"])
@pytest.mark.parametrize("name", ["summary.json", "samples.jsonl"])
def test_an_empty_baseline_is_not_comparable_never_a_pass(tmp_path, name, content):
    """Issue 23 item 12: a truncated CI baseline passed every regression ("0 cells")."""
    (tmp_path / name).write_bytes(content)
    baseline = gate.load_baseline(str(tmp_path / name), None)
    verdict = gate.evaluate(THRESHOLD, baseline, {"model": "toy"},
                            records_frame(rate_run("cand", {1000: 2})), EXPERIMENTS)
    assert verdict.exit_status == gate.NOT_COMPARABLE_EXIT
    assert "holds no samples" in verdict.refusal and not verdict.warnings


def test_a_gate_that_compared_no_cell_is_not_comparable(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "base", rate_run("base", {1000: 18}))
    baseline = gate.load_baseline("base", store)
    other = records_frame(rate_run("cand", {1000: 2})).assign(experiment="toy_mean")
    verdict = gate.evaluate(THRESHOLD, baseline, baseline.identity, other, EXPERIMENTS)
    assert verdict.exit_status == gate.NOT_COMPARABLE_EXIT
    assert verdict.refusal.startswith("no cell of toy_rate was scored in both")


@pytest.mark.parametrize("text, message", [
    ('{"samples": [trunc', "not JSON"),
    ("[1, 2]", "not a run's summary.json"),
])
def test_a_malformed_summary_is_one_line(tmp_path, text, message):
    (tmp_path / "summary.json").write_text(text)
    with pytest.raises(gate.GateUsageError, match=message):
        gate.load_baseline(str(tmp_path / "summary.json"), None)


def test_a_records_file_with_a_bad_line_names_the_line(tmp_path):
    lines = [r.to_json() for r in rate_run("base", {1000: 2}, size=2)] + ['{"experiment": ']
    (tmp_path / "samples.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(gate.GateUsageError, match="line 3 is not a sample record"):
        gate.load_baseline(str(tmp_path / "samples.jsonl"), None)


def test_a_stored_run_is_a_baseline_read_without_a_lock_file(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "base", rate_run("base", {1000: 18}))
    store.close()
    for lock in tmp_path.glob("*.lock"):
        lock.unlink()
    reader = ResultsStore(tmp_path / "contextrot.sqlite", read_only=True)
    assert gate.load_baseline("base", reader).frame.shape[0] == 20
    assert not list(tmp_path.glob("*.lock"))
