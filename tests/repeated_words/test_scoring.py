"""Repeated-words metrics and refusal filter: hand-checked cases and hypothesis properties."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.repeated_words import scoring, stimulus
from benchmarks.repeated_words.grid import RepeatedWordsSample as Sample

APPLE = Sample("apple", "apples", 5, 2)


def test_a_perfect_copy_scores_perfectly():
    gold = stimulus.gold_text(APPLE)
    assert gold == "apple apple apples apple apple"
    scores = scoring.score(APPLE, gold + "\n")
    assert scores == {"levenshtein": 1.0, "modified_present": True, "position_correct": True,
                      "word_position_correct": True, "extra_modified": False,
                      "word_count_delta": 0, "common_count": 4, "other_words": 0}


def test_levenshtein_is_normalised_by_the_longer_string():
    # one deleted "s": distance 1 over 30 characters
    scores = scoring.score(APPLE, "apple apple apple apple apple")
    assert scores["levenshtein"] == pytest.approx(1 - 1 / 30)
    assert not scores["modified_present"] and scores["position_correct"] is None


def test_a_shifted_modified_word_is_present_at_the_wrong_place():
    scores = scoring.score(APPLE, "apple apples apple apple apple")
    assert scores["modified_present"] and not scores["position_correct"]
    assert not scores["word_position_correct"]


def test_a_spurious_earlier_copy_does_not_hide_the_correct_one():
    sample = Sample("golden", "Golden", 5, 2)  # same length: character offsets stay aligned
    scores = scoring.score(sample, "Golden golden Golden golden golden")
    assert scores["position_correct"] and scores["word_position_correct"]
    assert scores["extra_modified"]
    # a longer spurious copy shifts the characters after it: only the word level holds
    shifted = scoring.score(APPLE, "apples apple apples apple apple")
    assert not shifted["position_correct"] and shifted["word_position_correct"]


def test_a_word_that_prefixes_the_other_is_not_mistaken_for_it():
    # apples/apple: the original finds " apple" inside " apples" at the last position
    last = Sample("apples", "apple", 4, 3)
    assert not scoring.score(last, "apples apples apples apples")["modified_present"]
    assert scoring.score(last, "apples apples apples apple")["position_correct"]


def test_a_perfect_multi_word_copy_is_one_word_per_name():
    sample = Sample("San Francisco", "sf", 4, 1)
    gold = stimulus.gold_text(sample)
    scores = scoring.score(sample, gold)
    assert scores["other_words"] == 0 and scores["word_count_delta"] == 0
    assert scores["position_correct"] and scoring.refusal_reason(sample, gold) is None


def test_golden_gate_pairs_do_not_confuse_their_shared_words():
    sample = Sample("Golden Gate Bridge", "Golden Gate Park", 3, 2)
    scores = scoring.score(sample, "Golden Gate Bridge Golden Gate Bridge Golden Gate Park")
    assert scores["word_position_correct"] and scores["word_count_delta"] == 0


# -- issue 12, items 1 and 2: the exact inputs of the issue -------------------------------
@pytest.mark.parametrize("sample, output", [
    (Sample("apple", "apples", 5, 4), "apple apple apple apple apples."),
    (Sample("apple", "apples", 5, 4), '"apple apple apple apple apples"'),
    (Sample("apple", "apples", 5, 0), '"apples apple apple apple apple"'),
])
def test_punctuation_and_quotes_around_a_word_do_not_hide_it(sample, output):
    scores = scoring.score(sample, output)
    assert scores["modified_present"] and scores["position_correct"]
    assert scores["word_position_correct"] and not scores["extra_modified"]
    assert scores["other_words"] == 0 and scores["word_count_delta"] == 0
    assert scores["common_count"] == 4 and scoring.refusal_reason(sample, output) is None
    assert scores["levenshtein"] < 1.0  # the exact-copy metric still counts the punctuation


def test_the_issues_quoted_copy_at_position_4_is_present_at_the_wrong_place():
    scores = scoring.score(Sample("apple", "apples", 5, 4), '"apples apple apple apple apple"')
    assert scores["modified_present"] and scores["other_words"] == 0
    assert not scores["position_correct"] and not scores["word_position_correct"]


@pytest.mark.parametrize("output", ["orange orange san francisco orange orange",
                                    "orange orange san francisco, orange orange"])
def test_a_lower_case_name_is_one_wrong_word_not_two(output):
    scores = scoring.score(Sample("orange", "San Francisco", 5, 2), output)
    assert scores["word_count_delta"] == 0
    assert not scores["modified_present"] and scores["other_words"] == 1  # case is kept


def test_a_name_followed_by_a_comma_is_the_name():
    sample = Sample("orange", "San Francisco", 5, 2)
    scores = scoring.score(sample, "orange orange San Francisco, orange orange")
    assert scores["word_count_delta"] == 0 and scores["other_words"] == 0
    assert scores["modified_present"] and scores["position_correct"]


def test_case_still_separates_golden_from_golden():
    scores = scoring.score(Sample("golden", "Golden", 3, 1), "golden golden. golden")
    assert not scores["modified_present"] and scores["common_count"] == 3


def test_a_token_of_punctuation_alone_is_still_a_word():
    # as the original's split() counts it; "-\n-\n--" outputs stay refusals
    scores = scoring.score(APPLE, "apple apple apples - apple apple")
    assert scores["word_count_delta"] == -1 and scores["other_words"] == 1
    assert scoring.refusal_reason(APPLE, "-\n-\n--") is not None


@pytest.mark.parametrize("output, refused", [
    ("", True),
    ("   ", True),
    ("I'm sorry, but I can't help with that.", True),
    ("apple apple apple", False),  # short, but only the pair's words
])
def test_refusal_needs_other_words_and_few_common_words(output, refused):
    assert (scoring.refusal_reason(APPLE, output) is not None) is refused


def test_a_sloppy_copy_with_punctuation_is_an_attempt_not_a_refusal():
    sample = Sample("apple", "apples", 40, 4)
    output = "The exact same text is: " + ", ".join(["apple"] * 20)
    assert scoring.refusal_reason(sample, output) is None
    assert scoring.refusal_reason(sample, "Text: " + ", ".join(["apples"] * 20)) is not None


def test_an_attempt_with_many_copies_and_a_remark_is_not_a_refusal():
    sample = Sample("apple", "apples", 30, 4)
    output = "Sure! " + stimulus.gold_text(sample)
    assert scoring.refusal_reason(sample, output) is None


# -- properties --------------------------------------------------------------------------
words = st.sampled_from(["apple", "apples", "orange", "run", "sf", "Golden", "golden"])
pairs = st.tuples(words, words).filter(lambda p: p[0] != p[1])
samples = st.builds(lambda pair, n, k: Sample(pair[0], pair[1], n, k % n), pairs,
                    st.integers(1, 60), st.integers(0, 1000))


@given(st.text(max_size=80))
def test_identical_strings_score_one(text):
    assert scoring.normalized_levenshtein(text, text) == 1.0


@given(st.text(max_size=60), st.text(max_size=60))
def test_levenshtein_lies_in_the_unit_interval(a, b):
    assert 0.0 <= scoring.normalized_levenshtein(a, b) <= 1.0


@given(samples, st.integers(1, 10))
def test_delta_is_positive_for_omissions_and_negative_for_additions(sample, count):
    gold = stimulus.gold_text(sample).split(" ")
    fewer = " ".join(gold[: max(0, len(gold) - count)])
    more = " ".join(gold + [sample.common] * count)
    assert scoring.score(sample, fewer)["word_count_delta"] == min(count, len(gold))
    assert scoring.score(sample, more)["word_count_delta"] == -count


@given(st.integers(1, 40), st.integers(0, 1000), st.lists(st.integers(0, 2), max_size=8))
def test_a_multi_word_pair_behaves_like_a_single_word_pair(n, k, edits):
    """The same edits on ("San Francisco", "Golden Gate Park") and ("apple", "apples") give
    the same word-level scores."""
    k %= n
    single, multi = Sample("apple", "apples", n, k), Sample("San Francisco", "Golden Gate Park", n, k)

    def edited(sample):
        units = stimulus.gold_text(sample).replace(sample.common, "C").replace(
            sample.modified, "M").split(" ")
        for edit in edits:  # 0: drop the last unit, 1: duplicate the first, 2: swap in M
            if edit == 0 and units:
                units.pop()
            elif edit == 1 and units:
                units.insert(0, units[0])
            elif edit == 2 and units:
                units[-1] = "M"
        return " ".join(units).replace("C", sample.common).replace("M", sample.modified)

    word_level = ("modified_present", "word_position_correct", "extra_modified",
                  "word_count_delta", "common_count", "other_words")
    one, two = scoring.score(single, edited(single)), scoring.score(multi, edited(multi))
    assert {m: one[m] for m in word_level} == {m: two[m] for m in word_level}


@given(samples)
def test_scores_are_bounded(sample):
    scores = scoring.score(sample, stimulus.gold_text(sample)[::-1])
    assert 0.0 <= scores["levenshtein"] <= 1.0


# -- issue 18: pair words with punctuation are read as the output's words are -------------
@pytest.mark.parametrize("common, modified", [
    ("dog", "U.S."), ("U.S.", "US"), ("dog", "C++"), ("C++", "Java"),
    ("dog", "Washington, D.C."), ("Washington, D.C.", "dog"),
])
@pytest.mark.parametrize("position", [0, 3, 19])
def test_an_exact_copy_of_a_pair_with_punctuation_scores_perfectly(common, modified, position):
    sample = Sample(common, modified, 20, position)
    gold = stimulus.gold_text(sample)
    scores = scoring.score(sample, gold)
    assert scores == {"levenshtein": 1.0, "modified_present": True, "position_correct": True,
                      "word_position_correct": True, "extra_modified": False,
                      "word_count_delta": 0, "common_count": 19, "other_words": 0}
    assert scoring.refusal_reason(sample, gold, scores) is None


def test_a_copy_that_loses_a_punctuated_modified_word_is_scored_as_such():
    sample = Sample("dog", "U.S.", 20, 5)
    scores = scoring.score(sample, " ".join(["dog"] * 20))
    assert not scores["modified_present"] and scores["word_count_delta"] == 0
    moved = scoring.score(sample, stimulus.gold_text(Sample("dog", "U.S.", 20, 6)))
    assert moved["modified_present"] and not moved["position_correct"]


def test_the_scores_given_to_the_refusal_rule_are_used_not_recomputed(monkeypatch):
    sample = Sample("apple", "apples", 30, 4)
    scores = scoring.score(sample, "no")
    monkeypatch.setattr(scoring, "score", lambda *args: pytest.fail("scored twice"))
    reason = scoring.refusal_reason(sample, "no", scores)
    assert reason == "1 other words and only 0 copies of 'apple'"
