"""``--batch`` (fixtures/pytest_face/batch.py) against scripted batch APIs
(tests/doubles/batch_servers.py: OpenAI's, Anthropic's and Gemini's): jobs that are queued and
then finish, items that fail, a job that expires. RULER and MRCR runs at test scale store the
records the same run stores without it (same prompts, same scores, usage), submit each sample
once, send the failed and expired items live once, named, price the batched ones at the batch
rate, and a run killed after submitting resumes without submitting again; the scripted Gemini
batch mode refuses what Google's refuses, and a block in its results is kept as a live one."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.doubles.batch_servers import (AnthropicBatchServer, GeminiBatchServer,
                                         OpenAIBatchServer)
from tests.doubles.native_servers import AnthropicServer, GeminiServer, camel
from tests.doubles.scripted_server import ScriptedServer

from ..data_dir import env_without
from ..mrcr.helpers import gold
from ..ruler import oracle
from ..subprocess_pytest import ROOT, child_env, run_pytest, run_records

RULER = ["-m", "ruler", "--ruler-tasks", "niah_single_1,niah_multikey_1", "--ruler-lengths",
         "1k", "--ruler-samples", "3"]
MRCR = ["-m", "mrcr"]
BATCH = ["--batch", "--batch-max-requests", "2", "--batch-poll-seconds", "0.05"]
# of each job's two items the second fails; the second job expires (half of it not done;
# Gemini's, none of it)
FAILING = "r1"


@dataclasses.dataclass(frozen=True)
class Provider:
    model: str  # priced by genai-prices, live and at its batch rate (half)
    options: tuple[str, ...]
    key: str  # the environment variable of its key
    live: type  # the scripted API
    batched: type  # the same with its batch routes
    shown: tuple[str, ...]  # the job states the pass shows before the job finishes
    server: tuple[tuple[str, str], ...] = ()  # the scripted servers' own options


PROVIDERS = {
    "openai": Provider("gpt-4.1-mini", (), "OPENAI_API_KEY", ScriptedServer,
                       OpenAIBatchServer, ("in_progress",)),
    "anthropic": Provider("claude-sonnet-4-5", ("--provider", "anthropic", "--thinking", "off"),
                          "ANTHROPIC_API_KEY", AnthropicServer, AnthropicBatchServer,
                          ("in_progress",)),
    # thinking on, with its thoughts: thoughtsTokenCount in usage, the thinking config in
    # the batch file's bodies as in the live ones
    "google": Provider("gemini-2.5-flash", ("--provider", "google", "--reasoning-tokens",
                                            "64"),
                       "GEMINI_API_KEY", GeminiServer, GeminiBatchServer,
                       ("pending", "running"), (("thinker", "unsure"),)),  # a short thought
}
# name: (provider, grid, responder)
RUNS = {"ruler": ("openai", RULER, oracle.perfect), "mrcr": ("openai", MRCR, gold),
        "claude": ("anthropic", RULER, oracle.perfect),
        "gemini-ruler": ("google", RULER, oracle.perfect),
        "gemini-mrcr": ("google", MRCR, gold)}


def command(server, results, run_id, *options, provider="openai"):
    return ["-q", "--model", PROVIDERS[provider].model, "--base-url", server.base_url,
            "--results-dir", str(results), "--run-id", run_id,
            *PROVIDERS[provider].options, *options]


def env_of(provider: str, base: dict | None = None) -> dict[str, str]:
    return {**(base or child_env()), PROVIDERS[provider].key: "k"}


def by_node(records):
    return {r["nodeid"]: r for r in records}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    results = tmp_path_factory.mktemp("batch-runs")
    # MRCR from its own miniature (the original's files, wherever fetched, are not read)
    without_mrcr = env_without(results.parent / "data-without-mrcr", "mrcr")
    found = {}
    for name, (provider, grid, responder) in RUNS.items():
        api = PROVIDERS[provider]
        env = env_of(provider, without_mrcr if grid is MRCR else None)
        with api.live(responder, context_length=400_000, model=api.model,
                      **dict(api.server)) as server:
            done = run_pytest(*grid, *command(server, results / name, "live",
                                              provider=provider), env=env)
            assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
            found[name, "live"] = run_records(results / name, "live")
            found[name, "live requests"] = server.requests
        with api.batched(responder, context_length=400_000, model=api.model,
                         fail=lambda custom: custom == FAILING, expire_jobs=(2,),
                         **dict(api.server)) as server:
            done = run_pytest(*grid, *command(server, results / name, "batch", *BATCH,
                                              provider=provider), env=env)
            assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
            found[name, "batch"] = run_records(results / name, "batch")
            found[name, "server"] = server
            found[name, "terminal"] = done.stdout
    return found


@pytest.mark.parametrize("name", sorted(RUNS))
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


@pytest.mark.parametrize("name", sorted(RUNS))
def test_each_sample_is_submitted_once_and_failed_items_go_live_once_named(runs, name):
    server, batch = runs[name, "server"], runs[name, "batch"]
    assert len(server.submitted) == len(batch)  # every first request once, in some job
    assert len(server.batches) == (len(batch) + 1) // 2  # two per job
    live = [r for r in batch if "batch_requests" not in r["details"]]
    batched = [r for r in batch if r["details"].get("batch_requests") == 1]
    # a failed item (each job's second) and an expired job's undone items went live, named
    assert live and batched and len(live) + len(batched) == len(batch)
    assert len(server.requests) == len(live)  # the live route answered them, once each
    for record in live:
        (note,) = record["details"]["batch"]
        assert note.endswith(": sent live") and any(
            word in note for word in ("batch_expired", "500", "expired", "errored",
                                      "error 13 scripted item failure"))
    for record in batched:  # priced at the batch rate: half the model's list price
        assert re.match(r"job (batch-|msgbatch_|batches/)", record["details"]["batch"][0])
        assert record["latency_s"] == 0.0 and record["spent_usd"] == record["cost_usd"]
        live_twin = by_node(runs[name, "live"])[record["nodeid"]]
        assert record["cost_usd"] == pytest.approx(live_twin["cost_usd"] / 2, rel=1e-9)
    terminal = runs[name, "terminal"]
    assert "later requests of a sample (conversations, tool loops, judges) are sent live" \
        in terminal
    for state in PROVIDERS[RUNS[name][0]].shown:  # each job's state as it changed
        assert f": {state}" in terminal
    # the expired job's undone items are named (OpenAI's job expires; Anthropic's ends with
    # its items expired; Gemini's expires without results)
    assert any("expired" in r["details"]["batch"][0] for r in live)


@pytest.mark.parametrize("name", [n for n, run in RUNS.items() if run[0] == "google"])
def test_gemini_batch_lines_carry_the_bodies_sent_live(runs, name):
    """Each line's request is the generateContent body the live run sent for that sample
    (thinking config, system instruction, generation config alike)."""
    def shown(bodies):
        return sorted(json.dumps(body, sort_keys=True) for body in bodies)

    lines = runs[name, "server"].bodies()
    assert shown(lines) == shown(runs[name, "live requests"])
    assert all(camel(body["generationConfig"]["thinkingConfig"]) == {
        "includeThoughts": True, "thinkingBudget": 64} for body in lines)
    thought = [r for r in runs[name, "batch"] if r["details"].get("batch_requests") == 1]
    assert thought and all(r["reasoning_tokens"] for r in thought)  # thoughtsTokenCount


@pytest.mark.parametrize("provider", ["openai", "google"])
def test_a_run_killed_after_submitting_resumes_without_submitting_again(tmp_path, provider):
    results, api = tmp_path / "results", PROVIDERS[provider]
    with api.batched(oracle.perfect, context_length=400_000, model=api.model,
                     polls_in_progress=10**9, **dict(api.server)) as server:  # never done,
        # until told
        args = [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider",
                *RULER, *command(server, results, "first", *BATCH, provider=provider)]
        child = subprocess.Popen(args, cwd=ROOT, env=env_of(provider),
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
        done = run_pytest(*RULER, *command(server, results, "again", *BATCH,
                                           provider=provider), env=env_of(provider))
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        assert len(server.batches) == jobs and server.submitted == submitted
        assert "was submitted by an earlier run: polling it" in done.stdout
        records = run_records(results, "again")
        assert len(records) == 6 and all(r["details"].get("batch_requests") == 1 or
                                         r["details"]["batch"][0].endswith("sent live")
                                         for r in records)


def test_the_scripted_gemini_batch_mode_refuses_what_google_refuses():
    """One refused request per rule, through google-genai's own calls (a resumable upload at
    a wrong offset, raw), and the batch it takes: pending, running, then succeeded, its
    results by key with each response's usage."""
    import httpx
    from google.genai import errors

    from fixtures.providers.gemini import gemini_client

    model = PROVIDERS["google"].model
    good = {"key": "a", "request": {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}}
    with GeminiBatchServer("echo", model=model, fail=lambda key: key == "b") as server:
        client = gemini_client(server.base_url, "k")

        def upload(lines: list[dict]) -> str:
            text = "".join(json.dumps(line) + "\n" for line in lines)
            return client.files.upload(file=io.BytesIO(text.encode()),
                                       config={"mime_type": "jsonl"}).name

        def refused(src: str, **create) -> tuple[int, str]:
            with pytest.raises(errors.APIError) as refusal:
                client.batches.create(**{"model": model, "src": src,
                                         "config": {"display_name": "t"}, **create})
            return refusal.value.code, refusal.value.message

        assert refused(upload([good]), model="gemini-other")[0] == 404  # not its model
        assert refused(upload([good]), config={})[0] == 400  # no displayName
        assert refused("files/unknown")[0] == 404
        for lines, says in (([{"request": good["request"]}], "a key"),
                            ([{"key": "a"}], "request"),
                            ([good, good], "a key, unique"),
                            ([{**good, "key": f"k{number}"} for number in range(50_001)],
                             "1 to 50,000 requests")):
            code, message = refused(upload(lines))
            assert code == 400 and says in message, message
        with pytest.raises(errors.APIError):  # an uploaded file is not downloaded
            client.files.download(file=upload([good]))
        start = httpx.post(f"{server.base_url}/upload/v1beta/files", json={"file": {}},
                           headers={"x-goog-api-key": "k", "X-Goog-Upload-Protocol":
                                    "resumable", "X-Goog-Upload-Command": "start",
                                    "X-Goog-Upload-Header-Content-Length": "4",
                                    "X-Goog-Upload-Header-Content-Type": "jsonl"})
        wrong = httpx.post(start.headers["X-Goog-Upload-URL"], content=b"{}\n\n",
                           headers={"X-Goog-Upload-Command": "upload, finalize",
                                    "X-Goog-Upload-Offset": "2"})
        assert wrong.status_code == 400 and wrong.headers["X-Goog-Upload-Status"] == "final"

        job = client.batches.create(model=model, src=upload([good, {**good, "key": "b"}]),
                                    config={"display_name": "t"})
        states = [client.batches.get(name=job.name) for _ in range(4)]
        assert [found.state.value for found in states] == [
            "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_RUNNING",
            "JOB_STATE_SUCCEEDED"]
        content = client.files.download(file=states[-1].dest.file_name).decode()
        results = {line["key"]: line for line in map(json.loads, content.splitlines())}
        assert results["a"]["response"]["usageMetadata"]["thoughtsTokenCount"] > 0
        assert results["b"] == {"key": "b", "error": {"code": 13,
                                                      "message": "scripted item failure"}}


