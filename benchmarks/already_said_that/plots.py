"""The metric table and the two bar charts, drawn from records (never from a model).

One row per model x protocol (variant, turn limit and the run's options): the original's
table with 95% intervals and sample counts, per-answer error rates, token usage and the
analytic random baseline. Charts: average turns and average distractor accuracy, horizontal
bars grouped by variant, one bar per model, with the maximum and the random baseline.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from reporting import plots

from .grid import MAX_TURNS, VARIANTS
from .scoring import aggregate

SCORE_FIELDS = ("num_turns", "num_distractors", "was_false_pos", "was_false_neg",
                "violation_occurred", "violations", "distractor_accuracy", "main_turns",
                "main_new", "main_seen", "false_positives", "false_negatives")
SETTINGS = ("seed", "word_source", "adversarial_pool", "reverse_sort_ideals",
            "distractor_match")


def render(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    table = metric_table(frame)
    if table.empty:
        return []
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "metrics.csv"
    table.to_csv(csv_path, index=False)
    markdown_path = out_dir / "metrics.md"
    markdown_path.write_text(markdown(table), encoding="utf-8")
    return [csv_path, markdown_path,
            _bars(table, "avg_num_turns", "Average turns before the first main-task mistake",
                  "maximum_turns", "random_baseline_turns", out_dir, "avg_num_turns.png"),
            _bars(table, "avg_distractor_accuracy", "Average distractor accuracy", None,
                  "random_distractor_accuracy", out_dir, "avg_distractor_accuracy.png")]


# -- the table -----------------------------------------------------------------------------
def _column(frame: pd.DataFrame, name: str, default=None) -> pd.Series:
    return frame[name] if name in frame else pd.Series([default] * len(frame),
                                                       index=frame.index)


def _scores(rows: pd.DataFrame) -> list[dict]:
    return [{field: _plain(row.get(f"scores.{field}")) for field in SCORE_FIELDS}
            for _, row in rows.iterrows()]


def _plain(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def _total(rows: pd.DataFrame, column: str) -> int | None:
    """The column's sum; None when no record has it (a built-in solver reports no usage)."""
    values = pd.to_numeric(_column(rows, column), errors="coerce").dropna()
    return int(values.sum()) if len(values) else None


