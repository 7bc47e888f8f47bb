"""``--shard K/N``: a deterministic partition of the collected tests, the same in every process."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from reporting.sharding import shard_of

ROOT = Path(__file__).resolve().parents[2]
MODULE = """
import pytest

@pytest.mark.parametrize("case", [f"c{i:03d}" for i in range(60)])
def test_case(case):
    pass
"""


def _selected(pytester, *args: str) -> set[str]:
    result = pytester.runpytest_subprocess("-p", "reporting.sharding", "-p", "no:cacheprovider",
                                           "-q", "--collect-only", *args)
    return {line for line in result.outlines if "::test_case[" in line}


def test_the_owner_of_a_node_id_is_fixed_by_its_sha256():
    # pinned: a stored shard must mean the same samples on every machine and release
    assert [shard_of(f"t.py::test[{i}]", 4) for i in range(8)] == [1, 3, 4, 3, 4, 1, 4, 1]
    code = "from reporting.sharding import shard_of; print(shard_of('t.py::test[1]', 4))"
    for seed in ("0", "123"):  # not hash(), which Python salts per process
        other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env={"PYTHONHASHSEED": seed}, cwd=ROOT, check=True)
        assert other.stdout.strip() == "3"


def test_shards_partition_the_tests_whatever_the_order_or_the_k_filter(pytester):
    pytester.makepyfile(test_cases=MODULE)
    everything = _selected(pytester)
    shares = [_selected(pytester, "--shard", f"{k}/3") for k in (1, 2, 3)]
    assert set().union(*shares) == everything and len(everything) == 60
    assert sum(len(s) for s in shares) == 60 and all(10 <= len(s) <= 30 for s in shares)
    # -k only removes tests: every remaining test stays in the share it had
    filtered = _selected(pytester, "--shard", "2/3", "-k", "c00 or c01 or c02")
    assert filtered == {t for t in shares[1] if re.search(r"\[c0[0-2]\d\]", t)}


def test_every_xdist_worker_deselects_the_same_tests(pytester):
    pytester.makepyfile(test_cases=MODULE)
    result = pytester.runpytest_subprocess("-p", "reporting.sharding", "-p", "no:cacheprovider",
                                           "-n", "2", "--shard", "1/3", "-rA")
    passed = {line.split()[1] for line in result.outlines if line.startswith("PASSED")}
    assert passed == _selected(pytester, "--shard", "1/3")
    result.assert_outcomes(passed=len(passed))  # xdist does not report workers' deselections


@pytest.mark.parametrize("text", ["0/3", "4/3", "1-3", "a/b", "3"])
def test_a_malformed_shard_is_a_usage_error(pytester, text):
    pytester.makepyfile(test_cases=MODULE)
    result = pytester.runpytest_subprocess("-p", "reporting.sharding", "--shard", text)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "write K/N with 1 <= K <= N" in "\n".join(result.errlines)
