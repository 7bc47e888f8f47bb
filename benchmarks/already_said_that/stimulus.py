"""The stimulus: distractor questions (processed as the original does), the task description.

Pure functions of rows already read from the data files (``sources.py`` reads them).

Differences from the original (openai/evals ``already_said_that``):
- The example's distractor word is the last *alphabetic* word of the question. The original
  strips only ``.,!?`` and so shows first-letters' ``budget."`` as a main-task word.
- reverse-sort-words-eng: two of the 25 ideals are wrong (line 0 repeats "hilarious", drops
  "venomous" and "captain", has "hill"; line 5 is sorted ascending). By default every ideal is
  recomputed from its own question (it agrees with the other 23); ``original`` keeps the data.
- Questions are cut at a known suffix, never at a fixed character count, and a row that lacks
  the suffix is an error instead of a silently garbled question.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Callable, Sequence

MAIN_PREFIX = "MAIN TASK - "
WHICH_IS_HEAVIER_SUFFIX = " Answer Yes or No"
REVERSE_SORT_SUFFIX = " (respond"  # the system prompt's parenthesised response instructions
# The distractorless variant's only question, used for the worked example (never asked).
DISTRACTORLESS_EXAMPLE = ("What is the capital of Italy?", "rome")


@dataclasses.dataclass(frozen=True)
class Distractor:
    question: str
    ideal: str  # lower-cased, as the original compares answers


def alpha_words(text: str) -> list[str]:
    """Lower-cased alphabetic words; a word with an apostrophe ("wasn't") is not one."""
    candidates = re.findall(r"[A-Za-z]+(?:['`][A-Za-z]+)*", text)
    return [word.lower() for word in candidates if word.isalpha()]


# -- the four distractor sets ------------------------------------------------------------
def _user(row: dict) -> str:
    return next(m["content"] for m in row["input"] if m["role"] == "user")


def _system(row: dict) -> str:
    return next(m["content"] for m in row["input"] if m["role"] == "system")


def which_is_heavier(rows: Sequence[dict]) -> list[Distractor]:
    """The question without its " Answer Yes or No" (the task description sets the format)."""
    found = []
    for number, row in enumerate(rows):
        question = _user(row)
        if not question.endswith(WHICH_IS_HEAVIER_SUFFIX):
            raise ValueError(f"which-is-heavier line {number}: the question does not end with "
                             f"{WHICH_IS_HEAVIER_SUFFIX!r}")
        found.append(Distractor(question.removesuffix(WHICH_IS_HEAVIER_SUFFIX),
                                str(row["ideal"]).strip().lower()))
    return found


def first_letters(rows: Sequence[dict]) -> list[Distractor]:
    return [Distractor(_user(row), str(row["ideal"]).strip().lower()) for row in rows]


def ambiguous_sentences(rows: Sequence[dict]) -> list[Distractor]:
    # The questions keep their ".." artefact, as in the original.
    return [Distractor(_user(row), str(row["ideal"]).strip().lower()) for row in rows]


def reverse_sorted(listing: str) -> str:
    """The comma-separated words of ``listing`` in reverse alphabetical order."""
    words = [word.strip() for word in listing.split(",") if word.strip()]
    return ", ".join(sorted(words, reverse=True))


def reverse_sort_words_eng(rows: Sequence[dict], *, corrected: bool = True) -> list[Distractor]:
    """The instruction (before its parenthesis) + ": " + the words, as the original builds it."""
    found = []
    for number, row in enumerate(rows):
        system = _system(row)
        if REVERSE_SORT_SUFFIX not in system:
            raise ValueError(f"reverse-sort-words-eng line {number}: the instruction has no "
                             f"{REVERSE_SORT_SUFFIX!r} part to cut")
        instruction = system[:system.index(REVERSE_SORT_SUFFIX)]
        listing = _user(row)
        ideal = reverse_sorted(listing) if corrected else str(row["ideal"])
        found.append(Distractor(f"{instruction}: {listing}", ideal.strip().lower()))
    return found


PROCESSORS: dict[str, Callable[..., list[Distractor]]] = {
    "which_is_heavier": which_is_heavier,
    "first_letters": first_letters,
    "ambiguous_sentences": ambiguous_sentences,
    "reverse_sort_words_eng": reverse_sort_words_eng,
}


def distractor_pool(variant: str, rows: Sequence[dict], *, corrected_ideals: bool = True
                    ) -> tuple[Distractor, list[Distractor]]:
    """(the worked example, the questions that may be asked): the last row is the example.

    distractorless has no pool: its example is a fixed question that is never asked.
    """
    if variant == "distractorless":
        return Distractor(*DISTRACTORLESS_EXAMPLE), []
    if variant == "reverse_sort_words_eng":
        processed = reverse_sort_words_eng(rows, corrected=corrected_ideals)
    else:
        processed = PROCESSORS[variant](rows)
    if not processed:
        raise ValueError(f"{variant}: the distractor file has no rows")
    return processed[-1], processed[:-1]


def example_word(question: str) -> str:
    """The distractor word the worked example shows as a main-task word (answered "no")."""
    words = alpha_words(question)
    return words[-1] if words else "word"


# -- the task description ------------------------------------------------------------------
# Our own wording of the original's content (see originals.md §5.2).
TASK_DESCRIPTION = """\
This is a memory game. I will show you words one at a time, each in a message of the form \
"{prefix}<word>". Your main task: for each such word, say whether I have already shown it to \
you as a main-task word earlier in this conversation.

Sometimes I will ask you an unrelated question instead of showing a word. You must always \
answer it, and then the main task continues. Words that appear in unrelated questions, or in \
your answers to them, do NOT count as shown words: only words given after "{prefix}" count.

Reply to every message with nothing but [answer: <answer>]. For the main task, <answer> is \
yes (I showed you this word before) or no (I did not). For an unrelated question, <answer> \
is your answer to that question.

An example of a game (it is only an example: none of its words count in your game):

{prefix}harbour
[answer: no]
{prefix}harbour
[answer: yes]
{distractor_question}
[answer: {distractor_answer}]
{prefix}{distractor_word}
[answer: no]
{prefix}pebble
[answer: no]
{prefix}pebble
[answer: yes]

(The answer to "{prefix}{distractor_word}" is no: that word only appeared in an unrelated \
question.)

The game starts now, with a new conversation: no words have been shown yet."""


def task_description(example: Distractor) -> str:
    return TASK_DESCRIPTION.format(prefix=MAIN_PREFIX, distractor_question=example.question,
                                   distractor_answer=example.ideal,
                                   distractor_word=example_word(example.question))


def main_message(word: str) -> str:
    return f"{MAIN_PREFIX}{word}"


# -- new word lists ------------------------------------------------------------------------
def generated_word_list(vocabulary: Sequence[str], seed: int, index: int,
                        size: int) -> list[str]:
    """``size`` distinct words for list ``index``; the same on any machine.

    ``vocabulary`` must be sorted (a set's order differs between processes). Each list has
    its own seeded generator, so list 7 does not depend on how many lists are made.
    """
    rng = random.Random(f"already_said_that/words/{seed}/{index}")
    return rng.sample(list(vocabulary), size)
