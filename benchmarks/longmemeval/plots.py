"""Per source: Chroma's two-bar chart (focused ``#EB4026``, full ``#3A76E5``) over the
questions scored in both conditions, overall and by question type, with the paired gap and
McNemar's p; and, where padded lengths ran, accuracy by length tier (95% bands)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from reporting import plots

from .scoring import findings

FOCUSED, FULL = "#EB4026", "#3A76E5"  # Chroma's colours


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    found = findings(frame)
    paths = []
    for source, summary in found.get("sources", {}).items():
        if summary["pairs"]:
            paths.append(_bars(source, summary, out_dir))
        mine = frame[(frame["params.source"] == source) & (frame["outcome"] == "ok")
                     & frame["scores.correct"].notna()]
        if "details.length_tier" in mine and mine["details.length_tier"].nunique() > 2:
            paths.append(_curve(source, mine, out_dir))
    return paths


def _bars(source: str, summary: dict, out_dir: Path) -> Path:
    groups = [("all", summary)] + [(kind, part) for kind, part in summary["by_type"].items()
                                   if part["pairs"]]
    fig, ax = plt.subplots(figsize=(2.2 + 1.6 * len(groups), 4.2))
    x = np.arange(len(groups))
    for offset, condition, colour in ((-0.2, "focused", FOCUSED), (0.2, "full", FULL)):
        means = [part[condition]["accuracy"] for _, part in groups]
        lows = [part[condition]["ci"][0] for _, part in groups]
        highs = [part[condition]["ci"][1] for _, part in groups]
        bars = ax.bar(x + offset, means, 0.4, color=colour, label=condition.capitalize(),
                      yerr=[np.subtract(means, lows), np.subtract(highs, means)], capsize=3,
                      error_kw={"ecolor": "#666666", "elinewidth": 0.8})
        for bar, mean in zip(bars, means):
            ax.text(bar.get_x() + bar.get_width() / 2, mean + 0.02, f"{mean:.2f}",
                    ha="center", va="bottom", fontsize=7)
    ax.set_xticks(x, [f"{name}\nn={part['pairs']}\ngap {part['gap']:+.2f}, p={part['p']:.2g}"
                      for name, part in groups], fontsize=7)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("accuracy (judged)")
    ax.set_title(f"LongMemEval focused vs full, {source} (paired, McNemar's exact test)",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper right")
    return plots.save_figure(fig, out_dir, f"focused-full-{source}.png")


def _curve(source: str, scored: pd.DataFrame, out_dir: Path) -> Path:
    tiers = sorted(int(t) for t in scored["details.length_tier"].unique())
    groups = [scored[scored["details.length_tier"] == t]["scores.correct"].astype(float).tolist()
              for t in tiers]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    plots.interval_curve(ax, tiers, groups, kind="rate", label="all conditions", color=FULL)
    ax.set_xscale("log", base=2)
    ax.set_xticks(tiers, [f"{t / 1024:g}k" for t in tiers], fontsize=7)
    ax.minorticks_off()
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("prompt tokens, rounded up to a power of two", fontsize=8)
    ax.set_ylabel("accuracy (judged)")
    ax.set_title(f"LongMemEval by history length, {source}", fontsize=9)
    return plots.save_figure(fig, out_dir, f"curve-{source}.png")
