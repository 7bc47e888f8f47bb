"""Per source: F1 by length, one curve per problem type (strict solid, flexible dashed; 95%
bands), and the share of replies with no parseable answer, drawn from records."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reporting import plots

from .grid import length_id

TYPE_COLOURS = {"bfs": "#2F7FC1", "parents": "#EA8A12"}
SOURCE_NAMES = {"generated": "graphs built offline", "original": "openai/graphwalks rows"}


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    return plots.per_value(frame, "params.source",
                           lambda part, source: _curves(part, source, out_dir))


def _curves(frame: pd.DataFrame, source: str, out_dir: Path) -> Path:
    fig, (f1_axis, failures) = plots.panel_grid(2, columns=2, size=(5.6, 4.0))
    scored = plots.scored_rows(frame, "scores.f1")
    lengths = sorted(int(n) for n in frame["params.length"].unique())
    for kind in sorted(frame["params.problem_type"].unique()):
        mine = scored[scored["params.problem_type"] == kind]
        xs = [x for x in lengths if (mine["params.length"] == x).any()]
        at = [mine[mine["params.length"] == x] for x in xs]
        if not xs:
            continue
        colour = TYPE_COLOURS.get(kind)
        for column, style, label in (("scores.f1", "-", kind),
                                     ("scores.flexible_f1", "--", f"{kind}, flexible")):
            plots.interval_curve(f1_axis, xs, [p[column].astype(float).tolist() for p in at],
                                 kind="mean", label=label, color=colour)
            f1_axis.get_lines()[-1].set_linestyle(style)
        plots.interval_curve(failures, xs, [(~p["scores.parsed"].astype(bool)).astype(float)
                                            .tolist() for p in at], kind="rate",
                             label=kind, color=colour)
    for ax, label in ((f1_axis, "F1 (mean, 95% band)"),
                      (failures, "share with no parseable answer")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths, [length_id(x).removeprefix("ctx") for x in lengths], fontsize=7)
        ax.minorticks_off()
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(label, fontsize=8)
        ax.set_xlabel("prompt tokens (the run's unit)", fontsize=8)
        ax.grid(alpha=0.3)
    if scored.empty:
        f1_axis.text(0.5, 0.5, "no scored samples", transform=f1_axis.transAxes,
                     ha="center", color="#777777")
    else:
        f1_axis.legend(fontsize=7, loc="lower left")
    fig.suptitle(f"GraphWalks, {SOURCE_NAMES.get(source, source)}", fontsize=10)
    return plots.save_figure(fig, out_dir, f"curve-{source}.png", tight=(0, 0, 1, 0.95))
