"""NoLiMa's published results (its README and the paper), beside a run measured as they were.

The main table: accuracy (%) of ``needle_set`` by length, the base score (the best of 250,
500 and 1K) with its 85% threshold, and the effective length. A run is put beside it when it
scored NoLiMa's own ``needle_set`` at all eight lengths, 250 to 32K. The lengths count each
model's own tokens (tiktoken's gpt-4o encoding for OpenAI models, the model's tokenizer for
open ones, a Llama tokenizer as an estimate for Claude): a run's unit is whatever
``--tokenizer`` gives. NoLiMa-Hard (``needle_set_hard``, 4K to 32K) likewise. The gate never
reads these.
"""

from __future__ import annotations

from reporting.experiments import Protocol, PublishedTable

from .grid import FULL_LENGTHS

SOURCE = ("NoLiMa README (adobe-research/NoLiMa @ 7532e4e, updated 2025-04-10) and "
          "Modarressi et al., ICML 2025, arXiv:2502.05167")
LENGTH_COLUMNS = ("1K", "2K", "4K", "8K", "16K", "32K")
COLUMNS = ("claimed", "effective", "base (thr.)", *LENGTH_COLUMNS)
# model: (claimed, effective, base, threshold, 1K..32K; None: not yet published)
ROWS = {
    "GPT-4o": ("128K", "8K", 99.3, 84.4, (98.1, 98.0, 95.7, 89.2, 81.6, 69.7)),
    "Llama 3.3 70B": ("128K", "2K", 97.3, 82.7, (94.2, 87.4, 81.5, 72.1, 59.5, 42.7)),
    "Llama 3.1 405B": ("128K", "2K", 94.7, 80.5, (89.0, 85.0, 74.5, 60.1, 48.4, 38.0)),
    "Llama 3.1 70B": ("128K", "2K", 94.5, 80.3, (91.0, 81.8, 71.2, 62.7, 51.8, 43.2)),
    "Gemini 1.5 Pro": ("2M", "2K", 92.6, 78.7, (86.4, 82.7, 75.4, 63.9, 55.5, 48.2)),
    "Jamba 1.5 Mini": ("256K", "<1K", 92.4, 78.6, (76.3, 74.1, 70.8, 62.2, 52.7, 43.6)),
    "Command R+": ("128K", "<1K", 90.9, 77.3, (77.0, 73.5, 66.3, 39.5, 21.3, 7.4)),
    "Llama 4 Maverick": ("1M", "2K", 90.1, 76.6, (81.6, 78.3, 68.8, None, None, None)),
    "Gemini 2.0 Flash": ("1M", "4K", 89.4, 76.0, (87.7, 87.5, 77.9, 64.7, 48.2, 41.0)),
    "Gemma 3 27B": ("128K", "<1K", 88.6, 75.3, (73.3, 65.6, 48.1, 32.7, 20.2, 9.5)),
    "Mistral Large 2": ("128K", "2K", 87.9, 74.7, (86.1, 85.5, 73.3, 51.5, 32.6, 18.7)),
    "Claude 3.5 Sonnet": ("200K", "4K", 87.6, 74.4, (85.4, 84.0, 77.6, 61.7, 45.7, 29.8)),
    "Gemma 3 12B": ("128K", "1K", 87.4, 74.3, (74.7, 61.8, 39.9, 27.4, 16.8, 7.3)),
    "Gemini 1.5 Flash": ("1M", "<1K", 84.7, 72.0, (68.6, 61.6, 51.0, 44.4, 35.5, 28.6)),
    "GPT-4o mini": ("128K", "<1K", 84.9, 72.2, (67.7, 58.2, 44.1, 32.6, 20.6, 13.7)),
    "Llama 4 Scout": ("10M", "1K", 81.7, 69.4, (72.3, 61.8, 50.8, 35.5, 26.9, 21.6)),
    "Llama 3.1 8B": ("128K", "1K", 76.7, 65.2, (65.7, 54.4, 44.1, 31.9, 22.6, 14.2)),
    "Gemma 3 4B": ("128K", "<1K", 73.6, 62.6, (50.3, 35.3, 16.4, 7.5, 2.3, 0.9)),
}
HARD_COLUMNS = ("base", "4K", "8K", "16K", "32K")
HARD_ROWS = {  # NoLiMa-Hard, without CoT
    "Llama 3.3 70B": (98.3, 55.5, 37.2, 16.7, 8.9),
    "GPT-o1": (99.9, 92.0, 78.0, 60.1, 31.1),
    "GPT-o3 Mini": (98.8, 52.8, 36.9, 25.5, 18.9),
    "DeepSeek R1-Distill-Llama-70B": (99.9, 91.4, 75.5, 49.4, 20.7),
}


def _row(claimed, effective, base, threshold, scores) -> dict:
    row = {"claimed": claimed, "effective": effective, "base (thr.)": f"{base} ({threshold})"}
    row.update({c: f"{v}" for c, v in zip(LENGTH_COLUMNS, scores) if v is not None})
    return row


def measure(frame) -> dict:
    """This run's row: accuracy per length with its count, NoLiMa's base and effective length
    (scoring.py)."""
    from .scoring import THRESHOLD, base_score, effective_length, length_label

    scored = frame[(frame["outcome"] == "ok") & frame["scores.contains"].notna()]
    accuracy, counts = {}, {}
    for length, part in scored.groupby("params.length"):
        accuracy[int(length)] = float(part["scores.contains"].astype(bool).mean())
        counts[int(length)] = len(part)
    base = base_score(accuracy)
    row = {"effective": effective_length(accuracy)[1]}
    if base is not None:
        row["base (thr.)"] = f"{100 * base:.1f} ({100 * THRESHOLD * base:.1f})"
    for length, value in accuracy.items():
        label = length_label(length)
        if label in LENGTH_COLUMNS or label in HARD_COLUMNS:
            row[label] = f"{100 * value:.1f} (n={counts[length]})"
    if "base (thr.)" in row:
        row["base"] = row["base (thr.)"].split(" ")[0]
    return row


TABLE = PublishedTable(
    title="NoLiMa's results (needle_set, contains accuracy %, base = best of 250/500/1K)",
    source=SOURCE,
    protocol=Protocol(grid={"params.set": ("needle_set",), "params.length": FULL_LENGTHS},
                      token_unit=None,
                      described="NoLiMa's own needle_set (the user's download) at 250 to 32K "
                                "tokens in the model's tokenizer, 26 depths, its 5 haystacks"),
    columns=COLUMNS,
    rows=tuple((model, _row(*values)) for model, values in ROWS.items()),
    measure=f"{__name__}:measure",
    note="NoLiMa counts lengths in each model's own tokenizer (give --tokenizer to match); "
         "haystacks are taken in sorted name order where NoLiMa takes the directory listing's.",
)
HARD_TABLE = PublishedTable(
    title="NoLiMa-Hard (needle_set_hard, contains accuracy %, without CoT)",
    source=SOURCE,
    protocol=Protocol(grid={"params.set": ("needle_set_hard",),
                            "params.length": FULL_LENGTHS},
                      token_unit=None,
                      described="NoLiMa's needle_set_hard at 250 to 32K tokens"),
    columns=HARD_COLUMNS,
    rows=tuple((model, dict(zip(HARD_COLUMNS, map(str, values))))
               for model, values in HARD_ROWS.items()),
    measure=f"{__name__}:measure",
    note="Llama 3.3 70B with CoT (needle_set_w_CoT): base 97.1; 73.0, 51.2, 31.8, 10.1.",
)
TABLES = (TABLE, HARD_TABLE)
