"""Agreement of an LLM judge with the deterministic one, from records (issue 12, the judge)."""

import pandas as pd
import pytest

from benchmarks.niah import agreement, plots, scoring


def frame(pairs, judge="gpt-4.1", extra=()):
    rows = [{"outcome": "ok", "details.judge.name": judge, "scores.correct": llm,
             "scores.contains_answer": rule} for llm, rule in pairs]
    return pd.DataFrame(rows + list(extra))


def test_cohen_kappa_by_hand():
    # observed 0.75; chance 0.5 x 0.25 + 0.5 x 0.75 = 0.5; kappa (0.75 - 0.5) / 0.5
    assert agreement.cohen_kappa([True, True, False, False],
                                 [True, False, False, False]) == pytest.approx(0.5)
    assert agreement.cohen_kappa([True] * 3, [True] * 3) is None  # undefined, not 1 or 0
    assert agreement.cohen_kappa([], []) is None


def test_the_issues_numbers():
    # 88 answers, 84 agreements (95.5%): 4 accepted only by the LLM judge (inflections)
    pairs = [(True, True)] * 40 + [(False, False)] * 44 + [(True, False)] * 4
    row, = agreement.judge_agreement(frame(pairs))
    assert row["n"] == 88 and row["agreement_percent"] == 95.5
    assert row["judge_only_true"] == 4 and row["deterministic_only_true"] == 0
    assert row["kappa"] == pytest.approx(0.909, abs=0.001)
    assert "95.5%" in agreement.describe(row) and "n=88" in agreement.describe(row)


def test_only_llm_judges_are_compared_and_unparsable_verdicts_are_counted_apart():
    deterministic = frame([(True, True)] * 5, judge=scoring.DETERMINISTIC_JUDGE["name"])
    assert agreement.judge_agreement(deterministic) == []
    skipped = {"outcome": "skipped", "details.judge.name": None, "scores.correct": None,
               "scores.contains_answer": None}
    unparsable = {"outcome": "ok", "details.judge.name": "gpt-4.1", "scores.correct": None,
                  "scores.contains_answer": True}
    row, = agreement.judge_agreement(frame([(True, True), (False, True)],
                                           extra=[skipped, unparsable]))
    assert (row["n"], row["unparsable"], row["deterministic_only_true"]) == (2, 1, 1)


def test_the_renderer_writes_the_agreement_when_an_llm_judge_ran(tmp_path):
    rows = frame([(True, True), (True, False)]).assign(**{
        "params.mode": "seq", "params.distractors": 0, "params.length": 500,
        "params.depth": 50, "model.name": "m"})
    paths = plots.render(rows, tmp_path)
    assert tmp_path / "judge_agreement.md" in paths and tmp_path / "judge_agreement.csv" in paths
    assert "gpt-4.1 agrees with the deterministic judge on 50.0%" in \
        (tmp_path / "judge_agreement.md").read_text()
    assert agreement.write(frame([]), tmp_path / "none") == []


def test_the_agreement_is_a_finding_of_the_run_for_summary_json_and_the_terminal():
    from benchmarks.niah import EXPERIMENT
    from reporting.render.run_files import findings_of

    pairs = [(True, True)] * 40 + [(False, False)] * 44 + [(True, False)] * 4
    found = findings_of(frame(pairs).assign(experiment="niah"), {"niah": EXPERIMENT})
    (row,) = found["niah"]["judge_agreement"]
    assert row["agreement_percent"] == 95.5 and row["kappa"] == pytest.approx(0.909, abs=1e-3)
    assert found["niah"]["lines"] == [agreement.describe(row)]
    deterministic = frame([(True, True)] * 3, judge=scoring.DETERMINISTIC_JUDGE["name"])
    assert findings_of(deterministic.assign(experiment="niah"), {"niah": EXPERIMENT}) == {}
