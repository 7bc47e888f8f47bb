"""Chroma's published LongMemEval run, shown beside a run measured under its protocol.

GPT-4.1 (``gpt-4.1-2025-04-14``) on Chroma's 306 rows, judged by GPT-4.1 with Chroma's prompt,
computed from the original's results files (``results/gpt_4_1_longmemeval_{focused,full}_
evaluated.csv``: 267 and 191 ``True`` of 306; paired on ``custom_id``, 87 questions right only
focused and 11 only full, so McNemar's exact p = 8.1e-16 and the gap's paired bootstrap
interval [+0.193, +0.307], by scoring.py's arithmetic: the differences resampled in their
canonical order, sorted by value, so any order of the rows gives it). A run is put beside it
when it scored Chroma's rows in both conditions with Chroma's judge prompt; the run's row is
its own paired comparison (scoring.py). The gate never reads it.
"""

from __future__ import annotations

from reporting.experiments import Protocol, PublishedTable

COLUMNS = ("focused", "full", "gap (focused - full)", "McNemar p")
TABLE = PublishedTable(
    title="Chroma's LongMemEval run (accuracy judged by GPT-4.1 with Chroma's prompt)",
    source="chroma-core/context-rot @ 1091346, results/gpt_4_1_longmemeval_*_evaluated.csv",
    protocol=Protocol(
        grid={"params.source": ("chroma",), "params.condition": ("focused", "full"),
              "details.judge_prompt": ("chroma",)},
        token_unit=None,
        described="Chroma's rows, focused and full, judged with Chroma's judge prompt"),
    columns=COLUMNS,
    rows=(("gpt-4.1-2025-04-14", {"focused": "0.873 (267/306)", "full": "0.624 (191/306)",
                                  "gap (focused - full)": "+0.248 [+0.193, +0.307]",
                                  "McNemar p": "8.1e-16 (87 vs 11)"}),),
    measure=f"{__name__}:measure",
    note="Chroma reports the two accuracies only; the gap's interval and McNemar's p are "
         "computed here from its per-question results.",
)
TABLES = (TABLE,)


def measure(frame) -> dict:
    from .scoring import findings

    summary = findings(frame).get("sources", {}).get("chroma")
    if not summary or not summary["pairs"]:
        return {}
    low, high = summary["gap_ci"]
    return {**{c: (f"{summary[c]['accuracy']:.3f} ({summary[c]['correct']}/{summary[c]['n']}) "
                   f"[{summary[c]['ci'][0]:.3f}, {summary[c]['ci'][1]:.3f}]")
               for c in ("focused", "full")},
            "gap (focused - full)": f"{summary['gap']:+.3f} [{low:+.3f}, {high:+.3f}]",
            "McNemar p": f"{summary['p']:.2g} ({summary['only_focused']} vs "
                         f"{summary['only_full']})"}
