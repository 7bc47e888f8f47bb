"""The summary CSV and the two plots, drawn from records (never from a model).

- ``summary.csv``: the summary table (summary.py), one row per phase x configuration x
  strategy x benchmark;
- ``accuracy.png``: accuracy per configuration, one panel per benchmark, with Wilson 95%
  intervals and sample counts;
- ``gain_over_baseline.png``: the paired accuracy difference from C01 on the same items, with
  its bootstrap 95% interval, the number of paired items and the McNemar p-value.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from reporting import plots

from .summary import summary_table
from .transforms import NONE, STRATEGIES

STRATEGY_COLOURS = dict(zip((NONE, *STRATEGIES),
                            ("#7E8E9E", "#2FB874", "#EA5412", "#EBB125", "#4A6FD0")))


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    summary = summary_table(frame)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "summary.csv"
    summary.to_csv(csv_path, index=False, float_format="%.6g")
    if summary.empty:
        return [csv_path]
    return [csv_path,
            _panels(summary, "accuracy", "Accuracy (95% Wilson CI)", out_dir, "accuracy.png"),
            _panels(summary[summary["n_paired_baseline"] > 0], "accuracy_vs_baseline",
                    "Accuracy gain over C01, same items (95% CI)", out_dir,
                    "gain_over_baseline.png")]


def _panels(summary: pd.DataFrame, column: str, label: str, out_dir: Path, filename: str):
    cells = sorted(set(zip(summary["phase"], summary["benchmark"])))
    fig, axes = plots.panel_grid(max(len(cells), 1), columns=2, size=(7.0, 3.6))
    for ax, (phase, benchmark) in zip(axes, cells):
        rows = summary[(summary["phase"] == phase) & (summary["benchmark"] == benchmark)]
        _bars(ax, rows.sort_values(["config_id", "b_strategy"]), column)
        ax.set_title(f"phase {phase}: {benchmark}", fontsize=9)
        ax.set_ylabel(label, fontsize=8)
    if not cells:
        axes[0].text(0.5, 0.5, "no configuration was paired with C01", ha="center",
                     transform=axes[0].transAxes)
    shown = [s for s in STRATEGY_COLOURS if s in set(summary["b_strategy"])]
    handles = [plots.plt.Rectangle((0, 0), 1, 1, color=STRATEGY_COLOURS[s]) for s in shown]
    fig.legend(handles, shown, title="B strategy", fontsize=7,
               title_fontsize=7, loc="upper right")
    fig.suptitle(f"RE3: {label}", fontsize=11)
    return plots.save_figure(fig, out_dir, filename, tight=(0, 0, 0.9, 0.95))


def _bars(ax, rows: pd.DataFrame, column: str) -> None:
    gain = column != "accuracy"
    low_column, high_column = (f"{column}_ci_low", f"{column}_ci_high") if gain else \
        ("ci_low", "ci_high")
    for x, (_, row) in enumerate(rows.iterrows()):
        value = row[column]
        colour = STRATEGY_COLOURS.get(row["b_strategy"], "#999999")
        if value is None or math.isnan(value):  # nothing scored: an empty slot, not a 0 bar
            ax.text(x, 0, "n=0", ha="center", va="bottom", fontsize=6, color="#999999")
            continue
        ax.bar(x, value, color=colour, edgecolor="black", linewidth=0.3, width=0.75)
        low, high = row[low_column], row[high_column]
        if not (math.isnan(low) or math.isnan(high)):
            ax.errorbar(x, value, yerr=[[value - low], [high - value]], fmt="none",
                        ecolor="black", elinewidth=0.6, capsize=2)
        n = row["n_paired_baseline"] if gain else row["n_total"]
        note = f"n={n}" + (f"\np={row['mcnemar_p_baseline']:.2g}" if gain else "")
        ax.annotate(note, (x, high if not math.isnan(high) else value), textcoords="offset points",
                    xytext=(0, 2), ha="center", va="bottom", fontsize=5)
    ax.set_xticks(range(len(rows)), [f"{c}\n{p}" for c, p in zip(rows["config_id"],
                                                                  rows["pattern"])], fontsize=6)
    if gain:
        ax.axhline(0, color="black", linewidth=0.6, linestyle="--")
        ax.set_ylim(-1.1, 1.2)
    else:
        ax.set_ylim(0, 1.2)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="y", alpha=0.3)
