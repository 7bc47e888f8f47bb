"""The scripted server's agents play the agent-accumulation task over real HTTP (the real
``openai`` client through the engine's model): both modes, every condition, the tail agent."""

from __future__ import annotations

import json
import subprocess
import sys

import openai
import pytest

from fixtures.engine.models import OpenAIChatModel
from tests.doubles.scripted_agents import conversation_text
from tests.doubles.scripted_server import ScriptedServer

from .helpers import (FORCE_SUBMIT, TOOLS, episode, gold, ledger, recorder, trajectory,
                      under)

CONTEXT = 1_000_000


def model(server) -> OpenAIChatModel:
    return OpenAIChatModel("scripted", server.base_url, api_key="x", max_retries=1,
                           timeout_s=10)


@pytest.fixture
def agent():
    with ScriptedServer("agent", context_length=CONTEXT) as running:
        yield running


@pytest.mark.asyncio
async def test_trajectory_mode_submits_the_gold_answer_at_once(agent):
    pages = ledger()
    completion = await recorder().ask(model(agent), trajectory(pages), max_tokens=400,
                                      tools=TOOLS, tool_choice=FORCE_SUBMIT)
    [call] = completion.tool_calls
    assert call["function"]["name"] == "submit" and completion.finish_reason == "tool_calls"
    assert json.loads(call["function"]["arguments"]) == gold(pages)
    assert len(gold(pages)["ids"]) == 3 and len(agent.requests) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("condition", ["full", "clear:2", "clear:1", "drop:0.5", "trim:0.5"])
async def test_live_mode_is_exact_under_every_condition(agent, condition):
    pages = ledger()
    submitted, history, completions = await episode(model(agent), recorder(), pages,
                                                    condition=condition)
    assert submitted == gold(pages)
    calls = [c.tool_calls[0]["function"]["name"] for c in completions]
    assert calls == ["list_pages"] + ["read_page"] * len(pages) + ["submit"]  # no re-read
    ids = [c.tool_calls[0]["id"] for c in completions]
    assert len(set(ids)) == len(ids)
    if condition == "clear:2":  # no request showed more than two pages
        for sent in agent.requests:
            shown = [m for m in sent["messages"] if m["role"] == "tool" and
                     "records" in json.loads(m["content"])]
            assert len(shown) <= 2
    if condition != "full":  # the condition did take something away
        assert any(len(under(condition, history[:i])) < i or "cleared" in json.dumps(
            under(condition, history[:i])) for i in range(3, len(history)))


@pytest.mark.asyncio
async def test_clearing_every_result_leaves_the_agent_rereading_to_the_cap(agent):
    """clear:0 shows it nothing it did not note before: it calls again, as the hint says,
    and never submits a guess (the cap ends the episode)."""
    submitted, _, completions = await episode(model(agent), recorder(), ledger(),
                                              condition="clear:0", max_steps=6)
    assert submitted is None and len(completions) == 6
    assert all(c.tool_calls[0]["function"]["name"] == "list_pages" for c in completions)


@pytest.mark.asyncio
async def test_the_agent_obeys_tool_choice_and_answers_in_text_without_tools(agent):
    history, engine = trajectory(ledger()), model(agent)
    read = {"type": "function", "function": {"name": "read_page"}}
    forced = await engine.complete(history, max_tokens=400, tools=TOOLS, tool_choice=read)
    assert forced.tool_calls[0]["function"]["name"] == "read_page"
    for params in ({"tools": TOOLS, "tool_choice": "none"}, {}):
        text = await engine.complete(history, max_tokens=400, **params)
        assert not text.tool_calls and text.finish_reason == "stop"
        assert ", ".join(gold(ledger())["ids"]) in text.text


@pytest.mark.asyncio
async def test_the_tail_agent_is_exact_while_the_trajectory_fits_its_tail_and_not_beyond():
    pages = ledger(pages=6, note_words=60)  # needles on pages 1, 3 and 4
    size = len(conversation_text(trajectory(pages)))
    page = len(conversation_text(trajectory(pages)[-2:]))
    results = {}
    for tail in (size + 10, size - 2 * page):  # all of it; pages 1 and 2 out of sight
        with ScriptedServer(f"agent-tail:{tail}", context_length=CONTEXT) as server:
            completion = await model(server).complete(trajectory(pages), max_tokens=400,
                                                      tools=TOOLS, tool_choice=FORCE_SUBMIT)
        results[tail] = json.loads(completion.tool_calls[0]["function"]["arguments"])
    assert results[size + 10] == gold(pages)
    assert results[size - 2 * page]["ids"] == gold(pages)["ids"][1:] or \
        set(results[size - 2 * page]["ids"]) < set(gold(pages)["ids"])
    assert results[size - 2 * page] != gold(pages)


