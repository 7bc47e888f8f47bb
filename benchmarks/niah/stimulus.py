"""The stimulus: a haystack of the target length holding distractors and the needle.

Token budget: the prompt's o200k length (template, haystack, distractors and needle) is the
sample's ``length``. The template's overhead and the insertions are counted first and the
haystack gets the rest, as in the original; the realised count is measured and stored.
Joined pieces can tokenize into a token or two more than their separate counts, so before the
needle is placed the longest prompt any depth can give is measured (the needle first, or the
needle-free prompt plus the needle's own count: the needle's joins inside the text never add
a token) and, when that exceeds the target, the haystack is cut by the excess and rebuilt.
The haystack and its distractors are then the same at every depth, and no prompt exceeds the
target.

Depth: the needle goes ``floor(tokens x depth / 100)`` o200k tokens into the haystack (with its
distractors), then back to a sentence boundary (haystack.place), and the realised depth is
recorded in the same tokens: a long sentence can make two depths one prompt, and the record
says so.
"""

from __future__ import annotations

import dataclasses
import functools
import random

from fixtures.tokens.counted import CountedText

from benchmarks.texts import haystack
from .grid import NiahSample
from .needles import Needle, Question

# The spec's template, verbatim (niah-extension.md), sent as one user message.
SPEC_TEMPLATE = """You are a helpful AI bot that answers questions for a user. Keep your response short and direct

<document_content>
{haystack_with_needle}
<document_content>

Here is the user question:
<question>
{retrieval_question}
<question>

Don't give information outside the document or repeat your findings.
Assistant: Here is the most relevant information in the documents:"""
# The original's f-string byte for byte (originals.md 2.5: 4-space indents, unclosed tags).
ORIGINAL_TEMPLATE = (
    "You are a helpful AI bot that answers questions for a user. Keep your response short "
    "and direct\n\n    <document_content>\n    {haystack_with_needle}\n    <document_content>"
    "\n\n    Here is the user question:\n    <question>\n    {retrieval_question}\n    "
    "<question>\n    \n    Don't give information outside the document or repeat your "
    "findings.\n    Assistant: Here is the most relevant information in the documents:\n    ")
# The spec's wording with the tags closed.
CLOSED_TEMPLATE = SPEC_TEMPLATE.replace(
    "{haystack_with_needle}\n<document_content>", "{haystack_with_needle}\n</document_content>"
).replace("{retrieval_question}\n<question>", "{retrieval_question}\n</question>")
TEMPLATES = {"spec": SPEC_TEMPLATE, "original": ORIGINAL_TEMPLATE, "closed": CLOSED_TEMPLATE}
MAX_OUTPUT_TOKENS = 256
MIN_HAYSTACK_TOKENS = 100  # the original skips a length whose haystack budget is this or less


class TooShort(ValueError):
    """The length leaves no room for a haystack once the template and insertions are in."""


@dataclasses.dataclass(frozen=True)
class Stimulus:
    prompt: str
    prompt_tokens: int  # the whole prompt's count in the unit (the chat template's not in)
    haystack_budget: int  # tokens the haystack was cut to
    needle_offset: int  # character offset of the needle in the document
    needle_token_offset: int  # o200k tokens of the haystack (distractors in) before the needle
    needle_depth_realised: float  # that, as a percent of the haystack's tokens (2 decimals)
    distractor_indices: tuple[int, ...]  # which of the question's distractors, in order
    distractor_offsets: tuple[int, ...]  # their character offsets in the haystack


MAX_REBUILDS = 3  # each cuts the haystack by the excess; one is almost always enough


def build(sample: NiahSample, question: Question, needle: Needle, tokenizer, *,
          template: str = SPEC_TEMPLATE, include_bible: bool = False) -> Stimulus:
    # the depth is placed below: every depth of a cell shares one prepared haystack
    prepared = prepare(dataclasses.replace(sample, depth=0), question, needle, tokenizer,
                       template, include_bible)
    with_distractors = prepared.with_distractors
    where = haystack.place_counted(with_distractors, sample.depth, tokenizer)
    document = haystack.insert_counted(with_distractors, [(where.offset, needle.text)],
                                       tokenizer)
    final = document.wrap(prepared.prefix, prepared.suffix, tokenizer)
    return Stimulus(prompt=final.text, prompt_tokens=final.tokens,
                    haystack_budget=prepared.budget,
                    needle_offset=document.text.index(needle.text),
                    needle_token_offset=where.tokens_before,
                    needle_depth_realised=round(where.depth, 2),
                    distractor_indices=prepared.distractor_indices,
                    distractor_offsets=prepared.distractor_offsets)


