"""Scoring by rule (spec section 5), and the paired findings: each condition against
``full`` on the same ledgers.

``exact``: the submitted id set is the gold set and ``total_cents`` the gold sum. ``id_f1``:
F1 of the submitted ids against the gold (1 when both are empty). ``submitted``: a
well-formed submit was called. An episode that ended otherwise (no call, the step cap, an
overflow, a malformed call) scores 0 on all three.
"""

from __future__ import annotations

from .episode import ENDS, SUBMITTED, Episode
from .ledger import Ledger


def id_f1(gold: set[str], submitted: set[str]) -> float:
    if not gold and not submitted:
        return 1.0
    right = len(gold & submitted)
    if not right:
        return 0.0
    precision, recall = right / len(submitted), right / len(gold)
    return 2 * precision * recall / (precision + recall)


def score(ledger: Ledger, episode: Episode) -> dict:
    if episode.end != SUBMITTED or episode.submission is None:
        return {"exact": False, "id_f1": 0.0, "submitted": False}
    gold, given = set(ledger.gold_ids), set(episode.submission.ids)
    return {"exact": given == gold and episode.submission.total_cents == ledger.gold_total,
            "id_f1": id_f1(gold, given), "submitted": True}


def details(ledger: Ledger, episode: Episode) -> dict:
    submission = episode.submission
    return {
        **episode.details(),
        "gold_ids": list(ledger.gold_ids), "gold_total_cents": ledger.gold_total,
        "submitted_ids": list(submission.ids) if submission else None,
        "submitted_total_cents": submission.total_cents if submission else None,
        "earliest_needle_depth": min(ledger.needle_depths) if ledger.needle_depths else None,
        "records": ledger.records, "records_per_page": ledger.records_per_page,
        "near_misses": ledger.near_misses, "task": ledger.task,
    }


# -- findings: each condition paired with full -----------------------------------------
PAIRED_TEST = ("McNemar's exact test on exact: a two-sided binomial test on the ledgers solved "
               "under one condition only (the condition vs full, live mode, the same ledgers)")
LEDGER = ("params.length", "params.needles", "params.index", "params.seed", "params.pages")


def findings(frame) -> dict:
    """Per live condition other than full: exact under it and under full on the ledgers
    scored in both, the gap with its paired interval and McNemar's p; and how episodes
    ended, per mode and condition."""
    from reporting.analysis.stats import paired_rates

    needed = ("params.mode", "params.condition", "scores.exact", *LEDGER)
    if frame.empty or any(c not in frame for c in needed):
        return {}
    lines, result = [], {"paired_test": PAIRED_TEST, "conditions": {}, "ends": {}}
    scored = frame[frame["scores.exact"].notna() & frame["outcome"].isin(("ok", "overflow"))]
    live = scored[scored["params.mode"] == "live"]
    table = live.pivot_table(index=list(LEDGER), columns="params.condition",
                             values="scores.exact", aggfunc="last")
    for condition in sorted(c for c in table.columns if c != "full"):
        if "full" not in table.columns:
            lines.append(f"{condition}: no live full run on the same ledgers to pair with")
            continue
        both = table[[condition, "full"]].dropna()
        found = paired_rates([bool(v) for v in both["full"]], [bool(v) for v in both[condition]],
                             ("full", condition))
        result["conditions"][condition] = found
        lines.append(_line(condition, found))
    if "details.episode_end" in frame:
        for (mode, condition), part in frame.groupby(["params.mode", "params.condition"]):
            counts = part["details.episode_end"].value_counts().to_dict()
            ends = {end: int(counts.get(end, 0)) for end in ENDS if counts.get(end)}
            result["ends"][f"{mode} {condition}"] = ends
            if set(ends) - {SUBMITTED}:
                shown = ", ".join(f"{n} {end}" for end, n in ends.items())
                lines.append(f"episodes, {mode} {condition}: {shown}")
    result["lines"] = lines
    return result


def _line(condition: str, found: dict) -> str:
    if not found["pairs"]:
        return f"{condition} vs full: no ledger scored under both"
    a, b = found["full"], found[condition]
    low, high = found["gap_ci"]
    return (f"{condition} vs full, {found['pairs']} ledgers: exact {_rate(b)} vs {_rate(a)}; "
            f"gap {found['gap']:+.3f} [{low:+.3f}, {high:+.3f}], McNemar p = {found['p']:.3g}")


def _rate(side: dict) -> str:
    low, high = side["ci"]
    return f"{side['correct']}/{side['n']} = {side['accuracy']:.3f} [{low:.3f}, {high:.3f}]"
