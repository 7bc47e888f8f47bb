"""The grid: bins as the original defines them, ids, options, the test scale's size."""

from __future__ import annotations

import pytest

from benchmarks.mrcr import grid
from benchmarks.mrcr.test_mrcr import rejected
from fixtures.providers.base import EndpointFatal

from .test_original import options


def test_the_originals_bins_first_closed_then_left_open():
    assert [(b.low, b.high) for b in grid.BINS] == [
        (4096, 8192), (8192, 16384), (16384, 32768), (32768, 65536), (65536, 131072),
        (131072, 262144), (262144, 524288), (524288, 1048576)]
    first, second = grid.BINS[0], grid.BINS[1]
    assert first.holds(4096) and first.holds(8192) and not first.holds(8193)
    assert not second.holds(8192) and second.holds(8193) and second.holds(16384)
    assert [b.label for b in grid.BINS] == ["4k-8k", "8k-16k", "16k-32k", "32k-64k",
                                           "64k-128k", "128k-256k", "256k-512k", "512k-1M"]
    assert [b.id for b in grid.BINS] == ["b8k", "b16k", "b32k", "b64k", "b128k", "b256k",
                                        "b512k", "b1m"]
    assert [(b.id, b.label) for b in grid.TEST_BINS] == [
        ("tb1k", "test 0.5k-1k"), ("tb2k", "test 1k-2k"), ("tb4k", "test 2k-4k")]
    assert not grid.TEST_BINS[-1].holds(2048)  # test-only bins are left-open too


def test_the_test_scale_is_small_and_has_a_curve_with_the_4k_8k_bin():
    samples = grid.build(grid.settings(options(mrcr_source="generated", model="m")))
    assert [s.id for s in samples] == ["gen-nd2-tb1k-s000", "gen-nd2-tb2k-s000",
                                       "gen-nd2-tb4k-s000", "gen-nd2-b8k-s000"]
    # on the embedded model the generated rows keep the test-only bins alone; the
    # original's rows keep 4k-8k
    embedded = grid.build(grid.settings(options(mrcr_source="both")))
    assert [s.id for s in embedded if s.source == "generated"] == \
        [s.id for s in samples[:3]]
    assert sum(s.bin_high for s in samples) <= 16_000  # prompt tokens: less than that
    assert {s.max_passage for s in samples} == {200}  # short answers: short replies
    smoke = grid.smoke_rule(samples)
    assert [s.id for s in samples if smoke(s)] == ["gen-nd2-tb1k-s000"]


def test_full_scale_goes_to_128k_and_every_bin_is_an_option():
    remote = {"scale": "full", "model": "m", "mrcr_source": "generated"}
    found = grid.build(grid.settings(options(**remote)))
    assert len(found) == 3 * 5 * 100 and max(s.bin_high for s in found) == 131072
    assert {s.max_passage for s in found} == {800}
    everything = grid.build(grid.settings(options(**remote, mrcr_max_bin="1m",
                                                  mrcr_samples=2)))
    assert {s.bin for s in everything} == {b.label for b in grid.BINS}
    # bins the context cannot hold are not built at all
    small = grid.build(grid.settings(options(**remote, max_context=20000)))
    assert {s.bin for s in small} == {"4k-8k", "8k-16k", "16k-32k"}
    embedded = grid.build(grid.settings(options(scale="full", mrcr_source="generated")))
    assert {s.bin for s in embedded} == {"4k-8k"}


@pytest.mark.parametrize("overrides, message", [
    ({"mrcr_needles": ["3"]}, "--mrcr-needles 3: the original has 2, 4 and 8 needles"),
    ({"mrcr_max_bin": "2m", "scale": "full"}, "--mrcr-max-bin 2m: one of 8k, 16k"),
    ({"mrcr_samples": -1}, "--mrcr-samples -1: give 1 or more"),
    ({"mrcr_max_tokens": "0"}, "--mrcr-max-tokens 0: give a positive number of tokens, "
                               "'answer' .* or 'none'"),
    ({"mrcr_max_tokens": "lots"}, "--mrcr-max-tokens lots: give a positive number"),
    ({"mrcr_temperature": "hot"}, "--mrcr-temperature hot: give a temperature from 0 to 2"),
    ({"mrcr_temperature": "-1"}, "--mrcr-temperature -1: give a temperature from 0 to 2"),
    ({"scale": "full", "max_context": 3000}, "MRCR's smallest bin starts at 4096"),
])
def test_a_bad_option_is_one_line_naming_the_fix(overrides, message):
    with pytest.raises(ValueError, match=message):
        grid.settings(options(**overrides))


def test_full_scale_sends_no_cap_and_no_temperature_as_the_original_unless_asked():
    full = grid.settings(options(scale="full", model="m"))
    assert full.output_cap(500) is None and full.temperature is None
    test = grid.settings(options())  # the test scale: a cap and temperature 0, as before
    assert test.output_cap(500) == 1016 and test.temperature == 0.0
    asked = grid.settings(options(scale="full", model="m", mrcr_max_tokens="answer",
                                  mrcr_temperature="0"))
    assert asked.output_cap(500) == 1016 and asked.temperature == 0.0
    fixed = grid.settings(options(mrcr_max_tokens="4096", mrcr_temperature="None"))
    assert fixed.output_cap(500) == 4096 and fixed.temperature is None
    assert grid.settings(options(mrcr_max_tokens="none")).output_cap(500) is None


def test_needle_counts_combine_and_test_bins_take_only_the_needles_they_hold():
    settings = grid.settings(options(mrcr_needles=["2,8", "4"], mrcr_source="generated",
                                     model="m"))
    ids = [s.id for s in grid.build(settings)]
    assert settings.needles == (2, 4, 8)
    assert "gen-nd4-tb1k-s000" in ids and "gen-nd8-tb1k-s000" not in ids
    assert "gen-nd8-tb2k-s000" in ids and "gen-nd8-b8k-s000" in ids


def test_only_a_400_or_422_answer_is_taken_for_a_rejected_conversation():
    class Rejected(Exception):
        status_code = 400

    assert rejected(Rejected())
    assert rejected(EndpointFatal("h answered 422 to POST /chat/completions (roles): x"))
    assert not rejected(EndpointFatal("h answered 404 to POST /chat/completions: x"))
    assert not rejected(RuntimeError("timeout"))


def test_plan_sizes_generated_samples_unbuilt_and_builds_only_what_may_not_fit():
    """``request_size`` (``--plan``): an upper bound for a generated sample, never built; None
    (the planner builds it) where the bound would not fit the context but the sample might."""
    import types

    from benchmarks.mrcr import generate, test_mrcr
    from fixtures.tokens.tokenizer import o200k

    option = options(scale="full", model="m", mrcr_source="generated")
    settings = grid.settings(option)
    sample = next(s for s in grid.build(settings) if s.bin_high == 16384)

    def ctx(context):
        model = types.SimpleNamespace(context_length=context, thinking_budget=0,
                                      max_output_tokens=32768)
        return types.SimpleNamespace(option=option, model=model,
                                     tokenizer=o200k())

    bound = generate.size_bounds(sample.needles, 16384, sample.max_passage)
    assert test_mrcr.request_size(sample, ctx(None)) == (bound[0], None)  # full: no cap
    assert test_mrcr.request_size(sample, ctx(16384)) == (bound[0], None)
    assert test_mrcr.request_size(sample, ctx(12000)) is None  # the bin straddles it: built
