"""List prices (fixtures/engine/prices.py): each request at its own prompt's tier, cache reads and
writes and batch at their own rates, every figure checked against genai-prices' own
``calc_price``; the plan's cost and a run's recorded cost."""

from __future__ import annotations

import json
import textwrap

import pytest

from fixtures.engine.prices import RequestUsage, pricing_for

genai_prices = pytest.importorskip("genai_prices")

# one model per provider whose long-context tier starts below 300K tokens
LONG_TIER = {"openai": ("gpt-5.4", 272_000), "google": ("gemini-2.5-pro", 200_000),
             "anthropic": ("claude-sonnet-4-5", 200_000)}


def listed(model, provider, usage: RequestUsage, batch=False) -> float:
    """What genai-prices itself says the usage costs."""
    found = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                           cache_read_tokens=usage.cache_read_tokens,
                           cache_write_tokens=usage.cache_write_tokens),
        model, provider_id=provider,
        price_context={"processing": "batch"} if batch else None)
    return float(found.total_price)


USAGES = [RequestUsage(100_000, 1_000), RequestUsage(300_000, 1_000),
          RequestUsage(300_000, 2_000, cache_read_tokens=250_000),
          RequestUsage(150_000, 500, cache_read_tokens=20_000, cache_write_tokens=100_000),
          RequestUsage(900_000, 0, cache_write_tokens=900_000)]


@pytest.mark.parametrize("provider", LONG_TIER)
@pytest.mark.parametrize("batch", [False, True], ids=["live", "batch"])
def test_each_request_costs_what_genai_prices_says(provider, batch):
    model, tier = LONG_TIER[provider]
    pricing = pricing_for(model, provider, None, {})
    assert pricing.known and tier in pricing.tiers()
    for usage in USAGES:
        assert pricing.cost(usage, batch=batch) == pytest.approx(
            listed(model, provider, usage, batch), rel=1e-12)
    # above the tier every token pays the upper rate; batch is cheaper than live
    below, above = RequestUsage(tier, 0), RequestUsage(tier + 1, 0)
    assert pricing.cost(above) / (tier + 1) > pricing.cost(below) / tier
    assert pricing.cost(above, batch=True) < pricing.cost(above)


def test_a_hosted_api_url_finds_its_own_provider_and_a_local_one_the_api_spoken():
    assert pricing_for("deepseek-chat", "openai", "https://api.deepseek.com/v1", {}
                       ).provider == "deepseek"
    assert pricing_for("gpt-4.1-mini", "openai", "http://127.0.0.1:8000/v1", {}).known


def test_options_replace_the_rates_they_name_and_an_unknown_model_is_never_guessed():
    table = pricing_for("gpt-5.4", "openai", None, {})
    given = pricing_for("gpt-5.4", "openai", None, {"output": 1.0, "input": None})
    usage = RequestUsage(300_000, 1_000_000)
    assert given.cost(usage) == pytest.approx(table.cost(RequestUsage(300_000, 0)) + 1.0)
    unknown = pricing_for("my-local-model", "openai", "http://127.0.0.1:9/v1", {})
    assert not unknown.known and unknown.cost(usage) is None
    line = unknown.unknown_line()
    assert "my-local-model: no list price known" in line and "\n" not in line
    flat = pricing_for("my-local-model", "openai", None, {"input": 2.0, "output": 8.0})
    assert flat.cost(RequestUsage(1_000_000, 1_000_000, cache_read_tokens=500_000)) == \
        pytest.approx(10.0)  # cache reads at the input rate where no option prices them


LONG_PROMPT = textwrap.dedent('''
    import dataclasses
    from fixtures.pytest_face.parametrize import SampleParams, parametrize_samples
    from fixtures.pytest_face.plan import PlannedSize

    @dataclasses.dataclass(frozen=True)
    class Request(SampleParams):
        tokens: int

        @property
        def id(self):
            return f"t{self.tokens}"

    def pytest_generate_tests(metafunc):
        parametrize_samples(metafunc, "toy", [Request(100_000), Request(300_000), Request(0)])

    def request_size(sample, ctx):
        if sample.tokens == 0:  # an episode: a write, then a read of it and a write of more
            return PlannedSize.episode([250_000, 300_000], 100)
        return sample.tokens, 100

    async def solve(sample, ctx):
        raise AssertionError("the plan sends nothing")

    def test_request(sample, solved, record):
        pass
''')


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    from tests.harness.test_plugin import CONFTEST

    root = tmp_path_factory.mktemp("prices")
    (root / "conftest.py").write_text(CONFTEST)
    (root / "benchmarks").mkdir()
    (root / "benchmarks" / "test_toy.py").write_text(LONG_PROMPT)
    return root


