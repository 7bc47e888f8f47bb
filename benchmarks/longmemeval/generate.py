"""contextrot's own LongMemEval-style histories: seeded, offline, gradable without an LLM.

Not LongMemEval's data: questions written for contextrot in LongMemEval's format (dated
sessions of user and assistant turns, evidence turns marked ``has_answer``), of Chroma's three
question types, each with an answer a deterministic judge can check:

- ``knowledge-update``: the user states a fact (where they live, the car they drive...) in
  one session and its new value in a later one; asked for the current value;
- ``temporal-reasoning``: two events told "today" in two sessions; asked how many days
  passed between them (the sessions' dates give it);
- ``multi-session``: two to four purchases of one kind, one per session; asked how many.

Every other turn is filler: a user's remark about a passage of Pride and Prejudice (public
domain, in the data registry) and the assistant's reply with the next passage. The evidence
sits in sessions of its own among the filler sessions. Question ``index`` of seed ``seed``
is the same on every machine. Sizes are in characters (no tokenizer here): a session of
``Sizes.turn_chars`` per turn, ``Sizes.sessions`` sessions in all.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import random
import re

from .history import Question

TYPES = ("knowledge-update", "temporal-reasoning", "multi-session")
PRIDE_AND_PREJUDICE = "gutenberg/pride-and-prejudice.txt"  # a data registry name


@dataclasses.dataclass(frozen=True)
class Sizes:
    sessions: int  # sessions in the whole history, evidence included
    turn_chars: int  # a filler turn's length in characters, about
    exchanges: int  # user-assistant exchanges per session


# Test scale: about 1,200 o200k tokens in all, 150 focused (the embedded model's budget);
# full scale: about 113k tokens in all (Chroma's full prompts average ~113k).
SIZES = {"test": Sizes(sessions=9, turn_chars=300, exchanges=1),
         "full": Sizes(sessions=55, turn_chars=2400, exchanges=2)}

KNOWLEDGE = (  # (what, question, first statement, update, values)
    ("city", "Which city do I live in now?", "I just moved to {}! Still unpacking boxes.",
     "Big news: I moved again, and now I live in {}.",
     ("Lisbon", "Porto", "Valencia", "Lyon", "Utrecht", "Tampere", "Ghent", "Bergen")),
    ("car", "What car do I drive now?", "I bought a {} last weekend, my first car.",
     "I sold my old car and now I drive a {}.",
     ("Volvo", "Subaru", "Skoda", "Mazda", "Peugeot", "Toyota", "Kia", "Fiat")),
    ("employer", "Which company do I work for now?", "I started a new job at {} this week.",
     "I changed jobs again: I now work for {}.",
     ("Northwind", "Globex", "Initech", "Umbrella Foods", "Hooli", "Vandelay", "Stark Mills",
      "Acme Freight")),
    ("gym", "Which gym do I go to now?", "I signed up at the {} gym today.",
     "I cancelled my old membership; these days I train at the {} gym.",
     ("Iron Temple", "Peak Motion", "Blue Harbor", "Summit", "Red Fox", "Oak Street")),
)
EVENTS = (  # (first event, second event), both told "today"
    ("started a pottery class", "finished my first pottery vase"),
    ("adopted a kitten", "took my kitten to the vet for the first time"),
    ("started learning Spanish", "passed my first Spanish exam"),
    ("planted tomatoes on my balcony", "picked my first ripe tomato"),
    ("signed up for a half marathon", "ran my first 15 kilometres"),
)
COLLECTIONS = (  # (what, verb, items)
    ("pieces of furniture", "bought", ("a bookshelf", "a desk", "a sofa", "a dining table",
                                       "an armchair", "a bed frame")),
    ("houseplants", "bought", ("a monstera", "a snake plant", "a fern", "a cactus",
                               "a peace lily", "an orchid")),
    ("concerts", "went to", ("a jazz concert", "a choir concert", "an indie rock concert",
                             "a piano recital", "an open-air opera", "a folk concert")),
)
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
                "seventeen", "eighteen", "nineteen", "twenty")
REMARKS = ("Here is a passage I am reading tonight; what do you make of it?",
           "Could you comment on this paragraph from my book?",
           "I keep rereading this bit. Thoughts?",
           "My book club is on this passage:")
ACKNOWLEDGEMENTS = ("That sounds great, thanks for telling me!", "Noted, good to know.",
                    "Congratulations, that is exciting!", "Thanks for the update.")


@functools.lru_cache(maxsize=1)
def book() -> tuple[str, tuple[int, ...]]:
    """Pride and Prejudice's prose paragraphs joined by spaces, one line each, and where each
    starts; without its plates' captions, headings and numbers (a filler number must not
    pass for an answer)."""
    from fixtures.data.registry import data_file

    text = data_file(PRIDE_AND_PREJUDICE).read_text(encoding="utf-8")
    kept = [line for line in (" ".join(block.split()) for block in re.split(r"\n\s*\n", text))
            if len(line) >= 200 and "[" not in line and "]" not in line
            and not re.search(r"\d", line)]
    starts, offset = [], 0
    for line in kept:
        starts.append(offset)
        offset += len(line) + 1
    return " ".join(kept), tuple(starts)


def passage(start: int, chars: int) -> str:
    """About ``chars`` characters of the book from paragraph ``start`` (counted among the
    paragraphs that many characters before its end), ending at a sentence's end where one is
    (else at a word's)."""
    text, usable = book()[0], usable_starts(chars)
    first = usable[start % len(usable)]
    head = text[first:first + chars]
    end = SENTENCE_END.search(head[::-1])  # the last sentence end, read from the back
    return head[:len(head) - end.start()] if end else head[:head.rfind(" ")]


@functools.lru_cache(maxsize=4)
def usable_starts(chars: int) -> tuple[int, ...]:
    text, starts = book()
    return tuple(s for s in starts if s + chars <= len(text))


# (reversed: a stop followed by white space, not the stop of Mr., Mrs. or Dr.)
SENTENCE_END = re.compile(r"(?<=\s)['\"\u201d]?[.?!](?!(?:rM|srM|rD)\b)")


def date_text(day: datetime.date, minutes: int) -> str:
    """LongMemEval's date format: ``2023/05/20 (Sat) 02:21``."""
    return f"{day:%Y/%m/%d} ({day:%a}) {minutes // 60:02d}:{minutes % 60:02d}"


def generate(index: int, seed: int, scale: str, evidence_only: bool = False) -> Question:
    """Question ``index`` of the seeded set: type ``TYPES[index % 3]``. Each session's filler
    has a generator of its own, so ``evidence_only`` (the focused history, for ``--plan``)
    builds the same evidence sessions without the others."""
    name = f"contextrot-longmemeval:{seed}:{index}"
    rng = random.Random(name)
    sizes = SIZES[scale]
    kind = TYPES[index % len(TYPES)]
    start = datetime.date(2023, 1, 1) + datetime.timedelta(days=rng.randrange(300))
    days = [start]
    for _ in range(sizes.sessions - 1):
        days.append(days[-1] + datetime.timedelta(days=rng.randint(1, 3)))
    dates = [date_text(day, rng.randrange(24 * 60)) for day in days]
    asked = date_text(days[-1] + datetime.timedelta(days=rng.randint(1, 10)),
                      rng.randrange(24 * 60))
    statements = _statements(kind, rng)
    slots = sorted(rng.sample(range(sizes.sessions), len(statements[0])))
    evidence, question, answer, accepted = _evidence(statements, [days[s] for s in slots])
    told = dict(zip(slots, evidence))
    positions = slots if evidence_only else range(sizes.sessions)
    sessions = [_session(random.Random(f"{name}:{p}"), sizes, told.get(p)) for p in positions]
    session_ids = [f"answer_s{p:02d}" if p in told else f"s{p:02d}" for p in positions]
    return Question(
        question_id=f"gen{seed}_{index:04d}", question_type=kind, question=question,
        answer=answer, question_date=asked, session_ids=tuple(session_ids),
        dates=tuple(dates[p] for p in positions), sessions=tuple(sessions),
        evidence_ids=tuple(f"answer_s{p:02d}" for p in slots), accepted=accepted)


def _session(rng: random.Random, sizes: Sizes, told: str | None) -> tuple[dict, ...]:
    """Filler exchanges; an evidence session keeps half of them (none at test scale: the
    focused history stays short), then the user tells ``told`` (marked ``has_answer``) and
    the assistant acknowledges it."""
    exchanges = sizes.exchanges if told is None else sizes.exchanges // 2
    turns = []
    for _ in range(exchanges):
        start = rng.randrange(1 << 30)
        turns.append({"role": "user", "content": rng.choice(REMARKS) + "\n\n"
                      + passage(start, sizes.turn_chars)})
        turns.append({"role": "assistant", "content": passage(start + 1, sizes.turn_chars)})
    if told is not None:
        turns += [{"role": "user", "content": told, "has_answer": True},
                  {"role": "assistant", "content": rng.choice(ACKNOWLEDGEMENTS)}]
    return tuple(turns)


def _statements(kind: str, rng: random.Random):
    """(evidence statements in order, question, answer or None, accepted answers): a
    temporal question's answer is counted from the sessions' dates (``_evidence``)."""
    if kind == "knowledge-update":
        _, question, first, update, values = rng.choice(KNOWLEDGE)
        old, new = rng.sample(values, 2)
        return [first.format(old), update.format(new)], question, new, (new,)
    if kind == "temporal-reasoning":
        one, two = rng.choice(EVENTS)
        question = f"How many days passed between the day I {one} and the day I {two}?"
        return [f"Today I {one}.", f"Today I {two}."], question, None, ()
    what, verb, items = rng.choice(COLLECTIONS)
    count = rng.randint(2, 4)
    statements = [f"Today I {verb} {item}." for item in rng.sample(items, count)]
    question = f"How many {what} have I {PARTICIPLES[verb]} in total?"
    return statements, question, str(count), (str(count), NUMBER_WORDS[count])


def _evidence(statements, days: list[datetime.date]):
    evidence, question, answer, accepted = statements
    if answer is None:  # temporal: the days between the two sessions
        between = (days[1] - days[0]).days
        answer = f"{between} days"
        accepted = (str(between),) + ((NUMBER_WORDS[between],)
                                       if between < len(NUMBER_WORDS) else ())
    return evidence, question, answer, accepted


PARTICIPLES = {"bought": "bought", "went to": "been to"}
