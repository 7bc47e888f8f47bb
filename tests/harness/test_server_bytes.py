"""What a server's bytes may hold that no file can carry, and the forms a key comes back in.

Each as a user meets it: pytest in a subprocess, the real SDKs over HTTP against the scripted
servers. A lone surrogate (``\\ud83d``: half an emoji, as JavaScript's JSON.stringify writes a
string cut inside a surrogate pair) in a reply, in a tool call's arguments and in a 400; tool
arguments nested 50,000 deep; tool calls without a usable id (the response cache neither
keeps nor serves them); a key quoted back escaped more than once (JSON inside a JSON string,
an HTML page's ``&amp;``) by each provider's server; a key no header can carry (a ``.env``
saved with CRLF).
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from fixtures.engine.cache import ResponseCache, unusable
from fixtures.engine.models import EndpointModel
from fixtures.providers.keys import MASK, hold, masked
from tests.doubles.native_servers import AnthropicServer, GeminiServer
from tests.doubles.scripted_agents import perfect_agent
from tests.doubles.scripted_server import Fault, ScriptedServer, responder_named

from ..subprocess_pytest import child_env, run_pytest, run_records, run_reporting

THREE = ["-m", "repeated_words", "-k", "n25w"]  # three samples of 25 words
HALF = "\ud83d"  # half an emoji
ESCAPED = "\\ud83d"  # what it is kept as: its six characters
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^INTERNALERROR>|RecursionError|"
                       r"surrogates not allowed", re.MULTILINE)
CONTEXT = 4_000_000
LIVE = ["-m", "agent_accumulation", "--agent-modes", "live", "--agent-lengths", "8k",
        "--agent-needles", "2", "--agent-conditions", "full"]


def output(done) -> str:
    return done.stdout + done.stderr


def run(server, results: Path, run_id: str, *args: str, env=None):
    return run_pytest("--model", "scripted", "--base-url", server.base_url, "--results-dir",
                      str(results), "--run-id", run_id, *args, env=env)


def exports_render(results: Path, run_id: str, tmp: Path) -> None:
    """The report is there and both exports write (the inspect one read back by inspect)."""
    assert (results / run_id / "report.html").read_text(encoding="utf-8")
    jsonl = run_reporting("export", run_id, "--format", "jsonl", "--out", str(tmp / "x.jsonl"),
                          "--results-dir", str(results))
    assert jsonl.returncode == 0, output(jsonl)
    lines = (tmp / "x.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(run_records(results, run_id))
    inspect = run_reporting("export", run_id, "--format", "inspect", "--out",
                            str(tmp / "inspect"), "--results-dir", str(results))
    assert inspect.returncode == 0, output(inspect)
    read = pytest.importorskip("inspect_ai.log")
    logs = list((tmp / "inspect").glob("*.eval"))
    assert logs and all(read.read_eval_log(str(log)).samples for log in logs)


# -- a lone surrogate ------------------------------------------------------------------------
def test_a_lone_surrogate_in_replies_and_a_400_is_kept_escaped_and_every_sample_stored(
        tmp_path):
    """Every reply ends with half an emoji, and the first request gets a 400 whose message
    holds one: the three samples are stored (two wrong answers, one error with its line), the
    report and both exports render; a rerun against a clean server asks only the sample the
    400 answered (the replies, usable, are served from the cache)."""
    copy = responder_named("copy")
    results = tmp_path / "results"
    with ScriptedServer(lambda request: f"{copy(request)} {HALF}") as server:
        server.faults.append(Fault(400, {"error": {"message": f"cut here {HALF} by a gateway",
                                                   "type": "invalid_request_error"}}))
        done = run(server, results, "half", *THREE)
        server.respond, asked = copy, len(server.requests)  # the server fixed
        again = run(server, results, "again", *THREE)
        rerun = server.requests[asked:]
    assert done.returncode == 1, output(done)[-3000:]
    assert not TRACEBACK.search(output(done)), output(done)[-6000:]
    assert re.search(r"\b2 passed, \d+ deselected, 1 error\b", done.stdout), done.stdout[-2000:]
    assert f"cut here {ESCAPED} by" in output(done)
    found = run_records(results, "half")
    assert len(found) == 3 and sorted(r["outcome"] for r in found) == ["error", "ok", "ok"]
    assert all(r["output"].endswith(ESCAPED) for r in found if r["outcome"] == "ok")
    (failed,) = [r for r in found if r["outcome"] == "error"]
    assert f"cut here {ESCAPED} by a gateway" in failed["reason"]
    exports_render(results, "half", tmp_path)
    assert again.returncode == 0, output(again)[-3000:]
    assert [r["messages"][-1]["content"] for r in rerun] == \
        [m["content"] for m in failed["messages"]][-1:]


def first_read_carries(arguments: str, skip: set[str]):
    """The perfect agent, but its first read_page call of each episode carries
    ``arguments`` (JSON text) instead, except in the tasks of ``skip``; ``reply.tasks``: the
    episodes' tasks it did it to."""
    tasks: set[str] = set()

    def reply(request):
        answer = perfect_agent(request)
        task = request["messages"][1]["content"]
        if not isinstance(answer, dict) or task in tasks or task in skip or \
                answer["tool_calls"][0]["function"]["name"] != "read_page":
            return answer
        tasks.add(task)
        call = answer["tool_calls"][0]
        return {**answer, "tool_calls": [{**call, "function": {"name": "read_page",
                                                                "arguments": arguments}}]}
    reply.tasks = tasks
    return reply


