"""Every experiment on every provider: ``pytest benchmarks -m smoke`` (one small sample of
each experiment) with ``--provider openai``, ``anthropic`` and ``google``,
thinking default, on and off, against the scripted servers as strict as each API's
reference (tests/doubles/native_servers.py: unknown fields refused, temperature beside top_p
refused, thinking's budget and sampling rules, no forced tool with thinking, Gemini 3's
thought signatures). Each run: no sample errors, no stop; what an API could not take is one
terminal line, and each record's identity says what went instead.

The servers play the scripted agent (tests/doubles/scripted_agents.py), so agent accumulation's
loops call tools; every other experiment gets the agent's text answer, a wrong answer (data).
One pytest subprocess per provider and thinking mode, all experiments at once.
"""

from __future__ import annotations

import json

import pytest

from tests.doubles.native_servers import AnthropicServer, GeminiServer
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import ROOT, child_env, run_pytest

EXPERIMENTS = len(list(ROOT.glob("benchmarks/*/test_*.py")))  # each with its smoke sample
THINKING = {"default": [], "on": ["--thinking", "on"], "off": ["--thinking", "off"]}
SERVERS = {
    # a hybrid model's thinking under chat_template_kwargs (Qwen3 on vLLM)
    "openai": lambda: ScriptedServer("agent", context_length=200_000, behaviour="qwen3"),
    # a Claude 4.5+ model; by default it thinks unasked, as Claude's always-thinking ones do
    "anthropic": lambda thinks: AnthropicServer("agent", context_length=200_000,
                                                thinks_by_default=thinks),
    # Gemini 3: thinks by default, signatures on function calls required
    "google": lambda: GeminiServer("agent", context_length=200_000, signatures_required=True),
}
CASES = [(provider, thinking) for provider in SERVERS for thinking in THINKING]


def server_for(provider: str, thinking: str):
    made = SERVERS[provider]
    return made(thinking == "default") if provider == "anthropic" else made()


@pytest.mark.parametrize("provider, thinking", CASES)
def test_every_experiment_runs_on_every_provider_with_thinking_default_on_and_off(
        tmp_path, provider, thinking):
    with server_for(provider, thinking) as server:
        done = run_pytest("-m", "smoke", "-q", "-n", "0", "--provider", provider,
                          "--model", "scripted", "--base-url", server.base_url,
                          "--results-dir", str(tmp_path), "--run-id", "matrix",
                          *THINKING[thinking],
                          env=child_env(ANTHROPIC_API_KEY="k", GEMINI_API_KEY="k",
                                        OPENAI_API_KEY="k", GOOGLE_API_KEY=None))
        requests = list(server.requests)
    terminal = done.stdout + done.stderr
    assert done.returncode == 0, terminal[-4000:]
    records = [json.loads(line) for line in
               (tmp_path / "matrix" / "samples.jsonl").read_text().splitlines()]
    assert len({r["experiment"] for r in records}) == EXPERIMENTS
    # a wrong answer is data, a declined task is counted: never a harness error
    assert not [(r["experiment"], r["reason"]) for r in records if r["outcome"] == "error"]
    # what went otherwise: once in the terminal, in every record's identity where it did
    instead = {(name, what.partition("): ")[2] or what) for r in records
               for name, what in ((r["model"].get("adapted") or {}).get("sent_instead")
                                  or {}).items()}
    for name, reason in instead:
        said = [line for line in terminal.splitlines()
                if line.startswith(f"contextrot: {name} ") and reason in line]
        assert len(said) == 1, (name, reason, said)
    by_experiment = {r["experiment"]: (r["model"].get("adapted") or {}).get("sent_instead")
                     or {} for r in records}
    if provider == "openai":
        assert not instead  # OpenAI-compatible servers take the protocols as they are
        return
    if provider == "anthropic":
        assert "seed" in by_experiment["nolima"]  # the Messages API has no seed
        assert {"min_p", "repeat_penalty"} <= set(by_experiment["continuation"])
        assert not any("temperature" in r and "top_p" in r for r in requests)
        assert not any(set(r) - {"model", "messages", "max_tokens", "system", "temperature",
                                  "top_p", "top_k", "stop_sequences", "tools", "tool_choice",
                                  "thinking", "output_config", "stream"} for r in requests)
        if thinking == "on":  # the trajectory's forced submit goes as auto
            assert by_experiment["agent_accumulation"]["tool_choice"].startswith("auto sent")
            assert all((r.get("tool_choice") or {}).get("type") in (None, "auto", "none")
                       for r in requests)
            assert all(r["thinking"]["budget_tokens"] < r["max_tokens"] for r in requests)
        if thinking == "default":  # it thought unasked: later answer budgets leave it room
            assert any("thinking" in changed and "not chosen" in changed["thinking"]
                       for changed in by_experiment.values())
    if provider == "google":
        assert {"min_p", "repeat_penalty"} <= set(by_experiment["continuation"])
        if thinking == "default":  # Gemini thinks by default: the cap leaves it room
            capped = [r for r in records if r["model"]["token_limit"]]
            assert capped and all("not chosen" in by_experiment[r["experiment"]]["thinking"]
                                  for r in capped)
