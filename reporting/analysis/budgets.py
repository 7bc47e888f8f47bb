"""Output budgets that ran out, and what thinking cost, per experiment and per cell.

A sample hit its output limit when its reply stopped at the token limit (finish_reason
"length"); its thinking ran out when no answer came out of the thinking (an unclosed block,
or the budget spent before any answer): that sample is scored as an empty answer, so the
count says how much of a cell's score is the budget's, not the model's. Each experiment names
the option that raises its answer budget (``Experiment.output_budget``).
"""

from __future__ import annotations

import pandas as pd

from reporting.experiments import Experiment

# the thinking budget's option (fixtures/pytest_face/plugin.py)
THINKING_BUDGET = "--reasoning-tokens"


def flagged(frame: pd.DataFrame, column: str) -> pd.Series:
    """The records' 0/1 flag (a run before the field was recorded: all False)."""
    if frame.empty or column not in frame:
        return pd.Series(False, index=frame.index)
    return frame[column].fillna(False).astype(bool)


def reasoning_tokens(frame: pd.DataFrame) -> pd.Series:
    if frame.empty or "reasoning_tokens" not in frame:
        return pd.Series(dtype=float)
    return frame["reasoning_tokens"].dropna().astype(float)


def cell_counts(cell: pd.DataFrame) -> dict:
    """What a cell's summary row adds: the counts and the mean reasoning tokens (None when no
    sample thought, or none said)."""
    tokens = reasoning_tokens(cell)
    return {"hit_output_limit": int(flagged(cell, "hit_output_limit").sum()),
            "thinking_ran_out": int(flagged(cell, "thinking_ran_out").sum()),
            "reasoning_tokens": round(float(tokens.mean()), 1) if len(tokens) else None}


def budget_findings(frame: pd.DataFrame, experiment: Experiment) -> dict:
    """The experiment's counts and the lines that name them and the fix ({}: none ran out
    and nothing was thought)."""
    limit, ran_out = flagged(frame, "hit_output_limit"), flagged(frame, "thinking_ran_out")
    tokens = reasoning_tokens(frame)
    if not limit.any() and not ran_out.any() and not len(tokens):
        return {}
    lines = []
    answer_cut = int((limit & ~ran_out).sum())
    if answer_cut:
        fix = f"raise {experiment.output_budget}" if experiment.output_budget else \
            "the budget is the experiment's protocol"
        lines.append(f"{answer_cut} samples hit the output limit: {fix}")
    if ran_out.any():
        lines.append(f"{int(ran_out.sum())} samples' thinking ran out (no answer; scored as "
                     f"an empty answer): raise the thinking budget, {THINKING_BUDGET}")
    if len(tokens):
        lines.append(f"reasoning tokens: {int(tokens.sum()):,} over {len(tokens)} samples "
                     f"(mean {tokens.mean():,.0f}; by length in cells.md)")
    return {"hit_output_limit": int(limit.sum()), "thinking_ran_out": int(ran_out.sum()),
            "reasoning_tokens": int(tokens.sum()) if len(tokens) else None, "lines": lines}
