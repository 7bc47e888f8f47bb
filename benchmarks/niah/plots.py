"""Heatmaps per mode and distractor condition, accuracy-versus-length curves, and the
distractor histogram, drawn from records (never from a model).

Unlike the original: a continuous red-to-green scale (not two colours), every cell
annotated with its accuracy and count, skipped cells shown as "skipped" rather than as 0,
and Wilson 95% intervals on the curves and the histogram. With an LLM judge, also its
agreement with the deterministic judge (agreement.py: a CSV and a Markdown line that the
report links).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fixtures.pytest_face.parametrize import tokens_label
from reporting import plots
from reporting.experiments import length_unit
from reporting.analysis.stats import mean_interval, wilson_interval

from . import EXPERIMENT, agreement

MODE_NAMES = {"seq": "sequential", "shuf": "shuffled"}
REALISED = "details.needle_depth_realised"  # percent of the haystack's o200k tokens
FAR_FROM_NOMINAL = 5.0  # percentage points: a cell's realised depth this far off is shown


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    if frame.empty or "params.mode" not in frame:
        return []
    for column in ("scores.correct", "scores.distractor_label"):  # absent when nothing ran
        if column not in frame:
            frame = frame.assign(**{column: None})
    title = _model_name(frame)
    paths = []
    conditions = sorted(set(zip(frame["params.mode"], frame["params.distractors"])))
    for mode, count in conditions:
        mine = frame[(frame["params.mode"] == mode) & (frame["params.distractors"] == count)]
        paths.append(_heatmap(mine, f"{title}: {MODE_NAMES.get(mode, mode)} haystack, "
                                    f"{_distractor_words(count)}",
                              out_dir, f"heatmap-{mode}-x{count}.png"))
    paths.append(_curves(frame, conditions, title, out_dir))
    paths.append(_histogram(frame, title, out_dir))
    return paths + agreement.write(frame, out_dir)  # only when an LLM judge ran


def verdicts(frame: pd.DataFrame) -> pd.DataFrame:
    """Answered samples with a verdict (unparsable verdicts are left out, and counted apart)."""
    ok = frame[(frame["outcome"] == "ok") & frame["scores.correct"].notna()]
    return ok


def _heatmap(frame, title, out_dir, filename):
    import matplotlib.pyplot as plt

    lengths = sorted(frame["params.length"].unique())
    depths = sorted(frame["params.depth"].unique())
    judged = verdicts(frame)
    matrix = np.full((len(lengths), len(depths)), np.nan)
    counts = np.zeros_like(matrix)
    missing = {}
    for i, length in enumerate(lengths):
        for j, depth in enumerate(depths):
            cell = frame[(frame["params.length"] == length) & (frame["params.depth"] == depth)]
            values = judged.loc[judged.index.intersection(cell.index), "scores.correct"]
            if len(values):
                matrix[i, j] = values.astype(float).mean()
                counts[i, j] = len(values)
            else:
                missing[(i, j)] = "skipped" if (cell["outcome"] == "skipped").all() \
                    else "no verdict"
    fig, ax = plt.subplots(figsize=(max(5.0, 0.8 * len(depths) + 2), 0.6 * len(lengths) + 2))
    image = plots.heatmap(ax, matrix, [tokens_label(int(n)) for n in lengths],
                          [f"{int(d)}%" for d in depths], counts=counts, missing_label="")
    for (i, j), label in missing.items():
        ax.text(j, i, label, ha="center", va="center", fontsize=6, color="#666666")
    far = realised_depths(frame, lengths, depths)
    for (i, j), realised in far.items():
        ax.text(j, i - 0.3, f"at {realised:.1f}%", ha="center", va="center", fontsize=6,
                bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.8,
                      "linewidth": 0})
    fig.colorbar(image, ax=ax, label="accuracy")
    ax.set_xlabel("Needle depth" + (f"\n(at N%: the cell's mean realised depth in tokens, "
                                    f"shown when over {FAR_FROM_NOMINAL:g} points away)"
                                    if far else ""), fontsize=8 if far else None)
    ax.set_ylabel(f"Context length ({length_unit(EXPERIMENT, frame)})")
    ax.set_title(title, fontsize=9)
    return plots.save_figure(fig, out_dir, filename)


def realised_depths(frame, lengths, depths) -> dict[tuple[int, int], float]:
    """(row, column) -> the cell's mean realised needle depth, where it is far from nominal.

    A long sentence moves the needle back to its start, so at short lengths two depths can
    be one prompt; this is how the heatmap says so.
    """
    if REALISED not in frame:
        return {}
    far = {}
    for i, length in enumerate(lengths):
        for j, depth in enumerate(depths):
            cell = frame[(frame["params.length"] == length) & (frame["params.depth"] == depth)]
            values = cell[REALISED].dropna().astype(float)
            if len(values) and abs(values.mean() - depth) > FAR_FROM_NOMINAL:
                far[(i, j)] = float(values.mean())
    return far


def _curves(frame, conditions, title, out_dir):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    judged = verdicts(frame)
    for mode, count in conditions:
        mine = judged[(judged["params.mode"] == mode) & (judged["params.distractors"] == count)]
        lengths = sorted(mine["params.length"].unique())
        if not lengths:
            continue
        groups = [mine[mine["params.length"] == n]["scores.correct"].astype(float).tolist()
                  for n in lengths]
        plots.interval_curve(ax, lengths, groups, kind="rate",
                             label=f"{MODE_NAMES.get(mode, mode)}, {_distractor_words(count)}")
        for n, values in zip(lengths, groups):
            ax.annotate(f"n={len(values)}", (n, mean_interval(values, "rate")[0]),
                        textcoords="offset points", xytext=(0, 5), ha="center", fontsize=5)
    all_lengths = sorted(int(n) for n in frame["params.length"].unique())
    skipped = sorted(frame[frame["outcome"] == "skipped"]["params.length"].unique())
    note = ("\nskipped: " + ", ".join(tokens_label(int(n)) for n in skipped)) if skipped else ""
    ax.set_xscale("log")
    ax.set_xticks(all_lengths, [tokens_label(n) for n in all_lengths])
    ax.minorticks_off()
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(f"Context length ({length_unit(EXPERIMENT, frame)})")
    ax.set_ylabel("Accuracy (95% Wilson interval)")
    ax.set_title(f"{title}: accuracy by length{note}", fontsize=9)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    return plots.save_figure(fig, out_dir, "accuracy_vs_length.png")


def _histogram(frame, title, out_dir):
    """Share of each distractor label among wrong answers with distractors, per condition."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    wrong = verdicts(frame)
    wrong = wrong[(wrong["params.distractors"] > 0) & (wrong["scores.correct"] == False)  # noqa: E712
                  & wrong["scores.distractor_label"].notna()]
    conditions = sorted(set(zip(wrong["params.mode"], wrong["params.distractors"])))
    if not conditions:
        ax.text(0.5, 0.5, "no wrong answers with distractors in the document",
                ha="center", va="center", transform=ax.transAxes)
    labels = [-1]
    if conditions:
        offered = range(int(frame["params.distractors"].max()))
        labels = sorted({int(v) for v in wrong["scores.distractor_label"]} | {-1} | set(offered))
    width = 0.8 / max(len(conditions), 1)
    for k, (mode, count) in enumerate(conditions):
        mine = wrong[(wrong["params.mode"] == mode) & (wrong["params.distractors"] == count)]
        total = len(mine)
        xs = np.arange(len(labels)) + (k - (len(conditions) - 1) / 2) * width
        shares, lows, highs = [], [], []
        for label in labels:
            hits = int((mine["scores.distractor_label"].astype(int) == label).sum())
            low, high = wilson_interval(hits, total)
            shares.append(hits / total)
            lows.append(hits / total - low)
            highs.append(high - hits / total)
        ax.bar(xs, shares, width=width, yerr=[lows, highs], capsize=2,
               label=f"{MODE_NAMES.get(mode, mode)}, {_distractor_words(count)} (n={total})")
    ax.set_xticks(range(len(labels)), ["none (-1)" if v == -1 else f"distractor {v}"
                                       for v in labels])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("Distractor selection (wrong answers)")
    ax.set_ylabel("Proportion (95% Wilson interval)")
    ax.set_title(f"{title}: distribution of hallucinations", fontsize=9)
    if conditions:
        ax.legend(fontsize=7)
    return plots.save_figure(fig, out_dir, "distractor_histogram.png")


def _distractor_words(count) -> str:
    count = int(count)
    return "no distractors" if count == 0 else f"{count} distractor{'s' if count > 1 else ''}"


def _model_name(frame: pd.DataFrame) -> str:
    if "model.name" in frame:
        names = frame["model.name"].dropna().unique()
        if len(names):
            return ", ".join(sorted(map(str, names)))
    return "NIAH"
