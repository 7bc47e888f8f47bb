"""The grid: 1,090 samples per pair at full scale, as in the original; ids select exactly."""

import pytest

from benchmarks.repeated_words import grid


def test_the_full_grid_has_1090_samples_per_pair():
    assert len(grid.build("full", [grid.DEFAULT_PAIR])) == 1090
    assert len(grid.build("full", list(grid.REPORT_PAIRS))) == 7 * 1090


@pytest.mark.parametrize("n, count, last_step", [(25, 25, 1), (250, 126, 1), (500, 101, 4),
                                                 (750, 108, 7), (10000, 101, 99)])
def test_positions_follow_the_step_rule_and_end_on_the_last_word(n, count, last_step):
    found = grid.positions(n)
    assert len(found) == count and found[0] == 0 and found[-1] == n - 1
    assert found[-1] - found[-2] == last_step


def test_the_test_scale_is_five_lengths_by_three_positions():
    samples = grid.build("test", [grid.DEFAULT_PAIR])
    assert len(samples) == 15 and len({s.n for s in samples}) == 5


def test_ids_are_letter_prefixed_and_unique():
    samples = grid.build("full", list(grid.REPORT_PAIRS))
    ids = [s.id for s in samples]
    assert len(set(ids)) == len(ids)
    assert "apple_apples-n2500w-pos1250" in ids
    assert "San+Francisco_sf-n25w-pos0003" in ids


@pytest.mark.parametrize("value", ["apple", "apple/", "/apple", "apple/apple", "a/b/c",
                                   "apple//apples", " apple / apple "])
def test_a_malformed_word_pair_is_refused_with_the_fix(value):
    with pytest.raises(ValueError, match="COMMON/MODIFIED"):
        grid.parse_pairs([value])


def test_report_expands_to_the_seven_pairs():
    assert grid.parse_pairs(["report"]) == list(grid.REPORT_PAIRS)
    assert grid.parse_pairs(None) == [grid.DEFAULT_PAIR]


def test_collect_only_lists_1090_per_pair(pytester_root):
    result = pytester_root("--scale", "full", "--collect-only", "-q", "-m", "repeated_words")
    ids = [line for line in result if "test_repeated_words[" in line]
    assert len(ids) == 1090
    assert any(line.endswith("[apple_apples-n2500w-pos1250]") for line in ids)
