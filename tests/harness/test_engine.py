"""The engine at the concurrency users run: many requests in flight from one process, -n 16 on
a fresh results directory, a rate-limited endpoint, a refused key under xdist; and the
throttle on its own (pytest-asyncio)."""

import asyncio
import json
import time

import pytest

from tests.doubles.scripted_server import ScriptedServer
from fixtures.engine.throttle import Throttle, TokenBudget

from ..subprocess_pytest import pytest_command
from .test_plugin import CONFTEST, TOY_TEST, run, stored

SAMPLES = 48


@pytest.fixture
def many(pytester):
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makeconftest(CONFTEST)
    (pytester.path / "benchmarks").mkdir()
    toy = TOY_TEST.replace("CRASH_AT", "-1").replace("range(6)", f"range({SAMPLES})")
    (pytester.path / "benchmarks" / "test_toy.py").write_text(toy)
    return pytester


def one_line_per_sample(project, run_id):
    lines = (project.path / "results" / run_id / "samples.jsonl").read_text().splitlines()
    nodeids = [json.loads(line)["nodeid"] for line in lines]
    assert len(nodeids) == len(set(nodeids)) == SAMPLES


def test_one_process_keeps_many_requests_in_flight(many):
    with ScriptedServer("copy", latency_s=0.2) as server:
        started = time.monotonic()
        result = run(many, server, "--run-id", "one", "--max-connections", "16")
        elapsed = time.monotonic() - started
    result.assert_outcomes(passed=SAMPLES)
    # 16 at once on a quiet machine; a loaded 2-core CI machine accepts them more slowly.
    assert 8 <= server.peak_in_flight <= 16
    assert len(stored(many, "one")) == SAMPLES
    one_line_per_sample(many, "one")
    # One request at a time would need 48 x 0.2 = 9.6 s of model time alone.
    first, last = min(s for s, _ in server.answered), max(f for _, f in server.answered)
    assert last - first < 9.6 / 2, f"requests spread over {last - first:.1f} s"
    assert elapsed < 60


def test_sixteen_workers_on_a_fresh_results_dir_lose_no_sample(many):
    with ScriptedServer("copy", latency_s=0.05) as server:
        result = run(many, server, "--run-id", "sixteen", "-n", "16", "--oversubscribe",
                     "--max-connections", "32")
    result.assert_outcomes(passed=SAMPLES)
    output = result.stdout.str() + result.stderr.str()
    assert "database is locked" not in output
    records = stored(many, "sixteen")
    assert len(records) == SAMPLES and all(r["outcome"] == "ok" for r in records.values())
    assert len({r["worker"] for r in records.values()}) > 1
    # Idle workers steal from busy ones, but never a sample whose request has left: each
    # sample is asked once.
    assert len(server.requests) == SAMPLES
    one_line_per_sample(many, "sixteen")


def test_a_rate_limited_endpoint_neither_stalls_nor_loses_samples(many):
    # The endpoint refuses (429, Retry-After) whatever is beyond 4 requests in flight.
    with ScriptedServer("copy", latency_s=0.1, concurrency_limit=4,
                        retry_after_s=0.05) as server:
        result = run(many, server, "--run-id", "limited", "--max-connections", "32")
    result.assert_outcomes(passed=SAMPLES)
    assert server.peak_in_flight <= 4
    assert len(stored(many, "limited")) == SAMPLES
    one_line_per_sample(many, "limited")  # retries never duplicate a record
    # Backing off: the 429s are a fraction of the work, not a flood.
    assert server.rate_limited < 2 * SAMPLES, server.rate_limited


def test_a_refused_key_stops_every_worker_with_one_line(many):
    with ScriptedServer("copy", api_key="the-real-key") as server:
        result = run(many, server, "--run-id", "refused", "-n", "4", "--oversubscribe")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["*refused the request (401)*--api-key-env*"])
    assert "Traceback" not in output and "the-real-key" not in output
    assert len(server.requests) == 0  # each worker's GET /models found it out


def test_the_same_run_id_again_leaves_one_line_per_sample(many):
    with ScriptedServer("copy") as server:
        run(many, server, "--run-id", "again").assert_outcomes(passed=SAMPLES)
        run(many, server, "--run-id", "again").assert_outcomes(passed=SAMPLES)
    one_line_per_sample(many, "again")


# -- the throttle on its own ---------------------------------------------------------------
@pytest.mark.asyncio
async def test_the_throttle_probes_with_one_then_opens_shrinks_and_grows_back():
    throttle = Throttle(8)
    assert throttle.limit == 1
    throttle.succeeded()
    assert throttle.limit == 8
    throttle.rate_limited(None)
    assert throttle.limit == 6
    throttle.rate_limited(None)  # the same burst: counted once a second
    assert throttle.limit == 6
    for _ in range(6):
        throttle.succeeded()
    assert throttle.limit == 7


@pytest.mark.asyncio
async def test_retry_after_pauses_every_new_request():
    throttle = Throttle(4)
    throttle.succeeded()
    throttle.rate_limited(0.3)
    started = time.monotonic()
    async with throttle.slot():
        waited = time.monotonic() - started
    assert waited >= 0.25


@pytest.mark.asyncio
async def test_no_more_than_the_limit_is_ever_in_flight():
    throttle, peak = Throttle(3), 0
    throttle.succeeded()

    async def request():
        nonlocal peak
        async with throttle.slot():
            peak = max(peak, throttle.in_flight)
            await asyncio.sleep(0.01)

    await asyncio.gather(*(request() for _ in range(20)))
    assert peak == 3 and throttle.in_flight == 0


