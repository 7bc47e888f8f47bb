"""The NIAH judges: verdict parsing, distractor labels, the deterministic judge."""

import pytest

from benchmarks.niah import needles, scoring

QUESTION = needles.load()[0]
NEEDLE = QUESTION.needles[0]


@pytest.mark.parametrize("reply, verdict", [
    ("true", True), ("false", False), ("True.", True), ("FALSE", False), ("**true**", True),
    ('"false"', False), ("  true\n", True), ("The answer is: true", True),
    ("<think>could be false</think>\ntrue", True),
    ("true or false", None), ("", None), ("yes", None), (None, None), ("untrue", None),
])
def test_parse_verdict(reply, verdict):
    assert scoring.parse_verdict(reply) is verdict


@pytest.mark.parametrize("reply, label", [
    ("2", 2), ("-1", -1), ("Option 3.", 3), ("0. two copper pennies", 0), (" 1\n", 1),
    ("7", None), ("-2", None), ("1 or 2", None), ("none", None), ("", None), (None, None),
    ("3.5", None),
])
def test_parse_distractor_label(reply, label):
    assert scoring.parse_distractor_label(reply, 4) == label


@pytest.mark.parametrize("output, correct", [
    ("He took Three Copper Buttons.", True),
    ("three-copper buttons", True),
    ("a payment of 3 copper buttons", True),
    ("Old Hendrick accepted three copper buttons, dropped in a tin.", True),
    ("He asked for two copper pennies.", False),
    ("three copper button", False),
    ("", False), (None, False),
])
def test_deterministic_judge(output, correct):
    assert scoring.contains_answer(output, NEEDLE) is correct


@pytest.mark.parametrize("output, label", [
    ("The bridge-keeper wanted two copper pennies.", 0),
    ("A single brass key!", 3),
    ("Either a basket of pears or a single brass key.", -1),
    ("Ten pounds.", -1),
])
def test_deterministic_distractor_label(output, label):
    assert scoring.matched_distractor(output, QUESTION.distractors) == label


def test_judge_prompts_carry_their_inputs():
    [message] = scoring.judge_messages("Q?", "The needle.", "An answer")
    assert message["content"].startswith("Given this question and the CORRECT answer")
    assert "Question: Q?\nCORRECT answer: The needle.\nResponse to judge: An answer" in \
        message["content"]
    [message] = scoring.distractor_messages("Q?", QUESTION.distractors, "out")
    assert "0. two copper pennies\n1. a basket of pears" in message["content"]
