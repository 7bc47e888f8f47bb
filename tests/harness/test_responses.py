"""OpenAI's Responses API (``--provider openai-responses``): the real ``openai`` SDK under the
one request engine, against the scripted Responses server (tests/doubles/responses_server.py) over
real HTTP: what each request carries, what each reply becomes, the reasoning passed back in
conversations and tool loops, server-side compaction, and the faults.
test_responses_end_to_end.py runs every experiment as a user does."""

from __future__ import annotations

import pytest

from fixtures.engine.cache import ResponseCache
from fixtures.engine.models import EndpointModel
from fixtures.providers.base import EndpointFatal, EndpointRefused
from fixtures.providers.generation import GenerationSettings
from fixtures.providers.openai_responses import (NATIVE_KEY, completion_of, to_input, to_tool,
                                                 to_tool_choice)
from fixtures.providers.registry import sdk_too_old
from fixtures.tokens.tokenizer import o200k
from tests.doubles.responses_server import ResponsesServer
from tests.doubles.scripted_server import Fault

from ..tools.helpers import TOOLS, episode, gold, ledger, recorder

KEY = "sk-responses-test-key-0001"
ASK = [{"role": "system", "content": "Answer briefly."},
       {"role": "user", "content": "Simply replicate: apple apple"}]


def client(server, retries=2, cache=None, **settings):
    return EndpointModel("scripted", server.base_url, KEY, provider="openai-responses",
                         max_retries=retries, timeout_s=10, cache=cache,
                         generation=GenerationSettings(**settings))


@pytest.fixture
def server():
    with ResponsesServer("copy", context_length=400, api_key=KEY,
                         thinker=lambda request: "wrong: pear") as running:
        yield running


@pytest.mark.asyncio
async def test_an_answer_its_usage_and_a_stateless_request(server):
    model = client(server)
    cards = await model.probe()  # GET /models, as for chat: the harness reads the context
    assert [card.id for card in cards] == ["scripted"]
    done = await model.complete(ASK, max_tokens=20, temperature=None)
    assert done.ok and done.text == "apple apple" and done.finish_reason == "stop"
    sent = server.requests[-1]
    assert sent["store"] is False and sent["include"] == ["reasoning.encrypted_content"]
    assert sent["input"] == [{"role": "system", "content": "Answer briefly."},
                             {"role": "user", "content": "Simply replicate: apple apple"}]
    assert sent["max_output_tokens"] == 20 and "max_tokens" not in sent
    assert done.prompt_tokens == sum(o200k().count(m["content"]) for m in ASK)
    assert done.cached_tokens == 0
    # it thought (a reasoning model at its default effort): counted, never the answer
    assert done.reasoning_tokens == o200k().count("wrong: pear") and done.thinking == ""
    assert done.completion_tokens == 2 + done.reasoning_tokens
    assert [item["type"] for item in done.message[NATIVE_KEY]] == ["reasoning", "message"]
    assert model.identity["provider"] == "openai-responses"
    assert done.request["store"] is False  # recorded as sent


@pytest.mark.parametrize("settings, reasoning", [
    ({}, None),
    ({"thinking": "off"}, {"effort": "none"}),
    ({"thinking": "on", "reasoning_tokens": 100}, {"summary": "auto"}),
    ({"reasoning_effort": "low"}, {"summary": "auto", "effort": "low"}),
    ({"reasoning_effort": "none"}, {"effort": "none"}),
])
@pytest.mark.asyncio
async def test_the_thinking_options_are_reasoning_effort_and_summary(server, settings,
                                                                      reasoning):
    server.context_length = 100_000
    done = await client(server, **settings).complete(ASK, max_tokens=20)
    sent = server.requests[-1]
    assert sent.get("reasoning") == reasoning
    assert sent["max_output_tokens"] == 20 + GenerationSettings(**settings).thinking_budget
    thinks = (reasoning or {}).get("effort") != "none"
    # the summary (the thinking) comes only when asked; the answer never holds it
    assert done.thinking == ("wrong: pear" if reasoning and "summary" in reasoning else "")
    assert done.text == "apple apple" and bool(done.reasoning_tokens) is thinks
    # the experiment's temperature 0 beside thinking: refused once, dropped
    assert ("temperature" in sent) is not thinks


