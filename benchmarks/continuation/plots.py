"""The run's CSV and its two pages of graphs, drawn from records (never from a model).

Every readability curve is in the run's headline metric set (``metric_set`` in the CSV),
named in the title. Page 1 holds the spec's two graphs: left, diversity and creativity
(vocabulary diversity; up means more varied wording); right, degradation (cloze score; up
means simpler, more predictable text, and a flagged tier is marked). Page 2 holds the other
metrics. Every curve is the round mean with its 95% interval as a band; dashed lines are the
ground truth (the text's real continuation), dotted lines the context window the model read.
The x axis is the tier in tokens (K = 1,024), on a log scale. ``compare.py`` draws the same
pages for several runs at once.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from reporting import plots

from .grid import tier_label
from .readability import DEFAULT_SET, METRIC_SETS
from .table import tier_table

CSV_NAME = "continuation.csv"
PAGE_ONE = (("vocabulary_diversity", "Vocabulary diversity (type/token)",
             "Diversity and creativity (up: more varied wording)"),
            ("cloze_score", "Cloze score", "Degradation (up: simpler, more predictable text)"))
PAGE_TWO = (("pct_unfamiliar_words", "Unfamiliar words (fraction)"),
            ("avg_sentence_length", "Average sentence length (words)"),
            ("sentence_length_variance", "Sentence length variance"),
            ("continuation_tokens", "Continuation length (o200k tokens)"),
            ("unique_word_ratio_100", "Unique words per 100-word window"),
            ("bigram_repetition_rate", "Bigram repetition rate"))
TRUTH_COLOUR = "#2FB874"


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    table = tier_table(frame)
    if table.empty:
        return []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv = out_dir / CSV_NAME
    table.to_csv(csv, index=False, float_format="%.6g")
    return [csv, *pages([(run_label(table), table)], out_dir, "continuation")]


def run_label(table: pd.DataFrame) -> str:
    return f"{table['model'].iloc[0]} / {table['text'].iloc[0]}"


def pages(runs: list[tuple[str, pd.DataFrame]], out_dir: Path, stem: str) -> list[Path]:
    """Both pages for one or several runs (each a label and its tier table)."""
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ticks = sorted({int(c) for _, table in runs for c in table["context"]})
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for ax, (metric, label, title) in zip(axes, PAGE_ONE):
        for i, (name, table) in enumerate(runs):
            _curve(ax, table, metric, name, colours[i % len(colours)], references=True,
                   flag=metric == "cloze_score", single=len(runs) == 1,
                   counts=len(runs) == 1)
        _axes(ax, label, title, ticks)
    fig.suptitle(_title(runs), fontsize=11)
    _note(fig, runs)
    first = plots.save_figure(fig, out_dir, f"{stem}.png", tight=(0, 0.04, 1, 0.95))

    fig, axes = plots.panel_grid(len(PAGE_TWO), columns=3, size=(5.2, 3.6))
    for ax, (metric, label) in zip(axes, PAGE_TWO):
        for i, (name, table) in enumerate(runs):
            _curve(ax, table, metric, name, colours[i % len(colours)],
                   references=metric != "continuation_tokens", flag=False,
                   single=len(runs) == 1, counts=False)
        _axes(ax, label, label, ticks)
    fig.suptitle(_title(runs) + ": other metrics", fontsize=11)
    second = plots.save_figure(fig, out_dir, f"{stem}-metrics.png", tight=(0, 0, 1, 0.95))
    return [first, second]


def _curve(ax, table, metric, name, colour, *, references, flag, single, counts):
    """One run's curve with its band; ``single``: references in fixed colours, n labels
    when ``counts``."""
    rows = table[table[f"{metric}_n"] > 0] if f"{metric}_n" in table else table.iloc[0:0]
    if len(rows):
        x = rows["context"].astype(float).to_numpy()
        ax.plot(x, rows[f"{metric}_mean"], marker="o", markersize=3.5, color=colour,
                linewidth=1.3, label=name)
        ax.fill_between(x, rows[f"{metric}_ci_low"].astype(float),
                        rows[f"{metric}_ci_high"].astype(float), color=colour, alpha=0.18,
                        linewidth=0)
        if counts:
            for xi, yi, n in zip(x, rows[f"{metric}_mean"], rows[f"{metric}_n"]):
                ax.annotate(f"n={int(n)}", (xi, yi), textcoords="offset points",
                            xytext=(0, 6), ha="center", fontsize=6)
        if flag and "degraded" in rows:
            bad = rows[rows["degraded"].astype(bool)]
            ax.scatter(bad["context"], bad[f"{metric}_mean"], marker="^", s=60,
                       facecolors="none", edgecolors="red", zorder=5,
                       label="degradation flagged" if single else None)
    if single and "rounds_ok" in table:  # a tier without data says why it is empty
        for context in table.loc[table["rounds_ok"] == 0, "context"]:
            ax.annotate("no rounds\n(skipped)", (float(context), 0.02),
                        xycoords=("data", "axes fraction"), ha="center", fontsize=6,
                        color="#999999")
    if references and f"truth_{metric}" in table and table[f"truth_{metric}"].notna().any():
        ax.axhline(float(table[f"truth_{metric}"].dropna().iloc[0]),
                   color=TRUTH_COLOUR if single else colour, linestyle="--", linewidth=1,
                   label="ground truth" if single else f"ground truth ({name})")
    if references and f"context_{metric}" in table and single:
        ax.plot(table["context"].astype(float), table[f"context_{metric}"].astype(float),
                color="#888888", linestyle=":", linewidth=1, label="context window (human)")


def _axes(ax, label, title, ticks):
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [tier_label(t) for t in ticks], fontsize=7)
    ax.minorticks_off()
    if ticks:
        ax.set_xlim(ticks[0] / 1.15, ticks[-1] * 1.15)
    ax.set_xlabel("Context tier (tokens, K = 1,024)", fontsize=8)
    ax.set_ylabel(label, fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6)
    else:  # say "no data" rather than draw an empty frame that reads as zero
        ax.text(0.5, 0.5, "no data (text too short for this metric)", transform=ax.transAxes,
                ha="center", va="center", fontsize=7, color="#999999")


def _title(runs) -> str:
    readings = sorted({METRIC_SETS.get(str(_value(table.iloc[0], "metric_set")),
                                       METRIC_SETS[DEFAULT_SET]) for _, table in runs})
    reading = " / ".join(readings)
    if len(runs) == 1:
        return f"Continuation from a fixed point: {runs[0][0]} ({reading})"
    return f"Continuation from a fixed point: {len(runs)} runs ({reading})"


def _note(fig, runs) -> None:
    """Sample sizes, sampling options and anything refused or cut, under the graphs."""
    notes = []
    for name, table in runs:
        first = table.iloc[0]
        text = (f"{name}: rounds per tier {int(table['rounds'].max())}, max_tokens "
                f"{_value(first, 'max_tokens')}, temp {_value(first, 'temperature')}, "
                f"seed {_value(first, 'seed')}, point {_value(first, 'continuation_point_tokens')}"
                " tokens")
        empty = table["rounds_without_words"].fillna(0).astype(int) \
            if "rounds_without_words" in table else pd.Series(dtype=int)
        if empty.sum():
            text += "; rounds without words: " + ", ".join(
                f"{tier_label(int(c))} {n}" for c, n in zip(table["context"], empty) if n)
        unsupported = _value(first, "unsupported_params")
        if unsupported:
            text += f"; refused by the endpoint: {unsupported}"
        if str(_value(first, "input_truncated")) == "True":
            text += "; INPUT TRUNCATED at extraction"
        notes.append(text)
    fig.text(0.01, 0.01, "\n".join(notes[:6]), fontsize=6, va="bottom")


def _value(row, column):
    value = row.get(column) if hasattr(row, "get") else None
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)  # pandas reads integer columns with gaps as floats
    return value
