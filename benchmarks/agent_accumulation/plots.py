"""Drawn from records: per needle count, exact and id_f1 by the accumulated length each mode
and condition actually reached (the median of its episodes' last prompts; the target length
is the tick beneath, and a dotted line joins the two where they differ), 95% bands; exact by
the depth of the earliest needle; and each live condition against full on the same ledgers
(paired, McNemar's exact test), and a native condition against its client-side twin
(``native-vs-twins.png``). Only ``ok`` records are drawn (an overflow is counted, never
scored: scoring.OVERFLOW_RULE)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from benchmarks.texts.fitting import length_label
from reporting import plots

from .grid import parse_conditions
from .scoring import findings

DEPTH_BINS = 5
FULL_COLOUR = "#3A76E5"
COLOURS = ("#EB4026", "#2FB874", "#EBB125", "#8E5BD9", "#7E8E9E", "#E5739C")


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    if frame.empty or "scores.exact" not in frame:
        return []
    scored = frame[(frame["outcome"] == "ok") & frame["scores.exact"].notna()]
    paths = [_curves(scored[scored["params.needles"] == k], int(k), out_dir)
             for k in sorted(scored["params.needles"].unique())]
    if "details.earliest_needle_depth" in scored and len(scored):
        paths.append(_depth(scored, out_dir))
    paired = findings(frame)
    for key, baseline, stem in (("conditions", lambda condition: "full", "conditions-vs-full"),
                                ("twins", twin_of, "native-vs-twins")):
        found = paired.get(key, {})
        if any(part["pairs"] for part in found.values()):
            paths.append(_paired(found, baseline, out_dir, stem))
    return paths


def twin_of(condition: str) -> str:
    return parse_conditions(condition)[0].twin


def _series(scored: pd.DataFrame) -> list[tuple[str, pd.DataFrame, str]]:
    """(label, records, colour): trajectory, then live full, then the mitigations."""
    found = []
    keys = sorted(scored.groupby(["params.mode", "params.condition"]).groups,
                  key=lambda key: (key[0] != "trajectory", key[1] != "full", key[1]))
    others = iter(COLOURS)
    for mode, condition in keys:
        part = scored[(scored["params.mode"] == mode) & (scored["params.condition"] == condition)]
        colour = "#222222" if mode == "trajectory" else FULL_COLOUR if condition == "full" \
            else next(others, None)
        found.append((mode if mode == "trajectory" else f"live {condition}", part, colour))
    return found


def _curves(scored: pd.DataFrame, needles: int, out_dir: Path) -> Path:
    fig, axes = plots.panel_grid(2, columns=2, size=(5.6, 4.0))
    lengths = sorted(int(n) for n in scored["params.length"].unique())
    for label, part, colour in _series(scored):
        targets = [x for x in lengths if (part["params.length"] == x).any()]
        xs = [_reached(part[part["params.length"] == x], x) for x in targets]
        for ax, column in zip(axes, ("scores.exact", "scores.id_f1")):
            groups = [part[part["params.length"] == x][column].astype(float).tolist()
                      for x in targets]
            plots.interval_curve(ax, xs, groups, kind="rate" if column == "scores.exact"
                                 else "mean", label=label, color=colour)
            for target, reached, group in zip(targets, xs, groups):
                if reached != target and group:  # where it ended, beside its target
                    ax.plot([target, reached], [np.mean(group)] * 2, ":", color=colour,
                            linewidth=0.8)
    for ax, name in zip(axes, ("exact (95% band)", "id F1 (mean, 95% band)")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths, [length_label(x) for x in lengths], fontsize=7)
        ax.minorticks_off()
        ax.set_ylim(-0.02, 1.05)
        ax.set_ylabel(name, fontsize=8)
        ax.set_xlabel("accumulated length reached (median; ticks: the target lengths)",
                      fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"Agent accumulation, {needles} needle{'s' * (needles != 1)}: by length",
                 fontsize=10)
    return plots.save_figure(fig, out_dir, f"curve-nd{needles}.png", tight=(0, 0, 1, 0.95))


def _reached(part: pd.DataFrame, target: int) -> float:
    """The median length the episodes reached (their last prompt), else the target."""
    if "details.accumulated_tokens" not in part:
        return target
    reached = part["details.accumulated_tokens"].dropna()
    return float(reached.median()) if len(reached) else target


def _depth(scored: pd.DataFrame, out_dir: Path) -> Path:
    """Exact by where the earliest needle sits (0: the first record read), condition full."""
    full = scored[scored["params.condition"] == "full"]
    edges = plots.bin_edges(0.0, 1.0, DEPTH_BINS)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for mode in sorted(full["params.mode"].unique()):
        part = full[full["params.mode"] == mode]
        bins = plots.assign_bins(part["details.earliest_needle_depth"].astype(float), edges)
        centres = (edges[:-1] + edges[1:]) / 2
        groups = [part["scores.exact"].astype(float)[bins == b].tolist()
                  for b in range(DEPTH_BINS)]
        xs = [c for c, g in zip(centres, groups) if g]
        plots.interval_curve(ax, xs, [g for g in groups if g], kind="rate", label=mode,
                             color="#222222" if mode == "trajectory" else FULL_COLOUR)
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("depth of the earliest needle (0: the first record read)", fontsize=8)
    ax.set_ylabel("exact (95% band)", fontsize=8)
    ax.set_title("Agent accumulation: exact by the earliest needle's depth (full)", fontsize=9)
    ax.legend(fontsize=7)
    return plots.save_figure(fig, out_dir, "depth.png")


def _paired(found: dict, baseline, out_dir: Path, stem: str) -> Path:
    """Each condition's exact beside its baseline's (``baseline(condition)``: full, or a
    native condition's twin) on the same ledgers."""
    names = [name for name, part in found.items() if part["pairs"]]
    fig, ax = plt.subplots(figsize=(2.4 + 1.6 * len(names), 4.2))
    x = np.arange(len(names))
    for offset, side, colour in ((-0.2, baseline, FULL_COLOUR), (0.2, None, COLOURS[0])):
        parts = [found[name][side(name) if side else name] for name in names]
        means = [p["accuracy"] for p in parts]
        ax.bar(x + offset, means, 0.4, color=colour,
               label="baseline (full, or the twin)" if side else "condition",
               yerr=[np.subtract(means, [p["ci"][0] for p in parts]),
                     np.subtract([p["ci"][1] for p in parts], means)],
               capsize=3, error_kw={"ecolor": "#666666", "elinewidth": 0.8})
    ax.set_xticks(x, [f"{n}\nvs {baseline(n)}\nn={found[n]['pairs']}\ngap "
                      f"{found[n]['gap']:+.2f}, p={found[n]['p']:.2g}" for n in names],
                  fontsize=7)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("exact, live")
    ax.set_title("Each condition vs its baseline on the same ledgers (McNemar's exact test)",
                 fontsize=9)
    ax.legend(fontsize=8, loc="upper right")
    return plots.save_figure(fig, out_dir, f"{stem}.png")
