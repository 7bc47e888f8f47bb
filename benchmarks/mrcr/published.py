"""Context Arena's published MRCR table, shown beside a run measured under its protocol.

The snapshot in spec mrcr.md section 4 (contextarena.ai, 2025, the "?showExtra=true" view):
per-bin mean ratio (%) at the bins' upper bounds 8k to 1M, and the AUCs of that curve on a
linear token axis (tests/mrcr/test_scoring.py recomputes both AUCs of every row). The
snapshot does not state its needle count; it is probably the default 2-needle view. A run is
put beside these rows when it scored the original's rows (openai/mrcr) with 2 needles in every
bin from 8k to 128k (AUC@128k; AUC@1M needs every bin to 1M). The bins are the original's
o200k counts whatever --tokenizer says, so the run's token unit does not matter. The gate
never reads them.
"""

from __future__ import annotations

from reporting.experiments import Aggregation, Protocol, PublishedAggregate, PublishedTable

from .grid import BINS
from .scoring import ARENA_BINS

SOURCE = "Context Arena (contextarena.ai), MRCR leaderboard snapshot of 2025 (date not shown)"
BIN_COLUMNS = tuple("1M" if x == 1024 else f"{x}k" for x in ARENA_BINS)
COLUMNS = (*BIN_COLUMNS, "AUC@128k", "AUC@1M")
AUC_128K_BINS = tuple(b.high for b in BINS if b.high <= 128 << 10)  # 8k ... 128k, o200k tokens
# model: (per-bin %, 8k .. 1M; AUC@128k; AUC@1M)
ROWS = {
    "gemini-2.5-pro-preview-03-25": ((98.7, 94.3, 89.0, 88.9, 84.1, 81.1, 72.7, 60.1), 88.5,
                                     73.7),
    "gemini-2.5-flash-preview:thinking": ((98.3, 95.4, 90.2, 87.4, 87.5, 76.6, 71.6, 57.9), 89.2,
                                          72.2),
    "gpt-4.1": ((87.6, 68.0, 70.4, 57.5, 55.5, 57.1, 55.6, 42.1), 61.6, 53.2),
    "gpt-4.1-mini": ((73.4, 57.2, 58.2, 42.6, 47.2, 45.1, 47.7, 32.5), 49.4, 43.6),
    "llama-4-maverick": ((80.4, 60.0, 56.4, 48.4, 50.3, 48.6, 36.2, 30.1), 52.7, 39.9),
    "gemini-flash-1.5": ((58.6, 59.3, 54.9, 61.6, 52.0, 44.8, 45.8, 34.9), 57.4, 44.6),
}

TABLE = PublishedTable(
    title="Context Arena's MRCR results (mean SequenceMatcher ratio per bin, %, and AUCs)",
    source=SOURCE,
    protocol=Protocol(
        grid={"params.source": ("openai",), "params.needles": (2,),
              "params.bin_high": AUC_128K_BINS},
        token_unit=None,
        described="the original's rows (openai/mrcr), 2 needles, every bin from 8k to 128k "
                  "(o200k tokens)",
        optional={"params.bin_high": tuple(b.high for b in BINS if b.high > 128 << 10)}),
    columns=COLUMNS,
    rows=tuple((model, dict(zip(COLUMNS, (*per_bin, auc_128k, auc_1m))))
               for model, (per_bin, auc_128k, auc_1m) in ROWS.items()),
    measure=f"{__name__}:measure",
    note="The snapshot's needle count is not stated (probably 2); an earlier snapshot of the "
         "same site gives other numbers for the same names.",
)
TABLES = (TABLE,)


