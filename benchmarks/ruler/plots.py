"""The heatmap (task x length, RULER's score with its count) and the curve (RULER's score by
length with its 95% band, each task's line, the 85.6 bar), drawn from records."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.texts.fitting import length_label
from reporting import plots

from . import results
from .grid import TASKS


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    if frame.empty or "params.task" not in frame:
        return []
    title = _model_name(frame)
    return [_heatmap(frame, title, out_dir), _curve(frame, title, out_dir)]


def _model_name(frame: pd.DataFrame) -> str:
    names = frame["model.name"].dropna().unique() if "model.name" in frame else []
    return f"RULER: {names[0]}" if len(names) == 1 else "RULER"


def _heatmap(frame, title, out_dir):
    import matplotlib.pyplot as plt

    tasks = [t for t in TASKS if t in set(frame["params.task"])]
    lengths = sorted(int(n) for n in frame["params.length"].dropna().unique())
    table = results.task_table(frame)
    matrix = np.full((len(tasks) + 1, len(lengths)), np.nan)
    counts = np.zeros_like(matrix)
    for row in table.itertuples():
        i, j = tasks.index(row.task), lengths.index(row.length)
        matrix[i, j], counts[i, j] = row.score, row.n
    for item in results.length_scores(frame):  # the last row: the mean over tasks
        j = lengths.index(item.length)
        matrix[-1, j], counts[-1, j] = item.score, item.samples
    fig, ax = plt.subplots(figsize=(max(5.0, 1.0 * len(lengths) + 3), 0.45 * len(tasks) + 2.2))
    image = plots.heatmap(ax, matrix, [*tasks, "RULER score (mean)"],
                          [length_label(n) for n in lengths], counts=counts,
                          missing_label="no score", vmin=0, vmax=100)
    ax.axhline(len(tasks) - 0.5, color="black", linewidth=1.0)
    fig.colorbar(image, ax=ax, label="score (100 x mean string match)")
    ax.set_xlabel("Target length (prompt + tokens to generate, the run's tokens)")
    ax.set_title(f"{title}: score by task and length", fontsize=9)
    return plots.save_figure(fig, out_dir, "heatmap.png")


def _curve(frame, title, out_dir):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    table = results.task_table(frame)
    colours = plt.get_cmap("tab20")
    for number, task in enumerate(TASKS):
        mine = table[table["task"] == task].sort_values("length")
        if len(mine):
            ax.plot(mine["length"], mine["score"], linewidth=0.8, alpha=0.6, marker=".",
                    markersize=3, label=task, color=colours(number))
    overall = results.length_scores(frame)
    if overall:
        xs = [item.length for item in overall]
        ax.plot(xs, [item.score for item in overall], color="black", linewidth=2.0,
                marker="o", markersize=4, label="RULER score (mean over tasks)")
        ax.fill_between(xs, [item.low for item in overall], [item.high for item in overall],
                        color="black", alpha=0.15, linewidth=0)
    else:
        ax.text(0.5, 0.5, "no scored samples (all skipped, overflowed or errored)",
                transform=ax.transAxes, ha="center", color="#777777")
    ax.axhline(results.BAR, color="#C0392B", linestyle="--", linewidth=1.0,
               label=f"{results.BAR} (RULER's bar: Llama-2-7B's 4K)")
    ax.set_xscale("log", base=2)
    ax.minorticks_off()
    if overall:
        ax.set_xticks(xs, [length_label(x) for x in xs])
    ax.set_ylim(0, 102)
    ax.set_xlabel("Target length (tokens)")
    ax.set_ylabel("Score (0-100)")
    ax.set_title(f"{title}: score by length (band: 95% interval)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, loc="lower left", ncol=2)
    return plots.save_figure(fig, out_dir, "curve.png")
