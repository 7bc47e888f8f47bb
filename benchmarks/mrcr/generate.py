"""Building one sample offline, in the original's row schema (spec section 6).

A pure function of the pool (passages.py), the needle count, the bin and the sample's seed:

1. the target key (format, topic): one with at least ``needles`` passages short enough for
   the bin; the needles are that many distinct passages of it;
2. the worked-example preamble: the verified opening line and two examples between
   ``======EXAMPLE======`` / ``======END EXAMPLE======``, turns written ``User: ...`` /
   ``Assistant: ...`` as in the published row; each example holds two passages of one key
   among others while they fit in half of ``PREAMBLE_TOKENS`` (the original's size), then
   its own question and answer, all from passages used nowhere else (in the test-only bins,
   two or three short passages per example);
3. distractors, up to a target size drawn log-uniformly in the bin: a near miss on the topic
   (same topic, another format) and one on the format (same format, another topic) when the
   pool has them and the target leaves room, then passages drawn at random, each kept with
   a chance proportional to its length (so the writings' lengths approach the original's;
   a quarter of the draws repeat a key already drawn, as the original's distractors
   repeat); a pair that would leave the bin is replaced by one that fits, or ends the
   filling;
4. needle slots uniform among all pair slots, the desired occurrence uniform in 1..n;
5. a 10-character string of [A-Za-z0-9] that occurs in no message before the question;
6. the final question exactly as in the original, ``answer = string + the gold passage``.

Size, as the original bins it: the o200k tokens of every message's content plus those of the
answer (no chat template). Every count is exact (each message is counted whole).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import random
import string
from typing import Callable

from .passages import MAX_TOKENS, MIN_TOKENS, Pool, request

OPENING = ("Here are some examples of conversations succeeded by a follow-up question "
           "answered correctly:")
EXAMPLE_START, EXAMPLE_END = "======EXAMPLE======", "======END EXAMPLE======"
ALPHABET = string.ascii_letters + string.digits
STRING_LENGTH = 10
NEEDLE_SHARE = 0.6  # the needles and the answer take at most this share of the bin's top
# The preamble, as the original's: the one published row's two worked examples run to about
# 15,100 characters of GPT-4o's writings, about 3,100 o200k tokens at that row's 4.85
# characters a token. Matched in tokens (the bins' unit: what it leaves of a bin for pairs);
# each example is a conversation of full-length writings. Below the original's bins (the
# test-only bins, under 4,096 tokens) it cannot fit: there each example is two or three
# short passages (at most EXAMPLE_MAX_TOKENS).
PREAMBLE_TOKENS = 3_100
TURN_TOKENS = 6  # "User: ", "\nAssistant: " and the blank line around a pair in an example
QUESTION_TOKENS = 40  # an example's question and the answer's string
EXAMPLE_MAX_TOKENS = 60
# Writings are kept with a chance of (tokens / longest) ** LENGTH_BIAS: the pool's passages
# average 336 o200k tokens (1,422 characters); the one published row's pairs average about 372
# tokens (about 1,770 characters: GPT-4o's prose packs more characters into a token). Matched
# in tokens, the bins' unit, so a bin holds about as many pairs as the original's.
LENGTH_BIAS = 0.25
REPEAT_SHARE = 0.25  # distractor draws that repeat a distractor key already drawn
ATTEMPTS = 50


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def question(prefix: str, format: str, topic: str, occurrence: int) -> str:
    """The original's final question (checked on all 800 2-needle rows by an audit)."""
    return (f"Prepend {prefix} to the {ordinal(occurrence)} (1 indexed) {format} about "
            f"{topic}. Do not include any other text in your response.")


@dataclasses.dataclass(frozen=True)
class Row:
    """One sample in the original's schema (spec section 2); ``prompt`` is JSON."""

    prompt: str
    answer: str
    random_string_to_prepend: str
    n_needles: int
    desired_msg_index: int
    total_messages: int
    n_chars: int  # characters of the message contents

    def messages(self) -> list[dict[str, str]]:
        return json.loads(self.prompt)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Built:
    row: Row
    size: int  # o200k tokens of the message contents plus the answer: what bins it
    prompt_tokens: int  # o200k tokens of the message contents
    details: dict  # how it was made (the key, the near misses, the target size)


def size_bounds(needles: int, high: int, max_passage: int = MAX_TOKENS) -> tuple[int, int]:
    """(most prompt tokens, most answer tokens) of any sample of the bin, unbuilt: a sample's
    size (prompt plus answer) is at most ``high``, its answer the random string plus a needle
    of at most the passage cap (``_Builder.cap``) and at least ``MIN_TOKENS``."""
    cap = min(max_passage, int(NEEDLE_SHARE * high / (needles + 1)))
    return high - MIN_TOKENS, cap + STRING_LENGTH


def sample_seed(seed: int, needles: int, bin_label: str, index: int) -> int:
    """The sample's own seed: the same on every machine (not Python's salted ``hash``)."""
    text = f"mrcr|{seed}|{needles}|{bin_label}|{index}"
    return int(hashlib.sha256(text.encode()).hexdigest(), 16)