def first_read(tasks: set[str]):
    """Whether a request is a live episode's second (after list_pages' result: its first
    read_page); the task of each one it says so of is added to ``tasks``."""
    def chosen(request) -> bool:
        messages = request.get("messages") or []
        first = bool(messages) and messages[-1].get("role") == "tool" and \
            sum(m.get("role") == "tool" for m in messages) == 1
        if first:
            tasks.add(messages[1]["content"])
        return first
    return chosen


DEEP = {"id": "chatcmpl-deep", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "", "tool_calls": [{
                "id": "call_deep", "type": "function", "function": {
                    "name": "read_page", "arguments": "[" * 50_000 + "]" * 50_000}}]}}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 50_000, "total_tokens": 50_100}}


def test_a_surrogate_in_tool_arguments_runs_on_and_arguments_50000_deep_are_an_error_result(
        tmp_path):
    """Two live episodes: one's first read_page carries half an emoji in its arguments (the
    episode runs on and submits), the other's arguments nested 50,000 deep (an error result,
    ``call_errors.bad_arguments``, and the loop goes on; no RecursionError). The deep reply
    is not cached: a rerun against the perfect agent asks again for that episode alone, from
    that request on."""
    results, deep = tmp_path / "results", set()
    agent = first_read_carries(json.dumps({"page": 1, "note": HALF}, ensure_ascii=False), deep)
    with ScriptedServer(agent, context_length=CONTEXT) as server:
        server.faults.append(Fault(200, DEEP))
        server.faults_for = first_read(deep)  # (the first episode to read a page meets it)
        done = run(server, results, "tools", *LIVE, "--agent-samples", "2")
        server.respond, start = perfect_agent, len(server.requests)  # the server fixed
        again = run(server, results, "again", *LIVE, "--agent-samples", "2")
        asked = [r["messages"][1]["content"] for r in server.requests[start:]]
    assert done.returncode == 0, output(done)[-3000:]
    assert not TRACEBACK.search(output(done)), output(done)[-6000:]
    (deep_task,) = deep
    found = {"deep" if r["messages"][1]["content"] == deep_task else "half": r
             for r in run_records(results, "tools")}
    assert set(found) == {"deep", "half"} and agent.tasks == {found["half"]["messages"][1][
        "content"]}
    assert found["half"]["details"]["episode_end"] == "submitted"
    assert found["half"]["scores"]["exact"] is True
    assert found["deep"]["details"]["call_errors"] == {"bad_arguments": 1}
    exports_render(results, "tools", tmp_path)
    assert again.returncode == 0, output(again)[-3000:]
    assert asked and set(asked) == {deep_task}
    (rerun,) = [r for r in run_records(results, "again") if r["messages"][1]["content"] ==
                deep_task]
    assert rerun["details"]["episode_end"] == "submitted" and not rerun["details"][
        "call_errors"]
    assert rerun["cached_calls"] == 1 and rerun["model_calls"] == len(asked)  # list_pages


# -- what the response cache keeps -----------------------------------------------------------
def tool_reply(calls):
    return lambda request: {"content": "", "tool_calls": calls}


