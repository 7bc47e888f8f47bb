"""The stimulus: a sequence of one repeated word holding one unique word, and the prompt."""

from __future__ import annotations

from .grid import RepeatedWordsSample

PROMPT = "Simply replicate the following text, output the exact same text: {sequence}"


def gold_text(sample: RepeatedWordsSample) -> str:
    words = [sample.common] * sample.n
    words[sample.position] = sample.modified
    return " ".join(words)


def prompt(sample: RepeatedWordsSample) -> str:
    return PROMPT.format(sequence=gold_text(sample))
