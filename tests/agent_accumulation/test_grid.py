"""The grid: options, ids that -k selects exactly, the pairing of conditions on ledgers."""

from __future__ import annotations

import asyncio

import pytest

from benchmarks.agent_accumulation import EXPERIMENT, grid, test_agent_accumulation
from fixtures.pytest_face.parametrize import inexact_parts

from .helpers import settings


def test_the_test_scale_runs_both_modes_and_full_and_clear_on_two_lengths():
    samples = grid.build(settings())
    assert len(samples) == 2 * 1 * 2 * 3  # lengths x needles x ledgers x (traj + 2 live)
    assert {s.mode for s in samples} == {"trajectory", "live"}
    assert {s.condition for s in samples if s.mode == "trajectory"} == {"full"}
    assert {s.condition for s in samples if s.mode == "live"} == {"full", "clear:2"}
    assert {s.max_steps for s in samples} == {24}  # 2P + 4: room to re-read every page
    smoke = grid.smoke_rule(samples)
    assert [s.id for s in samples if smoke(s)] == ["traj-full-ctx8k-nd2-s000"]


def test_full_scale_and_every_option():
    full = grid.build(settings(scale="full"))
    assert {s.length for s in full} == {8192, 16384, 32768, 65536, 131072}
    assert {s.needles for s in full} == {2, 4, 8}
    assert {s.condition for s in full} == {"full", "clear:2", "drop:0.5", "compact:0.5"}
    chosen = grid.build(settings(agent_lengths="8k,1m", agent_samples=3, agent_modes="live",
                                 agent_conditions="full,clear:3,drop:0.25,trim:1,compact:32k",
                                 agent_needles="1,4", agent_pages=5, agent_max_steps=9,
                                 agent_seed=7))
    assert len(chosen) == 2 * 2 * 3 * 5
    assert {s.condition for s in chosen} == {"full", "clear:3", "drop:0.25", "trim:1",
                                             "compact:32768"}
    assert {(s.pages, s.max_steps, s.seed) for s in chosen} == {(5, 9, 7)}
    assert {s.condition_of().id for s in chosen} == {"full", "clear03", "drop025", "trim100",
                                                     "compact32k"}


def test_every_condition_of_a_ledger_reads_the_same_ledger():
    samples = grid.build(settings(agent_conditions="full,clear:2,drop:0.5,trim:0.5"))
    by_ledger = {}
    for s in samples:
        by_ledger.setdefault((s.length, s.needles, s.index), set()).add(s.ledger_seed)
    assert all(len(seeds) == 1 for seeds in by_ledger.values())
    assert len({seeds.pop() for seeds in by_ledger.values()}) == len(by_ledger)


def test_ids_select_exactly():
    samples = grid.build(settings(scale="full", agent_lengths="8k,16k,128k,1m",
                                  agent_conditions="full,clear:2,clear:20,drop:0.5,drop:0.05,"
                                                   "trim:0.5,compact:16k,compact:160k,"
                                                   "compact:0.5,anthropic-clear:2,"
                                                   "anthropic-thinking:1,anthropic-thinking:all,"
                                                   "anthropic-compact:64k",
                                  agent_needles="2,4,8,12", agent_samples=11))
    ids = [s.id for s in samples]
    assert len(set(ids)) == len(ids)
    assert inexact_parts(ids, [EXPERIMENT.name, "test_agent_accumulation", "smoke"]) == {}


@pytest.mark.parametrize(("option", "value", "named"), [
    ("agent_modes", "trajectory,replay", "--agent-modes"),
    ("agent_conditions", "full,clear:0", "--agent-conditions"),
    ("agent_conditions", "drop:1.5", "--agent-conditions"),
    ("agent_conditions", "trim:0.333", "--agent-conditions"),
    ("agent_conditions", "compact:lots", "--agent-conditions"),
    ("agent_conditions", "summarise", "--agent-conditions"),
    ("agent_conditions", "compact:1.5", "--agent-conditions"),
    ("agent_conditions", "anthropic-compact:32k", "--agent-conditions"),  # below 50k
    ("agent_conditions", "anthropic-clear:0", "--agent-conditions"),
    ("agent_conditions", "anthropic-thinking:some", "--agent-conditions"),
    ("agent_lengths", "2k", "--agent-lengths"),
    ("agent_lengths", "2m", "--agent-lengths"),
    ("agent_needles", "0", "--agent-needles"),
    ("agent_samples", 0, "--agent-samples"),
    ("agent_pages", 0, "--agent-pages"),
    ("agent_max_steps", 1, "--agent-max-steps"),
])
def test_a_bad_option_is_one_line_naming_it(option, value, named):
    with pytest.raises(ValueError) as raised:
        grid.build(settings(**{option: value}))
    message = str(raised.value)
    assert message.startswith(named) and "\n" not in message


