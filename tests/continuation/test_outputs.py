"""The tier table (spread, references, degradation flags), the CSV, both pages, the comparison."""

import pandas as pd
import pytest

from benchmarks.continuation import compare, plots, table
from reporting.storage.records import SampleRecord
from reporting.storage.store import records_frame


def records(model="m", cloze=(30.0, 31.0, 35.0, 35.5), diversity=(0.6, 0.58, 0.5, 0.5)):
    found = []
    for context, c, d in zip((1024, 2048, 4096, 8192), cloze, diversity):
        for r, jitter in enumerate((-0.5, 0.5)):
            found.append(SampleRecord(
                experiment="continuation", sample_id=f"ctx-{context}-r{r}", run_id="run",
                params={"text": "emma", "context": context, "round": r},
                model={"name": model, "sampling": {"temperature": 1.0, "top_k": 100}},
                target_tokens=context - 300, max_tokens=128,
                scores={"cloze_score": c + jitter, "vocabulary_diversity": d,
                        "sentence_length_variance": 50.0, "continuation_tokens": 120},
                details={"truth": {"cloze_score": 28.0, "vocabulary_diversity": 0.7},
                         "context": {"cloze_score": 29.0}, "base_seed": 0,
                         "continuation_point_tokens": 9031, "truth_sha256": "abc"}))
    found.append(SampleRecord(experiment="continuation", sample_id="big", run_id="run",
                              params={"text": "emma", "context": 16384, "round": 0},
                              outcome="skipped", reason="does not fit"))
    return records_frame(found)


def test_tier_table_means_spread_and_references():
    tiers = table.tier_table(records())
    assert list(tiers["context"]) == [1024, 2048, 4096, 8192, 16384]
    first = tiers.iloc[0]
    assert first["cloze_score_mean"] == pytest.approx(30.0)
    assert first["cloze_score_sd"] == pytest.approx(0.7071, abs=1e-3)
    assert first["cloze_score_n"] == 2 and first["rounds_ok"] == 2
    assert first["truth_cloze_score"] == 28.0 and first["context_cloze_score"] == 29.0
    assert tiers.iloc[-1]["skip_reason"] == "does not fit" and tiers.iloc[-1]["rounds_ok"] == 0


def test_degradation_flags_use_the_documented_thresholds():
    tiers = table.tier_table(records())
    # cloze 30 -> 31 (+1, no), 31 -> 35 (+4 > 3, yes), 35 -> 35.5 (no)
    assert list(tiers["degraded_cloze_score"]) == [False, False, True, False, False]
    # diversity 0.6 -> 0.58 (-0.02, no), 0.58 -> 0.5 (-0.08 > 0.05, yes)
    assert list(tiers["degraded_vocabulary_diversity"]) == [False, False, True, False, False]
    assert list(tiers["degraded"]) == [False, False, True, False, False]


def test_render_writes_the_csv_and_two_pages(tmp_path):
    paths = plots.render(records(), tmp_path)
    assert [p.name for p in paths] == ["continuation.csv", "continuation.png",
                                       "continuation-metrics.png"]
    assert all(p.stat().st_size > 1000 for p in paths[1:])
    csv = pd.read_csv(paths[0])
    assert len(csv) == 5 and {"cloze_score_mean", "cloze_score_sd", "truth_cloze_score",
                              "degraded"} <= set(csv.columns)


def test_compare_overlays_runs(tmp_path, capsys):
    a = plots.render(records("model-a"), tmp_path / "a")[0]
    b = plots.render(records("model-b", cloze=(20, 21, 22, 23)), tmp_path / "b")[0]
    assert compare.main([str(a), str(b), "--out", str(tmp_path / "cmp")]) == 0
    printed = capsys.readouterr().out.split()
    assert [p.rsplit("/", 1)[-1] for p in printed] == ["comparison.png",
                                                      "comparison-metrics.png"]
    assert compare.labels([a, b], [compare.read_run(a), compare.read_run(b)]) == [
        "model-a / emma", "model-b / emma"]


def test_compare_labels_tell_same_model_runs_apart(tmp_path):
    paths = [plots.render(records(), tmp_path / run / "plots")[0] for run in ("r1", "r2")]
    assert compare.labels(paths, [compare.read_run(p) for p in paths]) == [
        "m / emma (r1)", "m / emma (r2)"]


