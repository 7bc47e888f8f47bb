"""What each API refuses, as the scripted servers play it (tests/doubles/native_servers.py,
each rule cited there), and how the adapters shape a request so that it is never refused: a
field the API lacks left out, Claude's rules with thinking on, a forced tool sent as auto,
temperature or top_p, thinking with room, long requests streamed, a beta header sent."""

from __future__ import annotations

import httpx
import pytest

from fixtures.engine.models import EndpointModel
from fixtures.providers.anthropic_messages import STREAM_ABOVE_MAX_TOKENS, UNCAPPED_MAX_TOKENS
from fixtures.providers.generation import DEFAULT_THINKING_BUDGET, GenerationSettings
from fixtures.pytest_face.harness import model_headers, provider_problem
from tests.doubles.native_servers import (BOTH_SAMPLERS, PLACEHOLDER_SIGNATURES, TOOL_FORCED,
                                          AnthropicServer, GeminiServer)

ASK = [{"role": "user", "content": "Simply replicate: apple apple"}]
TOOLS = [{"type": "function", "function": {
    "name": "lookup", "parameters": {"type": "object", "properties": {}}}}]
HEADERS = {"anthropic-version": "2023-06-01"}


def client(server, provider, headers=None, **settings):
    return EndpointModel("scripted", server.base_url, "k", provider=provider, max_retries=0,
                         timeout_s=30, generation=GenerationSettings(**settings),
                         headers=headers)


def messages(server, **fields) -> httpx.Response:
    body = {"model": "scripted", "max_tokens": 2000, "messages": [
        {"role": "user", "content": "Simply replicate: a"}], **fields}
    return httpx.post(server.base_url + "/v1/messages", json=body, headers=HEADERS)


def test_the_anthropic_server_refuses_what_the_messages_api_refuses():
    with AnthropicServer("copy") as server:
        assert messages(server).status_code == 200
        refusals = {
            "seed: Extra inputs are not permitted": {"seed": 43},
            BOTH_SAMPLERS: {"temperature": 0, "top_p": 1},
            TOOL_FORCED: {"thinking": {"type": "enabled", "budget_tokens": 1024},
                          "tools": [{"name": "f", "input_schema": {"type": "object"}}],
                          "tool_choice": {"type": "any"}},
            "thinking.budget_tokens: must be at least 1024 and less than max_tokens":
                {"thinking": {"type": "enabled", "budget_tokens": 512}},
            "`top_k` is not supported when thinking is enabled or in adaptive mode.":
                {"thinking": {"type": "adaptive"}, "top_k": 40},
        }
        for message, fields in refusals.items():
            answer = messages(server, **fields)
            assert answer.status_code == 400 and \
                answer.json()["error"]["message"] == message, fields


def generate(server, **request) -> httpx.Response:
    return httpx.post(f"{server.base_url}/v1beta/models/scripted:generateContent",
                      json=request)


def test_the_gemini_server_refuses_unknown_fields_and_unsigned_calls_on_gemini_3():
    call = {"role": "model", "parts": [{"functionCall": {"name": "lookup", "args": {}}}]}
    answer = {"role": "user", "parts": [{"functionResponse": {"name": "lookup",
                                                              "response": {"result": "x"}}}]}
    ask = {"role": "user", "parts": [{"text": "Simply replicate: a"}]}
    with GeminiServer("copy", signatures_required=True) as server:
        refused = generate(server, contents=[ask], generationConfig={"minP": 0.1})
        assert refused.status_code == 400 and \
            'Unknown name "minP"' in refused.json()["error"]["message"]
        unsigned = generate(server, contents=[ask, call, answer])
        assert unsigned.status_code == 400 and "missing a thought_signature" in unsigned.text
        for placeholder in PLACEHOLDER_SIGNATURES:  # Google's documented stand-ins
            signed = {**call, "parts": [{**call["parts"][0], "thoughtSignature": placeholder}]}
            assert generate(server, contents=[ask, signed, answer]).status_code == 200


async def one_request(server_class, provider: str, **protocol):
    """The completion of one request with the protocol's values, and the body sent."""
    with server_class("copy") as server:
        done = await client(server, provider).complete(ASK, max_tokens=20, **protocol)
        (sent,) = server.requests
    return done, sent


@pytest.mark.asyncio
async def test_anthropic_leaves_out_what_the_api_lacks_and_sends_one_sampler():
    done, sent = await one_request(AnthropicServer, "anthropic", temperature=0.0, top_p=1.0,
                                   seed=43, min_p=0.1)
    assert done.ok and done.text == "apple apple"
    assert sent["temperature"] == 0.0 and not {"top_p", "seed", "min_p"} & set(sent)
    assert set(done.shaped) == {"top_p", "seed", "min_p"}
    assert done.shaped["seed"] == "not sent (43): the Messages API has no such field"