READ = {"name": "read_page", "arguments": '{"page": 1}'}
UNUSABLE = {
    "no id": [{"type": "function", "function": READ}],
    "empty id": [{"id": " ", "type": "function", "function": READ}],
    "one id twice": [{"id": "c1", "type": "function", "function": READ},
                     {"id": "c1", "type": "function", "function": READ}],
    "no name": [{"id": "c1", "type": "function", "function": {"arguments": "{}"}}],
    "nested 50,000 deep": [{"id": "c1", "type": "function", "function": {
        "name": "read_page", "arguments": "{\"a\": " * 50_000 + "1" + "}" * 50_000}}],
}


async def ask_twice(server: ScriptedServer, cache: ResponseCache) -> int:
    model = EndpointModel("scripted", server.base_url, "x", cache=cache, max_retries=0)
    try:
        for _ in range(2):
            await model.complete([{"role": "user", "content": "read page 1"}], max_tokens=50,
                                 tools=[{"type": "function", "function": {
                                     "name": "read_page", "parameters": {}}}])
    finally:
        await model.close()
    return len(server.requests)


@pytest.mark.parametrize("kind", UNUSABLE)
def test_a_reply_whose_tool_calls_cannot_be_carried_is_neither_cached_nor_served(kind,
                                                                                 tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with ScriptedServer(tool_reply(UNUSABLE[kind])) as server:
        assert asyncio.run(ask_twice(server, cache)) == 2
    assert sqlite3.connect(tmp_path / "cache.sqlite").execute(
        "SELECT COUNT(*) FROM responses").fetchone() == (0,)


def test_a_usable_tool_reply_and_a_malformed_call_are_cached(tmp_path):
    """Arguments that are not JSON, or not an object, are the model's malformed call: data,
    served again as it came."""
    for calls in ([{"id": "c1", "type": "function", "function": READ}],
                  [{"id": "c1", "type": "function", "function": {"name": "read_page",
                                                                 "arguments": "{page"}}],
                  [{"id": "c1", "type": "function", "function": {"name": "read_page",
                                                                 "arguments": "[1]"}}]):
        cache = ResponseCache(tmp_path / f"{len(list(tmp_path.iterdir()))}.sqlite")
        with ScriptedServer(tool_reply(calls)) as server:
            assert asyncio.run(ask_twice(server, cache)) == 1


def test_an_unusable_reply_stored_before_is_not_served():
    assert unusable({"message": {"tool_calls": UNUSABLE["no id"]}}) == \
        "tool call 0 has no id of its own (None)"
    assert unusable({"message": {"tool_calls": UNUSABLE["nested 50,000 deep"]}}) == \
        "tool call 'c1''s arguments are nested deeper than a JSON parser reads"
    assert unusable({"text": "an answer", "message": None}) is None


# -- keys ---------------------------------------------------------------------------------
# each provider's key: "-", "/" and "&" (what escapes change), and an alphanumeric tail that
# no escaping changes: a key shown in any escaping shows its tail
KEYS = {"openai": ("OPENAI_API_KEY", "sk-proj-ctx/rot&key-never-shown-7e3a91"),
        "anthropic": ("ANTHROPIC_API_KEY", "sk-ant-api03-ctx/rot&key-never-shown-5c2b84"),
        "google": ("GEMINI_API_KEY", "AIza-ctx/rot&key-never-shown-9f6d17")}
SERVERS = {"openai": ScriptedServer, "anthropic": AnthropicServer, "google": GeminiServer}
TAIL = re.compile(r"7e3a91|5c2b84|9f6d17")
ONE = ["-m", "repeated_words", "-k", "n25w-pos0000"]


def escaped_inner(key: str) -> str:
    """The key as an upstream's JSON encoder wrote it (``-`` as ``\\u002d``, ``/`` as
    ``\\/``), inside the message a gateway wraps as a JSON string: escaped twice."""
    upstream = key.replace("-", "\\u002d").replace("/", "\\/")
    return json.dumps({"error": {"message": f"invalid x-api-key {upstream}"}})


BODIES = {
    "json-in-json": lambda key: {"error": {"message": escaped_inner(key),
                                           "type": "invalid_request_error"}},
    "html": lambda key: f"<html><body><h1>400 Bad Request</h1><p>x-api-key: {html.escape(key)}"
                        f"</p></body></html>",
}


def key_env(provider: str, value: str) -> dict[str, str]:
    unset = {name: None for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                                     "GOOGLE_API_KEY")}
    return child_env(**{**unset, KEYS[provider][0]: value})