def test_compare_names_runs_from_different_points(tmp_path):
    a = compare.read_run(plots.render(records(), tmp_path / "a")[0])
    b = a.assign(continuation_point_tokens=5000)
    assert compare.mismatches([a, b], ["a", "b"])
    assert not compare.mismatches([a, a], ["a", "a2"])


def test_compare_rejects_a_foreign_csv(tmp_path):
    other = tmp_path / "other.csv"
    other.write_text("x,y\n1,2\n")
    with pytest.raises(SystemExit, match="lacks"):
        compare.read_run(other)


# -- rounds without words, in both metric sets ---------------------------------------------
PROSE = "The cat sat down. The unfamiliar creatures chased the cat."  # cloze 32.05 / 41.55


def scored(outputs_by_tier: dict, metric_set="context-tester"):
    """Records scored by the experiment's own scorer, as test_continuation scores them."""
    from benchmarks.continuation import scoring

    return records_frame([SampleRecord(
        experiment="continuation", sample_id=f"ctx{context}-r{r:02d}", run_id="run",
        params={"text": "emma", "context": context, "round": r, "metric_set": metric_set},
        model={"name": "m"}, scores={**scoring.score(output, metric_set),
                                     "continuation_tokens": 10},
        details={"truth": scoring.score(PROSE, metric_set)})
        for context, outputs in outputs_by_tier.items() for r, output in enumerate(outputs)])


def test_context_testers_reading_averages_a_round_without_words_in_and_counts_it():
    tiers = table.tier_table(scored({1024: [PROSE, ""], 2048: [PROSE, PROSE]}))
    first = tiers.iloc[0]
    assert first["metric_set"] == "context-tester" and first["rounds_ok"] == 2
    assert first["rounds_without_words"] == 1
    assert first["context_tester_rounds_without_words"] == 1
    assert first["contextrot_rounds_without_words"] == 1
    # the original's value for empty text (cloze 64.0) is averaged in, as it averages rounds
    assert first["cloze_score_n"] == 2 and first["cloze_score_mean"] == pytest.approx(48.025)
    assert first["reading_level"] == "4"  # ceil(48.025) = 49
    assert first["contextrot_cloze_score_mean"] == pytest.approx(41.55)  # over 1 round
    assert tiers.iloc[1]["rounds_without_words"] == 0 and tiers.iloc[1]["reading_level"] == "9-10"
    assert first["truth_reading_level"] == "9-10"


def test_contextrots_reading_leaves_a_round_without_words_out_of_its_means_and_counts_it():
    tiers = table.tier_table(scored({1024: [PROSE, "..."]}, "contextrot"))
    first = tiers.iloc[0]
    assert first["metric_set"] == "contextrot" and first["rounds_ok"] == 2
    assert first["rounds_without_words"] == 1 and first["cloze_score_n"] == 1
    assert first["cloze_score_mean"] == pytest.approx(41.55)
    # "..." is one (empty) word to the original, none to contextrot
    assert first["context_tester_rounds_without_words"] == 0
    assert first["contextrot_rounds_without_words"] == 1


def test_findings_name_the_headline_set_and_every_round_without_words():
    found = table.findings(scored({1024: [PROSE, ""], 2048: ["...", PROSE]}))
    assert found["metric_set"] == "context-tester" and found["rounds_scored"] == 4
    assert found["rounds_without_words"] == {"context_tester": ["ctx1024-r01"],
                                             "contextrot": ["ctx1024-r01", "ctx2048-r00"]}
    assert found["lines"][0].startswith("readability: Context-Tester's reading is the headline")
    assert "1 of 4 scored rounds have no words in Context-Tester's reading (ctx1024-r01): " \
           "averaged in" in found["lines"][1]
    assert "2 of 4 scored rounds have no words in contextrot's reading" in found["lines"][2]


def test_compare_names_runs_read_with_different_metric_sets():
    a = table.tier_table(scored({1024: [PROSE]}))
    b = table.tier_table(scored({1024: [PROSE]}, "contextrot"))
    assert compare.mismatches([a, b], ["a", "b"]) == [
        "runs read with different metric sets: a (context-tester); b (contextrot)"]
