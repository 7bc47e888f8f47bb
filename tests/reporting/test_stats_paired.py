"""The paired tests and the multiplicity adjustment, checked against values worked by hand."""

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from reporting.analysis.stats import (adjust_pvalues, is_binary, paired_difference_interval,
                             paired_test, sign_test)


def test_binary_scores_use_exact_mcnemar_on_the_discordant_pairs():
    baseline = [1] * 10 + [0] * 10
    candidate = [0] * 8 + [1] * 2 + [0] * 9 + [1]  # 8 lost, 1 gained
    test, p = paired_test(baseline, candidate)
    assert test == "mcnemar"
    assert p == pytest.approx(scipy_stats.binomtest(8, 9, 0.5).pvalue)
    assert p == pytest.approx(2 * (1 + 9) / 2 ** 9)  # two-sided exact binomial: 20/512


def test_booleans_count_as_binary():
    assert is_binary([True, False, 1, 0.0])
    assert not is_binary([0.5, 1.0])


def test_continuous_scores_use_a_sign_test_that_ignores_ties():
    baseline = [0.9, 0.8, 0.7, 0.6, 0.5, 0.5]
    candidate = [0.5, 0.4, 0.3, 0.2, 0.1, 0.5]  # five drops, one tie
    test, p = paired_test(baseline, candidate)
    assert test == "sign"
    assert p == pytest.approx(2 / 2 ** 5)
    assert sign_test([0.0, 0.0]) == 1.0


def test_identical_runs_have_p_one():
    scores = [0.1, 0.5, 0.9, 1.0]
    assert paired_test(scores, scores) == ("sign", 1.0)
    assert paired_test([1, 0, 1], [1, 0, 1]) == ("mcnemar", 1.0)


def test_paired_test_refuses_unpaired_lengths():
    with pytest.raises(ValueError, match="as many"):
        paired_test([1, 0], [1])


def test_paired_interval_covers_the_shift_and_keeps_the_pairing():
    rng = np.random.default_rng(1)
    baseline = rng.uniform(0, 1, 200)
    candidate = baseline - 0.1 + rng.normal(0, 0.01, 200)
    low, high = paired_difference_interval(baseline, candidate)
    assert low < -0.1 < high
    assert high - low < 0.01  # unpaired, the spread of the scores (~0.3) would swamp it


def test_benjamini_hochberg_matches_the_textbook_values():
    adjusted = adjust_pvalues([0.01, 0.04, 0.03, 0.5])
    assert adjusted == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.5])
    assert adjust_pvalues([]) == []
    assert all(not math.isnan(p) for p in adjusted)
