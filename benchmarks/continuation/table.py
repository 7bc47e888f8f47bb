"""One row per tier: every metric averaged over its rounds, with spread, and the references.

Read from records only. Each metric of the headline set (``params.metric_set``) gets its
mean, sample standard deviation, 95% bootstrap interval and round count; the ground truth
(the text's real continuation, the same at every tier) and the tier's own context window (the
human prose the model read) are the references. The tier's grade level is read from its mean
cloze score as each set does (the original rounds the mean to 4 places first).

**Rounds without words** are counted per set (``rounds_without_words`` for the headline,
``<set>_rounds_without_words`` for each), never dropped in silence: Context-Tester's reading
gives such a round its values for empty text (cloze 64.0, the rest 0) and averages it in, as
the original averages every round; contextrot's reading has no metric for it, so its means
are over the other rounds and ``<metric>_n`` says how many. ``findings`` names them at the
end of the run.

**Degradation flags**, between a tier and the previous tier with data (the original's
thresholds, on round means): the cloze score rises by more than 3.0 (simpler text), the
vocabulary diversity falls by more than 0.05, or the sentence-length variance falls by more
than 5.0 (more uniform sentences). ``degraded`` is any of the three.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reporting.analysis.stats import mean_interval

from .grid import tier_label
from .readability import (DEFAULT_SET, METRIC_SETS, METRICS, NUMERIC_METRICS, reading_level,
                          set_field)

ROUND_METRICS = NUMERIC_METRICS + ("continuation_tokens",)
# metric -> (direction, threshold): +1 flags a rise, -1 a fall, larger than the threshold
DEGRADATION = {"cloze_score": (+1, 3.0), "vocabulary_diversity": (-1, 0.05),
               "sentence_length_variance": (-1, 5.0)}
SETTINGS = {"max_tokens": "max_tokens", "temperature": "model.sampling.temperature",
            "top_k": "model.sampling.top_k", "top_p": "model.sampling.top_p",
            "min_p": "model.sampling.min_p", "repeat_penalty": "model.sampling.repeat_penalty",
            "seed": "details.base_seed", "text_source": "details.text_source",
            "continuation_point_tokens": "details.continuation_point_tokens",
            "continuation_point_clamped": "details.continuation_point_clamped",
            "truth_sha256": "details.truth_sha256", "input_truncated": "details.input_truncated",
            "text_raw_chars": "details.text_raw_chars", "text_tokens": "details.text_tokens"}


def tier_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The run's CSV: one row per tier, ascending."""
    rows = []
    model = _first(frame, "model.name") or "unknown model"
    unsupported = sorted({name for value in frame.get("details.unsupported_params", [])
                          if isinstance(value, list) for name in value})
    for context, tier in frame.groupby("params.context", sort=True):
        ok = tier[tier["outcome"] == "ok"]
        row = {"model": model, "text": _first(tier, "params.text"), "context": int(context),
               "tier": tier_label(int(context)), "rounds": len(tier), "rounds_ok": len(ok),
               "outcomes": ";".join(f"{k}={v}" for k, v in
                                    sorted(tier["outcome"].value_counts().items())),
               "skip_reason": "" if len(ok) else _first(tier, "reason") or "",
               # target_tokens is in the run's unit (--tokenizer); older records lack o200k's
               "prompt_tokens_o200k": _first(tier, "o200k_tokens") or _first(tier,
                                                                             "target_tokens"),
               "window_start_char": _first(tier, "details.window_start_char"),
               "short_rounds": int(ok.get("details.short", pd.Series(dtype=bool))
                                   .fillna(False).astype(bool).sum())}
        metric_set = metric_set_of(tier)
        row["metric_set"] = metric_set
        row["rounds_without_words"] = without_words(ok, "scores")
        for name in METRIC_SETS:
            field = set_field(name)
            row[f"{field}_rounds_without_words"] = without_words(ok, f"scores.{field}")
            row[f"{field}_cloze_score_mean"] = _nan(_mean(_numbers(
                ok, f"scores.{field}.cloze_score")))
        for metric in ROUND_METRICS:
            values = _numbers(ok, f"scores.{metric}")
            mean, low, high, n = mean_interval(values, "mean")
            row[f"{metric}_mean"] = _nan(mean)
            row[f"{metric}_sd"] = float(np.std(values, ddof=1)) if n > 1 else math.nan
            row[f"{metric}_ci_low"], row[f"{metric}_ci_high"] = _nan(low), _nan(high)
            row[f"{metric}_n"] = n
        row["reading_level"] = tier_level(row["cloze_score_mean"], metric_set)
        for metric in METRICS:
            row[f"truth_{metric}"] = _first(tier, f"details.truth.{metric}")
            row[f"context_{metric}"] = _first(tier, f"details.context.{metric}")
        for name, column in SETTINGS.items():
            row[name] = _first(tier, column)
        row["unsupported_params"] = ";".join(unsupported)
        rows.append(row)
    table = pd.DataFrame(rows)
    return flag_degradation(table) if len(table) else table


