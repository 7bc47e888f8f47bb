"""A question in LongMemEval's format, its history at a length, and the reader's prompt.

A question (``Question``) holds what LongMemEval's files hold: its id, type, text, answer and
date, and its dated sessions (lists of ``{"role", "content"}`` turns), some of them evidence
(``answer_session_ids``). From it:

- **focused**: the evidence sessions alone;
- **padded at L**: the evidence plus as many of the question's other sessions as fit in L
  tokens, taken in a seeded order that is the same at every L (so a longer history holds
  every shorter one), shown in date order with the evidence at its place;
- **full**: every session.

The prompt is LongMemEval's reader prompt without retrieval, in its natural-language history
format (``src/generation/run_generation.py``): each session as ``\\n### Session {i}:\\nSession
Date: {date}\\nSession Content:\\n`` followed by ``\\n\\n{role}: {content}`` per turn, sessions
sorted by date, in the template below.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Callable, Sequence

# LongMemEval's reader template (no retrieval, no chain of thought), verbatim.
READER_TEMPLATE = ("I will give you several history chats between you and a user. Please "
                   "answer the question based on the relevant chat history.\n\n\nHistory "
                   "Chats:\n\n{history}\n\nCurrent Date: {date}\nQuestion: {question}\nAnswer:")
CONDITIONS = ("focused", "padded", "full")


@dataclasses.dataclass(frozen=True)
class Question:
    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: str
    session_ids: tuple[str, ...]
    dates: tuple[str, ...]
    sessions: tuple[tuple[dict, ...], ...]
    evidence_ids: tuple[str, ...]
    # contextrot's generated questions: what the deterministic judge accepts
    accepted: tuple[str, ...] = ()

    @property
    def abstention(self) -> bool:
        """LongMemEval's unanswerable questions: their id ends with ``_abs``."""
        return self.question_id.endswith("_abs")

    def evidence_positions(self) -> list[int]:
        wanted = set(self.evidence_ids)
        return [i for i, sid in enumerate(self.session_ids) if sid in wanted]

    def other_positions(self) -> list[int]:
        evidence = set(self.evidence_positions())
        return [i for i in range(len(self.sessions)) if i not in evidence]


def session_text(number: int, date: str, turns: Sequence[dict]) -> str:
    content = "".join(f"\n\n{turn['role']}: {str(turn['content']).strip()}" for turn in turns)
    return f"\n### Session {number}:\nSession Date: {date}\nSession Content:\n{content}\n"


def prompt(question: Question, positions: Sequence[int]) -> str:
    """The reader's prompt over the sessions at ``positions``, sorted by date (a stable sort:
    sessions of one date keep their order)."""
    chosen = sorted(positions, key=lambda i: (question.dates[i], i))
    history = "".join(session_text(n, question.dates[i], question.sessions[i])
                      for n, i in enumerate(chosen, 1))
    return READER_TEMPLATE.format(history=history, date=question.question_date,
                                  question=question.question)


def padding_order(question: Question, seed: int) -> list[int]:
    """The other sessions in the order they join the evidence as the length grows."""
    others = question.other_positions()
    random.Random(f"{seed}:{question.question_id}").shuffle(others)
    return others


class TooShort(ValueError):
    """The evidence alone does not fit the length."""


def padded(question: Question, limit: int, count: Callable[[str], int],
           seed: int) -> tuple[list[int], int]:
    """(positions, tokens): the evidence and the longest prefix of the padding order whose
    prompt fits in ``limit`` tokens. Each session is counted once; the prompt is counted
    whole at the end (a session's number changes its count by a token or so) and trimmed
    until it fits."""
    chosen = question.evidence_positions()
    base = count(prompt(question, chosen))
    if base > limit:
        raise TooShort(f"its evidence alone is {base} tokens, more than {limit}")
    order = padding_order(question, seed)
    total, taken = base, 0
    for position in order:
        size = count(session_text(len(chosen) + taken + 1, question.dates[position],
                                  question.sessions[position]))
        if total + size > limit:
            break
        total, taken = total + size, taken + 1
    while True:
        positions = chosen + order[:taken]
        tokens = count(prompt(question, positions))
        if tokens <= limit or taken == 0:
            return positions, tokens
        taken -= 1


def positions_for(question: Question, condition: str, limit: int | None,
                  count: Callable[[str], int], seed: int) -> tuple[list[int], int | None]:
    """The sessions of a condition, and the prompt's tokens where padding counted them."""
    if condition == "focused":
        return question.evidence_positions(), None
    if condition == "full":
        return list(range(len(question.sessions))), None
    return padded(question, limit, count, seed)


def length_tier(tokens: int) -> int:
    """The length axis: a prompt's tokens rounded up to a power of two, 256 at least (an
    8k tier holds prompts of 4,097 to 8,192 tokens)."""
    tier = 256
    while tier < tokens:
        tier *= 2
    return tier