@pytest.mark.asyncio
async def test_a_conversation_passes_its_reasoning_back_and_the_server_refuses_one_that_does_not(
        server):
    model = client(server)
    first = await model.complete(ASK, max_tokens=20)
    turn = first.turn()
    assert turn["content"] == "apple apple" and turn[NATIVE_KEY] == first.message[NATIVE_KEY]
    follow = [*ASK, turn, {"role": "user", "content": "Simply replicate: pear"}]
    second = await model.complete(follow, max_tokens=20)
    assert second.ok and second.text == "pear"
    sent = server.requests[-1]["input"]
    assert [item.get("type", "message") for item in sent] == \
        ["message", "message", "reasoning", "message", "message"]
    assert sent[2]["encrypted_content"]  # as it came
    # the answer alone, its reasoning dropped: refused, as a turn without its reasoning is
    with pytest.raises(Exception, match="without its required 'reasoning' item: 'rs_1'"):
        await model.complete([*ASK, {"role": "assistant", "content": "apple apple"},
                              follow[-1]], max_tokens=20)
    # its reasoning without the encrypted content: not found, the server keeps nothing
    bare = {**turn, NATIVE_KEY: [{**turn[NATIVE_KEY][0], "encrypted_content": None},
                                 turn[NATIVE_KEY][1]]}
    with pytest.raises(EndpointFatal, match="Items are not persisted when `store` is set "
                                            "to false"):
        await model.complete([*ASK, bare, follow[-1]], max_tokens=20)


def test_chat_messages_map_to_input_items_and_tools_to_function_tools():
    call = {"id": "call_1", "type": "function",
            "function": {"name": "lookup", "arguments": '{"word": "apple"}'}}
    items = to_input([{"role": "user", "content": [{"type": "text", "text": "hi"}]},
                      {"role": "assistant", "content": "", "tool_calls": [call]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "a fruit"}])
    assert items == [{"role": "user", "content": "hi"},
                     {"type": "function_call", "call_id": "call_1", "name": "lookup",
                      "arguments": '{"word": "apple"}'},
                     {"type": "function_call_output", "call_id": "call_1",
                      "output": "a fruit"}]
    assert to_tool(TOOLS[0]) == {"type": "function", "name": "list_pages", "strict": False,
                                 "description": "the list_pages tool",
                                 "parameters": {"type": "object", "properties": {}}}
    assert to_tool_choice({"type": "function", "function": {"name": "submit"}}) == \
        {"type": "function", "name": "submit"}
    assert to_tool_choice("required") == "required"


@pytest.mark.asyncio
async def test_the_server_refuses_what_the_api_does_not_have(server):
    server.context_length = 100_000
    with pytest.raises(EndpointFatal, match=r"refuses --seed 3 \(Unknown parameter: 'seed'"):
        await client(server, seed=3).complete(ASK, max_tokens=20)
    for body in ({"model": "m", "input": "x", "max_tokens": 5},
                 {"model": "m", "input": [{"role": "user", "content": "x", "name": "a"}]},
                 {"model": "m", "input": "x", "tools": TOOLS}):
        status, answer = server.complete(body)
        assert status == 400 and answer["error"]["message"].startswith(
            ("Unknown parameter", "Missing required parameter"))


@pytest.mark.parametrize("condition", ["full", "clear:1"])
@pytest.mark.asyncio
async def test_an_oracle_agent_is_exact_with_its_reasoning_passed_back_each_step(condition):
    pages = ledger(pages=4)
    with ResponsesServer("agent", context_length=100_000, api_key=KEY, thinker="unsure") as server:
        model = client(server)
        submitted, history, completions = await episode(model, recorder(), pages,
                                                        condition=condition)
    assert submitted == gold(pages)
    assert len(completions) == 1 + 4 + 1  # list_pages, each page, submit
    # every request after the first carried each earlier reply's reasoning item
    answered = [r for r in server.requests if "temperature" not in r]  # (0: refused once)
    assert len(answered) == len(server.requests) - 1 == len(completions)
    for number, request in enumerate(answered):
        passed = [item["id"] for item in request["input"] if item.get("type") == "reasoning"]
        assert passed == [f"rs_{n}" for n in range(1, number + 1)]
        assert request["tool_choice"] == "auto" and request["tools"][0]["name"] == "list_pages"
    assert all(c.reasoning_tokens for c in completions)


@pytest.mark.asyncio
async def test_a_rerun_of_a_tool_loop_replays_it_from_the_response_cache(tmp_path):
    pages = ledger(pages=3)
    with ResponsesServer("agent", context_length=100_000, thinker="unsure") as server:
        for _ in range(2):
            cache = ResponseCache(tmp_path / "cache.sqlite")
            submitted, _, completions = await episode(client(server, cache=cache),
                                                      recorder(), pages)
            cache.close()
            assert submitted == gold(pages)
        # the second asked nothing but the request whose temperature it learnt is refused
        assert len(server.requests) == len(completions) + 2
    assert all(c.cached for c in completions)


