"""Scoring by rule (spec section 5), and the paired findings: each condition against
``full`` on the same ledgers, and a native condition against its client-side twin.

``exact``: the submitted id set is the gold set and ``total_cents`` the gold sum. ``id_f1``:
F1 of the submitted ids against the gold (1 when both are empty). ``submitted``: submit was
called; whether its arguments had the right types is apart (``details.submit_well_formed``):
an ill-formed one is submitted, and scores 0 on exact and id_f1. An episode that ended
otherwise (no call, the step cap, a reply the next request could not carry) scores 0 on all
three.

One rule for an overflow everywhere: the endpoint said the prompt does not fit, so the
record's outcome is ``overflow`` and it is counted, never scored: not in the headline, not in
the verdict (both read ``ok`` records only, reporting.analysis), not in a pair (a ledger is
paired where both conditions' episodes are ``ok``; the pairs it leaves out are counted in the
line).
"""

from __future__ import annotations

from .episode import ENDS, SUBMITTED, Episode
from .grid import parse_conditions
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
        return {"exact": False, "id_f1": 0.0, "submitted": episode.end == SUBMITTED}
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


# -- findings: each condition paired with full, a native one with its twin -----------------
PAIRED_TEST = ("McNemar's exact test on exact: a two-sided binomial test on the ledgers solved "
               "under one condition only (the condition vs full, or a native condition vs its "
               "client-side twin, live mode, the same ledgers, both episodes ok)")
OVERFLOW_RULE = ("an overflowed episode (outcome overflow) is counted and never scored: not in "
                 "the headline, the verdict or a pair")
LEDGER = ("params.length", "params.needles", "params.index", "params.seed", "params.pages")
# what a native condition's server did, summed per condition (Episode.server_context)
SERVER_COUNTS = ("cleared_tool_uses", "cleared_thinking_turns", "cleared_input_tokens",
                 "compactions", "compaction_input_tokens", "compaction_output_tokens")


def findings(frame) -> dict:
    """Per live condition other than full: exact under it and under full on the ledgers
    scored in both, the gap with its paired interval and McNemar's p (and the same against
    its twin, for a native condition); the length each mode and condition reached; what a
    native condition's server did and what it cost; and how episodes ended."""
    from reporting.analysis.stats import paired_rates

    needed = ("params.mode", "params.condition", "scores.exact", *LEDGER)
    if frame.empty or any(c not in frame for c in needed):
        return {}
    lines, result = [], {"paired_test": PAIRED_TEST, "overflow": OVERFLOW_RULE,
                         "conditions": {}, "twins": {}, "ends": {}, "reached": {},
                         "server_context": {}}
    live = frame[(frame["params.mode"] == "live") & frame["outcome"].isin(("ok", "overflow"))]
    table = live.pivot_table(index=list(LEDGER), columns="params.condition",
                             values="scores.exact", aggfunc="last")
    ok = live.assign(ok=live["outcome"] == "ok").pivot_table(
        index=list(LEDGER), columns="params.condition", values="ok", aggfunc="last")
    for condition in sorted(c for c in table.columns if c != "full"):
        twin = parse_conditions(condition)[0].twin
        for other, into in (("full", "conditions"), (twin, "twins")):
            if other is None:
                continue
            if other not in table.columns:
                lines.append(f"{condition}: no live {other} run on the same ledgers to pair "
                             "with")
                continue
            both = ok[[condition, other]].dropna()
            kept = both[both[condition].astype(bool) & both[other].astype(bool)].index
            pairs = table.loc[kept, [condition, other]]
            found = paired_rates([bool(v) for v in pairs[other]],
                                 [bool(v) for v in pairs[condition]], (other, condition))
            found["overflowed"] = len(both) - len(kept)
            result[into][condition] = found
            lines.append(_line(condition, other, found))
    lines += _reached(frame, result["reached"])
    lines += _server_context(frame, result["server_context"])
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


def _reached(frame, into: dict) -> list[str]:
    """The accumulated length each live condition's ok episodes reached, median by target
    length: a condition that keeps less ends short of its target."""
    if "details.accumulated_tokens" not in frame:
        return []
    ok = frame[(frame["outcome"] == "ok") & (frame["params.mode"] == "live")]
    lines = []
    for condition, part in ok.groupby("params.condition"):
        medians = part.groupby("params.length")["details.accumulated_tokens"].median()
        into[condition] = {int(length): int(value) for length, value in medians.items()
                           if value == value}
        shown = ", ".join(f"{_k(length)} reached {_k(value)}"
                          for length, value in into[condition].items())
        if shown and condition != "full":
            lines.append(f"live {condition}, median accumulated length: {shown}")
    return lines


def _server_context(frame, into: dict) -> list[str]:
    """What a native condition's server cleared or compacted, and the tokens it cost beyond
    the requests' own (a compaction's input and output are billed apart from the reply's)."""
    columns = {name: f"details.server_context.{name}" for name in SERVER_COUNTS}
    if not any(column in frame for column in columns.values()):
        return []
    lines = []
    live = frame[frame["params.mode"] == "live"]
    for condition, part in live.groupby("params.condition"):
        sums = {name: int(part[column].fillna(0).sum()) for name, column in columns.items()
                if column in part}
        if not any(sums.values()):
            continue
        into[condition] = {"episodes": len(part), **sums}
        shown = ", ".join(f"{value:,} {name.replace('_', ' ')}" for name, value in sums.items()
                          if value)
        lines.append(f"live {condition}, the server's own context management over "
                     f"{len(part)} episodes: {shown}")
    return lines


def _k(tokens: float) -> str:
    return f"{tokens / 1024:.1f}k"


def _line(condition: str, other: str, found: dict) -> str:
    left = f" ({found['overflowed']} left out: an overflow)" if found["overflowed"] else ""
    if not found["pairs"]:
        return f"{condition} vs {other}: no ledger scored under both{left}"
    a, b = found[other], found[condition]
    low, high = found["gap_ci"]
    return (f"{condition} vs {other}, {found['pairs']} ledgers: exact {_rate(b)} vs "
            f"{_rate(a)}; gap {found['gap']:+.3f} [{low:+.3f}, {high:+.3f}], McNemar p = "
            f"{found['p']:.3g}{left}")


def _rate(side: dict) -> str:
    low, high = side["ci"]
    return f"{side['correct']}/{side['n']} = {side['accuracy']:.3f} [{low:.3f}, {high:.3f}]"
