"""A real run: pytest in a subprocess, the real openai client against the scripted server, a
model that writes prose in even rounds and nothing at all in odd ones."""

from __future__ import annotations

import json

import pandas as pd

from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_pytest

PROSE = ("She walked to the door and looked out. The rain had begun, and the road was dark. "
         "Nobody came.")


def prose_or_nothing(request: dict) -> str:
    return "" if request.get("seed", 0) % 2 else PROSE  # round r is sent seed 0 + r


def test_a_round_that_writes_no_words_is_counted_and_reported(tmp_path):
    with ScriptedServer(prose_or_nothing, context_length=4096) as server:
        process = run_pytest(
            "-m", "continuation", "-q", "--model", "scripted", "--base-url", server.base_url,
            "--results-dir", str(tmp_path), "--run-id", "empty-rounds", "--no-cache",
            "--max-context", "2048", "--continuation-max-tokens", "32",
            "--continuation-rounds", "2")
    assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-2000:]
    assert "2 of 4 scored rounds have no words in Context-Tester's reading " \
           "(ctx1k-r01, ctx2k-r01): averaged in" in process.stdout
    assert "2 of 4 scored rounds have no words in contextrot's reading" in process.stdout

    run = tmp_path / "empty-rounds"
    tiers = pd.read_csv(run / "plots" / "continuation" / "continuation.csv")
    assert list(tiers["rounds_ok"]) == [2, 2]
    assert list(tiers["rounds_without_words"]) == [1, 1]
    assert list(tiers["contextrot_rounds_without_words"]) == [1, 1]
    assert list(tiers["cloze_score_n"]) == [2, 2]  # the original's 64.0 is averaged in
    summary = json.loads((run / "summary.json").read_text())
    found = summary["findings"]["continuation"]["rounds_without_words"]
    assert found == {"context_tester": ["ctx1k-r01", "ctx2k-r01"],
                     "contextrot": ["ctx1k-r01", "ctx2k-r01"]}
    samples = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    empty = next(s for s in samples if s["sample_id"] == "ctx1k-r01")
    assert empty["outcome"] == "ok" and empty["scores"]["cloze_score"] == 64.0
    assert empty["scores"]["contextrot"]["cloze_score"] is None