def metric_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per model and protocol; metrics over ``ok`` samples, other outcomes counted."""
    if frame.empty or "params.variant" not in frame:
        return pd.DataFrame()
    frame = frame.copy()
    frame["model"] = _column(frame, "model.name").fillna("(no call)")
    keys = ["model", "params.variant", "params.max_turns"] + \
        [f"params.{s}" for s in SETTINGS if f"params.{s}" in frame]
    order = {v: i for i, v in enumerate(VARIANTS)}
    rows = []
    for key, group in frame.groupby(keys, sort=False, dropna=False):
        ok = group[group["outcome"] == "ok"]
        scores = _scores(ok)
        metrics = aggregate(scores)
        ended = _column(ok, "scores.ended_by")
        n_ok = len(ok)
        rows.append({
            **dict(zip([k.removeprefix("params.") for k in keys], key)),
            "outcomes": ", ".join(f"{o} {c}" for o, c in
                                  group["outcome"].value_counts().sort_index().items()),
            **metrics,
            "reached_max_turns": int((ended == "max_turns").sum()),
            "context_full": int((ended == "context_full").sum()),
            "maximum_turns": float(key[2]),
            "random_baseline_turns": _first(ok, "details.random_baseline_turns"),
            "random_baseline_distractors": _first(ok, "details.random_baseline_distractors"),
            "random_distractor_accuracy": _first(ok, "details.random_distractor_accuracy"),
            "served_prompt_tokens": _total(ok, "prompt_tokens"),
            "served_completion_tokens": _total(ok, "completion_tokens"),
            "o200k_input_tokens": _total(ok, "details.o200k_input_tokens"),
            "o200k_output_tokens": _total(ok, "details.o200k_output_tokens"),
            "o200k_input_tokens_per_sample": ((_total(ok, "details.o200k_input_tokens") or 0)
                                              / n_ok if n_ok else math.nan),
            "model_calls": (_total(group, "model_calls") or 0)
            + (_total(group, "cached_calls") or 0),
        })
    table = pd.DataFrame(rows)
    table["_order"] = table["variant"].map(order).fillna(len(order))
    return table.sort_values(["_order", "max_turns", "model"], kind="stable") \
        .drop(columns="_order").reset_index(drop=True)


def _first(rows: pd.DataFrame, column: str) -> float:
    values = pd.to_numeric(_column(rows, column), errors="coerce").dropna()
    return float(values.iloc[0]) if len(values) else math.nan


def _fmt(value, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float) and value.is_integer() and digits == 0:
        return str(int(value))
    return f"{value:.{digits}f}"


def _count(value) -> str:
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else str(int(value))


def _with_interval(row, name: str, digits: int = 2, count: str | None = None) -> str:
    text = _fmt(row.get(name), digits)
    if text == "—":
        return text + (f" (n={int(row[count])})" if count and count in row else "")
    text += f" [{_fmt(row.get(name + '_ci_low'), digits)}, " \
            f"{_fmt(row.get(name + '_ci_high'), digits)}]"
    return text + (f" (n={int(row[count])})" if count and count in row else "")


def markdown(table: pd.DataFrame) -> str:
    """Three tables: the original's metrics, error rates, token usage (95% intervals)."""
    variant = _label
    turns_rows = [[row["model"], variant(row), str(int(row["n_samples"])), row["outcomes"],
                   _with_interval(row, "avg_num_turns"), _fmt(row.get("stddev_num_turns")),
                   _fmt(row.get("median_num_turns"), 1), _fmt(row.get("max_num_turns"), 0),
                   _fmt(row.get("min_num_turns"), 0), _with_interval(row, "avg_num_distractors"),
                   _fmt(row.get("stddev_num_distractors")),
                   _fmt(row.get("median_num_distractors"), 1),
                   _fmt(row.get("max_num_distractors"), 0),
                   _fmt(row.get("min_num_distractors"), 0),
                   _fmt(row["random_baseline_turns"]),
                   _fmt(row["random_baseline_distractors"]), str(row["reached_max_turns"]),
                   str(row["context_full"])]
                  for _, row in table.iterrows()]
    error_rows = [[row["model"], variant(row),
                   _with_interval(row, "false_positive_rate", 3),
                   _with_interval(row, "false_negative_rate", 3),
                   _with_interval(row, "false_positive_per_answer", 3,
                                  "false_positive_per_answer_n"),
                   _with_interval(row, "false_negative_per_answer", 3,
                                  "false_negative_per_answer_n"),
                   _with_interval(row, "avg_distractor_accuracy", 3,
                                  "avg_distractor_accuracy_n"),
                   _fmt(row["random_distractor_accuracy"], 3),
                   _with_interval(row, "violation_rate", 3),
                   _with_interval(row, "violation_per_turn", 3, "violation_per_turn_n")]
                  for _, row in table.iterrows()]
    token_rows = [[row["model"], variant(row), str(int(row["n_samples"])),
                   str(row["model_calls"]), _count(row["served_prompt_tokens"]),
                   _count(row["served_completion_tokens"]), _count(row["o200k_input_tokens"]),
                   _count(row["o200k_output_tokens"]),
                   _fmt(row["o200k_input_tokens_per_sample"], 0)]
                  for _, row in table.iterrows()]
    settings = sorted({", ".join(f"{s}={row[s]}" for s in SETTINGS if s in row)
                       for _, row in table.iterrows()})
    return "\n".join([
        "# Already said that", "",
        "Settings: " + "; ".join(settings) + ".",
        "Intervals are 95%: bootstrap for means, Wilson for rates. n counts `ok` samples; "
        "`outcomes` counts every sample. Turns count completed turns (the failing turn is "
        "not one); the random baseline is the analytic expectation for a yes/no coin.", "",
        "## Turns and distractors survived", "",
        _markdown_table(["model", "variant", "n", "outcomes", "avg turns [95% CI]", "sd",
                         "median", "max", "min", "avg distractors [95% CI]", "sd", "median",
                         "max", "min", "random baseline turns",
                         "random baseline distractors", "reached max",
                         "context full"], turns_rows), "",
        "## Errors", "",
        "FP/FN rate: fraction of samples that *ended* on that error (the original's). "
        "Per answer: false positives over main answers whose truth was no, false negatives "
        "over those whose truth was yes. Violations are counted on every turn.", "",
        _markdown_table(["model", "variant", "FP rate (samples)", "FN rate (samples)",
                         "FP per answer", "FN per answer", "distractor accuracy",
                         "random distractor acc.", "violation rate (samples)",
                         "violations per turn"], error_rows), "",
        "## Token usage", "",
        "Served: as the endpoint reported usage, summed over every call (the whole history "
        "is re-sent each turn). o200k: the same, counted with o200k_base.", "",
        _markdown_table(["model", "variant", "n", "calls", "served prompt", "served completion",
                         "o200k input", "o200k output", "o200k input per sample"],
                        token_rows), ""])