class SampleUnbuildable(ValueError):
    pass


def build(pool: Pool, needles: int, low: int, high: int, seed: int,
          count: Callable[[str], int], max_passage: int = MAX_TOKENS) -> Built:
    """The sample of this seed: its size in (low, high] o200k tokens, its writings at most
    ``max_passage`` tokens each."""
    rng = random.Random(seed)
    for _ in range(ATTEMPTS):
        built = _Builder(pool, needles, low, high, rng, count, max_passage).build()
        if built is not None:
            return built
    raise SampleUnbuildable(f"no {needles}-needle sample fits ({low}, {high}] tokens after "
                            f"{ATTEMPTS} attempts")


class _Builder:
    def __init__(self, pool: Pool, needles: int, low: int, high: int, rng: random.Random,
                 count: Callable[[str], int], max_passage: int):
        self.pool, self.needles, self.low, self.high = pool, needles, low, high
        self.rng, self.count = rng, count
        self.cap = min(max_passage, int(NEEDLE_SHARE * high / (needles + 1)))
        self.usable = [i for i, n in enumerate(pool.lengths) if n <= self.cap]
        self.used: set[int] = set()
        self._requests: dict[tuple[str, str], int] = {}

    def pair_tokens(self, index: int) -> int:
        passage = self.pool.passages[index]
        if passage.key not in self._requests:
            self._requests[passage.key] = self.count(passage.request)
        return self._requests[passage.key] + passage.tokens

    def build(self) -> Built | None:
        rng, pool = self.rng, self.pool
        keys = [key for key, members in pool.by_key.items()
                if sum(1 for i in members if pool.lengths[i] <= self.cap) >= self.needles]
        if not keys:
            raise SampleUnbuildable(f"no key has {self.needles} passages of at most "
                                    f"{self.cap} tokens")
        self.key = rng.choice(keys)
        fitting = [i for i in pool.by_key[self.key] if pool.lengths[i] <= self.cap]
        needles = rng.sample(fitting, self.needles)
        self.used.update(pool.by_key[self.key])  # no other passage of the key may appear
        prefix = self.random_string()
        preamble = self.preamble()
        if preamble is None:
            return None
        occurrence = rng.randint(1, self.needles)
        format, topic = self.key
        final = question(prefix, format, topic, occurrence)
        # The gold is the needle in the occurrence-th slot: needles go to the sorted slots in
        # their drawn order, so needle occurrence-1 is the gold whatever the slots are.
        answer = prefix + pool.passages[needles[occurrence - 1]].text
        fixed = (self.count(preamble) + self.count(final) + self.count(answer)
                 + sum(self.pair_tokens(i) for i in needles))
        if fixed > self.high:
            return None
        # The size first, then near misses where it leaves room: a sample near the bottom
        # of its size holds the needles alone, as the original's smallest rows do (2 pairs)
        target = math.exp(rng.uniform(math.log(max(self.low, fixed)), math.log(self.high)))
        near = self.near_misses(target - fixed)
        fixed += sum(self.pair_tokens(i) for i in near)
        distractors, size = self.fill(near, fixed, target)
        if not self.low < size <= self.high:
            return None
        slots = sorted(rng.sample(range(self.needles + len(distractors)), self.needles))
        rng.shuffle(distractors)
        order, pending = [], iter(distractors)
        needle_at = dict(zip(slots, needles))
        for slot in range(self.needles + len(distractors)):
            order.append(needle_at[slot] if slot in needle_at else next(pending))
        messages = [{"role": "user", "content": preamble}]
        for index in order:
            passage = pool.passages[index]
            messages += [{"role": "user", "content": passage.request},
                         {"role": "assistant", "content": passage.text}]
        if any(prefix in m["content"] for m in messages):
            return None  # a fresh attempt draws a new string
        messages.append({"role": "user", "content": final})
        row = Row(prompt=json.dumps(messages), answer=answer, random_string_to_prepend=prefix,
                  n_needles=self.needles, desired_msg_index=1 + 2 * slots[occurrence - 1],
                  total_messages=len(messages),
                  n_chars=sum(len(m["content"]) for m in messages))
        details = {"format": format, "topic": topic, "occurrence": occurrence,
                   "needle_slots": slots, "target_size": round(target),
                   "passage_cap": self.cap, "distractors": len(distractors),
                   "near_misses": len(near),
                   "books": sorted({pool.passages[i].book for i in needles})}
        return Built(row, size, size - self.count(answer), details)

    def random_string(self) -> str:
        return "".join(self.rng.choice(ALPHABET) for _ in range(STRING_LENGTH))

    def take(self, candidates: list[int]) -> int | None:
        free = [i for i in candidates if i not in self.used]
        if not free:
            return None
        chosen = self.rng.choice(free)
        self.used.add(chosen)
        return chosen

    def preamble(self) -> str | None:
        """Two worked examples, each two passages of one key (in order) among passages of
        other keys, a question on one of the two, and its answer: the original's size in
        its bins, two or three short passages each below them."""
        full = self.low >= 4096  # one of the original's bins
        # the asked pair (one of them written twice) at most an eighth of the preamble each,
        # so that the others fill it to about its size
        longest = PREAMBLE_TOKENS // 8 if full else EXAMPLE_MAX_TOKENS
        allowed = {i for i in self.usable if self.pool.lengths[i] <= longest}
        keys = [key for key, members in self.pool.by_key.items()
                if key != self.key and len([i for i in members if i in allowed]) >= 2]
        others = sorted(self.usable) if full else sorted(allowed)
        passages = self.pool.passages
        examples = []
        for _ in range(2):
            key = self.rng.choice(keys)
            pair = [self.take([i for i in self.pool.by_key[key] if i in allowed])
                    for _ in range(2)]
            if None in pair:
                return None
            shown = list(pair)
            if full:  # writings of other keys while they fit in half the original's size
                room = PREAMBLE_TOKENS / 2 - QUESTION_TOKENS - sum(
                    self.pair_tokens(i) + TURN_TOKENS for i in pair) - max(
                    self.pool.lengths[i] for i in pair)  # the answer repeats one of them
                while (other := self.free_other(others, key, room)) is not None:
                    shown.insert(self.rng.randint(0, len(shown)), other)
                    room -= self.pair_tokens(other) + TURN_TOKENS
            elif self.rng.random() < 0.5:
                other = self.take([i for i in others if passages[i].key != key])
                if other is None:
                    return None
                shown.insert(self.rng.randint(0, 2), other)
            occurrence = self.rng.randint(1, 2)
            prefix = self.random_string()
            turns = [f"User: {passages[i].request}\nAssistant: {passages[i].text}"
                     for i in shown]
            turns.append(f"User: {question(prefix, *key, occurrence)}\n"
                         f"Assistant: {prefix}{passages[pair[occurrence - 1]].text}")
            examples.append(f"{EXAMPLE_START}\n" + "\n\n".join(turns) + f"\n\n{EXAMPLE_END}\n")
        return f"{OPENING}\n\n" + "\n".join(examples)

    def free_other(self, candidates: list[int], key: tuple[str, str],
                   room: float) -> int | None:
        """A free passage of another key whose turn fits in ``room`` tokens, drawn as the
        distractors are (``sized``), taken; None when the room is under a short pair's size
        or nothing fits."""
        if room < 2 * MIN_TOKENS:
            return None
        fits = lambda i: (i not in self.used and self.pool.passages[i].key != key
                          and self.pair_tokens(i) + TURN_TOKENS <= room)
        for _ in range(64):  # rejection: cheap while most of the pool is free
            index = self.rng.choice(candidates)
            if fits(index) and self.sized(index):
                self.used.add(index)
                return index
        return self.take([i for i in candidates if fits(i)])

    def sized(self, index: int) -> bool:
        """Keep a drawn passage with a chance growing with its length (``LENGTH_BIAS``)."""
        return self.rng.random() < (self.pool.lengths[index] / self.cap) ** LENGTH_BIAS

    def near_misses(self, room: int) -> list[int]:
        """One passage of the same topic in another format, one of the same format on
        another topic, when the pool has them and they fit in ``room`` tokens."""
        format, topic = self.key
        found = []
        for members, keep in ((self.pool.by_topic[topic], lambda p: p.format != format),
                              (self.pool.by_format[format], lambda p: p.topic != topic)):
            chosen = self.take([i for i in members if self.pool.lengths[i] <= self.cap
                                and keep(self.pool.passages[i]) and self.pair_tokens(i) <= room])
            if chosen is not None:
                found.append(chosen)
                room -= self.pair_tokens(chosen)
        return found

    def fill(self, near: list[int], size: int, target: float) -> tuple[list[int], int]:
        """Distractors until the size reaches ``target``; never past the bin's top."""
        chosen = list(near)
        drawn_keys: list[tuple[str, str]] = []
        while size < target:
            index = self.draw(drawn_keys)
            if index is None:
                break
            if size + self.pair_tokens(index) > self.high:
                self.used.discard(index)
                index = self.take([i for i in self.usable
                                   if size + self.pair_tokens(i) <= self.high])
                if index is None:
                    break
            chosen.append(index)
            drawn_keys.append(self.pool.passages[index].key)
            size += self.pair_tokens(index)
        return chosen, size

    def draw(self, drawn_keys: list[tuple[str, str]]) -> int | None:
        """A free passage: a quarter of the time of a key already drawn, else any."""
        if drawn_keys and self.rng.random() < REPEAT_SHARE:
            key = self.rng.choice(drawn_keys)
            repeat = self.take([i for i in self.pool.by_key[key]
                                if self.pool.lengths[i] <= self.cap])
            if repeat is not None:
                return repeat
        for _ in range(64):  # rejection: cheap while most of the pool is free
            index = self.rng.choice(self.usable)
            if index not in self.used and self.sized(index):
                self.used.add(index)
                return index
        return self.take(self.usable)
