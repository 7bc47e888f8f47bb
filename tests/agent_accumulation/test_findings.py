"""The paired findings read records: each condition against full and a native one against its
twin on the same ledgers, one rule for an overflow, the length reached, the server's work."""

from __future__ import annotations

import pandas as pd

from benchmarks.agent_accumulation import EXPERIMENT, scoring
from reporting.analysis.summary import summarize


def record(condition, index, exact, outcome="ok", reached=8000, server=None):
    found = {"params.mode": "live", "params.condition": condition, "params.length": 8192,
             "params.needles": 2, "params.index": index, "params.seed": 0, "params.pages": 10,
             "scores.exact": exact, "scores.id_f1": float(exact), "outcome": outcome,
             "details.episode_end": "overflow" if outcome == "overflow" else "submitted",
             "details.accumulated_tokens": reached, "experiment": EXPERIMENT.name,
             "latency_s": 0.0}
    for name, value in (server or {}).items():
        found[f"details.server_context.{name}"] = value
    return found


def test_an_overflow_is_never_scored_in_the_headline_or_a_pair():
    frame = pd.DataFrame(
        [record("full", i, True) for i in range(4)] + [record("full", 4, False, "overflow")]
        + [record("clear:2", i, i != 0, reached=2000) for i in range(5)])
    found = scoring.findings(frame)
    pair = found["conditions"]["clear:2"]
    assert pair["pairs"] == 4 and pair["overflowed"] == 1  # the overflowed ledger left out
    assert pair["full"]["correct"] == 4 and pair["clear:2"]["correct"] == 3
    assert any("clear:2 vs full, 4 ledgers" in line and "1 left out: an overflow" in line
               for line in found["lines"])
    # the headline reads ok records only: the same rule
    rows = {row["cell"]["condition"]: row for row in summarize(frame, EXPERIMENT)}
    assert rows["full"]["n"] == 4 and rows["full"]["mean"] == 1.0
    assert rows["full"]["outcomes"]["overflow"] == 1
    assert found["reached"]["clear:2"] == {8192: 2000}
    assert "live clear:2, median accumulated length: 8.0k reached 2.0k" in found["lines"]


def test_a_native_condition_is_paired_with_full_and_its_twin_and_its_server_work_summed():
    server = {"cleared_tool_uses": 9, "cleared_input_tokens": 1000, "compactions": 0}
    frame = pd.DataFrame(
        [record("full", i, True) for i in range(3)]
        + [record("clear:2", i, i > 0) for i in range(3)]
        + [record("anthropic-clear:2", i, True, server=server) for i in range(3)])
    found = scoring.findings(frame)
    assert found["conditions"]["anthropic-clear:2"]["pairs"] == 3
    twin = found["twins"]["anthropic-clear:2"]
    assert twin["clear:2"]["correct"] == 2 and twin["anthropic-clear:2"]["correct"] == 3
    assert found["server_context"]["anthropic-clear:2"] == {
        "episodes": 3, "cleared_tool_uses": 27, "cleared_input_tokens": 3000, "compactions": 0}
    assert any(line.startswith("anthropic-clear:2 vs clear:2, 3 ledgers: exact 3/3")
               for line in found["lines"])
