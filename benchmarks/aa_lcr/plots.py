"""Per source: accuracy by prompt length (the native prompts and each sweep length, 95%
Wilson bands), and each question's line from its native prompt to its swept ones (paired),
drawn from records."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reporting import plots

SOURCE_NAMES = {"card": "the card's questions", "miniature": "the offline miniature"}


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    return plots.per_value(frame, "params.source",
                           lambda part, source: _curves(part, source, out_dir))


def _curves(frame: pd.DataFrame, source: str, out_dir: Path) -> Path:
    fig, (curve, paired) = plots.panel_grid(2, columns=2, size=(5.6, 4.0))
    scored = plots.scored_rows(frame, "scores.correct")
    lengths = sorted(int(n) for n in frame["params.length"].unique())
    for label, mine, colour in (("native", scored[scored["params.length"] == 0], "#2F7FC1"),
                                ("swept", scored[scored["params.length"] > 0], "#EA8A12")):
        tiers = sorted(int(t) for t in mine["details.length_tier"].unique()) \
            if len(mine) else []
        if tiers:
            plots.interval_curve(curve, tiers, [
                mine.loc[mine["details.length_tier"] == t, "scores.correct"].astype(float)
                .tolist() for t in tiers], kind="rate", label=label, color=colour)
    axis = list(range(len(lengths)))
    for _, question in scored.groupby("params.question_id"):
        means = question.groupby("params.length")["scores.correct"].mean()
        xs = [axis[lengths.index(int(n))] for n in means.index]
        paired.plot(xs, means.astype(float).tolist(), color="#7E8E9E", alpha=0.5, marker="o",
                    markersize=3, linewidth=0.8)
    paired.set_xticks(axis, ["native" if n == 0 else f"{n:,}" for n in lengths], fontsize=7)
    paired.set_ylabel("each question's accuracy (mean of repeats)", fontsize=8)
    paired.set_xlabel("length asked (the run's tokens)", fontsize=8)
    curve.set_xscale("log", base=2)
    curve.set_xlabel("prompt tokens, rounded up to a power of two", fontsize=8)
    curve.set_ylabel("accuracy (95% Wilson band)", fontsize=8)
    for ax in (curve, paired):
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
    if scored.empty:
        curve.text(0.5, 0.5, "no scored samples", transform=curve.transAxes, ha="center",
                   color="#777777")
    else:
        curve.legend(fontsize=7, loc="lower left")
    fig.suptitle(f"AA-LCR, {SOURCE_NAMES.get(source, source)}", fontsize=10)
    return plots.save_figure(fig, out_dir, f"curve-{source}.png", tight=(0, 0, 1, 0.95))
