"""Every experiment's cliffs, and each lab's aggregate beside the per-length curve, from the
same records (reporting/analysis/cliffs.py, aggregations.py), as a run's findings carry them
(summary.json, the terminal, report.html)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from benchmarks.mrcr import EXPERIMENT as MRCR
from benchmarks.mrcr.grid import BINS
from reporting.analysis.cliffs import CLIFF_SHARE, cliffs
from reporting.analysis.curve_tables import CurvePoint
from reporting.render.run_files import findings_of
from reporting.storage.records import SampleRecord, stimulus_hash
from reporting.storage.store import records_frame

from .helpers import RATE, rate_run

CURVED = dataclasses.replace(RATE, length="params.length")


def findings(records, experiment=CURVED) -> dict:
    return findings_of(records_frame(records), {experiment.name: experiment}).get(
        experiment.name, {})


def test_a_scripted_fall_past_the_share_is_one_cliff_and_a_flat_curve_none():
    """20/20 at 1k, 19/20 at 2k, 6/20 at 4k: one cliff, 2k to 4k (a 68% fall, the Wilson
    intervals apart); 18/20 everywhere: none."""
    found = findings(rate_run("r", {1024: 20, 2048: 19, 4096: 6}))
    assert [(c["from"], c["to"]) for c in found["cliffs"]["cliffs"]] == [(2048, 4096)]
    assert found["cliffs"]["cliffs"][0]["relative_fall"] == pytest.approx(1 - 6 / 19)
    assert found["cliffs"]["share"] == CLIFF_SHARE == 0.30
    assert any(line.startswith("cliff: accuracy 0.950") and "at 2,048 -> 0.300" in line
               and "68% relative fall" in line for line in found["lines"])
    assert "cliffs" not in findings(rate_run("r", {1024: 18, 2048: 18, 4096: 18}))
    json.dumps(found)  # summary.json holds it


def test_a_fall_within_the_noise_or_under_the_share_is_no_cliff():
    # 3 of 4 then 1 of 4: a 67% fall, but four samples a length: the intervals overlap
    assert "cliffs" not in findings(rate_run("r", {1024: 3, 2048: 1}, size=4))
    # 100 of 100 then 75 of 100: intervals apart, a 25% fall: under the share
    assert "cliffs" not in findings(rate_run("r", {1024: 100, 2048: 75}, size=100))


def test_lower_is_better_rises_are_cliffs():
    points = [CurvePoint(1, 0.1, 0.05, 0.15, 50, 0), CurvePoint(2, 0.5, 0.4, 0.6, 50, 0)]
    assert cliffs(points, higher_is_better=True) == []
    assert [c["to"] for c in cliffs(points, higher_is_better=False)] == [2]


def mrcr_run(source: str = "openai", needles: int = 8, per_bin: int = 4) -> list[SampleRecord]:
    """Ratio 1.0 - 0.1 x the bin's index in every sample (4K-8K 1.0 ... 512K-1M 0.3)."""
    return [SampleRecord(
        experiment="mrcr", sample_id=f"{source}-nd{needles}-b{b.high}-s{i}", run_id="r",
        params={"source": source, "needles": needles, "bin_low": b.low, "bin_high": b.high,
                "test_bin": False, "index": i},
        stimulus_hash=stimulus_hash([source, needles, b.high, i]), model={"name": "toy"},
        output="x", scores={"ratio": round(1.0 - 0.1 * k, 3)})
        for k, b in enumerate(BINS) for i in range(per_bin)]


def test_an_mrcr_run_carries_each_labs_aggregate_beside_its_own_kind_of_rows():
    found = findings(mrcr_run(), MRCR)["aggregations"]["aggregations"]
    by_name = {a["name"]: a for a in found}
    assert list(by_name) == ["OpenAI per-bin", "Google 128K cumulative", "Google 1M pointwise"]
    per_bin = by_name["OpenAI per-bin"]["series"][0]
    assert per_bin["series"] == "source openai, needles 8"
    assert per_bin["values"]["4K-8K"]["mean"] == 1.0 and per_bin["values"]["4K-8K"]["n"] == 4
    assert per_bin["values"]["512K-1M"]["mean"] == pytest.approx(0.3)
    cumulative = by_name["Google 128K cumulative"]["series"][0]["values"]["64K-128K"]
    assert cumulative["mean"] == pytest.approx((1.0 + 0.9 + 0.8 + 0.7 + 0.6) / 5)
    assert cumulative["n"] == 20 and cumulative["lengths"] == 5
    pointwise = by_name["Google 1M pointwise"]["series"][0]["values"]["1M"]
    assert pointwise["mean"] == pytest.approx(0.3) and pointwise["n"] == 4
    # each beside the published rows of its kind alone
    assert [r["model"] for r in by_name["OpenAI per-bin"]["published"]] == ["GPT-5.5",
                                                                           "GPT-6 Astra"]
    assert [r["model"] for r in by_name["Google 128K cumulative"]["published"]] == [
        "Gemini 3.7 Flash"]
    assert [r["model"] for r in by_name["Google 1M pointwise"]["published"]] == [
        "Gemini 3.6 Flash"]
    assert by_name["OpenAI per-bin"]["comparable"]
    for name in ("Google 128K cumulative", "Google 1M pointwise"):
        assert not by_name[name]["comparable"]
        assert "DeepMind's own MRCR v2" in by_name[name]["not_comparable"]
    for row in (r for a in found for r in a["published"]):
        assert row["source"] and row["version"] and row["settings"]


def test_a_run_off_the_cards_protocol_is_marked_not_comparable_with_why():
    found = findings(mrcr_run("generated", needles=2), MRCR)["aggregations"]["aggregations"]
    openai = found[0]
    assert not openai["comparable"]
    assert "source openai not scored" in openai["not_comparable"]
    assert "needles 8 not scored" in openai["not_comparable"]
    lines = findings(mrcr_run("generated", needles=2), MRCR)["lines"]
    assert any(line.startswith("  published, OpenAI per-bin (%): GPT-5.5 4K-8K 98.1")
               and "not comparable: source openai not scored" in line for line in lines)


def test_a_cumulative_aggregate_needs_every_bin_up_to_its_length():
    records = [r for r in mrcr_run() if r.params["bin_high"] != 32768]
    google = findings(records, MRCR)["aggregations"]["aggregations"][1]["series"][0]
    assert google["values"] == {} and google["missing"] == ["16K-32K"]


def test_the_run_files_carry_them_in_summary_json_and_the_report(tmp_path):
    from reporting.analysis.verdict_settings import VerdictSettings
    from reporting.render.run_files import write_run_files

    frame = records_frame(mrcr_run())
    write_run_files(tmp_path, "r", {"options": {"scale": "test"}}, frame, {"mrcr": MRCR},
                    VerdictSettings())
    summary = json.loads((tmp_path / "summary.json").read_text())
    names = [a["name"] for a in summary["findings"]["mrcr"]["aggregations"]["aggregations"]]
    assert names == ["OpenAI per-bin", "Google 128K cumulative", "Google 1M pointwise"]
    report = (tmp_path / "report.html").read_text()
    assert "published, OpenAI per-bin (%): GPT-5.5 4K-8K 98.1" in report
    assert "Google 1M pointwise (pointwise), source openai, needles 8: 1M 0.300" in report
