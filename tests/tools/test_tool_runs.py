"""A toy tool-calling experiment run as a user runs it (``pytest benchmarks`` in a subprocess)
against the scripted server: a live loop's records carry each request's tokens, a rerun
re-asks nothing stored, and each tool fault is one line with no traceback."""

from __future__ import annotations

import os
import pathlib

import pytest

from tests.doubles.scripted_server import ScriptedServer
from tests.harness.test_faults import TRACEBACK
from tests.harness.test_plugin import CONFTEST, run, stored

TOOL_TEST = '''
import dataclasses
from fixtures.pytest_face.parametrize import SampleParams, parametrize_samples
from tests.tools.helpers import FORCE_SUBMIT, TOOLS, episode, gold, ledger, trajectory

@dataclasses.dataclass(frozen=True)
class Ledger(SampleParams):
    size: int  # 0: a history that breaks the pairing

    @property
    def id(self):
        return f"l{self.size}"

def pytest_generate_tests(metafunc):
    parametrize_samples(metafunc, "toy", [Ledger(n) for n in range(4)])

async def solve(sample, ctx):
    pages = ledger(pages=sample.size or 4)
    ctx.record.stimulus(trajectory(pages)[:2], max_tokens=400)
    if sample.size == 0:
        broken = trajectory(pages)
        del broken[3]  # the list_pages result
        return await ctx.record.ask(ctx.model, broken, tools=TOOLS, tool_choice=FORCE_SUBMIT)
    submitted, _, completions = await episode(ctx.model, ctx.record, pages)
    return submitted == gold(pages)

def test_ledger(sample, solved, record):
    record.score(right=solved)
'''


def by_sample(records: dict) -> dict:
    return {key.split("[")[-1].rstrip("]"): record for key, record in records.items()}


@pytest.fixture
def project(pytester, monkeypatch):
    # the toy experiment imports tests.tools.helpers: the child finds the repository's root
    # (an installed contextrot holds benchmarks, fixtures and reporting, never tests)
    root = str(pathlib.Path(__file__).resolve().parents[2])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (root, os.environ.get("PYTHONPATH")) if p))
    pytester.makeconftest(CONFTEST)
    (pytester.path / "benchmarks").mkdir()
    (pytester.path / "benchmarks" / "test_ledger.py").write_text(TOOL_TEST)
    return pytester


def test_a_live_loop_run_records_each_request_and_a_rerun_asks_nothing(project):
    with ScriptedServer("agent", context_length=100_000, behaviour="strict-tools",
                        prefix_cache_tokens=100_000) as server:
        first = run(project, server, "--run-id", "first")
        asked = len(server.requests)
        again = run(project, server, "--run-id", "again")
        assert len(server.requests) == asked  # the response cache re-ran every episode
    for result in (first, again):
        result.assert_outcomes(passed=3, errors=1)
        assert not TRACEBACK.search(result.stdout.str())
        result.stdout.fnmatch_lines(["a history whose tool messages do not answer the calls "
                                     "before them was not sent: message 3 (assistant) comes "
                                     "while message 2's call 'call_script_0' is unanswered*"])
    records = by_sample(stored(project, "first"))
    assert all(records[f"l{n}"]["scores"]["right"] for n in (1, 2, 3))
    requests = records["l3"]["details"]["requests"]
    assert len(requests) == 3 + 2 and requests[-1]["cached_tokens"] > 0
    assert records["l3"]["prompt_tokens"] == sum(r["prompt_tokens"] for r in requests)
    assert by_sample(stored(project, "again"))["l3"]["details"]["requests"] == [
        {**r, "from_response_cache": True} for r in requests]


@pytest.mark.parametrize("refused", ["tools", "tool_choice"])
def test_an_endpoint_without_function_calling_is_one_line_per_sample_asked_once(project,
                                                                                 refused):
    with ScriptedServer("agent", context_length=100_000, refused_fields=(refused,)) as server:
        # (one connection: the other samples' requests wait, and never leave once it is learnt)
        result = run(project, server, "--run-id", "refused", "--max-connections", "1")
        assert len(server.requests) == 1
    result.assert_outcomes(errors=4)
    assert not TRACEBACK.search(result.stdout.str())
    result.stdout.fnmatch_lines([f"http://127.0.0.1:*/v1 refuses {refused} ({refused} is not "
                                 "supported): this experiment needs an endpoint with function "
                                 "calling (vLLM: --enable-auto-tool-choice*"])
    assert result.ret == 1
