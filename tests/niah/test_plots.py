"""The NIAH renderer draws from records alone, whatever subset of outcomes they hold."""

import pandas as pd
import pytest

from benchmarks.niah import grid, plots
from reporting.storage.records import SampleRecord
from reporting.storage.store import records_frame


def record(sample, outcome="ok", **scores):
    return SampleRecord(experiment="niah", sample_id=sample.id, params=sample.params(),
                        outcome=outcome, scores=scores, model={"name": "m"})


def samples(**fields):
    """A grid of these tests' own (4 lengths x 3 depths in four conditions), whatever the test
    scale's is."""
    every = [grid.NiahSample(mode, "ferry", "ferry1", length, depth, count, 0)
             for mode in grid.MODES for count in (0, 4)
             for length in (500, 1_000, 5_000, 10_000) for depth in (0, 50, 100)]
    return [s for s in every if all(getattr(s, k) == v for k, v in fields.items())]


@pytest.mark.parametrize("records", [
    [record(s, correct=False) for s in samples(distractors=0)],  # no distractor labels at all
    [record(s, "skipped") for s in samples(length=10_000)],  # nothing answered
    [record(s, correct=s.depth == 50, **({} if s.depth == 50 else {"distractor_label": -1}))
     for s in samples(distractors=4)] + [record(s, correct=None) for s in samples(distractors=0)],
])
def test_render_writes_every_plot(tmp_path, records):
    frame = records_frame(records)
    paths = plots.render(frame, tmp_path)
    conditions = {(r.params["mode"], r.params["distractors"]) for r in records}
    assert len(paths) == len(conditions) + 2
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)


def test_verdicts_leave_out_unparsable_and_skipped():
    frame = records_frame([record(s, correct=True) for s in samples(length=5_000)][:1]
                          + [record(s, correct=None) for s in samples(length=500)]
                          + [record(s, "skipped") for s in samples(length=1_000)])
    assert len(plots.verdicts(frame)) == 1
    assert plots.render(pd.DataFrame(), ".") == []


def test_the_heatmap_marks_cells_whose_realised_depth_is_far_from_the_nominal_one():
    # issue 12 item 3: at 500 tokens a long sentence can put depths 25 and 50 at 1.5%
    records = []
    for s in samples(distractors=0, mode="seq"):
        realised = 1.5 if (s.length, s.depth) == (500, 50) else s.depth - 0.4
        r = record(s, correct=True)
        r.details["needle_depth_realised"] = realised
        records.append(r)
    frame = records_frame(records)
    lengths = sorted(frame["params.length"].unique())
    depths = sorted(frame["params.depth"].unique())
    far = plots.realised_depths(frame, lengths, depths)
    assert far == {(lengths.index(500), depths.index(50)): 1.5}
    assert plots.realised_depths(frame.drop(columns=[plots.REALISED]), lengths, depths) == {}
