"""The reading of words: the fast reading equals the rule read word by word, on any text."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.repeated_words import words
from benchmarks.repeated_words.words import Units, read_pair


def reference_units(text: str, pair: words.Pair) -> list[tuple[str, int]]:
    """The rule, one token at a time: (unit, character offset of its first word)."""
    tokens = []
    for match in re.finditer(r"\S+", text):
        word, start = words.read_token(match.group())
        tokens.append((word, match.start() + start))
    found, i = [], 0
    while i < len(tokens):
        for name in pair.names:  # longer names first
            window = tokens[i:i + len(name)]
            if tuple(word.casefold() for word, _ in window) == name:
                found.append((" ".join(word for word, _ in window), window[0][1]))
                i += len(name)
                break
        else:
            found.append(tokens[i])
            i += 1
    return found


PAIRS = [("apple", "apples"), ("apples", "apple"), ("golden", "Golden"),
         ("orange", "San Francisco"), ("San Francisco", "sf"),
         ("Golden Gate Bridge", "Golden Gate Park"), ("dog", "U.S."), ("U.S.", "US"),
         ("dog", "C++"), ("dog", "Washington, D.C."), ("Gate Bridge", "Golden Gate Bridge"),
         ("a b", "b a"), ("New York", "York"), ("San Francisco", "san francisco")]
PIECES = ["apple", "apples", "golden", "Golden", "GOLDEN", "San", "san", "Francisco",
          "francisco", "sf", "Gate", "gate", "Bridge", "Park", "U.S.", "US", "U.S", "C++", "C",
          "dog", "Washington,", "Washington", "D.C.", "a", "b", "B", "New", "York", "-", "...",
          '"', "apple,", "(apples)", "\u00e9t\u00e9", "\u201capple\u201d"]
SPACES = [" ", " ", " ", "\n", "  ", "\t", "\u00a0", " \n"]


@st.composite
def texts(draw, pair=("", "")):
    """Texts of the pair's own words (in other cases, with punctuation) and other pieces."""
    own = [w for given in pair for w in given.split()]
    own += [w.lower() for w in own] + [w + "," for w in own]
    pieces = draw(st.lists(st.sampled_from(PIECES) | st.sampled_from(own or PIECES),
                           max_size=30))
    gaps = draw(st.lists(st.sampled_from(SPACES), min_size=len(pieces) + 1,
                         max_size=len(pieces) + 1))
    return "".join(gap + piece for gap, piece in zip(gaps, pieces + [""]))


@settings(max_examples=600)
@given(st.sampled_from(PAIRS).flatmap(lambda pair: st.tuples(st.just(pair), texts(pair))))
def test_the_fast_reading_equals_the_rule_read_token_by_token(case):
    given_pair, text = case
    pair = read_pair(*given_pair)
    expected = reference_units(text, pair)
    units = Units(text, pair)
    assert len(units) == len(expected)
    for word in (pair.common, pair.modified):
        at = [i for i, (unit, _) in enumerate(expected) if unit == word]
        assert units.count(word) == len(at)
        assert units.indices(word) == at
        assert units.offsets(at) == [expected[i][1] for i in at]


@given(st.sampled_from(PAIRS), st.integers(1, 40), st.integers(0, 1000))
def test_the_gold_reads_as_its_words_without_being_read(given_pair, n, position):
    pair, position = read_pair(*given_pair), position % n
    gold = " ".join(given_pair[1] if i == position else given_pair[0] for i in range(n))
    expected = reference_units(gold, pair)
    assert [unit for unit, _ in expected] == [
        pair.modified if i == position else pair.common for i in range(n)]
    if pair.gold(n, position) is not None:
        assert pair.gold(n, position) == (n, expected[position][1])


def test_many_copies_of_the_modified_word_have_their_offsets():
    pair = read_pair("San Francisco", "sf")
    text = "sf  San Francisco\n" * 20
    units = Units(text, pair)
    expected = reference_units(text, pair)
    at = units.indices("sf")
    assert len(at) == 20 and units.offsets(at) == [expected[i][1] for i in at]


@pytest.mark.parametrize("common, modified", [("U.S.", "US"), ("dog", "U.S."), ("dog", "C++"),
                                              ("dog", "Washington, D.C."),
                                              ("Washington, D.C.", "D.C.")])
def test_pair_words_are_read_by_the_rule_that_reads_the_output(common, modified):
    pair = read_pair(common, modified)
    assert pair.common == " ".join(words.read_token(t)[0] for t in common.split())
    assert [unit for unit, _ in reference_units(f"{modified} {common},", pair)] == [
        pair.modified, pair.common]


@pytest.mark.parametrize("common, modified, problem", [
    ("C++", "C", "both words read as 'C'"),
    ("apple", "apple.", "both words read as 'apple'"),
    ("x", "x x", "does not read back as 2 words"),
    ("ha ha", "ha", "does not read back as 2 words"),
])
def test_a_pair_that_cannot_be_told_apart_is_refused_with_the_fix(common, modified, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        read_pair(common, modified)
