"""One sample's messages, built as NoLiMa's ``evaluate()`` builds them (spec section 2).

For a test and a haystack, numpy's legacy generator is seeded ``test.seed + haystack index``;
then, depth after depth (``np.linspace(0, 100, 26)``), a character is drawn with
``choice(character_set)`` when the needle holds ``{CHAR}`` (and put into the needle and the
question), and, with a distractor, its depth with ``uniform(0, span)``. A sample at depth k
replays the draws of depths 0..k, so it is the same whichever samples run beside it.

The messages: NoLiMa's connector's default system prompt (sent for every OpenAI-compatible
provider; the entry's own ``system_prompt`` is not sent), and the task template filled with
``str.format(haystack=..., question=...)``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from pathlib import Path

import numpy as np

from . import haystacks, needlesets, placement
from .grid import DEPTHS, SYSTEM_PROMPT, NolimaSample
from .needlesets import CHAR, Test


@dataclasses.dataclass(frozen=True)
class Built:
    messages: list[dict]
    gold: tuple[str, ...]
    character: str | None
    needle: str
    question: str
    position: int  # the valid token position the needle follows
    distractor_depth: float | None


@functools.lru_cache(maxsize=4096)
def draws(test: Test, haystack_index: int) -> tuple[tuple[str | None, float | None], ...]:
    """(character, distractor draw) at each of the 26 depths, in NoLiMa's order."""
    rng = np.random.RandomState(test.seed + haystack_index)
    found = []
    for depth in DEPTHS:
        character = str(rng.choice(list(test.character_set))) if test.draws_character else None
        draw = (float(rng.uniform(0, placement.distractor_span(depth / 100)))
                if test.distractor is not None else None)
        found.append((character, draw))
    return tuple(found)


_BOOKS: dict[tuple, placement.Tokenized] = {}
_BOOKS_LOCK = threading.Lock()
MAX_BOOKS = 6


def book(sample: NolimaSample, folder: Path, unit) -> placement.Tokenized:
    """The sample's haystack in the run's unit, tokenized once per process."""
    key = (sample.source, str(folder), sample.haystack, unit.unit)
    with _BOOKS_LOCK:
        if key in _BOOKS:
            return _BOOKS[key]
    text = haystack_text(sample, folder)
    found = placement.Tokenized.of(text, unit)
    with _BOOKS_LOCK:
        if len(_BOOKS) >= MAX_BOOKS:
            _BOOKS.pop(next(iter(_BOOKS)))
        _BOOKS[key] = found
    return found


def haystack_text(sample: NolimaSample, folder: Path) -> str:
    if sample.source == "contextrot":
        return haystacks.own_text(sample.haystack, own_forbidden())
    from fixtures.data.registry import NOLIMA_URL, read_checked

    path = folder / haystacks.HAYSTACK_DIR / f"{sample.haystack}.txt"
    return read_checked(path, haystacks.read_text,
                        f"replace it with NoLiMa's haystack from {NOLIMA_URL}/"
                        f"{haystacks.HAYSTACK_DIR.as_posix()}/")


@functools.lru_cache(maxsize=1)
def own_forbidden() -> tuple[str, ...]:
    """What no paragraph of contextrot's haystacks may name: its characters and answers."""
    found = set()
    for path in needlesets.OWN_SETS.values():
        for test in needlesets.load(path):
            found.update(test.character_set)
        for entry in json.loads(path.read_text()):
            for case in entry["tests"].values():
                found.update(case["input_args"])
    return tuple(sorted(found))


def build(sample: NolimaSample, test: Test, folder: Path, unit) -> Built:
    """The sample's messages (placement.PlacementFailed: the haystack cannot hold it)."""
    character, draw = draws(test, sample.haystack_index)[sample.depth_index]
    needle, question = test.needle, test.question
    if test.draws_character:
        needle = needle.replace(CHAR, character)
        question = question.replace(CHAR, character)
    haystack = book(sample, folder, unit)
    depth = DEPTHS[sample.depth_index] / 100
    where = None
    if test.distractor is None:
        placed = placement.place(haystack, needle, sample.length, depth)
    else:
        placed, where = placement.place_with_distractor(haystack, needle, test.distractor,
                                                        sample.length, depth, draw)
    user = test.task_template.format(haystack=placed.text, question=question)
    return Built([{"role": "system", "content": SYSTEM_PROMPT},
                  {"role": "user", "content": user}],
                 (character,) if test.draws_character else test.gold_answers, character,
                 needle, question, placed.position, where)


def request_tokens(sample: NolimaSample, test: Test, unit) -> int:
    """``--plan``'s size without a haystack: the length, the needle and distractor, and the
    messages around them (the longest character's count where one is drawn)."""
    return sample.length + _overhead(test, unit)


@functools.lru_cache(maxsize=4096)
def _overhead(test: Test, unit) -> int:
    names = test.character_set if test.draws_character else ("",)
    longest = max(names, key=lambda name: unit.count(name))
    fill = (lambda text: text.replace(CHAR, longest)) if test.draws_character else str
    user = test.task_template.format(haystack="", question=fill(test.question))
    pieces = [SYSTEM_PROMPT, user, " " + fill(test.needle) + "\n"]
    if test.distractor is not None:
        pieces.append(" " + test.distractor + "\n")
    return sum(unit.count_many(pieces))
