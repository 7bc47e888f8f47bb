"""Requests ordered for a prefix cache (fixtures/engine/prefix.py) against the scripted server's
prefix cache model: the cached tokens the endpoint reports reach the records, the summary
and the report; with the order on, a grid of shared prefixes computes its prefix tree once;
with it off, the same samples give the same records."""

import asyncio
import hashlib
import json
import re
import types

import pytest

from fixtures.pytest_face.harness import sends_routing_keys
from fixtures.engine.models import OpenAIChatModel
from fixtures.engine.prefix import (BLOCK_CHARS, PrefixGate, Turns, leaders_and_shares, order_items,
                             routing_key)
from tests.doubles.scripted_server import Fault, PrefixCache, ScriptedServer
from fixtures.engine.throttle import Throttle, request_owner

from .test_plugin import CONFTEST, run, stored

# Four groups of six samples; a group's prompts share a long text, then differ. Collected
# group by group interleaved (part outer), so the order has to bring each group together.
GROUPED_TEST = '''
import dataclasses, random
from fixtures.pytest_face.parametrize import SampleParams, parametrize_samples

@dataclasses.dataclass(frozen=True)
class Part(SampleParams):
    group: int
    part: int

    @property
    def id(self):
        return f"g{self.group}-p{self.part}"

    @property
    def prefix_group(self):
        return self.group

    prefix_share = 0.9

def pytest_generate_tests(metafunc):
    parametrize_samples(metafunc, "toy", [Part(g, p) for p in range(6) for g in range(4)])

def shared(group):
    words = random.Random(group).choices(["alpha", "beta", "gamma", "delta", "omega"], k=1500)
    return " ".join(words)

async def solve(sample, ctx):
    text = f"{shared(sample.group)}\\nQuestion {sample.part}: say {sample.part}"
    ctx.record.stimulus([{"role": "user", "content": text}], target_tokens=1600, max_tokens=20)
    return await ctx.record.ask(ctx.model)

def test_part(sample, solved, record):
    record.score(right=solved.text.endswith(f"say {sample.part}"))
'''


@pytest.fixture
def grouped(pytester):
    pytester.makeconftest(CONFTEST)
    (pytester.path / "benchmarks").mkdir()
    (pytester.path / "benchmarks" / "test_grouped.py").write_text(GROUPED_TEST)
    return pytester


def cache_server(**options):
    # A prompt's prefill takes about 0.45 s on the one lane, longer than a loaded machine
    # takes to send the first sixteen requests; the cache holds a prompt only then.
    return ScriptedServer("copy", context_length=100_000, latency_s=0.05,
                          prefix_cache_tokens=1_000_000, prefill_s_per_token=3e-4, **options)


def comparable(records):
    keep = ("params", "stimulus_hash", "output", "scores", "outcome", "prompt_tokens")
    return {k: {f: r[f] for f in keep} for k, r in records.items()}


def test_ordered_requests_compute_the_prefix_tree_once_and_report_cached_tokens(grouped):
    with cache_server() as server:
        run(grouped, server, "--run-id", "off", "--prefix-order", "off", "--no-cache",
            "--max-connections", "16").assert_outcomes(passed=24)
        off = server.prefix_cache.counts()
    with cache_server() as server:
        result = run(grouped, server, "--run-id", "on", "--no-cache", "--max-connections", "16")
        result.assert_outcomes(passed=24)
        on = server.prefix_cache.counts()
    assert on["prompt_tokens"] == off["prompt_tokens"] and on["lower_bound"] == off["lower_bound"]
    # off: the first sixteen go at once, each computing its group's text again
    assert off["computed_tokens"] > 1.3 * off["lower_bound"], off
    assert on["computed_tokens"] <= 1.02 * on["lower_bound"], on
    # the same samples, records and scores; only the order of requests differs
    records_on, records_off = stored(grouped, "on"), stored(grouped, "off")
    assert comparable(records_on) == comparable(records_off)
    assert all(r["scores"]["right"] for r in records_on.values())
    # the endpoint's cached tokens, as it reported them, in the records and every summary
    cached = sum(r["cached_tokens"] for r in records_on.values())
    assert cached == on["served_tokens"] > 0
    summary = json.loads((grouped.path / "results" / "on" / "summary.json").read_text())
    assert summary["cached_tokens"] == cached
    assert sum(c["cached_tokens"] for c in summary["experiments"]["toy"]) == cached
    share = f"{cached:,} of {summary['prompt_tokens']:,}"
    result.stdout.fnmatch_lines([f"*prefix cache: {share} (*%)*"])
    assert share in (grouped.path / "results" / "on" / "report.html").read_text()
    assert share.split(" of ")[0] in (grouped.path / "results" / "on" / "cells.md").read_text()


