"""contextrot's reading (the original's defects fixed) and the two sets side by side."""

import math

import pytest
from hypothesis import given, strategies as st

from benchmarks.continuation import reading_contextrot as refined, scoring
from benchmarks.continuation.readability import METRICS


# -- words ---------------------------------------------------------------------------------
def test_accented_words_stay_whole():
    assert refined.words("Zoë sat in the café.") == ["zoë", "sat", "in", "the", "café"]
    assert refined.words("The naïve rôle of a débutante") == ["the", "naïve", "rôle", "of",
                                                              "a", "débutante"]


def test_non_latin_text_has_words_and_sentences():
    russian = "Все счастливые семьи похожи друг на друга. Каждая семья несчастлива по-своему."
    m = refined.metrics(russian)
    assert (m["word_count"], m["sentence_count"]) == (11, 2)
    assert m["pct_unfamiliar_words"] == 1.0 and math.isfinite(m["cloze_score"])
    chinese = "我们去吃饭。今天很好！"  # no spaces: one word per character
    assert [len(s) for s in refined.sentence_words(chinese)] == [5, 4]
    hindi = "हिन्दी भाषा"  # vowel signs and viramas are marks inside the word
    assert refined.words(hindi) == ["हिन्दी", "भाषा"]


def test_markup_is_removed_and_entities_decoded():
    assert refined.words("<p>He said &amp; she said.</p>") == ["he", "said", "she", "said"]
    assert [len(s) for s in refined.sentence_words("<p>One two.</p><p>Three.</p>")] == [2, 1]
    assert refined.words("x < y and AT&T") == ["x", "y", "and", "at", "t"]  # not markup
    assert refined.words("<script>var x;</script><style>p {}</style>Text") == ["text"]


def test_punctuation_never_sticks_to_words():
    assert refined.words('"Well," she said; sorts! me? 3.50 don\'t twenty-one') == [
        "well", "she", "said", "sorts", "me", "3.50", "don't", "twenty-one"]


# -- sentences -----------------------------------------------------------------------------
@pytest.mark.parametrize("text, lengths", [
    ("I said no. He left.", [3, 2]),
    ("See No. 5 and no. 12 today.", [7]),  # "No." before a number is numero
    ("Mr. Knightley met J. Smith. It was I. Then--", [5, 3, 1]),
    ('"Stop!" she cried. Wait... what?', [1, 2, 1, 1]),
    ("CHAPTER I\n\nShe came. He went", [2, 2, 2]),
])
def test_sentence_ends(text, lengths):
    assert [len(s) for s in refined.sentence_words(text)] == lengths


# -- familiar words ------------------------------------------------------------------------
@pytest.mark.parametrize("word", ["pigeons", "laughing", "pleased", "boxes", "ladies",
                                  "worried", "father's", "boys'", "stopped", "running",
                                  "making", "carried", "taller", "happiest", "bigger", "nicer",
                                  "chased", "Mr", "don't", "twenty-one", "1816", "goes"])
def test_regular_inflections_and_numbers_are_familiar(word):
    assert refined.is_familiar(word)


@pytest.mark.parametrize("word", ["manner", "sheer", "sober", "digest", "poster", "printer",
                                  "waiter"])
def test_a_stem_plus_letters_is_not_an_inflection(word):
    # man+n+er, she+er, sob+er, dig+est, post+er, print+er, wait+er: none of the stems is an
    # adjective or adverb, the only words that take -er and -est
    assert not refined.is_familiar(word)


@pytest.mark.parametrize("word", ["softly", "movement", "amiable", "woodhouse", "bed-x",
                                  "ceasing", "gently"])
def test_derivations_and_rare_words_are_not(word):
    assert not refined.is_familiar(word)


def test_the_list_is_textstats_dale_chall_list_with_wordnets_parts_of_speech():
    words = refined.lexicon()
    assert 2900 < len(words.easy) < 3000 and {"apple", "laugh", "mr"} <= words.easy
    assert {"tall", "big", "nice"} <= words.comparables and "print" not in words.comparables
    assert {"stop", "carry"} <= words.verbs and "she" not in words.verbs


# -- metrics -------------------------------------------------------------------------------
def test_metrics_on_a_hand_checked_text():
    # 2 sentences: 4 + 6 words; "unfamiliar" "creatures" are off the list (2 of 10 words),
    # "chased" is an inflection of the listed verb "chase".
    m = refined.metrics("The cat sat down. The unfamiliar creatures chased the cat.")
    assert m["word_count"] == 10 and m["sentence_count"] == 2
    assert m["avg_sentence_length"] == 5
    assert m["sentence_length_variance"] == 2  # sample variance of 4 and 6
    assert m["pct_unfamiliar_words"] == pytest.approx(0.2)
    assert m["cloze_score"] == pytest.approx(64 - 95 * 0.2 - 0.69 * 5)
    assert m["reading_level"] == "5-6"  # ceil(41.55) = 42
    assert m["vocabulary_diversity"] == pytest.approx(7 / 10)  # the x3, cat x2
    assert m["bigram_repetition_rate"] == pytest.approx(1 / 9)  # "the cat" twice
    assert m["unique_word_ratio_100"] is None  # under 100 words


def test_moving_window_uniqueness():
    m = refined.metrics(" ".join(["a", "b"] * 60))
    assert m["unique_word_ratio_100"] == pytest.approx(2 / 100)
    assert refined.metrics(" ".join(f"w{i}" for i in range(150)))["unique_word_ratio_100"] == 1


@pytest.mark.parametrize("text", ["", "   ", "...", "<p></p>", "— ! ?"])
def test_a_text_without_words_has_counts_and_no_metric(text):
    m = refined.metrics(text)
    assert (m["word_count"], m["sentence_count"]) == (0, 0)
    assert all(m[name] is None for name in METRICS if name not in ("word_count",
                                                                    "sentence_count"))


def test_one_sentence_has_no_variance():
    assert refined.metrics("One short sentence.")["sentence_length_variance"] is None


@given(st.text(max_size=300))
def test_metrics_stay_in_range(text):
    m = refined.metrics(text)
    if m["word_count"]:
        assert 0 <= m["pct_unfamiliar_words"] <= 1 and 0 < m["vocabulary_diversity"] <= 1
        assert math.isfinite(m["cloze_score"]) and m["avg_sentence_length"] > 0


# -- both sets -----------------------------------------------------------------------------
@pytest.mark.parametrize("headline", ["context-tester", "contextrot"])
def test_both_sets_are_recorded_and_the_headline_is_repeated_at_the_top(headline):
    text = "The cat sat down. The unfamiliar creatures chased the cat."
    scores = scoring.score(text, headline)
    assert set(scores) == set(METRICS) | {"context_tester", "contextrot"}
    assert scores["context_tester"]["cloze_score"] == 32.05  # 3 unfamiliar: "chased" too
    assert scores["contextrot"]["cloze_score"] == pytest.approx(41.55)
    chosen = scores[headline.replace("-", "_")]
    assert {name: scores[name] for name in METRICS} == chosen


def test_a_reference_text_is_scored_once():
    scoring.reference.cache_clear()
    first = scoring.reference("A window of text.", "contextrot")
    assert scoring.reference("A window of text.", "contextrot") is first
    assert scoring.reference.cache_info().hits == 1
