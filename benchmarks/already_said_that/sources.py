"""Reading the data: the original's word lists, WordNet, the four distractor files.

Everything goes through the data registry (``fixtures.data``, sha256-checked); nothing
third-party is kept in the repository.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from benchmarks.texts.wordnet import wordnet_vocabulary
from fixtures.data.registry import data_file

from . import stimulus

ORIGINAL_WORD_LISTS = "openai_evals/already_said_that_500_100.jsonl"
DISTRACTOR_FILES = {
    "which_is_heavier": "openai_evals/which_is_heavier.jsonl",
    "first_letters": "openai_evals/first-letters.samples.jsonl",
    "ambiguous_sentences": "openai_evals/ambiguous-sentences.samples.jsonl",
    "reverse_sort_words_eng": "openai_evals/reverse-sort-words-eng.samples.jsonl",
}


def read_jsonl(path: Path) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number + 1}: not JSON ({error.msg})") from None
    return rows


@functools.lru_cache(maxsize=None)
def original_word_lists() -> tuple[tuple[str, ...], ...]:
    """The original's 500 lists of 100 WordNet words, in file order."""
    return tuple(tuple(row["words"]) for row in read_jsonl(data_file(ORIGINAL_WORD_LISTS)))


def word_list(source: str, seed: int, index: int, size: int) -> list[str]:
    if source == "original":
        return list(original_word_lists()[index])
    return stimulus.generated_word_list(wordnet_vocabulary(), seed, index, size)


@functools.lru_cache(maxsize=None)
def distractor_rows(variant: str) -> tuple[dict, ...]:
    if variant == "distractorless":
        return ()
    return tuple(read_jsonl(data_file(DISTRACTOR_FILES[variant])))
