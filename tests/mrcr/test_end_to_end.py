"""MRCR runs end to end: pytest in a subprocess, the real openai client, the scripted server
playing a model that reads the conversation (gold: the asked occurrence; first: always the
first one), the store, the plots and the findings."""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

from tests.doubles.scripted_server import Fault, ScriptedServer

from ..data_dir import env_without
from ..subprocess_pytest import run_pytest, run_records, run_scripted
from .helpers import first, gold
from .test_original import original_rows, write_original

CONTEXT = 4_000_000  # the scripted server's context: nothing here overflows


def run(server: ScriptedServer, results: Path, *extra: str) -> subprocess.CompletedProcess:
    """A run whose data directory lacks the original's files (the ``auto`` source would take
    them wherever a user fetched them): a test that wants them gives their folder."""
    return run_scripted("mrcr", server.base_url, results, *extra,
                        env=env_without(results.parent / "data-without-mrcr", "mrcr"))


records = run_records


def test_a_model_answering_the_asked_occurrence_scores_1_on_both_sources(tmp_path):
    """Generated rows and the original's (small files in its layout), sent unchanged: the
    preamble and the first request are two consecutive user messages."""
    write_original(tmp_path / "original", 2, original_rows(2))
    with ScriptedServer(gold, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--mrcr-source", "both",
                   "--mrcr-original-dir", str(tmp_path / "original"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert {(r["params"]["source"], r["sample_id"]) for r in found} == {
        ("generated", "gen-nd2-tb1k-s000"), ("generated", "gen-nd2-tb2k-s000"),
        ("generated", "gen-nd2-tb4k-s000"), ("generated", "gen-nd2-b8k-s000"),
        ("openai", "oai-nd2-b8k-s000")}
    assert all(r["outcome"] == "ok" and r["scores"] == {"ratio": 1.0, "prefixed": True}
               and r["details"]["copied"] == "asked" for r in found)
    assert all([m["role"] for m in request["messages"][:2]] == ["user", "user"]
               for request in server.requests)
    # the test scale keeps a cap (twice the answer plus 16) and temperature 0
    assert all(r["max_tokens"] == 2 * r["details"]["answer_tokens"] + 16 for r in found)
    assert {request["max_tokens"] for request in server.requests} == \
        {r["max_tokens"] for r in found}
    assert all(request["temperature"] == 0 for request in server.requests)
    plots = tmp_path / "results" / "run" / "plots" / "mrcr"
    assert {p.name for p in plots.iterdir()} == {"curve-generated.png", "copied-generated.png",
                                                 "curve-openai.png", "copied-openai.png"}
    summary = json.loads((tmp_path / "results" / "run" / "summary.json").read_text())
    assert {row["source"] for row in summary["findings"]["mrcr"]["context_arena"]} == \
        {"generated", "openai"}
    assert "Context Arena (linear axis), openai, 2 needles" in done.stdout


def test_a_model_answering_the_first_occurrence_scores_about_1_over_n(tmp_path):
    with ScriptedServer(first, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--scale", "full", "--mrcr-max-bin", "16k",
                   "--mrcr-samples", "8", "--mrcr-needles", "2,4,8", "--mrcr-source",
                   "generated")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert len(found) == 3 * 2 * 8
    # at full scale the request is the original's: the messages, no cap, no sampling
    assert len(server.requests) == len(found)
    assert all(set(request) == {"model", "messages"} for request in server.requests)
    assert all(r["max_tokens"] is None and "temperature" not in r["model"]["sampling"]
               for r in found)
    for record in found:
        asked_first = record["details"]["asked_occurrence"] == 1
        assert record["details"]["copied_occurrence"] == 1
        assert record["details"]["copied"] == ("asked" if asked_first else "other")
        assert (record["scores"]["ratio"] == 1.0) if asked_first else \
            (record["scores"]["ratio"] < 0.5)
    for needles in (2, 4, 8):
        mine = [r for r in found if r["params"]["needles"] == needles]
        mean = statistics.mean(r["scores"]["ratio"] for r in mine)
        asked_first = sum(r["details"]["asked_occurrence"] == 1 for r in mine) / len(mine)
        assert asked_first <= mean <= asked_first + 0.15  # the wrong needle scores a little
        assert abs(mean - 1 / needles) < 0.3, (needles, mean)
    means = [statistics.mean(r["scores"]["ratio"] for r in found if r["params"]["needles"] == n)
             for n in (2, 4, 8)]
    assert means[0] > means[1] > means[2] - 0.05


def test_at_full_scale_a_cap_and_a_temperature_are_sent_when_asked(tmp_path):
    with ScriptedServer(gold, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--scale", "full", "--mrcr-max-bin", "8k",
                   "--mrcr-samples", "2", "--mrcr-needles", "2", "--mrcr-source",
                   "generated", "--mrcr-max-tokens", "answer", "--mrcr-temperature", "0.5")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert len(found) == len(server.requests) == 2
    caps = {2 * r["details"]["answer_tokens"] + 16 for r in found}
    assert {r["max_tokens"] for r in found} == caps == \
        {request["max_tokens"] for request in server.requests}
    assert all(request["temperature"] == 0.5 for request in server.requests)
    assert all(r["model"]["sampling"] == {"temperature": 0.5} for r in found)


def test_an_endpoint_rejecting_two_user_messages_in_a_row_gets_one_line_naming_the_option(
        tmp_path):
    rejection = {"error": {"message": "Conversation roles must alternate "
                                      "user/assistant/user/assistant/...",
                           "type": "BadRequestError"}}
    with ScriptedServer(gold, context_length=CONTEXT) as server:
        server.faults.append(Fault(400, rejection))
        done = run(server, tmp_path / "rejected", "-k", "tb1k")
    assert done.returncode != 0
    lines = [line for line in done.stdout.splitlines() if "--mrcr-merge-user-messages" in line]
    assert lines and "Conversation roles must alternate" in lines[0]
    assert "During handling" not in done.stdout and "Traceback" not in done.stdout
    with ScriptedServer(gold, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "merged", "-k", "tb1k", "--mrcr-merge-user-messages")
    assert done.returncode == 0, done.stdout[-3000:]
    roles = [m["role"] for m in server.requests[0]["messages"]]
    assert roles[0] == "user" and all(a != b for a, b in zip(roles[:-1], roles[1:]))
    (record,) = records(tmp_path / "merged")
    assert record["params"]["merge_user_messages"] and record["scores"]["ratio"] == 1.0


def test_in_the_servers_own_tokens_the_bins_stay_o200k_and_counts_are_the_servers(tmp_path):
    """``--tokenizer server``: the same samples (MRCR's bins are o200k by definition), each
    prompt counted as the server counts it, template turns included, with o200k's beside it."""
    with ScriptedServer(gold, tokenizer="toy", context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--tokenizer", "server")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert {r["sample_id"] for r in found} == {
        "gen-nd2-tb1k-s000", "gen-nd2-tb2k-s000", "gen-nd2-tb4k-s000", "gen-nd2-b8k-s000"}
    for record in found:
        assert record["outcome"] == "ok" and record["scores"]["ratio"] == 1.0
        assert record["token_unit"].startswith("server:scripted#")
        # the server's usage, but for where a message meets the template (a message ending
        # in white space: the template's new line joins it in one toy token)
        assert 0 <= record["target_tokens"] - record["prompt_tokens"] <= 2, record["sample_id"]
        assert record["o200k_tokens"] == record["details"]["prompt_o200k"]


def test_the_plan_says_that_full_scale_requests_send_no_cap():
    done = run_pytest("-m", "mrcr", "-q", "--plan", "--scale", "full", "--mrcr-max-bin", "8k",
                      "--mrcr-samples", "2", "--mrcr-source", "generated",
                      "--model", "some-model", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    row = next(line.split() for line in done.stdout.splitlines() if line.startswith("mrcr "))
    assert row[1] == "6" and row[4] == "0"
    assert "6 requests send no output cap" in done.stdout
