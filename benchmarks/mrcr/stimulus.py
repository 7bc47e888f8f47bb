"""A sample's row, from either source, and the chat messages sent for it.

``prepare`` runs in the engine's builder thread (it reads the corpus or the parquet files
and counts tokens): collection only names the samples.
"""

from __future__ import annotations

import dataclasses
import functools

from . import generate, original, passages
from .generate import Row
from .grid import MrcrSample


@dataclasses.dataclass(frozen=True)
class Stimulus:
    row: Row | None  # None: skipped (see ``skip``)
    size: int  # o200k tokens of the message contents plus the answer: what bins the row
    prompt_tokens: int  # o200k tokens of the message contents
    details: dict
    skip: str | None = None  # why there is no such row (the original has fewer in the bin)


@functools.lru_cache(maxsize=1 << 16)
def o200k_count(text: str) -> int:
    """MRCR's bins are defined in o200k, whatever unit the run uses. Remembered: a writing's
    request is counted by every sample that draws its key (70,000 counts of 300 samples)."""
    from fixtures.tokens.tokenizer import o200k

    return o200k().count(text)


def prepare(sample: MrcrSample, original_dir: str | None) -> Stimulus:
    count = o200k_count
    if sample.source == "generated":
        built = generate.build(passages.pool(), sample.needles, sample.bin_low,
                               sample.bin_high, generate.sample_seed(
                                   sample.seed, sample.needles, sample.bin, sample.index),
                               count, sample.max_passage)
        return Stimulus(built.row, built.size, built.prompt_tokens, built.details)
    rows = original.rows(sample.needles, original_dir)
    index = rows.nth_in_bin(sample.bin_of(), sample.index)
    if index is None:
        found = rows.count_in_bin(sample.bin_of())
        return Stimulus(None, 0, 0, {},
                        skip=f"openai/mrcr has {found} {sample.needles}-needle rows in the "
                             f"{sample.bin} bin, not {sample.index + 1}")
    fields = rows.row(index)
    row = Row(prompt=fields["prompt"], answer=fields["answer"],
              random_string_to_prepend=fields["random_string_to_prepend"],
              n_needles=int(fields["n_needles"]),
              desired_msg_index=int(fields["desired_msg_index"]),
              total_messages=int(fields["total_messages"]), n_chars=int(fields["n_chars"]))
    size = rows.size(index)
    details = {"row": index, "date_added": fields.get("date_added"),
               "revision": None if original_dir else original.REVISION}
    return Stimulus(row, size, size - count(row.answer), details)


def messages(row: Row, merge_user_messages: bool = False) -> list[dict[str, str]]:
    """The conversation as chat messages, unchanged: the preamble and the first request are
    two consecutive user messages, as in the original. ``merge_user_messages`` joins them
    (a blank line between) for endpoints whose chat template rejects that."""
    found = row.messages()
    if merge_user_messages and len(found) > 1 and found[0]["role"] == found[1]["role"] == "user":
        merged = {"role": "user", "content": f"{found[0]['content']}\n\n{found[1]['content']}"}
        return [merged] + found[2:]
    return found
