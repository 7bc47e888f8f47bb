"""NIAH built in the server's own tokens (``--tokenizer server``), end to end: pytest in a
subprocess against the scripted server counting in its toy unit (``/tokenize``), whose
``usage.prompt_tokens`` is the truth every prompt is checked against."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from fixtures.engine.cache import cache_key
from tests.doubles.scripted_server import ScriptedServer, ToyTokenizer
from reporting.storage.records import stimulus_hash

from ..subprocess_pytest import run_pytest

CONTEXT = 1_500  # toy tokens: ctx2k cannot fit


def run(server: ScriptedServer, results: Path, run_id: str, *extra: str):
    return run_pytest("-m", "niah", "-k", "seq and dx0", "-q", "--model", "scripted",
                      "--base-url", server.base_url, "--results-dir", str(results),
                      "--run-id", run_id, *extra)


def records(results: Path, run_id: str) -> dict[str, dict]:
    with sqlite3.connect(results / "contextrot.sqlite") as db:
        rows = db.execute("SELECT sample_id, record FROM samples WHERE run_id = ?",
                          (run_id,)).fetchall()
    return {nodeid.split("[")[-1].rstrip("]"): json.loads(record) for nodeid, record in rows}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = tmp_path_factory.mktemp("units")
    found = {}
    with ScriptedServer("echo", tokenizer="toy", context_length=CONTEXT) as server:
        for run_id, unit in (("server", "server"), ("o200k", "o200k"), ("again", "server")):
            before = len(server.requests)
            process = run(server, results, run_id, "--tokenizer", unit)
            assert process.returncode == 0, process.stdout[-3000:] + process.stderr[-3000:]
            found[run_id] = {"records": records(results, run_id),
                             "requests": server.requests[before:]}
        before = len(server.requests)
        plan = run(server, results, "plan", "--tokenizer", "server", "--plan")
        found["plan"] = {"stdout": plan.stdout, "requests": server.requests[before:]}
    return found


def test_prompts_land_on_target_as_the_server_counts_them(runs):
    toy = ToyTokenizer()
    ran = {k: r for k, r in runs["server"]["records"].items() if r["outcome"] == "ok"}
    assert sorted({r["params"]["length"] for r in ran.values()}) == [500, 1000]
    for record in ran.values():
        assert record["token_unit"].startswith("server:scripted#")
        assert record["target_length"] == record["params"]["length"]
        # built to the length in the server's count, which its usage confirms
        assert record["target_tokens"] == record["prompt_tokens"] == record["target_length"]
        assert record["o200k_tokens"] < record["target_tokens"]  # toy tokens are smaller
        # a build asks the server a few times: pieces are counted once, in batches
        assert record["details"]["counting_requests"] <= 16
    for request in runs["server"]["requests"]:
        assert toy.count(ToyTokenizer.render(request["messages"])) in (500, 1000)


def test_samples_over_the_window_are_skipped_before_any_call(runs):
    server_run = runs["server"]
    skipped = {k: r for k, r in server_run["records"].items() if r["outcome"] == "skipped"}
    assert sorted({r["params"]["length"] for r in skipped.values()}) == [2000]
    assert all(f"{CONTEXT}-token context" in r["reason"] for r in skipped.values())
    assert len(server_run["requests"]) == 2  # the 500 and 1k samples' answers only


def test_another_unit_builds_other_prompts_and_never_reuses_their_answers(runs):
    server_run, o200k_run, again = runs["server"], runs["o200k"], runs["again"]
    for sample_id, record in o200k_run["records"].items():
        assert record["token_unit"] == "o200k_base"
        assert record["target_tokens"] == record["o200k_tokens"]
        assert record["stimulus_hash"] != server_run["records"][sample_id]["stimulus_hash"]
    asked = [r for r in o200k_run["records"].values() if r["outcome"] == "ok"]
    assert asked and all(r["model_calls"] == 1 and r["cached_calls"] == 0 for r in asked)
    # the same unit again: every answer from the cache, the same stimuli
    assert again["requests"] == []
    assert {k: r["stimulus_hash"] for k, r in again["records"].items()} == \
        {k: r["stimulus_hash"] for k, r in server_run["records"].items()}


def test_the_plan_counts_in_the_servers_tokens_and_sends_nothing(runs):
    plan = runs["plan"]
    assert plan["requests"] == []  # no chat request: the server counted at /tokenize
    assert "input: server:scripted tokens" in plan["stdout"]
    # 3 samples, 1 skipped (over the window), 500 + 1,000 tokens as the server counts
    assert any(line.split()[:5] == ["niah", "3", "1", "1,500", "512"]
               for line in plan["stdout"].splitlines())


def test_cache_keys_and_stimulus_hashes_of_o200k_runs_are_unchanged():
    messages = [{"role": "user", "content": "hello"}]
    old = stimulus_hash({"endpoint": "e", "model": "m", "messages": messages, "params": {},
                         "replicate": 0})
    assert cache_key("e", "m", messages, {}) == old
    assert cache_key("e", "m", messages, {}, unit="server:m#abc") != old
