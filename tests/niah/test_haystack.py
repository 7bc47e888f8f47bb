"""Sentence splitting, insertion and haystack budgets (the corpus is read once per process)."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.texts import haystack
from fixtures.tokens.tokenizer import o200k


@pytest.mark.parametrize("text, expected", [
    ("Mr. Knightley paid 3.5 pounds. He left.", ["Mr. Knightley paid 3.5 pounds.", "He left."]),
    ('He said "Stop." Then he left! What? Yes.',
     ['He said "Stop."', "Then he left!", "What?", "Yes."]),
    ('"Is it?" she asked. It was.', ['"Is it?" she asked.', "It was."]),
    ("J. Smith and Mrs. Weston came. Dr. Perry too.",
     ["J. Smith and Mrs. Weston came.", "Dr. Perry too."]),
    ("CHAPTER I\n\nEmma Woodhouse, handsome,\nclever. She was.",
     ["CHAPTER I", "Emma Woodhouse, handsome, clever.", "She was."]),
    ("It ends here.\n\nNew paragraph without end\n\nAnd a third.",
     ["It ends here.", "New paragraph without end", "And a third."]),
])
def test_split_sentences(text, expected):
    assert haystack.split_sentences(text) == expected


def test_split_sentences_keeps_every_word():
    text = haystack.corpus_texts()[5][1][:20_000]
    assert " ".join(haystack.split_sentences(text)).split() == text.split()


TEXT = ('First one. "Second, quoted." Third?\n\nFourth para ends!\nFifth is 3.5 long, '
        'says Mr. Knightley. Sixth.')


def test_boundaries_are_real_sentence_ends():
    for index in range(len(TEXT) + 1):
        at = haystack.boundary_before(TEXT, index)
        assert at <= index
        if at:
            assert TEXT[:at].rstrip()[-1] in '.?!"', (index, TEXT[:at])
            assert not TEXT[:at].endswith(("Mr.", "3."))


@pytest.mark.parametrize("depth", [0, 10, 50, 90, 100])
def test_needle_is_intact_and_separated(depth):
    needle = "The ferryman took three copper buttons."
    result = haystack.insert_at_depth(TEXT, needle, depth)
    at = result.index(needle)
    assert result.replace(needle, "", 1).split() == TEXT.split()  # nothing else changed
    assert at == 0 or result[at - 1].isspace()
    assert at + len(needle) == len(result) or result[at + len(needle)].isspace()
    if depth == 0:
        assert result.startswith(needle)
    if depth == 100:
        assert result.endswith(needle)
    if 0 < depth < 100:
        before = result[:at].rstrip()
        assert before == "" or before[-1] in '.?!"'
        assert at <= len(TEXT) * depth / 100 + 1  # moved back, never forward


@pytest.mark.parametrize("depth", [0, 10, 50, 90, 100])
def test_placement_reads_the_depth_in_tokens_and_is_exact_at_the_ends(depth):
    tokenizer = o200k()
    where = haystack.place(TEXT, depth, tokenizer)
    assert where.tokens == tokenizer.count(TEXT)
    assert where.tokens_before == tokenizer.count(TEXT[:where.offset])
    assert where.tokens_before <= where.tokens * depth / 100
    assert where.depth == {0: 0.0, 100: 100.0}.get(depth, where.depth)
    result = haystack.insert_at_depth(TEXT, "NEEDLE.", depth, tokenizer)
    assert result.replace("NEEDLE.", "", 1).split() == TEXT.split()


@settings(max_examples=60, deadline=None)
@given(st.floats(min_value=0, max_value=100))
def test_insertion_never_splits_a_word(depth):
    text = haystack.sequential_haystack(o200k(), 400, 5_000)
    result = haystack.insert_at_depth(text, "NEEDLE.", depth)
    assert result.replace("NEEDLE.", "", 1).split() == text.split()


def test_sequential_haystack_hits_the_budget_and_starts_a_paragraph():
    tokenizer = o200k()
    for budget, offset in [(500, 0), (5_000, 123_457), (100_000, 1_400_000)]:
        text = haystack.sequential_haystack(tokenizer, budget, offset)
        assert abs(tokenizer.count(text) - budget) <= 2
        corpus = haystack.corpus_text()
        assert corpus.find(text[:200]) in (0,) or "\n\n" + text[:200] in corpus


def test_sequential_offsets_differ_and_cycle():
    tokenizer = o200k()
    total = haystack.corpus_token_count(tokenizer)
    assert haystack.sequential_haystack(tokenizer, 300, 0) != \
        haystack.sequential_haystack(tokenizer, 300, 200_000)
    assert haystack.sequential_haystack(tokenizer, 300, total) == \
        haystack.sequential_haystack(tokenizer, 300, 0)
    long = haystack.sequential_haystack(tokenizer, total + 1000, 0)  # wraps around
    assert long.startswith("[Emma by Jane Austen 1816]")
    assert long.count("[Emma by Jane Austen 1816]") == 2


def test_shuffled_haystack_is_seeded_whole_sentences_and_on_budget():
    tokenizer = o200k()
    first = haystack.shuffled_haystack(tokenizer, 2_000, seed=42)
    assert first == haystack.shuffled_haystack(tokenizer, 2_000, seed=42)
    assert first != haystack.shuffled_haystack(tokenizer, 2_000, seed=1042)
    assert abs(tokenizer.count(first) - 2_000) <= 3
    chosen = haystack.shuffled_sentences(tokenizer, 2_000, seed=42)
    assert " ".join(chosen) == first
    assert set(chosen) <= set(haystack.corpus_sentences())
    assert "\n" not in first and not re.search(r"\S  +\S", first)


def test_bible_is_excluded_by_default():
    assert all(fileid != haystack.BIBLE for fileid, _ in haystack.corpus_texts())
    assert any(fileid == haystack.BIBLE for fileid, _ in haystack.corpus_texts(True))
