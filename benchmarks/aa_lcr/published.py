"""AA-LCR's published rows of 2026, shown beside a run measured as they were: the card's
100 questions at their native length, judged by an equality checker.

Artificial Analysis publishes one number per model: the accuracy (%) over the 100 questions
at their own length (pass@1, its repeats averaged). A run is put beside the rows when it
scored the card's questions (``params.source`` card) at the native length, every one of
the 100. The lengths do not depend on the run's unit (the prompt is the card's whatever
--tokenizer says). The figures are those issue 51 quotes ("2026 highs"); the pages they come
from were not located by this project's search, so the version is the year and the
settings are "not stated". The gate never reads them.
"""

from __future__ import annotations

from reporting.experiments import Protocol, PublishedTable

SOURCE = ("Artificial Analysis's AA-LCR figures and the Qwen, MiniMax and Kimi cards that "
          "report it, as quoted in contextrot issue 51 (2026; pages not located here)")
COLUMNS = ("accuracy (%)", "version", "settings", "aggregation")
AGGREGATION = "mean over the 100 questions at their native length (pass@1, repeats averaged)"
ROWS = {"Kimi K3": 88.7, "Claude Fable 5.1": 85.3, "GPT-6 Astra": 81}
QUESTIONS = tuple(range(1, 101))

TABLE = PublishedTable(
    title="AA-LCR's published accuracy (%, the 100 questions at their native length)",
    source=SOURCE,
    protocol=Protocol(
        grid={"params.source": ("card",), "params.length": (0,),
              "params.question_id": QUESTIONS},
        token_unit=None,
        described="the card's 100 questions (ArtificialAnalysis/AA-LCR) at their native "
                  "length, judged by an equality checker"),
    columns=COLUMNS,
    rows=tuple((model, {"accuracy (%)": value, "version": "2026", "settings": "not stated",
                        "aggregation": AGGREGATION}) for model, value in ROWS.items()),
    measure=f"{__name__}:measure",
    note="Artificial Analysis's checker is Qwen3 235B A22B 2507 (non-reasoning, the card's "
         "choice); a run's judge is the one it names (details.judge), with the v1.0 card's "
         "checker prompt; the quoted figures do not say which checker version they used.",
)
TABLES = (TABLE,)


def measure(frame) -> dict:
    """This run's row: the mean over questions of each question's mean over its repeats (%),
    with its 95% bootstrap interval over questions."""
    from reporting.analysis.stats import bootstrap_interval

    scored = frame[(frame["outcome"] == "ok") & frame["scores.correct"].notna()]
    means = scored.groupby("params.question_id")["scores.correct"].mean().astype(float)
    low, high = bootstrap_interval(means.tolist())
    return {"accuracy (%)": f"{100 * means.mean():.1f} [{100 * low:.1f}, {100 * high:.1f}] "
                            f"n={len(means)}",
            "version": "this run", "settings": "this run's (identity table)",
            "aggregation": AGGREGATION}
