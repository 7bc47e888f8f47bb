"""Records and stores for reporting's unit tests: real SampleRecords in a real SQLite file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable

from reporting.experiments import Experiment
from reporting.storage.records import SampleRecord, stimulus_hash
from reporting.storage.store import ResultsStore

RATE = Experiment(name="toy_rate", title="a 0/1 score per sample", cell=("params.length",),
                  metric="scores.accuracy", metric_kind="rate")
MEAN = Experiment(name="toy_mean", title="a continuous score per sample", cell=("params.length",),
                  metric="scores.similarity", metric_kind="mean")
EXPERIMENTS = {RATE.name: RATE, MEAN.name: MEAN}


def record(run_id: str, experiment: Experiment, length: int, index: int, value, *,
           prompt_version: int = 1, outcome: str = "ok", output: str = "an answer") -> SampleRecord:
    """The sample ``index`` of cell ``length``; its stimulus hash depends on the prompt only."""
    metric = experiment.metric.split(".")[-1]
    params = {"length": length, "index": index}
    nodeid = f"benchmarks/{experiment.name}/test_x.py::test_x[len{length}-i{index}]"
    return SampleRecord(
        experiment=experiment.name, sample_id=f"len{length}-i{index}", nodeid=nodeid,
        run_id=run_id, params=params,
        stimulus_hash=stimulus_hash({"params": params, "prompt_version": prompt_version}),
        messages=[{"role": "user", "content": f"prompt {length} {index} v{prompt_version}"}],
        model={"name": "toy", "endpoint": "http://127.0.0.1:9/v1", "role": "model",
               "sampling": {"temperature": 0.0}},
        output=output, scores={} if outcome != "ok" else {metric: value}, outcome=outcome)


def store_run(store: ResultsStore, run_id: str, records: list[SampleRecord],
              info: dict | None = None) -> None:
    store.begin_run(run_id, info or {"options": {"scale": "test"},
                                     "tokenizer": {"name": "o200k_base"}})
    for item in records:
        store.add(item)
    store.finish_run(run_id, 0)


def rate_run(run_id: str, correct_per_cell: dict[int, int], size: int = 20,
             prompt_version: int = 1) -> list[SampleRecord]:
    """Per cell (length), the first ``correct`` samples right and the rest wrong."""
    return [record(run_id, RATE, length, i, int(i < correct), prompt_version=prompt_version)
            for length, correct in correct_per_cell.items() for i in range(size)]


def open_store(tmp_path: Path) -> ResultsStore:
    return ResultsStore(tmp_path / "contextrot.sqlite")


def shared_folder(tmp_path_factory) -> Path:
    """This session's folder, the same for every xdist worker (each worker's base temp is a
    subfolder of it); without xdist the base temp itself, never a folder of older sessions."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def once_per_session(tmp_path_factory, name: str, make: Callable[[Path], dict]) -> dict:
    """``make(folder)``'s JSON-able result, made once per test session even under xdist: the
    first worker to ask makes it in ``<session folder>/name``, the others wait and read it."""
    from filelock import FileLock

    shared = shared_folder(tmp_path_factory)
    done = shared / f"{name}.json"
    with FileLock(str(shared / f"{name}.lock")):
        if not done.exists():
            done.write_text(json.dumps(make(shared / name)))
    return json.loads(done.read_text())