def plan_cost(toy, *options) -> tuple[float, str]:
    import subprocess
    import sys

    from tests.subprocess_pytest import child_env

    done = subprocess.run([sys.executable, "-m", "pytest", "benchmarks", "--plan",
                           "-p", "no:cacheprovider", *options], cwd=toy, env=child_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    line = next(l for l in done.stdout.splitlines() if l.startswith("toy "))
    return float(line.split()[-1].replace(",", "")), done.stdout


@pytest.mark.parametrize("provider", LONG_TIER)
@pytest.mark.parametrize("batch", [False, True], ids=["live", "batch"])
def test_the_plan_prices_each_request_at_its_tier_from_genai_prices(toy, provider, batch):
    model, tier = LONG_TIER[provider]
    cost, output = plan_cost(toy, "--model", model, "--provider", provider,
                             *(["--batch"] if batch else []))
    writes = provider == "anthropic"  # cache_control breakpoints: the uncached input written
    requests = [RequestUsage(100_000, 100, cache_write_tokens=100_000 * writes),
                RequestUsage(300_000, 100, cache_write_tokens=300_000 * writes),
                RequestUsage(250_000, 100, cache_write_tokens=250_000 * writes),
                RequestUsage(300_000, 100, cache_read_tokens=250_000,
                             cache_write_tokens=50_000 * writes)]
    # --batch: each sample's first request at the batch rate, an episode's later one live
    expected = sum(listed(model, provider, usage, batch and i != 3)
                   for i, usage in enumerate(requests))
    assert cost == pytest.approx(expected, abs=0.006)  # the table's two decimals
    assert f"a prompt above {tier:,} tokens" in output and genai_prices.__version__ in output
    assert ("batch" in output.split("prices:")[1]) == batch


def test_the_plan_of_an_unknown_model_says_so_in_one_line(toy):
    import subprocess
    import sys

    from tests.subprocess_pytest import child_env

    done = subprocess.run([sys.executable, "-m", "pytest", "benchmarks", "--plan", "--model",
                           "my-local-model", "--base-url", "http://127.0.0.1:9/v1",
                           "-p", "no:cacheprovider"], cwd=toy, env=child_env(),
                          capture_output=True, text=True, timeout=300)
    assert [l for l in done.stdout.splitlines() if "no list price known" in l] == [
        "my-local-model: no list price known (openai, genai-prices "
        f"{genai_prices.__version__}); give --price-in/--price-out (USD per million tokens) "
        "for a cost"]
    assert "cost USD" not in done.stdout


# -- a run's recorded cost -----------------------------------------------------------------
RUN_MODELS = {"openai": "gpt-5.4", "anthropic": "claude-sonnet-4-5", "google": "gemini-2.5-pro"}
RULER = ["-m", "ruler", "--ruler-tasks", "niah_single_1", "--ruler-lengths", "1k,300k",
         "--ruler-samples", "1", "--thinking", "off"]


@pytest.fixture(scope="module")
def priced_runs(tmp_path_factory):
    """RULER at 1K and 300K tokens with each provider against its scripted server, twice:
    the second run replays the first's responses from the response cache."""
    from tests.doubles.native_servers import AnthropicServer, GeminiServer
    from tests.doubles.scripted_server import ScriptedServer

    from ..ruler import oracle
    from ..subprocess_pytest import child_env, run_pytest, run_records

    servers = {"openai": ScriptedServer, "anthropic": AnthropicServer, "google": GeminiServer}
    results, found = tmp_path_factory.mktemp("priced-runs"), {}
    env = child_env(OPENAI_API_KEY="k", ANTHROPIC_API_KEY="k", GEMINI_API_KEY="k",
                    GOOGLE_API_KEY=None)
    for provider, model in RUN_MODELS.items():
        with servers[provider](oracle.perfect, context_length=400_000, model=model) as server:
            for run_id in (provider, f"{provider}-again"):
                done = run_pytest(*RULER, "-q", "--provider", provider, "--model", model,
                                  "--base-url", server.base_url, "--results-dir",
                                  str(results), "--run-id", run_id, env=env)
                assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
                found[run_id] = {"records": run_records(results, run_id), "terminal":
                                 done.stdout, "summary": json.loads(
                                     (results / run_id / "summary.json").read_text())}
    return found


@pytest.mark.parametrize("provider", RUN_MODELS)
def test_a_run_records_what_its_usage_costs_at_list_prices(priced_runs, provider):
    model, done = RUN_MODELS[provider], priced_runs[provider]
    records = done["records"]
    assert len(records) == 2 and {r["outcome"] for r in records} == {"ok"}
    tiers = set()
    for record in records:  # one request each: its usage, priced by genai-prices itself
        usage = RequestUsage(record["prompt_tokens"], record["completion_tokens"],
                             cache_read_tokens=record["cached_tokens"] or 0,
                             cache_write_tokens=record["details"].get("cache_write_tokens") or 0)
        assert record["cost_usd"] == pytest.approx(listed(model, provider, usage), rel=1e-9)
        assert record["spent_usd"] == record["cost_usd"]
        tiers.add(record["prompt_tokens"] > LONG_TIER[provider][1])
    assert tiers == {False, True}  # both tiers met
    total = sum(r["cost_usd"] for r in records)
    summary = done["summary"]
    assert summary["cost_usd"] == pytest.approx(total, abs=1e-6)
    assert sum(row["cost_usd"] for row in summary["experiments"]["ruler"]) == \
        pytest.approx(total, abs=1e-5)
    assert summary["prices"]["model"]["source"] == f"genai-prices {genai_prices.__version__}"
    assert f"cost at list prices: {total:,.4f} USD" in done["terminal"]
    # replayed from the response cache: the same cost, nothing spent
    again = priced_runs[f"{provider}-again"]
    assert sorted(r["cost_usd"] for r in again["records"]) == \
        pytest.approx(sorted(r["cost_usd"] for r in records))
    assert {r["spent_usd"] for r in again["records"]} == {0.0}
    assert "this run sent 0.0000 USD" in again["terminal"]
