"""Verdicts from records with known curves: effective lengths, areas, intervals, the gate."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from reporting.gating import gate
from reporting.experiments import Experiment
from reporting.storage.store import records_frame
from reporting.analysis.verdict_settings import SettingsError, VerdictSettings, parse_absolute
from reporting.analysis.verdicts import NO_LENGTH_AXIS, verdict

from .helpers import open_store, record, store_run

RATE = Experiment(name="toy_len", title="a 0/1 score by input length", cell=("params.length",),
                  metric="scores.accuracy", metric_kind="rate", length="params.length")
FLAT = Experiment(name="toy_flat", title="no length axis", cell=("params.length",),
                  metric="scores.accuracy", metric_kind="rate")
LOWER = Experiment(name="toy_lower", title="lower is better", cell=("params.length",),
                   metric="scores.similarity", metric_kind="mean", higher_is_better=False,
                   length="params.length")
LENGTHS = (1000, 2000, 4000, 8000, 16000, 32000)


def curve_records(experiment: Experiment, means: dict[int, float], size: int = 20,
                  run_id: str = "r1"):
    """``size`` samples per length whose mean is exactly ``means[length]``: a rate gets
    round(mean x size) right answers, a continuous score ``size`` copies of the mean."""
    out = []
    for length, mean in means.items():
        for i in range(size):
            value = int(i < round(mean * size)) if experiment.metric_kind == "rate" else mean
            out.append(record(run_id, experiment, length, i, value))
    return out


def judged(experiment, means, settings=VerdictSettings(), size=20):
    return verdict(records_frame(curve_records(experiment, means, size)), experiment, settings)


def test_a_known_curve_gives_its_effective_lengths_and_area():
    means = dict(zip(LENGTHS, (1.0, 1.0, 0.9, 0.8, 0.6, 0.3)))
    found = judged(RATE, means, VerdictSettings(absolute=(("", 0.75),)))
    # base: the shortest quarter of six lengths (two), mean 1.0; 0.85 x 1.0 holds to 4,000
    assert found.base_lengths == [1000, 2000] and found.base.value == 1.0
    assert found.effective_length.value == 4000 and not found.effective_length_censored
    assert found.absolute_effective_length.value == 8000  # 0.8 >= 0.75 > 0.6
    # equal steps in log(length): the normalised trapezoid is the mean of the step midpoints
    assert found.length_auc.value == pytest.approx((1.0 + 0.95 + 0.85 + 0.7 + 0.45) / 5)
    assert found.n == 120 and found.counts == [20] * 6 and found.lengths == list(LENGTHS)
    for estimate in (found.effective_length, found.absolute_effective_length):
        assert estimate.low <= estimate.value <= estimate.high
        assert {estimate.low, estimate.high} <= {0, *LENGTHS}  # on the grid, not interpolated
    assert found.length_auc.low < found.length_auc.value < found.length_auc.high
    assert found.length_auc.high - found.length_auc.low < 0.15


def test_the_area_weighs_lengths_by_log_distance():
    found = judged(RATE, {100: 1.0, 1000: 1.0, 100_000: 0.0})
    # one decade at 1.0, then two decades falling linearly to 0: (1 + 2 x 0.5) / 3
    assert found.length_auc.value == pytest.approx(2 / 3)


def test_the_relative_rule_takes_the_first_failure_not_a_later_recovery():
    found = judged(RATE, {1000: 1.0, 2000: 0.5, 4000: 1.0, 8000: 1.0})
    assert found.effective_length.value == 1000


def test_a_model_that_never_degrades_is_censored_at_the_longest_length():
    found = judged(RATE, dict.fromkeys(LENGTHS, 1.0))
    assert found.effective_length.value == 32000 and found.effective_length_censored
    assert (found.effective_length.low, found.effective_length.high) == (32000, 32000)
    assert found.length_auc.value == 1.0
    assert "effective length, relative: >= 32,000 [32,000, 32,000]" in found.text()


def test_failing_the_bar_at_the_shortest_length_is_an_effective_length_of_zero():
    found = judged(RATE, dict.fromkeys((1000, 2000, 4000), 0.2))
    assert found.absolute == 0.85  # the default bar of a 0/1 metric
    assert found.absolute_effective_length.value == 0
    assert "effective length, absolute: < 1,000" in found.text()
    assert found.effective_length.value == 4000  # relative to its own 0.2, it holds


def test_lower_is_better_allows_a_rise_of_at_most_fifteen_percent():
    found = judged(LOWER, {1000: 10.0, 2000: 10.5, 4000: 12.0, 8000: 20.0})
    assert found.base_lengths == [1000] and found.effective_length.value == 2000  # 12 > 11.5
    assert found.absolute is None and found.absolute_effective_length is None
    lowered = judged(LOWER, {1000: 10.0, 2000: 10.5, 4000: 12.0, 8000: 20.0},
                     VerdictSettings(absolute=(("toy_lower", 12.0),)))
    assert lowered.absolute_effective_length.value == 4000


def test_an_experiment_without_a_length_axis_says_so_and_gives_its_mean():
    found = judged(FLAT, {1000: 1.0, 2000: 0.5})
    assert found.note == NO_LENGTH_AXIS and found.effective_length is None
    assert found.overall.value == 0.75 and found.n == 40
    assert found.text().startswith(f"verdict: {NO_LENGTH_AXIS}; accuracy over all cells 0.750")


def test_unscored_samples_are_counted_out_and_their_lengths_named():
    records = curve_records(RATE, {1000: 1.0, 2000: 0.9})
    records += [record("r1", RATE, 4000, i, None, outcome="overflow") for i in range(3)]
    found = verdict(records_frame(records), RATE)
    assert found.lengths == [1000, 2000] and found.unscored_lengths == [4000]
    assert found.n == 40


def test_intervals_are_seeded_and_widen_with_fewer_samples():
    means = dict(zip(LENGTHS, (1.0, 0.95, 0.9, 0.85, 0.7, 0.5)))
    first, again = judged(RATE, means), judged(RATE, means)
    assert first.to_dict() == again.to_dict()
    few = judged(RATE, means, VerdictSettings(min_samples=5), size=5)
    width = lambda v: v.length_auc.high - v.length_auc.low  # noqa: E731
    assert width(few) > width(first)


def test_a_lone_sample_at_a_length_is_its_own_bootstrap():
    found = judged(RATE, {1000: 1.0, 2000: 0.0}, VerdictSettings(min_samples=1), size=1)
    assert found.effective_length.value == 1000
    assert (found.length_auc.low, found.length_auc.high) == (0.5, 0.5)


@pytest.mark.parametrize("count, expected", [(1, 1), (4, 1), (5, 2), (12, 3)])
def test_the_base_is_the_shortest_quarter_of_the_lengths(count, expected):
    assert VerdictSettings().base_count(count) == expected
    assert VerdictSettings(base_lengths=3).base_count(count) == min(3, count)


def test_verdict_options_parse_and_refuse_nonsense():
    assert parse_absolute("0.5") == ("", 0.5) and parse_absolute("niah=0.7") == ("niah", 0.7)
    settings = VerdictSettings(absolute=(("", 0.5), ("toy_len", 0.9)))
    assert settings.absolute_for(RATE) == 0.9 and settings.absolute_for(LOWER) == 0.5
    with pytest.raises(SettingsError, match="EXPERIMENT=VALUE"):
        parse_absolute("niah=high")
    with pytest.raises(SettingsError, match="fraction"):
        VerdictSettings(relative=85)


# -- no verdict from data that cannot support one -----------------------------------------
GUESS = dataclasses.replace(RATE, name="toy_guess", chance=0.0)  # open answers: 0 by guessing
CHOICE = dataclasses.replace(RATE, name="toy_choice", chance=0.25)  # four options


def test_a_base_at_chance_gives_no_relative_verdict_but_keeps_the_fixed_bar():
    found = judged(GUESS, dict.fromkeys((500, 1000, 5000), 0.0))
    assert found.effective_length is None and found.base.value == 0
    assert found.no_verdict == {"effective_length": "base score 0"}
    text = found.text()
    assert "effective length, relative: no verdict (base score 0): the mean at 500 is at or " \
        "below chance (0)" in text
    # the absolute bar does not read the base: the model is below it from the shortest length
    assert found.absolute_effective_length.value == 0
    assert "effective length, absolute: < 500" in text
    assert found.length_auc.value == 0
    assert found.to_dict()["no_verdict"] == {"effective_length": "base score 0"}
    assert found.to_dict()["effective_length"] is None


def test_at_chance_is_at_or_below_the_declared_level():
    at = judged(CHOICE, dict.fromkeys((1000, 2000, 4000), 0.25))
    assert at.no_verdict["effective_length"] == "base score 0.25"
    above = judged(CHOICE, {1000: 0.5, 2000: 0.45, 4000: 0.25})
    assert above.effective_length.value == 2000 and not above.no_verdict


def test_a_base_of_zero_supports_no_relative_rule_even_without_a_chance_level():
    found = judged(RATE, dict.fromkeys((1000, 2000), 0.0))  # RATE declares no chance
    assert found.no_verdict == {"effective_length": "base score 0"}
    assert "at or below 0," in found.text()


def test_lower_is_better_is_at_chance_at_or_above_it():
    noisy = dataclasses.replace(LOWER, chance=10.0)
    found = judged(noisy, {1000: 10.0, 2000: 10.5, 4000: 12.0})
    assert found.no_verdict == {"effective_length": "base score 10",
                                "absolute_effective_length": "no bar for this metric"}
    assert judged(noisy, {1000: 8.0, 2000: 9.0}).effective_length.value == 2000


def test_a_bar_at_or_below_chance_is_no_bar():
    found = judged(CHOICE, {1000: 0.9, 2000: 0.5}, VerdictSettings(absolute=(("", 0.2),)))
    assert found.no_verdict == {"absolute_effective_length": "bar 0.2 at or below chance 0.25"}
    assert found.effective_length.value == 1000


def test_lengths_with_too_few_samples_are_left_out_and_named():
    records = curve_records(RATE, {1000: 1.0, 4000: 1.0})
    records += curve_records(RATE, {2000: 0.0}, size=9)  # one short of the default ten
    found = verdict(records_frame(records), RATE)
    assert found.lengths == [1000, 4000] and found.counts == [20, 20]
    assert (found.thin_lengths, found.thin_counts) == ([2000], [9])
    assert found.effective_length.value == 4000 and found.effective_length_censored
    assert found.n == 49  # the overall mean still reads every scored sample
    assert "lengths left out, fewer than 10 scored samples: 2,000: 9" in found.text()
    assert "n=40 scored samples over 2 lengths" in found.text()
    lowered = verdict(records_frame(records), RATE, VerdictSettings(min_samples=9))
    assert lowered.lengths == [1000, 2000, 4000] and lowered.effective_length.value == 1000


def test_too_few_samples_at_every_length_is_no_verdict():
    found = judged(GUESS, {500: 1.0, 1000: 0.5, 5000: 0.0}, size=2)
    assert found.refusal() == "too few samples" and found.lengths == []
    assert found.effective_length is found.absolute_effective_length is found.length_auc is None
    assert found.text() == ("verdict: no verdict (too few samples): every scored length has "
                            "fewer than 10 scored samples (500: 2, 1,000: 2, 5,000: 2); run "
                            "more samples or lower --verdict-min-samples (n=6)")
    assert found.to_dict()["no_verdict"] == dict.fromkeys(
        ("effective_length", "absolute_effective_length", "length_auc"), "too few samples")
    # too few samples comes first: a base at chance from two samples is not known either
    assert judged(GUESS, dict.fromkeys((500, 1000), 0.0), size=2).refusal() == \
        "too few samples"


def test_no_length_scored_is_no_verdict():
    records = [record("r1", RATE, 1000, i, None, outcome="overflow") for i in range(3)]
    found = verdict(records_frame(records), RATE)
    assert found.refusal() == "no length scored" and found.unscored_lengths == [1000]
    assert found.text().startswith("verdict: no verdict (no length scored)")


def test_a_single_length_has_no_area():
    found = judged(RATE, {1000: 1.0})
    assert found.no_verdict == {"length_auc": "one length"}
    assert "length AUC: no verdict (one length)" in found.text()


def test_the_minimum_sample_count_is_an_option_with_a_sane_range():
    from reporting.analysis.verdict_settings import MIN_SAMPLES, from_run_options
    assert VerdictSettings().min_samples == MIN_SAMPLES == 10
    assert from_run_options({"verdict_min_samples": 3}).min_samples == 3
    assert from_run_options({}).min_samples == 10  # a run stored before the option existed
    with pytest.raises(SettingsError, match="--verdict-min-samples 0: give at least 1"):
        VerdictSettings(min_samples=0)


# -- the gate on verdicts ------------------------------------------------------------------
EXPERIMENTS = {RATE.name: RATE, FLAT.name: FLAT}


def _gate(base_means, cand_means, threshold, tmp_path, experiment=RATE, size=20):
    store = open_store(tmp_path)
    store_run(store, "base", curve_records(experiment, base_means, size, run_id="base"))
    baseline = gate.load_baseline("base", store)
    frame = records_frame(curve_records(experiment, cand_means, size, run_id="cand"))
    return gate.evaluate([gate.parse_threshold(threshold)], baseline, baseline.identity, frame,
                         {**EXPERIMENTS, experiment.name: experiment})


def test_the_gate_fails_a_run_whose_effective_length_shrank(tmp_path):
    good = dict(zip(LENGTHS, (1.0, 1.0, 1.0, 0.95, 0.9, 0.9)))
    worse = dict(zip(LENGTHS, (1.0, 1.0, 0.9, 0.5, 0.3, 0.2)))
    verdict_ = _gate(good, worse, "toy_len.effective_length:-20%", tmp_path)
    assert verdict_.exit_status == gate.REGRESSION_EXIT
    (check,) = verdict_.checks
    assert (check.delta.baseline, check.delta.candidate) == (32000, 4000)
    assert check.delta.test == "paired bootstrap" and check.delta.pairs == 120
    assert check.delta.ci_high < 0 and check.delta.p < 0.05  # the baseline wobbles too
    text = "\n".join(line for line, _ in verdict_.lines())
    assert "REGRESSED toy_len effective_length [all lengths]" in text


def test_the_gate_passes_identical_verdicts_and_gates_the_area_too(tmp_path):
    means = dict(zip(LENGTHS, (1.0, 1.0, 0.9, 0.8, 0.6, 0.3)))
    verdict_ = _gate(means, means, "toy_len.length_auc:-0.01", tmp_path)
    assert verdict_.exit_status == 0
    (check,) = verdict_.checks
    assert check.delta.delta == 0 and check.delta.p == 1.0
    assert math.isclose(check.delta.baseline, 0.79)


def test_gating_a_verdict_of_an_experiment_without_a_length_axis_is_a_usage_error():
    with pytest.raises(gate.GateUsageError, match="has no length axis"):
        gate.check_thresholds([gate.parse_threshold("toy_flat.effective_length:-20%")],
                              EXPERIMENTS)


def test_the_paired_bootstrap_keeps_pairs_within_lengths():
    # the same noisy run against itself: every resample moves both sides alike
    rng = np.random.default_rng(3)
    means = {length: float(rng.uniform(0.4, 1.0)) for length in LENGTHS}
    from reporting.gating.compare import paired_scores
    from reporting.analysis.verdicts import paired_delta
    frame = records_frame(curve_records(RATE, means))
    pairs = paired_scores(frame, frame, RATE, RATE.metric, extra=(RATE.length,))
    found = paired_delta(pairs, RATE, "length_auc")
    assert (found.delta, found.ci_low, found.ci_high, found.p) == (0, 0, 0, 1.0)


def test_a_stored_run_is_rejudged_by_the_rules_it_ran_with(tmp_path):
    import json

    from reporting.render.run_files import write_stored_run

    store = open_store(tmp_path)
    means = dict(zip(LENGTHS, (1.0, 1.0, 0.9, 0.8, 0.6, 0.3)))
    store_run(store, "r1", curve_records(RATE, means), info={
        "options": {"verdict_relative": 0.6, "verdict_absolute": ["toy_len=0.5"]},
        "tokenizer": {"name": "o200k_base"}})
    files = write_stored_run(store, "r1", {RATE.name: RATE}, tmp_path / "r1")
    found = json.loads((tmp_path / "r1" / "summary.json").read_text())["verdicts"]["toy_len"]
    assert (found["relative"], found["absolute"]) == (0.6, 0.5)
    assert found["effective_length"]["value"] == 16000  # 0.6 >= 0.6 x 1.0 > 0.3
    assert found["absolute_effective_length"]["value"] == 16000
    assert files.report.exists() and (tmp_path / "r1" / "cells.md").exists()


@pytest.mark.parametrize("base_means, cand_means, threshold, size, reason", [
    # the candidate scored 0 everywhere: its relative effective length does not exist
    ({500: 1.0, 1000: 0.9}, {500: 0.0, 1000: 0.0}, "toy_guess.effective_length:-20%", 20,
     "no verdict (base score 0) in the candidate"),
    ({500: 0.0, 1000: 0.0}, {500: 1.0, 1000: 0.9}, "toy_guess.effective_length:-20%", 20,
     "no verdict (base score 0) in the baseline"),
    # two samples per length: no verdict number at all
    ({500: 1.0, 1000: 0.5}, {500: 1.0, 1000: 0.5}, "toy_guess.length_auc:-0.1", 2,
     "no verdict (too few samples)"),
])
def test_gating_a_verdict_that_does_not_exist_is_not_comparable(
        base_means, cand_means, threshold, size, reason, tmp_path):
    found = _gate(base_means, cand_means, threshold, tmp_path, GUESS, size)
    assert found.exit_status == gate.NOT_COMPARABLE_EXIT == 8
    assert reason in found.refusal and "cannot be gated" in found.refusal
    assert any("REFUSED (exit 8)" in line for line, _ in found.lines())


def test_gating_the_absolute_rule_of_a_metric_without_a_bar_is_not_comparable(tmp_path):
    lower = dataclasses.replace(LOWER, name="toy_len")  # a continuous metric: no default bar
    found = _gate({1000: 0.5, 2000: 0.6}, {1000: 0.5, 2000: 0.6},
                  "toy_len.absolute_effective_length:+1000", tmp_path, lower)
    assert found.exit_status == 8
    assert "no verdict (no bar for this metric) in either run" in found.refusal


def test_an_absolute_verdict_at_chance_can_still_be_gated(tmp_path):
    found = _gate({500: 1.0, 1000: 1.0}, {500: 0.0, 1000: 0.0},
                  "toy_guess.absolute_effective_length:-20%", tmp_path, GUESS)
    assert found.exit_status == gate.REGRESSION_EXIT
    (check,) = found.checks
    assert (check.delta.baseline, check.delta.candidate) == (1000, 0)


def test_control_records_stay_out_of_the_verdict():
    """NoLiMa's literal-match sets are a control: a perfect control beside a falling
    measurement must not lift the verdict, and the control's own records are not counted."""
    controlled = dataclasses.replace(RATE, control=("params.literal", True))
    falling = dict(zip(LENGTHS, (1.0, 1.0, 0.8, 0.5, 0.3, 0.1)))
    records = curve_records(controlled, falling)
    for item in curve_records(controlled, dict.fromkeys(LENGTHS, 1.0)):
        records.append(dataclasses.replace(
            item, sample_id=f"{item.sample_id}-lit", params={**item.params, "literal": True}))
    frame = records_frame(records)
    alone = verdict(records_frame(curve_records(controlled, falling)), controlled)
    found = verdict(frame, controlled)
    pooled = verdict(frame, RATE)
    assert found.n == alone.n == 120 and pooled.n == 240
    assert found.means == alone.means and found.effective_length == alone.effective_length
    assert found.effective_length.value == 2000
    assert pooled.effective_length.value > found.effective_length.value  # what pooling hides


@pytest.mark.parametrize("args, line", [
    (["gate", "r", "--baseline", "r", "--fail-on", "niah:-5%", "--gate-alpha", "nan"],
     "error: --gate-alpha nan: give a finite number"),
    (["report", "r", "--verdict-relative", "inf"], "error: --verdict-relative inf: give a finite"),
    (["report", "r", "--verdict-absolute", "niah=-inf"],
     "error: --verdict-absolute 'niah=-inf': give a finite number"),
])
def test_nan_and_infinity_are_refused_by_the_reporting_commands(args, line, tmp_path, capsys):
    from reporting.__main__ import main

    status = main([*args, "--results-dir", str(tmp_path)])
    err = capsys.readouterr().err.strip()
    assert status == 2 and err.startswith(line) and "\n" not in err
