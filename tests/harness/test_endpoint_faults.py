"""Endpoint faults that stop a run at once, each with one line (issue 23)."""

import socket
import sqlite3

import pytest

from fixtures.engine.cache import ResponseCache
from fixtures.engine.models import OpenAIChatModel
from fixtures.providers.base import EndpointFatal, check_base_url
from tests.doubles.scripted_server import Fault, ScriptedServer
from reporting.storage.sqlite import storage_problem

MESSAGES = [{"role": "user", "content": "Simply replicate: apple apple"}]


@pytest.fixture
def server():
    with ScriptedServer("copy") as running:
        yield running


def client(url, retries=5, cache=None):
    return OpenAIChatModel("scripted", url, api_key="k", max_retries=retries, timeout_s=10,
                           cache=cache)


@pytest.mark.asyncio
@pytest.mark.parametrize("body", ["<html>Welcome to nginx</html>", {"choices": []}],
                         ids=["html", "no-choices"])
async def test_a_page_for_a_chat_api_stops_in_two_requests_though_its_models_answer(server,
                                                                                   body):
    """Issue 23 item 2: GET /models worked, so the throttle was open and every sample went
    through all its retries with a traceback."""
    server.chat_fault = Fault(200, body=body)
    model = client(server.base_url)
    assert await model.probe()  # /models answers
    with pytest.raises(EndpointFatal, match="not a chat completion.*OpenAI-compatible API root"):
        await model.complete(MESSAGES, max_tokens=20)
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_a_closed_port_with_no_retries_is_the_cannot_reach_line():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(EndpointFatal, match=rf"cannot reach http://127\.0\.0\.1:{port}/v1"):
        await client(f"http://127.0.0.1:{port}/v1", retries=0).complete(MESSAGES,
                                                                         max_tokens=20)


@pytest.mark.asyncio
async def test_a_full_disk_under_the_response_cache_stops_the_run(server, tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")

    def full(key, response):
        raise sqlite3.OperationalError("database or disk is full")

    cache.put = full
    with pytest.raises(EndpointFatal, match=r"cannot write the response cache .* \(the disk "
                                            r"is full\): free space"):
        await client(server.base_url, cache=cache).complete(MESSAGES, max_tokens=20)


@pytest.mark.parametrize("option", ["--base-url", "--judge-base-url"])
def test_a_query_string_on_the_api_root_is_refused_without_printing_it(option):
    with pytest.raises(ValueError) as raised:
        check_base_url("http://alice:pw@127.0.0.1:8000/v1?token=SECRET", option)
    message = str(raised.value)
    assert message.startswith(f"{option} http://127.0.0.1:8000/v1?...: a query string")
    assert "SECRET" not in message and "pw" not in message


@pytest.mark.parametrize("message, problem", [
    ("database or disk is full", "the disk is full"),
    ("[Errno 28] No space left on device: 'x'", "the disk is full"),
    ("attempt to write a readonly database", "the folder is read-only"),
    ("[Errno 30] Read-only file system: 'x'", "the folder is read-only"),
    ("no such table: samples", None),
])
def test_storage_problems_are_named(message, problem):
    assert storage_problem(message) == problem
