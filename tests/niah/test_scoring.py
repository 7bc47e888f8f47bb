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


# -- issue 12, the judge: several accepted phrasings per answer ----------------------------
PG_QUESTION = "What was the best writing advice I got from my college classmate?"
PG_NEEDLE = ("I think the best writing tip I received from my college classmate was to write "
             "every week.")


def pg_needle(answers):
    return needles.Needle("pg", PG_NEEDLE, tuple(answers),
                          needles.lexical_overlap(PG_QUESTION, PG_NEEDLE))


def test_an_inflected_answer_needs_its_phrasing_in_the_needle_file():
    output = "The best advice was writing every week."
    assert not scoring.contains_answer(output, pg_needle(["write every week"]))  # the miss
    accepted = pg_needle(["write every week", "writing every week"])
    assert scoring.contains_answer(output, accepted)
    assert scoring.contains_answer("To write every week.", accepted)
    assert not scoring.contains_answer("To write everyday.", accepted)  # distractor 0


@pytest.mark.parametrize("output", ["Christmas roses, he said.", "The Christmas rose."])
def test_the_shipped_set_accepts_the_plural(output):
    flower = next(q for q in needles.load() if q.id == "flower")
    assert scoring.contains_answer(output, flower.needles[0])
    assert not scoring.contains_answer("Winter roses.", flower.needles[0])


def test_the_shipped_set_accepts_a_reworded_count():
    assert scoring.contains_answer("He asked 3 buttons of copper.", NEEDLE)
