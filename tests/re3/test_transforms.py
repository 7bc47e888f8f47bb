"""The prompt transformer: each B strategy keeps the answer recoverable (properties)."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.re3.transforms import (CAMELCASE, DIGITSPACE, LOWERCASE, NONE, STRATEGIES,
                                       UPPERCASE, camelcase, digitspace, transform)

# Prompt-like text: words, digits, punctuation, spaces, tabs and line breaks, some non-ASCII.
prompt_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
                      | st.sampled_from(" \n\t0123456789"), max_size=300)
seeds = st.text(max_size=20)


def letters(text: str) -> list[str]:
    return [c for c in text if c.isalpha()]


@given(prompt_text, seeds)
def test_camelcase_keeps_every_character_in_order(text, seed):
    changed = camelcase(text, seed)
    # only whitespace between words is dropped ...
    assert re.sub(r"\s", "", changed).casefold() == re.sub(r"\s", "", text).casefold()
    kept = [c for c in text if not c.isspace()]
    got = [c for c in changed if not c.isspace()]
    assert len(kept) == len(got)
    # ... and a character changes only by being upper-cased (a joined word's first letter)
    assert all(a == b or a.upper() == b for a, b in zip(kept, got))


@given(prompt_text, seeds)
def test_camelcase_keeps_line_breaks_and_words_letters(text, seed):
    changed = camelcase(text, seed)
    assert changed.count("\n") == text.count("\n")
    for word in text.split():  # each word's letters survive, in order, case aside
        assert word[1:] in changed or word.casefold() in changed.casefold()


@given(prompt_text, seeds)
def test_camelcase_is_seeded(text, seed):
    assert camelcase(text, seed) == camelcase(text, seed)


def test_camelcase_examples():
    assert camelcase("", "x") == ""
    assert camelcase("one", "x") == "one"
    joined = camelcase("the quick brown fox jumps over the lazy dog", "item-1")
    assert joined != "the quick brown fox jumps over the lazy dog"  # this seed joins some
    assert re.fullmatch(r"[a-z]+([A-Z][a-z]+)?( [a-z]+([A-Z][a-z]+)?)*", joined)
    assert "NASA" in camelcase("ask NASA ask NASA ask NASA ask NASA", "s")  # case kept
    # seeded by the item: different items differ somewhere over a long text
    long = " ".join(["word"] * 200)
    assert camelcase(long, "a") != camelcase(long, "b")


@given(prompt_text)
def test_digit_spacing_removes_no_digit(text):
    changed = digitspace(text)
    assert [c for c in changed if c.isdigit()] == [c for c in text if c.isdigit()]
    assert not re.search(r"[0-9][0-9]", changed)  # every pair of ASCII digits is split
    assert changed.replace(" ", "") == text.replace(" ", "")  # only spaces were added


def test_digit_spacing_examples():
    assert digitspace("381") == "3 8 1"  # the spec's sketch gives "3 81"
    assert digitspace("The answer is 42") == "The answer is 4 2"
    assert digitspace("$1,200.50") == "$1,2 0 0.5 0"
    assert digitspace("no digits") == "no digits"


def round_trips(c: str) -> bool:
    """Unicode's case mapping loses a few letters by itself ("ı".upper().lower() == "i",
    "ß".upper() == "SS"): the property is about the transform, so those are left out."""
    return c.upper().casefold() == c.lower().casefold() == c.casefold()


case_stable_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
                           .filter(round_trips) | st.sampled_from(" \n\t0123456789"),
                           max_size=300)


@given(case_stable_text, st.sampled_from([LOWERCASE, UPPERCASE]))
def test_capitalisation_shift_keeps_letters(text, strategy):
    changed = transform(strategy, text, "seed")
    assert letters(changed.casefold()) == letters(text.casefold())  # the same letters, in order
    assert [c for c in changed if c.isdigit()] == [c for c in text if c.isdigit()]


def test_capitalisation_examples():
    assert transform(LOWERCASE, "Hello World 42", "s") == "hello world 42"
    assert transform(UPPERCASE, "Hello World 42", "s") == "HELLO WORLD 42"


def test_every_strategy_is_dispatched_and_unknown_ones_refused():
    assert {transform(s, "Ab 12 cd", "k") for s in STRATEGIES} - {"Ab 12 cd"}
    assert transform(NONE, "anything", "k") == ""
    assert transform(CAMELCASE, "a b", "k") in {"a b", "aB"}
    assert transform(DIGITSPACE, "12", "k") == "1 2"
    with pytest.raises(ValueError, match="unknown B strategy"):
        transform("rot13", "text", "k")


@settings(max_examples=50)
@given(st.lists(st.sampled_from(["Alpha", "beta", "12", "x,", "(c)"]), min_size=1,
                max_size=30), seeds)
def test_camelcase_on_words_joins_pairs_only(words, seed):
    changed = camelcase(" ".join(words), seed).split(" ")
    assert len(words) / 2 <= len(changed) <= len(words)
