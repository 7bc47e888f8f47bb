"""The latent and literal curves side by side: contains accuracy by length (95% Wilson bands),
one line per needle set, and per question type where a set has several; and a depth-by-length
heatmap per set. Drawn from records; a length with no scored sample is a gap."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reporting import plots

from .scoring import THRESHOLD, base_score, length_label

LATENT, LITERAL = "#C0392B", "#2F7FC1"
STYLES = {"all": "-", "onehop": "--", "twohop": ":"}


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    if frame.empty or "params.set" not in frame:
        return []
    scored = frame[(frame["outcome"] == "ok")]
    if "scores.contains" in scored:
        scored = scored[scored["scores.contains"].notna()]
    else:
        scored = scored.iloc[0:0]
    paths = [_curves(frame, scored, out_dir)]
    for stem in sorted(scored["params.set"].unique()):
        paths.append(_heatmap(scored[scored["params.set"] == stem], stem, out_dir))
    return paths


def _curves(frame: pd.DataFrame, scored: pd.DataFrame, out_dir: Path) -> Path:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.6))
    lengths = sorted(int(x) for x in frame["params.length"].unique())
    for stem in sorted(frame["params.set"].unique()):
        mine = scored[scored["params.set"] == stem]
        literal = bool(frame[frame["params.set"] == stem]["params.literal"].iloc[0])
        kinds = sorted(mine["params.question_type"].unique())
        for kind in ["all"] + (kinds if len(kinds) > 1 else []):
            part = mine if kind == "all" else mine[mine["params.question_type"] == kind]
            xs = [x for x in lengths if (part["params.length"] == x).any()]
            if not xs:
                continue
            groups = [part[part["params.length"] == x]["scores.contains"].astype(float).tolist()
                      for x in xs]
            label = f"{'literal' if literal else 'latent'}: {stem}" + \
                ("" if kind == "all" else f" [{kind}]")
            plots.interval_curve(ax, xs, groups, kind="rate", label=label,
                                 color=LITERAL if literal else LATENT)
            ax.lines[-1].set_linestyle(STYLES.get(kind, "-."))
            if kind == "all":
                base = base_score({x: float(np.mean(g)) for x, g in zip(xs, groups)})
                if base is not None:
                    ax.axhline(THRESHOLD * base, color=ax.lines[-1].get_color(), linewidth=0.6,
                               linestyle=(0, (1, 3)))
                for x, values in zip(xs, groups):
                    ax.annotate(f"n={len(values)}", (x, float(np.mean(values))),
                                textcoords="offset points", xytext=(0, -10 if literal else 6),
                                ha="center",
                                fontsize=6)
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths)
    ax.set_xticklabels([length_label(x) for x in lengths], fontsize=7)
    ax.minorticks_off()
    ax.set_ylim(0, 1.08)
    ax.set_xlabel("haystack tokens (before the needle)")
    ax.set_ylabel("contains accuracy (95% interval)")
    ax.set_title("NoLiMa: latent (red) and literal (blue) needles; dotted: 85% of each base",
                 fontsize=9)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    else:
        ax.text(0.5, 0.5, "no scored samples (all skipped, overflowed or errored)",
                transform=ax.transAxes, ha="center", color="#777777")
    return plots.save_figure(fig, out_dir, "latent_vs_literal.png")


def _heatmap(part: pd.DataFrame, stem: str, out_dir: Path) -> Path:
    import matplotlib.pyplot as plt

    depths = sorted(part["params.depth"].unique())
    lengths = sorted(int(x) for x in part["params.length"].unique())
    matrix = np.full((len(depths), len(lengths)), np.nan)
    counts = np.zeros_like(matrix)
    for (depth, length), cell in part.groupby(["params.depth", "params.length"]):
        at = depths.index(depth), lengths.index(int(length))
        matrix[at] = cell["scores.contains"].astype(float).mean()
        counts[at] = len(cell)
    fig, ax = plt.subplots(figsize=(1.2 + 0.7 * len(lengths), 1.5 + 0.22 * len(depths)))
    plots.heatmap(ax, matrix, [f"{d:g}%" for d in depths], [length_label(x) for x in lengths],
                  counts=counts)
    ax.set_xlabel("haystack tokens")
    ax.set_ylabel("needle depth")
    ax.set_title(f"{stem}: contains accuracy by depth and length", fontsize=9)
    return plots.save_figure(fig, out_dir, f"depth-{stem}.png")
