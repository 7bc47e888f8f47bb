"""The gate's rules on real records in a real store: thresholds, pairing, significance, refusal."""

import json

import pytest

from reporting.gating import gate
from reporting.gating.compare import compare_experiment, run_identity, stimulus_mismatches
from reporting.storage.store import records_frame

from .helpers import EXPERIMENTS, MEAN, RATE, open_store, rate_run, record, store_run


# -- thresholds --------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("niah.accuracy:-0.05", ("niah", "accuracy", -0.05, False)),
    ("repeated_words:-5%", ("repeated_words", None, -0.05, True)),
    ("latency_exp.latency_s:+0.5", ("latency_exp", "latency_s", 0.5, False)),
    (" niah:-.1 ", ("niah", None, -0.1, False)),
])
def test_thresholds_parse(text, expected):
    threshold = gate.parse_threshold(text)
    assert (threshold.experiment, threshold.metric, threshold.delta, threshold.relative) == \
        pytest.approx(expected)


@pytest.mark.parametrize("text", ["niah", "niah:-", "niah=-0.05", "niah:-five", ":-0.05",
                                  "niah:0", "niah.accuracy:-0.05:x"])
def test_malformed_thresholds_name_the_problem_and_the_fix(text):
    with pytest.raises(gate.GateUsageError) as error:
        gate.parse_threshold(text)
    message = str(error.value)
    assert "\n" not in message and repr(text) in message or "must not be 0" in message


def test_unknown_experiment_in_a_threshold_lists_the_known_ones():
    with pytest.raises(gate.GateUsageError, match="choose one of toy_mean, toy_rate"):
        gate.check_thresholds([gate.parse_threshold("toy:-0.1")], EXPERIMENTS)


# -- evaluating ----------------------------------------------------------------------------
def _verdict(baseline_records, candidate_records, thresholds, tmp_path, **identity):
    store = open_store(tmp_path)
    store_run(store, "base", baseline_records)
    baseline = gate.load_baseline("base", store)
    frame = records_frame(candidate_records)
    ours = {**baseline.identity, **identity}
    return gate.evaluate([gate.parse_threshold(t) for t in thresholds], baseline, ours, frame,
                         EXPERIMENTS)


def test_identical_runs_never_trip_the_gate(tmp_path):
    cells = {1000: 15, 8000: 9, 32000: 4}
    verdict = _verdict(rate_run("base", cells), rate_run("cand", cells), ["toy_rate:-0.01"],
                       tmp_path)
    assert verdict.exit_status == 0 and not verdict.regressions
    assert len(verdict.checks) == 4  # three cells and all cells together
    assert all(c.delta.delta == 0 and c.delta.p == 1.0 for c in verdict.checks)


def test_a_large_significant_drop_trips_and_names_the_cell(tmp_path):
    verdict = _verdict(rate_run("base", {1000: 20, 8000: 18}),
                       rate_run("cand", {1000: 20, 8000: 2}), ["toy_rate.accuracy:-0.05"],
                       tmp_path)
    assert verdict.exit_status == gate.REGRESSION_EXIT == 7
    regressed = {c.delta.cell for c in verdict.regressions}
    assert regressed == {"length=8000", "all cells"}
    text = "\n".join(line for line, _ in verdict.lines())
    assert "REGRESSED toy_rate accuracy [length=8000]: 0.900 -> 0.100 (-0.800" in text
    assert "mcnemar p=" in text and "adjusted p=" in text


def test_a_drop_within_the_threshold_passes_even_when_significant(tmp_path):
    verdict = _verdict(rate_run("base", {1000: 20}, size=200), rate_run("cand", {1000: 10},
                                                                          size=200),
                       ["toy_rate:-0.1"], tmp_path)  # -0.05 with p ~ 0.002
    assert verdict.checks[0].significant and not verdict.checks[0].exceeded
    assert verdict.exit_status == 0


def test_a_drop_past_the_threshold_on_too_few_samples_is_not_significant(tmp_path):
    verdict = _verdict(rate_run("base", {1000: 3}, size=3), rate_run("cand", {1000: 1}, size=3),
                       ["toy_rate:-0.05"], tmp_path)
    check = verdict.checks[0]
    assert check.exceeded and not check.significant and verdict.exit_status == 0
    assert any("not significant" in line for line, _ in verdict.lines())


