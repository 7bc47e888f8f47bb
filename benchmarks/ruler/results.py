"""RULER's own numbers from the records (spec section 4): per task and length the score
(100 x the mean string-match score, rounded to 2 decimals as RULER rounds it), per length the
unweighted mean of those rounded task scores, their average, wAvg(inc) and wAvg(dec), and the
effective length (the longest length whose score, and every shorter one's, is >= 85.6), all
read from the rounded task scores as RULER reads them. Each with a 95% interval from the
shared verdict bootstrap (reporting/analysis/verdicts.py ``curve_bootstrap``: the scored
samples resampled within each task and length, seeded) on the unrounded scores, and the
counts behind it.

The run's verdict reads the same curve: RULER declares its tasks a stratum
(``Experiment.stratum``), so the verdict's mean at a length is the mean of the task means,
unrounded. The findings still say at which lengths a task has other counts than the rest,
or none at all (skipped, overflowed or failed samples).

Only imported where the run's files are written (pandas).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from benchmarks.texts.fitting import length_label
from reporting.analysis.verdicts import curve_bootstrap, last_passing

from . import EXPERIMENT
from .grid import LENGTHS, TASKS

METRIC = EXPERIMENT.metric
BAR = round(100 * EXPERIMENT.absolute, 1)  # Llama-2-7B-chat's 4k score: RULER's threshold
DECIMALS = 2  # RULER rounds each task's score (0-100) before it averages them


@dataclasses.dataclass
class LengthScore:
    length: int
    score: float  # mean over tasks of the task scores (100 x the task's mean, rounded)
    unrounded: float  # the same from unrounded task scores
    low: float  # the interval: unrounded
    high: float
    tasks: list[str]  # the tasks with scored samples at this length
    samples: int  # scored samples in all
    equal_counts: bool  # every task has the same count
    fewest: int  # the smallest task's count
    replicates: np.ndarray = dataclasses.field(repr=False)


def task_score(mean: float) -> float:
    """RULER's task score: 100 x the mean, rounded to 2 decimals."""
    return round(100 * float(mean), DECIMALS)


