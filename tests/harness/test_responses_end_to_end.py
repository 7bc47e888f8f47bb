"""Every experiment at test scale on the Responses provider, as a user runs it.

``pytest benchmarks --provider openai-responses`` runs in a subprocess against the scripted
Responses server (tests/doubles/responses_server.py), which refuses any turn whose reasoning items
were not passed back, playing a reasoning model whose thinking is wrong ("I cannot tell.",
its four tokens the run's thinking budget) and, where tools are offered, the perfect agent
(tests/doubles/scripted_agents.py); otherwise it echoes. The same answers are then asked of the
chat-completions server with no reasoning: the scores must be the same, sample by sample, so
nothing the Responses API changes (its reasoning, its refusals, its shapes) is scored.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from benchmarks import experiment_packages
from tests.doubles.responses_server import ResponsesServer
from tests.doubles.scripted_agents import perfect_agent
from tests.doubles.scripted_server import RESPONDERS, ScriptedServer

from .test_faults import ROOT, child_env, pytest_command

CONTEXT = 50_000_000  # nothing overflows: every sample of the test scale is asked
UNSURE = "I cannot tell."
EXPERIMENTS = {package.EXPERIMENT.name for package in experiment_packages()}


def respond(request: dict):
    return perfect_agent(request) if request.get("tools") else RESPONDERS["echo"](request)


def run(server, results, run_id: str, *options: str) -> dict:
    done = subprocess.run(
        pytest_command("-q", "-n", "2", "--model", "m", "--base-url", server.base_url,
                       "--results-dir", str(results), "--run-id", run_id, *options),
        cwd=ROOT, capture_output=True, text=True, timeout=900,
        env=child_env(OPENAI_API_KEY="x"))
    path = results / run_id / "samples.jsonl"
    samples = [json.loads(line) for line in path.open()] if path.exists() else []
    return {"status": done.returncode, "output": done.stdout + done.stderr,
            "samples": {s["nodeid"]: s for s in samples}, "requests": list(server.requests)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("responses-runs")
    with ResponsesServer(respond, context_length=CONTEXT, model="m", thinker="unsure") as server:
        responses = run(server, results, "responses", "--provider", "openai-responses",
                        "--reasoning-tokens", "4")
    with ScriptedServer(respond, context_length=CONTEXT, model="m") as server:
        chat = run(server, results, "chat")
    return {"responses": responses, "chat": chat}


def test_every_experiment_ran_on_the_responses_provider(runs):
    done = runs["responses"]
    assert done["status"] == 0, done["output"][-3000:]
    samples = done["samples"].values()
    assert {s["experiment"] for s in samples} == EXPERIMENTS
    assert {s["outcome"] for s in samples} == {"ok"}
    assert {s["model"]["provider"] for s in samples} == {"openai-responses"}
    assert all(s["model"]["sampling"]["store"] is False for s in samples)


def test_the_scores_are_the_chat_runs_sample_by_sample(runs):
    chat, responses = runs["chat"], runs["responses"]
    assert chat["status"] == 0, chat["output"][-3000:]
    assert chat["samples"].keys() == responses["samples"].keys()
    for nodeid, sample in responses["samples"].items():
        assert sample["scores"] == chat["samples"][nodeid]["scores"], nodeid


def test_the_wrong_reasoning_is_recorded_apart_and_never_scored(runs):
    samples = runs["responses"]["samples"].values()
    assert all(UNSURE in s["thinking"] and s["reasoning_tokens"] for s in samples)
    assert not any(UNSURE in (s["output"] or "") for s in samples)


def test_agent_accumulation_live_is_exact_with_its_reasoning_passed_back(runs):
    samples = [s for s in runs["responses"]["samples"].values()
               if s["experiment"] == "agent_accumulation"]
    live = [s for s in samples if s["params"]["mode"] == "live"]
    assert live and {s["params"]["condition"] for s in live} == {"full", "clear:2"}
    assert all(s["scores"]["exact"] == 1 for s in samples)
    assert all(len(s["details"]["requests"]) > 2 for s in live)
    # every step after the first sent back each earlier reply's reasoning item, with its
    # encrypted content (the server refuses a turn without them: no sample erred)
    tool_requests = [r for r in runs["responses"]["requests"] if r.get("tools")]
    carried = [r for r in tool_requests if any(item.get("type") == "reasoning"
                                               for item in r["input"])]
    assert len(carried) > len(live)
    assert all(item["encrypted_content"] for r in carried for item in r["input"]
               if item.get("type") == "reasoning")


def test_a_conversation_without_tools_sends_its_reasoning_back_too(runs):
    # (already said that's: its earlier replies, each with its reasoning item before it)
    conversations = [r for r in runs["responses"]["requests"] if not r.get("tools") and
                     any(item.get("type") == "reasoning" for item in r["input"])]
    assert conversations
    for request in conversations:
        kinds = [item.get("type", "message") for item in request["input"]]
        assert all(kinds[i - 1] == "reasoning" for i, item in enumerate(request["input"])
                   if item.get("role") == "assistant")


@pytest.fixture(scope="module")
def native(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("responses-native")
    with ResponsesServer(respond, context_length=CONTEXT, model="m", thinker="unsure") as server:
        done = run(server, results, "native", "--provider", "openai-responses",
                   "--reasoning-tokens", "4", "-m", "agent_accumulation", "--agent-modes",
                   "live", "--agent-conditions", "full,openai-compact:8k,compact:8k",
                   "--agent-lengths", "16k")
        done["compactions"] = server.compactions
    return done


def test_openai_native_compaction_is_paired_with_full_and_its_client_side_twin(native):
    assert native["status"] == 0, native["output"][-3000:]
    samples = list(native["samples"].values())
    by_condition = {}
    for sample in samples:
        by_condition.setdefault(sample["params"]["condition"], []).append(sample)
    assert set(by_condition) == {"full", "openai-compact:8192", "compact:8192"}
    assert all(s["scores"]["exact"] == 1 for s in samples)
    # what the server compacted, per episode, from the compaction items it returned
    compacted = [s["details"]["server_context"]["compactions"]
                 for s in by_condition["openai-compact:8192"]]
    assert all(compacted) and sum(compacted) == native["compactions"]
    requests = [r for r in native["requests"] if r.get("context_management")]
    assert requests and all(r["context_management"] == [
        {"type": "compaction", "compact_threshold": 8192}] for r in requests)
    for pair in ("openai-compact:8192 vs full", "openai-compact:8192 vs compact:8192"):
        assert pair in native["output"] and "McNemar" in native["output"].split(pair)[1][:200]
