"""One sample's dialogue: the turn generator, the judge of each reply, and the loop.

The protocol is the original's (openai/evals ``already_said_that``): up to ``max_turns``
turns; each is a distractor question with probability 1/3 (when the variant has any), else
``MAIN TASK - word``. A main word is, with probability 1/2 when there are any, an
*adversarial* word (one that appeared in an earlier distractor question or answer), else a
new word or an already-shown one with probability 1/2 each (a repeat falls back to a new
word while none has been shown). Distractors come from the sample's shuffled queue, which
rotates after each use. The sample ends at the first main-task mistake or format violation.

Every choice is drawn from the sample's own ``random.Random`` over *sorted* pools: the
original draws from Python sets, whose order changes between processes.

By default the adversarial pool holds the words of distractor questions and of the model's
answers *to distractors*. The original also pours in the main-task answers, so after the
first turn "yes" and "no" become main-task words, even in the distractorless variant;
``adversarial_pool="original"`` keeps that.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import random
from typing import Awaitable, Callable, Sequence

from . import scoring
from .stimulus import Distractor, alpha_words, main_message


@dataclasses.dataclass(frozen=True)
class Turn:
    kind: str  # "main" or "distractor"
    message: str
    word: str | None = None  # main turns
    source: str = ""  # main turns: "new", "repeat" or "adversarial"
    distractor: Distractor | None = None


class Conversation:
    def __init__(self, words: Sequence[str], distractors: Sequence[Distractor],
                 rng: random.Random, *, adversarial_pool: str = "distractors",
                 distractor_match: str = "exact",
                 distractor_probability: float = scoring.DISTRACTOR_PROBABILITY):
        if adversarial_pool not in ("distractors", "original", "none"):
            raise ValueError(f"unknown adversarial pool {adversarial_pool!r}")
        self._rng = rng
        self._not_shown = set(word.lower() for word in words)
        self._shown: set[str] = set()
        self._adversarial: set[str] = set()
        self._queue = collections.deque(rng.sample(list(distractors), len(distractors)))
        self._pool_mode = adversarial_pool
        self._match = distractor_match
        self._distractor_probability = distractor_probability

    @property
    def shown(self) -> frozenset[str]:
        return frozenset(self._shown)

    @property
    def adversarial_words(self) -> frozenset[str]:
        return frozenset(self._adversarial)

    def next_turn(self) -> Turn:
        rng = self._rng
        weights = [self._distractor_probability, 1 - self._distractor_probability]
        wants_distractor = rng.choices([True, False], weights=weights)[0]
        if wants_distractor and self._queue:
            question = self._queue[0]
            self._queue.rotate(-1)
            return Turn("distractor", question.question, distractor=question)
        adversarial = rng.random() < 0.5
        if adversarial and self._adversarial and self._pool_mode != "none":
            word, source = rng.choice(sorted(self._adversarial)), "adversarial"
        else:
            repeat = rng.random() < 0.5
            if repeat and self._shown:
                word, source = rng.choice(sorted(self._shown)), "repeat"
            elif self._not_shown:
                word, source = rng.choice(sorted(self._not_shown)), "new"
            else:  # only with more turns than words; the grid forbids it
                word, source = rng.choice(sorted(self._shown)), "repeat"
        return Turn("main", main_message(word), word=word, source=source)

    def judge(self, turn: Turn, reply: str) -> dict:
        """Score the reply to ``turn`` and update what has been shown; a turn-log entry."""
        answer = scoring.parse_answer(reply)
        if turn.kind == "distractor":
            assert turn.distractor is not None
            entry = {"kind": "distractor", "text": turn.message,
                     "expected": turn.distractor.ideal, "answer": answer,
                     "violation": answer is None, "false_positive": False,
                     "false_negative": False,
                     "correct": scoring.distractor_correct(answer, turn.distractor.ideal,
                                                           self._match)}
            self._adversarial.update(alpha_words(turn.message))
            if self._pool_mode != "none" and answer is not None:
                self._adversarial.update(alpha_words(answer))
            return entry
        assert turn.word is not None
        verdict = scoring.judge_main(answer, turn.word in self._shown)
        if verdict["correct"]:
            self._shown.add(turn.word)
            self._not_shown.discard(turn.word)
        if self._pool_mode == "original" and answer is not None:
            self._adversarial.update(alpha_words(answer))
        return {"kind": "main", "text": turn.word, "source": turn.source, "answer": answer,
                **verdict}


def ending(entry: dict) -> str | None:
    """Why this turn ends the sample (a main-task mistake or violation), or None."""
    if entry["kind"] != "main" or entry["correct"]:
        return None
    if entry["violation"]:
        return "violation"
    return "false_positive" if entry["false_positive"] else "false_negative"


@dataclasses.dataclass
class Transcript:
    messages: list[dict[str, str]]
    log: list[dict]
    ended_by: str

    def text(self) -> str:
        """The dialogue after the task description, one message per line."""
        shown = [m for m in self.messages if m["role"] != "system"]
        return "\n".join(f"{'>' if m['role'] == 'user' else '<'} {m['content']}"
                         for m in shown)


# a reply's text, or the assistant message to send back (its content the answer, beside what
# the API wants back with it: the Responses API's reasoning); None: overflowed
Respond = Callable[[list[dict[str, str]]], Awaitable["str | dict | None"]]


async def play(conversation: Conversation, task_description: str, respond: Respond, *,
         max_turns: int, fits: Callable[[list[dict[str, str]]], bool] = lambda m: True
         ) -> Transcript:
    """Run the dialogue; the whole history is sent on every turn (the long-context load).

    ``fits(messages)`` is asked before each call; when it says no, the sample stops as
    ``context_full`` (censored, not a mistake). ``respond`` returning None stops it as
    ``overflow``.
    """
    messages = [{"role": "system", "content": task_description}]
    log: list[dict] = []
    completed = 0
    while completed < max_turns:
        turn = conversation.next_turn()
        messages.append({"role": "user", "content": turn.message})
        if not fits(messages):
            messages.pop()
            return Transcript(messages, log, "context_full")
        reply = await respond(messages)
        if reply is None:
            messages.pop()
            return Transcript(messages, log, "overflow")
        sent_back = reply if isinstance(reply, dict) else {"role": "assistant", "content": reply}
        messages.append(sent_back)
        entry = conversation.judge(turn, sent_back["content"])
        log.append(entry)
        why = ending(entry)
        if why is not None:
            return Transcript(messages, log, why)
        completed += 1
    return Transcript(messages, log, "max_turns")


def estimate_prompt_tokens(o200k_now: int, served_last: int | None,
                           o200k_last: int | None) -> int:
    """The endpoint's prompt size for the next call, from the last call's served count.

    Its tokenizer and chat template differ from o200k; scaling the last served count by the
    growth in o200k tokens tracks them. Never below the o200k count itself.
    """
    if not served_last or not o200k_last:
        return o200k_now
    return max(o200k_now, math.ceil(served_last * o200k_now / o200k_last))
