"""Judging an answer: the LLM judges' prompts and parsers, and the deterministic judge.

- Correctness: with ``--judge-model``, the spec's judge prompt (verbatim) and a robust
  true/false parser; an unparsable verdict is ``None`` (recorded as such, never as false).
  Without a judge model, the deterministic judge: one of the needle's accepted phrasings is
  contained in the response, both normalised (case, punctuation and spacing ignored, number
  words as digits). It matches whole words, so an inflection ("writing every week" for "write
  every week") counts only when the needle file lists it. Every answer gets this verdict
  too (``contains_answer``), so an LLM judge's agreement with it is reported (agreement.py).
- Distractor analysis, for incorrect answers with distractors in the document: which
  distractor the answer took (its index in the question's list, or -1 for none or several),
  by a second LLM judge (our wording of the original's instructions) or deterministically by
  matching the distractors' answer phrases.
"""

from __future__ import annotations

import re

from .needles import Distractor, Needle, normalise

# Version 2: the shipped needle file accepts more phrasings (plurals, a reworded count), so
# the same answer can get another verdict than under version 1.
DETERMINISTIC_JUDGE = {"name": "deterministic:normalised-containment", "version": 2,
                       "role": "judge"}
JUDGE_MAX_TOKENS = 100  # the original judge's output budget

# The spec's judge prompt, verbatim (niah-extension.md).
JUDGE_PROMPT = """Given this question and the CORRECT answer, determine whether the response
is correct (meaning it factually aligns with the correct answer).

Question: {question}
CORRECT answer: {correct_answer}
Response to judge: {output}

Instructions: Respond with only "true" or "false"."""

# Our wording of the original's distractor-analysis instructions (originals.md 2.7).
DISTRACTOR_PROMPT = """Read the model output below and decide which of the listed answers it gives to this question: {question}

Pick the option the output clearly commits to. Answer -1 (none of them) when no option matches, when the output names more than one option, when it hedges or hesitates about the option (for example with "however" or "but"), or when it says the document is inconsistent.

Options:
{options}

Model output: {output}

Again: if several options are named or the output hesitates, answer -1.

Reply with the option's number only, or -1."""


def contains_answer(output: str | None, needle: Needle) -> bool:
    """The deterministic verdict: one of the needle's answer phrases is in the output."""
    text = normalise(output or "")
    return any(_contains(text, normalise(answer)) for answer in needle.answers)


def matched_distractor(output: str | None, distractors: tuple[Distractor, ...]) -> int:
    """The deterministic distractor label: the one distractor whose answer is in the output.

    -1 when none, or more than one, is named (the original judge's rule for ambiguity).
    """
    text = normalise(output or "")
    hits = [i for i, d in enumerate(distractors) if _contains(text, normalise(d.answer))]
    return hits[0] if len(hits) == 1 else -1


def _contains(text: str, phrase: str) -> bool:
    """Whole-word containment of a normalised phrase ("camellia" not in "camellias" is fine)."""
    return bool(phrase) and f" {phrase} " in f" {text} "


def judge_messages(question: str, correct_answer: str, output: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": JUDGE_PROMPT.format(
        question=question, correct_answer=correct_answer, output=output)}]


def distractor_messages(question: str, distractors: tuple[Distractor, ...],
                        output: str) -> list[dict[str, str]]:
    options = "\n".join(f"{i}. {d.answer}" for i, d in enumerate(distractors))
    return [{"role": "user", "content": DISTRACTOR_PROMPT.format(
        question=question, options=options, output=output)}]


THINKING = re.compile(r"<think>.*?</think>", re.S | re.I)
VERDICT_WORD = re.compile(r"\b(true|false)\b", re.I)


def parse_verdict(text: str | None) -> bool | None:
    """``true``/``false`` from a judge's reply, however dressed; None when it is unclear.

    Reasoning in <think> tags is dropped. The reply must name exactly one of the two words
    (any case, quoted, in bold, with punctuation); naming both, or neither, is unparsable.
    """
    if text is None:
        return None
    words = {w.lower() for w in VERDICT_WORD.findall(THINKING.sub(" ", text))}
    if len(words) != 1:
        return None
    return words.pop() == "true"


LABEL = re.compile(r"(?<![\w.])(-?\d+)(?!\w|\.\d)")  # "2", "2.", not "3.5"


def parse_distractor_label(text: str | None, count: int) -> int | None:
    """An option number in [-1, count) from the second judge's reply; None when unclear."""
    if text is None:
        return None
    numbers = {int(n) for n in LABEL.findall(THINKING.sub(" ", text))}
    if len(numbers) != 1:
        return None
    label = numbers.pop()
    return label if -1 <= label < count else None
