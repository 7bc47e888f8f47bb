"""Scoring one answer: RULER's post-processing and its two string-match metrics (spec
section 4), per sample as a fraction in [0, 1] (RULER reports 100 x the task's mean)."""

from __future__ import annotations

import re

from .grid import TASKS

CONTROL = re.compile(r"[\x00-\x1f]")


def postprocess(prediction: str) -> str:
    """Strip; every control character (newlines and tabs included) becomes a newline; strip."""
    return CONTROL.sub("\n", prediction.strip()).strip()


def string_match_all(prediction: str, references: list[str]) -> float:
    """The fraction of references found in the prediction (case-insensitive substrings)."""
    text = prediction.lower()
    return sum(reference.lower() in text for reference in references) / len(references)


def string_match_part(prediction: str, references: list[str]) -> float:
    """1 when any reference is found in the prediction (case-insensitive substring), else 0."""
    text = prediction.lower()
    return float(any(reference.lower() in text for reference in references))


METRICS = {"string_match_all": string_match_all, "string_match_part": string_match_part}


def score(task: str, prediction: str, references: list[str]) -> dict:
    """``score`` (the headline) and how many references were found."""
    text = postprocess(prediction)
    found = sum(reference.lower() in text.lower() for reference in references)
    return {"score": METRICS[TASKS[task].metric](text, references), "found": found}
