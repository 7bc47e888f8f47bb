"""Every metric on hand-checked texts; the New Dale-Chall inflection rule."""

import math

import pytest
from hypothesis import given, strategies as st

from benchmarks.continuation import scoring


@pytest.mark.parametrize("word", ["pigeons", "laughing", "pleased", "boxes", "ladies", "worried",
                                  "father's", "boys'", "stopped", "running", "making",
                                  "carried", "taller", "happiest", "bigger", "nicer", "Mr",
                                  "don't", "twenty-one", "1816", "goes"])
def test_regular_inflections_and_numbers_are_familiar(word):
    assert scoring.is_familiar(word)


@pytest.mark.parametrize("word", ["softly", "movement", "amiable", "woodhouse", "bed-x",
                                  "ceasing", "gently"])
def test_derivations_and_rare_words_are_not(word):
    assert not scoring.is_familiar(word)


def test_the_list_is_textstats_dale_chall_list():
    easy = scoring.easy_words()
    assert 2900 < len(easy) < 3000 and {"apple", "laugh", "mr"} <= easy


def test_punctuation_never_sticks_to_words():
    assert scoring.words('"Well," she said; sorts! me?') == ["well", "she", "said", "sorts",
                                                            "me"]


def test_metrics_on_a_hand_checked_text():
    # 2 sentences: 4 + 6 words; "unfamiliar" "creatures" are off the list (2 of 10 words),
    # "chased" is an inflection of the listed "chase".
    text = "The cat sat down. The unfamiliar creatures chased the cat."
    m = scoring.metrics(text)
    assert m["words"] == 10 and m["sentences"] == 2
    assert m["avg_sentence_length"] == 5
    assert m["sentence_length_variance"] == 2  # sample variance of 4 and 6
    assert m["pct_unfamiliar_words"] == pytest.approx(0.2)
    assert m["cloze_score"] == pytest.approx(64 - 95 * 0.2 - 0.69 * 5)
    assert m["vocabulary_diversity"] == pytest.approx(7 / 10)  # the x3, cat x2
    assert m["bigram_repetition"] == pytest.approx(1 / 9)  # "the cat" twice
    assert m["moving_ttr_100"] is None


def test_moving_ttr():
    assert scoring.moving_ttr(["a", "b"] * 60) == pytest.approx(2 / 100)
    assert scoring.moving_ttr([str(i) for i in range(150)]) == 1.0


def test_empty_and_one_sentence_texts():
    assert scoring.metrics("")["cloze_score"] is None
    assert scoring.metrics("...")["words"] == 0
    assert scoring.metrics("One short sentence.")["sentence_length_variance"] is None


@given(st.text(max_size=300))
def test_metrics_stay_in_range(text):
    m = scoring.metrics(text)
    if m["words"]:
        assert 0 <= m["pct_unfamiliar_words"] <= 1 and 0 < m["vocabulary_diversity"] <= 1
        assert math.isfinite(m["cloze_score"]) and m["avg_sentence_length"] > 0
