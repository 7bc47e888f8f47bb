"""``--max-cost``: a run stops before what it spent plus what is in flight passes the cap,
within one request's cost of it, and the same command resumes it (fixtures/engine/spending.py)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.doubles.scripted_server import ScriptedServer
from fixtures.engine.spending import SpendCap, SpendCapReached

from ..ruler import oracle
from ..subprocess_pytest import ROOT, child_env, run_records

CAP = 0.5
# ten RULER samples of about 1K tokens, at 100 USD per million tokens: about 0.09 USD each
COMMAND = ["-m", "ruler", "--ruler-tasks", "niah_single_1", "--ruler-lengths", "1k",
           "--ruler-samples", "10", "-q", "--model", "scripted", "--price-in", "100",
           "--price-out", "100", "--max-cost", str(CAP)]


def test_the_ledger_refuses_what_would_pass_the_cap_and_counts_what_came_back(tmp_path):
    cap = SpendCap(tmp_path / "spend.sqlite", 1.0)
    first, second = cap.reserve(0.4), cap.reserve(0.4)
    with pytest.raises(SpendCapReached, match=r"0\.0000 USD spent and 0\.8000 USD in flight"):
        cap.reserve(0.3)
    cap.settle(first, 0.1)  # it came back cheaper than its worst case
    cap.settle(second, 0.0)  # it failed: nothing spent
    third = cap.reserve(0.85)
    assert cap.spent() == pytest.approx(0.1)
    with pytest.raises(SpendCapReached):
        SpendCap(tmp_path / "spend.sqlite", 1.0).reserve(0.1)  # another worker, same ledger
    cap.settle(third, 0.2)
    assert cap.spent() == pytest.approx(0.3)


def runs_of(results):
    return sorted((p for p in results.iterdir() if (p / "samples.jsonl").exists()),
                  key=lambda p: p.stat().st_mtime_ns)


def test_a_capped_run_stops_within_one_request_of_the_cap_and_the_same_command_resumes(
        tmp_path):
    results = tmp_path / "results"
    with ScriptedServer(oracle.perfect, context_length=16_000) as server:
        command = [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider",
                   *COMMAND, "--base-url", server.base_url, "--results-dir", str(results)]
        ends = []
        for _ in range(5):  # the same command until it finishes
            done = subprocess.run(command, cwd=ROOT, env=child_env(), capture_output=True,
                                  text=True, timeout=300)
            records = run_records(results, runs_of(results)[-1].name)
            ends.append((done.returncode, done.stdout, records))
            if done.returncode == 0:
                break
    assert ends[0][0] == 2 and len(ends) > 2, [e[1][-2000:] for e in ends]
    for status, terminal, records in ends[:-1]:  # each stopped run
        spent = sum(r["spent_usd"] for r in records)
        line = next(l for l in terminal.splitlines() if "--max-cost 0.5 USD:" in l)
        next_request = float(re.search(r"could cost ([0-9.]+) USD more", line).group(1))
        assert spent <= CAP and CAP - spent < next_request, (spent, line)
        assert "Run the same command again to go on" in line
        assert len(records) < 10
    status, terminal, records = ends[-1]
    assert status == 0 and len(records) == 10 and {r["outcome"] for r in records} == {"ok"}
    # every run spent within the cap; together they paid each sample about once (an empty
    # answer is never cached, so a server's empty reply is asked again)
    assert all(sum(r["spent_usd"] for r in e[2]) <= CAP for e in ends)


def test_the_plan_says_when_it_alone_would_pass_the_cap():
    plan = [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider", *COMMAND,
            "--base-url", "http://127.0.0.1:9/v1", "--plan"]
    done = subprocess.run(plan, cwd=ROOT, env=child_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
    assert re.search(r"--max-cost 0.5 USD: the plan's [0-9.]+ USD would pass it", done.stdout)
    within = subprocess.run([*plan[:-1], "--max-cost", "100", "--plan"], cwd=ROOT,
                            env=child_env(), capture_output=True, text=True, timeout=300)
    assert "--max-cost 100 USD: the plan's" in within.stdout and "stays within" in within.stdout


def test_a_cap_on_a_model_without_a_price_is_one_line():
    done = subprocess.run([sys.executable, "-m", "pytest", "benchmarks", "-p",
                           "no:cacheprovider", "-m", "ruler", "--model", "my-local-model",
                           "--base-url", "http://127.0.0.1:9/v1", "--max-cost", "5"],
                          cwd=ROOT, env=child_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 4
    assert "ERROR: --max-cost 5: my-local-model: no list price known" in done.stderr
