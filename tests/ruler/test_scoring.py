"""RULER's metrics, its per-length score, wAvg and effective length (spec section 4), checked
against the published table (section 5)."""

from __future__ import annotations

import pandas as pd
import pytest

from benchmarks.ruler import published, results, scoring

K = 1024
LENGTHS = [4 * K, 8 * K, 16 * K, 32 * K, 64 * K, 128 * K]
# model: (claimed, effective length, 4K..128K, Avg, wAvg inc, wAvg dec): RULER's README rows,
# as the report and leaderboard show them beside a comparable run
PUBLISHED = published.ROWS


@pytest.mark.parametrize("model", PUBLISHED)
def test_avg_wavg_and_effective_length_reproduce_the_published_rows(model):
    _, effective, scores, average, increasing, decreasing = PUBLISHED[model]
    assert sum(scores) / len(scores) == pytest.approx(average, abs=0.1)
    assert results.weighted_average(scores, True) == pytest.approx(increasing, abs=0.1)
    assert results.weighted_average(scores, False) == pytest.approx(decreasing, abs=0.1)
    found = results.effective_length(scores, LENGTHS)
    assert published.effective_label(found, found == LENGTHS[-1]) == effective


def test_the_bar_is_inclusive():
    assert results.effective_length([85.6, 85.5], LENGTHS[:2]) == 4 * K
    assert results.effective_length([85.5, 99.0], LENGTHS[:2]) == 0


def test_postprocessing_and_the_two_metrics():
    assert scoring.postprocess("  1234567\tand\x00 7654321 \n") == "1234567\nand\n 7654321"
    assert scoring.string_match_all("The numbers are 1234567 and 7654321.",
                                    ["1234567", "7654321", "1111111", "2222222"]) == 0.5
    assert scoring.string_match_all("QUIZZICAL-AARDVARK", ["quizzical-aardvark"]) == 1.0
    assert scoring.string_match_all("category", ["cat"]) == 1.0  # RULER is lenient
    assert scoring.string_match_part("It was Paris, France.", ["London", "paris"]) == 1.0
    assert scoring.string_match_part("Rome", ["London", "paris"]) == 0.0
    assert scoring.score("qa_1", " Paris", ["paris", "Paris, France"]) == \
        {"score": 1.0, "found": 1}
    assert scoring.score("niah_multivalue", "1 2", ["1", "2", "3", "4"])["score"] == 0.5


def frame(rows: list[tuple[str, int, float]], outcome: str = "ok") -> pd.DataFrame:
    return pd.DataFrame([{"experiment": "ruler", "outcome": outcome, "params.task": task,
                          "params.length": length, "scores.score": value}
                         for task, length, value in rows])


def test_a_length_score_is_the_mean_of_the_task_scores_not_of_the_samples():
    rows = [("niah_single_1", 4 * K, 1.0)] * 4 + [("vt", 4 * K, 0.0)] * 1 \
        + [("niah_single_1", 8 * K, 1.0)] * 2 + [("vt", 8 * K, 0.5)] * 2
    found = results.findings(frame(rows))
    by_length = {row["length"]: row for row in found["by_length"]}
    assert by_length[4 * K]["score"] == 50.0  # the pooled mean would be 80
    assert not by_length[4 * K]["equal_counts"] and by_length[8 * K]["equal_counts"]
    assert by_length[8 * K]["score"] == 75.0
    assert any("different scored counts, or none, at 4K:" in line for line in found["lines"])
    assert "2 of RULER's 13 tasks" in found["comparable"]


def test_unscored_samples_are_left_out_and_the_interval_brackets_the_score():
    rows = [(task, 4 * K, float(i % 2)) for task in ("cwe", "fwe") for i in range(20)]
    both = pd.concat([frame(rows), frame([("cwe", 4 * K, None)], outcome="overflow")])
    (row,) = results.findings(both)["by_length"]
    assert row["score"] == 50.0 and row["samples"] == 40
    assert row["low"] < 50.0 < row["high"]


def test_the_effective_length_over_lengths_and_its_censoring():
    rows = [("cwe", length, value) for length, value in
            ((4 * K, 1.0), (8 * K, 0.9), (16 * K, 0.5), (32 * K, 0.95)) for _ in range(3)]
    effective = results.findings(frame(rows))["effective_length"]
    assert effective["value"] == 8 * K and not effective["censored"]
    everything = results.findings(frame([("cwe", 4 * K, 1.0)] * 3))["effective_length"]
    assert everything["value"] == 4 * K and everything["censored"]


def test_task_scores_are_rounded_as_rulers_before_the_bar_and_the_averages():
    # 85.5951 rounds to 85.6: RULER's bar passes on the rounded task score; the interval and
    # the unrounded value stay unrounded
    rows = [("cwe", 4 * K, 0.855951)] * 3 + [("cwe", 8 * K, 0.855949)] * 3
    found = results.findings(frame(rows))
    by_length = {row["length"]: row for row in found["by_length"]}
    assert by_length[4 * K]["score"] == 85.6 and by_length[4 * K]["unrounded"] == 85.5951
    assert by_length[8 * K]["score"] == 85.59
    assert found["effective_length"]["value"] == 4 * K
    assert found["avg"]["value"] == round((85.6 + 85.59) / 2, 2)
    (task,) = [row for row in found["by_task"] if row["length"] == 4 * K]
    assert task["score"] == 85.6 and task["unrounded"] == 85.5951


def test_the_verdict_reads_rulers_curve_the_mean_of_the_task_means():
    """The shared verdict machinery with the tasks as its stratum: RULER's per-length
    numbers, unrounded, whatever each task's count."""
    from benchmarks.ruler import EXPERIMENT
    from reporting.analysis.verdict_settings import VerdictSettings
    from reporting.analysis.verdicts import verdict

    rows = [("niah_single_1", 4 * K, 1.0)] * 4 + [("vt", 4 * K, 0.0)] * 1 \
        + [("niah_single_1", 8 * K, 1.0)] * 2 + [("vt", 8 * K, 0.5)] * 2 \
        + [("cwe", 8 * K, 0.3)] * 3
    found = results.findings(frame(rows))
    judged = verdict(frame(rows), EXPERIMENT, VerdictSettings(min_samples=1))
    assert [round(100 * mean, 4) for mean in judged.means] == \
        [row["unrounded"] for row in found["by_length"]] == [50.0, 60.0]
    assert judged.counts == [row["samples"] for row in found["by_length"]] == [5, 7]


def test_the_intervals_on_the_shared_bootstrap_are_those_of_a_bootstrap_within_tasks():
    """RULER's intervals now come from the verdicts' bootstrap (scipy's, seeded); the same
    resampling drawn by hand, within each task, gives the same interval to within a point."""
    import numpy as np

    rng = np.random.default_rng(7)
    scores = {task: rng.choice([0.0, 0.25, 0.5, 1.0], size=40) for task in ("cwe", "fwe", "vt")}
    rows = [(task, 4 * K, float(v)) for task, values in scores.items() for v in values]
    (row,) = results.findings(frame(rows))["by_length"]
    draws = np.random.default_rng(0)
    replicates = np.mean([values[draws.integers(0, 40, size=(4000, 40))].mean(axis=1)
                          for values in scores.values()], axis=0) * 100
    low, high = np.percentile(replicates, [2.5, 97.5])
    assert row["low"] == pytest.approx(low, abs=1.0) and row["high"] == pytest.approx(high, abs=1.0)
