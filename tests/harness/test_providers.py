"""Claude and Gemini through their own APIs (``--provider anthropic|google``): the real
``anthropic`` and ``google-genai`` SDKs under the one request engine, against the scripted
servers that speak each API (tests/doubles/native_servers.py) over real HTTP.

Here, one client at a time: what each request carries, what each reply becomes, every fault
of the fault table. test_providers_end_to_end.py runs RULER as a user does.
"""

import base64
import json

import pytest

from fixtures.providers.anthropic_messages import to_messages, with_breakpoints
from fixtures.providers.gemini import PLACEHOLDER_BYTES, to_contents
from fixtures.providers.generation import GenerationSettings
from fixtures.engine.models import EndpointModel
from fixtures.providers.base import EndpointFatal, EndpointRefused
from tests.doubles.native_servers import (MESSAGE_TOKENS, PROMPT_TOKENS, AnthropicServer,
                                     GeminiServer, camel)
from tests.doubles.scripted_server import Fault
from fixtures.tokens.tokenizer import CountingAPI, make_unit, o200k

KEY = "sk-provider-test-key-0001"
SERVERS = {"anthropic": AnthropicServer, "google": GeminiServer}
ASK = [{"role": "system", "content": "Answer briefly."},
       {"role": "user", "content": "Simply replicate: apple apple"}]
TOOLS = [{"type": "function", "function": {
    "name": "lookup", "description": "Look a word up.",
    "parameters": {"type": "object", "properties": {"word": {"type": "string"}}}}}]


def client(server, provider, retries=2, key=KEY, **settings):
    return EndpointModel("scripted", server.base_url, key, provider=provider,
                         max_retries=retries, timeout_s=10,
                         generation=GenerationSettings(**settings))


@pytest.fixture(params=sorted(SERVERS))
def provider(request):
    return request.param


@pytest.fixture
def server(provider):
    with SERVERS[provider]("copy", context_length=400, api_key=KEY,
                           thinker=lambda request: "wrong: pear") as running:
        yield running


@pytest.mark.asyncio
async def test_an_answer_with_its_usage_and_the_listings_limits(server, provider):
    model = client(server, provider)
    assert await model.probe() is None  # (not OpenAI's cards: the limits are set)
    assert model.context_length == 400 and model.server_kind == provider
    assert model.max_output_tokens == {"anthropic": 64_000, "google": 65_536}[provider]
    done = await model.complete(ASK, max_tokens=20)
    assert done.ok and done.text == "apple apple" and done.finish_reason == "stop"
    prompt = o200k().count(ASK[0]["content"]) + o200k().count(ASK[1]["content"])
    assert done.prompt_tokens == prompt + 2 * MESSAGE_TOKENS + PROMPT_TOKENS
    # Gemini 2.5 thinks unless told not to, and shows no thoughts unless asked: counted only
    hidden = o200k().count("wrong: pear") if provider == "google" else None
    assert done.thinking == "" and done.reasoning_tokens == hidden
    assert done.completion_tokens == 2 + (hidden or 0)
    assert model.identity["provider"] == provider
    await model.close()


@pytest.mark.asyncio
async def test_anthropic_sends_its_version_system_apart_and_cache_breakpoints():
    with AnthropicServer("copy", api_key=KEY) as server:
        model = client(server, "anthropic")
        model.routing_keys = True  # --prompt-cache-key auto/on
        # a request no later one reads is never marked (a write costs 1.25 times input)
        alone = await model.complete(ASK, max_tokens=19, routing_key="group")
        # a sample's follow-up (its conversation goes on) and a replicate are
        first = await model.complete(ASK, max_tokens=20, routing_key="group", follow_up=True)
        second = await model.complete(ASK, max_tokens=21, routing_key="group", replicate=1)
        model.routing_keys = False  # --prompt-cache-key off
        await model.complete(ASK, max_tokens=22, routing_key="group", follow_up=True)
    sent = server.requests
    assert all(h.get("anthropic-version") for h in server.headers)
    assert sent[0]["system"] == [{"type": "text", "text": "Answer briefly."}]
    assert "cache_control" not in json.dumps(sent[0])
    assert (alone.cached_tokens, alone.cache_write_tokens) == (0, 0)
    assert sent[1]["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": ASK[1]["content"], "cache_control": {"type": "ephemeral"}}]}]
    assert "cache_control" not in json.dumps(sent[3])
    # the first wrote the prompt to the cache, the second read it: the records' figures
    written = o200k().count(ASK[1]["content"])
    assert (first.cached_tokens, first.cache_write_tokens) == (0, written)
    assert (second.cached_tokens, second.cache_write_tokens) == (written, 0)
    assert second.prompt_tokens == first.prompt_tokens


