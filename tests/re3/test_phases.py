"""Phases 2 and 3 choose from the earlier phase's records in the results store."""

import json
import re
import sqlite3
from pathlib import Path

import pytest

from benchmarks.re3 import phases
from benchmarks.re3.summary import summary_table
from tests.doubles.scripted_server import ScriptedServer
from reporting.storage.store import ResultsStore, records_frame
from tests.re3.test_summary import record

ROOT = Path(__file__).resolve().parents[2]
PHASE1_ACCURACY = {  # config -> correct answers out of 4
    "C01": 1, "C02": 0, "C03": 2, "C04": 3, "C05": 1, "C06": 0, "C07": 2, "C08": 0,
    "C09": 4, "C10": 2, "C11": 0, "C12": 3, "C13": 1, "C14": 0}
PATTERNS = {"C01": "A", "C02": "B", "C03": "AA", "C04": "AB", "C05": "BA", "C06": "BB",
            "C07": "AAA", "C08": "AAB", "C09": "ABA", "C10": "ABB", "C11": "BAA", "C12": "BAB",
            "C13": "BBA", "C14": "BBB"}


def phase1_records(run_id="p1"):
    out = []
    for config, right in PHASE1_ACCURACY.items():
        strategy = "camelcase" if "B" in PATTERNS[config] else "none"
        for k in range(4):
            r = record(config, PATTERNS[config], strategy, f"i{k}", k < right)
            r.run_id = run_id
            out.append(r)
    return out


def test_phase2_takes_the_five_best_with_ties_to_the_lower_id():
    summary = summary_table(records_frame(phase1_records()))
    # C09 4/4; C04, C12 3/4; then C03, C07, C10 tie at 2/4: C03 and C07 go in
    assert phases.top_configurations(summary, 5) == ["C09", "C04", "C12", "C03", "C07"]


def test_phase3_takes_the_best_strategy_then_the_best_configurations_under_it():
    rows = []
    for config, scores in {("C04", "camelcase"): 1, ("C04", "digitspace"): 4,
                           ("C09", "camelcase"): 2, ("C09", "digitspace"): 2,
                           ("C12", "camelcase"): 4, ("C12", "digitspace"): 1,
                           ("C03", "none"): 3, ("C01", "none"): 0}.items():
        rows += [record(config[0], PATTERNS[config[0]], config[1], f"i{k}", k < scores, phase=2)
                 for k in range(4)]
    summary = summary_table(records_frame(rows))
    # pooled over the configurations with B, camelcase and digitspace tie at 7/12: B1 wins
    assert phases.best_strategy(summary) == "camelcase"
    strategy, configs = phases.top_under_best_strategy(summary, 3)
    assert strategy == "camelcase" and configs == ["C12", "C03", "C09"]


def store_with(tmp_path, records, run_id):
    store = ResultsStore(tmp_path / "contextrot.sqlite")
    store.begin_run(run_id, {})
    for r in records:
        store.add(r)
    store.close()
    return tmp_path / "contextrot.sqlite"


def test_select_reads_the_newest_complete_phase_from_the_store(tmp_path):
    database = store_with(tmp_path, phase1_records("full-p1"), "full-p1")
    smoke = record("C04", "AB", "camelcase", "i0", True)
    smoke.run_id = "smoke"
    store_with(tmp_path, [smoke], "smoke")  # newer, but one configuration is not a phase 1
    selection = phases.select(2, database, 5, exclude_run="now")
    assert selection.source_run == "full-p1"
    assert selection.configs == ("C09", "C04", "C12", "C03", "C07")
    named = phases.select(2, database, 5, exclude_run="now", from_run="full-p1")
    assert named == selection


def test_a_missing_earlier_phase_says_what_to_do(tmp_path):
    with pytest.raises(phases.PhaseUnavailable, match=r"no results store.*--re3-phase 1"):
        phases.select(2, tmp_path / "none.sqlite", 5, exclude_run="now")
    database = store_with(tmp_path, phase1_records("p1"), "p1")
    with pytest.raises(phases.PhaseUnavailable, match=r"needs phase 2's results.*--re3-phase 2"):
        phases.select(3, database, 3, exclude_run="now")
    with pytest.raises(phases.PhaseUnavailable, match=r"run 'other'.*fewer than 5"):
        phases.select(2, database, 5, exclude_run="now", from_run="other")


# -- end to end: phase 1 then phase 2 against a scripted server over real HTTP ------------------
def camelcase_reader(request):
    """Right on GSM8K item 0 (gold 18) exactly when the prompt holds a camelCase join."""
    text = request["messages"][-1]["content"]
    return "\\boxed{18}" if re.search(r"[a-z][A-Z]", text) else "\\boxed{0}"


def inner_pytest(pytester, server, *args):
    return pytester.runpytest_subprocess(
        str(ROOT / "benchmarks" / "re3"), "--rootdir", str(ROOT),
        "-c", str(ROOT / "pyproject.toml"),
        "--model", "scripted", "--base-url", server.base_url, "-p", "no:cacheprovider",
        "--results-dir", str(pytester.path / "results"), "--re3-gsm8k-items", "1", *args)


def stored_params(pytester, run_id):
    with sqlite3.connect(pytester.path / "results" / "contextrot.sqlite") as db:
        rows = db.execute("SELECT record FROM samples WHERE run_id = ?", (run_id,)).fetchall()
    return [json.loads(r[0]) for r in rows]


def test_phase2_after_phase1_picks_from_phase1s_records(pytester):
    with ScriptedServer(camelcase_reader) as server:
        missing = inner_pytest(pytester, server, "--re3-phase", "2")
        # re3's one placeholder case fails with the reason in one line (another experiment
        # selected beside it would still run)
        assert missing.ret != pytest.ExitCode.OK
        missing.stdout.fnmatch_lines(["re3: re3 phase 2 needs phase 1's results, but "
                                      "there is no results store at*--re3-phase 1*"])
        missing.assert_outcomes(errors=1)

        first = inner_pytest(pytester, server, "--run-id", "one")
        first.assert_outcomes(passed=14)
        records = stored_params(pytester, "one")
        assert len(records) == 14
        some = next(r for r in records if r["params"]["config_id"] == "C09")
        for field in ("prompt_a", "prompt_b", "assembled_prompt", "expected_answer",
                      "extracted_answer"):
            assert field in some["details"]
        assert some["scores"]["correct"] is True and some["details"]["extracted_answer"] == "18"
        assert (pytester.path / "results" / "one" / "plots" / "re3" / "summary.csv").exists()

        second = inner_pytest(pytester, server, "--run-id", "two", "--re3-phase", "2",
                              "--re3-strategies", "camelcase,digitspace")
        second.assert_outcomes(passed=2 + 5 * 2)
    runs = {(r["params"]["config_id"], r["params"]["b_strategy"])
            for r in stored_params(pytester, "two")}
    # B-using configurations scored 1/1 and A-only ones 0/1: the five lowest B ids win
    top = ("C02", "C04", "C05", "C06", "C08")
    assert runs == {(c, s) for c in top for s in ("camelcase", "digitspace")} | \
        {("C01", "none"), ("C03", "none")}
    assert {r["details"]["selected_from_run"] for r in stored_params(pytester, "two")} == {"one"}
