"""The card's prompt, and the sweep: the same question with other document sets around it.

**The prompt** is the dataset card's template byte for byte (huggingface.co/datasets/
ArtificialAnalysis/AA-LCR, README "Prompt Template", revision bdae010): the documents joined
by a blank line, each as ``BEGIN DOCUMENT {i}:\\n{text}\\nEND DOCUMENT {i}`` numbered from 1
in the order of ``data_source_filenames``, inside ``BEGIN INPUT DOCUMENTS`` ... ``END INPUT
DOCUMENTS``, then the instruction and the question between ``START QUESTION`` and ``END
QUESTION``, with the template's closing new line. One user message, nothing else.

**The sweep at a length L** (tokens in the run's unit) adds whole documents of the other
document sets until one more would pass L: they are taken in a seeded order (the same at
every L for a question), skipping any that would not fit (then, short of the tolerance, a
taken one is swapped for a larger one left over where that fits), and each is placed at a seeded
slot before, between or after the question's own documents, which keep their order. The
prompt is the card's template over the lot, renumbered from 1, so only the amount of
irrelevant text grows. It never passes L and falls short of it by at most ``FILL_SHARE``
(else the sample is skipped, saying how far the other sets reach).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Callable, Sequence

from .dataset import Document, Question

PROMPT_TEMPLATE = """BEGIN INPUT DOCUMENTS

{documents_text}

END INPUT DOCUMENTS

Answer the following question using the input documents provided above.

START QUESTION

{question}

END QUESTION
"""
# A filled prompt holds at least this share of its length: the sweep's tolerance.
FILL_SHARE = 0.95


def document_block(number: int, text: str) -> str:
    return f"BEGIN DOCUMENT {number}:\n{text}\nEND DOCUMENT {number}"


def prompt(texts: Sequence[str], question: str) -> str:
    """The card's template over ``texts`` (in order) and the question."""
    documents_text = "\n\n".join(document_block(i + 1, text) for i, text in enumerate(texts))
    return PROMPT_TEMPLATE.format(documents_text=documents_text, question=question)


class Skip(ValueError):
    """The sample cannot be built at its length (the run skips it with this reason)."""


@dataclasses.dataclass(frozen=True)
class Built:
    prompt: str
    tokens: int  # in the run's unit
    documents: tuple[tuple[str, str, str], ...]  # (category, set id, filename), prompt order
    own_positions: tuple[int, ...]  # where the question's own documents sit, 0-based
    filler_tokens: int  # tokens of the other sets' documents (with their markers)


def native(question: Question, own: Sequence[Document],
           count: Callable[[str], int]) -> Built:
    text = prompt([d.text for d in own], question.question)
    return Built(text, count(text), tuple((*d.document_set, d.filename) for d in own),
                 tuple(range(len(own))), 0)


def filler_order(question: Question, others: Sequence[Document], seed: int) -> list[Document]:
    """The other sets' documents in the order they are offered, the same at every length."""
    order = list(others)
    random.Random(f"aa_lcr:{seed}:{question.question_id}:order").shuffle(order)
    return order


def slot(question: Question, document: Document, own: int, seed: int) -> int:
    """Where a filler document goes: before own document ``slot`` (``own``: after the last)."""
    key = f"aa_lcr:{seed}:{question.question_id}:{'/'.join(document.document_set)}/" \
          f"{document.filename}"
    return random.Random(key).randint(0, own)


def arrange(question: Question, own: Sequence[Document], taken: Sequence[Document],
            seed: int) -> list[tuple[Document, bool]]:
    """(document, is the question's own) in prompt order: the own documents in their order,
    each filler in its slot, fillers of one slot in the order they were taken."""
    slots: dict[int, list[Document]] = {}
    for document in taken:
        slots.setdefault(slot(question, document, len(own), seed), []).append(document)
    arranged = []
    for index in range(len(own) + 1):
        arranged += [(d, False) for d in slots.get(index, ())]
        if index < len(own):
            arranged.append((own[index], True))
    return arranged


def swept(question: Question, own: Sequence[Document], others: Sequence[Document],
          length: int, seed: int, count: Callable[[str], int]) -> Built:
    """The question at ``length`` tokens (see the module doc). ``count`` counts in the run's
    unit; each filler is counted once with its markers, then the whole prompt, trimmed of
    its last-taken filler until it fits."""
    base = native(question, own, count)
    if base.tokens > length:
        raise Skip(f"its own documents make {base.tokens} tokens, more than {length}")
    # a document's markers and blank line cost the same few tokens whatever its number
    overhead = count(document_block(10, "") + "\n\n")
    total, taken, left = base.tokens, [], []
    sizes = {}
    for document in filler_order(question, others, seed):
        sizes[id(document)] = size = count(document.text) + overhead
        if total + size <= length:
            taken.append(document)
            total += size
        else:
            left.append(document)
    # short of the tolerance: swap a taken filler for a larger one left over, where it fits
    for document in left:
        if total >= FILL_SHARE * length:
            break
        room = length - total
        best = max(((sizes[id(document)] - sizes[id(t)], i) for i, t in enumerate(taken)
                    if 0 < sizes[id(document)] - sizes[id(t)] <= room), default=None)
        if best is not None:
            total += best[0]
            taken[best[1]] = document
    while True:
        arranged = arrange(question, own, taken, seed)
        text = prompt([d.text for d, _ in arranged], question.question)
        tokens = count(text)
        if tokens <= length or not taken:
            break
        taken.pop()
    if tokens < FILL_SHARE * length:
        raise Skip(f"the other document sets fill it to {tokens} tokens, less than "
                   f"{FILL_SHARE:.0%} of {length}")
    return Built(text, tokens, tuple((*d.document_set, d.filename) for d, _ in arranged),
                 tuple(i for i, (_, mine) in enumerate(arranged) if mine),
                 tokens - base.tokens)
