"""No verdict from data that cannot support one, on real runs: pytest in a subprocess, the real
openai client against a scripted endpoint that is always wrong (it answers "[answer: no]" to
every needle question), a real SQLite store.

``wrong``: NIAH at --scale test with 3 trials, 12 samples at each of 3 lengths, every one
scored 0;
``two``: the same endpoint on 2 samples per length (``-k dx0``);
``gated``: ``two`` again, gated on its effective length against ``two``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_pytest, run_reporting
from .helpers import once_per_session

TWO_PER_LENGTH = ("-k", "dx0")  # sequential and shuffled haystacks: 2 per length
GATE_EFFECTIVE_LENGTH = ("--fail-on", "niah.effective_length:-20%")


def niah_run(base_url: str, results: Path, run_id: str, *extra: str) -> dict:
    process = run_pytest("-m", "niah", "-q", "--model", "scripted", "--base-url", base_url,
                         "--results-dir", str(results), "--run-id", run_id, *extra)
    return {"returncode": process.returncode, "stdout": process.stdout + process.stderr}


cli = run_reporting


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> dict:
    """The three runs, made once per test session even under xdist."""
    def make(results: Path) -> dict:
        out = {"results": str(results)}
        with ScriptedServer("no", context_length=16384) as server:
            out["two"] = niah_run(server.base_url, results, "two", *TWO_PER_LENGTH)
            out["gated"] = niah_run(server.base_url, results, "gated", *TWO_PER_LENGTH,
                                    "--baseline", "two", *GATE_EFFECTIVE_LENGTH)
            out["wrong"] = niah_run(server.base_url, results, "wrong",  # the newest
                                    "--niah-trials", "3")
        return out
    return once_per_session(tmp_path_factory, "always-wrong", make)


def summary_verdict(runs: dict, run_id: str) -> dict:
    summary = Path(runs["results"]) / run_id / "summary.json"
    return json.loads(summary.read_text())["verdicts"]["niah"]


def test_an_always_wrong_endpoint_gets_no_relative_verdict_for_niah(runs):
    assert runs["wrong"]["returncode"] == 0, runs["wrong"]["stdout"][-3000:]
    out = runs["wrong"]["stdout"]
    assert "effective length, relative: no verdict (base score 0): the mean at 500 is at or " \
        "below chance (0)" in out
    assert "effective length, absolute: < 500 [< 500, < 500]" in out  # a fixed bar still holds
    found = summary_verdict(runs, "wrong")
    assert found["counts"] == [12] * 3 and found["means"] == [0.0] * 3
    assert found["no_verdict"] == {"effective_length": "base score 0"}
    assert found["effective_length"] is None and found["chance"] == 0
    report = (Path(runs["results"]) / "wrong" / "report.html").read_text()
    assert "no verdict (base score 0)" in report


def test_two_scored_samples_per_length_are_too_few_for_a_verdict(runs):
    assert runs["two"]["returncode"] == 0, runs["two"]["stdout"][-3000:]
    assert "verdict: no verdict (too few samples): every scored length has fewer than 10 " \
        "scored samples (500: 2, 1,000: 2, 2,000: 2)" in runs["two"]["stdout"]
    found = summary_verdict(runs, "two")
    assert set(found["no_verdict"].values()) == {"too few samples"}
    assert found["thin_counts"] == [2] * 3 and found["lengths"] == []
    report = (Path(runs["results"]) / "two" / "report.html").read_text()
    assert "no verdict (too few samples)" in report


def test_gating_a_verdict_that_does_not_exist_exits_8(runs):
    gated = runs["gated"]
    assert gated["returncode"] == 8, gated["stdout"][-3000:]
    assert "gate: REFUSED (exit 8): --fail-on niah.effective_length:-20%: niah " \
        "effective_length: no verdict (too few samples)" in gated["stdout"]
    results = runs["results"]
    again = cli("gate", "wrong", "--baseline", "wrong", "--results-dir", results,
                *GATE_EFFECTIVE_LENGTH)
    assert again.returncode == 8, again.stdout + again.stderr
    assert "no verdict (base score 0)" in again.stdout
    # the fixed bar exists at chance: the same gate on it compares (and passes: no change)
    absolute = cli("gate", "wrong", "--baseline", "wrong", "--results-dir", results,
                   "--fail-on", "niah.absolute_effective_length:-20%")
    assert absolute.returncode == 0, absolute.stdout + absolute.stderr


def test_the_leaderboard_says_no_verdict_and_why(runs, tmp_path):
    board = cli("leaderboard", "--results-dir", runs["results"], "--out", str(tmp_path))
    assert board.returncode == 0, board.stderr
    (row,) = [line for line in board.stdout.splitlines() if line.startswith("| scripted")]
    assert "| no verdict (base score 0) | < 500 [< 500, < 500] | 0.000 [0.000, 0.000] |" in row
    table = (tmp_path / "leaderboard.csv").read_text().splitlines()
    header, values = table[0].split(","), table[1].split(",")
    assert values[header.index("niah.effective_length.no_verdict")] == "base score 0"
    assert values[header.index("niah.effective_length.value")] == ""
    assert "no verdict (base score 0)" in (tmp_path / "leaderboard.html").read_text()
