"""RULER's published table, shown beside a run measured under its protocol.

The rows are RULER's README at commit c3f5e3b (spec ruler.md section 5): per-length scores
(the mean of the 13 task scores, %), Avg, wAvg and the effective length (score >= 85.6 at that
length and every shorter one). tests/ruler/test_scoring.py recomputes wAvg and the effective
length of every row with results.py. RULER measured lengths in each model's own tokenizer,
at 4K to 128K, over all 13 tasks: a run is put beside these rows only when it scored every
task at every one of those lengths, counted in the model's own tokens (--tokenizer server or
hf:PATH). The gate never reads them.
"""

from __future__ import annotations

from benchmarks.texts.fitting import length_label
from reporting.experiments import MODELS_OWN, Protocol, PublishedTable

from .grid import LENGTHS, TASKS

SOURCE = "RULER's README, github.com/NVIDIA/RULER at commit c3f5e3b"
LENGTH_COLUMNS = tuple(length_label(length) for length in LENGTHS)  # 4K ... 128K
COLUMNS = ("claimed length", "effective length", *LENGTH_COLUMNS, "Avg", "wAvg (inc)",
           "wAvg (dec)")
# model: (claimed, effective, scores at 4K..128K, Avg, wAvg inc, wAvg dec)
ROWS = {
    "Gemini-1.5-pro": ("1M", ">128K", (96.7, 95.8, 96.0, 95.9, 95.9, 94.4), 95.8, 95.5, 96.1),
    "Jamba-1.5-mini": ("256K", ">128K", (95.6, 95.6, 94.8, 94.6, 92.8, 90.0), 93.9, 93.1, 94.8),
    "GPT-4-1106-preview": ("128K", "64K", (96.6, 96.3, 95.2, 93.2, 87.0, 81.2), 91.6, 89.0,
                           94.1),
    "Llama3.1-70B-Instruct": ("128K", "64K", (96.5, 95.8, 95.4, 94.8, 88.4, 66.6), 89.6, 85.5,
                              93.7),
    "Llama3.1-8B-Instruct": ("128K", "32K", (95.5, 93.8, 91.6, 87.4, 84.7, 77.0), 88.3, 85.4,
                             91.3),
    "Qwen2-72B-Instruct": ("128K", "32K", (96.9, 96.1, 94.9, 94.1, 79.8, 53.7), 85.9, 79.6,
                           92.3),
    "Yi-34B-200K": ("200K", "32K", (93.3, 92.2, 91.3, 87.5, 83.2, 77.3), 87.5, 84.8, 90.1),
    "Mistral-7B-Instruct-v0.2": ("32K", "16K", (93.6, 91.2, 87.2, 75.4, 49.0, 13.8), 68.4, 55.6,
                                 81.2),
}

TABLE = PublishedTable(
    title="RULER's published results (score = mean of the 13 task scores, %)",
    source=SOURCE,
    protocol=Protocol(
        grid={"params.task": tuple(TASKS), "params.length": LENGTHS}, token_unit=MODELS_OWN,
        described="all 13 tasks at 4K, 8K, 16K, 32K, 64K and 128K tokens of the model's own "
                  "tokenizer"),
    columns=COLUMNS,
    rows=tuple((model, dict(zip(COLUMNS, (claimed, effective, *scores, avg, inc, dec))))
               for model, (claimed, effective, scores, avg, inc, dec) in ROWS.items()),
    measure=f"{__name__}:measure",
    note="RULER's own numbers were measured on Paul Graham's essays, SQuAD and HotpotQA with "
         "500 samples per task and length; this run's essay haystack is public-domain prose, "
         "so its essay tasks are not number for number the same stimuli.",
)
TABLES = (TABLE,)


def effective_label(value: int, censored: bool) -> str:
    """RULER's way of writing it: ">128K" when every length passed, "<4K" when none did."""
    if censored:
        return f">{length_label(value)}"
    return length_label(value) if value else f"<{length_label(LENGTHS[0])}"


def measure(frame) -> dict:
    """This run's row in the published columns (from results.py, RULER's arithmetic), each
    score with its 95% bootstrap interval."""
    from .results import summary

    found = summary(frame)
    if not found:
        return {}
    effective = found["effective_length"]
    row = {"effective length": effective_label(effective["value"], effective["censored"])}
    for item in found["by_length"]:
        row[length_label(item["length"])] = _estimate(item["score"], item["low"], item["high"])
    for column, key in (("Avg", "avg"), ("wAvg (inc)", "wavg_inc"), ("wAvg (dec)", "wavg_dec")):
        row[column] = _estimate(**found[key])
    return row


def _estimate(value: float, low: float, high: float) -> str:
    return f"{value:.1f} [{low:.1f}, {high:.1f}]"
