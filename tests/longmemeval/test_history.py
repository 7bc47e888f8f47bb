"""The generated histories, the conditions and LongMemEval's reader prompt."""

from __future__ import annotations

import re

import pytest

from benchmarks.longmemeval import generate, history
from benchmarks.longmemeval.scoring import names_answer
from fixtures.tokens.tokenizer import o200k

COUNT = o200k().count


@pytest.fixture(scope="module")
def questions():
    return [generate.generate(i, 0, "test") for i in range(9)]


def test_the_generator_is_seeded_and_in_longmemevals_layout(questions):
    again = [generate.generate(i, 0, "test") for i in range(9)]
    assert again == questions
    assert generate.generate(0, 1, "test") != questions[0]
    for question in questions:
        assert question.question_type == generate.TYPES[int(question.question_id[-4:]) % 3]
        assert len(question.sessions) == len(question.dates) == len(question.session_ids)
        assert list(question.dates) == sorted(question.dates)
        assert all(re.fullmatch(r"\d{4}/\d\d/\d\d \(\w{3}\) \d\d:\d\d", d)
                   for d in question.dates)
        told = [t for s in question.sessions for t in s if t.get("has_answer")]
        evidence = [question.sessions[i] for i in question.evidence_positions()]
        assert len(told) == len(evidence) >= 2
        assert all(any(t.get("has_answer") for t in s) for s in evidence)
        # no filler turn holds a number: only the evidence does
        filler = [t["content"] for s in question.sessions for t in s if not t.get("has_answer")]
        assert not any(re.search(r"\d", text) for text in filler)


def test_the_answers_follow_from_the_evidence(questions):
    for question in questions:
        told = [t["content"] for s in question.sessions for t in s if t.get("has_answer")]
        if question.question_type == "knowledge-update":
            assert question.answer in told[1] and question.answer not in told[0]
        elif question.question_type == "multi-session":
            assert question.answer == str(len(told))
        else:
            first, second = (question.dates[i][:10] for i in question.evidence_positions())
            import datetime
            days = (datetime.date(*map(int, second.split("/")))
                    - datetime.date(*map(int, first.split("/")))).days
            assert question.answer == f"{days} days"
        assert names_answer(f"The answer is {question.answer}.", question.accepted)
        assert not names_answer("I don't know.", question.accepted)


def test_conditions_nest_and_keep_the_evidence_in_date_order(questions):
    question = questions[1]
    focused, _ = history.positions_for(question, "focused", None, COUNT, 0)
    full, _ = history.positions_for(question, "full", None, COUNT, 0)
    shorter, tokens_a = history.padded(question, 700, COUNT, 0)
    longer, tokens_b = history.padded(question, 1100, COUNT, 0)
    assert set(focused) <= set(shorter) <= set(longer) <= set(full)
    assert tokens_a <= 700 and tokens_b <= 1100
    assert tokens_a == COUNT(history.prompt(question, shorter))
    text = history.prompt(question, longer)
    shown = re.findall(r"Session Date: (.*)\n", text)
    assert shown == sorted(shown) and len(shown) == len(longer)
    for position in focused:
        told = next(t["content"] for t in question.sessions[position] if t.get("has_answer"))
        assert told in text
    with pytest.raises(history.TooShort, match="its evidence alone is"):
        history.padded(question, 100, COUNT, 0)


def test_the_reader_prompt_is_longmemevals():
    question = history.Question("q", "multi-session", "How many?", "2", "2023/05/20 (Sat) 10:00",
                                ("a", "b"), ("2023/05/02 (Tue) 09:00", "2023/05/01 (Mon) 08:00"),
                                (({"role": "user", "content": " hi "},),
                                 ({"role": "assistant", "content": "yo"},)), ("a",))
    assert history.prompt(question, [0, 1]) == (
        "I will give you several history chats between you and a user. Please answer the "
        "question based on the relevant chat history.\n\n\nHistory Chats:\n\n"
        "\n### Session 1:\nSession Date: 2023/05/01 (Mon) 08:00\nSession Content:\n"
        "\n\nassistant: yo\n"
        "\n### Session 2:\nSession Date: 2023/05/02 (Tue) 09:00\nSession Content:\n"
        "\n\nuser: hi\n"
        "\n\nCurrent Date: 2023/05/20 (Sat) 10:00\nQuestion: How many?\nAnswer:")


def test_the_focused_history_built_alone_is_the_full_ones_evidence():
    for index in range(3):
        whole = generate.generate(index, 3, "full")
        alone = generate.generate(index, 3, "full", evidence_only=True)
        assert history.prompt(alone, range(len(alone.sessions))) == \
            history.prompt(whole, whole.evidence_positions())


@pytest.mark.parametrize(("tokens", "tier"), [(1, 256), (256, 256), (257, 512), (8192, 8192),
                                              (113_000, 131_072)])
def test_length_tiers_are_powers_of_two(tokens, tier):
    assert history.length_tier(tokens) == tier
