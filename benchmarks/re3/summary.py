"""The summary table, from records: one row per phase x configuration x strategy x benchmark.

Accuracy is over the samples that ran and were scored (``ok``); skipped and overflowed samples
are counted apart (``n_not_scored``), never as wrong. An unextracted answer counts as not
correct and is also counted in ``n_unextracted``. Each configuration is compared with the
baseline (C01) and with RE2 (C03) on the items both answered: the paired accuracy difference
with a bootstrap 95% interval of the per-item differences, and the exact McNemar p-value.
"""

from __future__ import annotations

import math

import pandas as pd

from reporting.analysis.stats import bootstrap_interval, mcnemar, wilson_interval

from .patterns import BASELINE, RE2

KEYS = ("phase", "config_id", "pattern", "b_strategy", "benchmark")
REFERENCES = (("baseline", BASELINE), ("re2", RE2))


def compared_names(name: str) -> dict[str, str]:
    """The summary columns of one comparison, keyed by the names ``paired`` returns."""
    return {"accuracy": f"accuracy_vs_{name}", "accuracy_ci_low": f"accuracy_vs_{name}_ci_low",
            "accuracy_ci_high": f"accuracy_vs_{name}_ci_high", "n_paired": f"n_paired_{name}",
            "mcnemar_p": f"mcnemar_p_{name}"}


NO_COMPARISON = {"accuracy": math.nan, "accuracy_ci_low": math.nan,
                 "accuracy_ci_high": math.nan, "n_paired": 0, "mcnemar_p": math.nan}
COLUMNS = [*KEYS, "n_correct", "n_total", "accuracy", "ci_low", "ci_high", "n_unextracted",
           "n_not_scored", *(c for name, _ in REFERENCES for c in compared_names(name).values())]


def scored(frame: pd.DataFrame) -> pd.DataFrame:
    """The records that ran and were scored, with plain columns (``config_id``, ``correct``)."""
    needed = [f"params.{k}" for k in KEYS] + ["params.item_id", "scores.correct"]
    if frame.empty or any(column not in frame for column in needed):
        return pd.DataFrame(columns=[*KEYS, "item_id", "correct", "extracted"])
    done = frame[(frame["outcome"] == "ok") & frame["scores.correct"].notna()]
    extracted = done["scores.extracted"] if "scores.extracted" in done else True
    return pd.DataFrame({
        **{key: done[f"params.{key}"] for key in KEYS},
        "item_id": done["params.item_id"],
        "correct": done["scores.correct"].astype(bool),
        "extracted": pd.Series(extracted, index=done.index).fillna(False).astype(bool),
    }).drop_duplicates(subset=[*KEYS, "item_id"], keep="last")


def paired(cell: pd.DataFrame, reference: pd.DataFrame) -> dict:
    """Accuracy of ``cell`` minus ``reference`` on their common items, with CI and McNemar."""
    both = cell[["item_id", "correct"]].merge(reference[["item_id", "correct"]], on="item_id",
                                              suffixes=("", "_ref"))
    if both.empty:
        return dict(NO_COMPARISON)
    differences = both["correct"].astype(int) - both["correct_ref"].astype(int)
    low, high = bootstrap_interval(differences.tolist())
    return {"accuracy": float(differences.mean()), "accuracy_ci_low": low,
            "accuracy_ci_high": high, "n_paired": int(len(both)),
            "mcnemar_p": mcnemar(int((differences == 1).sum()), int((differences == -1).sum()))}


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty or any(f"params.{k}" not in frame for k in KEYS):
        return pd.DataFrame(columns=COLUMNS)
    done = scored(frame)
    attempted = frame.groupby([f"params.{k}" for k in KEYS], sort=True).size()
    rows = []
    for key, attempts in attempted.items():
        keys = dict(zip(KEYS, key))
        cell = done[(done[list(KEYS)] == pd.Series(keys)).all(axis=1)]
        n_total, n_correct = len(cell), int(cell["correct"].sum())
        low, high = wilson_interval(n_correct, n_total)
        row = {**keys, "n_correct": n_correct, "n_total": n_total,
               "accuracy": n_correct / n_total if n_total else math.nan,
               "ci_low": low, "ci_high": high,
               "n_unextracted": int((~cell["extracted"]).sum()),
               "n_not_scored": int(attempts) - n_total}
        for name, reference_id in REFERENCES:
            reference = done[(done["phase"] == keys["phase"])
                             & (done["benchmark"] == keys["benchmark"])
                             & (done["config_id"] == reference_id)]
            # a reference is not compared with itself
            comparison = (NO_COMPARISON if keys["config_id"] == reference_id
                          else paired(cell, reference))
            names = compared_names(name)
            row.update({names[k]: v for k, v in comparison.items()})
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)
