"""The rule before any judge, the card's equality checker byte for byte, its verdicts."""

from __future__ import annotations

import pytest

from benchmarks.aa_lcr import scoring

# The dataset card's "Scoring Approach" block (README at revision bdae010), its closing blank
# line kept
CARD_CHECKER = """Assess whether the following CANDIDATE ANSWER is CORRECT or INCORRECT.
For the CANDIDATE ANSWER to be correct, it must be consistent with the OFFICIAL ANSWER.

The question, for reference only: {question}
The OFFICIAL ANSWER: {official_answer}
CANDIDATE ANSWER TO ASSESS: {candidate_answer}

Reply only with CORRECT or INCORRECT.

"""


def test_the_judge_prompt_is_the_cards_checker_byte_for_byte():
    assert scoring.JUDGE_PROMPT == CARD_CHECKER
    assert scoring.judge_messages("Q?", "A", "B") == [{"role": "user", "content": (
        CARD_CHECKER.format(question="Q?", official_answer="A", candidate_answer="B"))}]


@pytest.mark.parametrize("answer, rule", [
    ("", "empty"), ("  \n\t", "empty"), (None, "empty"),
    ("I cannot answer this from the documents.", "declined"),
    ("I'm sorry, but the documents are unclear.", "declined"),
    ("The provided documents do not contain the figure.", "declined"),
    ("Equinix, $901 million", None), ("I cannot see why not: 12 million", None),
    ("12 million dollars; I do not know more", None)])
def test_empty_and_declining_answers_are_incorrect_by_rule(answer, rule):
    assert scoring.rule(answer) == rule


@pytest.mark.parametrize("reply, verdict", [
    ("CORRECT", True), ("INCORRECT", False), (" correct.\n", True), ("**INCORRECT**", False),
    ("CORRECT or INCORRECT", None), ("Maybe", None), ("", None), (None, None)])
def test_a_verdict_names_exactly_one_word(reply, verdict):
    assert scoring.parse_verdict(reply) is verdict


def test_the_miniatures_check_wants_every_term_of_the_answer():
    official = "18 million dollars; Q2 was higher"
    assert scoring.names_answer("Q2 was higher, by 18 million dollars.", official)
    assert not scoring.names_answer("Q2 was higher, by 81 million dollars.", official)