def test_native_conditions_say_their_provider_their_twin_and_their_request():
    clear, thinking, kept, compact, local = grid.parse_conditions(
        "anthropic-clear:2,anthropic-thinking:1,anthropic-thinking:all,anthropic-compact:64k,"
        "compact:0.5")
    assert [c.name for c in (clear, thinking, kept, compact)] == [
        "anthropic-clear:2", "anthropic-thinking:1", "anthropic-thinking:all",
        "anthropic-compact:65536"]
    assert [c.id for c in (clear, thinking, kept, compact, local)] == [
        "antclearing02", "antthinking01", "antthinkingall", "antcompaction64k", "compact050"]
    assert {c.provider for c in (clear, thinking, kept, compact)} == {"anthropic"}
    assert local.provider is None and local.request() == {}
    assert [c.twin for c in (clear, thinking, kept, compact)] == [
        "clear:2", "anthropic-thinking:all", None, "compact:65536"]
    assert clear.request() == {"context_management": {"edits": [{
        "type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 3},
        "keep": {"type": "tool_uses", "value": 2}}]}}
    assert thinking.request()["context_management"]["edits"] == [{
        "type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]
    assert kept.request()["context_management"]["edits"][0]["keep"] == "all"
    assert compact.request()["context_management"]["edits"] == [{
        "type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 65536}}]
    # a fraction of each sample's length: the threshold in tokens there
    assert local.at(32768) == grid.Condition("compact", 16384) and clear.at(8192) == clear


def test_the_verdict_reads_full_only():
    column, value = EXPERIMENT.control
    assert column == "params.condition" and not value("full") and value("clear:2")


class Skipped(Exception):
    pass


class EmbeddedContext:
    """A solver context without --model (the embedded SmolLM2)."""

    class record:
        @staticmethod
        def skip(reason):
            raise Skipped(reason)

    @staticmethod
    def option(name):
        return None if name == "model" else pytest.fail(f"asked {name}")


def test_the_embedded_model_skips_every_sample_with_one_line_before_any_work():
    sample = grid.build(settings())[0]
    with pytest.raises(Skipped) as skipped:
        asyncio.run(test_agent_accumulation.solve(sample, EmbeddedContext()))
    assert str(skipped.value) == test_agent_accumulation.EMBEDDED_SKIP
    assert "\n" not in str(skipped.value) and "--model" in str(skipped.value)
    with pytest.raises(Skipped):
        test_agent_accumulation.request_size(sample, EmbeddedContext())


class Model:
    def __init__(self, provider, thinking_budget=0):
        self.provider, self.thinking_budget = provider, thinking_budget


def test_what_a_run_cannot_ask_for_is_one_line():
    cannot = test_agent_accumulation.cannot_run
    native, thinking = grid.parse_conditions("anthropic-clear:2,anthropic-thinking:1")
    assert cannot("live", native, Model("anthropic"), None) is None
    assert "--provider anthropic" in cannot("live", native, Model("openai"), None)
    assert "--thinking on" in cannot("live", thinking, Model("anthropic"), None)
    assert cannot("live", thinking, Model("anthropic", 1024), None) is None
    # a trajectory runs on every provider: its forced submit, where Anthropic refuses it
    # with thinking on, is the adapter's "auto sent instead" (tests/harness/test_provider_matrix)
    assert cannot("trajectory", grid.FULL, Model("anthropic", 1024), None) is None
    assert cannot("trajectory", grid.FULL, Model("openai", 1024), None) is None
    assert all("\n" not in (cannot(*case) or "") for case in (
        ("live", native, Model("openai"), None), ("live", thinking, Model("anthropic"), None)))


@pytest.mark.parametrize("typed, name, ident", [
    ("compact:1m", "compact:1048576", "compact1m"), ("compact:1000k", "compact:1024000",
                                                     "compact1000k"),
    ("compact:32k", "compact:32768", "compact32k"), ("compact:2000000", "compact:2000000",
                                                     "compact2000000t"),
    ("clear:2", "clear:2", "clear02"), ("drop:0.25", "drop:0.25", "drop025"),
    ("compact:0.5", "compact:0.5", "compact050"),
    ("anthropic-compact:1m", "anthropic-compact:1048576", "antcompaction1m")])
def test_a_condition_reads_back_as_itself_from_its_name(typed, name, ident):
    """The record's ``params.condition`` is read again for each sample (``condition_of``): a
    name written as ``compact:1.04858e+06`` was refused as a value never typed."""
    (condition,) = grid.parse_conditions(typed)
    assert condition.name == name and grid.parse_conditions(name) == (condition,)
    assert condition.id == ident
    (sample,) = grid.build(settings(agent_lengths="8k", agent_samples=1, agent_modes="live",
                                    agent_conditions=typed, agent_needles="1"))
    assert sample.condition == name and sample.condition_of() == condition