def test_a_gemini_item_blocked_by_safety_is_kept_as_the_live_path_keeps_it(tmp_path):
    """A results line whose response safety blocked is the provider's answer: kept in the
    response cache (the run records it ``blocked``, never sends it live), as a live block is;
    a line with an ``error`` goes live once, named; an answer fills the cache."""
    import asyncio
    import types

    from fixtures.engine.cache import ResponseCache
    from fixtures.providers.gemini import GeminiGenerate
    from fixtures.pytest_face.batch import BatchPass, Captured

    model = PROVIDERS["google"].model
    with GeminiBatchServer("echo", model=model, fail=lambda key: key == "r1",
                           blocked=lambda key: key == "r0") as server:
        endpoint = types.SimpleNamespace(provider="google", name=model,
                                         adapter=GeminiGenerate(server.base_url, "k"))
        said: list[str] = []
        batch = BatchPass(endpoint, ResponseCache(tmp_path / "response-cache.sqlite"),
                          "run", poll_s=0.01, say=said.append)
        captured = [Captured(f"key{n}", [{"role": "user", "content": f"question {n}"}],
                             {"max_tokens": 20}, None) for n in range(3)]

        async def submit_and_collect():
            await batch.submit(captured)
            await batch.collect()

        asyncio.run(submit_and_collect())
        blocked = batch.cache.get("key0")
        assert (blocked["outcome"], blocked["block"], blocked["text"], blocked["batch"]) == (
            "blocked", "finishReason SAFETY (HARM_CATEGORY_DANGEROUS_CONTENT)", "", True)
        assert blocked["prompt_tokens"] > 0 and batch.filled_here("key0")
        assert batch.cache.get("key1") is None and batch.failed_note("key1").endswith(
            "error 13 scripted item failure")
        assert batch.cache.get("key2")["text"] == "question 2" and batch.filled_here("key2")
        assert not server.requests  # nothing went live here
        batch.close()
