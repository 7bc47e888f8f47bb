"""RULER at test scale as a user runs it with ``--provider anthropic`` and ``--provider
google``: pytest in a subprocess with ``-l``, the real SDKs against the scripted servers
answering as RULER's oracle (tests/ruler/oracle.py) whose thinking names a wrong value.

One server per provider serves its thinking-off run, then its thinking-on run: the second
run's prompts are the first's, so the endpoint's cache serves them (Anthropic's because the
requests carry ``cache_control``, Gemini's implicitly), and the records must keep the cached
input it reported. Every server quotes the key it received in every body it sends (a
gateway that echoes it): no file of the results and no terminal line may show it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.doubles.native_servers import AnthropicServer, GeminiServer, camel

from ..ruler import oracle
from ..subprocess_pytest import child_env, run_pytest, without_module

KEYS = {"anthropic": "sk-ant-e2e-secret-0001", "google": "AIza-e2e-secret-0002"}
SERVERS = {"anthropic": AnthropicServer, "google": GeminiServer}
THINKING = {"off": ["--thinking", "off"], "on": ["--thinking", "on", "--reasoning-tokens",
                                                 "1024"]}
RULER = ["-m", "ruler", "--ruler-tasks", "synthetic", "--ruler-lengths", "1k",
         "--ruler-samples", "1"]
SYNTHETIC = 11


def run(server, provider: str, results: Path, run_id: str, *options: str) -> dict:
    done = run_pytest(*RULER, "-q", "-l", "--provider", provider, "--model", "scripted",
                      "--base-url", server.base_url, "--results-dir", str(results),
                      "--run-id", run_id, *options,
                      env=child_env(ANTHROPIC_API_KEY=KEYS["anthropic"],
                                    GEMINI_API_KEY=KEYS["google"], GOOGLE_API_KEY=None,
                                    OPENAI_API_KEY=None))
    samples = results / run_id / "samples.jsonl"
    summary = results / run_id / "summary.json"
    return {"status": done.returncode, "terminal": done.stdout + done.stderr,
            "records": [json.loads(line) for line in samples.read_text().splitlines()]
            if samples.exists() else [],
            "summary": json.loads(summary.read_text()) if summary.exists() else {}}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("provider-runs")
    found: dict = {"results": results}
    for provider, server_class in SERVERS.items():
        with server_class(oracle.perfect, context_length=16384, api_key=KEYS[provider],
                          thinker=oracle.wrong) as server:
            server.echo_key = True
            for thinking, options in THINKING.items():
                start = len(server.requests)
                found[provider, thinking] = run(server, provider, results,
                                                f"{provider}-{thinking}", *options)
                found[provider, thinking]["requests"] = server.requests[start:]
                found[provider, thinking]["headers"] = server.headers[start:]
        with server_class(oracle.perfect, context_length=16384,
                          api_key=KEYS[provider]) as server:
            found[provider, "count"] = run(server, provider, results, f"{provider}-count",
                                           "--tokenizer", "server", "--ruler-tasks",
                                           "niah_single_1")
            found[provider, "count"]["counted"] = server.count_requests
    return found


CASES = [(provider, thinking) for provider in SERVERS for thinking in THINKING]


@pytest.mark.parametrize("provider, thinking", CASES)
def test_ruler_scores_1_with_each_provider_thinking_on_and_off(runs, provider, thinking):
    done = runs[provider, thinking]
    assert done["status"] == 0, done["terminal"][-3000:]
    cells = {row["cell"]["task"]: (row["mean"], row["n"])
             for row in done["summary"]["experiments"]["ruler"]}
    assert len(cells) == SYNTHETIC and set(cells.values()) == {(1.0, 1)}
    assert {r["model"]["provider"] for r in done["records"]} == {provider}


@pytest.mark.parametrize("provider, thinking", CASES)
def test_the_wrong_thinking_is_recorded_apart_and_never_scored(runs, provider, thinking):
    records = runs[provider, thinking]["records"]
    assert len(records) == SYNTHETIC and all(r["outcome"] == "ok" for r in records)
    assert not any("0000000" in r["output"] for r in records)
    if thinking == "on":
        assert all("0000000" in r["thinking"] for r in records)
        if provider == "google":  # (Anthropic's: not reported, below)
            assert all(r["reasoning_tokens"] > 0 for r in records)
    else:
        assert not any(r["thinking"] for r in records)


def test_anthropic_requests_carry_the_version_and_the_thinking_and_no_unread_mark(runs):
    for thinking, expected in (("off", {"type": "disabled"}),
                               ("on", {"type": "enabled", "budget_tokens": 1024})):
        done = runs["anthropic", thinking]
        assert all(h["anthropic-version"] for h in done["headers"])
        assert {json.dumps(r["thinking"]) for r in done["requests"]} == {json.dumps(expected)}
        # one request per sample: no later request reads it, so nothing is marked (a write
        # costs 1.25 times input)
        assert "cache_control" not in json.dumps(done["requests"])
        # RULER's greedy pair, temperature 0 and top_p 1: never both (Claude 4.5 and later
        # refuse the pair); thinking off sends temperature, thinking on top_p (temperature 0 is
        # refused with thinking on), each said once and recorded
        kept, left = ("temperature", "top_p") if thinking == "off" else ("top_p", "temperature")
        assert all(kept in r and left not in r for r in done["requests"])
        assert all(set(r["model"]["adapted"]["sent_instead"]) == {left}
                   for r in done["records"])
        assert done["terminal"].count(f"contextrot: {left} not sent") == 1
        if thinking == "on":
            assert all(r["model"]["token_limit"]["max_tokens"] >= 1024 + 1
                       for r in done["records"])
            # Claude bills its thinking unseparated: not the returned summary's count
            assert all(r["reasoning_tokens"] is None and
                       r["details"]["reasoning_tokens"] == "not reported"
                       for r in done["records"])


def test_gemini_thinking_budget_is_0_off_and_1024_on(runs):
    for thinking, budget in (("off", 0), ("on", 1024)):
        configs = [camel(camel(r["generationConfig"])["thinkingConfig"])
                   for r in runs["google", thinking]["requests"]]
        assert len(configs) == SYNTHETIC and {c["thinkingBudget"] for c in configs} == {budget}
        assert all(c.get("includeThoughts") is (True if budget else None) for c in configs)


def test_records_keep_the_cached_input_the_endpoint_reported(runs):
    # Anthropic: nothing marked, nothing written or read (reads >= writes, trivially)
    for thinking in THINKING:
        records = runs["anthropic", thinking]["records"]
        assert all(r["cached_tokens"] == 0 == r["details"]["cache_write_tokens"]
                   for r in records)
    # Gemini: the implicit cache served the second run's whole prompts
    first, second = runs["google", "off"]["records"], runs["google", "on"]["records"]
    assert all(r["cached_tokens"] is None for r in first)
    assert all(r["cached_tokens"] == r["prompt_tokens"] > 0 for r in second)
    summary = runs["google", "on"]["summary"]
    assert summary["experiments"]["ruler"][0]["cached_tokens"] > 0


def test_the_plans_input_cost_is_what_the_records_usage_costs(tmp_path):
    """--plan with Anthropic's rates (reads 0.1x, writes 1.25x) against the records' usage
    priced so: within 5% (the plan counts o200k tokens, the server adds its template's).
    RULER fitted per sample, whose prompts the plan sizes within a thousandth (RULER's own
    fit fills less than the length: there the plan is an upper bound)."""
    price = 100_000.0  # USD per million: the plan prints cents
    fit = ("--ruler-fit", "per-sample")
    with AnthropicServer(oracle.perfect, context_length=16384,
                         api_key=KEYS["anthropic"]) as server:
        records = run(server, "anthropic", tmp_path, "fitted", *fit)["records"]
    done = run_pytest(*RULER, *fit, "--provider", "anthropic", "--model", "scripted", "--plan",
                      "--price-in", str(price), "--price-out", "0",
                      env=child_env(ANTHROPIC_API_KEY=KEYS["anthropic"]))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("ruler ")]
    planned = float(row.split()[-1].replace(",", ""))
    cost = sum((r["prompt_tokens"] - r["cached_tokens"] - r["details"]["cache_write_tokens"])
               * price + r["cached_tokens"] * price * 0.1
               + r["details"]["cache_write_tokens"] * price * 1.25 for r in records) / 1e6
    assert abs(planned - cost) <= 0.05 * cost, (planned, cost)


def test_a_gemini_model_that_thinks_by_default_answers_with_no_option_given(tmp_path):
    # its thinking (the thinker echoes the prompt: about 1k tokens) shares maxOutputTokens
    # with the answer, as on Gemini 2.5 and 3: the cap leaves it room
    with GeminiServer(oracle.perfect, context_length=16384,
                      api_key=KEYS["google"]) as server:
        done = run(server, "google", tmp_path, "google-default")
        sent = [camel(camel(r["generationConfig"])) for r in server.requests]
    assert done["status"] == 0, done["terminal"][-3000:]
    cells = {row["cell"]["task"]: row["mean"] for row in done["summary"]["experiments"]["ruler"]}
    assert len(cells) == SYNTHETIC and set(cells.values()) == {1.0}
    assert not any(r["thinking_ran_out"] for r in done["records"])
    assert all("thinkingConfig" not in c and c["maxOutputTokens"] > 24_576 for c in sent)
    assert all(r["reasoning_tokens"] > 0 and "not chosen" in
               r["model"]["adapted"]["sent_instead"]["thinking"] for r in done["records"])
    assert done["terminal"].count("contextrot: thinking the model's default (not chosen)") == 1


@pytest.mark.parametrize("provider", sorted(SERVERS))
def test_the_server_unit_counts_through_the_apis_own_counting_route(runs, provider):
    done = runs[provider, "count"]
    assert done["status"] == 0, done["terminal"][-3000:]
    assert done["counted"] > 0
    (record,) = done["records"]
    assert record["token_unit"].startswith(f"server:{provider}:scripted#")
    assert record["scores"] and record["outcome"] == "ok"


def test_neither_key_appears_in_any_file_or_terminal_line(runs):
    files = [path for path in runs["results"].rglob("*") if path.is_file()]
    assert len(files) > 20
    for key in KEYS.values():
        assert not any(key.encode() in path.read_bytes() for path in files), key
        for case in [*CASES, *((p, "count") for p in SERVERS)]:
            assert key not in runs[case]["terminal"]
    # the servers did quote them: what reached the harness was masked
    assert any("**********" in r["output"] for r in runs["anthropic", "on"]["records"])


def test_a_provider_without_its_sdk_is_one_line(tmp_path):
    hidden = without_module(tmp_path / "site", "anthropic")
    done = run_pytest(*RULER, "--provider", "anthropic", "--model", "claude", "--plan",
                      env=child_env(PYTHONPATH=hidden, ANTHROPIC_API_KEY=KEYS["anthropic"]))
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert "ERROR: --provider anthropic needs the anthropic package: pip install " \
           "'contextrot[providers]'" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("option, line", [
    (("--reasoning-tokens", "512"), "--reasoning-tokens 512: Claude's thinking budget is at "
                                    "least 1024 tokens"),
    (("--seed", "3"), "--seed 3: Anthropic's Messages API has no seed"),
])
def test_what_claude_cannot_take_is_one_line_before_anything_is_sent(option, line):
    done = run_pytest(*RULER, "--provider", "anthropic", "--model", "claude", *option,
                      "--base-url", "http://127.0.0.1:9",
                      env=child_env(ANTHROPIC_API_KEY=KEYS["anthropic"]))
    assert done.returncode == 4, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"ERROR: {line}" in done.stderr and "Traceback" not in done.stdout + done.stderr

