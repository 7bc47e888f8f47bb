"""--settle's decision rule: from records with known curves, which lengths still need samples."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from reporting.analysis.settling import decide, grid_span
from reporting.analysis.verdicts import verdict
from reporting.storage.store import records_frame

from tests.doubles.settle_replay import FULL, SIMILARITY, settled_run

from .test_verdicts import LENGTHS, RATE, curve_records


def decided(means, size=12):
    return decide(records_frame(curve_records(RATE, means, size)), RATE, LENGTHS)


def test_a_sharp_fall_is_settled_by_the_first_pass():
    decision = decided(dict(zip(LENGTHS, (1.0, 1.0, 1.0, 0.0, 0.0, 0.0))))
    assert decision.settled and decision.uncertain == ()
    assert not decision.needs(8000) and "settled" in decision.reason(8000)


def test_a_length_near_the_threshold_is_the_one_still_sampled():
    # base 1.0 (1000 and 2000), bar 0.85: 40 samples a length; 0.88 and 0.85 pass the bar in
    # some resamples and fail it in others, 0.0 fails it in all (so 16000 and 32000, past a
    # failure that always holds, cannot move the effective length); the base lengths set
    # the bar and keep pace with the lengths measured against it
    decision = decided(dict(zip(LENGTHS, (1.0, 1.0, 0.88, 0.85, 0.0, 0.0))), size=40)
    assert not decision.settled and decision.uncertain == (1000, 2000, 4000, 8000)
    assert decision.needs(4000) and not decision.needs(16000) and not decision.needs(32000)
    assert "settled" in decision.reason(32000)


def test_a_base_with_more_samples_than_the_uncertain_lengths_waits_for_them():
    records = curve_records(RATE, {1000: 1.0, 2000: 1.0}, 40) + \
        curve_records(RATE, dict(zip(LENGTHS[2:], (0.85, 0.85, 0.0, 0.0))), 20)
    decision = decide(records_frame(records), RATE, LENGTHS)
    assert decision.uncertain == (4000, 8000)


def test_steps_widen_what_is_settled():
    # 0.9 at 4000 against a bar of 0.85, 20 samples: the interval is [2000, 4000], one step
    frame = records_frame(curve_records(RATE, dict(zip(LENGTHS, (1.0, 1.0, 0.9, 0.0, 0.0,
                                                                 0.0))), 20))
    found = verdict(frame, RATE).effective_length
    assert (found.low, found.high) == (2000, 4000)
    assert not decide(frame, RATE, LENGTHS).settled
    assert decide(frame, RATE, LENGTHS, steps=1).settled


def test_no_records_or_no_verdict_keeps_every_length():
    assert decide(records_frame([]), RATE, LENGTHS).uncertain == LENGTHS
    thin = decided(dict.fromkeys(LENGTHS, 1.0), size=3)  # under --verdict-min-samples: none
    assert not thin.settled and thin.uncertain == LENGTHS


def test_an_interval_is_counted_in_steps_of_the_grid():
    assert grid_span(4000, 4000, LENGTHS) == 0 and grid_span(2000, 4000, LENGTHS) == 1
    assert grid_span(0, 1000, LENGTHS) == 1  # below the shortest length: one step down
    assert grid_span(1000, 16000, LENGTHS) == 4 and grid_span(3000, 4000, LENGTHS) is None


means = st.lists(st.sampled_from((0.0, 0.25, 0.5, 0.75, 0.9, 1.0)), min_size=6, max_size=6)


@settings(max_examples=25, deadline=None)
@given(means, st.sampled_from((0, 1)))
def test_the_decision_agrees_with_the_verdict_it_reads(curve, steps):
    frame = records_frame(curve_records(RATE, dict(zip(LENGTHS, curve)), 8))
    decision = decide(frame, RATE, LENGTHS, steps=steps)
    assert decision == decide(frame, RATE, LENGTHS, steps=steps)  # from the records alone
    assert set(decision.uncertain) <= set(LENGTHS)
    found = verdict(frame, RATE).effective_length
    if decision.settled:  # settled exactly when the verdict's interval is `steps` or less
        assert grid_span(found.low, found.high, LENGTHS) <= steps and not decision.uncertain
    else:
        assert decision.uncertain
        if found is not None and found.low is not None:
            assert grid_span(found.low, found.high, LENGTHS) > steps


# -- the rounds of a run, on a known falling curve (tests/doubles/settle_replay.py) ----
# fading:3000 crosses the bar between 1000 and 2500 words, clear of both: the full grid
# states one length, and so does a settled run, with under half the samples
def test_a_settled_run_states_the_full_grids_verdict_with_half_the_samples():
    everything, kept = settled_run(0, 3000, 0)
    full = verdict(records_frame(everything), SIMILARITY).effective_length
    settled = verdict(records_frame(kept), SIMILARITY).effective_length
    assert grid_span(full.low, full.high, FULL.lengths) == 0
    assert (settled.value, settled.low, settled.high) == (full.value, full.low, full.high)
    assert len(kept) <= len(everything) / 2


# fading:800 crosses it near 500 words, which the full grid cannot place ([250, 500]): the
# default spends the budget at the lengths near the bar, --settle-steps 1 stops at one step;
# either states the full grid's interval, at fewer samples (about half: docs/plan.md)
@pytest.mark.parametrize("steps", [0, 1])
def test_a_settled_run_never_states_less_than_the_full_grid(steps):
    everything, kept = settled_run(0, 800, steps)
    full = verdict(records_frame(everything), SIMILARITY).effective_length
    settled = verdict(records_frame(kept), SIMILARITY).effective_length
    assert grid_span(full.low, full.high, FULL.lengths) == 1
    assert (settled.value, settled.low, settled.high) == (full.value, full.low, full.high)
    assert len(kept) < 0.6 * len(everything)
