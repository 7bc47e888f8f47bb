"""The plots draw from records alone, whatever ran: every sample skipped, or two sources."""

from __future__ import annotations

import pandas as pd

from benchmarks.mrcr import grid, plots


def frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([{"experiment": "mrcr", **row} for row in rows])


def sample_row(source: str, needles: int, bin: grid.Bin, ratio=None, copied=None) -> dict:
    row = {"params.source": source, "params.needles": needles, "params.bin": bin.label,
           "params.bin_high": bin.high, "params.test_bin": bin.test_only,
           "outcome": "skipped" if ratio is None else "ok"}
    if ratio is not None:
        row.update({"scores.ratio": ratio, "details.copied": copied})
    return row


def test_every_sample_skipped_still_draws_both_plots(tmp_path):
    skipped = frame([sample_row("generated", 2, b) for b in grid.TEST_BINS + grid.BINS[:1]])
    paths = plots.render(skipped, tmp_path)
    assert sorted(p.name for p in paths) == ["copied-generated.png", "curve-generated.png"]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in paths)


def test_each_source_gets_its_curves_by_needle_count(tmp_path):
    rows = [sample_row(source, n, b, ratio=r, copied=c)
            for source in ("generated", "openai") for n in (2, 4, 8)
            for b in grid.BINS[:3] for r, c in ((1.0, "asked"), (0.2, "other"), (0.0, "no prefix"))]
    rows += [sample_row("generated", 2, grid.TEST_BINS[0], ratio=0.9, copied="asked")]
    paths = plots.render(frame(rows), tmp_path)
    assert sorted(p.name for p in paths) == ["copied-generated.png", "copied-openai.png",
                                             "curve-generated.png", "curve-openai.png"]