@pytest.mark.asyncio
async def test_server_side_compaction_is_passed_back_and_recorded():
    pages = ledger(pages=4, note_words=80)
    with ResponsesServer("agent", context_length=100_000, thinker="unsure") as server:
        model = client(server)
        rec = recorder()
        submitted, history, completions = await episode(model, rec, pages, context_management=[
            {"type": "compaction", "compact_threshold": 1500}])
    assert submitted == gold(pages)  # the compacted context carried the agent's notes
    compacted = [c for c in completions if c.context_management["compactions"]]
    assert server.compactions == len(compacted) >= 1
    assert all(c.context_management == {"compactions": 1} for c in compacted)
    assert rec.record.details["context_management"] == {"compactions": len(compacted)}
    marked = [r for r in rec.record.details["requests"] if "context_management" in r]
    assert len(marked) == len(completions)  # each asked, each reported (0 included)
    # the request that compacted counts the input it read; the next reads from the
    # compaction on: a smaller prompt
    at = completions.index(compacted[0])
    assert completions[at + 1].prompt_tokens < completions[at].prompt_tokens
    assert any(item.get("type") == "compaction" for m in history if m.get(NATIVE_KEY)
               for item in m[NATIVE_KEY])


@pytest.mark.asyncio
async def test_a_model_without_reasoning_is_sent_no_include_after_its_refusal():
    with ResponsesServer("copy", context_length=1000, reasoning_model=False) as server:
        model = client(server)
        done = await model.complete(ASK, max_tokens=20)
        again = await model.complete(ASK, max_tokens=21)
    assert done.ok and again.ok and done.text == "apple apple" and not done.reasoning_tokens
    assert ["include" in r for r in server.requests] == [True, False, False]
    assert model.identity["adapted"]["include"] == \
        "dropped: Encrypted content is not supported with this model."
    with ResponsesServer("copy", context_length=1000, reasoning_model=False) as server:
        with pytest.raises(EndpointFatal, match=r"refuses --thinking/--reasoning-effort "
                                                r"\(Unsupported parameter: 'reasoning.effort'"):
            await client(server, reasoning_effort="low").complete(ASK, max_tokens=20)


@pytest.mark.asyncio
async def test_a_token_limit_below_the_floor_is_raised_to_it_once(server):
    model = client(server)
    done = await model.complete(ASK, max_tokens=5, temperature=None)
    assert done.ok and [r["max_output_tokens"] for r in server.requests] == [5, 16]
    assert model.identity["adapted"] == {"raised": {"max_output_tokens": 16}}


@pytest.mark.asyncio
async def test_the_routing_key_is_the_responses_prompt_cache_key(server):
    model = client(server)
    model.routing_keys = True
    await model.complete(ASK, max_tokens=20, temperature=None, routing_key="group-1")
    assert server.requests[-1]["prompt_cache_key"] == "group-1"


@pytest.mark.asyncio
async def test_faults_act_as_every_providers(server):
    done = await client(server).complete([{"role": "user", "content": "x " * 500}],
                                         max_tokens=20, temperature=None)
    assert done.outcome == "overflow" and "context window" in done.error
    server.faults.extend([Fault(429, headers={"Retry-After": "0"}), Fault(500)])
    assert (await client(server).complete(ASK, max_tokens=20, temperature=None)).ok
    with pytest.raises(EndpointRefused, match="check the API key"):
        await EndpointModel("scripted", server.base_url, "sk-a-wrong-key-0002",
                            provider="openai-responses", max_retries=0,
                            timeout_s=10).complete(ASK, max_tokens=20)
    server.chat_fault = Fault(200, "<html>a web page</html>")
    with pytest.raises(EndpointFatal, match="not a Responses reply.*serves /responses"):
        await client(server).complete(ASK, max_tokens=20, temperature=None)


def test_an_sdk_without_the_responses_api_is_one_line(monkeypatch):
    import importlib.metadata

    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.55.3")
    assert sdk_too_old("openai-responses") == (
        "--provider openai-responses needs openai>=1.66.0 (installed: 1.55.3): pip install "
        "-U 'openai>=1.66.0'")
    assert sdk_too_old("openai") is None


def test_the_server_unit_counts_through_the_roots_own_tokenize(server):
    from fixtures.tokens.tokenizer import ServerTokenizer, make_unit

    unit = make_unit("server", base_url=server.base_url, model="scripted", api_key=KEY,
                     provider="openai-responses")
    assert isinstance(unit, ServerTokenizer)  # vLLM's and SGLang's, as for chat completions
    assert unit.count("apple apple") == o200k().count("apple apple") and \
        server.tokenize_requests > 0


def test_a_refusal_part_is_a_named_block_and_an_incomplete_reply_hit_the_limit():
    refused = completion_of({"status": "completed", "output": [{
        "type": "message", "role": "assistant",
        "content": [{"type": "refusal", "refusal": "I can't help with that."}]}]})
    assert refused.text == "" and refused.finish_reason == "content_filter"
    cut = completion_of({"status": "incomplete", "output": [],
                         "incomplete_details": {"reason": "max_output_tokens"},
                         "usage": {"output_tokens": 16,
                                   "output_tokens_details": {"reasoning_tokens": 16}}})
    assert cut.finish_reason == "length" and cut.reasoning_tokens == 16