def scored(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty or METRIC not in frame:
        return frame.iloc[0:0]
    return frame[(frame["outcome"] == "ok") & frame[METRIC].notna()]


def task_table(frame: pd.DataFrame) -> pd.DataFrame:
    """task, length, score (0-100, rounded as RULER's), unrounded, n: one row per task and
    length with scored samples."""
    good = scored(frame)
    if good.empty:
        return pd.DataFrame(columns=["task", "length", "score", "unrounded", "n"])
    table = good.groupby(["params.task", "params.length"])[METRIC].agg(["mean", "size"])
    table = table.reset_index().rename(columns={"params.task": "task", "params.length": "length",
                                                "mean": "unrounded", "size": "n"})
    table["unrounded"] = table["unrounded"].astype(float) * 100
    table["score"] = [round(value, DECIMALS) for value in table["unrounded"]]
    table["length"] = table["length"].astype(int)
    return table[["task", "length", "score", "unrounded", "n"]]


def length_scores(frame: pd.DataFrame) -> list[LengthScore]:
    """RULER's score at each length, with the bootstrap of its tasks' unrounded means."""
    good = scored(frame)
    by_length = []
    for length, part in sorted(good.groupby("params.length"), key=lambda item: item[0]):
        tasks = [t for t in TASKS if t in set(part["params.task"])]
        by_length.append((int(length), tasks, [
            part.loc[part["params.task"] == task, METRIC].astype(float).to_numpy()
            for task in tasks]))
    if not by_length:
        return []
    curves = 100 * curve_bootstrap([values for _, _, values in by_length])  # length x resample
    found = []
    for (length, tasks, values), replicates in zip(by_length, curves):
        counts = [len(v) for v in values]
        low, high = np.percentile(replicates, [2.5, 97.5])
        found.append(LengthScore(
            length, float(np.mean([task_score(v.mean()) for v in values])),
            float(np.mean([v.mean() for v in values])) * 100, float(low), float(high), tasks,
            int(sum(counts)), len(set(counts)) == 1, min(counts), replicates))
    return found


def weighted_average(scores: list[float], increasing: bool) -> float:
    """wAvg: weights 1..k over the lengths, ascending (inc) or descending (dec), / sum."""
    weights = np.arange(1, len(scores) + 1, dtype=float)
    if not increasing:
        weights = weights[::-1]
    return float(np.dot(weights, scores) / weights.sum())


def effective_length(scores, lengths: list[int], bar: float = BAR):
    """The longest length whose score and every shorter one's is >= bar; 0 if the first
    fails (the verdicts' rule, ``last_passing``). ``scores``: one curve, or curves
    (..., lengths) for which an array of lengths comes back."""
    index = last_passing(np.asarray(scores, dtype=float) >= bar)
    found = np.concatenate([[0], np.asarray(lengths, dtype=np.int64)])[index + 1]
    return int(found) if np.ndim(found) == 0 else found


def _interval(values: np.ndarray) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def summary(frame: pd.DataFrame) -> dict:
    """Everything above as plain data (summary.json's ``findings.ruler``)."""
    by_length = length_scores(frame)
    if not by_length:
        return {}
    lengths = [item.length for item in by_length]
    points = [item.score for item in by_length]
    stacked = np.stack([item.replicates for item in by_length], axis=1)  # resample x length
    weights = np.arange(1, len(lengths) + 1, dtype=float)
    effective = effective_length(points, lengths)
    effective_replicates = effective_length(stacked, lengths)
    tasks = sorted({t for item in by_length for t in item.tasks}, key=list(TASKS).index)
    return {
        "by_length": [{"length": item.length, "score": round(item.score, 2),
                       "unrounded": round(item.unrounded, 4),
                       "low": round(item.low, 2), "high": round(item.high, 2),
                       "tasks": len(item.tasks), "samples": item.samples,
                       "missing_tasks": [t for t in tasks if t not in item.tasks],
                       "equal_counts": item.equal_counts, "fewest": item.fewest}
                      for item in by_length],
        "by_task": task_table(frame).round({"unrounded": 4}).to_dict(orient="records"),
        "avg": _estimate(float(np.mean(points)), stacked.mean(axis=1)),
        "wavg_inc": _estimate(weighted_average(points, True), stacked @ weights / weights.sum()),
        "wavg_dec": _estimate(weighted_average(points, False),
                              stacked @ weights[::-1] / weights.sum()),
        "effective_length": {"value": effective, "low": int(np.percentile(
            effective_replicates, 2.5, method="lower")), "high": int(np.percentile(
                effective_replicates, 97.5, method="higher")),
            "censored": effective == lengths[-1], "bar": BAR},
        "tasks": tasks,
        "comparable": _comparability(tasks, lengths),
    }


def _estimate(value: float, replicates: np.ndarray) -> dict:
    low, high = _interval(replicates)
    return {"value": round(value, 2), "low": round(low, 2), "high": round(high, 2)}


def _comparability(tasks: list[str], lengths: list[int]) -> str:
    """Why these numbers are not RULER's published table's, or "" when they are of its
    shape (they still differ in the essay haystack and the tokenizer: see the README)."""
    problems = []
    if len(tasks) < len(TASKS):
        problems.append(f"{len(tasks)} of RULER's {len(TASKS)} tasks (without "
                        f"{', '.join(t for t in TASKS if t not in tasks)})")
    if tuple(lengths) != LENGTHS:
        problems.append(f"lengths {', '.join(map(length_label, lengths))} (RULER's: 4K to 128K)")
    return "; ".join(problems)


def findings(frame: pd.DataFrame) -> dict:
    """For summary.json and the terminal: RULER's table for this run, in its own terms."""
    found = summary(frame)
    if not found:
        return {}
    rows = found["by_length"]
    effective = found["effective_length"]
    # one sample of a task resamples to itself: its bootstrap says nothing about variation
    spread = all(row["fewest"] >= 2 for row in rows)
    shown = (f">= {length_label(effective['value'])}" if effective["censored"] else
             length_label(effective["value"]) if effective["value"] else
             f"< {length_label(rows[0]['length'])}")
    span = "" if effective["low"] == effective["high"] or not spread else \
        f" [{_label_or_zero(effective['low'])}, {_label_or_zero(effective['high'])}]"
    lines = ["RULER score by length (mean of the task scores, 0-100, " +
             ("95% interval, " if spread else "") + "tasks, scored samples): " + "; ".join(
                 f"{length_label(row['length'])} {row['score']:.2f}"
                 + (f" [{row['low']:.2f}, {row['high']:.2f}]" if spread else "")
                 + f" ({row['tasks']} tasks, n={row['samples']})" for row in rows),
             f"Avg {found['avg']['value']:.2f}, wAvg(inc) {_text(found['wavg_inc'], spread)}, "
             f"wAvg(dec) {_text(found['wavg_dec'], spread)}"
             + ("" if spread else " (no intervals: about one sample per task)"),
             f"effective length (RULER: score >= {BAR} at that length and every shorter one): "
             f"{shown}{span}"]
    unequal = [length_label(row["length"]) for row in rows
               if not row["equal_counts"] or row["missing_tasks"]]
    if unequal:
        lines.append(f"tasks with different scored counts, or none, at {', '.join(unequal)}: "
                     "RULER's mean weighs each task equally, whatever its count")
    if found["comparable"]:
        lines.append(f"not RULER's published table: {found['comparable']}")
    return {**found, "lines": lines}


def _text(estimate: dict, spread: bool = True) -> str:
    interval = f" [{estimate['low']:.2f}, {estimate['high']:.2f}]" if spread else ""
    return f"{estimate['value']:.2f}{interval}"


def _label_or_zero(length: int) -> str:
    return length_label(length) if length else "0"