def metric_set_of(frame: pd.DataFrame) -> str:
    """The headline set the records were read with (records made before there were two
    sets have none: they read as the default)."""
    return _first(frame, "params.metric_set") or DEFAULT_SET


def tier_level(cloze_mean: float, metric_set: str) -> str:
    """The grade level of a tier's mean cloze score, as the set reads an average: the original
    rounds the mean to 4 places first (``average_results``)."""
    if math.isnan(cloze_mean):
        return ""
    return reading_level(round(cloze_mean, 4) if metric_set == "context-tester" else cloze_mean)


def without_words(ok: pd.DataFrame, prefix: str) -> int:
    """Scored rounds whose metric set saw no word (``<prefix>.word_count`` is 0)."""
    column = f"{prefix}.word_count"
    return int((ok[column] == 0).sum()) if column in ok else 0


def findings(frame: pd.DataFrame) -> dict:
    """For the terminal, summary.json and report.html: the headline set, and the rounds that
    wrote no word, named, with what each set made of them."""
    ok = frame[frame["outcome"] == "ok"] if "outcome" in frame else frame.iloc[0:0]
    metric_set = metric_set_of(frame)
    other = next(name for name in METRIC_SETS if name != metric_set)
    lines = [f"readability: {METRIC_SETS[metric_set]} is the headline (--continuation-metric-"
             f"set {metric_set}); {METRIC_SETS[other]} is recorded beside it "
             f"(scores.{set_field(other)}.*)"]
    found = {"metric_set": metric_set, "rounds_scored": len(ok), "rounds_without_words": {}}
    treatment = {"context-tester": "averaged in with the original's values for empty text "
                                   "(cloze 64.0, the rest 0)",
                 "contextrot": "left out of its means, which say how many rounds they hold"}
    for name in METRIC_SETS:
        field = set_field(name)
        column = f"scores.{field}.word_count"
        ids = sorted(ok.loc[ok[column] == 0, "sample_id"]) if column in ok else []
        found["rounds_without_words"][field] = ids
        if ids:
            shown = ", ".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
            lines.append(f"{len(ids)} of {len(ok)} scored rounds have no words in "
                         f"{METRIC_SETS[name]} ({shown}): {treatment[name]}")
    return {**found, "lines": lines}


def flag_degradation(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``degraded_<metric>`` and ``degraded`` against the previous tier with data."""
    table = table.copy()
    for metric, (direction, threshold) in DEGRADATION.items():
        means = table[f"{metric}_mean"].astype(float)
        previous = means.where(means.notna()).ffill().shift(1)
        change = (means - previous) * direction
        table[f"degraded_{metric}"] = (change > threshold) & means.notna()
    table["degraded"] = table[[f"degraded_{m}" for m in DEGRADATION]].any(axis=1)
    return table


def _numbers(frame: pd.DataFrame, column: str) -> list[float]:
    if column not in frame:
        return []
    return [float(v) for v in frame[column] if v is not None and not _isnan(v)]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _first(frame: pd.DataFrame, column: str):
    if column not in frame:
        return None
    values = [v for v in frame[column] if v is not None and not _isnan(v)]
    if not values:
        return None
    value = values[0]
    return value.item() if hasattr(value, "item") else value


def _isnan(value) -> bool:
    try:
        return math.isnan(value)
    except TypeError:
        return False


def _nan(value: float) -> float:
    return math.nan if value is None else float(value)
