"""The grid: RULER's 13 tasks, its lengths, the options, the ids and the test scale's size."""

from __future__ import annotations

import pytest

from benchmarks.ruler import grid
from benchmarks.texts.fitting import length_id


def test_the_task_table_is_rulers():
    assert list(grid.TASKS) == [
        "niah_single_1", "niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multikey_2",
        "niah_multikey_3", "niah_multivalue", "niah_multiquery", "vt", "cwe", "fwe", "qa_1",
        "qa_2"]
    multiquery = grid.TASKS["niah_multiquery"]
    assert (multiquery.keys, multiquery.values, multiquery.queries) == (4, 1, 4)
    assert {t.tokens_to_generate for t in grid.TASKS.values() if t.family == "niah"} == {128}
    assert [grid.TASKS[t].tokens_to_generate for t in ("vt", "cwe", "fwe", "qa_1")] == \
        [30, 120, 50, 32]
    assert [t for t, task in grid.TASKS.items() if task.metric == "string_match_part"] == \
        ["qa_1", "qa_2"]


def test_full_scale_is_thirteen_tasks_six_lengths_five_hundred_samples():
    tasks = grid.parse_tasks(None, "full")
    samples = grid.build(tasks, grid.parse_lengths(None, "full"), grid.parse_samples(None, "full"))
    assert len(samples) == 39_000
    assert samples[0].id == "niah_single_1-ctx4k-s000"
    assert samples[-1].id == "qa_2-ctx128k-s499"


def test_the_test_scale_stays_small_for_the_embedded_model():
    samples = grid.build(grid.TEST_TASKS, grid.TEST_LENGTHS, grid.TEST_SAMPLES)
    prompt_tokens = sum(s.length - grid.TASKS[s.task].tokens_to_generate for s in samples)
    assert len(samples) == 9 and len(set(s.length for s in samples)) == 3
    assert prompt_tokens <= 15_000


@pytest.mark.parametrize("value, expected", [
    ("4k,8k", (4096, 8192)), ("1.5k, 1k", (1024, 1536)), ("1m,128k", (131072, 1048576)),
    ("5000", (5000,)), ("8K,8k", (8192,))])
def test_lengths_parse_in_rulers_units(value, expected):
    assert grid.parse_lengths(value, "test") == expected


@pytest.mark.parametrize("value", ["", "4x", "0.1k", "100", "-4k"])
def test_a_bad_length_is_one_line_naming_the_option(value):
    with pytest.raises(ValueError, match="--ruler-lengths"):
        grid.parse_lengths(value, "full")


def test_tasks_parse_by_name_group_or_all_in_rulers_order():
    assert grid.parse_tasks("cwe,vt", "full") == ("vt", "cwe")
    assert len(grid.parse_tasks("synthetic", "full")) == 11
    assert grid.parse_tasks(None, "test") == grid.TEST_TASKS
    with pytest.raises(ValueError, match="'niah_single_4' is not a RULER task"):
        grid.parse_tasks("niah_single_4", "full")
    with pytest.raises(ValueError, match="--ruler-samples 0"):
        grid.parse_samples(0, "full")


def test_length_ids_end_in_their_unit():
    assert [length_id(n) for n in (1024, 1536, 4096, 131072, 1048576, 5000)] == \
        ["ctx1k", "ctx1.5k", "ctx4k", "ctx128k", "ctx1m", "ctx5000t"]
    assert grid.RulerSample("vt", 4096, 7, width=4).id == "vt-ctx4k-s0007"


def test_the_embedded_model_gets_a_grid_sized_to_it_and_a_model_the_usual_one():
    embedded = grid.build(grid.parse_tasks(None, "test", True),
                          grid.parse_lengths(None, "test", True),
                          grid.parse_samples(None, "test", True))
    assert {s.task for s in embedded} == {"niah_multikey_2"}
    assert sorted({s.length for s in embedded}) == [216, 240, 288, 384, 512]
    assert len(embedded) == 50  # 10 a length: enough for a verdict
    usual = grid.build(grid.parse_tasks(None, "test"), grid.parse_lengths(None, "test"),
                       grid.parse_samples(None, "test"))
    assert len(usual) == 9 and {s.task for s in usual} == {"niah_single_1", "vt", "cwe"}
    # options still choose, on either model
    assert grid.parse_lengths("1k", "test", True) == (1024,)


def test_below_512_a_needle_haystack_may_be_the_needle_alone_then_grows_by_a_line():
    from benchmarks.ruler import fitting
    from fixtures.tokens.tokenizer import o200k

    lines = {}
    for length in (216, 240, 288):
        fitted = fitting.build(grid.RulerSample("niah_multikey_2", length, 0), o200k())
        assert fitted.tokens + 128 <= length
        lines[length] = fitted.prompt.text.count("One of the special magic numbers for")
    assert lines == {216: 1, 240: 3, 288: 5}
