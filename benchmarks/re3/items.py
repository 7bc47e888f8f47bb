"""The benchmark items: GSM8K, a mixed MMLU subset and synthetic secret-number haystacks.

Every item has a stable id (``gsm8k_0042``, ``mmlu_anatomy_0117``, ``niah_4k_003``) that is the
same in every phase, so two configurations are compared on the same items (McNemar) and B1's
seed (the id) makes B identical everywhere. A subset of n items is always the first n of a
larger subset, so a test-scale run is a prefix of the full one.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import random

from fixtures.data.registry import REGISTRY, data_file

from .scoring import LETTERS, gsm8k_gold

GSM8K_FILE = "gsm8k/test.jsonl"
MMLU_PREFIX, MMLU_SUFFIX = "mmlu/test/", "_test.csv"
NIAH_LENGTHS = {"niah_1k": 1000, "niah_4k": 4000, "niah_8k": 8000}
NEEDLE = "The secret number is {number}."
NIAH_QUESTION = "What is the secret number in the text above?"


@dataclasses.dataclass(frozen=True)
class Item:
    benchmark: str
    item_id: str
    prompt_a: str  # the original prompt A (the instruction on answer format comes once, after)
    expected: str


# -- GSM8K: the first n test items ---------------------------------------------------------
@functools.lru_cache(maxsize=1)
def _gsm8k_rows() -> tuple[dict, ...]:
    with data_file(GSM8K_FILE).open(encoding="utf-8") as handle:
        return tuple(json.loads(line) for line in handle if line.strip())


def gsm8k_ids(count: int) -> list[str]:
    available = len(_gsm8k_rows())
    if count > available:
        raise ValueError(f"GSM8K test has {available} items, {count} were asked for")
    return [f"gsm8k_{index:04d}" for index in range(count)]


def gsm8k_item(item_id: str) -> Item:
    row = _gsm8k_rows()[int(item_id.rsplit("_", 1)[1])]
    return Item("gsm8k", item_id, row["question"].strip(), gsm8k_gold(row["answer"]))


# -- MMLU: a mix across subjects -----------------------------------------------------------
def mmlu_subjects() -> list[str]:
    return sorted(name[len(MMLU_PREFIX):-len(MMLU_SUFFIX)] for name in REGISTRY
                  if name.startswith(MMLU_PREFIX) and name.endswith(MMLU_SUFFIX))


@functools.lru_cache(maxsize=None)
def _mmlu_rows(subject: str) -> tuple[dict, ...]:
    with data_file(f"{MMLU_PREFIX}{subject}{MMLU_SUFFIX}").open(encoding="utf-8",
                                                                 newline="") as handle:
        return tuple(csv.DictReader(handle))


def mmlu_ids(count: int) -> list[str]:
    """Item k comes from the k-th subject of a seeded shuffle of the 57 (cycling), its row
    drawn by a generator seeded with the subject and the cycle, so no row is drawn twice."""
    subjects = mmlu_subjects()
    random.Random("re3-mmlu-subjects").shuffle(subjects)
    ids: list[str] = []
    for k in range(count):
        subject, cycle = subjects[k % len(subjects)], k // len(subjects)
        rows = list(range(len(_mmlu_rows(subject))))
        random.Random(f"re3-mmlu:{subject}").shuffle(rows)
        if cycle >= len(rows):
            raise ValueError(f"MMLU {subject} has only {len(rows)} test items")
        ids.append(f"mmlu_{subject}_{rows[cycle]:04d}")
    return ids


def mmlu_item(item_id: str) -> Item:
    subject, row_index = item_id[len("mmlu_"):].rsplit("_", 1)
    row = _mmlu_rows(subject)[int(row_index)]
    options = "\n".join(f"{letter}. {row[f'choice{i}'].strip()}"
                        for i, letter in enumerate(LETTERS))
    return Item("mmlu", item_id, f"{row['question'].strip()}\n{options}",
                LETTERS[int(row["answer"])])


# -- synthetic NIAH: "The secret number is X" in a Gutenberg haystack ----------------------
def niah_ids(benchmark: str, count: int) -> list[str]:
    return [f"{benchmark}_{index:03d}" for index in range(count)]


def niah_needle(item_id: str) -> tuple[str, int, int]:
    """(secret number, depth percent, haystack start), all drawn from the item id."""
    rng = random.Random(f"re3-niah:{item_id}")
    return str(rng.randrange(1_000_000, 10_000_000)), rng.randrange(0, 101), rng.randrange(2**31)


def niah_item(item_id: str, tokenizer) -> Item:
    # The NIAH experiment owns haystack construction (the Gutenberg corpus in document order
    # from a paragraph start, cut at a token budget; the needle at a sentence boundary); RE3
    # only reuses it. Imported here: only NIAH items need the corpus.
    from benchmarks.texts import haystack

    benchmark = item_id.rsplit("_", 1)[0]
    number, depth, start = niah_needle(item_id)
    needle = NEEDLE.format(number=number)
    budget = NIAH_LENGTHS[benchmark] - tokenizer.count(f"{needle} \n\n{NIAH_QUESTION}")
    context = haystack.insert_at_depth(haystack.sequential_haystack(tokenizer, budget, start),
                                       needle, depth)
    return Item(benchmark, item_id, f"{context}\n\n{NIAH_QUESTION}", number)


def item(item_id: str, tokenizer=None) -> Item:
    if item_id.startswith("gsm8k_"):
        return gsm8k_item(item_id)
    if item_id.startswith("mmlu_"):
        return mmlu_item(item_id)
    return niah_item(item_id, tokenizer)