def test_a_conversation_gets_a_breakpoint_on_its_last_turn_and_the_turn_before():
    turns = to_messages([{"role": "user", "content": "one"},
                         {"role": "assistant", "content": "two"},
                         {"role": "user", "content": "three"}])[1]
    marked = with_breakpoints(turns)
    assert [("cache_control" in t["content"][-1]) for t in marked] == [True, False, True]
    assert not any("cache_control" in t["content"][-1] for t in turns)  # copies


@pytest.mark.parametrize("settings, anthropic, gemini", [
    ({}, None, None),
    ({"thinking": "off"}, {"type": "disabled"}, {"thinkingBudget": 0}),
    ({"thinking": "on", "reasoning_tokens": 1024},
     {"type": "enabled", "budget_tokens": 1024},
     {"thinkingBudget": 1024, "includeThoughts": True}),
    ({"reasoning_effort": "low"}, {"type": "enabled", "budget_tokens": 25_000},
     {"thinkingLevel": "LOW", "includeThoughts": True}),
    ({"reasoning_effort": "none"}, {"type": "disabled"}, {"thinkingBudget": 0}),
])
@pytest.mark.asyncio
async def test_the_thinking_options_map_to_each_apis_own_fields(settings, anthropic, gemini):
    for provider, expected in (("anthropic", anthropic), ("google", gemini)):
        with SERVERS[provider]("copy", context_length=100_000,
                               thinker=lambda request: "wrong: pear") as server:
            done = await client(server, provider, **settings).complete(ASK, max_tokens=20)
        request = server.requests[-1]
        if provider == "anthropic":
            assert request.get("thinking") == expected
            assert request["max_tokens"] == 20 + GenerationSettings(**settings).thinking_budget
        else:
            config = camel(request.get("generationConfig") or {})
            found = camel(config["thinkingConfig"]) if "thinkingConfig" in config else None
            assert found == expected
        thinks = expected is not None and expected.get("type") != "disabled" and \
            expected.get("thinkingBudget") != 0
        # the thinking apart, never in the answer
        assert done.text == "apple apple"
        assert done.thinking == ("wrong: pear" if thinks else "")


@pytest.mark.asyncio
async def test_anthropic_thinking_leaves_the_experiments_temperature_out_and_says_so(
        server, provider):
    if provider != "anthropic":
        pytest.skip("Anthropic's rule")
    model = client(server, provider, thinking="on", reasoning_tokens=1024)
    done = [await model.complete(ASK, max_tokens=budget) for budget in (20, 21)]
    # never refused: the rule is known before the first request, and each says what it left
    assert [r.get("temperature") for r in server.requests] == [None, None]
    assert all(d.shaped == {"temperature": "not sent (0): Claude refuses it with thinking on"}
               for d in done)


@pytest.mark.asyncio
async def test_a_model_that_takes_only_adaptive_thinking_is_learnt_once():
    with AnthropicServer("copy", adaptive_only=True, context_length=100_000) as server:
        model = client(server, "anthropic", thinking="on", reasoning_tokens=2048)
        for budget in (20, 21):
            done = await model.complete(ASK, max_tokens=budget, temperature=None)
    assert [r["thinking"] for r in server.requests] == [
        {"type": "enabled", "budget_tokens": 2048}, {"type": "adaptive"}, {"type": "adaptive"}]
    assert done.thinking and model.identity["adapted"] == {"thinking": "adaptive"}


