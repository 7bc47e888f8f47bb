"""Parsing, violations, termination, the per-sample record and every aggregate metric."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from benchmarks.already_said_that import scoring
from benchmarks.already_said_that.conversation import play

from .helpers import DISTRACTORS, conversation, oracle, play_through


@pytest.mark.parametrize("reply, answer", [
    ("[answer: yes]", "yes"),
    ("[answer:  Yes ]", "yes"),
    ("Sure! [answer: NO] because...", "no"),
    ("[answer: city councilmen]\n[answer: no]", "city councilmen"),
    ("[answer:yes]", None),  # the original's pattern needs the space
    ("yes", None),
    ("[Answer: yes]", None),
    ("", None),
    (None, None),
])
def test_parse_answer(reply, answer):
    assert scoring.parse_answer(reply) == answer


def test_judge_main():
    assert scoring.judge_main("yes", seen=True)["correct"]
    assert scoring.judge_main("no", seen=False)["correct"]
    fp = scoring.judge_main("yes", seen=False)
    assert fp["false_positive"] and not fp["correct"] and fp["expected"] == "no"
    fn = scoring.judge_main("no", seen=True)
    assert fn["false_negative"] and not fn["correct"] and fn["expected"] == "yes"
    for bad in ("maybe", "yes.", None):
        verdict = scoring.judge_main(bad, seen=False)
        assert verdict["violation"] and not verdict["correct"]
        assert not verdict["false_positive"] and not verdict["false_negative"]


def test_distractor_matching():
    assert scoring.distractor_correct("city councilmen", "City Councilmen ")
    assert not scoring.distractor_correct("the city councilmen", "city councilmen")
    # exact mode is the original's comparison: no punctuation rule of any kind
    assert not scoring.distractor_correct("\u201ccity councilmen\u201d", "city councilmen")
    assert not scoring.distractor_correct("city councilmen.", "city councilmen")
    assert scoring.distractor_correct("the city councilmen", "city councilmen", "fuzzy")
    assert scoring.distractor_correct("sam.", "sam", "fuzzy")
    assert not scoring.distractor_correct("joan", "jane", "fuzzy")
    assert not scoring.distractor_correct("", "jane", "fuzzy")
    assert not scoring.distractor_correct(None, "jane", "fuzzy")


@pytest.mark.parametrize("answer, ideal, credited", [
    # an answer that normalises to an article is still an answer: first letters of
    # "Try her enchiladas." (FuzzyMatch's normalisation leaves nothing of it)
    ("the", "the", True),
    ("The.", "the", True),
    ("a", "the", False),  # FuzzyMatch credits it: both sides normalise to nothing
    ("an", "the", False),
    # a partial word is not a match (FuzzyMatch compares characters: "e" is in "define")
    ("e", "define", False),
    ("y", "yes", False),
    ("defin", "define", False),
    ("es", "yes", False),
    # nor the first item of a list, nor any part of it
    ("venomous", "venomous, tranquil, miniature", False),
    ("venomous, tranquil", "venomous, tranquil, miniature", False),
    ("venomous, tranquil, miniature", "venomous, tranquil, miniature", True),
    ("Venomous tranquil miniature.", "venomous, tranquil, miniature", True),
    ("councilmen", "city councilmen", False),
    # an answer may say more, as FuzzyMatch allows: the ideal's words, whole and in order
    ("the city councilmen feared violence", "city councilmen", True),
    ("city-councilmen", "city councilmen", False),  # one word once the hyphen goes
    ("councilmen city", "city councilmen", False),
    ("samuel", "sam", False),
    ("yes", "yes", True),
    ("  ", "yes", False),
    # Unicode punctuation goes as ASCII's does (every P* category), where FuzzyMatch's
    # character comparison credits it too
    ("\u201ccity councilmen\u201d", "city councilmen", True),  # curly quotes
    ("city councilmen\u2026", "city councilmen", True),  # an ellipsis
    ("\u00abcity councilmen\u00bb", "city councilmen", True),  # guillemets
    ("\u00ab\u00a0city councilmen\u00a0\u00bb", "city councilmen", True),  # French spacing
    ("\u300ccity councilmen\u300d\u3002", "city councilmen", True),  # CJK brackets, stop
    ("\u2018the city councilmen\u2019, I think", "city councilmen", True),
    ("\u00bfsam?", "sam", True),
    ("\u201ccity\u201d", "city councilmen", False),  # still whole words, all of them
    ("\u201ccity councilmens\u201d", "city councilmen", False),
    ("city councilmens\u2026", "city councilmen", False),
    ("city\u2014councilmen", "city councilmen", False),  # one word once the dash goes
    ("\u201c\u201d", "yes", False),
])
def test_fuzzy_distractor_matching(answer, ideal, credited):
    assert scoring.distractor_correct(answer, ideal, "fuzzy") is credited


def test_fuzzy_matching_keeps_the_originals_normalisation_otherwise():
    assert scoring.normalize("The City, the Councilmen!") == "city councilmen"
    assert scoring.normalize("\u00abThe City\u2026\u00bb") == "city"
    assert scoring.normalize("price: $5 + 2 = 7") == "price 5 2 7"  # ASCII symbols, as before
    assert scoring.normalize("\u00a35 \u00d7 2") == "\u00a35 \u00d7 2"  # S*, not P*: kept
    assert scoring.normalize("  an  apple ") == "apple"
    assert scoring.normalize("The.") == "the" and scoring.normalize("...") == ""


def _dialogue(replies, max_turns=100, fits=lambda m: True, distractors=True):
    """Play with scripted replies (text, None, or a function of messages and dialogue)."""
    dialogue = conversation(5, distractors=DISTRACTORS if distractors else [])
    replies = list(replies)

    def respond(messages):
        reply = replies.pop(0)
        return reply(messages, dialogue) if callable(reply) else reply
    return play_through(dialogue, respond, max_turns=max_turns, fits=fits)


def right(messages, dialogue):
    return oracle(dialogue)(messages)


def wrong(messages, dialogue):
    text = messages[-1]["content"]
    if text.startswith("MAIN TASK - "):
        return "[answer: no]" if text[12:] in dialogue.shown else "[answer: yes]"
    return "[answer: not the ideal]"


def test_the_first_main_mistake_ends_the_sample_and_is_not_a_completed_turn():
    transcript = _dialogue([right] * 10 + [wrong] * 20)
    log = transcript.log
    first_main_mistake = next(i for i, e in enumerate(log)
                              if e["kind"] == "main" and not e["correct"])
    assert first_main_mistake == len(log) - 1  # nothing after it
    assert all(e["correct"] for e in log[:10])
    scores = scoring.sample_scores(log, transcript.ended_by)
    assert scores["num_turns"] == len(log) - 1
    assert transcript.ended_by in ("false_positive", "false_negative")
    assert scores["was_false_pos"] == (transcript.ended_by == "false_positive")
    assert scores["was_false_neg"] == (transcript.ended_by == "false_negative")


def test_distractor_mistakes_and_violations_do_not_end_the_sample_but_are_counted():
    def reply(messages, dialogue):
        if messages[-1]["content"].startswith("MAIN TASK - "):
            return right(messages, dialogue)
        return "I refuse to use the format"

    transcript = _dialogue([reply] * 100)
    assert transcript.ended_by == "max_turns"
    scores = scoring.sample_scores(transcript.log, transcript.ended_by)
    assert scores["num_turns"] == 100
    assert scores["num_distractors"] > 0 and scores["distractor_accuracy"] == 0.0
    assert scores["violation_occurred"]  # even though the last turn may be fine
    assert scores["violations"] == scores["num_distractors"]


def test_a_main_violation_ends_the_sample():
    transcript = _dialogue(["no format at all"], distractors=False)
    scores = scoring.sample_scores(transcript.log, transcript.ended_by)
    assert transcript.ended_by == "violation"
    assert scores == {**scores, "num_turns": 0, "violation_occurred": True, "violations": 1,
                      "was_false_pos": False, "was_false_neg": False, "main_turns": 1,
                      "main_new": 0, "main_seen": 0, "distractor_accuracy": None}


def test_max_turns_context_full_and_overflow_stop_without_a_mistake():
    assert _dialogue([right] * 10, max_turns=3).ended_by == "max_turns"
    assert len(_dialogue([right] * 10, max_turns=3).log) == 3
    calls = []
    full = _dialogue([right] * 10, fits=lambda m: calls.append(1) or len(calls) <= 2)
    assert full.ended_by == "context_full" and len(full.log) == 2
    assert full.messages[-1]["role"] == "assistant"
    over = _dialogue([right, None])
    assert over.ended_by == "overflow" and len(over.log) == 1
    for transcript in (full, over):
        scores = scoring.sample_scores(transcript.log, transcript.ended_by)
        assert scores["num_turns"] == len(transcript.log)
        assert not scores["was_false_pos"] and not scores["was_false_neg"]


def _entry(kind, correct=True, violation=False, fp=False, fn=False, expected="no"):
    return {"kind": kind, "correct": correct, "violation": violation, "false_positive": fp,
            "false_negative": fn, "expected": expected}


def test_sample_scores_by_hand():
    log = [_entry("main"), _entry("distractor", correct=False, violation=True),
           _entry("main", expected="yes"), _entry("distractor"), _entry("distractor"),
           _entry("main", correct=False, fn=True, expected="yes")]
    scores = scoring.sample_scores(log, "false_negative")
    assert scores == {"num_turns": 5, "num_distractors": 3, "was_false_pos": False,
                      "was_false_neg": True, "violation_occurred": True, "violations": 1,
                      "distractor_accuracy": pytest.approx(2 / 3), "main_turns": 3,
                      "main_new": 1, "main_seen": 2, "false_positives": 0,
                      "false_negatives": 1, "ended_by": "false_negative"}
    with pytest.raises(ValueError):
        scoring.sample_scores(log, "tired")


SAMPLES = [  # four hand-made records
    {"num_turns": 10, "num_distractors": 3, "was_false_pos": True, "was_false_neg": False,
     "violation_occurred": False, "violations": 0, "distractor_accuracy": 1.0,
     "main_turns": 8, "main_new": 5, "main_seen": 3, "false_positives": 1,
     "false_negatives": 0},
    {"num_turns": 0, "num_distractors": 0, "was_false_pos": False, "was_false_neg": False,
     "violation_occurred": True, "violations": 1, "distractor_accuracy": None,
     "main_turns": 1, "main_new": 0, "main_seen": 0, "false_positives": 0,
     "false_negatives": 0},
    {"num_turns": 4, "num_distractors": 2, "was_false_pos": False, "was_false_neg": True,
     "violation_occurred": True, "violations": 2, "distractor_accuracy": 0.5,
     "main_turns": 3, "main_new": 1, "main_seen": 2, "false_positives": 0,
     "false_negatives": 1},
    {"num_turns": 100, "num_distractors": 31, "was_false_pos": False, "was_false_neg": False,
     "violation_occurred": False, "violations": 0, "distractor_accuracy": 0.0,
     "main_turns": 69, "main_new": 40, "main_seen": 29, "false_positives": 0,
     "false_negatives": 0},
]


def test_every_aggregate_metric_by_hand():
    metrics = scoring.aggregate(SAMPLES)
    assert metrics["n_samples"] == 4
    assert metrics["avg_num_turns"] == pytest.approx(28.5)
    # population sd of 10, 0, 4, 100: deviations 18.5, 28.5, 24.5, 71.5
    assert metrics["stddev_num_turns"] == pytest.approx(
        math.sqrt((18.5 ** 2 + 28.5 ** 2 + 24.5 ** 2 + 71.5 ** 2) / 4))
    assert metrics["median_num_turns"] == 7.0
    assert metrics["max_num_turns"] == 100 and metrics["min_num_turns"] == 0
    assert metrics["avg_num_distractors"] == pytest.approx(9.0)
    assert metrics["stddev_num_distractors"] == pytest.approx(np.std([3, 0, 2, 31]))
    assert metrics["median_num_distractors"] == 2.5
    assert metrics["max_num_distractors"] == 31 and metrics["min_num_distractors"] == 0
    assert metrics["false_positive_rate"] == 0.25 and metrics["false_negative_rate"] == 0.25
    assert metrics["avg_distractor_accuracy"] == pytest.approx(0.5)  # nanmean of 1, .5, 0
    assert metrics["avg_distractor_accuracy_n"] == 3
    assert metrics["violation_rate"] == 0.5
    assert metrics["false_positive_per_answer"] == pytest.approx(1 / 46)
    assert metrics["false_positive_per_answer_n"] == 46
    assert metrics["false_negative_per_answer"] == pytest.approx(1 / 34)
    assert metrics["violation_per_turn"] == pytest.approx(3 / (81 + 36))
    for name in ("avg_num_turns", "false_positive_rate", "violation_rate",
                 "avg_distractor_accuracy", "false_negative_per_answer"):
        assert metrics[f"{name}_ci_low"] <= metrics[name] <= metrics[f"{name}_ci_high"]
    assert scoring.aggregate([]) == {"n_samples": 0}


def test_the_random_baseline_formula():
    survive = 1 - (1 - 1 / 3) / 2
    brute = sum(survive ** k for k in range(1, 101))  # sum of P(first k turns pass)
    assert scoring.random_baseline_turns(100, 1 / 3) == pytest.approx(brute)
    assert scoring.random_baseline_turns(100, 1 / 3) == pytest.approx(2.0)
    assert scoring.random_baseline_turns(100, 0.0) == pytest.approx(1.0)
    assert scoring.random_baseline_turns(1, 0.0) == pytest.approx(0.5)
    assert scoring.random_baseline_distractors(100, 1 / 3) == pytest.approx(1.0)
    assert scoring.random_baseline_distractors(100, 0.0) == 0.0
    assert scoring.random_distractor_accuracy(["yes", "no", "rome", "no"]) == 0.375
    assert math.isnan(scoring.random_distractor_accuracy([]))


def test_the_builtin_random_solver_lasts_as_long_as_the_analytic_baseline():
    """``--model builtin:random`` through the real loop, without pytest or a server."""
    from fixtures.engine.models import RandomSolver

    solver = RandomSolver()

    async def respond(messages):
        return (await solver.complete(messages, max_tokens=16)).text

    runs = 1500
    turns = []
    for seed in range(runs):
        transcript = asyncio.run(play(conversation(f"random/{seed}"), "task", respond,
                                      max_turns=100))
        turns.append(scoring.sample_scores(transcript.log, transcript.ended_by)["num_turns"])
    assert abs(np.mean(turns) - scoring.random_baseline_turns(100, 1 / 3)) < \
        4 * math.sqrt(6) / math.sqrt(runs)