def measure(frame) -> dict:
    """This run's row: the mean ratio per bin (%) and both AUCs with 95% bootstrap intervals
    (scoring.py, Context Arena's arithmetic)."""
    from .scoring import arena_auc_interval

    scored = frame[(frame["outcome"] == "ok") & frame["scores.ratio"].notna()]
    groups = {int(high) >> 10: part["scores.ratio"].astype(float).tolist()
              for high, part in scored.groupby("params.bin_high")}
    row = {column: f"{100 * sum(groups[x]) / len(groups[x]):.1f}"
           for x, column in zip(ARENA_BINS, BIN_COLUMNS) if groups.get(x)}
    for column, up_to in (("AUC@128k", 128), ("AUC@1M", 1024)):
        value, low, high = arena_auc_interval(groups, up_to)
        if value is not None:
            row[column] = f"{100 * value:.1f} [{100 * low:.1f}, {100 * high:.1f}]"
    return row


# -- the field's aggregations (reporting/analysis/aggregations.py), each with its own rows ---
# The 2026 cards' numbers below are those issue 51 quotes (OpenAI's and Google's cards for
# GPT-5.5, GPT-6 Astra, Gemini 3.7 and 3.6 Flash); the cards themselves were not found by
# this project's search, so their versions and settings are given as "not stated".
QUOTED = "as quoted in contextrot issue 51 (the card itself not located here)"
NOT_STATED = "not stated in the quote"
BIN_LABELS = tuple(f"{b.low >> 10}K-{'1M' if b.high == 1 << 20 else f'{b.high >> 10}K'}"
                   for b in BINS)
SERIES = ("params.source", "params.needles")
GOOGLE_DATA = ("Google's MRCR v2 rows are DeepMind's own MRCR v2 (eval_hub, 2026: keys of "
               "format, topic and style, 12-character strings, its own metric), which "
               "contextrot does not run (spec mrcr.md section 5)")
AGGREGATIONS = (
    Aggregation(
        name="OpenAI per-bin", kind="per_bin",
        source="OpenAI's model cards: MRCR v2 8-needle, the mean ratio per bin (4K-8K ... "
               "512K-1M)",
        lengths=tuple(b.high for b in BINS), labels=BIN_LABELS, series=SERIES,
        published=(
            PublishedAggregate("GPT-5.5", {"4K-8K": 98.1, "512K-1M": 74.0},
                               f"OpenAI's GPT-5.5 card, {QUOTED}", "2026", NOT_STATED),
            PublishedAggregate("GPT-6 Astra", {"512K-1M": 96.3},
                               f"OpenAI's GPT-6 Astra card, {QUOTED}", "2026", NOT_STATED)),
        protocol=Protocol(grid={"params.source": ("openai",), "params.needles": (8,),
                                "params.bin_high": (8192, 1 << 20)},
                          token_unit=None,
                          described="openai/mrcr's rows, 8 needles, the 4K-8K and 512K-1M "
                                    "bins")),
    Aggregation(
        name="Google 128K cumulative", kind="cumulative",
        source="Google's model cards (MRCR v2 8-needle, \"128K (cumulative average)\"): the "
               "mean of the bins' means up to 128K, each bin weighing equally (Michelangelo's "
               "cumulative average score)",
        lengths=tuple(b.high for b in BINS if b.high <= 128 << 10), labels=BIN_LABELS[:5],
        series=SERIES,
        published=(PublishedAggregate("Gemini 3.7 Flash", {"128K": 97.0},
                                      f"Google's Gemini 3.7 Flash card, {QUOTED}", "2026",
                                      NOT_STATED),),
        not_comparable=GOOGLE_DATA),
    Aggregation(
        name="Google 1M pointwise", kind="pointwise",
        source="Google's model cards (MRCR v2 8-needle, \"1M (pointwise)\"): the mean at 1M "
               "alone (here the 512K-1M bin)",
        lengths=(1 << 20,), labels=("1M",), series=SERIES,
        published=(PublishedAggregate("Gemini 3.6 Flash", {"1M": 54.0},
                                      f"Google's Gemini 3.6 Flash card, {QUOTED}", "2026",
                                      NOT_STATED),),
        not_comparable=GOOGLE_DATA),
)
# DeepSeek's "MMR" (its Opus 4.6 92.9 against Anthropic's own 76-78, as issue 51 quotes it)
# is left out: its definition was not found, so no run's records can be aggregated its way.
