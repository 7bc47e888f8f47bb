"""How far an LLM judge agrees with the deterministic one, from records alone.

Every answered sample carries both verdicts: ``scores.correct`` (the judge used) and
``scores.contains_answer`` (the deterministic judge: one of the needle's accepted phrasings is
in the answer). When the judge is an LLM, the two are compared per judge: percent agreement
and Cohen's kappa with the number of samples, and the two kinds of disagreement. Unparsable
verdicts are left out and counted.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .scoring import DETERMINISTIC_JUDGE

JUDGE, CORRECT, CONTAINS = "details.judge.name", "scores.correct", "scores.contains_answer"


def cohen_kappa(a: list[bool], b: list[bool]) -> float | None:
    """Cohen's kappa of two binary raters; None when it is undefined (chance agreement 1)."""
    n = len(a)
    if n == 0 or len(b) != n:
        return None
    observed = sum(x == y for x, y in zip(a, b)) / n
    share_a, share_b = sum(a) / n, sum(b) / n
    chance = share_a * share_b + (1 - share_a) * (1 - share_b)
    return None if chance == 1 else (observed - chance) / (1 - chance)


def judge_agreement(frame: pd.DataFrame) -> list[dict]:
    """One row per LLM judge in the records; empty when only the deterministic judge ran."""
    if frame.empty or JUDGE not in frame or CONTAINS not in frame or CORRECT not in frame:
        return []
    answered = frame[(frame["outcome"] == "ok") & frame[JUDGE].notna()
                     & (frame[JUDGE] != DETERMINISTIC_JUDGE["name"])]
    rows = []
    for judge, mine in answered.groupby(JUDGE, sort=True):
        both = mine[mine[CORRECT].notna() & mine[CONTAINS].notna()]
        llm = [bool(v) for v in both[CORRECT]]
        rule = [bool(v) for v in both[CONTAINS]]
        n = len(llm)
        kappa = cohen_kappa(llm, rule)
        rows.append({
            "judge": str(judge), "n": n,
            "agreement_percent": round(100 * sum(x == y for x, y in zip(llm, rule)) / n, 1)
            if n else None,
            "kappa": None if kappa is None else round(kappa, 3),
            "judge_only_true": sum(x and not y for x, y in zip(llm, rule)),
            "deterministic_only_true": sum(y and not x for x, y in zip(llm, rule)),
            "unparsable": int(mine[CORRECT].isna().sum()),
        })
    return rows


def describe(row: dict) -> str:
    """One line: '<judge> agrees with the deterministic judge on 95.5% (kappa 0.91, n=88)...'."""
    if not row["n"]:
        return (f"{row['judge']}: no answer has both verdicts ({row['unparsable']} unparsable "
                "verdicts)")
    kappa = "undefined" if row["kappa"] is None else f"{row['kappa']:.2f}"
    return (f"{row['judge']} agrees with the deterministic judge on {row['agreement_percent']}% "
            f"of answers (Cohen's kappa {kappa}, n={row['n']}); only the LLM judge accepts "
            f"{row['judge_only_true']}, only the deterministic one {row['deterministic_only_true']}"
            f"; {row['unparsable']} unparsable verdicts left out")


def findings(frame: pd.DataFrame) -> dict:
    """For summary.json and the terminal: each LLM judge's agreement, when one ran."""
    rows = judge_agreement(frame)
    return {"judge_agreement": rows, "lines": [describe(row) for row in rows]} if rows else {}


def write(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    """judge_agreement.csv and .md when an LLM judge ran (the report links both)."""
    rows = judge_agreement(frame)
    if not rows:
        return []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame(rows)
    csv_path, md_path = out_dir / "judge_agreement.csv", out_dir / "judge_agreement.md"
    table.to_csv(csv_path, index=False)
    md_path.write_text("# LLM judge versus the deterministic judge\n\n"
                       + "\n".join(f"- {describe(row)}" for row in rows) + "\n",
                       encoding="utf-8")
    return [csv_path, md_path]