@pytest.mark.asyncio
async def test_a_refused_thinking_setting_stops_the_run_naming_the_option():
    with GeminiServer("copy", thinking_required=True) as server:
        with pytest.raises(EndpointFatal, match=r"refuses --thinking.*Budget 0 is invalid"):
            await client(server, "google", thinking="off").complete(ASK, max_tokens=20)
    with AnthropicServer("copy", context_length=100_000) as server:
        with pytest.raises(EndpointFatal, match=r"refuses --temperature 0.5 \(`temperature` "):
            await client(server, "anthropic", thinking="on", temperature=0.5).complete(
                ASK, max_tokens=20)


@pytest.mark.asyncio
async def test_a_prompt_past_the_context_is_the_outcome_overflow(server, provider):
    long = [{"role": "user", "content": "apple " * 600}]
    done = await client(server, provider).complete(long, max_tokens=20)
    assert done.outcome == "overflow" and done.attempts == 1
    assert ("prompt is too long" if provider == "anthropic" else
            "exceeds the maximum number of tokens") in done.error


@pytest.mark.parametrize("status, body", [
    (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    (429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota",
                     "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                  "retryDelay": "0s"}]}}),
    (503, None),
])
@pytest.mark.asyncio
async def test_overloaded_and_rate_limited_are_paced_not_failed(server, provider, status, body):
    server.faults.extend([Fault(status, body, {"Retry-After": "0"})] * 3)
    model = client(server, provider, retries=0)
    done = await model.complete(ASK, max_tokens=20)
    assert done.text == "apple apple" and done.attempts == 4
    assert model.throttle.limit == 1 and len(server.requests) == 4


@pytest.mark.asyncio
async def test_a_refused_key_is_one_line_before_any_request(server, provider):
    with pytest.raises(EndpointRefused, match=r"refused the request \((401|400)\): check the "
                                              r"API key variable"):
        await client(server, provider, key="sk-wrong-key-000000").probe()
    with pytest.raises(EndpointRefused):
        await client(server, provider, key="sk-wrong-key-000000").complete(ASK, max_tokens=9)


@pytest.mark.asyncio
async def test_other_errors_are_retried_then_one_line(server, provider):
    server.faults.extend([Fault(500, headers={"Retry-After": "0"})] * 3)
    with pytest.raises(Exception, match=r"500 .*gave up after 3 requests; --max-retries 2"):
        await client(server, provider).complete(ASK, max_tokens=20)
    server.faults.append(Fault(400, {"error": {"code": 400, "message": "bad field x",
                                               "type": "invalid_request_error"}}))
    with pytest.raises(Exception, match=r"answered 400 \(bad field x\): the request was "
                                        "refused"):
        await client(server, provider).complete(ASK, max_tokens=20)


TOOL_TALK = [
    {"role": "system", "content": "Use the tool."},
    {"role": "user", "content": "Look up apple."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "lookup", "arguments": "{\"word\": \"apple\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a fruit"},
    {"role": "user", "content": "And now?"},
]


def test_tool_calls_and_results_map_to_each_apis_blocks_with_roles_merged():
    system, turns = to_messages(TOOL_TALK)
    assert system == [{"type": "text", "text": "Use the tool."}]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]  # tool + user merged
    assert turns[1]["content"] == [{"type": "tool_use", "id": "call_1", "name": "lookup",
                                    "input": {"word": "apple"}}]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1",
         "content": [{"type": "text", "text": "a fruit"}]},
        {"type": "text", "text": "And now?"}]
    instruction, contents = to_contents(TOOL_TALK)
    assert instruction == "Use the tool."
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    # an injected call (no reply issued it) carries Google's documented placeholder
    assert contents[1]["parts"] == [{"function_call": {"name": "lookup", "id": "call_1",
                                                       "args": {"word": "apple"}},
                                     "thought_signature": PLACEHOLDER_BYTES}]
    assert contents[2]["parts"] == [
        {"function_response": {"name": "lookup", "response": {"result": "a fruit"},
                               "id": "call_1"}},
        {"text": "And now?"}]