@pytest.mark.asyncio
async def test_the_token_budget_spreads_requests_over_the_minute():
    budget = TokenBudget(6000)  # 100 tokens a second
    started = time.monotonic()
    await budget.take(6000)  # a full bucket goes at once
    await budget.take(30)  # then 30 tokens wait for 0.3 s of refill
    assert 0.25 <= time.monotonic() - started < 2


def test_a_plan_counts_tokens_and_cost_and_sends_nothing(many):
    with ScriptedServer("copy") as server:
        result = run(many, server, "--plan", "--price-in", "2", "--price-out", "8", "-n", "2")
    assert result.ret == 0 and len(server.requests) == 0
    # 48 samples of "say: N" (4 target tokens) with 20 output tokens each.
    result.stdout.fnmatch_lines(["*plan for scripted (nothing was sent)*",
                                 f"toy*{SAMPLES}*0*{SAMPLES * 20:,}*"])
    assert not (many.path / "results").exists()  # no run was recorded


def test_workers_stop_sending_when_the_controller_is_killed(many):
    """Issue 12 item 14: kill -9 of the controller takes its xdist workers (and their
    requests) with it, instead of leaving them to run on for seconds."""
    import os
    import signal
    import subprocess

    with ScriptedServer("copy", latency_s=0.5) as server:
        controller = subprocess.Popen(
            pytest_command("-n", "2", "--model", "scripted", "--base-url", server.base_url,
                           "--max-connections", "4", "--results-dir", str(many.path / "results")),
            cwd=many.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while len(server.requests) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(server.requests) >= 4, "the workers never started asking"
            os.kill(controller.pid, signal.SIGKILL)
            controller.wait(10)
            time.sleep(1.5)  # requests already in flight may still arrive
            settled = len(server.requests)
            time.sleep(3)
            assert len(server.requests) == settled < SAMPLES
        finally:
            if controller.poll() is None:
                controller.kill()


def test_the_progress_line_says_done_in_flight_tokens_and_eta():
    from fixtures.pytest_face.progress import Progress

    progress = Progress(config=None)
    progress.total, progress.done, progress.started = 150, 50, 0.0
    progress.tokens_in, progress.tokens_out = 12_345, 2_000
    progress.in_flight = {"gw0": 8, "gw1": 7}
    assert progress.line(10.0) == ("contextrot: 50/150 samples (33%), 15 requests in flight, "
                                   "tokens 12.3k in / 2.0k out, 5.0 samples/s, ETA 0m20s")


HEAVY_PROBE = '''
import os, sys

def pytest_unconfigure(config):
    heavy = sorted(m for m in ("pandas", "scipy", "matplotlib") if m in sys.modules)
    # not $PYTEST_XDIST_WORKER: a test run under xdist passes its own to this pytest
    role = config.workerinput["workerid"] if hasattr(config, "workerinput") else "controller"
    with open(os.path.join(str(config.rootpath), "heavy.txt"), "a") as out:
        out.write(f"{role} {','.join(heavy) or '-'}\\n")
'''


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["no-xdist", "xdist"])
def test_pytest_processes_never_load_the_plotting_stack(many, workers):
    """The end of a run (gate, tables, plots, report) runs in a process of its own: no
    pytest process, controller or worker, imports pandas, scipy or matplotlib."""
    many.makepyfile(heavy_probe=HEAVY_PROBE)
    with ScriptedServer("copy") as server:
        result = run(many, server, "--run-id", "lean", "-p", "heavy_probe", *workers)
    result.assert_outcomes(passed=SAMPLES)
    roles = dict(line.split() for line in (many.path / "heavy.txt").read_text().splitlines())
    assert set(roles) == ({"controller", "gw0", "gw1"} if workers else {"controller"})
    assert set(roles.values()) == {"-"}, roles
    run_dir = many.path / "results" / "lean"
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["received"] == SAMPLES and (run_dir / "report.html").exists()
    result.stdout.fnmatch_lines(["*contextrot*", f"samples: {SAMPLES} received of {SAMPLES}*",
                                 "report: *report.html"])
    assert len(stored(many, "lean")) == SAMPLES


def test_an_end_that_fails_keeps_the_records_and_says_how_to_render_them(many):
    broken = CONFTEST.replace('metric_kind="rate")',
                              'metric_kind="rate", findings="no_such_module:finder")')
    assert broken != CONFTEST
    many.makeconftest(broken)
    with ScriptedServer("copy") as server:
        result = run(many, server, "--run-id", "broken")
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    result.stdout.fnmatch_lines(["contextrot: writing the run's files failed (*No module named "
                                 "'no_such_module'*); the records are stored: python -m "
                                 "reporting report broken --results-dir *"])
    one_line_per_sample(many, "broken")
    assert len(stored(many, "broken")) == SAMPLES


def test_a_workers_look_ahead_lists_the_window_not_its_whole_queue():
    """The engine asks for upcoming jobs after every sample: listing a worker's whole queue
    each time made its run quadratic in its share."""
    import contextlib
    import types

    from fixtures.pytest_face.harness import Harness

    queue = list(range(2, 500))
    worker = types.SimpleNamespace(
        item_index=0, nextitem_index=1, session=types.SimpleNamespace(items=list(range(500))),
        torun=types.SimpleNamespace(lock=lambda: contextlib.nullcontext(queue)))
    harness = Harness.__new__(Harness)
    harness.engine = types.SimpleNamespace(window=10)
    harness.job = lambda item: f"job {item}"
    assert harness._worker_upcoming(worker)() == [f"job {i}" for i in range(12)]
