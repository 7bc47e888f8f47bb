"""RULER end to end: pytest in a subprocess, the real openai client against the scripted
server answering as a perfect model (oracle.perfect: it solves every task from the prompt)
and as one that drops every second value; the grid with missing QA data; ``--plan``."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import child_env, run_pytest
from . import oracle

GRID = ["--ruler-tasks", "synthetic", "--ruler-lengths", "1k,4k", "--ruler-samples", "2"]
SYNTHETIC = 11


def pytest_run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return run_pytest("-m", "ruler", "-q", *args, env=child_env(**(env or {})))


def one_request(results, *options: str, **server_options) -> dict:
    """The chat request that one RULER sample sends to a scripted server (asserting the run
    passed)."""
    with ScriptedServer(oracle.perfect, context_length=16384, **server_options) as server:
        done = pytest_run("--model", "scripted", "--base-url", server.base_url,
                          "--results-dir", str(results), "--ruler-lengths", "1k", *options)
        requests = [r for r in server.requests if r.get("messages")]
    assert done.returncode == 0, done.stdout[-2000:]
    (request,) = requests
    return request


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("ruler-runs")
    found = {}
    for name in ("perfect", "drop"):
        with ScriptedServer(getattr(oracle, name), context_length=16384) as server:
            done = pytest_run("--model", "scripted", "--base-url", server.base_url,
                              "--results-dir", str(results), "--run-id", name, *GRID)
        summary = results / name / "summary.json"
        found[name] = {"returncode": done.returncode, "stdout": done.stdout,
                       "plots": sorted(p.name for p in (results / name / "plots" / "ruler")
                                       .glob("*.png")),
                       "summary": json.loads(summary.read_text()) if summary.exists() else {}}
    return found


def cells(summary: dict) -> dict[tuple[str, int], float]:
    return {(row["cell"]["task"], row["cell"]["length"]): row["mean"]
            for row in summary["experiments"]["ruler"]}


def test_a_model_that_answers_with_the_right_values_scores_100_on_every_task(runs):
    run = runs["perfect"]
    assert run["returncode"] == 0, run["stdout"][-3000:]
    found = cells(run["summary"])
    assert len(found) == SYNTHETIC * 2 and set(found.values()) == {1.0}
    ruler = run["summary"]["findings"]["ruler"]
    assert [row["score"] for row in ruler["by_length"]] == [100.0, 100.0]
    assert ruler["effective_length"]["value"] == 4096 and ruler["effective_length"]["censored"]
    assert "effective length (RULER: score >= 85.6" in run["stdout"]
    assert run["plots"] == ["curve.png", "heatmap.png"]  # task x length, and the curve


def test_dropping_every_second_value_halves_multivalue_and_multiquery(runs):
    run = runs["drop"]
    assert run["returncode"] == 0, run["stdout"][-3000:]
    found = cells(run["summary"])
    for length in (1024, 4096):
        assert found[("niah_multivalue", length)] == 0.5
        assert found[("niah_multiquery", length)] == 0.5
        assert found[("niah_single_1", length)] == 1.0  # one value: nothing to drop
        assert found[("vt", length)] == 0.6  # 3 of the 5 names
    verdict = run["summary"]["verdicts"]["ruler"]
    by_length = run["summary"]["findings"]["ruler"]["by_length"]
    # equal counts per task: the verdict's pooled mean is RULER's mean of task scores
    assert [round(100 * m, 2) for m in verdict["means"]] == [row["score"] for row in by_length]
    assert all(row["score"] < 85.6 for row in by_length)
    assert run["summary"]["findings"]["ruler"]["effective_length"]["value"] == 0


def test_missing_qa_data_is_one_unavailable_case_per_task(tmp_path):
    # the proxy refuses at once: no download is tried even on a machine with internet
    offline = {"CONTEXTROT_DATA_DIR": str(tmp_path), "HTTPS_PROXY": "http://127.0.0.1:9",
               "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}
    done = pytest_run("--collect-only", "--ruler-tasks", "all", "--ruler-lengths", "4k",
                      "--model", "builtin:random", env=offline)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    collected = [line.split("[", 1)[1].rstrip("]") for line in done.stdout.splitlines()
                 if "test_ruler[" in line]
    assert "qa_1-unavailable" in collected and "qa_2-unavailable" in collected
    assert not any(i.startswith("qa_") and "unavailable" not in i for i in collected)
    assert len(collected) == SYNTHETIC + 2


def test_plan_lists_the_full_grid_with_token_totals():
    done = pytest_run("--plan", "--scale", "full", "--ruler-tasks", "synthetic",
                      "--model", "some-model", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    row = next(line.split() for line in done.stdout.splitlines()
               if line.startswith("ruler "))
    lengths = 4096 + 8192 + 16384 + 32768 + 65536 + 131072
    outputs = 8 * 128 + 30 + 120 + 50
    assert int(row[1].replace(",", "")) == SYNTHETIC * 6 * 500
    assert int(row[4].replace(",", "")) == 500 * 6 * outputs
    assert int(row[3].replace(",", "")) == 500 * (SYNTHETIC * lengths - 6 * outputs)


def test_the_answer_prefix_as_an_assistant_prefill_with_vllms_flags(tmp_path):
    request = one_request(tmp_path, "--ruler-tasks", "niah_multivalue",
                          "--ruler-answer-prefix", "prefill-vllm")
    user, assistant = request["messages"]
    assert user["role"] == "user" and user["content"].endswith("mentioned in the provided text?")
    assert assistant == {"role": "assistant", "content": " The special magic numbers for "
                         + user["content"].rsplit(" for ", 1)[1].removesuffix(
                             " mentioned in the provided text?")
                         + " mentioned in the provided text are"}
    assert request["continue_final_message"] is True
    assert request["add_generation_prompt"] is False
    assert request["temperature"] == 0.0 and request["max_tokens"] == 128


def test_a_selected_unavailable_task_fails_with_its_line_and_is_no_missing_sample(tmp_path):
    offline = {"CONTEXTROT_DATA_DIR": str(tmp_path / "data"),
               "HTTPS_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}
    with ScriptedServer(oracle.perfect, context_length=16384) as server:
        done = pytest_run("--model", "scripted", "--base-url", server.base_url,
                          "--results-dir", str(tmp_path / "results"),
                          "--ruler-tasks", "qa_1,niah_single_1", "--ruler-lengths", "1k",
                          env=offline)
    assert done.returncode == 1, done.stdout[-2000:]
    assert "ruler: qa_1: squad/dev-v2.0.json is missing" in done.stdout
    assert "1 passed" in done.stdout and "1 error" in done.stdout
    assert "sent no record" not in done.stdout


def test_a_plan_of_ruler_beside_an_experiment_without_request_sizes():
    """RULER sizes its requests unbuilt (``request_size``); re3 is planned by building."""
    done = pytest_run("-m", "ruler or re3", "--plan", "--ruler-tasks", "synthetic",
                      "--model", "some-model", "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = {line.split()[0] for line in done.stdout.splitlines()
            if line.startswith(("ruler ", "re3 "))}
    assert rows == {"ruler", "re3"}


@pytest.mark.parametrize("owned_by, form", [
    ("vllm", "prefill-vllm"), ("llamacpp", "prefill"), ("openai", "user")])
def test_the_default_answer_prefix_is_rulers_for_what_the_server_says_it_is(
        owned_by, form, tmp_path):
    """``--ruler-answer-prefix auto``: a prefill for an open-model server (in the form vLLM,
    or llama.cpp's server, continues), RULER's user-message form for a hosted API."""
    request = one_request(tmp_path, "--run-id", "auto", "--ruler-tasks", "niah_single_1",
                          owned_by=owned_by)
    prefix = " mentioned in the provided text is"
    if form == "user":
        (user,) = request["messages"]
        assert user["role"] == "user" and user["content"].endswith(prefix)
    else:
        user, assistant = request["messages"]
        assert user["content"].endswith("mentioned in the provided text?")
        assert assistant["role"] == "assistant" and assistant["content"].endswith(prefix)
    assert ("continue_final_message" in request) == (form == "prefill-vllm")
    (record,) = [json.loads(line) for line in
                 (tmp_path / "auto" / "samples.jsonl").read_text().splitlines()]
    assert record["details"]["answer_prefix_as"] == form
    stated = f"{form} (auto: the server says {owned_by})"
    assert record["details"]["protocol"]["ruler_answer_prefix"] == stated
    identity = json.loads((tmp_path / "auto" / "summary.json").read_text())["identity"]
    assert identity["protocol"] == {"ruler_answer_prefix": stated, "ruler_fit": "ruler"}
