"""Parsing, judging, per-sample scores, the aggregate table and the random baseline.

Pure functions. The per-sample record and the aggregates are those of the original
(openai/evals ``already_said_that``), with two corrections:
- a format violation is counted on *every* turn: the original overwrites its flag each turn,
  so a violation on a distractor turn mid-dialogue is forgotten unless it is the last turn;
- beside the original's false-positive and false-negative "rates" (the fraction of samples
  that *ended* on that error) we report per-answer rates: false positives over the main-task
  answers whose truth was "no", false negatives over those whose truth was "yes".
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from typing import Iterable, Sequence

ANSWER = re.compile(r"\[answer: ([^\]]+)\]")
DISTRACTOR_PROBABILITY = 1 / 3
ENDINGS = ("false_positive", "false_negative", "violation", "max_turns", "context_full",
           "overflow")


def parse_answer(reply: str | None) -> str | None:
    """The first ``[answer: X]``'s X, stripped and lower-cased; None when there is none."""
    match = ANSWER.search(reply or "")
    return match.group(1).strip().lower() if match else None


def judge_main(answer: str | None, seen: bool) -> dict:
    """A main-task answer: anything but yes/no (or no answer at all) is a violation."""
    violation = answer not in ("yes", "no")
    false_positive = answer == "yes" and not seen
    false_negative = answer == "no" and seen
    return {"expected": "yes" if seen else "no", "violation": violation,
            "false_positive": false_positive, "false_negative": false_negative,
            "correct": not (violation or false_positive or false_negative)}


_ARTICLES = re.compile(r"\b(a|an|the)\b")


_ASCII_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize(text: str) -> str:
    """FuzzyMatch's normalisation (openai/evals ``elsuite.utils.normalize``): lower case, no
    punctuation, no articles, single spaces; except that text made only of articles keeps
    them ("The." is "the"), where the original leaves nothing, and that Unicode punctuation
    (every ``P*`` category: curly quotes, guillemets, the ellipsis, dashes) goes as ASCII's
    does. The original removes ASCII's only, but then compares characters, so it credits
    ``“city councilmen”``; the whole-word rule here would not, were they left on."""
    text = text.lower().translate(_ASCII_PUNCTUATION)
    text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    return " ".join(_ARTICLES.sub(" ", text).split()) or " ".join(text.split())


def distractor_correct(answer: str | None, ideal: str, match: str = "exact") -> bool:
    """The original's exact match, or (``fuzzy``) the ideal's words inside the answer's.

    Exact: ``answer == ideal.strip().lower()``, as already_said_that compares. Fuzzy, for the
    variants whose source eval graded with FuzzyMatch (``grid.FUZZY_VARIANTS``): both sides
    normalised (``normalize``), then the ideal's words must appear whole and in order among
    the answer's. An answer may say more, as FuzzyMatch allows ("the city councilmen feared
    violence" for "city councilmen"), never less: FuzzyMatch also accepts the answer inside
    the ideal, character by character, which credits "e" for "define", "y" for "yes" and the
    first word of a list.
    """
    if answer is None:
        return False
    if match == "exact":
        return answer == ideal.strip().lower()
    said, wanted = normalize(answer).split(), normalize(ideal).split()
    if not said or not wanted:
        return False
    return any(said[i:i + len(wanted)] == wanted for i in range(len(said) - len(wanted) + 1))


# -- one sample ----------------------------------------------------------------------------
def sample_scores(log: Sequence[dict], ended_by: str) -> dict:
    """The per-sample record from the turn log (each entry as ``Conversation.judge`` makes).

    ``num_turns`` counts completed turns: the turn that ended the sample is not one.
    """
    if ended_by not in ENDINGS:
        raise ValueError(f"unknown ending {ended_by!r}")
    mistake_ended = ended_by in ("false_positive", "false_negative", "violation")
    completed = log[:-1] if mistake_ended else log
    distractors = [t for t in completed if t["kind"] == "distractor"]
    mains = [t for t in log if t["kind"] == "main"]
    judged = [t for t in mains if not t["violation"]]  # answers that said yes or no
    correct = [t["correct"] for t in distractors]
    return {
        "num_turns": len(completed),
        "num_distractors": len(distractors),
        "was_false_pos": ended_by == "false_positive",
        "was_false_neg": ended_by == "false_negative",
        "violation_occurred": any(t["violation"] for t in log),
        "violations": sum(1 for t in log if t["violation"]),
        "distractor_accuracy": (sum(correct) / len(correct)) if correct else None,
        "main_turns": len(mains),
        "main_new": sum(1 for t in judged if t["expected"] == "no"),
        "main_seen": sum(1 for t in judged if t["expected"] == "yes"),
        "false_positives": sum(1 for t in mains if t["false_positive"]),
        "false_negatives": sum(1 for t in mains if t["false_negative"]),
        "ended_by": ended_by,
    }