@pytest.mark.asyncio
async def test_tools_go_as_each_api_declares_them(server, provider):
    await client(server, provider).complete(ASK, max_tokens=20, tools=TOOLS,
                                            tool_choice="required")
    request = server.requests[-1]
    if provider == "anthropic":
        assert request["tools"] == [{"name": "lookup", "description": "Look a word up.",
                                     "input_schema": TOOLS[0]["function"]["parameters"]}]
        assert request["tool_choice"] == {"type": "any"}
    else:
        request = camel(request)
        (declared,) = camel(request["tools"][0])["functionDeclarations"]
        assert camel(declared) == {"name": "lookup", "description": "Look a word up.",
                                   "parametersJsonSchema": TOOLS[0]["function"]["parameters"]}
        assert camel(camel(request["toolConfig"])["functionCallingConfig"]) == {"mode": "ANY"}


@pytest.mark.asyncio
async def test_the_native_content_goes_back_verbatim_with_its_signatures(provider):
    with SERVERS[provider]("copy", context_length=100_000,
                           thinker=lambda request: "wrong: pear") as server:
        model = client(server, provider, thinking="on", reasoning_tokens=1024,
                       temperature=1.0)
        first = await model.complete(ASK, max_tokens=20)
        native = {"anthropic": "anthropic_content", "google": "gemini_parts"}[provider]
        assert first.message["role"] == "assistant" and first.message["content"] == \
            "apple apple"
        history = [*ASK, first.message, {"role": "user", "content": "Again: pear"}]
        await model.complete(history, max_tokens=20)
    sent = camel(server.requests[-1])
    if provider == "anthropic":
        blocks = sent["messages"][1]["content"]
        assert blocks == first.message[native]
        assert blocks[0]["type"] == "thinking" and blocks[0]["signature"].startswith("sig-")
    else:
        parts = [camel(p) for p in sent["contents"][1]["parts"]]
        assert parts == first.message[native]
        assert parts[0]["thought"] is True
        assert base64.b64decode(parts[1]["thoughtSignature"]).startswith(b"sig-")


@pytest.mark.parametrize("provider_name", sorted(SERVERS))
def test_the_server_unit_counts_through_count_tokens(provider_name):
    with SERVERS[provider_name]("copy", api_key=KEY) as server:
        unit = make_unit("server", base_url=server.base_url, model="scripted", api_key=KEY,
                         provider=provider_name)
        assert isinstance(unit, CountingAPI)
        text = "The quick brown fox jumps over the lazy dog."
        assert unit.count(text) == o200k().count(text)
        assert unit.count_many([text, "", "apple"]) == [o200k().count(text), 0, 1]
        assert (unit.chat_overhead, unit.turn_overhead) == (PROMPT_TOKENS + MESSAGE_TOKENS,
                                                            MESSAGE_TOKENS)
        assert unit.chars_for(text, 3) == len("The quick brown")
        asked = server.count_requests
        unit.count(text)  # remembered
        assert server.count_requests == asked > 0 and unit.requests == asked
        assert unit.unit.startswith(f"server:{provider_name}:scripted#")
        with pytest.raises(EndpointFatal, match="gives no token ids"):
            unit.encode(text)
        server.api_key = "another"
        with pytest.raises(EndpointFatal, match=r"refused the key \((401|400)\)|"
                                                r"answered 400 \(API key not valid"):
            make_unit("server", base_url=server.base_url, model="scripted", api_key=KEY,
                      provider=provider_name)


@pytest.mark.asyncio
async def test_a_page_where_the_api_should_be_stops_the_run_naming_the_root(server, provider):
    server.chat_fault = Fault(200, "<html><body>Welcome to nginx!</body></html>")
    root = {"anthropic": "Anthropic's API root", "google": "Gemini's API root"}[provider]
    with pytest.raises(EndpointFatal, match=f"not a .*: is --base-url {root}"):
        await client(server, provider).complete(ASK, max_tokens=20)
    assert len(server.requests) == 2
