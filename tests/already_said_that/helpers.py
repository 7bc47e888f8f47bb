"""Shared pieces of the unit tests: synthetic words and distractors, scripted players."""

from __future__ import annotations

import asyncio
import random

from benchmarks.already_said_that.conversation import Conversation, play
from benchmarks.already_said_that.stimulus import MAIN_PREFIX, Distractor

WORDS = [f"word{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(100)]
DISTRACTORS = [Distractor(f"Is the colour of item{chr(97 + i)} blue?", "no")
               for i in range(10)]
IDEALS = {d.question: d.ideal for d in DISTRACTORS}


def conversation(seed, *, distractors=DISTRACTORS, **options) -> Conversation:
    return Conversation(WORDS, distractors, random.Random(seed), **options)


def oracle(dialogue: Conversation):
    """A perfect player: it knows what was shown and every distractor's ideal."""
    def respond(messages):
        text = messages[-1]["content"]
        if text.startswith(MAIN_PREFIX):
            seen = text[len(MAIN_PREFIX):] in dialogue.shown
            return f"[answer: {'yes' if seen else 'no'}]"
        return f"[answer: {IDEALS[text]}]"
    return respond


def coin(seed):
    """A yes/no coin with its own seeded generator."""
    rng = random.Random(seed)
    return lambda messages: f"[answer: {rng.choice(['yes', 'no'])}]"


def play_through(dialogue: Conversation, respond, **options):
    """``play`` (a coroutine: real players are model clients) with a synchronous player."""
    async def reply(messages):
        return respond(messages)
    return asyncio.run(play(dialogue, "task", reply, **options))


def played(seed, respond_for, max_turns=100, **options):
    dialogue = conversation(seed, **options)
    return play_through(dialogue, respond_for(dialogue), max_turns=max_turns)
