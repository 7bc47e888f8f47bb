"""A provider's blocks, waits that end and replies of another shape, one client at a time.

The real ``openai``, ``anthropic`` and ``google-genai`` SDKs under the one request engine,
against the scripted servers (tests/doubles/scripted_server.py, native_servers.py) over
real HTTP, each answering with the bodies its API documents:

- a block (Claude's ``stop_reason: "refusal"``, Gemini's ``finishReason`` SAFETY, RECITATION,
  MALFORMED_FUNCTION_CALL and a prompt's ``promptFeedback.blockReason``, OpenAI's
  ``finish_reason: "content_filter"`` and a message's ``refusal``) is the outcome
  ``blocked``, named, never an answer;
- a 429 that no wait mends (a spend cap, a credit or a daily quota used up) and a Retry-After
  past --rate-limit-wait stop the run at their first answer; a rate limit that keeps coming
  ends the request within --rate-limit-wait;
- ``--tokenizer server``'s counting requests take the throttle's connections and wait out
  their 429s as chat requests do;
- a 200 that is not UTF-8, not JSON or not the API's shape (a tool call without its id or
  name) is the one line the OpenAI adapter gives, never a traceback.

test_blocks_end_to_end.py runs these as a user meets them.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from fixtures.engine.models import EndpointModel
from fixtures.providers.base import EndpointError, EndpointFatal
from fixtures.tokens.tokenizer import make_unit, o200k
from tests.doubles.native_servers import AnthropicServer, GeminiServer
from tests.doubles.scripted_server import Fault, ScriptedServer

KEY = "sk-blocks-test-key-0001"
ASK = [{"role": "user", "content": "Simply replicate: apple apple"}]
SERVERS = {"openai": ScriptedServer, "anthropic": AnthropicServer, "google": GeminiServer}
USAGE = {"input_tokens": 12, "output_tokens": 3}
GEMINI_USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 3, "totalTokenCount": 15}


def client(server, provider, retries=2, wait_s=300.0):
    return EndpointModel("scripted", server.base_url, KEY, provider=provider,
                         max_retries=retries, timeout_s=10, rate_limit_wait_s=wait_s)


def anthropic_reply(content, stop_reason):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "scripted",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": USAGE}


def gemini_reply(parts, finish, **candidate):
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": finish, "index": 0, **candidate}],
            "usageMetadata": GEMINI_USAGE, "modelVersion": "scripted"}


def openai_reply(message, finish):
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "scripted",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", **message}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 0, "total_tokens": 12}}


SAFETY_RATINGS = [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH",
                   "blocked": True},
                  {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}]
BLOCKS = {  # (provider, the 200's body, the block as recorded, the text kept)
    "claude-refusal": ("anthropic", anthropic_reply([], "refusal"), "stop_reason refusal", ""),
    "claude-refusal-midway": ("anthropic", anthropic_reply(
        [{"type": "text", "text": "Here is the"}], "refusal"), "stop_reason refusal",
        "Here is the"),
    "gemini-safety": ("google", gemini_reply([], "SAFETY", safetyRatings=SAFETY_RATINGS),
                      "finishReason SAFETY (HARM_CATEGORY_DANGEROUS_CONTENT)", ""),
    "gemini-recitation": ("google", gemini_reply([{"text": "It was the best of"}],
                                                 "RECITATION"),
                          "finishReason RECITATION", "It was the best of"),
    "gemini-malformed-function-call": ("google", gemini_reply([], "MALFORMED_FUNCTION_CALL"),
                                       "finishReason MALFORMED_FUNCTION_CALL", ""),
    "gemini-prohibited": ("google", gemini_reply([], "PROHIBITED_CONTENT"),
                          "finishReason PROHIBITED_CONTENT", ""),
    "gemini-blocked-prompt": ("google", {"promptFeedback": {"blockReason": "SAFETY"},
                                         "usageMetadata": GEMINI_USAGE},
                              "promptFeedback.blockReason SAFETY", ""),
    "openai-content-filter": ("openai", openai_reply({"content": None}, "content_filter"),
                              "finish_reason content_filter", ""),
    "openai-refusal": ("openai", openai_reply(
        {"content": None, "refusal": "I'm sorry, I can't help with that."}, "stop"),
        "refusal (I'm sorry, I can't help with that.)", ""),
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
@pytest.mark.asyncio
async def test_a_providers_block_is_the_outcome_blocked_named_in_its_words(name):
    provider, body, block, text = BLOCKS[name]
    with SERVERS[provider]("copy") as server:
        server.faults.append(Fault(200, body))
        done = await client(server, provider).complete(ASK, max_tokens=20)
        after = await client(server, provider).complete(ASK, max_tokens=21)
    assert (done.outcome, done.block, done.text) == ("blocked", block, text)
    assert not done.ok and done.attempts == 1 and done.prompt_tokens == 12
    assert done.finish_reason == "content_filter" or provider == "openai"
    assert after.ok and after.text == "apple apple" and after.block == ""  # an answer


SPEND_CAP = {  # (provider, status, body): no wait mends them
    "claude-monthly-spend-limit": ("anthropic", 429, {"type": "error", "error": {
        "type": "rate_limit_error", "message": "This request would exceed your account's "
        "monthly spend limit. Please try again later."}}),
    "claude-usage-limits": ("anthropic", 400, {"type": "error", "error": {
        "type": "invalid_request_error", "message": "You have reached your specified API "
        "usage limits. You will regain access on 2026-08-01 at 00:00 UTC."}}),
    "claude-credit": ("anthropic", 400, {"type": "error", "error": {
        "type": "invalid_request_error", "message": "Your credit balance is too low to access "
        "the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}),
    "gemini-daily-quota": ("google", 429, {"error": {
        "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "You exceeded your current "
        "quota, please check your plan and billing details.", "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
                "quotaMetric": "generativelanguage.googleapis.com/"
                               "generate_content_free_tier_requests",
                "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                "quotaValue": "20"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "36s"}]}}),
    "openai-insufficient-quota": ("openai", 429, {"error": {
        "message": "You exceeded your current quota, please check your plan and billing "
        "details.", "type": "insufficient_quota", "param": None,
        "code": "insufficient_quota"}}),
}


@pytest.mark.parametrize("name", sorted(SPEND_CAP))
@pytest.mark.asyncio
async def test_a_spend_cap_or_a_used_up_quota_stops_the_run_at_its_first_answer(name):
    provider, status, body = SPEND_CAP[name]
    with SERVERS[provider]("copy") as server:
        server.chat_fault = Fault(status, body)
        started = time.monotonic()
        with pytest.raises(EndpointFatal, match=rf"answered {status} \(.*\): a spend cap or a "
                                                r"quota used up; no wait mends it: .* run the "
                                                r"same command again"):
            await client(server, provider).complete(ASK, max_tokens=20)
    assert len(server.requests) == 1 and time.monotonic() - started < 5


LONG_WAITS = {  # a Retry-After of 12 h, in each API's words
    "anthropic": Fault(429, {"type": "error", "error": {"type": "rate_limit_error",
                                                         "message": "rate limited"}},
                       {"retry-after": "43200"}),
    "google": Fault(429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                    "message": "Resource has been exhausted (e.g. check "
                                               "quota).", "details": [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "43200s"}]}}),
    "openai": Fault(429, {"error": {"message": "Rate limit reached", "type": "requests",
                                    "code": "rate_limit_exceeded"}}, {"Retry-After": "43200"}),
}


@pytest.mark.parametrize("provider", sorted(LONG_WAITS))
@pytest.mark.asyncio
async def test_a_retry_delay_past_the_wait_budget_stops_the_run_at_once(provider):
    with SERVERS[provider]("copy") as server:
        server.chat_fault = LONG_WAITS[provider]
        with pytest.raises(EndpointFatal, match=r"answered 429 \(.*\) and asks to wait 12 h, "
                                                r"longer than --rate-limit-wait 300 s: the run "
                                                r"stops; run the same command again"):
            await client(server, provider).complete(ASK, max_tokens=20)
    assert len(server.requests) == 1


@pytest.mark.parametrize("provider, status", [("anthropic", 529), ("google", 429),
                                              ("openai", 429), ("openai", 503)])
@pytest.mark.asyncio
async def test_a_rate_limit_that_keeps_coming_ends_the_request_within_the_budget(provider,
                                                                                  status):
    with SERVERS[provider]("copy") as server:
        server.chat_fault = Fault(status)  # no Retry-After, ever
        model = client(server, provider, retries=0, wait_s=2.0)
        started = time.monotonic()
        with pytest.raises(EndpointError, match=rf"answered {status} \(.*\) for 2 s with no "
                                                r"answer between: the sample ends \(gave up "
                                                r"after \d+ requests; --rate-limit-wait 2 s\)"):
            await model.complete(ASK, max_tokens=20)
        took = time.monotonic() - started
        assert 2.0 < took < 3.5 and len(server.requests) >= 3
        assert model.throttle.limited_by == f"{status} from {model.host}"
        # a later request, in the same rate limit, ends at its first answer
        asked = len(server.requests)
        with pytest.raises(EndpointError, match="gave up after 1 request;"):
            await model.complete(ASK, max_tokens=21)
        assert len(server.requests) == asked + 1
        server.chat_fault = None  # the limit lifts: an answer ends it
        assert (await model.complete(ASK, max_tokens=22)).ok
        assert model.throttle.limited_since is None


@pytest.mark.asyncio
async def test_the_throttle_tells_when_a_rate_limit_starts_and_ends():
    told = []
    with AnthropicServer("copy") as server:
        server.faults.extend([Fault(429, headers={"retry-after": "0"})] * 2)
        model = client(server, "anthropic")
        model.throttle.on_rate_limit = told.append
        before = time.time()
        assert (await model.complete(ASK, max_tokens=20)).ok
    (source, since), end = told
    assert source == f"429 from {model.host}" and before <= since <= time.time()
    assert end is None  # told once as it started (not per 429), once as it ended


@pytest.mark.parametrize("provider", ["anthropic", "google"])
@pytest.mark.asyncio
async def test_counting_requests_take_the_throttle_and_wait_out_a_429(provider):
    with SERVERS[provider]("copy", api_key=KEY) as server:
        model = client(server, provider)
        pace = model.pacer(asyncio.get_running_loop())
        server.tokenize_fault = lambda n, body: Fault(429, headers={"retry-after": "0"}) \
            if n in (1, 3) else None
        unit = await asyncio.to_thread(make_unit, "server", base_url=server.base_url,
                                       model="scripted", api_key=KEY, provider=provider,
                                       pace=pace)
        text = "The quick brown fox jumps over the lazy dog."
        assert await asyncio.to_thread(unit.count, text) == o200k().count(text)
        assert model.throttle.opened and model.throttle.limited_since is None
        assert server.count_requests == unit.requests  # every one through the pace
        cap = Fault(*SPEND_CAP["claude-monthly-spend-limit" if provider == "anthropic"
                              else "gemini-daily-quota"][1:])
        server.tokenize_fault = lambda n, body: cap
        with pytest.raises(EndpointFatal, match="a spend cap or a quota used up"):
            await asyncio.to_thread(unit.count, "a text never counted before")


@pytest.mark.asyncio
async def test_a_counting_unit_without_a_running_loop_sends_as_it_is():
    with AnthropicServer("copy", api_key=KEY) as server:
        model = client(server, "anthropic")
        stopped = asyncio.new_event_loop()  # (an engine that has stopped)
        try:
            unit = await asyncio.to_thread(make_unit, "server", base_url=server.base_url,
                                           model="scripted", api_key=KEY,
                                           provider="anthropic", pace=model.pacer(stopped))
        finally:
            stopped.close()
        assert unit.count("apple") == 1


ROOT_HINT = {"anthropic": "Anthropic's API root", "google": "Gemini's API root",
             "openai": "an OpenAI-compatible API root"}
REPLY = {"anthropic": "a Messages reply", "google": "a generateContent reply",
         "openai": "a chat completion"}
SHAPES = {  # (provider, the 200's body, what the line says)
    "anthropic-not-utf8": ("anthropic", b'{"content": "\xff\xfe"}',
                           r"the body is not UTF-8 \(invalid start byte at byte 13\)"),
    "anthropic-not-json": ("anthropic", b'{"content": [', r"the body is not JSON \(Expecting"),
    "anthropic-tool-use-without-id": ("anthropic", anthropic_reply(
        [{"type": "tool_use", "name": "lookup", "input": {}}], "tool_use"),
        "a tool_use block without its id"),
    "anthropic-tool-use-without-name": ("anthropic", anthropic_reply(
        [{"type": "tool_use", "id": "toolu_1", "input": {}}], "tool_use"),
        "a tool_use block without its name"),
    "anthropic-blocks-not-objects": ("anthropic", anthropic_reply(["text"], "end_turn"),
                                     "a content block that is not an object"),
    "gemini-not-utf8": ("google", b'{"candidates": "\xff\xfe"}', r"not {reply}"),
    "gemini-not-json": ("google", b'{"candidates": [', r"the body is not JSON \(Expecting"),
    "gemini-candidates-not-objects": ("google", {"candidates": [1]}, r"not {reply}"),
    "gemini-candidates-a-text": ("google", {"candidates": "x"}, r"not {reply}"),
    "gemini-function-call-without-name": ("google", gemini_reply(
        [{"functionCall": {"args": {}}}], "STOP"), "a functionCall part without its name"),
    "openai-not-utf8": ("openai", b'{"choices": "\xff\xfe"}',
                        r"the body is not UTF-8 \(invalid start byte at byte 13\)"),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.asyncio
async def test_a_200_that_is_not_the_apis_reply_is_one_line_naming_the_root(name):
    provider, body, said = SHAPES[name]
    with SERVERS[provider]("copy") as server:
        server.chat_fault = Fault(200, body)
        with pytest.raises(EndpointFatal) as raised:
            await client(server, provider).complete(ASK, max_tokens=20)
    line = str(raised.value)
    assert f"not {REPLY[provider]}" in line and len(line.splitlines()) == 1, line
    assert re.search(said.format(reply=REPLY[provider]), line), line
    assert f"is --base-url {ROOT_HINT[provider]}" in line
    assert len(server.requests) == 2  # one retry, then the line
