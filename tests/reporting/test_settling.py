"""--settle's decision rule: from records with known curves, which lengths still need samples."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from reporting.analysis.settling import decide, grid_span
from reporting.analysis.verdicts import verdict
from reporting.storage.store import records_frame

from .test_verdicts import LENGTHS, RATE, curve_records


def decided(means, size=12):
    return decide(records_frame(curve_records(RATE, means, size)), RATE, LENGTHS)


def test_a_sharp_fall_is_settled_by_the_first_pass():
    decision = decided(dict(zip(LENGTHS, (1.0, 1.0, 1.0, 0.0, 0.0, 0.0))))
    assert decision.settled and decision.uncertain == ()
    assert not decision.needs(8000) and "settled" in decision.reason(8000)


def test_a_length_near_the_threshold_is_the_one_still_sampled():
    # base 1.0, bar 0.85: 40 samples a length; the Wilson intervals of 0.88 and 0.85 hold the
    # bar, those of 1.0 and 0.0 do not (at 12 samples, 12 of 12 still would: [0.76, 1])
    decision = decided(dict(zip(LENGTHS, (1.0, 1.0, 0.88, 0.85, 0.0, 0.0))), size=40)
    assert not decision.settled and decision.uncertain == (4000, 8000)
    assert decision.needs(4000) and not decision.needs(32000) and not decision.needs(1000)
    assert "settled" in decision.reason(32000)


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
@given(means)
def test_the_decision_agrees_with_the_verdict_it_reads(curve):
    frame = records_frame(curve_records(RATE, dict(zip(LENGTHS, curve)), 8))
    decision = decide(frame, RATE, LENGTHS)
    assert decision == decide(frame, RATE, LENGTHS)  # from the records alone
    assert set(decision.uncertain) <= set(LENGTHS)
    found = verdict(frame, RATE).effective_length
    if decision.settled:  # settled exactly when the verdict's interval is one step or less
        assert grid_span(found.low, found.high, LENGTHS) <= 1 and not decision.uncertain
    else:
        assert decision.uncertain
        if found is not None and found.low is not None:
            assert grid_span(found.low, found.high, LENGTHS) > 1