def test_relative_thresholds_and_continuous_scores(tmp_path):
    base = [record("base", MEAN, 100, i, 0.8) for i in range(12)]
    cand = [record("cand", MEAN, 100, i, 0.7) for i in range(12)]  # -12.5%
    assert _verdict(base, cand, ["toy_mean:-10%"], tmp_path).exit_status == 7
    assert _verdict(base, cand, ["toy_mean:-20%"], tmp_path / "b").exit_status == 0


def test_samples_pair_by_id_and_stimulus_hash_and_only_when_scored_in_both(tmp_path):
    base = rate_run("base", {1000: 10})
    cand = rate_run("cand", {1000: 10})[:15]  # a -k subset of the baseline
    cand.append(record("cand", RATE, 1000, 15, None, outcome="error"))
    deltas = compare_experiment(records_frame(base), records_frame(cand), RATE)
    assert [d.pairs for d in deltas] == [15]


def test_changed_stimuli_are_refused_with_the_reason(tmp_path):
    verdict = _verdict(rate_run("base", {1000: 10}), rate_run("cand", {1000: 10},
                                                              prompt_version=2),
                       ["toy_rate:-0.05"], tmp_path)
    assert verdict.exit_status == gate.NOT_COMPARABLE_EXIT == 8
    assert "stimuli differ: 20 samples" in verdict.refusal and "new baseline" in verdict.refusal
    before = records_frame(rate_run("a", {1: 2}, size=2))
    after = records_frame(rate_run("b", {1: 2}, size=2, prompt_version=3))
    assert len(stimulus_mismatches(before, after)) == 2


@pytest.mark.parametrize("field, value", [("judge", "gpt-4.1 @ api.openai.com"),
                                          ("tokenizer", "cl100k_base")])
def test_another_judge_or_tokenizer_is_refused(tmp_path, field, value):
    cells = {1000: 10}
    verdict = _verdict(rate_run("base", cells), rate_run("cand", cells), ["toy_rate:-0.05"],
                       tmp_path, **{field: value})
    assert verdict.exit_status == 8 and f"the {field} differs" in verdict.refusal


def test_another_model_is_compared_with_a_warning(tmp_path):
    cells = {1000: 10}
    verdict = _verdict(rate_run("base", cells), rate_run("cand", cells), ["toy_rate:-0.05"],
                       tmp_path, model="other-model")
    assert verdict.exit_status == 0 and "the model differs" in verdict.warnings[0]


def test_a_metric_the_records_lack_is_refused_with_the_scores_they_have(tmp_path):
    cells = {1000: 10}
    verdict = _verdict(rate_run("base", cells), rate_run("cand", cells),
                       ["toy_rate.acuracy:-0.05"], tmp_path)
    assert verdict.exit_status == 8 and "no score 'acuracy'" in verdict.refusal
    assert "accuracy" in verdict.refusal


# -- baselines ---------------------------------------------------------------------------
def test_an_unknown_run_id_is_an_error_but_a_missing_file_is_no_baseline_yet(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "base", rate_run("base", {1000: 5}))
    with pytest.raises(gate.GateUsageError, match="no such run in .*python -m reporting runs"):
        gate.load_baseline("bsae", store)
    assert gate.load_baseline(str(tmp_path / "ci-cache" / "summary.json"), store) is None
    assert gate.load_baseline("latest", store, current_run="base") is None
    assert gate.load_baseline("latest", store, current_run="next").run_id == "base"


def test_a_summary_file_baseline_pairs_like_the_stored_run(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "base", rate_run("base", {1000: 18}))
    frame = store.frame("base")
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"run_id": "base", "identity": run_identity(
        store.run_info("base"), frame), "samples": gate.compact_samples(frame)}))
    from_file = gate.load_baseline(str(summary), None)
    from_store = gate.load_baseline("base", store)
    assert from_file.identity == from_store.identity
    cand = records_frame(rate_run("cand", {1000: 2}))
    for baseline in (from_file, from_store):
        verdict = gate.evaluate([gate.parse_threshold("toy_rate:-0.1")], baseline,
                                from_store.identity, cand, EXPERIMENTS)
        assert verdict.exit_status == 7
        assert verdict.checks[0].delta.pairs == 20


def test_a_summary_without_samples_says_how_to_make_one(tmp_path):
    old = tmp_path / "summary.json"
    old.write_text(json.dumps({"run_id": "x", "experiments": {}}))
    with pytest.raises(gate.GateUsageError, match="export RUN --format summary"):
        gate.load_baseline(str(old), None)
