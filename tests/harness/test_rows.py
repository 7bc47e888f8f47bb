"""The shared row checks (fixtures/data/rows.py) that every experiment's reader uses: what each
accepts as it is, and the words of what it refuses."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from fixtures.data import rows as check


@pytest.mark.parametrize(("value", "count"), [(12, 12), (12.0, 12), ("12", 12), (" 7 ", 7),
                                              (0, 0), (None, None), ("", None),
                                              (math.nan, None)])
def test_a_count_is_a_whole_number_of_0_or_more_and_absent_is_none(value, count):
    assert check.count({"n": value}, "row 0", "n") == count


@pytest.mark.parametrize(("value", "shown"), [
    (math.inf, "a number (inf)"), (-1, "a number (-1)"), (1.5, "a number (1.5)"),
    ("inf", "text ('inf')"), ("many", "text ('many')"), (True, "a boolean (True)"),
    ([3], "a list of 1")])
def test_a_count_that_is_not_one_is_refused_with_what_it_is(value, shown):
    with pytest.raises(check.BadRow, match="^" + re.escape(f"row 0: 'n' is {shown}, not a count")):
        check.count({"n": value}, "row 0", "n")


def test_a_required_count_refuses_absence():
    with pytest.raises(check.BadRow, match="'n' is null, not a count"):
        check.count({}, "row 0", "n", required=True)


@pytest.mark.parametrize(("value", "text"), [("Paris", "Paris"), (3, "3"), (3.0, "3"),
                                             (2.5, "2.5")])
def test_an_answer_is_text_or_a_finite_number_as_text(value, text):
    assert check.text_or_number({"a": value}, "row 0", "a") == text


@pytest.mark.parametrize("value", [None, math.nan, math.inf, "", "  ", True, ["x"]])
def test_null_nan_empty_and_other_kinds_are_never_made_text(value):
    with pytest.raises(check.BadRow, match="^row 0: 'a' is .*, not text$"):
        check.text_or_number({"a": value}, "row 0", "a")


def test_a_list_of_texts_refuses_one_text_and_holes_and_takes_numpy_arrays():
    assert check.texts({"x": np.array(["a", "b"])}, "r", "x") == ("a", "b")
    assert check.texts({"x": []}, "r", "x") == ()
    for value, words in (("a, b", "is one text"), (None, "is null"), (["a", None], "holds null"),
                         (["a", ""], "holds empty text")):
        with pytest.raises(check.BadRow, match=f"'x' {words}"):
            check.texts({"x": value}, "r", "x")
    with pytest.raises(check.BadRow, match="'x' is an empty list"):
        check.texts({"x": []}, "r", "x", empty=False)


def test_two_rows_with_one_key_are_named_both():
    check.unique([("row 0", "a"), ("row 1", "b")], "id")
    with pytest.raises(check.BadRow, match="^row 0 and row 2 have the same id 'a'$"):
        check.unique([("row 0", "a"), ("row 1", "b"), ("row 2", "a")], "id")


@pytest.mark.parametrize(("template", "words"), [
    ("{haystack} {question} {bogus}", "has the field {bogus}, which nothing fills"),
    ("{haystack} {question} {}", "has the field {}"),
    ("{haystack} {question.x}", "has the field {question.x}"),
    ("{question}", "has no {haystack}"),
    ("{haystack} {question} }", "is not a format template"),
    ("{haystack {question}", "is not a format template"),
    (None, "is null, not a template")])
def test_a_template_names_exactly_its_fields(template, words):
    with pytest.raises(check.BadRow, match=re.escape(words)):
        check.template(template, "entry 1", "t", ("haystack", "question"))
    kept = "{{literal}} {haystack}\n{question}"
    assert check.template(kept, "entry 1", "t", ("haystack", "question")) == kept