@pytest.mark.asyncio
async def test_anthropic_with_thinking_sends_a_forced_tool_as_auto_and_no_temperature():
    with AnthropicServer("agent") as server:
        done = await client(server, "anthropic", thinking="on", reasoning_tokens=1024).complete(
            ASK, max_tokens=200, tools=TOOLS,
            tool_choice={"type": "function", "function": {"name": "lookup"}})
        (sent,) = server.requests
    assert done.ok
    assert sent["tool_choice"] == {"type": "auto"} and "temperature" not in sent
    assert done.shaped["tool_choice"].startswith('auto sent for {"type": "function"')


@pytest.mark.asyncio
async def test_an_uncapped_request_with_thinking_leaves_the_budget_below_max_tokens_streamed():
    # MRCR at full scale caps nothing: 8192 answer tokens plus the 25,000-token budget, past
    # what the SDK sends unstreamed
    with AnthropicServer("copy", thinker=lambda request: "wrong: pear",
                         context_length=100_000) as server:
        done = await client(server, "anthropic", thinking="on").complete(ASK, max_tokens=None)
        (sent,) = server.requests
    assert sent["max_tokens"] == UNCAPPED_MAX_TOKENS + DEFAULT_THINKING_BUDGET
    assert sent["max_tokens"] > STREAM_ABOVE_MAX_TOKENS and sent["stream"] is True
    assert sent["thinking"]["budget_tokens"] < sent["max_tokens"]
    assert done.ok and done.text == "apple apple" and done.thinking == "wrong: pear"
    # Claude's usage counts no thinking apart: not reported, never the summary's length
    assert done.reasoning_tokens is None and done.completion_tokens > 2


@pytest.mark.asyncio
async def test_xhigh_is_claudes_own_xhigh_not_max():
    with AnthropicServer("copy") as server:
        await client(server, "anthropic", reasoning_effort="xhigh").complete(ASK, max_tokens=20)
    assert server.requests[0]["output_config"] == {"effort": "xhigh"}


@pytest.mark.asyncio
async def test_a_claude_model_that_thinks_unasked_gets_room_after_its_first_reply():
    long_thought = " ".join(["ponder"] * 200)
    with AnthropicServer("copy", thinks_by_default=True, context_length=100_000,
                         thinker=lambda request: long_thought) as server:
        model = client(server, "anthropic")
        first = await model.complete(ASK, max_tokens=50, temperature=None)
        second = await model.complete(ASK, max_tokens=51, temperature=None)
        sizes = [r["max_tokens"] for r in server.requests]
    # cut while thinking: the thinking ran out, whether or not it came back
    assert first.text == "" and first.thinking_ran_out and first.finish_reason == "length"
    assert sizes == [50, 51 + DEFAULT_THINKING_BUDGET]
    assert second.text == "apple apple" and "not chosen" in second.shaped["thinking"]


@pytest.mark.asyncio
async def test_gemini_leaves_out_what_its_config_lacks_and_gives_default_thinking_room():
    done, sent = await one_request(GeminiServer, "google", temperature=0.0, seed=7,
                                   min_p=0.1, repeat_penalty=1.01)
    config = sent["generationConfig"]
    assert config["seed"] == 7 and not {"minP", "min_p", "repeatPenalty"} & set(config)
    assert config["maxOutputTokens"] == 20 + 24_576
    assert set(done.shaped) == {"min_p", "repeat_penalty", "thinking"}


@pytest.mark.asyncio
async def test_a_beta_header_goes_with_every_request_and_into_the_identity():
    beta = model_headers(["anthropic-beta: context-1m-2025-08-07"])
    with AnthropicServer("copy") as server:
        model = client(server, "anthropic", headers=beta)
        await model.complete(ASK, max_tokens=20)
    assert server.headers[0]["anthropic-beta"] == "context-1m-2025-08-07"
    assert model.identity["headers"] == {"anthropic-beta": "context-1m-2025-08-07"}


@pytest.mark.parametrize("given, line", [
    (["x-api-key: sk-1"], "--model-header x-api-key: keys are read from the environment"),
    (["anthropic-beta"], "--model-header 'anthropic-beta': give NAME:VALUE"),
])
def test_a_bad_or_secret_header_is_one_line(given, line):
    with pytest.raises(ValueError, match="^" + line.replace("(", r"\(")):
        model_headers(given)


@pytest.mark.parametrize("options, line", [
    ({"reasoning_tokens": 512}, "--reasoning-tokens 512: Claude's thinking budget is at "
                                "least 1024 tokens"),
    ({"seed": 3}, "--seed 3: Anthropic's Messages API has no seed"),
])
def test_what_claude_cannot_take_at_all_is_one_line_at_the_start(options, line):
    given = {"provider": "anthropic", "model": "claude-sonnet-4-5", **options}
    with pytest.raises(ValueError, match="^" + line):
        provider_problem(lambda name: given.get(name))
    provider_problem(lambda name: {**given, "provider": "google"}.get(name))  # Gemini's fine
