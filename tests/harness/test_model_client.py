"""The model client against a real local HTTP server: retries, overflow, refused keys, cache.

The client is asynchronous (``openai.AsyncOpenAI``); pytest-asyncio runs each test's loop.
"""

import pytest

from fixtures.engine.cache import ResponseCache, cache_key
from fixtures.engine.models import OpenAIChatModel
from fixtures.providers.base import EndpointFatal, EndpointRefused, redact_url
from tests.doubles.scripted_server import Fault, ScriptedServer

MESSAGES = [{"role": "user", "content": "Simply replicate: apple apple"}]


@pytest.fixture
def server():
    with ScriptedServer("copy", context_length=200, api_key="sekret") as running:
        yield running


def client(server, cache=None, retries=3, key="sekret"):
    return OpenAIChatModel("scripted", server.base_url, api_key=key, max_retries=retries,
                           timeout_s=10, cache=cache)


@pytest.mark.asyncio
async def test_a_plain_completion_carries_text_usage_and_latency(server):
    completion = await client(server).complete(MESSAGES, max_tokens=20)
    assert completion.ok and completion.text == "apple apple"
    assert completion.prompt_tokens > 0 and completion.completion_tokens == 2
    assert completion.finish_reason == "stop" and completion.latency_s > 0


@pytest.mark.asyncio
async def test_429_with_retry_after_is_retried_until_it_succeeds(server):
    server.faults.extend([Fault(429, headers={"Retry-After": "0"}),
                          Fault(503, headers={"Retry-After": "0"})])
    completion = await client(server).complete(MESSAGES, max_tokens=20)
    assert completion.text == "apple apple"
    assert len(server.requests) == 3  # two faults, then the answer


@pytest.mark.asyncio
async def test_retries_give_up_after_max_retries_and_raise(server):
    server.faults.extend(Fault(500, headers={"Retry-After": "0"}) for _ in range(5))
    with pytest.raises(Exception) as raised:
        await client(server, retries=2).complete(MESSAGES, max_tokens=20)
    assert "500" in str(raised.value) or "InternalServerError" in type(raised.value).__name__
    assert len(server.requests) == 3  # the first try and two retries


@pytest.mark.asyncio
async def test_context_overflow_is_an_outcome_and_never_retried(server):
    completion = await client(server).complete(MESSAGES, max_tokens=500)
    assert completion.outcome == "overflow" and not completion.ok
    assert "maximum context length" in completion.error
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_a_refused_key_raises_one_clear_error_without_retrying(server):
    with pytest.raises(EndpointRefused, match="401.*--api-key-env"):
        await client(server, key="wrong").complete(MESSAGES, max_tokens=20)
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_the_cache_serves_a_repeat_without_a_request(server, tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    first = await client(server, cache).complete(MESSAGES, max_tokens=20)
    again = await client(server, cache).complete(MESSAGES, max_tokens=20)
    assert len(server.requests) == 1
    assert again.cached and not first.cached and again.text == first.text


@pytest.mark.asyncio
async def test_errors_are_not_cached(server, tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    server.faults.append(Fault(500))
    with pytest.raises(Exception):
        await client(server, cache, retries=0).complete(MESSAGES, max_tokens=20)
    assert (await client(server, cache).complete(MESSAGES, max_tokens=20)).text == "apple apple"
    assert len(server.requests) == 2


BASE = dict(endpoint="http://h/v1", model="m", messages=MESSAGES,
            params={"max_tokens": 10, "temperature": 0.0, "top_p": 1.0, "seed": 0})


@pytest.mark.parametrize("change", [
    {"endpoint": "http://other/v1"}, {"model": "m2"},
    {"messages": [{"role": "user", "content": "Simply replicate: apple apples"}]},
    {"params": {**BASE["params"], "max_tokens": 11}},
    {"params": {**BASE["params"], "temperature": 0.7}},
    {"params": {**BASE["params"], "top_p": 0.9}},
    {"params": {**BASE["params"], "seed": 1}},
    {"params": {**BASE["params"], "top_k": 40}},
    {"replicate": 1},
])
def test_any_change_in_the_request_misses_the_cache(change):
    assert cache_key(**{**BASE, **change}) != cache_key(**BASE)


def test_the_cache_key_ignores_parameter_order():
    reordered = dict(reversed(list(BASE["params"].items())))
    assert cache_key(**{**BASE, "params": reordered}) == cache_key(**BASE)


def test_urls_lose_credentials_and_queries():
    assert redact_url("https://user:pw@api.example.com:8443/v1/?key=s#x") == \
        "https://api.example.com:8443/v1"


# -- answers that are not a model's (issue 12 items 5 and 6) --------------------------------
NOT_OPENAI = [
    Fault(200, body={"id": "x", "object": "chat.completion", "choices": []}),
    Fault(200, body="<html><body>Welcome to nginx</body></html>"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("fault", NOT_OPENAI, ids=["no-choices", "html"])
async def test_a_server_that_is_not_openai_stops_the_run_in_two_requests(server, fault):
    server.faults.extend([fault, fault, fault])
    with pytest.raises(EndpointFatal, match="not a chat completion.*--base-url") as raised:
        await client(server, retries=5).complete(MESSAGES, max_tokens=20)
    assert len(server.requests) == 2 and "\n" not in str(raised.value)


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [404, 501])
async def test_a_route_the_server_does_not_serve_stops_the_run_at_once(server, status):
    server.faults.append(Fault(status))
    with pytest.raises(EndpointFatal, match=f"answered {status}.*--base-url"):
        await client(server, retries=5).complete(MESSAGES, max_tokens=20)
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_a_closed_port_is_one_line_naming_the_host():
    unreachable = OpenAIChatModel("m", "http://127.0.0.1:9/v1", api_key="k", max_retries=5,
                                  timeout_s=5)
    with pytest.raises(EndpointFatal, match=r"cannot reach http://127\.0\.0\.1:9/v1.*--base-url"):
        await unreachable.complete(MESSAGES, max_tokens=20)


@pytest.mark.asyncio
async def test_an_empty_answer_is_kept_but_never_cached(server, tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    empty = {"id": "x", "object": "chat.completion", "created": 0, "model": "scripted",
             "choices": [{"index": 0, "finish_reason": "stop",
                          "message": {"role": "assistant", "content": ""}}],
             "usage": {"prompt_tokens": 5, "completion_tokens": 0, "total_tokens": 5}}
    server.faults.append(Fault(200, body=empty))
    first = await client(server, cache).complete(MESSAGES, max_tokens=20)
    assert first.ok and first.text == ""  # the model's own (empty) answer: data
    again = await client(server, cache).complete(MESSAGES, max_tokens=20)
    assert again.text == "apple apple" and not again.cached  # the fixed server was asked
    assert len(server.requests) == 2
