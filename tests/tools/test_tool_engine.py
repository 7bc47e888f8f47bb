"""The request engine's tool path against the real scripted server over HTTP: the assistant
message sent back as it came (a strict endpoint's 400 otherwise), the prefix cache of an
episode, the response cache re-running one, a refused ``tools``, a broken history."""

from __future__ import annotations

import copy
import dataclasses

import openai
import pytest

from fixtures.engine.cache import ResponseCache
from fixtures.providers.generation import refused_tool_parameter
from fixtures.engine.models import OpenAIChatModel
from fixtures.providers.base import Completion, EndpointError
from tests.doubles.scripted_server import ScriptedServer
from fixtures.engine.toolcalls import BrokenToolHistory, tool_history_problem

from .helpers import (FORCE_SUBMIT, TOOLS, episode, gold, ledger, recorder, tool_result,
                      trajectory)

CONTEXT = 1_000_000


def model(server, cache=None) -> OpenAIChatModel:
    return OpenAIChatModel("scripted", server.base_url, api_key="x", max_retries=1,
                           timeout_s=10, cache=cache)


@pytest.mark.asyncio
async def test_a_strict_endpoint_completes_a_loop_that_sends_its_messages_back_as_they_came():
    pages = ledger()
    with ScriptedServer("agent", context_length=CONTEXT, behaviour="strict-tools") as server:
        submitted, history, completions = await episode(model(server), recorder(), pages)
    assert submitted == gold(pages)
    first = completions[0].message
    assert first["reasoning_content"] and completions[0].thinking == first["reasoning_content"]
    assert first["tool_calls"][0]["extra_content"]["google"]["thought_signature"]
    assert len(server.issued) == len(completions)  # every request accepted, none refused


@pytest.mark.asyncio
@pytest.mark.parametrize("loss, refusal", [
    ("reasoning_content", "Missing `reasoning_content` field in the assistant message at "
                          "message index 2"),
    ("signature", "Function call is missing a thought_signature"),
    ("changed signature", "Corrupted thought signature"),
])
async def test_a_strict_endpoint_refuses_a_history_that_lost_what_it_sent(loss, refusal):
    pages = ledger()
    with ScriptedServer("agent", context_length=CONTEXT, behaviour="strict-tools") as server:
        engine = model(server)
        history = [{"role": "system", "content": "s"}, trajectory(pages)[1]]
        reply = await engine.complete(history, max_tokens=400, tools=TOOLS)
        sent = copy.deepcopy(reply.message)
        google = sent["tool_calls"][0]["extra_content"]["google"]
        if loss == "reasoning_content":
            del sent["reasoning_content"]
        elif loss == "signature":
            del sent["tool_calls"][0]["extra_content"]
        else:
            google["thought_signature"] += "x"
        answer = {"role": "tool", "tool_call_id": sent["tool_calls"][0]["id"],
                  "content": tool_result(pages, sent["tool_calls"][0])}
        with pytest.raises(openai.BadRequestError, match=refusal) as refused:
            await engine.complete(history + [sent, answer], max_tokens=400, tools=TOOLS)
        assert refused.value.status_code == 400
        again = await engine.complete(history + [reply.message, answer], max_tokens=400,
                                      tools=TOOLS)
        assert again.tool_calls[0]["function"]["name"] == "read_page"


@pytest.mark.asyncio
async def test_an_episode_extends_its_prompt_so_a_prefix_cache_serves_most_of_it():
    """Ten requests, each its episode's previous one plus a step: the server computes well
    under a quarter of what it is sent; each request's tokens are in the record."""
    pages = ledger(pages=8, note_words=120, needle_pages=(2, 5, 8))
    with ScriptedServer("agent", context_length=CONTEXT, prefix_cache_tokens=CONTEXT) as server:
        engine, sample = model(server), recorder()
        engine.routing_keys, sample.routing_key = True, "episode-1"
        submitted, _, completions = await episode(engine, sample, pages)
    counts = server.prefix_cache.counts()
    assert submitted == gold(pages) and counts["requests"] == len(completions) == 10
    assert counts["computed_tokens"] < counts["prompt_tokens"] / 4
    assert {r.get("prompt_cache_key") for r in server.requests} == {"episode-1"}
    requests = sample.record.details["requests"]
    assert [r["prompt_tokens"] for r in requests] == [c.prompt_tokens for c in completions]
    assert all(r["cached_tokens"] >= 0.8 * before["prompt_tokens"]
               for before, r in zip(requests, requests[1:]))
    assert sample.record.prompt_tokens == sum(r["prompt_tokens"] for r in requests)
    assert sample.record.cached_tokens == counts["served_tokens"] == \
        sum(r["cached_tokens"] for r in requests)


@pytest.mark.asyncio
async def test_the_response_cache_reruns_an_episode_without_a_request(tmp_path):
    pages = ledger()
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with ScriptedServer("agent", context_length=CONTEXT, behaviour="strict-tools") as server:
        first = await episode(model(server, cache), recorder(), pages)
        asked = len(server.requests)
        again = await episode(model(server, cache), recorder(), pages)
    assert len(server.requests) == asked  # nothing stored was asked again
    assert again[0] == first[0] == gold(pages) and again[1] == first[1]
    assert all(c.cached and c.message == f.message for c, f in zip(again[2], first[2]))


