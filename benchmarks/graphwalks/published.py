"""The model cards' GraphWalks numbers (spec section 5), shown beside a run measured as they
were: the original's 2025 rows, both problem types, every row of the "<128k" file that the
run's lengths hold (">128k" where the run has it).

Published F1 (%) is the mean over all of a split's rows; a run's row is the mean over the
rows it scored (``--graphwalks-samples`` per problem type and length: a large count takes
every row of each length's bin, as the original's mean does). The split is the row's file,
whatever --tokenizer says, so the run's token unit does not matter. The gate never reads
them.
"""

from __future__ import annotations

from reporting.experiments import Protocol, PublishedTable

SOURCE = ("OpenAI's GPT-4.1 launch post (appendix, long-context table), the GPT-5 post as "
          "quoted in lm-evaluation-harness #3377 (gpt-5-nano), the Claude Opus 4.6 system card "
          "(GraphWalks section, 1M); Claude Mythos 5's card as quoted in contextrot issue 51 "
          "(2026; the card itself not located here)")
COLUMNS = ("bfs <128k", "bfs >128k", "parents <128k", "parents >128k")
SPLITS = {"bfs <128k": ("bfs", "<128k"), "bfs >128k": ("bfs", ">128k"),
          "parents <128k": ("parents", "<128k"), "parents >128k": ("parents", ">128k")}
# model: (bfs <128k, bfs >128k, parents <128k, parents >128k); None: not published
ROWS = {
    "GPT-4.1": (61.7, 19.0, 58.0, 25.0),
    "GPT-4.1 mini": (61.7, 15.0, 60.5, 11.0),
    "GPT-4.1 nano": (25.0, 2.9, 9.4, 5.6),
    "GPT-4o (2024-11-20)": (41.7, None, 35.4, None),
    "GPT-4o mini": (29.0, None, 12.6, None),
    "o1 (high)": (62.0, None, 50.9, None),
    "o3-mini (high)": (51.0, None, 58.3, None),
    "GPT-4.5": (72.3, None, 72.6, None),
    "gpt-5-nano": (64.0, None, 43.8, None),
    # the system card gives each figure at two effort settings (64k thinking tokens / max
    # effort): BFS 41.2 / 38.7, parents 71.1 / 72.0; one row per setting, never mixed
    "Claude Opus 4.6 (64k thinking)": (None, "41.2 (1M)", None, "71.1 (1M)"),
    "Claude Opus 4.6 (max effort)": (None, "38.7 (1M)", None, "72.0 (1M)"),
    # 2026: Anthropic's preferred long-context signal; effort and thinking not stated in the
    # quote
    "Claude Mythos 5 (settings not stated)": (None, "79.4 (1M)", None, "97.5 (1M)"),
}

TABLE = PublishedTable(
    title="GraphWalks on the model cards (mean F1 per problem type and split, %)",
    source=SOURCE,
    protocol=Protocol(
        grid={"params.source": ("original",), "params.prompt": ("2025",),
              "params.problem_type": ("bfs", "parents"), "details.split": ("<128k",)},
        token_unit=None,
        described="openai/graphwalks' 2025 rows, BFS and parents, from the <128k file",
        optional={"details.split": (">128k",)}),
    columns=COLUMNS,
    rows=tuple((model, {c: v for c, v in zip(COLUMNS, values) if v is not None})
               for model, values in ROWS.items()),
    measure=f"{__name__}:measure",
    note="Claude Opus 4.6's numbers are on the 1M rows, one row per effort setting of its card, "
         "with Anthropic's corrected grader "
         "(an empty gold answered [] scores 1, 24 parents labels fixed) and the revised BFS "
         "wording; lm-eval #3377 measured gpt-5-nano at 50.5 ± 1.6 overall (≤128k). Anthropic "
         "notes that Opus 4.6's 1M row \"is not reproducible via the public API\" (as issue "
         "51 quotes it).",
)
TABLES = (TABLE,)


def measure(frame) -> dict:
    """This run's row: mean strict F1 (%) per problem type and split, with its 95%
    bootstrap interval and count."""
    from reporting.analysis.stats import mean_interval

    scored = frame[(frame["outcome"] == "ok") & frame["scores.f1"].notna()]
    row = {}
    for column, (kind, split) in SPLITS.items():
        part = scored[(scored["params.problem_type"] == kind)
                      & (scored["details.split"] == split)]
        if len(part):
            mean, low, high, n = mean_interval(part["scores.f1"].astype(float).tolist(), "mean")
            row[column] = f"{100 * mean:.1f} [{100 * low:.1f}, {100 * high:.1f}] n={n}"
    return row
