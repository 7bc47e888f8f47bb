"""Tiers, divisions, start context, ids and the options' checks."""

import pytest
from hypothesis import given, strategies as st

from benchmarks.continuation import grid


def test_powers_of_two_up_to_the_context():
    assert grid.tiers(8192) == [1024, 2048, 4096, 8192]
    assert grid.tiers(10000) == [1024, 2048, 4096, 8192]
    assert grid.tiers(1023) == []


def test_divisions_add_evenly_spaced_tiers():
    assert grid.tiers(4096, divisions=2) == [1024, 1536, 2048, 3072, 4096]
    assert grid.tiers(2048, divisions=4) == [1024, 1280, 1536, 1792, 2048]
    assert grid.tiers(16384, divisions=2)[-3:] == [8192, 12288, 16384]


def test_start_context_filters():
    assert grid.tiers(16384, start_context=4096) == [4096, 8192, 16384]
    assert grid.tiers(8192, start_context=3000, divisions=2) == [3072, 4096, 6144, 8192]


@pytest.mark.parametrize("divisions", [0, 3, 6, 512])
def test_bad_divisions(divisions):
    with pytest.raises(ValueError, match="power of two"):
        grid.tiers(8192, divisions=divisions)


@given(st.integers(1024, 1 << 20), st.sampled_from([1, 2, 4, 8, 16]),
       st.integers(0, 1 << 20))
def test_tiers_sorted_unique_bounded(ceiling, divisions, start):
    found = grid.tiers(ceiling, start, divisions)
    assert found == sorted(set(found))
    assert all(start <= t <= ceiling for t in found)
    ids = [grid.tier_id(t) for t in found]
    assert len(set(ids)) == len(ids)


def test_ids():
    assert grid.ContinuationSample("emma", 1024, 0).id == "ctx1k-r00"
    assert grid.ContinuationSample("emma", 1536, 1).id == "ctx1.5k-r01"
    assert grid.tier_id(131072) == "ctx128k" and grid.tier_id(1280) == "ctx1280t"
    assert grid.tier_label(1536) == "1.5K"


class Config:
    def __init__(self, **options):
        self.options = {"scale": "test", "max_context": None, "model": None,
                        "continuation_text": None, "continuation_rounds": None,
                        "continuation_divisions": 1, "continuation_start_context": 1024,
                        "continuation_max_tokens": None, "continuation_temp": 1.0,
                        "continuation_top_k": 100, "continuation_top_p": 1.0,
                        "continuation_min_p": 0.1, "continuation_rep_pen": 1.01,
                        "continuation_seed": 0, "continuation_point": None,
                        "continuation_token_allowance": 1.1,
                        "continuation_metric_set": "context-tester", **options}

    def getoption(self, name):
        return self.options[name]


def test_collection_ceiling_follows_the_model():
    assert grid.settings(Config()).ceiling == 8192  # the embedded model
    assert grid.settings(Config(model="m")).ceiling == 131072  # unknown until run time
    assert grid.settings(Config(model="m", max_context=32768)).ceiling == 32768


def test_scale_defaults_and_grid_order():
    test = grid.settings(Config())
    full = grid.settings(Config(scale="full"))
    assert (test.rounds, test.max_tokens) == (1, 128)
    assert (full.rounds, full.max_tokens) == (3, 512)
    # the embedded model's main job stops at 2k; a model named by --model goes to 4k
    assert [s.id for s in grid.build(test, "emma")] == ["ctx1k-r00", "ctx2k-r00"]
    remote = grid.settings(Config(model="m", max_context=8192))
    assert [s.id for s in grid.build(remote, "emma")] == ["ctx1k-r00", "ctx2k-r00",
                                                          "ctx4k-r00"]
    assert [s.id for s in grid.build(full, "emma")][-3:] == ["ctx8k-r00", "ctx8k-r01",
                                                              "ctx8k-r02"]
    assert test.ceiling == full.ceiling == 8192  # the same continuation point at both scales


def test_the_test_scale_stops_at_its_largest_tier():
    with pytest.raises(ValueError, match=r"largest context 4096; lower it \(or run --scale full"):
        grid.settings(Config(model="m", continuation_start_context=8192))
    with pytest.raises(ValueError, match=r"largest context 2048; lower it"):
        grid.settings(Config(continuation_start_context=4096))
    assert grid.settings(Config(scale="full", continuation_start_context=8192)).tiers() == [8192]


@pytest.mark.parametrize("options, message", [
    ({"continuation_rounds": 0}, "--continuation-rounds"),
    ({"continuation_top_p": 0.0}, "--continuation-top-p"),
    ({"continuation_min_p": 2.0}, "--continuation-min-p"),
    ({"continuation_divisions": 3}, "power of two"),
    ({"continuation_start_context": 100000}, "--continuation-start-context"),
    ({"max_context": 512}, "--max-context"),
    ({"continuation_seed": -1}, "--continuation-seed"),
])
def test_bad_options_name_the_fix(options, message):
    with pytest.raises(ValueError, match=message):
        grid.settings(Config(**options))


def test_seed_zero_is_kept():
    assert grid.settings(Config(continuation_seed=0)).seed == 0
