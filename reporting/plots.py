"""Plot pieces that several experiments draw: figures, binned bars, heatmaps, curves.

Renderers read records (a DataFrame), never models. Every helper here draws empty bins and
cells as empty (hatched grey or blank), never as 0, and shows sample counts or intervals, so a
reader can tell "no data" from "all wrong".
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import threading
from pathlib import Path
from typing import Iterator, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LinearSegmentedColormap  # noqa: E402

from reporting.analysis.stats import mean_interval  # noqa: E402

DPI = 150
# Red to amber to green, continuous (the original NIAH heatmap's colours, not a 2-colour map).
ACCURACY_CMAP = LinearSegmentedColormap.from_list("accuracy", ["#F0496E", "#EBB839", "#0CD79F"])


def save_figure(fig, out_dir: Path, filename: str,
                tight: tuple[float, float, float, float] | None = None) -> Path:
    """Write ``fig`` as a PNG and close it. ``tight``: the rectangle tight_layout fits the
    axes into (laid out while drawing, so a parallel writer does that work too). Within
    ``parallel_writes`` the file is complete only when that block ends."""
    path = Path(out_dir) / filename
    path.parent.mkdir(parents=True, exist_ok=True)
    if tight is not None:
        fig.set_layout_engine("tight", rect=tight)
    if _writers is not None:
        _writers.write(fig, path)
    else:
        fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return path


class FigureWriteError(RuntimeError):
    """Some figures of a ``parallel_writes`` block could not be written (their paths)."""

    def __init__(self, failures: dict[Path, str]):
        super().__init__("; ".join(f"{path.name}: {why}" for path, why in failures.items()))
        self.failures = failures


class _Writers:
    """Forked children, one per figure and at most one per core, each drawing and encoding
    its figure (the end's slow part: layout, rasterising, PNG) while the parent builds the
    next. A child gets the figure by fork, with nothing to pickle; its error comes back on a
    pipe."""

    def __init__(self) -> None:
        self.limit = max(1, len(os.sched_getaffinity(0)))
        self.running: dict[int, tuple[Path, int]] = {}  # pid -> (path, read end of its pipe)
        self.failures: dict[Path, str] = {}

    def write(self, fig, path: Path) -> None:
        if len(self.running) >= self.limit:
            self._wait(next(iter(self.running)))  # the oldest: figures take alike
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: write the figure, say why not if it cannot, never return
            status = 1
            try:
                os.close(read)
                fig.savefig(path, dpi=DPI, bbox_inches="tight")
                status = 0
            except BaseException as error:  # noqa: BLE001 (the parent reports it)
                with contextlib.suppress(BaseException):
                    os.write(write, f"{type(error).__name__}: {error}".encode()[:4000])
            finally:
                os._exit(status)
        os.close(write)
        self.running[pid] = (path, read)

    def _wait(self, pid: int) -> None:
        path, read = self.running.pop(pid)
        with os.fdopen(read, "rb") as pipe:  # the child's error, if any (EOF at its exit)
            message = pipe.read().decode(errors="replace")
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code != 0:
            self.failures[path] = message or f"its writer exited with status {code}"
            path.unlink(missing_ok=True)

    def finish(self) -> None:
        while self.running:
            self._wait(next(iter(self.running)))


_writers: _Writers | None = None


@contextlib.contextmanager
def parallel_writes() -> Iterator[None]:
    """Within: ``save_figure`` writes each figure in a forked child, so figures are drawn on
    every core; all are written when the block ends (FigureWriteError names those that were
    not). Linux only, and only in a process with no other thread (a fork copies locks that
    another thread may hold); elsewhere figures are written in turn, as without it."""
    global _writers
    if _writers is not None or not sys.platform.startswith("linux") \
            or threading.active_count() > 1:
        yield
        return
    _writers = writers = _Writers()
    try:
        yield
    finally:
        _writers = None
        writers.finish()
    if writers.failures:
        raise FigureWriteError(writers.failures)


def panel_grid(count: int, columns: int = 3, size: tuple[float, float] = (5.0, 3.2)):
    """A grid of ``count`` axes (extra axes hidden), returned flat."""
    rows = max(1, math.ceil(count / columns))
    columns = min(columns, max(count, 1))
    fig, axes = plt.subplots(rows, columns, figsize=(size[0] * columns, size[1] * rows),
                             squeeze=False)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def bin_edges(low: float, high: float, bins: int) -> np.ndarray:
    return np.linspace(low, high, bins + 1)


def assign_bins(values: Sequence[float], edges: np.ndarray) -> np.ndarray:
    """Bin index per value; the last edge is inclusive so the maximum lands in the last bin."""
    index = np.searchsorted(edges, np.asarray(values, dtype=float), side="right") - 1
    return np.clip(index, 0, len(edges) - 2)


def binned_bars(ax, centres: Sequence[float], groups: Sequence[Sequence[float]], *, kind: str,
                width: float, color: str, hatch_negative: bool = False) -> None:
    """Bars of each bin's mean with 95% interval whiskers and the count above each bar.

    An empty bin is shaded light grey across the whole panel (no bar at all), so "no samples"
    never looks like a mean of 0. One ``bar`` and one ``errorbar`` call draw every bin (a call
    per bin made a figure of 60 bins take a second).
    """
    cells = [(centre, *mean_interval(values, kind)) for centre, values in zip(centres, groups)]
    for centre, *_ in (c for c in cells if c[4] == 0):
        ax.axvspan(centre - width / 2, centre + width / 2, color="#EFEFEF", zorder=0,
                   linewidth=0)
    filled = [c for c in cells if c[4] > 0]
    if not filled:
        return
    x, mean, low, high, n = (np.array(column, dtype=float) for column in zip(*filled))
    bars = ax.bar(x, mean, width=width, color=color, edgecolor="black", linewidth=0.3,
                  zorder=2)
    if hatch_negative:
        for bar, value in zip(bars, mean):
            if value < 0:
                bar.set_hatch("///")
    whiskers = ~np.isnan(low)
    if whiskers.any():
        ax.errorbar(x[whiskers], mean[whiskers],
                    yerr=[mean[whiskers] - low[whiskers], high[whiskers] - mean[whiskers]],
                    fmt="none", ecolor="black", elinewidth=0.6, capsize=1.5, zorder=3)
    for centre, value, top, count in zip(x, mean, np.where(whiskers, high, mean), n):
        ax.text(centre, max(value, top), f"{int(count)}", ha="center", va="bottom",
                fontsize=5, zorder=3)


EMPTY_BIN_NOTE = "grey band: no samples in that bin; numbers: samples per bar (95% CI whiskers)"


def heatmap(ax, matrix: np.ndarray, row_labels: Sequence[str], col_labels: Sequence[str], *,
            counts: np.ndarray | None = None, missing_label: str = "skipped",
            vmin: float = 0.0, vmax: float = 1.0, cmap=ACCURACY_CMAP):
    """A continuous heatmap, each cell annotated with its value (and n); NaN cells greyed."""
    shown = np.ma.masked_invalid(matrix.astype(float))
    colormap = matplotlib.colormaps.get_cmap(cmap).with_extremes(bad="#E6E6E6")
    image = ax.imshow(shown, cmap=colormap, vmin=vmin, vmax=vmax, aspect="auto",
                      origin="lower")
    ax.set_xticks(range(len(col_labels)), col_labels)
    ax.set_yticks(range(len(row_labels)), row_labels)
    for (i, j), value in np.ndenumerate(matrix):
        if np.isnan(value):
            text = missing_label
        else:
            text = f"{value:.2f}"
            if counts is not None:
                text += f"\nn={int(counts[i, j])}"
        ax.text(j, i, text, ha="center", va="center", fontsize=6)
    return image


def interval_curve(ax, xs: Sequence[float], groups: Sequence[Sequence[float]], *, kind: str,
                   label: str, color: str | None = None, marker: str = "o") -> None:
    """A line through each x's mean with a shaded 95% band; x values without data are gaps."""
    stats = [mean_interval(values, kind) for values in groups]
    means = np.array([s[0] for s in stats], dtype=float)
    lows = np.array([s[1] for s in stats], dtype=float)
    highs = np.array([s[2] for s in stats], dtype=float)
    line, = ax.plot(xs, means, marker=marker, label=label, color=color, linewidth=1.2,
                    markersize=3.5)
    ax.fill_between(xs, lows, highs, alpha=0.18, color=line.get_color(), linewidth=0)


def reasoning_curve(frame, experiment, out_dir: Path) -> Path | None:
    """What thinking does to rot: mean reasoning tokens (95% band) and the share of samples
    whose thinking ran out, by the experiment's length; None when no record has reasoning
    tokens or the experiment has no length axis."""
    length = experiment.length
    if frame.empty or not length or length not in frame or "reasoning_tokens" not in frame \
            or frame["reasoning_tokens"].dropna().empty:
        return None
    xs = sorted(frame[length].dropna().unique(), key=float)
    at = [frame[frame[length] == x] for x in xs]
    fig, (tokens, ran_out) = panel_grid(2, columns=2, size=(5.0, 3.2))
    interval_curve(tokens, xs, [p["reasoning_tokens"].dropna().tolist() for p in at],
                   kind="mean", label="reasoning tokens")
    tokens.set_ylabel("reasoning tokens (mean, 95% interval)")
    flags = [p["thinking_ran_out"].fillna(False).astype(float).tolist()
             if "thinking_ran_out" in p else [] for p in at]
    interval_curve(ran_out, xs, flags, kind="rate", label="thinking ran out", color="#F0496E")
    ran_out.set_ylabel("share whose thinking ran out")
    for ax in (tokens, ran_out):
        ax.set_xlabel(length.split(".")[-1])
    fig.suptitle(f"{experiment.name}: thinking by length")
    return save_figure(fig, out_dir, f"{experiment.name}-reasoning-tokens.png")


def per_value(frame, column: str, draw) -> list[Path]:
    """``draw(records of one value, value)`` for each value of ``column`` in sorted order (a
    figure per source, say); [] where the records lack the column."""
    if frame.empty or column not in frame:
        return []
    return [draw(frame[frame[column] == value], value) for value in sorted(frame[column].unique())]


def scored_rows(frame, metric: str):
    """The ``ok`` records with a value of ``metric`` (none where no record has it)."""
    if metric not in frame:
        return frame.iloc[0:0]
    return frame[(frame["outcome"] == "ok") & frame[metric].notna()]
