"""The summary table (paired McNemar tests on known tables) and the rendered files."""

import math

import pandas as pd
import pytest

from benchmarks.re3 import plots
from benchmarks.re3.summary import COLUMNS, paired, summary_table
from reporting.analysis.stats import mcnemar
from reporting.storage.store import records_frame
from reporting.storage.records import SampleRecord


def record(config, pattern, strategy, item, correct, *, benchmark="gsm8k", phase=1,
           outcome="ok", extracted=True):
    return SampleRecord(
        experiment="re3", sample_id=f"{config}-{strategy}-{item}", nodeid=f"x[{config}-{item}]",
        run_id="r", params={"phase": phase, "config_id": config, "pattern": pattern,
                            "b_strategy": strategy, "benchmark": benchmark, "item_id": item},
        outcome=outcome,
        scores={} if outcome != "ok" else {"correct": correct, "extracted": extracted})


def frame_of(*records):
    return records_frame(records)


@pytest.mark.parametrize("only_first, only_second, p", [
    (0, 0, 1.0),
    (5, 0, 0.0625),  # 2 * 0.5**5
    (0, 5, 0.0625),
    (10, 0, 2 * 0.5 ** 10),
    (6, 2, 0.2890625),  # 2 * P(X <= 2), X ~ Bin(8, 0.5) = 2 * 37/256
    (3, 3, 1.0),
])
def test_exact_mcnemar_on_known_tables(only_first, only_second, p):
    assert mcnemar(only_first, only_second) == pytest.approx(p)


def test_paired_comparison_uses_only_common_items():
    cell = pd.DataFrame({"item_id": ["a", "b", "c", "d", "e"], "correct": [1, 1, 1, 0, 1]})
    reference = pd.DataFrame({"item_id": ["a", "b", "c", "d", "z"], "correct": [0, 0, 1, 1, 0]})
    result = paired(cell.astype({"correct": bool}), reference.astype({"correct": bool}))
    assert result["n_paired"] == 4
    assert result["accuracy"] == pytest.approx((1 + 1 + 0 - 1) / 4)
    assert result["mcnemar_p"] == pytest.approx(mcnemar(2, 1))  # = 1.0
    assert result["accuracy_ci_low"] <= result["accuracy"] <= result["accuracy_ci_high"]


def test_summary_rows_counts_intervals_and_comparisons():
    items = [f"i{k}" for k in range(10)]
    records = []
    for k, item in enumerate(items):
        records.append(record("C01", "A", "none", item, k < 3))  # 3 / 10
        records.append(record("C03", "AA", "none", item, k < 5))  # 5 / 10
        records.append(record("C09", "ABA", "camelcase", item, k < 9))  # 9 / 10
    records.append(record("C09", "ABA", "camelcase", "i10", None, outcome="skipped"))
    records.append(record("C09", "ABA", "camelcase", "i11", False, extracted=False))
    table = summary_table(frame_of(*records))
    assert list(table.columns) == COLUMNS
    rows = {r["config_id"]: r for r in table.to_dict("records")}
    assert (rows["C01"]["n_correct"], rows["C01"]["n_total"]) == (3, 10)
    c09 = rows["C09"]
    assert (c09["n_correct"], c09["n_total"], c09["n_not_scored"], c09["n_unextracted"]) == \
        (9, 11, 1, 1)
    assert c09["ci_low"] < 9 / 11 < c09["ci_high"]
    # against C01 on the 10 shared items: 6 discordant pairs, all in C09's favour
    assert c09["n_paired_baseline"] == 10
    assert c09["accuracy_vs_baseline"] == pytest.approx(0.6)
    assert c09["mcnemar_p_baseline"] == pytest.approx(mcnemar(6, 0))
    assert c09["accuracy_vs_re2"] == pytest.approx(0.4)
    assert c09["mcnemar_p_re2"] == pytest.approx(mcnemar(4, 0))
    assert math.isnan(rows["C01"]["accuracy_vs_baseline"])  # not compared with itself
    assert rows["C01"]["accuracy_vs_re2"] == pytest.approx(-0.2)


def test_comparisons_stay_within_a_benchmark():
    table = summary_table(frame_of(record("C01", "A", "none", "i0", True),
                                   record("C04", "AB", "camelcase", "i0", False,
                                          benchmark="mmlu")))
    mmlu = table[table["benchmark"] == "mmlu"].iloc[0]
    assert mmlu["n_paired_baseline"] == 0 and math.isnan(mmlu["accuracy_vs_baseline"])


def test_render_writes_the_csv_and_both_plots(tmp_path):
    records = [record(c, p, s, f"i{k}", (k + len(p)) % 3 == 0, benchmark=b)
               for c, p, s in (("C01", "A", "none"), ("C03", "AA", "none"),
                               ("C04", "AB", "camelcase"), ("C04", "AB", "uppercase"))
               for b in ("gsm8k", "niah_1k") for k in range(6)]
    paths = plots.render(frame_of(*records), tmp_path)
    assert [p.name for p in paths] == ["summary.csv", "accuracy.png", "gain_over_baseline.png"]
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    table = pd.read_csv(tmp_path / "summary.csv")
    assert len(table) == 8 and set(table["benchmark"]) == {"gsm8k", "niah_1k"}


def test_render_of_records_without_scores(tmp_path):
    frame = frame_of(record("C01", "A", "none", "i0", None, outcome="skipped"))
    paths = plots.render(frame, tmp_path)
    table = pd.read_csv(paths[0])
    assert table.loc[0, "n_total"] == 0 and table.loc[0, "n_not_scored"] == 1
