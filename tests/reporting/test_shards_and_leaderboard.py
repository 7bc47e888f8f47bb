"""Verdicts, sharded runs merged, and the leaderboard, on real runs: pytest in a subprocess,
the real openai client against the scripted server, a real SQLite store, a real Chromium.

Two scripted models answer repeated words (5 lengths x 3 positions at --scale test):
``copier`` copies perfectly; ``fader`` copies up to 100 words and drops one word in three
beyond (the scripted server's ``copy`` and ``drop`` responders), a curve whose effective
length is known: 100 words. Three samples per length are fewer than a verdict needs by
default (``--verdict-min-samples``, 10): these runs, and the commands that re-judge them, lower
it to 3 to check the arithmetic on a known curve.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.doubles.scripted_server import RESPONDERS, ScriptedServer
from reporting.storage.records import SampleRecord
from reporting.storage.store import ResultsStore

from ..subprocess_pytest import run_pytest, run_reporting
from .browser import chromium_path, visit
from .helpers import once_per_session

FADES_AFTER = 100  # words
VOLATILE = ("run_id", "latency_s", "finished_at", "worker")  # differ between any two runs
THREE_SAMPLES = ("--verdict-min-samples", "3")


def fade(request: dict) -> str:
    copied = RESPONDERS["copy"](request)
    return copied if len(copied.split(" ")) <= FADES_AFTER else RESPONDERS["drop"](request)


def pytest_run(base_url: str, results: Path, run_id: str, model: str, *extra: str):
    process = run_pytest("-m", "repeated_words", "-q", "--model", model, "--base-url", base_url,
                         "--results-dir", str(results), "--run-id", run_id, *THREE_SAMPLES,
                         *extra)
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
    return process.stdout


cli = run_reporting


@pytest.fixture(scope="session")
def made(tmp_path_factory) -> dict:
    """Once per session (xdist included): the fader's run whole, then as two shards (the
    second on two xdist workers) merged into a store that also holds a run of the copier."""
    def make(root: Path) -> dict:
        out = {"root": str(root)}
        with ScriptedServer(fade, context_length=16384) as fader, \
                ScriptedServer("copy", context_length=16384) as copier:
            out["whole"] = pytest_run(fader.base_url, root / "whole", "split", "fader")
            out["shard1"] = pytest_run(fader.base_url, root / "shard-1", "split", "fader",
                                       "--shard", "1/2")
            out["shard2"] = pytest_run(fader.base_url, root / "shard-2", "split", "fader",
                                       "--shard", "2/2", "-n", "2")
            out["copier"] = pytest_run(copier.base_url, root / "merged", "copy-run",
                                       "copier")
        merged = cli("merge", str(root / "shard-1"), str(root / "shard-2"), "--into",
                     str(root / "merged"))
        out["merge"] = {"returncode": merged.returncode, "stdout": merged.stdout,
                        "stderr": merged.stderr}
        return out
    return once_per_session(tmp_path_factory, "sharded", make)


def records(results: Path, run_id: str) -> dict[str, dict]:
    store = ResultsStore(results / "contextrot.sqlite")
    try:
        found = {}
        for record in store.records(run_id):
            data = json.loads(record.to_json())
            for field in VOLATILE:
                data.pop(field)
            found[record.nodeid] = data
        return found
    finally:
        store.close()


def test_the_verdict_finds_the_known_effective_length(made):
    root = Path(made["root"])
    summary = json.loads((root / "whole" / "split" / "summary.json").read_text())
    verdict = summary["verdicts"]["repeated_words"]
    assert verdict["lengths"] == [25, 50, 100, 250, 500] and verdict["counts"] == [3] * 5
    assert verdict["base_lengths"] == [25, 50] and verdict["base"]["value"] == 1
    assert verdict["effective_length"] == {"value": 100, "low": 100, "high": 100}
    assert not verdict["effective_length_censored"]
    # the area: 1.0 up to 100 words, the drop responder's score after; recomputed here from
    # the per-length means with the trapezoid over log(length)
    import numpy as np
    x = np.log(verdict["lengths"])
    area = np.trapezoid(verdict["means"], x) / (x[-1] - x[0])
    assert verdict["means"][:3] == [1.0, 1.0, 1.0] and max(verdict["means"][3:]) < 0.85
    assert verdict["length_auc"]["value"] == pytest.approx(area)
    assert verdict["length_auc"]["low"] <= area <= verdict["length_auc"]["high"]
    out = made["whole"]
    assert "levenshtein by n (mean, 95% interval, scored samples):" in out
    assert "effective length, relative: 100 [100, 100]  (mean >= 0.85 x base 1.000" in out
    assert "cells.md" in out and (root / "whole" / "split" / "cells.csv").exists()


def test_two_shards_merged_equal_the_unsharded_run_record_for_record(made):
    assert made["merge"]["returncode"] == 0, made["merge"]["stderr"]
    assert "merged 15 records of 2 shards" in made["merge"]["stdout"]
    root = Path(made["root"])
    one, two = records(root / "shard-1", "split"), records(root / "shard-2", "split")
    assert one and two and not set(one) & set(two)  # a partition, both shares non-empty
    whole, merged = records(root / "whole", "split"), records(root / "merged", "split")
    assert len(whole) == 15 and merged == whole
    lines = (root / "merged" / "split" / "samples.jsonl").read_text().splitlines()
    assert sorted(SampleRecord.from_json(line).nodeid for line in lines) == sorted(whole)

    def comparable(path: Path) -> dict:
        summary = json.loads(path.read_text())
        for cell in summary["experiments"]["repeated_words"]:
            cell.pop("latency_s")
        return {k: summary[k] for k in ("expected", "received", "missing", "verdicts",
                                        "experiments", "samples", "model_calls")}

    assert comparable(root / "merged" / "split" / "summary.json") == \
        comparable(root / "whole" / "split" / "summary.json")


def test_report_gate_and_compare_read_the_merged_run(made, tmp_path):
    merged = str(Path(made["root"]) / "merged")
    report = cli("report", "split", "--results-dir", merged)
    assert report.returncode == 0, report.stderr
    gate = cli("gate", "split", "--baseline", "copy-run", "--results-dir", merged,
               "--fail-on", "repeated_words.effective_length:-20%", *THREE_SAMPLES)
    assert gate.returncode == 7, gate.stdout + gate.stderr
    assert "REGRESSED repeated_words effective_length [all lengths]: 500.000 -> 100.000" \
        in gate.stdout
    compare = cli("compare", "copy-run", "split", "--results-dir", merged, "--out",
                  str(tmp_path))
    assert compare.returncode == 0, compare.stderr
    assert (tmp_path / "compare.html").exists()


def test_merge_refuses_a_target_that_already_holds_the_run(made):
    root = Path(made["root"])
    again = cli("merge", str(root / "shard-1"), str(root / "shard-2"), "--into",
                str(root / "merged"))
    assert again.returncode == 2
    assert "already holds a run 'split'" in again.stderr


def test_the_leaderboard_ranks_both_models_and_opens_in_chromium(made, tmp_path):
    merged = Path(made["root"]) / "merged"
    board = cli("leaderboard", "--results-dir", str(merged), "--out", str(tmp_path),
                *THREE_SAMPLES)
    assert board.returncode == 0, board.stderr
    rows = {line.split(" | ")[0].strip("| "): line for line in board.stdout.splitlines()
            if line.startswith("| copier") or line.startswith("| fader")}
    assert set(rows) == {"copier", "fader"}
    assert "| >= 500 [500, 500] |" in rows["copier"] and "| 100 [100, 100] |" in rows["fader"]
    assert "| 15 | copy-run (test) |" in rows["copier"]
    table = (tmp_path / "leaderboard.csv").read_text().splitlines()
    assert table[0].startswith("model,repeated_words.effective_length.value,")
    assert len(table) == 3
    if chromium_path() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run does)")
    seen = visit(tmp_path / "leaderboard.html", tmp_path / "leaderboard.png")
    assert seen.errors == [] and seen.requests == []
    assert len(seen.images) == 1  # one experiment ran: every model's curve on one axis
    image = seen.images[0]
    assert image["complete"] and image["width"] > 300 and image["shown"] > 300, image
    assert seen.screenshot[:8] == b"\x89PNG\r\n\x1a\n"
