"""Anthropic's own context management as live conditions, end to end: pytest in a subprocess
with ``--provider anthropic``, the real ``anthropic`` SDK against the scripted Anthropic
server (tests/doubles/native_servers.py, anthropic_context.py) playing the perfect agent,
which clears tool results, clears thinking and compacts when a request asks, reports it where
the API does, and refuses what the API refuses.

Sizes: server compaction triggers at 50k tokens at least, so the compaction run reaches 96k
(compaction at 64k, about page 7 of 10); two ledgers, five conditions: ten episodes.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.doubles import anthropic_context as context
from tests.doubles.native_servers import AnthropicServer

from ..subprocess_pytest import child_env, run_pytest

KEY = "sk-ant-native-0001"
CONTEXT = 4_000_000


def run(server, results: Path, *options: str, provider: str = "anthropic"):
    done = run_pytest("-m", "agent_accumulation", "-q", "--provider", provider,
                      "--model", "scripted", "--base-url", server.base_url,
                      "--results-dir", str(results), "--run-id", "run",
                      "--agent-modes", "live", *options,
                      env=child_env(ANTHROPIC_API_KEY=KEY, OPENAI_API_KEY=KEY))
    samples = results / "run" / "samples.jsonl"
    records = [json.loads(line) for line in samples.read_text().splitlines()] \
        if samples.exists() else []
    return done, {(r["params"]["condition"], r["params"]["index"]): r for r in records}


def ok(done) -> str:
    return done.stdout[-3000:] + done.stderr[-3000:]


def test_native_clearing_and_compaction_are_paired_with_full_and_their_twins(tmp_path):
    with AnthropicServer("agent", context_length=CONTEXT, api_key=KEY) as server:
        done, found = run(server, tmp_path / "r", "--agent-lengths", "96k",
                          "--agent-samples", "2", "--agent-conditions",
                          "full,clear:2,anthropic-clear:2,compact:64k,anthropic-compact:64k")
        requests, headers = list(server.requests), list(server.headers)
    assert done.returncode == 0, ok(done)
    assert len(found) == 10 and all(r["outcome"] == "ok" and r["scores"]["exact"]
                                    for r in found.values()), ok(done)
    # the beta headers went with the edits, and only there
    for request, sent in zip(requests, headers):
        edits = [e["type"] for e in (request.get("context_management") or {}).get("edits", [])]
        assert sorted(filter(None, sent.get("anthropic-beta", "").split(","))) == \
            sorted({context.EDIT_BETAS[e] for e in edits})
    # what the server cleared, as the API reported it, per episode
    cleared = found["anthropic-clear:2", 0]["details"]["server_context"]
    assert cleared["cleared_tool_uses"] == 9  # at the submit: 11 uses, the last 2 kept
    assert cleared["compactions"] == 0 and cleared["cleared_input_tokens"] > 0
    assert len(cleared["per_request"]) == found["anthropic-clear:2", 0]["details"]["steps"]
    # the client sent the whole history each time; the model read only 2 pages at once
    assert found["anthropic-clear:2", 0]["details"]["accumulated_tokens"] < \
        0.5 * found["full", 0]["details"]["accumulated_tokens"]
    # compaction: once past 64k, its summary's tokens in usage.iterations, not in the top
    compacted = found["anthropic-compact:65536", 0]["details"]
    assert compacted["server_context"]["compactions"] == 1
    assert compacted["server_context"]["compaction_input_tokens"] >= 65536
    assert compacted["server_context"]["compaction_output_tokens"] > 0
    assert max(q["prompt_tokens"] for q in compacted["requests"]) < 70_000
    after = [r for r in requests if any(b.get("type") == "compaction"
                                        for m in r["messages"] for b in m["content"]
                                        if isinstance(b, dict))]
    assert after and all(r["context_management"]["edits"][0]["type"] == "compact_20260112"
                         for r in after)  # the block sent back as it came
    terminal = done.stdout
    for condition, twin in (("anthropic-clear:2", "clear:2"),
                            ("anthropic-compact:65536", "compact:65536")):
        assert f"{condition} vs full, 2 ledgers: exact 2/2" in terminal, terminal[-3000:]
        assert f"{condition} vs {twin}, 2 ledgers: exact 2/2" in terminal
    assert "live anthropic-compact:65536, the server's own context management over 2 " \
        "episodes: " in terminal and "2 compactions" in terminal


def test_thinking_kept_or_cleared_is_a_condition_and_needs_thinking(tmp_path):
    options = ("--agent-lengths", "8k", "--agent-samples", "1", "--agent-conditions",
               "full,anthropic-thinking:1,anthropic-thinking:all")
    with AnthropicServer("agent", context_length=CONTEXT, api_key=KEY,
                         thinker="unsure") as server:
        done, found = run(server, tmp_path / "on", *options, "--thinking", "on",
                          "--reasoning-tokens", "1024")
        off, skipped = run(server, tmp_path / "off", *options, "--thinking", "off")
    assert done.returncode == 0, ok(done)
    assert all(r["scores"]["exact"] for r in found.values()) and len(found) == 3
    cleared = found["anthropic-thinking:1", 0]["details"]["server_context"]
    kept = found["anthropic-thinking:all", 0]["details"]["server_context"]
    # at the submit, 11 replies with thinking before it: all but the last cleared
    assert cleared["cleared_thinking_turns"] == 10 and cleared["cleared_input_tokens"] > 0
    assert kept["cleared_thinking_turns"] == 0
    assert "anthropic-thinking:1 vs anthropic-thinking:all, 1 ledgers: exact 1/1" in done.stdout
    # without thinking the API refuses it: one line, the sample skipped, never sent
    assert off.returncode == 0, ok(off)
    assert {k: r["outcome"] for k, r in skipped.items()} == {
        ("full", 0): "ok", ("anthropic-thinking:1", 0): "skipped",
        ("anthropic-thinking:all", 0): "skipped"}
    assert "--thinking on" in skipped["anthropic-thinking:1", 0]["reason"]


def test_a_native_condition_on_another_provider_is_one_line(tmp_path):
    from tests.doubles.scripted_server import ScriptedServer

    with ScriptedServer("agent", context_length=CONTEXT) as server:
        done, found = run(server, tmp_path / "r", "--agent-lengths", "8k", "--agent-samples",
                          "1", "--agent-conditions", "full,anthropic-clear:2",
                          provider="openai")
    assert done.returncode == 0, ok(done)
    skipped = found["anthropic-clear:2", 0]
    assert skipped["outcome"] == "skipped" and "\n" not in skipped["reason"]
    assert "--provider anthropic" in skipped["reason"]
    assert found["full", 0]["scores"]["exact"]
    assert all("context_management" not in r for r in server.requests)


def test_the_server_refuses_what_the_api_refuses():
    clear = {"type": "clear_tool_uses_20250919"}
    thinking = {"type": "clear_thinking_20251015"}
    compact = {"type": "compact_20260112", "trigger": {"type": "input_tokens",
                                                       "value": 10_000}}
    both = {context.CONTEXT_BETA, context.COMPACT_BETA}

    def refused(edits, betas=frozenset(both), thinks=True):
        return context.refusal({"context_management": {"edits": edits}}, set(betas), thinks)
    assert "Extra inputs" in refused([clear], betas=())  # no beta header: not a field at all
    assert "compact-2026-01-12" in refused([{"type": "compact_20260112"}],
                                           betas={context.CONTEXT_BETA})
    assert "at least 50000" in refused([compact])
    assert "thinking" in refused([thinking], thinks=False)
    assert "first" in refused([clear, thinking])
    assert refused([thinking, clear]) is None and refused([clear]) is None
    assert "does not match" in refused([{"type": "clear_everything"}])
    # tool uses and results that do not pair: the API's own words
    use = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x",
                                             "input": {}}]}
    assert "without `tool_result` blocks immediately after" in context.pairing_refusal(
        [{"role": "user", "content": "go"}, use, {"role": "user", "content": "next"}])
    assert "must be unique" in context.pairing_refusal(
        [{"role": "user", "content": "go"}, use,
         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]}, use])


def loop(uses: int) -> list[dict]:
    """A task, then ``uses`` turns of one tool use and its result, each with thinking."""
    messages = [{"role": "user", "content": [{"type": "text", "text": "the task"}]}]
    for n in range(uses):
        messages.append({"role": "assistant", "content": [
            {"type": "thinking", "thinking": f"thought {n}", "signature": "s"},
            {"type": "tool_use", "id": f"t{n}", "name": "lookup" if n % 2 else "read_page",
             "input": {"page": n}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}",
             "content": [{"type": "text", "text": f"page {n} " * 50}]}]})
    return messages


def words(text: str) -> int:
    return len(text.split())


def edited(messages, *edits, thinks=True):
    request = {"context_management": {"edits": list(edits)}}
    return context.apply(messages, request, thinks, words,
                         lambda ms: sum(words(json.dumps(m)) for m in ms))


def results(messages):
    return [b["content"][0]["text"] for m in messages if m["role"] == "user"
            for b in m["content"] if b.get("type") == "tool_result"]


def test_the_scripted_server_clears_as_the_api_says():
    clear = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 3},
             "keep": {"type": "tool_uses", "value": 2}}
    done = edited(loop(6), clear)
    assert results(done.messages).count(context.CLEARED) == 4
    assert results(done.messages)[-2:] == results(loop(6))[-2:]  # the last 2 kept
    assert done.applied == [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 4,
                             "cleared_input_tokens": 4 * (100 - words(context.CLEARED))}]
    assert edited(loop(2), clear).applied == []  # below the trigger: nothing
    # a tool excluded, and a floor on what is worth clearing
    assert edited(loop(6), {**clear, "exclude_tools": ["lookup"]}).applied[0][
        "cleared_tool_uses"] == 2
    assert edited(loop(6), {**clear, "clear_at_least": {"type": "input_tokens",
                                                         "value": 10_000}}).applied == []
    # thinking: all but the last N thinking turns lose theirs; "all" keeps every one
    thinking = edited(loop(5), {"type": "clear_thinking_20251015",
                                "keep": {"type": "thinking_turns", "value": 1}})
    assert context.thinking_text(thinking.messages) == ["thought 4"]
    assert thinking.applied[0]["cleared_thinking_turns"] == 4
    kept = edited(loop(5), {"type": "clear_thinking_20251015", "keep": "all"})
    assert len(context.thinking_text(kept.messages)) == 5 and kept.applied == []
    # the client sent the whole history: the server reads from the last compaction on
    history = loop(3) + [{"role": "assistant", "content": [
        {"type": "compaction", "content": "the summary"},
        {"type": "tool_use", "id": "t9", "name": "read_page", "input": {"page": 9}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9",
                                      "content": [{"type": "text", "text": "page 9"}]}]}]
    read = context.from_last_compaction(history)
    assert read[0] == {"role": "user", "content": [{"type": "text", "text": "the summary"}]}
    assert [b["type"] for b in read[1]["content"]] == ["tool_use"] and len(read) == 3