def test_under_xdist_each_group_stays_on_one_worker_mostly(grouped):
    with cache_server() as server:
        run(grouped, server, "--run-id", "n2", "-n", "2", "--no-cache",
            "--max-connections", "16").assert_outcomes(passed=24)
        counts = server.prefix_cache.counts()
    # groups run back to back, so a worker's share splits at most one group in two
    group_prefix = counts["lower_bound"] / 4
    assert counts["computed_tokens"] <= counts["lower_bound"] + 1.1 * group_prefix, counts


def test_without_a_cache_report_the_records_say_not_reported(grouped):
    with ScriptedServer("copy", context_length=100_000) as server:
        run(grouped, server, "--run-id", "plain", "-k", "g0").assert_outcomes(passed=6)
    records = stored(grouped, "plain")
    assert {r["cached_tokens"] for r in records.values()} == {None}
    summary = json.loads((grouped.path / "results" / "plain" / "summary.json").read_text())
    assert summary["cached_tokens"] is None
    assert "not reported" in (grouped.path / "results" / "plain" / "report.html").read_text()


def test_plan_prices_cacheable_input_apart(grouped):
    result = grouped.runpytest_subprocess("benchmarks", "--plan", "--model", "m", "--base-url",
                                          "http://127.0.0.1:9/v1", "--price-in", "10",
                                          "--price-out", "0", "--price-cached-in", "1",
                                          "-p", "no:cacheprovider")
    line = next(l for l in result.stdout.lines if l.startswith("toy "))
    samples, skipped, prompt, output, cacheable, cost = line.split()[1:]
    prompt, cacheable = int(prompt.replace(",", "")), int(cacheable.replace(",", ""))
    # four groups of six prompts of one size: five of each reuse 0.9 of their prompt
    assert prompt % 24 == 0 and cacheable == 20 * int(prompt // 24 * 0.9)
    assert float(cost) == pytest.approx(((prompt - cacheable) * 10 + cacheable * 1) / 1e6,
                                        abs=0.006)


@pytest.mark.asyncio
@pytest.mark.parametrize("style", ["openai", "deepseek"])
async def test_both_names_of_cached_tokens_are_read(style):
    messages = [{"role": "user", "content": "x " * 400 + "then: hello"}]
    with ScriptedServer("copy", prefix_cache_tokens=10_000, cache_usage=style) as server:
        model = OpenAIChatModel("scripted", server.base_url, api_key=None, timeout_s=10)
        first = await model.complete(messages, max_tokens=5)
        second = await model.complete(messages, max_tokens=5)
        await model.close()
    assert first.cached_tokens == 0
    assert second.cached_tokens == server.prefix_cache.block_tokens * \
        (second.prompt_tokens // server.prefix_cache.block_tokens) > 0


def test_the_cache_model_evicts_the_least_recently_used_blocks():
    cache = PrefixCache(capacity_tokens=64, block_tokens=16)  # four blocks
    a, b = list(range(48)), list(range(100, 148))  # three blocks each
    assert cache.prefill(a)[0] == 0
    cache.computed(a)
    assert cache.prefill(a)[0] == 48  # all three blocks served
    cache.computed(b)  # three more: two of a's go, the oldest first
    assert cache.prefill(a)[0] == 0  # a's first block went, so nothing of a is a prefix
    assert cache.prefill(b + [7])[0] == 48
    assert cache.lower_bound == 48 + 48 + 1  # six distinct blocks and one tail token


def test_prefill_waits_on_one_lane():
    cache = PrefixCache(capacity_tokens=1000, block_tokens=10, prefill_s_per_token=0.01)
    _, first = cache.prefill(list(range(50)))
    _, second = cache.prefill(list(range(50)))  # not yet computed: all again, after the first
    assert first == pytest.approx(0.5, abs=0.05) and second == pytest.approx(1.0, abs=0.05)


def sample_item(index, sample):
    return types.SimpleNamespace(index=index, callspec=types.SimpleNamespace(
        params={"sample": sample}))


def test_order_puts_groups_together_the_largest_share_first():
    def s(group, share):
        return types.SimpleNamespace(prefix_group=group, prefix_share=share)

    samples = [s("a", 0.1), s("b", 0.5), s(None, 0), s("a", 0.9), s("b", 0.5), s("a", 0.5)]
    items = [sample_item(i, sample) for i, sample in enumerate(samples)]
    assert [i.index for i in order_items(items)] == [3, 5, 0, 1, 4, 2]
    ordered = [i.callspec.params["sample"] for i in order_items(items)]
    assert [(first, share) for _, first, share in leaders_and_shares(ordered)] == \
        [(True, 0.0), (False, 0.5), (False, 0.1), (True, 0.0), (False, 0.5), (True, 0.0)]


def prompt(shared_blocks, tail):
    return [{"role": "user", "content": "s" * (BLOCK_CHARS * shared_blocks) + tail}]


@pytest.mark.asyncio
async def test_the_gate_holds_a_request_until_the_one_computing_its_prefix_is_answered():
    gate, model, order = PrefixGate(), ("here", "m"), []

    async def ask(name, messages, seconds):
        async with gate.passage(model, messages) as flight:
            order.append(f"{name} sent")
            await asyncio.sleep(seconds)
            gate.answered(model, flight)
        order.append(f"{name} answered")

    first = asyncio.create_task(ask("first", prompt(8, "a"), 0.2))
    await asyncio.sleep(0.01)
    unrelated = asyncio.create_task(ask("other", [{"role": "user", "content": "o" * 9000}],
                                        0.05))
    short = asyncio.create_task(ask("short", prompt(2, "b"), 0.05))  # too little to wait for
    follower = asyncio.create_task(ask("follower", prompt(8, "c"), 0.05))
    await asyncio.gather(first, unrelated, short, follower)
    assert order.index("follower sent") > order.index("first answered")
    assert order.index("other sent") < order.index("first answered")
    assert order.index("short sent") < order.index("first answered")
    assert gate.waits == 1
    # answered: the cache holds it, so the next one goes at once
    await ask("later", prompt(8, "d"), 0)
    assert gate.waits == 1


@pytest.mark.asyncio
async def test_one_connection_serves_a_started_conversation_first():
    throttle = Throttle(1, turns=Turns())
    throttle.succeeded()
    order = []

    async def conversation(name, turns):
        request_owner.set(name)
        for turn in range(turns):
            async with throttle.slot():
                order.append(f"{name}{turn}")
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.005)  # the reply is read before the next turn
        throttle.end_turn(name)

    await asyncio.gather(conversation("a", 3), conversation("b", 3))
    assert order == ["a0", "a1", "a2", "b0", "b1", "b2"]


def test_prompt_cache_key_names_each_prefix_group_and_changes_no_record(grouped):
    with ScriptedServer("copy", context_length=100_000) as server:
        run(grouped, server, "--run-id", "keyed", "--prompt-cache-key", "on",
            "-k", "g0 or g1").assert_outcomes(passed=12)
        keyed = [(r["messages"][0]["content"].split("\n")[0], r.get("prompt_cache_key"))
                 for r in server.requests]
        server.requests.clear()
        # auto: only OpenAI's API is sent it (a local server is not)
        run(grouped, server, "--run-id", "auto", "--no-cache",
            "-k", "g0 or g1").assert_outcomes(passed=12)
        assert len(server.requests) == 12
        assert all("prompt_cache_key" not in r for r in server.requests)
        server.requests.clear()
        # the response cache's keys are those of a run without it: all twelve replayed
        run(grouped, server, "--run-id", "replayed", "--prompt-cache-key", "off",
            "-k", "g0 or g1").assert_outcomes(passed=12)
        assert server.requests == []
    groups: dict[str, set] = {}
    for shared_text, key in keyed:
        groups.setdefault(shared_text, set()).add(key)
    # one key per group (its samples share it), two groups, two keys: a hash, no prompt text
    assert len(groups) == 2 and all(len(keys) == 1 for keys in groups.values())
    keys = set().union(*groups.values())
    assert len(keys) == 2 and all(re.fullmatch(r"contextrot-[0-9a-f]{20}", k) for k in keys)
    # a routing hint only: the records are those of a run without it
    assert comparable(stored(grouped, "keyed")) == comparable(stored(grouped, "auto"))


@pytest.mark.asyncio
@pytest.mark.parametrize("refusal", [
    {"message": 'Invalid JSON payload received. Unknown name "prompt_cache_key": Cannot find '
                'field.', "code": 400, "status": "INVALID_ARGUMENT"},
    {"message": "Unrecognized request argument supplied: prompt_cache_key",
     "type": "invalid_request_error", "param": None, "code": None},
])
async def test_an_endpoint_that_refuses_the_routing_key_is_sent_it_no_more(refusal):
    messages = [{"role": "user", "content": "Simply replicate: apple"}]
    with ScriptedServer("copy") as server:
        server.faults.append(Fault(400, body={"error": refusal}))
        model = OpenAIChatModel("scripted", server.base_url, api_key=None, timeout_s=10)
        model.routing_keys = True
        first = await model.complete(messages, max_tokens=5, routing_key="contextrot-k")
        second = await model.complete(messages, max_tokens=5, routing_key="contextrot-k")
        await model.close()
    assert first.ok and first.text == "apple" and second.ok
    sent = [r.get("prompt_cache_key") for r in server.requests]
    assert sent == ["contextrot-k", None, None]  # refused once, then never sent again
    assert model.identity["adapted"] == {"dropped": ["prompt_cache_key"]}


def test_a_run_on_a_server_that_refuses_the_key_loses_no_sample(grouped):
    with ScriptedServer("copy", context_length=100_000,
                        unknown_fields=("prompt_cache_key",)) as server:
        result = run(grouped, server, "--run-id", "strict", "--prompt-cache-key", "on",
                     "--max-connections", "8", "-k", "g0 or g1")
        result.assert_outcomes(passed=12)
        refused = sum("prompt_cache_key" in r for r in server.requests)
    records = stored(grouped, "strict")
    assert 1 <= refused <= 8 and len(server.requests) == 12 + refused
    assert {json.dumps(r["model"]["adapted"]) for r in records.values()} == \
        {'{"dropped": ["prompt_cache_key"]}'}


@pytest.mark.asyncio
async def test_requests_in_flight_when_the_key_is_refused_are_sent_again_without_it():
    messages = [{"role": "user", "content": "Simply replicate: apple"}]
    # the refusals take 0.3 s too, so all three are in flight before the first comes back
    with ScriptedServer("copy", latency_s=0.3, unknown_fields=("prompt_cache_key",)) as server:
        model = OpenAIChatModel("scripted", server.base_url, api_key=None, timeout_s=10,
                                throttle=Throttle(4))
        model.routing_keys = True
        await model.complete(messages, max_tokens=5)  # opens the throttle to four
        server.requests.clear()
        answers = await asyncio.gather(*(model.complete(messages, max_tokens=5,
                                                        routing_key=f"contextrot-{i}")
                                         for i in range(3)))
        await model.close()
    assert all(a.ok and a.text == "apple" for a in answers)
    sent = [r.get("prompt_cache_key") for r in server.requests]
    assert sorted(sent[:3]) == ["contextrot-0", "contextrot-1", "contextrot-2"]
    assert sent[3:] == [None] * 3  # each sent once more, without it


def test_routing_keys_are_the_groups_and_stable():
    one = types.SimpleNamespace(prefix_group=("seq", 1000), prefix_share=0.5)
    same = types.SimpleNamespace(prefix_group=("seq", 1000), prefix_share=0.1)
    other = types.SimpleNamespace(prefix_group=("seq", 2000), prefix_share=0.5)
    alone = types.SimpleNamespace()
    assert routing_key("niah", one, "a") == routing_key("niah", same, "b")
    assert routing_key("niah", one, "a") != routing_key("niah", other, "a")
    assert routing_key("niah", one, "a") != routing_key("ruler", one, "a")
    assert routing_key("x", alone, "t[1]") != routing_key("x", alone, "t[2]")
    # a hash of the group's repr: the same on any machine, in any process
    assert routing_key("niah", one, "a") == "contextrot-" + hashlib.sha256(
        repr(("niah", "SimpleNamespace", ("seq", 1000))).encode()).hexdigest()[:20]


@pytest.mark.parametrize("choice, order, host, sent", [
    ("auto", "on", "https://api.openai.com/v1", True),
    ("auto", "on", "https://api.mistral.ai/v1", True),
    ("auto", "off", "https://api.openai.com/v1", False),  # --prefix-order off changes nothing
    ("auto", "on", "https://generativelanguage.googleapis.com/v1beta/openai", False),
    ("auto", "on", "http://127.0.0.1:8000/v1", False),
    ("on", "off", "http://127.0.0.1:8000/v1", True),
    ("off", "on", "https://api.openai.com/v1", False),
])
def test_prompt_cache_key_auto_goes_to_openai_only(choice, order, host, sent):
    options = {"prompt_cache_key": choice, "prefix_order": order}
    assert sends_routing_keys(types.SimpleNamespace(getoption=options.get), host) is sent
