"""Per source: the score by bin, one curve per needle count (95% bands), and what the replies
copied (the asked occurrence, another one, no needle, no string), drawn from records.

Bins sit at their upper bound on a log axis, as the original names them (8K..1M); the
test-only bins are shaded and labelled as such. A bin with no scored sample is a gap.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import numpy as np
import pandas as pd

from reporting import plots

NEEDLE_COLOURS = {2: "#2F7FC1", 4: "#EA8A12", 8: "#C0392B"}
COPIED = (("asked", "the asked occurrence", "#0CD79F"), ("other", "another occurrence",
                                                          "#EBB839"),
          ("none", "no needle", "#F0496E"), ("no prefix", "no random string", "#9AA5B1"))
SOURCE_NAMES = {"generated": "built offline (not comparable with published MRCR)",
                "openai": "openai/mrcr rows"}


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    if frame.empty or "params.source" not in frame:
        return []
    paths = []
    for source in sorted(frame["params.source"].unique()):
        mine = frame[frame["params.source"] == source]
        paths.append(_curves(mine, source, out_dir))
        paths.append(_copied(mine, source, out_dir))
    return paths


def _scored(frame: pd.DataFrame) -> pd.DataFrame:
    if "scores.ratio" not in frame:
        return frame.iloc[0:0]
    return frame[(frame["outcome"] == "ok") & frame["scores.ratio"].notna()]


def _bins(frame: pd.DataFrame) -> list[tuple[int, str, bool]]:
    """(upper bound, label, test-only) of every bin in the frame, ascending."""
    found = frame[["params.bin_high", "params.bin", "params.test_bin"]].drop_duplicates()
    return sorted((int(h), str(label), bool(t)) for h, label, t in found.itertuples(index=False))


def _axis(ax, bins) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xticks([high for high, _, _ in bins])
    ax.set_xticklabels([label.replace("test ", "test\n") for _, label, _ in bins], fontsize=7)
    ax.minorticks_off()
    tests = [high for high, _, test in bins if test]
    label = "bin: o200k tokens of the messages plus the answer (upper bound)"
    if tests:
        ax.axvspan(min(tests) / 1.4, max(tests) * 1.4, color="#EEEEEE", zorder=0)
        label += "\nshaded: test-only bins, not MRCR's"
    ax.set_xlabel(label, fontsize=8)


def _curves(frame: pd.DataFrame, source: str, out_dir: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    bins = _bins(frame)
    scored = _scored(frame)
    for needles in sorted(frame["params.needles"].unique()):
        mine = scored[scored["params.needles"] == needles]
        xs = [high for high, _, _ in bins if (mine["params.bin_high"] == high).any()]
        groups = [mine[mine["params.bin_high"] == x]["scores.ratio"].astype(float).tolist()
                  for x in xs]
        if not xs:
            continue
        plots.interval_curve(ax, xs, groups, kind="mean", label=f"{int(needles)} needles",
                             color=NEEDLE_COLOURS.get(int(needles)))
        for x, values in zip(xs, groups):
            ax.annotate(f"n={len(values)}", (x, statistics.fmean(values)),
                        textcoords="offset points", xytext=(0, 6), ha="center", fontsize=6)
    _axis(ax, bins)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("mean score (SequenceMatcher ratio)")
    ax.set_title(f"MRCR, {SOURCE_NAMES.get(source, source)}", fontsize=10)
    ax.grid(alpha=0.3)
    if scored.empty:
        ax.text(0.5, 0.5, "no scored samples (all skipped, overflowed or errored)",
                transform=ax.transAxes, ha="center", color="#777777")
    else:
        ax.legend(fontsize=8, loc="upper right")
    return plots.save_figure(fig, out_dir, f"curve-{source}.png")


def _copied(frame: pd.DataFrame, source: str, out_dir: Path) -> Path:
    """Stacked shares of what each reply copied, per needle count (panels) and bin."""
    needle_counts = sorted(int(n) for n in frame["params.needles"].unique())
    fig, axes = plots.panel_grid(len(needle_counts), columns=3)
    scored = _scored(frame)
    bins = _bins(frame)
    for ax, needles in zip(axes, needle_counts):
        mine = scored[scored["params.needles"] == needles]
        bottom = np.zeros(len(bins))
        totals = np.array([(mine["params.bin_high"] == high).sum() for high, _, _ in bins])
        for key, label, colour in COPIED:
            shares = np.array([
                ((mine["params.bin_high"] == high) & (mine.get("details.copied") == key)).sum()
                for high, _, _ in bins]) / np.maximum(totals, 1)
            ax.bar(range(len(bins)), shares, bottom=bottom, color=colour, label=label)
            bottom += shares
        for position, total in enumerate(totals):
            ax.text(position, 1.02, f"n={total}", ha="center", fontsize=6)
        ax.set_xticks(range(len(bins)))
        ax.set_xticklabels([label.replace("test ", "test\n") for _, label, _ in bins],
                           fontsize=7)
        ax.set_ylim(0, 1.1)
        ax.set_title(f"{needles} needles", fontsize=9)
        ax.set_ylabel("share of scored replies", fontsize=8)
    axes[-1].legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.suptitle(f"MRCR, {SOURCE_NAMES.get(source, source)}: what the reply copied", fontsize=10)
    return plots.save_figure(fig, out_dir, f"copied-{source}.png", tight=(0, 0, 1, 0.95))