# -- many samples --------------------------------------------------------------------------
# The aggregates run in the controller only: numpy and scipy (reporting.analysis.stats) are imported
# there, never in a worker that only scores samples.
def _describe(values: Sequence[float], name: str) -> dict:
    import numpy as np

    from reporting.analysis.stats import bootstrap_interval

    data = np.asarray(values, dtype=float)
    low, high = bootstrap_interval(data.tolist())
    return {f"avg_{name}": float(np.mean(data)), f"avg_{name}_ci_low": low,
            f"avg_{name}_ci_high": high, f"stddev_{name}": float(np.std(data)),  # population
            f"median_{name}": float(np.median(data)), f"max_{name}": float(np.max(data)),
            f"min_{name}": float(np.min(data))}


def _rate(successes: int, total: int, name: str) -> dict:
    from reporting.analysis.stats import wilson_interval

    low, high = wilson_interval(successes, total)
    return {name: successes / total if total else math.nan, f"{name}_ci_low": low,
            f"{name}_ci_high": high, f"{name}_n": total}


def aggregate(samples: Iterable[dict]) -> dict:
    """The original's table over per-sample scores, each with a 95% interval and its n.

    Means of counts get a bootstrap interval, fractions of samples a Wilson interval;
    ``avg_distractor_accuracy`` averages the samples that saw a distractor (the original's
    ``nanmean``). Per-answer rates pool the answers of all samples.
    """
    from reporting.analysis.stats import bootstrap_interval

    samples = list(samples)
    n = len(samples)
    if n == 0:
        return {"n_samples": 0}
    accuracies = [s["distractor_accuracy"] for s in samples
                  if s["distractor_accuracy"] is not None
                  and not (isinstance(s["distractor_accuracy"], float)
                           and math.isnan(s["distractor_accuracy"]))]
    low, high = bootstrap_interval(accuracies)
    turns_asked = sum(s["main_turns"] + s["num_distractors"] for s in samples)
    return {
        "n_samples": n,
        **_describe([s["num_turns"] for s in samples], "num_turns"),
        **_describe([s["num_distractors"] for s in samples], "num_distractors"),
        **_rate(sum(bool(s["was_false_pos"]) for s in samples), n, "false_positive_rate"),
        **_rate(sum(bool(s["was_false_neg"]) for s in samples), n, "false_negative_rate"),
        "avg_distractor_accuracy": math.fsum(accuracies) / len(accuracies) if accuracies
        else math.nan,
        "avg_distractor_accuracy_ci_low": low, "avg_distractor_accuracy_ci_high": high,
        "avg_distractor_accuracy_n": len(accuracies),
        **_rate(sum(bool(s["violation_occurred"]) for s in samples), n, "violation_rate"),
        **_rate(sum(s["false_positives"] for s in samples),
                sum(s["main_new"] for s in samples), "false_positive_per_answer"),
        **_rate(sum(s["false_negatives"] for s in samples),
                sum(s["main_seen"] for s in samples), "false_negative_per_answer"),
        # violations over every turn the model answered (the failing turn included)
        **_rate(sum(s["violations"] for s in samples), turns_asked, "violation_per_turn"),
    }


# -- the random baseline ---------------------------------------------------------------------
def _failure_per_turn(distractor_probability: float) -> float:
    """A coin fails a turn when it is a main turn (1 - p) and the coin is wrong (1/2)."""
    return (1 - distractor_probability) / 2


def random_baseline_turns(max_turns: int, distractor_probability: float) -> float:
    """Expected completed turns of a yes/no coin: sum over k of P(the first k turns pass).

    Turns pass independently with probability s = 1 - (1 - p)/2, so E = s (1 - s^M) / (1 - s):
    2.0 with distractors (p = 1/3) and 1.0 without, for M = 100.
    """
    survive = 1 - _failure_per_turn(distractor_probability)
    return survive * (1 - survive ** max_turns) / (1 - survive)


def random_baseline_distractors(max_turns: int, distractor_probability: float) -> float:
    """Expected distractors shown before the coin fails: each passed turn is one with
    probability p / s (1/2 for p = 1/3)."""
    survive = 1 - _failure_per_turn(distractor_probability)
    return random_baseline_turns(max_turns, distractor_probability) * \
        distractor_probability / survive


def random_distractor_accuracy(ideals: Sequence[str]) -> float:
    """Expected accuracy of a yes/no coin on these distractors (only yes/no ideals count)."""
    if not ideals:
        return math.nan
    return sum(0.5 for ideal in ideals if ideal in ("yes", "no")) / len(ideals)