def shown_anywhere(done, folder: Path) -> list[str]:
    """Where a key's tail shows: the terminal, and every file of the run (JUnit, records,
    report, store, exports), inspect logs as inspect reads them."""
    found = [name for name, text in [("terminal", output(done))] if TAIL.search(text)]
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix != ".eval" and \
                TAIL.search(path.read_bytes().decode("utf-8", errors="replace")):
            found.append(str(path.relative_to(folder)))
    read = pytest.importorskip("inspect_ai.log")
    for log in folder.rglob("*.eval"):
        if TAIL.search(read.read_eval_log(str(log)).model_dump_json()):
            found.append(str(log.relative_to(folder)))
    return found


@pytest.mark.parametrize("provider", KEYS)
@pytest.mark.parametrize("body", BODIES)
def test_a_key_escaped_twice_or_as_html_is_masked_everywhere(provider, body, tmp_path):
    variable, key = KEYS[provider]
    results = tmp_path / "results"
    with SERVERS[provider]("copy") as server:
        server.faults.append(Fault(400, BODIES[body](key)))
        done = run_pytest("--provider", provider, "--model", "scripted", "--base-url",
                          server.base_url, "--results-dir", str(results), "--run-id", "run",
                          "-l", "--tb=long", "--junitxml", str(tmp_path / "junit.xml"),
                          "--inspect-log-dir", str(tmp_path / "inspect"), *ONE,
                          env=key_env(provider, key))
    assert done.returncode == 1, output(done)[-3000:]
    if body == "json-in-json":  # the line quotes the message, the key masked in it
        assert "invalid x-api-key **********" in output(done), output(done)[-3000:]
    exports_render(results, "run", tmp_path / "exports")
    assert (tmp_path / "junit.xml").is_file() and list(tmp_path.rglob("*.eval"))
    assert shown_anywhere(done, tmp_path) == []


@pytest.mark.parametrize("provider", KEYS)
@pytest.mark.parametrize("flaw, line", [
    ("\r", "begins or ends with a line break"), ("\r\n", "begins or ends with a line break"),
    (" ", "begins or ends with spaces or tabs"), ("é", "holds a non-ASCII character"),
    ("\x07", "holds a control character")])
def test_a_key_no_header_can_carry_is_refused_at_start_naming_its_variable(provider, flaw,
                                                                          line, tmp_path):
    variable, key = KEYS[provider]
    with SERVERS[provider]("copy") as server:
        done = run_pytest("--provider", provider, "--model", "scripted", "--base-url",
                          server.base_url, "--results-dir", str(tmp_path / "results"),
                          "-l", "--tb=long", "--junitxml", str(tmp_path / "junit.xml"), *ONE,
                          env=key_env(provider, key + flaw if flaw != "é" else
                                      key[:5] + flaw + key[5:]))
        assert server.requests == []
    assert done.returncode == 4, output(done)[-3000:]
    assert re.search(rf"^ERROR: \${variable} {line}", output(done), re.MULTILINE), output(done)
    assert shown_anywhere(done, tmp_path) == []


@pytest.mark.parametrize("form", [
    lambda key: html.escape(key),  # an HTML page quoting the header
    lambda key: "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in key),
    lambda key: json.dumps(json.dumps(key.replace("-", "\\u002d").replace("/", "\\/"))),
    lambda key: json.dumps(json.dumps(json.dumps(key))),  # three gateways deep
    lambda key: quote(key, safe="-"),  # percent-encoded, but not as quote() writes it
    lambda key: html.escape(quote(key, safe="/")),
])
def test_masking_undoes_every_escape_a_secret_can_reach_text_in(form):
    """Where the held key shows only once escapes are undone, that reading is what goes on,
    masked: no fragment of the key is left."""
    key = KEYS["openai"][1]
    hold(key)
    shown = masked(f"upstream said: {form(key)} (request 7)")
    assert MASK in shown and not TAIL.search(shown) and "request 7" in shown
    assert masked("an answer: 5 & 6, 100% \\u0041 &amp; 0x2f") == \
        "an answer: 5 & 6, 100% \\u0041 &amp; 0x2f"  # nothing held in it: as it came