@pytest.mark.asyncio
async def test_in_a_live_loop_the_tail_agents_notes_carry_what_left_its_tail():
    pages = ledger(pages=6, note_words=60)
    tail = len(conversation_text(trajectory(pages)[-2:])) * 2  # about two pages
    with ScriptedServer(f"agent-tail:{tail}", context_length=CONTEXT) as server:
        submitted, _, _ = await episode(model(server), recorder(), pages)
    assert submitted == gold(pages)


def test_the_server_runs_as_a_process_with_an_agent_and_refuses_an_unknown_responder():
    bad = subprocess.run([sys.executable, "-m", "tests.doubles.scripted_server", "--responder",
                          "agent-tail:x"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "agent-tail:N" in bad.stderr.strip().splitlines()[-1]
    process = subprocess.Popen([sys.executable, "-m", "tests.doubles.scripted_server",
                                "--responder", "agent", "--refuse", "tool_choice"],
                               stdout=subprocess.PIPE, text=True)
    try:
        client = openai.OpenAI(base_url=process.stdout.readline().strip(), api_key="x")
        reply = client.chat.completions.create(model="m", messages=trajectory(ledger())[:2],
                                               tools=TOOLS, max_tokens=100)
        assert reply.choices[0].message.tool_calls[0].function.name == "list_pages"
        with pytest.raises(openai.BadRequestError, match="tool_choice is not supported"):
            client.chat.completions.create(model="m", messages=trajectory(ledger())[:2],
                                           tools=TOOLS, tool_choice="auto", max_tokens=100)
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.asyncio
async def test_a_compaction_that_keeps_the_agents_text_answer_keeps_it_exact(agent):
    """compact: the history after the task replaced by the agent's own summary (asked with
    no tools), here as a user message: it goes on from its notes."""
    pages, engine = ledger(), model(agent)
    history = trajectory(pages)[:6]  # list_pages and page 1 read
    summary = await engine.complete(history + [{"role": "user", "content": "Summarise."}],
                                    max_tokens=400)
    compacted = history[:2] + [{"role": "user", "content": summary.text}]
    step = await engine.complete(compacted, max_tokens=400, tools=TOOLS)
    assert step.tool_calls[0]["function"]["arguments"] == '{"page": 2}'


@pytest.mark.asyncio
async def test_the_parallel_agent_reads_pages_in_pairs_answered_in_order():
    pages = ledger(pages=5)
    with ScriptedServer("agent-parallel:2", context_length=CONTEXT) as server:
        submitted, history, completions = await episode(model(server), recorder(), pages)
    assert submitted == gold(pages)
    assert [len(c.tool_calls) for c in completions] == [1, 2, 2, 1, 1]  # list, 1-2, 3-4, 5


@pytest.mark.asyncio
@pytest.mark.parametrize("kind, name, arguments", [
    ("bad-json", "read_page", '{"page": 1'),
    ("unknown-tool", "delete_page", '{"page": 1}'),
    ("bad-page", "read_page", '{"page": 5}'),
    ("bad-submit", "submit", None),
])
async def test_a_faulty_agent_makes_its_fault_once_then_plays_on(kind, name, arguments):
    pages = ledger()
    with ScriptedServer(f"agent-fault:{kind}", context_length=CONTEXT) as server:
        submitted, history, completions = await episode(model(server), recorder(), pages)
    faulty = [call for c in completions for call in c.tool_calls
              if call["id"].startswith("call_fault_")]
    assert len(faulty) == 1 and faulty[0]["function"]["name"] == name
    if arguments is not None:
        assert faulty[0]["function"]["arguments"] == arguments
        assert submitted == gold(pages)  # the error result told it nothing; it went on
    else:  # the episode ends at its submit: ids as one string, the total as text
        assert submitted == {"ids": ", ".join(gold(pages)["ids"]),
                             "total_cents": str(gold(pages)["total_cents"])}


@pytest.mark.asyncio
async def test_an_agent_that_stops_without_a_call_ends_the_episode():
    with ScriptedServer("agent-fault:no-call", context_length=CONTEXT) as server:
        submitted, _, completions = await episode(model(server), recorder(), ledger())
    assert submitted is None and len(completions) == 2
    assert completions[-1].finish_reason == "stop" and not completions[-1].tool_calls
