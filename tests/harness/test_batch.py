"""``--batch`` (fixtures/pytest_face/batch.py) against a scripted OpenAI Batch API
(tests/doubles/batch_servers.py): jobs that are queued and then finish, items that fail, a job
that expires. A RULER and an MRCR run at test scale store the records the same run stores
without it (same prompts, same scores), submit each sample once, and a run killed after
submitting resumes without submitting again."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.doubles.batch_servers import AnthropicBatchServer, OpenAIBatchServer
from tests.doubles.native_servers import AnthropicServer
from tests.doubles.scripted_server import ScriptedServer

from ..data_dir import env_without
from ..mrcr.helpers import gold
from ..ruler import oracle
from ..subprocess_pytest import ROOT, child_env, run_pytest, run_records

MODEL = "gpt-4.1-mini"  # priced by genai-prices, live and batch
CLAUDE = "claude-sonnet-4-5"
RULER = ["-m", "ruler", "--ruler-tasks", "niah_single_1,niah_multikey_1", "--ruler-lengths",
         "1k", "--ruler-samples", "3"]
MRCR = ["-m", "mrcr"]
BATCH = ["--batch", "--batch-max-requests", "2", "--batch-poll-seconds", "0.05"]
# of each job's two items the second fails; the second job expires (half of it not done)
FAILING = "r1"


def command(server, results, run_id, *options, model=MODEL):
    return ["-q", "--model", model, "--base-url", server.base_url, "--results-dir",
            str(results), "--run-id", run_id, *options]


def by_node(records):
    return {r["nodeid"]: r for r in records}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = tmp_path_factory.mktemp("batch-runs")
    env = child_env(OPENAI_API_KEY="k")
    mrcr_env = env_without(results.parent / "data-without-mrcr", "mrcr")
    mrcr_env["OPENAI_API_KEY"] = "k"
    found = {}
    for name, grid, responder, use in (("ruler", RULER, oracle.perfect, env),
                                       ("mrcr", MRCR, gold, mrcr_env)):
        with ScriptedServer(responder, context_length=400_000, model=MODEL) as server:
            done = run_pytest(*grid, *command(server, results, f"{name}-live"), env=use)
            assert done.returncode in (0, 1), (done.stdout + done.stderr)[-3000:]
            found[name, "live"] = run_records(results, f"{name}-live")
        with OpenAIBatchServer(responder, context_length=400_000, model=MODEL,
                               fail=lambda custom: custom == FAILING,
                               expire_jobs=(2,)) as server:
            done = run_pytest(*grid, *command(server, results / name, f"{name}-batch",
                                              *BATCH), env=use)
            assert done.returncode in (0, 1), (done.stdout + done.stderr)[-3000:]
            found[name, "batch"] = run_records(results / name, f"{name}-batch")
            found[name, "server"] = server
            found[name, "terminal"] = done.stdout
    # Anthropic's Message Batches: RULER, the Messages route live beside it
    claude = ["--provider", "anthropic", "--thinking", "off"]
    env = child_env(ANTHROPIC_API_KEY="k")
    with AnthropicServer(oracle.perfect, context_length=400_000, model=CLAUDE) as server:
        done = run_pytest(*RULER, *command(server, results / "claude", "claude-live", *claude,
                                           model=CLAUDE), env=env)
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        found["claude", "live"] = run_records(results / "claude", "claude-live")
    with AnthropicBatchServer(oracle.perfect, context_length=400_000, model=CLAUDE,
                              fail=lambda custom: custom == FAILING,
                              expire_jobs=(2,)) as server:
        done = run_pytest(*RULER, *command(server, results / "claude-batch", "claude-batch",
                                           *claude, *BATCH, model=CLAUDE), env=env)
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        found["claude", "batch"] = run_records(results / "claude-batch", "claude-batch")
        found["claude", "server"] = server
        found["claude", "terminal"] = done.stdout
    return found


@pytest.mark.parametrize("name", ["ruler", "mrcr", "claude"])
def test_a_batch_run_stores_the_records_of_the_same_run_without_it(runs, name):
    live, batch = by_node(runs[name, "live"]), by_node(runs[name, "batch"])
    assert live.keys() == batch.keys() and len(live) >= 3
    for node, record in live.items():
        other = batch[node]
        assert (other["stimulus_hash"], other["output"], other["scores"], other["outcome"]) \
            == (record["stimulus_hash"], record["output"], record["scores"], record["outcome"])
        assert (other["prompt_tokens"], other["completion_tokens"]) == \
            (record["prompt_tokens"], record["completion_tokens"])
        assert other["model_calls"] == 1 and other["cached_calls"] == 0  # this run's request


@pytest.mark.parametrize("name", ["ruler", "mrcr", "claude"])
def test_each_sample_is_submitted_once_and_failed_items_go_live_once_named(runs, name):
    server, batch = runs[name, "server"], runs[name, "batch"]
    assert len(server.submitted) == len(batch)  # every first request once, in some job
    assert len(server.batches) == (len(batch) + 1) // 2  # two per job
    live = [r for r in batch if "batch_requests" not in r["details"]]
    batched = [r for r in batch if r["details"].get("batch_requests") == 1]
    # a failed item (each job's second) and an expired job's undone half went live, named
    assert live and batched and len(live) + len(batched) == len(batch)
    for record in live:
        (note,) = record["details"]["batch"]
        assert note.endswith(": sent live") and any(
            word in note for word in ("batch_expired", "500", "expired", "errored"))
        assert len(server.requests) >= len(live)  # the chat route answered them
    for record in batched:  # priced at the batch rate: half gpt-4.1-mini's list price
        assert re.match(r"job (msg)?batch[-_]", record["details"]["batch"][0])
        assert record["latency_s"] == 0.0 and record["spent_usd"] == record["cost_usd"]
        live_twin = by_node(runs[name, "live"])[record["nodeid"]]
        assert record["cost_usd"] == pytest.approx(live_twin["cost_usd"] / 2, rel=1e-9)
    terminal = runs[name, "terminal"]
    assert "later requests of a sample (conversations, tool loops, judges) are sent live" \
        in terminal and ": in_progress" in terminal
    # the expired job's undone items are named (OpenAI's job expires; Anthropic's ends with
    # its items expired)
    assert any("expired" in r["details"]["batch"][0] for r in live)


def test_a_run_killed_after_submitting_resumes_without_submitting_again(tmp_path):
    results = tmp_path / "results"
    with OpenAIBatchServer(oracle.perfect, context_length=400_000, model=MODEL,
                           polls_in_progress=10**9) as server:  # never done, until told
        args = [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider",
                *RULER, *command(server, results, "first", *BATCH)]
        child = subprocess.Popen(args, cwd=ROOT, env=child_env(OPENAI_API_KEY="k"),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        log = results / "first" / "batch.log"
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and (
                not log.exists() or "sent live" not in log.read_text()):
            time.sleep(0.1)
        assert "requests submitted" in log.read_text()
        os.killpg(child.pid, signal.SIGKILL)  # a crash, after every job was submitted
        child.wait()
        jobs, submitted = len(server.batches), list(server.submitted)
        server.polls_in_progress = 1  # the jobs finish now
        done = run_pytest(*RULER, *command(server, results, "again", *BATCH),
                          env=child_env(OPENAI_API_KEY="k"))
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        assert len(server.batches) == jobs and server.submitted == submitted
        assert "was submitted by an earlier run: polling it" in done.stdout
        records = run_records(results, "again")
        assert len(records) == 6 and all(r["details"].get("batch_requests") == 1 or
                                         r["details"]["batch"][0].endswith("sent live")
                                         for r in records)
