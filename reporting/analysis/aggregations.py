"""Each lab's aggregate of a curve, computed from the same records as the per-length curve.

Labs publish one benchmark aggregated differently: OpenAI's MRCR numbers are the mean per
bin, Google's a cumulative average up to 128K and the value at 1M alone. A run's number can
sit beside a card's only when aggregated the card's way, so an experiment declares the
aggregations of its field (``Experiment.aggregations``: ``reporting.experiments.Aggregation``)
and each is computed here from the run's scored records, per series (MRCR: source and needle
count), each with its 95% interval and counts:

- **per_bin**: the headline mean at each declared length (Wilson for rates, bootstrap for
  means, as the curve table);
- **cumulative**: the mean of the per-length means over every declared length, each length
  weighing equally; its interval from resampling each length's samples on their own
  (seeded). Not computed unless every declared length was scored: it names the missing ones;
- **pointwise**: the mean at the one declared length.

Beside each, the published rows of that aggregation alone, each with its source, version
and settings, marked comparable where the run's records meet the aggregation's protocol
(published.py's rule), else "not comparable" and why. Never read by the gate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reporting.analysis.curve_tables import scored, short
from reporting.analysis.published import problems_under
from reporting.analysis.stats import CONFIDENCE, mean_interval
from reporting.experiments import Aggregation, Experiment

RESAMPLES = 2000


def _plain(value):
    value = value.item() if hasattr(value, "item") else value
    return int(value) if isinstance(value, float) and value.is_integer() else value


def cumulative_interval(groups: list[list[float]], seed: int = 0) -> tuple[float, float]:
    """Percentile interval of the mean of group means, each group resampled on its own."""
    rng = np.random.default_rng(seed)
    means = np.zeros(RESAMPLES)
    for values in groups:
        data = np.asarray(values, dtype=float)
        means += data[rng.integers(0, len(data), (RESAMPLES, len(data)))].mean(axis=1)
    means /= len(groups)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def aggregate(part: pd.DataFrame, experiment: Experiment, aggregation: Aggregation) -> dict:
    """One series' aggregate: {"values": {label: {mean, ci, n}}} or {"missing": [...]}."""
    x, metric = experiment.length, experiment.metric
    groups = {_plain(v): g[metric].astype(float).tolist() for v, g in part.groupby(x)}
    wanted = list(aggregation.lengths)
    missing = [v for v in wanted if not groups.get(v)]
    if aggregation.kind == "per_bin":
        values = {}
        for length in wanted:
            if groups.get(length):
                mean, low, high, n = mean_interval(groups[length], experiment.metric_kind)
                values[aggregation.label(length)] = {"mean": mean, "ci": [low, high], "n": n}
        return {"values": values, "missing": [aggregation.label(v) for v in missing]}
    if missing:
        return {"values": {}, "missing": [aggregation.label(v) for v in missing]}
    label = aggregation.label(wanted[-1])
    if aggregation.kind == "pointwise":
        mean, low, high, n = mean_interval(groups[wanted[0]], experiment.metric_kind)
        return {"values": {label: {"mean": mean, "ci": [low, high], "n": n}}, "missing": []}
    chosen = [groups[v] for v in wanted]
    low, high = cumulative_interval(chosen)
    return {"values": {label: {"mean": float(np.mean([np.mean(g) for g in chosen])),
                               "ci": [low, high], "n": sum(len(g) for g in chosen),
                               "lengths": len(chosen)}}, "missing": []}


def aggregation_findings(frame: pd.DataFrame, experiment: Experiment) -> dict:
    """{"aggregations": [...], "lines": [...]} for the experiment's declared aggregations
    ({} when it declares none or nothing was scored)."""
    declared = experiment.declared_aggregations()
    good = scored(frame, experiment)
    if not declared or good.empty or experiment.length not in good:
        return {}
    found, lines = [], []
    for aggregation in declared:
        series = [c for c in aggregation.series if c in good]
        parts = good.groupby(series, sort=True) if series else [((), good)]
        computed = []
        for key, part in parts:
            key = key if isinstance(key, tuple) else (key,)
            name = ", ".join(f"{short(c)} {_plain(v)}" for c, v in zip(series, key)) or "all"
            computed.append({"series": name, **aggregate(part, experiment, aggregation)})
        problems = (problems_under(frame, experiment, aggregation.protocol)
                    if aggregation.protocol is not None else [aggregation.not_comparable])
        comparable = not problems
        entry = {"name": aggregation.name, "source": aggregation.source,
                 "kind": aggregation.kind, "lengths": len(aggregation.lengths),
                 "series": computed,
                 "published": [{"model": row.model, "values": row.values, "source": row.source,
                                "version": row.version, "settings": row.settings}
                               for row in aggregation.published],
                 "comparable": comparable, "not_comparable": "; ".join(problems)}
        found.append(entry)
        lines += _lines(entry)
    return {"aggregations": found, "lines": lines}


def _value(value: dict) -> str:
    low, high = value["ci"]
    return f"{value['mean']:.3f} [{low:.3f}, {high:.3f}] n={value['n']}"


def _lines(entry: dict) -> list[str]:
    lines = []
    for series in entry["series"]:
        shown = "; ".join(f"{label} {_value(v)}" for label, v in series["values"].items())
        missing, declared = series["missing"], entry["lengths"]
        if not series["values"] and len(missing) == declared and declared > 2:
            missing_text = f" (none of its {declared} lengths scored)"
        elif missing:
            needs = f"needs all {declared} lengths; " if entry["kind"] == "cumulative" else ""
            missing_text = f" ({needs}not scored: {', '.join(map(str, missing))})"
        else:
            missing_text = ""
        lines.append(f"{entry['name']} ({entry['kind']}), {series['series']}: "
                     f"{shown or 'not computed'}{missing_text}")
    if entry["published"]:
        rows = "; ".join(f"{row['model']} " + ", ".join(f"{k} {v}" for k, v in
                                                         row["values"].items())
                         + f" ({row['version']})" for row in entry["published"])
        mark = "comparable" if entry["comparable"] else \
            f"not comparable: {entry['not_comparable']}"
        lines.append(f"  published, {entry['name']} (%): {rows}; {mark}")
    return lines
