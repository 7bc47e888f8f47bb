"""Every experiment at test scale against reasoning endpoints, as a user runs it.

``pytest benchmarks`` runs in a subprocess against the scripted server playing each endpoint,
and its scores are compared, sample by sample, with those of a plain server giving the same
answers:

- OpenAI's reasoning models (400 to ``max_tokens`` and to a temperature other than 1, hidden
  thinking counted in ``reasoning_tokens``): nothing fails, the refusals are met once, the
  records carry the reasoning tokens and the scores are the plain server's;
- raw ``<think>`` content whose thinking holds the whole prompt (whatever a right answer
  needs: the needle, the words to copy) and whose answer is empty: the scores are the empty
  answers', and the blocks that never closed (a budget too small for the thinking) are
  counted as thinking that ran out, in the terminal, summary.json and the report;
- only a closing tag, the thinking wrong ("I cannot tell.") and the answer the plain server's.

The thinking budget of the two runs whose thinking is "I cannot tell." is exactly its four
tokens, so the room left for the answer is the plain run's own budget.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from benchmarks import experiment_packages
from tests.doubles.scripted_server import ScriptedServer
from fixtures.tokens.tokenizer import o200k

from .test_faults import ROOT, child_env, pytest_command

CONTEXT = 50_000_000  # nothing overflows: every sample of the test scale is asked
UNSURE = o200k().count("I cannot tell.")
RUNS = {  # name: (responder, behaviour, thinker, extra options)
    "plain-echo": ("echo", "plain", "echo", []),
    "openai": ("echo", "openai-reasoning", "unsure",
               ["--reasoning-tokens", str(UNSURE), "--max-connections", "1"]),
    "close": ("echo", "think-close", "unsure", ["--reasoning-tokens", str(UNSURE)]),
    "plain-empty": ("empty", "plain", "echo", []),
    "tags": ("empty", "think-tags", "echo", []),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("reasoning-runs")
    found = {}
    for name, (responder, behaviour, thinker, extra) in RUNS.items():
        with ScriptedServer(responder, context_length=CONTEXT, model="m",
                            behaviour=behaviour, thinker=thinker) as server:
            done = subprocess.run(
                pytest_command("-q", "--model", "m", "--base-url", server.base_url,
                               "--results-dir", str(results), "--run-id", name, *extra),
                cwd=ROOT, capture_output=True, text=True, timeout=900,
                env=child_env(OPENAI_API_KEY="x"))
        run_dir = results / name
        samples = [json.loads(line) for line in (run_dir / "samples.jsonl").open()] \
            if (run_dir / "samples.jsonl").exists() else []
        found[name] = {"status": done.returncode, "output": done.stdout + done.stderr,
                       "samples": {s["nodeid"]: s for s in samples},
                       "requests": list(server.requests), "dir": run_dir}
    found["results"] = results
    return found


def scores(run: dict) -> dict:
    return {nodeid: (s["outcome"], s["scores"]) for nodeid, s in run["samples"].items()}


EXPERIMENTS = {package.EXPERIMENT.name for package in experiment_packages()}


def test_the_plain_runs_ran_every_experiment(runs):
    for name in ("plain-echo", "plain-empty"):
        run = runs[name]
        assert run["status"] == 0, run["output"][-3000:]
        assert {s["experiment"] for s in run["samples"].values()} == EXPERIMENTS


def test_openai_reasoning_runs_every_experiment_with_no_failed_sample_and_equal_scores(runs):
    run = runs["openai"]
    assert run["status"] == 0, run["output"][-3000:]
    assert all(s["outcome"] == "ok" for s in run["samples"].values())
    assert scores(run) == scores(runs["plain-echo"])


def test_openai_reasoning_refusals_are_met_once_in_the_whole_run(runs):
    sent = runs["openai"]["requests"]
    assert ["max_tokens" in r for r in sent].count(True) == 1 and "max_tokens" in sent[0]
    # the experiments' temperature 0: in the first request (refused for max_tokens) and the
    # renamed one (refused for itself), never again; continuation's top_p, if not 1, once
    assert [i for i, r in enumerate(sent) if r.get("temperature", 1) != 1] == [0, 1]
    assert [r.get("top_p", 1) != 1 for r in sent].count(True) <= 1
    assert all("max_completion_tokens" in r for r in sent[1:])


def test_records_of_a_reasoning_run_carry_reasoning_tokens_and_what_was_sent(runs):
    records = list(runs["openai"]["samples"].values())
    answered = [r for r in records if r["model_calls"]]
    assert answered and all(r["reasoning_tokens"] >= UNSURE for r in answered)
    model = answered[0]["model"]
    assert model["generation"] == {"reasoning_tokens": UNSURE, "thinking_budget": UNSURE}
    assert model["adapted"]["renamed"] == {"max_tokens": "max_completion_tokens"}
    assert "max_completion_tokens" in model["token_limit"] and \
        "temperature" not in model["sampling"]


def test_a_closing_tag_alone_splits_wrong_thinking_from_a_right_answer(runs):
    run = runs["close"]
    assert run["status"] == 0, run["output"][-3000:]
    assert scores(run) == scores(runs["plain-echo"])
    assert all(r["thinking"] == "I cannot tell." for r in run["samples"].values()
               if r["model_calls"] == 1)


def test_thinking_that_holds_the_prompt_never_reaches_a_scorer(runs):
    run = runs["tags"]
    assert run["status"] == 0, run["output"][-3000:]
    assert scores(run) == scores(runs["plain-empty"])
    # the thinking is kept apart, and never sent back in a conversation
    assert any(r["thinking"] for r in run["samples"].values())
    sent_back = [m.get("content") for r in run["requests"] for m in r["messages"]
                 if m["role"] == "assistant"]
    assert "" in sent_back  # an already-said-that answer (empty), without its thinking
    assert not any("<think>" in (content or "") for content in sent_back)


def test_thinking_that_ran_out_is_counted_and_shown(runs):
    run = runs["tags"]
    ran_out = [r for r in run["samples"].values() if r["thinking_ran_out"]]
    closed = [r for r in run["samples"].values() if r["thinking"] and not r["thinking_ran_out"]]
    assert ran_out and closed  # long prompts outgrow the budget, short ones close
    assert all(r["outcome"] == "ok" and r["output"] == "" for r in ran_out)
    summary = json.loads((run["dir"] / "summary.json").read_text())
    per_cell = sum(row["thinking_ran_out"] for rows in summary["experiments"].values()
                   for row in rows)
    assert per_cell == len(ran_out)
    niah = sum(r["experiment"] == "niah" for r in ran_out)
    assert f"{niah} samples' thinking ran out (no answer; scored as an empty answer): raise " \
           "the thinking budget, --reasoning-tokens" in run["output"]
    assert "thinking ran out" in (run["dir"] / "cells.md").read_text()
    assert "samples&#x27; thinking ran out" in (run["dir"] / "report.html").read_text() or \
        "samples' thinking ran out" in (run["dir"] / "report.html").read_text()


def test_compare_of_a_thinking_and_a_plain_run_prints_them_side_by_side(runs):
    done = subprocess.run([*pytest_command()[:1], "-m", "reporting", "compare", "plain-empty",
                           "tags", "--results-dir", str(runs["results"])], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=child_env())
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "tags: generation settings: none set" in out
    assert "side by side (headline mean; mean reasoning tokens; samples whose thinking ran " \
           "out):" in out
    header = next(line for line in out.splitlines() if line.startswith("experiment  "))
    assert "plain-empty score" in header and "tags score" in header
    assert any(line.startswith("niah ") for line in out.splitlines())


def test_the_gate_refuses_runs_whose_requests_differ_unless_asked(runs):
    def gate(*extra):
        return subprocess.run([*pytest_command()[:1], "-m", "reporting", "gate", "openai",
                               "--baseline", "plain-echo", "--results-dir",
                               str(runs["results"]), "--fail-on", "niah:-0.05", *extra],
                              cwd=ROOT, capture_output=True,
                              text=True, timeout=300, env=child_env())

    refused = gate()
    assert refused.returncode == 8, refused.stdout + refused.stderr
    # (the first experiment, by name, whose requests differ is named)
    assert "the requests differ (aa_lcr): baseline plain-echo sent temperature: " \
           "0.0; token limit: max_tokens = answer, this run temperature: not sent; token " \
           f"limit: max_completion_tokens = answer + {UNSURE}" in refused.stdout
    allowed = gate("--allow-different-settings")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
