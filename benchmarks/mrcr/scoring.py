"""Scores of one reply, pure functions of (row, reply); and Context Arena's AUC.

The grader is the original's, exactly (spec section 3): a reply that does not start with the
random string (``str.startswith``: no stripping, so a leading space or newline fails) scores
0; otherwise the string is removed from the reply and from the answer and the score is
``difflib.SequenceMatcher(None, reply, answer).ratio()``, reply first, default autojunk.
Both the argument order and autojunk change the number on real text; both are kept.

Beside it, a diagnostic the original does not have: which needle the reply copied (the
occurrence whose passage it matches best, when that ratio is at least ``COPIED``), so that
"right request, wrong occurrence" is told apart from "no needle at all".
"""

from __future__ import annotations

import difflib
import json
from typing import Sequence

COPIED = 0.5  # a reply this close to a needle (by the same ratio) copied that needle
# Context Arena's x axis: the bins' upper bounds on a linear token axis (in units of 1,024).
ARENA_BINS = (8, 16, 32, 64, 128, 256, 512, 1024)
RESAMPLES = 2000


def grade(response: str, answer: str, random_string_to_prepend: str) -> float:
    """The original's score of one reply, in [0, 1]."""
    if not response.startswith(random_string_to_prepend):
        return 0.0
    response = response.removeprefix(random_string_to_prepend)
    answer = answer.removeprefix(random_string_to_prepend)
    return difflib.SequenceMatcher(None, response, answer).ratio()


def needles(messages: Sequence[dict], desired_msg_index: int) -> list[str]:
    """The replies to every occurrence of the target request, in conversation order."""
    target = messages[desired_msg_index]["content"]
    return [messages[i + 1]["content"] for i in range(1, len(messages) - 1)
            if messages[i]["role"] == "user" and messages[i]["content"] == target
            and messages[i + 1]["role"] == "assistant"]


def score(row, response: str) -> dict:
    """The sample's scores: ``ratio`` (the original's), ``prefixed``; and, as details, the
    occurrence the reply copied (``copied``: asked / other / none / no prefix)."""
    prefix = row.random_string_to_prepend
    ratio = grade(response, row.answer, prefix)
    prefixed = response.startswith(prefix)
    messages = json.loads(row.prompt)
    asked = needles(messages, row.desired_msg_index).index(
        messages[row.desired_msg_index + 1]["content"]) + 1
    copied, best = None, 0.0
    if prefixed:
        reply = response.removeprefix(prefix)
        for occurrence, text in enumerate(needles(messages, row.desired_msg_index), start=1):
            value = difflib.SequenceMatcher(None, reply, text).ratio()
            if value > best:
                copied, best = occurrence, value
        if best < COPIED:
            copied = None
    outcome = ("no prefix" if not prefixed else "none" if copied is None
               else "asked" if copied == asked else "other")
    return {"scores": {"ratio": ratio, "prefixed": prefixed},
            "details": {"asked_occurrence": asked, "copied_occurrence": copied,
                        "copied_ratio": round(best, 6), "copied": outcome}}


# -- Context Arena's AUC -------------------------------------------------------------------
def arena_auc(means: dict[int, float], up_to: int) -> float | None:
    """Trapezoidal area under the per-bin means from 8k to ``up_to`` (in units of 1,024) on
    a linear axis, divided by its width: AUC@128k (up_to=128) and AUC@1M (1024). None when a
    bin in that range has no mean."""
    xs = [x for x in ARENA_BINS if x <= up_to]
    if any(x not in means for x in xs) or len(xs) < 2:
        return None
    area = sum((xs[i + 1] - xs[i]) * (means[xs[i]] + means[xs[i + 1]]) / 2
               for i in range(len(xs) - 1))
    return area / (xs[-1] - xs[0])


def arena_auc_interval(groups: dict[int, Sequence[float]], up_to: int, seed: int = 0
                       ) -> tuple[float | None, float | None, float | None]:
    """The AUC and its 95% percentile bootstrap interval, resampling each bin's scores on
    their own (seeded)."""
    import numpy as np

    value = arena_auc({x: float(np.mean(v)) for x, v in groups.items() if len(v)}, up_to)
    if value is None:
        return None, None, None
    rng = np.random.default_rng(seed)
    xs = [x for x in ARENA_BINS if x <= up_to]
    draws = {x: np.asarray(groups[x], dtype=float)[
        rng.integers(0, len(groups[x]), size=(RESAMPLES, len(groups[x])))].mean(axis=1)
        for x in xs}
    aucs = sum((xs[i + 1] - xs[i]) * (draws[xs[i]] + draws[xs[i + 1]]) / 2
               for i in range(len(xs) - 1)) / (xs[-1] - xs[0])
    low, high = np.quantile(aucs, [0.025, 0.975])
    return value, float(low), float(high)


def findings(frame) -> dict:
    """Context Arena's AUC@128k and AUC@1M per source and needle count (summary.json, the
    terminal, report.html), from the scored samples of the original's bins."""
    if frame.empty or "scores.ratio" not in frame:
        return {}
    scored = frame[(frame["outcome"] == "ok") & frame["scores.ratio"].notna()
                   & ~frame["params.test_bin"].astype(bool)]
    rows, lines = [], []
    for (source, needles_), part in sorted(scored.groupby(["params.source", "params.needles"])):
        groups = {int(high) >> 10: part[part["params.bin_high"] == high]["scores.ratio"]
                  .astype(float).tolist() for high in sorted(part["params.bin_high"].unique())}
        row = {"source": source, "needles": int(needles_),
               "bins": {str(x): len(v) for x, v in groups.items()}}
        shown = []
        for name, label, up_to in (("auc_128k", "AUC@128k", 128), ("auc_1m", "AUC@1M", 1024)):
            value, low, high = arena_auc_interval(groups, up_to)
            row[name] = None if value is None else {"value": value, "low": low, "high": high}
            shown.append(f"{label} {value:.3f} [{low:.3f}, {high:.3f}]" if value is not None
                         else f"{label} needs every bin from 8k to {label[4:]}")
        rows.append(row)
        lines.append(f"Context Arena (linear axis), {source}, {needles_} needles: "
                     + "; ".join(shown) + f" (n={sum(len(v) for v in groups.values())})")
    return {"context_arena": rows, "lines": lines} if rows else {}
