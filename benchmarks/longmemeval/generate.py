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


# Test scale: about 1,400 o200k tokens in all, 300 focused (the embedded model's budget);
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
def paragraphs() -> tuple[str, ...]:
    """Pride and Prejudice's prose paragraphs, one line each, without its plates' captions,
    headings and numbers (a filler number must not pass for an answer)."""
    from fixtures.data import data_file

    text = data_file(PRIDE_AND_PREJUDICE).read_text(encoding="utf-8")
    found = []
    for block in re.split(r"\n\s*\n", text):
        line = " ".join(block.split())
        if len(line) < 200 or "[" in line or "]" in line or re.search(r"\d", line):
            continue
        found.append(line)
    return tuple(found)


def passage(pool: tuple[str, ...], start: int, chars: int) -> str:
    """About ``chars`` characters of consecutive paragraphs from ``start``, ending at a
    sentence's end where one is (else at a word's)."""
    text, index = "", start
    while len(text) < chars:
        text = f"{text} {pool[index % len(pool)]}".strip()
        index += 1
    if len(text) <= chars:
        return text
    head = text[:chars]
    ends = [m.end() for m in re.finditer(r"[.?!][\u201d\"']?(?=\s)", head)]
    return head[:ends[-1]] if ends else head[:head.rfind(" ")]


def date_text(day: datetime.date, minutes: int) -> str:
    """LongMemEval's date format: ``2023/05/20 (Sat) 02:21``."""
    return f"{day:%Y/%m/%d} ({day:%a}) {minutes // 60:02d}:{minutes % 60:02d}"


def generate(index: int, seed: int, scale: str) -> Question:
    """Question ``index`` of the seeded set: type ``TYPES[index % 3]``."""
    rng = random.Random(f"contextrot-longmemeval:{seed}:{index}")
    sizes = SIZES[scale]
    kind = TYPES[index % len(TYPES)]
    pool = paragraphs()

    def filler_turns() -> list[dict]:
        turns = []
        for _ in range(sizes.exchanges):
            start = rng.randrange(len(pool))
            turns.append({"role": "user", "content": rng.choice(REMARKS) + "\n\n"
                          + passage(pool, start, sizes.turn_chars)})
            turns.append({"role": "assistant",
                          "content": passage(pool, start + 1, sizes.turn_chars)})
        return turns

    start = datetime.date(2023, 1, 1) + datetime.timedelta(days=rng.randrange(300))
    days = [start]
    for _ in range(sizes.sessions - 1):
        days.append(days[-1] + datetime.timedelta(days=rng.randint(1, 3)))
    statements = _statements(kind, rng)
    slots = sorted(rng.sample(range(sizes.sessions), len(statements[0])))
    evidence, question, answer, accepted = _evidence(statements, [days[s] for s in slots])
    sessions, session_ids, answer_ids = [], [], []
    told = dict(zip(slots, evidence))
    for position in range(sizes.sessions):
        turns = filler_turns()
        sid = f"s{position:02d}"
        if position in told:
            keep = turns[:2 * max(1, sizes.exchanges // 2)]
            turns = keep + [{"role": "user", "content": told[position], "has_answer": True},
                            {"role": "assistant", "content": rng.choice(ACKNOWLEDGEMENTS)}]
            sid = f"answer_{sid}"
            answer_ids.append(sid)
        sessions.append(tuple(turns))
        session_ids.append(sid)
    minutes = [rng.randrange(24 * 60) for _ in days]
    asked = days[-1] + datetime.timedelta(days=rng.randint(1, 10))
    return Question(
        question_id=f"gen{seed}_{index:04d}", question_type=kind, question=question,
        answer=answer, question_date=date_text(asked, rng.randrange(24 * 60)),
        session_ids=tuple(session_ids),
        dates=tuple(date_text(d, m) for d, m in zip(days, minutes)),
        sessions=tuple(sessions), evidence_ids=tuple(answer_ids), accepted=accepted)


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
