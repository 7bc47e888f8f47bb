"""The five plots of the spec, drawn from records (never from a model).

Unlike the original: the last position lands in a bin, an empty bin is drawn as empty (not
as 0), and each bar shows its sample count and 95% interval.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reporting import plots
from reporting.experiments import record_units

from .grid import pair_slug

POSITION_BINS = 20
TOKEN_BINS = 12
BINNED = (  # (file, score column, y label, kind, colour, hatch negatives)
    ("levenshtein_score.png", "scores.levenshtein", "Normalized Levenshtein", "mean",
     "#2FB874", False),
    ("modified_word_present.png", "scores.modified_present", "Modified word present", "rate",
     "#EA5412", False),
    ("position_accuracy.png", "scores.position_correct", "Position accuracy", "rate",
     "#EBB125", False),
    ("word_count_delta.png", "scores.word_count_delta", "Word count delta (gold - output)",
     "mean", "#7E8E9E", True),
)


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    ok = frame[frame["outcome"] == "ok"]  # refusals, skips and errors stay out of the analysis
    paths = []
    pairs = sorted(set(zip(frame["params.common"], frame["params.modified"])))
    for common, modified in pairs:
        prefix = "" if len(pairs) == 1 else f"{pair_slug(common, modified)}-"
        mine = ok[(ok["params.common"] == common) & (ok["params.modified"] == modified)]
        pair = frame[(frame["params.common"] == common) & (frame["params.modified"] == modified)]
        excluded = {n: f"{len(part) - int((part['outcome'] == 'ok').sum())} of {len(part)} "
                       "excluded" for n, part in pair.groupby("params.n")}
        title = f'Repeated "{common}", one "{modified}"'
        lengths = sorted(frame[(frame["params.common"] == common)
                               & (frame["params.modified"] == modified)]["params.n"].unique())
        for filename, column, label, kind, colour, hatch in BINNED:
            paths.append(_binned(mine, lengths, excluded, column, label, kind, colour, hatch,
                                 f"{title}: {label}", out_dir, prefix + filename))
        paths.append(_by_tokens(mine, title, out_dir, prefix + "token_count_performance.png"))
    return paths


def _binned(frame, lengths, excluded, column, label, kind, colour, hatch, title, out_dir,
            filename):
    if column not in frame:  # no scored sample had this score: every bin is empty
        frame = frame.assign(**{column: None})
    fig, axes = plots.panel_grid(len(lengths), columns=3)
    for ax, n in zip(axes, lengths):
        cell = frame[frame["params.n"] == n]
        if column in cell:
            cell = cell[cell[column].notna()]
        edges = plots.bin_edges(0, max(n - 1, 1), POSITION_BINS)
        centres = (edges[:-1] + edges[1:]) / 2 / max(n - 1, 1) * 100
        bins = plots.assign_bins(cell["params.position"], edges) if len(cell) else []
        groups = [cell[column][np.asarray(bins) == j].astype(float).tolist() if len(cell)
                  else [] for j in range(POSITION_BINS)]
        if kind == "rate" or column == "scores.levenshtein":
            ax.set_ylim(0, 1.1)
        plots.binned_bars(ax, centres, groups, kind=kind, width=4, color=colour,
                          hatch_negative=hatch)
        if hatch:
            ax.axhline(0, color="black", linestyle="--", linewidth=0.6)
        ax.set_xlim(-3, 103)
        ax.set_title(f"{n} words ({excluded[n]}: refused, skipped or errored)", fontsize=8)
        ax.set_xlabel("Modified word position (%)", fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        ax.tick_params(labelsize=7)
    fig.suptitle(title, fontsize=11)
    fig.text(0.5, 0.005, plots.EMPTY_BIN_NOTE, ha="center", fontsize=7, color="#555555")
    return plots.save_figure(fig, out_dir, filename, tight=(0, 0.02, 1, 1))


def _by_tokens(frame, title, out_dir, filename):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    tokens = frame["target_tokens"].astype(float) if len(frame) else pd.Series(dtype=float)
    if len(tokens) and tokens.min() > 0:
        low, high = tokens.min(), tokens.max()
        edges = np.logspace(np.log10(low), np.log10(high if high > low else low * 1.01),
                            TOKEN_BINS + 1)
        centres = np.sqrt(edges[:-1] * edges[1:])  # geometric bin centres
        bins = plots.assign_bins(tokens, edges)
        groups = [frame["scores.levenshtein"][bins == j].astype(float).tolist()
                  for j in range(TOKEN_BINS)]
        keep = [j for j in range(TOKEN_BINS) if groups[j]]  # empty bins: no point, no 0
        plots.interval_curve(ax, centres[keep], [groups[j] for j in keep], kind="mean",
                             label="mean normalized Levenshtein (95% CI)", color="#90B8B6")
        for j in keep:
            ax.annotate(f"n={len(groups[j])}", (centres[j], np.mean(groups[j])),
                        textcoords="offset points", xytext=(0, 6), ha="center", fontsize=6)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel(f"Input tokens ({record_units(frame) or 'o200k_base'})")
    ax.set_ylabel("Normalized Levenshtein")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower left")
    else:
        ax.text(0.5, 0.5, "no scored samples (all skipped, refused or errored)",
                transform=ax.transAxes, ha="center", color="#777777")
    ax.grid(alpha=0.3)
    return plots.save_figure(fig, out_dir, filename)
