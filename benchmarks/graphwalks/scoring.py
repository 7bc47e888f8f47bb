"""Set F1 of one reply against the gold nodes; and the findings by source and problem type.

**Reading the answer.** The dataset card's printed grader takes the last line, requires
``Final Answer:``, matches ``Final Answer: ?\\[.*\\]`` and splits ``group(0).strip("[]")`` on
commas. ``group(0)`` starts with ``Final Answer: [``, which ``strip("[]")`` does not remove: the
first node is read as ``Final Answer: [abc`` and never matches. That is the original's defect;
every reimplementation (lm-eval, openbench, NeMo Gym) reads the bracket's contents instead,
and so does this one, with lm-eval's ``Final Answer:\\s*\\[(.*)\\]``: any spaces or tabs
(none too) between the colon and the bracket. Items are stripped of spaces and quotes
(``'``, ``"``, `````); a duplicate counts once. Where lm-eval's reading differs (it keeps a
backtick, and reads a last line of spaces after the answer as no answer) is in
docs/experiments/graphwalks.md.

**Two readings** (lm-eval's names): ``f1`` (strict) reads the last non-empty line only;
``flexible_f1`` the last line anywhere that holds ``Final Answer: [...]``. A reply with no
such line scores 0 and is counted as a parse failure (``parsed`` False, strict reading).

**Empty gold.** Some rows' answer is the empty set. Set semantics say that ``[]`` is then
exactly right: ``f1`` scores it 1 (``EMPTY_GOLD = "set"``, as NeMo Gym and Anthropic's
corrected grader), and any other reply 0. lm-eval's reading (recall 0/0 taken as 0, so an
empty gold scores 0 whatever the reply) is kept beside it as ``f1_lm_eval``.
"""

from __future__ import annotations

import re
from typing import Iterable

ANSWER = re.compile(r"Final Answer:\s*\[(.*)\]")  # lm-eval's and openbench's
QUOTES_AND_SPACES = " \t'\"`"
EMPTY_GOLD = "set"  # an empty gold answered [] scores 1; lm-eval's convention: f1_lm_eval


def nodes(inside: str) -> set[str]:
    """The bracket's contents as a set of node ids."""
    return {item.strip(QUOTES_AND_SPACES) for item in inside.split(",")} - {""}


def strict_answer(reply: str) -> set[str] | None:
    """The nodes on the reply's last non-empty line, or None when it holds no answer."""
    lines = [line for line in reply.splitlines() if line.strip()]
    found = ANSWER.search(lines[-1]) if lines else None
    return nodes(found.group(1)) if found else None


def flexible_answer(reply: str) -> set[str] | None:
    """The nodes of the last line anywhere that holds ``Final Answer: [...]``."""
    for line in reversed(reply.splitlines()):
        found = ANSWER.search(line)
        if found:
            return nodes(found.group(1))
    return None


def f1(predicted: set[str] | None, gold: Iterable[str], empty_gold: str = EMPTY_GOLD) -> float:
    """Set F1; None (no answer) scores 0. ``empty_gold``: "set" or "lm-eval"."""
    if predicted is None:
        return 0.0
    gold = set(gold)
    if not gold:
        return float(not predicted) if empty_gold == "set" else 0.0
    overlap = len(predicted & gold)
    if not overlap:
        return 0.0
    precision, recall = overlap / len(predicted), overlap / len(gold)
    return 2 * precision * recall / (precision + recall)


def score(reply: str, gold: Iterable[str]) -> dict:
    """The sample's scores and details."""
    gold = tuple(gold)
    strict, flexible = strict_answer(reply), flexible_answer(reply)
    hits = len(strict & set(gold)) if strict is not None else 0
    return {"scores": {"f1": f1(strict, gold), "flexible_f1": f1(flexible, gold),
                       "parsed": strict is not None,
                       "f1_lm_eval": f1(strict, gold, "lm-eval")},
            "details": {"predicted": len(strict) if strict is not None else None,
                        "correct": hits, "gold": len(set(gold)),
                        "flexible_parsed": flexible is not None}}


# -- findings ------------------------------------------------------------------------------
def findings(frame) -> dict:
    """Mean F1 (strict and flexible) with 95% bootstrap intervals and the parse failures,
    per source and problem type, over every scored length (summary.json, the terminal)."""
    from reporting.analysis.stats import mean_interval

    if frame.empty or "scores.f1" not in frame:
        return {}
    scored = frame[(frame["outcome"] == "ok") & frame["scores.f1"].notna()]
    rows, lines = [], []
    for (source, kind), part in sorted(scored.groupby(["params.source",
                                                       "params.problem_type"])):
        row = {"source": source, "problem_type": kind, "n": len(part),
               "parse_failures": int((~part["scores.parsed"].astype(bool)).sum())}
        shown = []
        for column, label in (("scores.f1", "f1"), ("scores.flexible_f1", "flexible_f1")):
            mean, low, high, n = mean_interval(part[column].astype(float).tolist(), "mean")
            row[label] = {"value": mean, "low": low, "high": high}
            shown.append(f"{label} {mean:.3f} [{low:.3f}, {high:.3f}]")
        rows.append(row)
        lines.append(f"GraphWalks {source}, {kind}: " + "; ".join(shown)
                     + f" (n={row['n']}, parse failures {row['parse_failures']})")
    return {"by_problem_type": rows, "lines": lines} if rows else {}
