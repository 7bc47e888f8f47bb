"""Figures written in parallel (forked writers): the same bytes as written in turn, and a
figure that cannot be written is named without losing the others."""

import sys
import threading

import matplotlib.artist
import pytest

from reporting import plots

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="figures are written in parallel on Linux only")


class Broken(matplotlib.artist.Artist):
    def draw(self, renderer):
        raise RuntimeError("this artist cannot be drawn")


def figure(title: str, broken: bool = False):
    fig, axes = plots.panel_grid(4, columns=2)
    for i, ax in enumerate(axes):
        plots.binned_bars(ax, [10, 50, 90], [[0.1, 0.2], [], [0.9, 1.0, 0.8]], kind="mean",
                          width=4, color="#2FB874")
        ax.set_title(f"{title} {i}")
    if broken:
        fig.add_artist(Broken())
    return fig


def test_parallel_writes_give_the_bytes_written_in_turn(tmp_path):
    alone = plots.save_figure(figure("a"), tmp_path / "alone", "a.png", tight=(0, 0, 1, 1))
    with plots.parallel_writes():
        assert plots._writers is not None  # forked writers, not the fallback
        written = [plots.save_figure(figure(name), tmp_path / "parallel", f"{name}.png",
                                     tight=(0, 0, 1, 1)) for name in "abc"]
    assert all(path.stat().st_size > 0 for path in written)
    assert written[0].read_bytes() == alone.read_bytes()


def test_a_figure_that_fails_is_named_and_the_others_are_written(tmp_path):
    with pytest.raises(plots.FigureWriteError) as failed:
        with plots.parallel_writes():
            good = plots.save_figure(figure("good"), tmp_path, "good.png")
            bad = plots.save_figure(figure("bad", broken=True), tmp_path, "bad.png")
            late = plots.save_figure(figure("late"), tmp_path, "late.png")
    assert list(failed.value.failures) == [bad]
    assert "RuntimeError: this artist cannot be drawn" in failed.value.failures[bad]
    assert good.exists() and late.exists() and not bad.exists()


def test_with_another_thread_alive_figures_are_written_in_turn(tmp_path):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with plots.parallel_writes():
            assert plots._writers is None  # a fork would copy that thread's locks
            path = plots.save_figure(figure("a"), tmp_path, "a.png")
        assert path.exists()
    finally:
        stop.set()
        other.join()
