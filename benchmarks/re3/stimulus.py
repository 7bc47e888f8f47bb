"""The prompt a configuration sends: its pattern of A and B, then the answer format once.

The layout is RE2's: ``Q: <assembled>``, a blank line, the answer-format instruction, a blank
line, ``A:`` (with "Let's think step by step." under ``--re3-cot``). The instruction is not
part of A: repeating or re-tokenizing it would garble ``\\boxed{}`` and the letter format,
and RE2 states it once. The wording is ours, with the originals' content: RE2's GSM
instruction (``\\boxed{}``) and Leviathan et al.'s one-letter MMLU reply.
"""

from __future__ import annotations

import dataclasses

from .items import Item
from .patterns import assemble
from .transforms import NONE, transform

INSTRUCTIONS = {
    "gsm8k": "Give your final answer as a single number, written as \\boxed{answer}, at the "
             "end of your response.",
    "mmlu": "Reply with one letter (A, B, C or D) in the form: The answer is <LETTER>.",
    "niah": "Reply with the secret number only.",
}
THOUGHT_CUE = "Let's think step by step."


@dataclasses.dataclass(frozen=True)
class Prompt:
    prompt_a: str
    prompt_b: str  # "" when the pattern has no B
    assembled: str  # the pattern of A and B with separators
    text: str  # the whole message sent to the model


def build(item: Item, pattern: str, strategy: str, separator: str, cot: bool = False) -> Prompt:
    prompt_b = transform(strategy if "B" in pattern else NONE, item.prompt_a, item.item_id)
    assembled = assemble(pattern, item.prompt_a, prompt_b, separator)
    instruction = INSTRUCTIONS[item.benchmark.split("_")[0]]
    answer = f"A: {THOUGHT_CUE}" if cot else "A:"
    text = f"Q: {assembled}\n\n{instruction}\n\n{answer}"
    return Prompt(item.prompt_a, prompt_b, assembled, text)
