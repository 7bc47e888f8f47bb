"""The renderer: from records to the metric table (CSV, markdown) and the two charts."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from benchmarks.already_said_that import plots, scoring
from benchmarks.already_said_that.grid import AlreadySaidThatSample
from reporting.storage.records import SampleRecord
from reporting.storage.store import records_frame

from .helpers import coin, played


def _records(model: str, variant: str, count: int, *, distractors=True, outcome="ok"):
    from .helpers import DISTRACTORS

    found = []
    for index in range(count):
        transcript = played(f"{model}/{variant}/{index}", lambda d, i=index: coin(i),
                            distractors=DISTRACTORS if distractors else [])
        sample = AlreadySaidThatSample(variant, index, 100, 0, "original", "distractors",
                                       "corrected", "exact")
        probability = 1 / 3 if distractors else 0.0
        found.append(SampleRecord(
            experiment="already_said_that", sample_id=sample.id, params=sample.params(),
            model={"name": model}, outcome=outcome, prompt_tokens=100 * (index + 1),
            completion_tokens=5,
            scores=scoring.sample_scores(transcript.log, transcript.ended_by),
            details={"turns": transcript.log, "o200k_input_tokens": 90,
                     "o200k_output_tokens": 4,
                     "random_baseline_turns": scoring.random_baseline_turns(100, probability),
                     "random_distractor_accuracy": 0.0 if distractors else math.nan}))
    return found


@pytest.fixture
def frame():
    records = (_records("model-a", "which_is_heavier", 12)
               + _records("model-b", "which_is_heavier", 9)
               + _records("model-a", "distractorless", 7, distractors=False)
               + _records("model-a", "distractorless", 2, distractors=False,
                          outcome="overflow"))
    return records_frame(records)


def test_the_table_recomputes_the_aggregates_from_ok_records(frame):
    table = plots.metric_table(frame)
    assert list(zip(table["model"], table["variant"])) == [
        ("model-a", "which_is_heavier"), ("model-b", "which_is_heavier"),
        ("model-a", "distractorless")]
    row = table.iloc[2]
    assert row["n_samples"] == 7 and row["outcomes"] == "ok 7, overflow 2"
    ok = frame[(frame["params.variant"] == "distractorless") & (frame["outcome"] == "ok")]
    expected = scoring.aggregate(
        {f: v for f, v in ((k.removeprefix("scores."), r[k]) for k in r.index
                           if k.startswith("scores."))} for _, r in ok.iterrows())
    assert row["avg_num_turns"] == pytest.approx(expected["avg_num_turns"])
    assert row["false_positive_per_answer"] == pytest.approx(
        expected["false_positive_per_answer"])
    assert row["served_prompt_tokens"] == sum(100 * (i + 1) for i in range(7))
    assert row["random_baseline_turns"] == pytest.approx(1.0)
    assert math.isnan(row["avg_distractor_accuracy"])


def test_render_writes_the_table_and_two_charts(frame, tmp_path):
    paths = plots.render(frame, tmp_path)
    assert sorted(p.name for p in paths) == ["avg_distractor_accuracy.png", "avg_num_turns.png",
                                             "metrics.csv", "metrics.md"]
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    table = pd.read_csv(tmp_path / "metrics.csv")
    assert len(table) == 3 and "avg_num_turns_ci_low" in table
    markdown = (tmp_path / "metrics.md").read_text()
    assert "| model-b | which_is_heavier | 9 |" in markdown
    assert "FP per answer" in markdown and "o200k input" in markdown


def test_render_without_records_draws_nothing(tmp_path):
    assert plots.render(pd.DataFrame(), tmp_path) == []
