"""Per-experiment, per-cell summaries of a run's records (numbers for the terminal and JSON)."""

from __future__ import annotations

import math

import pandas as pd

from reporting.analysis.blocks import blocked, with_blocks
from reporting.analysis.budgets import cell_counts
from reporting.experiments import Experiment
from reporting.storage.records import OUTCOMES
from reporting.analysis.stats import mean_interval


def cell_label(experiment: Experiment, row: pd.Series) -> str:
    return " ".join(f"{column.split('.')[-1]}={row[column]}" for column in experiment.cell)


def summarize(frame: pd.DataFrame, experiment: Experiment) -> list[dict]:
    """One row per grid cell: outcome counts, headline mean with its 95% interval, tokens, time.

    The headline metric is computed over ``ok`` samples only: skipped, overflowed, blocked,
    refused and errored samples are counted, never averaged in as zeros. Where the provider
    blocked samples, ``with_blocked`` is the headline with each block scored 0 beside it.
    """
    if frame.empty:
        return []
    frame = frame.copy()
    for column in experiment.cell:
        if column not in frame:
            frame[column] = None
    rows = []
    for key, cell in frame.groupby(list(experiment.cell), sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        ok = cell[cell["outcome"] == "ok"]
        values = ok[experiment.metric].tolist() if experiment.metric in ok else []
        mean, low, high, n = mean_interval(values, experiment.metric_kind)
        rows.append({
            "cell": {c.split(".")[-1]: plain_value(v) for c, v in zip(experiment.cell, key)},
            "metric": experiment.metric.split(".")[-1],
            "mean": _finite(mean), "ci_low": _finite(low), "ci_high": _finite(high), "n": n,
            "outcomes": {o: int((cell["outcome"] == o).sum()) for o in OUTCOMES},
            "with_blocked": with_blocks(values, len(blocked(cell)), experiment),
            "prompt_tokens": int(cell.get("prompt_tokens", pd.Series(dtype=float))
                                 .fillna(0).sum()),
            "completion_tokens": int(cell.get("completion_tokens", pd.Series(dtype=float))
                                     .fillna(0).sum()),
            "latency_s": round(float(cell["latency_s"].fillna(0).sum()), 3),
            "cached_tokens": cached_total(cell),
            "cost_usd": cost_total(cell),
            **cell_counts(cell),
        })
    return rows


def cached_total(frame: pd.DataFrame) -> int | None:
    """The prompt tokens the endpoint's prefix cache served (records' ``cached_tokens``);
    None where no record says (the endpoint does not report it)."""
    if "cached_tokens" not in frame or frame["cached_tokens"].isna().all():
        return None
    return int(frame["cached_tokens"].fillna(0).sum())


def cost_total(frame: pd.DataFrame, column: str = "cost_usd") -> float | None:
    """USD at list prices of the records' requests (``cost_usd``; ``spent_usd``: what the run
    sent, not replayed from the response cache); None where no record was priced."""
    if column not in frame or frame[column].isna().all():
        return None
    return round(float(frame[column].fillna(0).sum()), 6)


def cost_line(frame: pd.DataFrame, prices: dict | None = None) -> str | None:
    """The run's cost in one line, or None where nothing was priced."""
    cost = cost_total(frame)
    if cost is None:
        return None
    spent = cost_total(frame, "spent_usd") or 0.0
    unpriced = int(frame["details.unpriced_requests"].fillna(0).sum()) \
        if "details.unpriced_requests" in frame else 0
    source = (prices or {}).get("model", {}).get("source")
    return (f"cost at list prices: {cost:,.4f} USD" + (f" ({source})" if source else "") +
            f", of which this run sent {spent:,.4f} USD (the rest replayed from the "
            "response cache)" + (f"; {unpriced} requests reported no usage and are not in it"
                                 if unpriced else ""))


def cached_share(prompt_tokens: int | None, cached_tokens: int | None) -> str:
    """``12,000 of 40,000 (30.0%)``; ``not reported`` where the endpoint said nothing."""
    if cached_tokens is None:
        return "not reported"
    share = f" ({cached_tokens / prompt_tokens:.1%})" if prompt_tokens else ""
    return f"{cached_tokens:,} of {prompt_tokens or 0:,}{share}"


def _finite(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) \
        else round(float(value), 6)


def plain_value(value):
    value = value.item() if hasattr(value, "item") else value
    # pandas turns an integer column with gaps into floats: show 500, not 500.0
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():
            return int(value)
    return value
