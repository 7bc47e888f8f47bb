"""Context-Tester's reading reproduces the original's ten values on its reference passages."""

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from benchmarks.continuation import readability, reading_context_tester as original
from fixtures.data.registry import DATA_DIR_VARIABLE

ROOT = Path(__file__).resolve().parents[2]
REFERENCE_NAME = "continuation-context-tester.jsonl"


def reference_file() -> Path | None:
    """``../shared/reference`` beside the data folder (``CONTEXTROT_DATA_DIR``) or the clone."""
    folders = [ROOT.parent / "shared" / "reference"]
    if os.environ.get(DATA_DIR_VARIABLE):
        folders.insert(0, Path(os.environ[DATA_DIR_VARIABLE]).resolve().parent / "reference")
    return next((f / REFERENCE_NAME for f in folders if (f / REFERENCE_NAME).is_file()), None)


def passages() -> list:
    path = reference_file()
    if path is None:
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"{REFERENCE_NAME} not found in ../shared/reference"), id="missing")]
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [pytest.param(row, id=row["label"]) for row in rows]


def test_there_are_25_reference_passages():
    found = passages()
    assert len(found) == 25 or found[0].id == "missing"


@pytest.mark.parametrize("passage", passages())
def test_each_of_the_originals_ten_values_is_reproduced(passage):
    expected = passage["original"]
    got = original.metrics(passage["text"])
    assert set(expected) == set(readability.METRICS) == set(got)
    for name, value in expected.items():
        assert got[name] == value, f"{passage['label']}: {name} {got[name]!r} != {value!r}"
        assert type(got[name]) is str if name == "reading_level" else \
            isinstance(got[name], (int, float)) and not isinstance(got[name], bool)
    assert round(got["cloze_score"], 2) == got["cloze_score"]


def test_words_keep_the_punctuation_the_original_keeps():
    assert original.words('"Well," she said; sorts! ... <b>me</b>?') == [
        "well", "she", "said;", "sorts!", "", "me?"]


def test_unfamiliar_words_are_off_its_list_with_possessives_removed():
    easy = original.easy_words()
    assert len(easy) == 3172 and {"a.m.", "george washington", "laugh"} <= easy
    assert not original.is_unfamiliar("father's", easy)  # "father" is listed
    assert original.is_unfamiliar("laughing", easy)  # inflections are not recognised
    assert not original.is_unfamiliar("1816", easy) and original.is_unfamiliar("3.50", easy)


def test_sentences_break_at_every_stop_even_after_titles():
    assert original.sentence_lengths("Mr. Smith paid $3.50. I said no. He left") == [
        1, 3, 1, 3, 2]


@pytest.mark.parametrize("text, cloze, level", [
    ("", 64.0, "1"), ("  \n\t", 64.0, "1"), ("Hello", 63.31, "1"),
    ("...", -31.0, "16+"),  # one empty "word", unfamiliar, and no sentence
])
def test_empty_and_degenerate_texts_get_the_originals_values(text, cloze, level):
    got = original.metrics(text)
    assert (got["cloze_score"], got["reading_level"]) == (cloze, level)
    if not text.strip():
        assert got == original.EMPTY


@pytest.mark.parametrize("cloze, level", [
    (64.0, "1"), (70.0, "1"), (57.01, "1"), (57.0, "2"), (27.2, "9-10"), (27.0, "11-12"),
    (15.5, "13-15"), (10.0, "16+"), (-765.29, "16+")])
def test_grade_level_is_the_ceiled_cloze_score_in_chall_and_dales_table(cloze, level):
    assert readability.reading_level(cloze) == level


@given(st.lists(st.sampled_from(list("ab Zé\n.!?,'\"()<>&;") + ["<p>", "&amp;", "cat"]),
                max_size=80).map("".join))
def test_values_are_rounded_as_the_original_rounds_them(text):
    got = original.metrics(text)
    for name, places in (("pct_unfamiliar_words", 4), ("avg_sentence_length", 2),
                         ("cloze_score", 2), ("sentence_length_variance", 2),
                         ("vocabulary_diversity", 4), ("bigram_repetition_rate", 4),
                         ("unique_word_ratio_100", 4)):
        assert round(got[name], places) == got[name]
    assert got["reading_level"] == readability.reading_level(got["cloze_score"])
