"""The judges' parsers, the abstention detector and the paired findings' arithmetic."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from benchmarks.longmemeval import published, scoring
from reporting.analysis.stats import mcnemar

# sha256 (first 16 hex) of LongMemEval's judge prompts in evaluate_qa.py @ 9e0b455
LONGMEMEVAL_PROMPTS = {"abstention": "5c0b365a1e1d06db", "knowledge-update": "183a9b3a6197ec62",
                       "multi-session": "fba020ba3d57982e",
                       "single-session-assistant": "fba020ba3d57982e",
                       "single-session-preference": "741ee3bcbea7ff5e",
                       "single-session-user": "fba020ba3d57982e",
                       "temporal-reasoning": "8d33a5fdd83afeeb"}


def test_longmemevals_judge_prompts_are_its_own():
    assert {k: hashlib.sha256(v.encode()).hexdigest()[:16]
            for k, v in scoring.LONGMEMEVAL_JUDGE_PROMPTS.items()} == LONGMEMEVAL_PROMPTS
    messages, tokens = scoring.judge_request("longmemeval", "multi-session", True, "Q", "A", "R")
    assert messages[0]["content"].startswith("I will give you an unanswerable question")
    assert tokens == 10


def test_chromas_prompt_keeps_its_sources_layout():
    prompt = scoring.CHROMA_JUDGE_PROMPT
    assert prompt.startswith("\n        Given this question") and prompt.endswith(
        '"true" or "false".\n        ')
    assert "correct answer). \n        In some cases" in prompt
    assert "\n\n        Question: {question}\n\n        CORRECT answer: {correct_answer}" in prompt


@pytest.mark.parametrize(("reply", "verdict"), [
    ("true", True), ("False", False), ("**TRUE**", True), ('"false".', False),
    ("true or false", None), ("Maybe.", None), ("", None), (None, None)])
def test_a_chroma_verdict_names_exactly_one_word(reply, verdict):
    assert scoring.parse_verdict(reply, "chroma") is verdict


def test_a_longmemeval_verdict_is_yes_or_no():
    assert scoring.parse_verdict("Yes.", "longmemeval") is True
    assert scoring.parse_verdict("no", "longmemeval") is False
    assert scoring.parse_verdict("yes and no", "longmemeval") is None


@pytest.mark.parametrize(("reply", "declines"), [
    ("I don't know.", True), ("This is not mentioned in the chats.", True),
    ("There is no information about it.", True), ("I cannot determine that.", True),
    ("Porto", False), ("You live in Porto now, not Lisbon.", False)])
def test_abstention_is_read_apart_from_the_verdict(reply, declines):
    assert scoring.abstains(reply) is declines


def frame_of(pairs: list[tuple[bool, bool]], source: str = "chroma") -> pd.DataFrame:
    rows = []
    for index, (focused, full) in enumerate(pairs):
        for condition, right in (("focused", focused), ("full", full)):
            rows.append({"experiment": "longmemeval", "outcome": "ok",
                         "sample_id": f"x{index}-{condition}",
                         "params.source": source, "params.condition": condition,
                         "params.question_id": f"q{index}",
                         "params.question_type": "multi-session" if index % 2 else "temporal",
                         "scores.correct": right, "scores.abstained": not right and index % 3 == 0,
                         "details.judge_prompt": "chroma", "details.judge_unparsable": False})
    return pd.DataFrame(rows)


def test_chromas_published_run_by_this_arithmetic():
    """Chroma's GPT-4.1 per-question results: 180 right in both, 87 only focused, 11 only
    full, 28 in neither."""
    pairs = [(True, True)] * 180 + [(True, False)] * 87 + [(False, True)] * 11 + \
        [(False, False)] * 28
    found = scoring.findings(frame_of(pairs))["sources"]["chroma"]
    assert (found["focused"]["correct"], found["full"]["correct"], found["pairs"]) == \
        (267, 191, 306)
    assert round(found["focused"]["accuracy"], 3) == 0.873
    assert round(found["full"]["accuracy"], 3) == 0.624
    assert found["p"] == pytest.approx(mcnemar(87, 11)) and found["p"] < 1e-15
    low, high = found["gap_ci"]
    assert low < found["gap"] < high and round(found["gap"], 3) == 0.248
    measured = published.measure(frame_of(pairs))
    assert measured["focused"].startswith("0.873 (267/306)")
    assert measured["McNemar p"] == "8.1e-16 (87 vs 11)"


def test_unpaired_questions_and_abstentions_are_counted_apart():
    frame = frame_of([(True, False), (False, False), (True, True)])
    frame = frame[~((frame["params.question_id"] == "q2") & (frame["params.condition"] == "full"))]
    found = scoring.findings(frame)
    chroma = found["sources"]["chroma"]
    assert chroma["pairs"] == 2  # q2 has no full answer: not paired
    assert chroma["abstentions"]["full"] == {"scored": 2, "wrong": 2, "abstained": 1,
                                             "answered_wrong": 1}
    assert any("wrong of 2: 1 abstained, 1 answered wrongly" in line for line in found["lines"])


def test_the_gaps_interval_is_the_same_in_any_order_of_the_rows():
    """Chroma's 306 pairs in the file's order, shuffled three ways, and with other ids: one
    interval (the differences are resampled in a canonical order), the published one."""
    import random

    pairs = [(True, True)] * 180 + [(True, False)] * 87 + [(False, True)] * 11 + \
        [(False, False)] * 28
    intervals = set()
    for seed in range(3):
        shuffled = list(pairs)
        random.Random(seed).shuffle(shuffled)
        frame = frame_of(shuffled)
        if seed == 2:  # other ids: another order of the pivot's rows
            frame["params.question_id"] = "z" + frame["params.question_id"].str[::-1]
        intervals.add(tuple(scoring.findings(frame.sample(frac=1, random_state=seed))
                            ["sources"]["chroma"]["gap_ci"]))
    assert len(intervals) == 1
    low, high = intervals.pop()
    assert f"+0.248 [{low:+.3f}, {high:+.3f}]" == \
        published.TABLE.rows[0][1]["gap (focused - full)"] == "+0.248 [+0.193, +0.307]"
