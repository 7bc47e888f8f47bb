"""Each phase's grid, and the benchmark items behind it."""

import dataclasses

import pytest

from benchmarks.re3 import grid, items
from benchmarks.re3.patterns import CONFIGURATIONS
from fixtures.tokens.tokenizer import o200k


def test_phase1_is_the_fourteen_configurations_with_b1_on_gsm8k():
    samples = grid.phase1(grid.counts("full", 1))
    assert len(samples) == 14 * 50  # the spec's 700 runs
    assert {s.config_id for s in samples} == {c.config_id for c in CONFIGURATIONS}
    assert {s.benchmark for s in samples} == {"gsm8k"}
    for s in samples:  # a pattern without B does not depend on the strategy
        assert s.b_strategy == ("camelcase" if "B" in s.pattern else "none")
    ids = [s.id for s in samples]
    assert len(set(ids)) == len(ids) and all(i[0].isalpha() for i in ids)
    assert samples == grid.phase1(grid.counts("full", 1))  # deterministic order


def test_phase2_runs_every_strategy_and_the_two_references():
    samples = grid.phase2(["C09", "C04", "C07", "C14", "C02"],
                          grid.parse_strategies(None, "--re3-strategies"), grid.counts("full", 2))
    runs = {(s.config_id, s.b_strategy) for s in samples}
    assert runs == {(c, b) for c in ("C09", "C04", "C14", "C02")
                    for b in ("camelcase", "digitspace", "lowercase", "uppercase")} | \
        {("C07", "none"), ("C01", "none"), ("C03", "none")}
    assert len(samples) == len(runs) * 50


def test_phase3_runs_every_benchmark_with_the_best_strategy():
    count = grid.counts("full", 3)
    samples = grid.phase3(["C05", "C03", "C12"], "digitspace", count)
    assert {(s.config_id, s.b_strategy) for s in samples} == {
        ("C05", "digitspace"), ("C12", "digitspace"), ("C03", "none"), ("C01", "none")}
    per_config = [s for s in samples if s.config_id == "C05"]
    assert len(per_config) == 100 + 50 + 3 * 17  # GSM8K, MMLU, NIAH at 1k, 4k, 8k
    assert {s.benchmark for s in samples} == {"gsm8k", "mmlu", "niah_1k", "niah_4k", "niah_8k"}


def test_counts_options_and_scales():
    assert grid.counts("test", 1) == grid.Counts(1, 2, 1)
    assert grid.counts("test", 2) == grid.Counts(2, 2, 1)
    assert grid.counts("full", 3, gsm8k=7) == grid.Counts(7, 50, 17)
    with pytest.raises(ValueError, match="--re3-mmlu-items 0"):
        grid.counts("test", 1, mmlu=0)
    with pytest.raises(ValueError, match="--re3-strategies 'camel'"):
        grid.parse_strategies("camel", "--re3-strategies")
    assert grid.parse_strategies("lowercase, camelcase", "x") == ("lowercase", "camelcase")


def test_params_carry_the_run_record_fields():
    sample = grid.phase1(grid.counts("test", 1))[0]
    assert sample.params() == {"phase": 1, "config_id": "C01", "pattern": "A",
                               "b_strategy": "none", "benchmark": "gsm8k",
                               "item_id": "gsm8k_0000"}
    assert sample.id == "C01-none-gsm8k_0000"


def test_gsm8k_items_are_the_first_of_the_test_split():
    first = items.gsm8k_item("gsm8k_0000")
    assert first.prompt_a.startswith("Janet") and first.expected == "18"
    assert items.gsm8k_ids(3) == ["gsm8k_0000", "gsm8k_0001", "gsm8k_0002"]


def test_mmlu_subset_is_mixed_stable_and_a_prefix():
    fifty = items.mmlu_ids(50)
    assert items.mmlu_ids(5) == fifty[:5]
    assert len(set(fifty)) == 50
    subjects = {i.rsplit("_", 1)[0] for i in fifty}
    assert len(subjects) == 50  # 50 items from 50 different subjects
    assert len(items.mmlu_subjects()) == 57
    item = items.mmlu_item(fifty[0])
    assert item.expected in "ABCD"
    lines = item.prompt_a.splitlines()
    assert [line[:3] for line in lines[-4:]] == ["A. ", "B. ", "C. ", "D. "]


def test_a_niah_item_hides_its_number_in_a_haystack_of_the_length():
    tokenizer = o200k()
    item = items.niah_item("niah_1k_000", tokenizer)
    number, depth, _ = items.niah_needle("niah_1k_000")
    assert item.expected == number and len(number) == 7
    assert item.prompt_a.count(f"The secret number is {number}.") == 1
    assert item.prompt_a.endswith(items.NIAH_QUESTION)
    assert abs(tokenizer.count(item.prompt_a) - 1000) <= 10
    assert items.niah_item("niah_1k_000", tokenizer) == item  # byte-identical again
    assert items.niah_item("niah_1k_001", tokenizer).prompt_a != item.prompt_a


def test_samples_are_frozen():
    sample = grid.phase1(grid.counts("test", 1))[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample.phase = 2
