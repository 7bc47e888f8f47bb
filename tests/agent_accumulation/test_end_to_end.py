"""Agent accumulation end to end: pytest in a subprocess, the real openai client over HTTP,
the scripted server playing an agent (tests/doubles/scripted_agents.py), the store and the report.

Sample counts: at full scale, 8k and 32k, needle counts 2 and 4, two ledgers each, both
modes and four conditions: 40 episodes (each ledger under trajectory and four live
conditions), enough to show every one exact in seconds; the tail agent's curve takes ten
ledgers a length (the verdict's minimum) in trajectory mode, one request each.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from benchmarks.agent_accumulation import stimulus, tools
from tests.doubles.scripted_agents import perfect_agent
from tests.doubles.scripted_server import ScriptedServer
from fixtures.engine.toolcalls import tool_history_problem

from ..subprocess_pytest import run_records, run_scripted

CONTEXT = 4_000_000  # nothing overflows


def run(server: ScriptedServer, results: Path, *extra: str):
    done = run_scripted("agent_accumulation", server.base_url, results, *extra)
    return done, (run_records(results) if (results / "run" / "samples.jsonl").exists() else [])


def ok(done) -> str:
    return done.stdout[-3000:] + done.stderr[-3000:]


def test_a_perfect_agent_is_exact_in_both_modes_under_full_clear_drop_and_trim(tmp_path):
    with ScriptedServer("agent", context_length=CONTEXT) as server:
        done, found = run(server, tmp_path / "r", "--scale", "full", "--agent-lengths", "8k,32k",
                          "--agent-needles", "2,4", "--agent-samples", "2",
                          "--agent-conditions", "full,clear:2,drop:0.5,trim:0.5")
    assert done.returncode == 0, ok(done)
    assert len(found) == 2 * 2 * 2 * 5
    assert all(r["outcome"] == "ok" and r["scores"] == {"exact": True, "id_f1": 1.0,
                                                         "submitted": True} for r in found)
    assert {(r["params"]["mode"], r["params"]["condition"]) for r in found} == {
        ("trajectory", "full"), ("live", "full"), ("live", "clear:2"), ("live", "drop:0.5"),
        ("live", "trim:0.5")}
    trajectories = [r for r in found if r["params"]["mode"] == "trajectory"]
    assert all(0.85 <= r["target_tokens"] / r["params"]["length"] <= 1.0 for r in trajectories)
    live = [r for r in found if r["params"]["mode"] == "live"]
    assert all(r["details"]["steps"] == 12 and r["details"]["episode_end"] == "submitted"
               and r["details"]["pages_read"] == 10 for r in live)
    assert all(r["details"]["most_page_results"] <= 2 for r in live
               if r["params"]["condition"] == "clear:2")
    assert all(r["details"]["most_page_results"] == 10 for r in live
               if r["params"]["condition"] == "full")
    # every request: exactly the four tools; a trajectory forces submit, a live loop is
    # auto; no history breaks a call from its result
    for request in server.requests:
        assert tools.offered(request["tools"]) == list(tools.NAMES)
        assert request["tool_choice"] in ("auto", tools.FORCE_SUBMIT)
        assert tool_history_problem(request["messages"]) is None
    forced = [r for r in server.requests if r["tool_choice"] == tools.FORCE_SUBMIT]
    assert len(forced) == len(trajectories)
    assert "trim:0.5 vs full, 8 ledgers" in done.stdout


def test_an_agent_reading_the_last_60000_characters_falls_with_length(tmp_path):
    with ScriptedServer("agent-tail:60000", context_length=CONTEXT) as server:
        done, found = run(server, tmp_path / "r", "--scale", "full", "--agent-modes",
                          "trajectory", "--agent-lengths", "8k,16k,32k,64k",
                          "--agent-needles", "2", "--agent-samples", "10")
    assert done.returncode == 0, ok(done)
    exact = {length: statistics.fmean(r["scores"]["exact"] for r in found
                                      if r["params"]["length"] == length)
             for length in (8192, 16384, 32768, 65536)}
    assert exact[8192] == 1.0 and exact[65536] < 0.5, exact
    assert "effective length" in done.stdout and "no verdict" not in done.stdout, done.stdout
    plot = tmp_path / "r" / "run" / "plots" / "agent_accumulation" / "curve-nd2.png"
    assert plot.is_file()


def test_a_live_loop_against_an_endpoint_that_wants_its_reasoning_back(tmp_path):
    with ScriptedServer("agent", context_length=CONTEXT, behaviour="strict-tools") as server:
        done, found = run(server, tmp_path / "r", "--agent-modes", "live", "--agent-lengths",
                          "8k", "--agent-samples", "1",
                          "--agent-conditions", "full,clear:2,compact:4k")
    assert done.returncode == 0, ok(done)
    assert {r["params"]["condition"]: r["scores"]["exact"] for r in found} == {
        "full": True, "clear:2": True, "compact:4096": True}
    sent_back = [m for request in server.requests for m in request["messages"]
                 if m["role"] == "assistant" and m.get("tool_calls")]
    assert sent_back and all(m["reasoning_content"] and m["tool_calls"][0]["extra_content"]
                             for m in sent_back)
    # compaction: the same model's summary, stored, and the history after it starts anew
    (compacted,) = [r for r in found if r["params"]["condition"] == "compact:4096"]
    assert compacted["details"]["summaries"] and "notes: " in compacted["details"]["summaries"][0]
    assert any(r["tool_choice"] == "none" for r in server.requests)


def test_a_prefix_cache_serves_nearly_all_of_a_live_episode(tmp_path):
    with ScriptedServer("agent", context_length=CONTEXT, prefix_cache_tokens=4_000_000) \
            as server:
        done, found = run(server, tmp_path / "r", "--scale", "full", "--agent-modes", "live",
                          "--agent-lengths", "32k", "--agent-samples", "2",
                          "--agent-needles", "2", "--agent-conditions", "full")
        counts = server.prefix_cache.counts()
    assert done.returncode == 0, ok(done)
    assert all(r["scores"]["exact"] for r in found) and len(found) == 2
    assert counts["computed_tokens"] <= counts["prompt_tokens"] / 4, counts
    # the recorder keeps each request's tokens: from the second request on, nearly all served
    for r in found:
        later = r["details"]["requests"][1:]
        assert sum(q["cached_tokens"] for q in later) >= 0.7 * sum(q["prompt_tokens"]
                                                                   for q in later)


SLIPS = {"bad_json": {"name": "list_pages", "arguments": "{pages"},
         "unknown_tool": {"name": "search_ledger", "arguments": '{"query": "inv"}'},
         "bad_submit": {"name": "submit", "arguments": '{"ids": "inv-000000", "total_cents": 1}'},
         "bad_page": {"name": "read_page", "arguments": '{"page": 99}'}}


def slipping():
    """A held-out agent: the perfect agent, but the first call of each episode is wrong in
    one way, a slip after another (episodes start in any order: each slip is met once)."""
    slips, first_turns = list(SLIPS.values()), {}

    def reply(request):
        answer = perfect_agent(request)
        if len(request["messages"]) > 2 or not isinstance(answer, dict):
            return answer
        task = request["messages"][1]["content"]
        function = first_turns.setdefault(task, slips[len(first_turns)])
        return {**answer, "tool_calls": [{**answer["tool_calls"][0], "function": function}]}
    return reply


def test_a_slip_is_answered_and_the_agent_goes_on_and_a_rerun_asks_nothing(tmp_path):
    options = ("--agent-modes", "live", "--agent-lengths", "8k", "--agent-samples", "4",
               "--agent-conditions", "full")
    with ScriptedServer(slipping(), context_length=CONTEXT) as server:
        done, found = run(server, tmp_path / "r", *options)
        asked = len(server.requests)
        # a new run over the same results: the response cache serves every request
        rerun = run_scripted("agent_accumulation", server.base_url, tmp_path / "r", *options,
                             "--run-id", "again")
        assert len(server.requests) == asked
    assert done.returncode == 0, ok(done)
    assert rerun.returncode == 0, ok(rerun)
    assert all(r["outcome"] == "ok" for r in found) and len(found) == 4
    ends = sorted((r["details"]["episode_end"], json.dumps(r["details"]["call_errors"]),
                   r["scores"]["exact"], r["scores"]["submitted"]) for r in found)
    # an unknown tool, arguments that are not JSON and a page out of range are answered
    # with an error result, and the agent goes on to be exact; an ill-typed submit is
    # submitted, scored 0
    assert ends == [("submitted", '{"bad_arguments": 1}', True, True),
                    ("submitted", '{"bad_page": 1}', True, True),
                    ("submitted", '{"bad_submit": 1}', False, True),
                    ("submitted", '{"unknown_tool": 1}', True, True)]
    again = run_records(tmp_path / "r", "again")
    def episodes(records):  # (each request's tokens say whether the cache served it)
        return sorted(json.dumps({**r["details"], "requests": None}, sort_keys=True)
                      for r in records)
    assert episodes(again) == episodes(found)
    assert sum(r["cached_calls"] for r in again) == asked and \
        sum(r["model_calls"] for r in again) == 0


UNCARRIED = {"duplicate_call_ids": lambda call: [call, dict(call)],
             "missing_call_id": lambda call: [{k: v for k, v in call.items() if k != "id"}],
             "object_arguments": lambda call: [{**call, "function": {
                 **call["function"], "arguments": json.loads(call["function"]["arguments"])}}]}


def uncarried():
    """The perfect agent, but its second reply in each episode is one the next request
    could not carry, a kind after another."""
    kinds, episodes = list(UNCARRIED), {}

    def reply(request):
        answer = perfect_agent(request)
        if len(request["messages"]) != 4 or not isinstance(answer, dict):
            return answer
        kind = episodes.setdefault(request["messages"][1]["content"], kinds[len(episodes)])
        return {**answer, "tool_calls": UNCARRIED[kind](answer["tool_calls"][0])}
    return reply


def test_a_reply_the_next_request_could_not_carry_is_a_named_end_scored_0(tmp_path):
    with ScriptedServer(uncarried(), context_length=CONTEXT) as server:
        done, found = run(server, tmp_path / "r", "--agent-modes", "live", "--agent-lengths",
                          "8k", "--agent-samples", "3", "--agent-conditions", "full")
    assert done.returncode == 0, ok(done)
    assert sorted((r["outcome"], r["details"]["episode_end"], r["scores"]["exact"],
                   r["details"]["steps"]) for r in found) == [
        ("ok", kind, False, 2) for kind in sorted(UNCARRIED)]
    assert len(server.requests) == 3 * 2  # nothing was sent after such a reply
    assert all(tool_history_problem(request["messages"]) is None
               for request in server.requests)
    assert "episodes, live full: 1 duplicate_call_ids, 1 missing_call_id, " \
        "1 object_arguments" in done.stdout


def sampling():
    """A sampling endpoint: the perfect agent, with a fresh draw in every reply (its notes'
    nonce and its call ids), so the same request never gets the same reply twice."""
    import uuid

    def reply(request):
        answer = perfect_agent(request)
        if not isinstance(answer, dict):
            return f"{answer}\n(draw {uuid.uuid4().hex})"
        return {"content": f"{answer['content']}\n(draw {uuid.uuid4().hex})", "tool_calls": [
            {**call, "id": f"call_{uuid.uuid4().hex[:24]}"} for call in answer["tool_calls"]]}
    return reply


def test_a_rerun_against_a_sampling_endpoint_sends_nothing_and_reproduces_every_record(
        tmp_path):
    options = ("--agent-modes", "live", "--agent-lengths", "8k", "--agent-samples", "2",
               "--agent-conditions", "full,clear:2,drop:0.5,compact:0.5", "-n", "2")
    with ScriptedServer(sampling(), context_length=CONTEXT) as server:
        done, found = run(server, tmp_path / "r", *options)
        asked = len(server.requests)
        rerun = run_scripted("agent_accumulation", server.base_url, tmp_path / "r", *options,
                             "--run-id", "again")
        again_asked = len(server.requests) - asked
    assert done.returncode == 0, ok(done)
    assert rerun.returncode == 0, ok(rerun)
    # the four conditions of a ledger send the same first request (the task): each episode
    # drew its own reply to it
    first = [json.dumps(r["messages"]) for r in server.requests[:asked]
             if len(r["messages"]) == 2]
    assert len(first) == 8 and sorted(map(first.count, set(first))) == [4, 4]
    assert again_asked == 0
    again = run_records(tmp_path / "r", "again")
    def kept(records):
        return sorted(json.dumps({"id": r["sample_id"], "scores": r["scores"],
                                  "output": r["output"],
                                  "details": {**r["details"], "requests": [
                                      {**q, "from_response_cache": None}
                                      for q in r["details"].get("requests", [])]}},
                                 sort_keys=True) for r in records)
    assert kept(again) == kept(found)
    assert all(r["scores"]["exact"] for r in found)


def test_an_endpoint_that_refuses_tools_is_one_line_and_nothing_is_lost(tmp_path):
    with ScriptedServer("agent", context_length=CONTEXT, refused_fields=("tools",)) as server:
        done, found = run(server, tmp_path / "r", "--agent-lengths", "8k",
                          "--agent-samples", "1", "--agent-conditions", "full")
    assert done.returncode != 0
    lines = [line for line in done.stdout.splitlines() if "refuses tools" in line]
    assert lines and all("tools is not supported" in line and "function calling" in line
                         for line in lines), done.stdout[-3000:]
    assert len(found) == 2 and {r["outcome"] for r in found} == {"error"}
    assert len(server.requests) == 1  # learnt once: never sent again, never without tools


def test_the_pages_are_fitted_in_the_models_own_unit(tmp_path):
    with ScriptedServer("agent", context_length=CONTEXT, tokenizer="toy") as server:
        done, found = run(server, tmp_path / "r", "--tokenizer", "server", "--agent-lengths",
                          "8k", "--agent-samples", "1", "--agent-conditions", "full")
    assert done.returncode == 0, ok(done)
    (trajectory,) = [r for r in found if r["params"]["mode"] == "trajectory"]
    assert trajectory["token_unit"] != "o200k_base"
    # the prompt as the server counts it (its template in; the tools' schemas apart) fits
    assert 0.85 * 8192 <= trajectory["prompt_tokens"] <= trajectory["target_tokens"] <= 8192
    assert trajectory["o200k_tokens"] < 0.9 * trajectory["prompt_tokens"]  # toy counts more
    assert all(r["scores"]["exact"] for r in found)