def _label(row) -> str:
    turns = row["max_turns"]
    return row["variant"] + ("" if turns == MAX_TURNS else f" (max {int(turns)} turns)")


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


# -- the charts ----------------------------------------------------------------------------
def _bars(table: pd.DataFrame, metric: str, title: str, maximum: str | None,
          baseline: str, out_dir: Path, filename: str) -> Path:
    """Horizontal bars: one group per variant row, one bar per model, 95% whiskers."""
    import matplotlib.pyplot as plt

    row_labels = [_label(row) for _, row in table.iterrows()]
    labels = list(dict.fromkeys(row_labels))
    models = sorted(table["model"].unique())
    height = 0.8 / max(len(models), 1)
    fig, ax = plt.subplots(figsize=(8, 0.6 + 0.55 * len(labels) * max(1, len(models) * 0.6)))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    shown_max = shown_base = False
    for y, label in enumerate(labels):
        rows = table[[found == label for found in row_labels]]
        top, bottom = y - 0.45, y + 0.45
        for m, model in enumerate(models):
            hit = rows[rows["model"] == model]
            if hit.empty:
                continue
            row = hit.iloc[0]
            centre = y - 0.4 + height * (m + 0.5)
            value = row.get(metric)
            if value is None or (isinstance(value, float) and math.isnan(value)):
                ax.text(0, centre, "  no distractors shown" if "distractor" in metric
                        else "  no samples", va="center", fontsize=7, color="#777777")
                continue
            low, high = row.get(f"{metric}_ci_low"), row.get(f"{metric}_ci_high")
            ax.barh(centre, value, height=height * 0.9, color=colours[m % len(colours)],
                    label=model)  # duplicates are merged in the legend below
            if low is not None and not math.isnan(low):
                ax.errorbar(value, centre, xerr=[[value - low], [high - value]], fmt="none",
                            ecolor="black", elinewidth=0.8, capsize=2)
            n = row.get("avg_distractor_accuracy_n" if "distractor" in metric else "n_samples")
            ax.text(max(value, high if high is not None and not math.isnan(high) else value),
                    centre, f" n={int(n)}", va="center", fontsize=6)
        limit = 1.0 if maximum is None else float(rows[maximum].max())
        ax.vlines(limit, top, bottom, colors="black", linestyles="--", linewidth=1,
                  label=None if shown_max else "maximum")
        shown_max = True
        base = pd.to_numeric(rows[baseline], errors="coerce").dropna()
        if len(base):
            ax.vlines(float(base.iloc[0]), top, bottom, colors="#D62728", linestyles=":",
                      linewidth=1.5, label=None if shown_base else "random baseline")
            shown_base = True
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(title)
    ax.set_title(title + " (95% CI)", fontsize=10)
    if maximum is None:
        ax.set_xlim(0, 1.05)
    ax.grid(axis="x", alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    unique = dict(zip(names, handles))
    ax.legend(unique.values(), unique.keys(), fontsize=7, loc="lower right")
    return plots.save_figure(fig, out_dir, filename, tight=(0, 0, 1, 1))