def test_a_cache_row_from_before_the_message_field_still_loads():
    row = dataclasses.asdict(Completion(text="[answer: yes]", finish_reason="stop"))
    del row["message"]
    assert Completion(**row).message is None and Completion(**row).tool_calls == []


@pytest.mark.asyncio
@pytest.mark.parametrize("refused", ["tools", "tool_choice"])
async def test_an_endpoint_that_refuses_tools_is_one_line_and_asked_once(refused):
    with ScriptedServer("agent", context_length=CONTEXT, refused_fields=(refused,)) as server:
        engine = model(server)
        for _ in range(2):
            with pytest.raises(EndpointError) as error:
                await engine.complete(trajectory(ledger()), max_tokens=400, tools=TOOLS,
                                      tool_choice=FORCE_SUBMIT)
            line = str(error.value)
            assert "\n" not in line and line.startswith(f"{engine.host} refuses {refused}")
            assert "function calling" in line and "--enable-auto-tool-choice" in line
        assert len(server.requests) == 1  # learnt: the second never left
        plain = await engine.complete([{"role": "user", "content": "hi"}], max_tokens=10)
        assert plain.ok  # other experiments' requests go on


@pytest.mark.parametrize("message, param, found", [
    ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
     None, "tool_choice"),
    ("tools param requires --jinja flag", None, "tools"),
    ('Invalid JSON payload received. Unknown name "tools": Cannot find field.', None, "tools"),
    ("tools is not supported", "tools", "tools"),
    ("This model does not support function calling", None, "tools"),
    ("Function call is missing a thought_signature in functionCall parts. This is required "
     "for tools to work correctly", None, None),
    ("Unsupported value: 'temperature' does not support 0 with this model.", "temperature",
     None),
])
def test_refusals_of_function_calling_are_told_from_other_400s(message, param, found):
    sent = {"tools": TOOLS, "tool_choice": "auto", "temperature": 0}
    assert refused_tool_parameter(param, None, message, sent) == found


@pytest.mark.asyncio
async def test_a_history_that_breaks_the_pairing_is_never_sent():
    history = trajectory(ledger())
    with ScriptedServer("agent", context_length=CONTEXT) as server:
        with pytest.raises(BrokenToolHistory) as broken:
            await recorder().ask(model(server), history[:3] + history[4:], max_tokens=400,
                                 tools=TOOLS)
    assert server.requests == [] and "\n" not in str(broken.value)
    assert "message 3 (assistant) comes while message 2's call 'call_script_0' is " \
           "unanswered" in str(broken.value)


def _call(call_id):
    return {"id": call_id, "type": "function",
            "function": {"name": "read_page", "arguments": "{}"}}


def _answer(call_id):
    return {"role": "tool", "tool_call_id": call_id, "content": "{}"}


@pytest.mark.parametrize("messages, problem", [
    ([_answer("a")], "orphan"),
    ([{"role": "assistant", "tool_calls": [_call("a"), _call("b")]}, _answer("b"),
      _answer("a")], "in the calls' order"),
    ([{"role": "assistant", "tool_calls": [_call("a")]}], "unanswered at the history's end"),
    ([{"role": "assistant", "tool_calls": [_call("a"), _call("a")]}, _answer("a"),
      _answer("a")], "distinct ids"),
    ([{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "x",
                                                                     "arguments": {}}}]},
      _answer("a")], "arguments as JSON text"),
    ([{"role": "assistant", "tool_calls": [_call("a")]}, _answer("a"), _answer("a")],
     "orphan"),
])
def test_each_break_of_the_pairing_is_named(messages, problem):
    assert problem in tool_history_problem([{"role": "user", "content": "t"}] + messages)


def test_a_history_that_keeps_the_pairing_passes():
    parallel = [{"role": "assistant", "content": None, "tool_calls": [_call("a"), _call("b")]},
                _answer("a"), _answer("b"), {"role": "user", "content": "go on"}]
    assert tool_history_problem(trajectory(ledger()) + parallel) is None


@pytest.mark.parametrize("unit", ["o200k", "toy"])
def test_each_request_of_an_episode_renders_as_the_previous_ones_prompt_extended(unit):
    """The server's prompt text (its count, its prefix cache) holds tool calls and results,
    and a request that adds an assistant turn and its result extends the previous one's."""
    with ScriptedServer(tokenizer=unit) as server:
        tokenizer = server.tokenizer
    history = trajectory(ledger())
    requests = [history[:i] for i, m in enumerate(history) if m["role"] == "assistant"]
    requests.append(history)
    for before, after in zip(requests, requests[1:]):
        assert tokenizer.render(after).startswith(tokenizer.render(before))
    call = history[2]
    assert call["tool_calls"][0]["function"]["arguments"] in tokenizer.render(history)
    assert tokenizer.count_messages(history[:3]) > tokenizer.count_messages(
        history[:2] + [{**call, "tool_calls": []}])
