"""--plan's planning model: the size of a sample's first request, counted, never sent."""

import asyncio

import pytest

from fixtures.pytest_face.plan import Planned, PlanningModel
from fixtures.tokens.tokenizer import o200k

MESSAGES = [{"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "What is the capital of France?"}]


class TemplatedUnit:
    """o200k's counts with a chat template's tokens, as a model's own unit has them."""

    chat_overhead, turn_overhead = 7, 3

    def count_many(self, texts):
        return o200k().count_many(texts)

    def template_tokens(self, messages):
        return self.chat_overhead + max(0, messages - 1) * self.turn_overhead


def planned(model, messages, **counted):
    with pytest.raises(Planned):
        asyncio.run(model.complete(messages, max_tokens=64, **counted))
    return model.requests[-1]


def test_a_request_is_counted_in_the_unit_with_its_chat_template():
    model = PlanningModel("m", None, TemplatedUnit())
    contents = sum(o200k().count(m["content"]) for m in MESSAGES)
    assert planned(model, MESSAGES) == (contents + 7 + 3, 64)


def test_the_stimulus_own_count_is_taken_and_agrees_with_counting():
    """record.ask passes the stimulus's count (the run's unit, the template in): the plan takes
    it instead of counting a 128k-token conversation again, and it is what counting gives."""
    unit = TemplatedUnit()
    counting, given = PlanningModel("m", None, unit), PlanningModel("m", None, unit)
    counted = planned(counting, MESSAGES)[0]
    assert planned(given, MESSAGES, prompt_tokens=counted) == (counted, 64)
    assert planned(given, MESSAGES, prompt_tokens=5) == (5, 64)  # taken as given, not recounted


def test_the_planning_stop_passes_through_a_solvers_handler_for_failed_requests():
    async def solver():
        try:
            await PlanningModel("m", None, o200k()).complete(MESSAGES, max_tokens=8)
        except Exception:  # a solver's handler for a request that failed
            return "handled"

    with pytest.raises(Planned):
        asyncio.run(solver())


EPISODES_TEST = '''
import dataclasses
from fixtures.pytest_face.parametrize import SampleParams, parametrize_samples
from fixtures.pytest_face.plan import PlannedSize

@dataclasses.dataclass(frozen=True)
class Episode(SampleParams):
    steps: int

    @property
    def id(self):
        return f"e{self.steps}"

def pytest_generate_tests(metafunc):
    parametrize_samples(metafunc, "toy", [Episode(1), Episode(4), Episode(40)])

def request_size(sample, ctx):
    if sample.steps == 1:
        return 1000, 100  # a one-request sample, as before
    return PlannedSize.episode([1000 * step for step in range(1, sample.steps + 1)], 100)

async def solve(sample, ctx):
    raise AssertionError("the plan sends nothing")

def test_episode(sample, solved, record):
    pass
'''


def test_a_plan_counts_prices_and_skips_multi_request_samples(pytester):
    """A sample of requests that each extend the one before: all its input, the cacheable
    part priced at --price-cached-in, its output, and its largest request's context check."""
    from tests.harness.test_plugin import CONFTEST

    pytester.makeconftest(CONFTEST)
    (pytester.path / "benchmarks").mkdir()
    (pytester.path / "benchmarks" / "test_episodes.py").write_text(EPISODES_TEST)
    result = pytester.runpytest_subprocess(
        "benchmarks", "--plan", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
        "--max-context", "20000", "--price-in", "10", "--price-out", "20",
        "--price-cached-in", "1", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*experiment*samples*skipped*requests*input tokens*",
                                 "requests: all a sample sends*"])
    line = next(l for l in result.stdout.lines if l.startswith("toy "))
    samples, skipped, requests, inputs, output, cacheable, cost = \
        [float(v.replace(",", "")) for v in line.split()[1:]]
    # e1: one request; e4: 1000+2000+3000+4000, of which 1000+2000+3000 seen before; e40's
    # last request (40,000 tokens) does not fit a 20,000-token context: skipped
    assert (samples, skipped, requests) == (3, 1, 5)
    assert (inputs, output, cacheable) == (11_000, 500, 6_000)
    assert cost == pytest.approx((5_000 * 10 + 6_000 * 1 + 500 * 20) / 1e6, abs=0.006)


def test_an_episode_size_is_its_requests_each_extending_the_last():
    from fixtures.pytest_face.plan import PlannedSize

    size = PlannedSize.episode([100, 250, 400], 50)
    assert (size.requests, size.input_tokens, size.cacheable_tokens) == (3, 750, 350)
    assert (size.output_tokens, size.largest_prompt, size.max_tokens) == (150, 400, 50)
    assert PlannedSize.episode([100, 200], None).output_tokens is None
