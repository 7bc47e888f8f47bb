"""Phases 2 and 3 choose their configurations from the earlier phase's records.

This runs at collection time, because the choice is the grid. It reads the results store
(``<results-dir>/contextrot.sqlite``), takes the newest run (or ``--re3-from-run``) whose
records hold the earlier phase's GSM8K scores for enough configurations, and ranks them:

- phase 2 takes the 5 configurations of phase 1 with the highest GSM8K accuracy;
- phase 3 takes the strategy with the highest pooled GSM8K accuracy over phase 2's
  configurations that use B (the "best strategy"), then the 3 configurations with the highest
  accuracy under it (a pattern without B competes with its single result).

Ties go to the lower configuration id (then the earlier strategy), so the choice is
deterministic: every xdist worker collects the same grid.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas (and the store, and the summary) load only when a phase is chosen
    import pandas as pd
from .transforms import NONE, STRATEGIES

RANK_BENCHMARK = "gsm8k"


class PhaseUnavailable(ValueError):
    """The earlier phase's results are not in the store."""


@dataclasses.dataclass(frozen=True)
class Selection:
    source_run: str
    configs: tuple[str, ...]  # best first
    best_strategy: str | None = None  # phase 3 only


def _ranked(rows: pd.DataFrame) -> pd.DataFrame:
    order = {s: i for i, s in enumerate((NONE, *STRATEGIES))}
    rows = rows[rows["n_total"] > 0].assign(strategy_order=rows["b_strategy"].map(order))
    return rows.sort_values(["accuracy", "config_id", "strategy_order"],
                            ascending=[False, True, True], kind="stable")


def top_configurations(summary: pd.DataFrame, k: int) -> list[str]:
    """Phase 2's choice: the k configurations with the best phase-1 GSM8K accuracy."""
    rows = _ranked(summary[summary["benchmark"] == RANK_BENCHMARK])
    return list(dict.fromkeys(rows["config_id"]))[:k]


def best_strategy(summary: pd.DataFrame) -> str:
    rows = summary[(summary["benchmark"] == RANK_BENCHMARK) & (summary["b_strategy"] != NONE)
                   & (summary["n_total"] > 0)]
    if rows.empty:
        raise PhaseUnavailable("phase 2's records hold no configuration that uses B")
    pooled = rows.groupby("b_strategy")[["n_correct", "n_total"]].sum()
    accuracy = pooled["n_correct"] / pooled["n_total"]
    return min(accuracy.index, key=lambda s: (-accuracy[s], STRATEGIES.index(s)))


def top_under_best_strategy(summary: pd.DataFrame, k: int) -> tuple[str, list[str]]:
    """Phase 3's choice: the best strategy, and the k best configurations under it."""
    strategy = best_strategy(summary)
    rows = summary[(summary["benchmark"] == RANK_BENCHMARK)
                   & summary["b_strategy"].isin([strategy, NONE])]
    return strategy, list(dict.fromkeys(_ranked(rows)["config_id"]))[:k]


def earlier_phase(database: Path, phase: int, need: int, *, exclude_run: str,
                  from_run: str | None = None) -> tuple[str, pd.DataFrame]:
    """(run id, summary of its phase records) of the newest run that scored ``need``
    configurations of ``phase`` on GSM8K."""
    from reporting.storage.store import ResultsStore

    from .summary import summary_table

    hint = (f"run `pytest benchmarks -m re3 --re3-phase {phase}` first with the same "
            f"--results-dir, or name its run with --re3-from-run")
    if not database.exists():
        raise PhaseUnavailable(f"re3 phase {phase + 1} needs phase {phase}'s results, but there "
                               f"is no results store at {database}; {hint}")
    store = ResultsStore(database)
    try:
        candidates = ([from_run] if from_run else
                      [r["run_id"] for r in reversed(store.runs()) if r["run_id"] != exclude_run])
        for run_id in candidates:
            frame = store.frame(run_id, "re3")
            if frame.empty or "params.phase" not in frame:
                continue
            summary = summary_table(frame[frame["params.phase"] == phase])
            scored = summary[(summary["benchmark"] == RANK_BENCHMARK) & (summary["n_total"] > 0)]
            if scored["config_id"].nunique() >= need:
                return run_id, summary
    finally:
        store.close()
    found = (f"run {from_run!r} in {database} holds scored phase-{phase} GSM8K records for "
             f"fewer than {need} configurations" if from_run else
             f"no run in {database} holds scored phase-{phase} GSM8K records for {need} or "
             "more configurations")
    raise PhaseUnavailable(f"re3 phase {phase + 1} needs phase {phase}'s results, but {found}; "
                           f"{hint}")


def select(phase: int, database: Path, top: int, *, exclude_run: str,
           from_run: str | None = None) -> Selection:
    if phase == 2:
        run_id, summary = earlier_phase(database, 1, top, exclude_run=exclude_run,
                                        from_run=from_run)
        return Selection(run_id, tuple(top_configurations(summary, top)))
    if phase == 3:
        run_id, summary = earlier_phase(database, 2, top, exclude_run=exclude_run,
                                        from_run=from_run)
        strategy, configs = top_under_best_strategy(summary, top)
        return Selection(run_id, tuple(configs), strategy)
    raise ValueError(f"phase {phase} selects nothing from an earlier phase")