@dataclasses.dataclass(frozen=True)
class Prepared:
    """What every depth of one haystack shares: the haystack with its distractors, counted."""
    with_distractors: CountedText
    prefix: str  # the template before the document
    suffix: str  # and after it
    budget: int
    distractor_indices: tuple[int, ...]
    distractor_offsets: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Budget:
    """A cell's token budget, before any haystack is built: the template, the insertions
    and what the length leaves for the haystack."""
    prefix: str  # the template before the document
    suffix: str  # and after it
    chosen: tuple[int, ...]  # which of the question's distractors
    distractors: tuple[str, ...]  # their texts
    served: int  # the chat template's tokens (0 in o200k): part of the length as served
    overhead: int  # the template's own tokens
    needle_tokens: int
    insertions: int  # the needle's and the distractors' tokens
    haystack: int  # what is left for the haystack

    def check(self, sample: NiahSample, haystack: int) -> None:
        """TooShort where ``haystack`` tokens are too few to build on."""
        if haystack <= MIN_HAYSTACK_TOKENS:
            raise TooShort(f"{sample.length} tokens leave {haystack} for the haystack after "
                           f"the template ({self.served + self.overhead}) and the insertions "
                           f"({self.insertions})")


def budget(sample: NiahSample, question: Question, needle: Needle, tokenizer,
           template: str) -> Budget:
    """The cell's budget: a few short counts, no haystack (TooShort where none fits)."""
    chosen = tuple(choose_distractors(sample, len(question.distractors)))
    distractors = tuple(question.distractors[i].text for i in chosen)
    marker = "\x00"
    prefix, suffix = template.format(haystack_with_needle=marker,
                                     retrieval_question=question.question).split(marker)
    # the chat template's tokens (0 in o200k) are part of the length as the server counts it
    served = tokenizer.chat_overhead
    overhead, needle_tokens, *distractor_tokens = tokenizer.count_many(
        [prefix + suffix, " " + needle.text, *(" " + text for text in distractors)])
    insertions = needle_tokens + sum(distractor_tokens)
    found = Budget(prefix, suffix, chosen, distractors, served, overhead, needle_tokens,
                   insertions, sample.length - served - overhead - insertions)
    found.check(sample, found.haystack)
    return found


def request_tokens(sample: NiahSample, question: Question, needle: Needle, tokenizer,
                   template: str) -> int:
    """The prompt's size as the server counts it, unbuilt: ``build`` cuts the haystack so that
    no depth's prompt exceeds the length, and joins rarely merge tokens, so the length is
    the size (an upper bound; built prompts measured 0 to 2 o200k tokens shorter)."""
    budget(sample, question, needle, tokenizer, template)  # TooShort, as a build would
    return sample.length


@functools.lru_cache(maxsize=8)  # a cell's depths and trials come together in the grid
def prepare(sample: NiahSample, question: Question, needle: Needle, tokenizer, template: str,
             include_bible: bool) -> Prepared:
    cell = budget(sample, question, needle, tokenizer, template)
    prefix, suffix, distractors = cell.prefix, cell.suffix, list(cell.distractors)
    served, needle_tokens, tokens = cell.served, cell.needle_tokens, cell.haystack
    for _ in range(MAX_REBUILDS + 1):
        cell.check(sample, tokens)
        hay = haystack_counted(sample, tokenizer, tokens, include_bible)
        offsets = distractor_offsets(hay.text, sample.distractor_seed, len(distractors))
        with_distractors = haystack.insert_counted(hay, list(zip(offsets, distractors)),
                                                   tokenizer)
        first = haystack.insert_counted(with_distractors, [(0, needle.text)], tokenizer)
        longest = served + max(
            with_distractors.wrap(prefix, suffix, tokenizer).tokens + needle_tokens,
            first.wrap(prefix, suffix, tokenizer).tokens)
        if longest <= sample.length:
            break
        tokens -= longest - sample.length
    return Prepared(with_distractors, prefix, suffix, tokens, cell.chosen, tuple(offsets))


def haystack_text(sample: NiahSample, tokenizer, budget: int, include_bible: bool) -> str:
    return haystack_counted(sample, tokenizer, budget, include_bible).text


def haystack_counted(sample: NiahSample, tokenizer, budget: int,
                     include_bible: bool) -> CountedText:
    if sample.mode == "seq":
        return haystack.sequential_counted(tokenizer, budget, sample.start_offset,
                                           include_bible=include_bible)
    return haystack.shuffled_counted(tokenizer, budget, sample.shuffle_seed,
                                     include_bible=include_bible)


def choose_distractors(sample: NiahSample, available: int) -> list[int]:
    """Which distractors (indices), seeded per trial: the same at every depth."""
    rng = random.Random(sample.distractor_seed + "/which")
    return rng.sample(range(available), sample.distractors)


def distractor_offsets(text: str, seed: str, count: int, attempts: int = 20) -> list[int]:
    """``count`` distinct seeded sentence boundaries of the haystack (before the needle).

    A draw that lands on a boundary already taken is redrawn (a few times), so distractors
    do not pile up where boundaries are sparse.
    """
    rng = random.Random(seed + "/where")
    offsets: list[int] = []
    for _ in range(count):
        for _ in range(attempts):
            offset = haystack.boundary_before(text, int(len(text) * rng.uniform(0.02, 0.98)))
            if offset not in offsets:
                break
        offsets.append(offset)
    return offsets
