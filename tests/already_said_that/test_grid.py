"""The grid: ids, sizes, the smoke sample, option checks, determinism."""

from __future__ import annotations

import pytest

from benchmarks.already_said_that import grid


def test_test_scale_is_five_variants_of_three_lists_plus_the_smoke_conversation():
    samples = grid.build("test", grid.Settings())
    assert len(samples) == 5 * 3 + 1
    assert [s.variant for s in samples[::3][:5]] == list(grid.VARIANTS)
    smoke = [s for s in samples if grid.smoke_rule(samples)(s)]
    assert len(smoke) == 1 and smoke[0].max_turns == grid.SMOKE_MAX_TURNS
    assert smoke[0].id == f"which_is_heavier-t{grid.SMOKE_MAX_TURNS}-s{smoke[0].index:03d}"
    ids = [s.id for s in samples]
    assert not any(a != b and b.startswith(a) for a in ids for b in ids)  # -k is exact
    assert len({s.id for s in samples}) == len(samples)


def test_full_scale_takes_250_of_the_500_lists():
    samples = grid.build("full", grid.Settings())
    lists = {s.index for s in samples}
    assert len(samples) == 5 * 250 + 1 and len(lists) == 250
    assert all(0 <= i < 500 for i in lists)


def test_ids_are_letter_prefixed_and_selectable():
    sample = grid.build("test", grid.Settings(samples=1))[0]
    assert sample.id == f"which_is_heavier-s{sample.index:03d}"
    params = sample.params()
    assert params["variant"] == "which_is_heavier" and params["max_turns"] == 100


def test_the_grid_and_the_seeds_are_deterministic():
    first = grid.build("test", grid.Settings(seed=3))
    assert first == grid.build("test", grid.Settings(seed=3))
    assert first != grid.build("test", grid.Settings(seed=4))
    assert len({s.rng_seed for s in first}) == len(first) - 1  # the smoke shares a list


def test_wordnet_lists_are_numbered_from_zero():
    samples = grid.build("test", grid.Settings(word_source="wordnet", samples=600))
    assert sorted({s.index for s in samples}) == list(range(600))


def test_short_conversations_need_no_extra_smoke_sample():
    samples = grid.build("test", grid.Settings(max_turns=3))
    assert len(samples) == 15
    assert sum(grid.smoke_rule(samples)(s) for s in samples) == 1


@pytest.mark.parametrize("values, expected", [
    (None, grid.VARIANTS),
    (["distractorless", "which-is-heavier"], ("which_is_heavier", "distractorless")),
])
def test_variant_option(values, expected):
    assert grid.parse_variants(values) == expected


@pytest.mark.parametrize("settings, message", [
    (grid.Settings(max_turns=0), "--ast-max-turns 0"),
    (grid.Settings(max_turns=101), "--ast-max-turns 101"),
    (grid.Settings(samples=0), "--ast-samples 0"),
    (grid.Settings(samples=501), "--ast-words wordnet"),
    (grid.Settings(max_tokens=0), "--ast-max-tokens 0"),
    (grid.Settings(distractor_match="close"), "--ast-distractor-match 'close'"),
])
def test_bad_options_are_named(settings, message):
    with pytest.raises(ValueError, match=message):
        grid.build("test", settings)


def test_an_unknown_variant_is_named():
    with pytest.raises(ValueError, match="'heavy': unknown variant"):
        grid.parse_variants(["heavy"])


def test_output_budget_per_scale():
    assert grid.max_tokens("test", grid.Settings()) == 64
    assert grid.max_tokens("full", grid.Settings()) == 512
    assert grid.max_tokens("test", grid.Settings(max_tokens=200)) == 200


@pytest.mark.parametrize("option, fuzzy_variants", [
    ("exact", set()),
    ("fuzzy", {"ambiguous_sentences"}),  # where the source eval graded with FuzzyMatch
    ("fuzzy-all", set(grid.VARIANTS)),
])
def test_fuzzy_matching_applies_where_the_source_eval_applied_it(option, fuzzy_variants):
    samples = grid.build("test", grid.Settings(distractor_match=option))
    assert {s.variant for s in samples if s.distractor_match == "fuzzy"} == fuzzy_variants
    assert {s.distractor_match for s in samples} <= {"exact", "fuzzy"}  # as applied


def test_a_variant_graded_exactly_either_way_has_the_same_sample():
    exact = grid.build("test", grid.Settings())
    fuzzy = grid.build("test", grid.Settings(distractor_match="fuzzy"))
    same = [a == b for a, b in zip(exact, fuzzy)]
    assert same == [s.variant != "ambiguous_sentences" for s in exact]
