"""A sample's prompt: Chroma's row unchanged, or a history in LongMemEval's reader prompt.

Chroma's focused and full prompts are sent as they are, as one user message. LongMemEval's
questions and the generated ones are shown through LongMemEval's reader template at the
sample's condition (history.py). The generated source's ``full`` is its history padded to
``FULL_TOKENS`` (every session, in practice: the generator makes about 1,200 tokens at test
scale and 112k at full scale), so that ``--plan`` can state its size without building it.
"""

from __future__ import annotations

import dataclasses

from . import chroma, generate, history, longmemeval_s

FULL_TOKENS = {"test": 2048, "full": 120 * 1024}  # the generated histories' bound


@dataclasses.dataclass(frozen=True)
class Built:
    prompt: str
    tokens: int  # in the run's unit
    question: str
    answer: str
    accepted: tuple[str, ...]  # what the deterministic judge accepts (generated only)
    sessions: int | None  # sessions shown (None: Chroma's prompt, as given)
    evidence_sessions: int | None


class Skip(Exception):
    """The sample cannot be built at its condition (its evidence exceeds the length, or the
    whole history fits it: the same prompt as full)."""


def question_of(sample, settings) -> history.Question:
    if sample.source == "generated":  # focused: the evidence sessions alone are built
        return generate.generate(sample.index, sample.seed, settings.scale,
                                 evidence_only=sample.condition == "focused")
    found = longmemeval_s.questions(settings.files[0])
    matching = [q for q in found if q.question_id == sample.question_id]
    return matching[0]


def build(sample, settings, count) -> Built:
    """The prompt of ``sample``, counted with ``count`` (the run's unit)."""
    if sample.source == "chroma":
        row = chroma.rows(settings.files)[sample.index]
        text = row.prompt(sample.condition)
        return Built(text, count(text), row.question, row.answer, (), None, None)
    question = question_of(sample, settings)
    limit = sample.target
    if sample.source == "generated" and sample.condition == "full":
        limit = FULL_TOKENS[settings.scale]
    if limit is None:
        positions, tokens = history.positions_for(question, sample.condition, None, count,
                                                  sample.seed)
    else:
        try:
            positions, tokens = history.padded(question, limit, count, sample.seed)
        except history.TooShort as reason:
            raise Skip(str(reason)) from None
        if sample.condition == "padded" and len(positions) == len(question.sessions):
            raise Skip(f"the whole history fits in {limit} tokens: the same prompt as full")
    text = history.prompt(question, positions)
    return Built(text, tokens if tokens is not None else count(text), question.question,
                 question.answer, question.accepted, len(positions),
                 len(question.evidence_positions()))


def planned_size(sample, settings) -> int | None:
    """The prompt's size where the grid fixes it (an upper bound), without building it:
    a padded length, the generated full bound, or Chroma's own count (o200k). None: build."""
    if sample.condition == "padded":
        return sample.target
    if sample.source == "generated" and sample.condition == "full":
        return FULL_TOKENS[settings.scale]
    if sample.source == "chroma":
        return chroma.rows(settings.files)[sample.index].count(sample.condition)
    return None
