"""The environment: a ledger of invoice records, built from a seed (spec section 1).

A ledger is the task's three fields (owner, category, earliest date), its records split
into P pages, and the gold (the needles' ids and the sum of their amounts). Records come from
one seeded stream, so the first n records are the same whatever the ledger's size; the
needles and near misses are drawn apart, placed at seeded depths (fractions of the ledger, so
fitting the size does not move them), and the stream is filtered so that no other record
matches two of the three conditions. Notes are stretches of the suite's own Gutenberg text
(benchmarks/texts), so pages read like real prose in any tokenizer.

The size is fitted (benchmarks/texts/fitting.py) so that the conversation that read every
page once (the trajectory: the tools, the task, one list_pages and P read_page calls with
their results) holds at most L tokens in the run's unit, as close as a record allows.
Building a 1M-token ledger is string work: about 10,000 records, 0.2 s of CPU with its text.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import random

from benchmarks.texts.fitting import calibrate, fit, per_tokenizer
from benchmarks.texts.haystack import corpus_texts

OWNERS = (
    "Ada Okafor", "Bruno Lindqvist", "Carmen Ruiz", "Dmitri Volkov", "Elena Marchetti",
    "Farid Haddad", "Grace Nakamura", "Hugo Delacroix", "Ingrid Solberg", "Jamal Bennett",
    "Keiko Tanaka", "Liam O'Connor", "Maya Patel", "Nikolai Petrov", "Olivia Hart",
    "Pedro Alvarez", "Quinn Foster", "Rosa Mendes", "Samuel Adeyemi", "Tara Kowalski",
    "Umar Siddiqui", "Vera Novak", "Walter Brandt", "Ximena Castro", "Yusuf Demir",
    "Zoe Whitaker", "Anders Berg", "Beatriz Lopes", "Chen Wei", "Dalia Farouk",
    "Emil Janssen", "Fatima Zahra", "Gideon Moss", "Hana Kim", "Isaac Levy",
    "Julia Romano", "Kofi Mensah", "Lucia Ferreira", "Marek Nowak", "Nadia Rahman",
    "Oscar Lindgren", "Priya Raman", "Rafael Ortiz", "Sofia Greco", "Tomas Horak",
    "Ursula Becker", "Victor Huang", "Wanda Sikora",
)
CATEGORIES = (
    "travel", "hardware", "software", "catering", "office supplies", "training", "legal",
    "marketing", "consulting", "shipping", "utilities", "maintenance", "recruiting",
    "insurance", "printing", "events",
)
YEAR = 2025
SYSTEM = ("You are an agent with tools over an invoice ledger. Use the tools to read it; "
          "answer only through the submit tool.")
TASK = ("Find every record whose owner is {owner} and whose category is {category}, dated on "
        "or after {date}. Read every page of the ledger with the tools, then call submit with "
        "the ids of all such records and the sum of their amount_cents.")
NOTE_CHARS = (120, 420)  # a note's length, drawn per record
AMOUNT_CENTS = (500, 250_000)
NEAR_MISS_KINDS = ("early", "other_category", "other_owner")  # the condition each one fails


@dataclasses.dataclass(frozen=True)
class Ledger:
    owner: str
    category: str
    date: str  # YYYY-MM-DD: the earliest date that qualifies
    pages: tuple[tuple[dict, ...], ...]
    gold_ids: tuple[str, ...]  # in ledger order
    gold_total: int
    needle_depths: tuple[float, ...]  # each needle's place in the ledger, 0 (first) to 1
    near_misses: int

    @property
    def task(self) -> str:
        return TASK.format(owner=self.owner, category=self.category, date=self.date)

    @property
    def records(self) -> int:
        return sum(len(page) for page in self.pages)

    @property
    def records_per_page(self) -> int:
        return max(len(page) for page in self.pages)

    @functools.cached_property
    def by_id(self) -> dict[str, dict]:
        return {record["id"]: record for page in self.pages for record in page}


# -- the text of notes -------------------------------------------------------------------
@functools.lru_cache(maxsize=1)
def note_source() -> str:
    """The Gutenberg selection as one line of prose (whitespace runs as single spaces)."""
    return " ".join(" ".join(text.split()) for _, text in corpus_texts())


def note(rng: random.Random, source: str) -> str:
    """A stretch of whole words, ``NOTE_CHARS`` long, from a seeded place in the corpus."""
    size = rng.randint(*NOTE_CHARS)
    start = source.find(" ", rng.randrange(len(source) - 2 * NOTE_CHARS[1])) + 1
    end = source.rfind(" ", start, start + size)
    return source[start:end if end > start else start + size]


# -- records -----------------------------------------------------------------------------
def _date(day: int) -> str:
    return (datetime.date(YEAR, 1, 1) + datetime.timedelta(days=day)).isoformat()


DAYS = 365


@dataclasses.dataclass(frozen=True)
class Task:
    owner: str
    category: str
    first_day: int  # the day of the year from which a record qualifies

    def matches(self, owner: str, category: str, day: int) -> int:
        return (owner == self.owner) + (category == self.category) + (day >= self.first_day)


def _record(rng: random.Random, used: set[str], source: str, owner: str, category: str,
            day: int) -> dict:
    while (record_id := f"inv-{rng.getrandbits(24):06x}") in used:
        pass
    used.add(record_id)
    return {"id": record_id, "owner": owner, "category": category, "date": _date(day),
            "amount_cents": rng.randint(*AMOUNT_CENTS), "note": note(rng, source)}


def _specials(seed: str, needles: int, source: str, used: set[str]
              ) -> tuple[Task, list[dict], list[dict], list[float]]:
    """The task, the needles, the near misses (at least as many as the needles, every kind
    once at least) and the depth of each (needles first)."""
    rng = random.Random(f"{seed}/task")
    task = Task(rng.choice(OWNERS), rng.choice(CATEGORIES), rng.randint(60, 300))
    others = [o for o in OWNERS if o != task.owner]
    kinds = [c for c in CATEGORIES if c != task.category]
    found = [_record(rng, used, source, task.owner, task.category,
                     rng.randint(task.first_day, DAYS - 1)) for _ in range(needles)]
    near = []
    for i in range(max(needles, len(NEAR_MISS_KINDS))):
        kind = NEAR_MISS_KINDS[i % len(NEAR_MISS_KINDS)]
        late = rng.randint(task.first_day, DAYS - 1)
        owner, category, day = {
            "early": (task.owner, task.category, rng.randint(0, task.first_day - 1)),
            "other_category": (task.owner, rng.choice(kinds), late),
            "other_owner": (rng.choice(others), task.category, late)}[kind]
        near.append(_record(rng, used, source, owner, category, day))
    depths = [rng.random() for _ in found + near]
    return task, found, near, depths


def _filler(seed: str, task: Task, source: str, used: set[str]):
    """Records that match at most one of the task's three conditions, endlessly."""
    rng = random.Random(f"{seed}/records")
    while True:
        owner, category, day = rng.choice(OWNERS), rng.choice(CATEGORIES), rng.randrange(DAYS)
        if task.matches(owner, category, day) < 2:
            yield _record(rng, used, source, owner, category, day)


def build(seed: str, needles: int, pages: int, size: int) -> Ledger:
    """A ledger of ``size`` records (at least ``minimum_size``) in ``pages`` pages."""
    source = note_source()
    used: set[str] = set()
    task, found, near, depths = _specials(seed, needles, source, used)
    specials = found + near
    places: dict[int, dict] = {}
    for record, depth in zip(specials, depths):
        at = min(int(depth * size), size - 1)
        while at in places:  # two at one place: the next free one, round the end
            at = (at + 1) % size
        places[at] = record
    stream = _filler(seed, task, source, used)
    records = [places[i] if i in places else next(stream) for i in range(size)]
    cuts = [round(size * p / pages) for p in range(pages + 1)]
    paged = tuple(tuple(records[a:b]) for a, b in zip(cuts, cuts[1:]))
    where = {id(record): i for i, record in enumerate(records)}
    gold = sorted(found, key=lambda r: where[id(r)])
    return Ledger(task.owner, task.category, _date(task.first_day), paged,
                  tuple(r["id"] for r in gold), sum(r["amount_cents"] for r in gold),
                  tuple(where[id(r)] / max(size - 1, 1) for r in gold), len(near))


def minimum_size(needles: int, pages: int) -> int:
    """Every page holds a record, and the needles and near misses leave room for others."""
    return max(2 * pages, 2 * needles + len(NEAR_MISS_KINDS) + pages)


# -- fitting to a length -----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Conversation:
    """A size's ledger and the text the run's unit counts for the trajectory that read it."""
    ledger: Ledger
    text: str


class LedgerMaker:
    """benchmarks/texts/fitting.py's maker: the trajectory's text at ``n`` records."""

    def __init__(self, seed: str, needles: int, pages: int, counted_text):
        self.seed, self.needles, self.pages = seed, needles, pages
        self.counted_text = counted_text  # Ledger -> the text of its whole trajectory
        self.minimum = minimum_size(needles, pages)

    def prompt(self, n: int) -> Conversation:
        ledger = build(self.seed, self.needles, self.pages, n)
        return Conversation(ledger, self.counted_text(ledger))


@per_tokenizer
def calibration(length: int, needles: int, pages: int, counted_text, *, tokenizer
                ) -> tuple[int, float]:
    """A probe ledger's size at ``length`` and the tokens a record costs, once per process
    and unit: each sample then starts there (one or two counts, not a search)."""
    maker = LedgerMaker(f"agent_accumulation/probe/{length}", needles, pages, counted_text)
    return calibrate(maker, tokenizer.count, length)


def fitted(seed: str, needles: int, pages: int, length: int, counted_text, tokenizer
           ) -> tuple[Ledger, int]:
    """The largest ledger whose trajectory holds at most ``length`` tokens, and its count.
    TooShort (a ValueError) where even the smallest does not fit."""
    start, unit = calibration(length, needles, pages, counted_text, tokenizer=tokenizer)
    result = fit(LedgerMaker(seed, needles, pages, counted_text), tokenizer.count, length,
                 start, unit)
    return result.prompt.ledger, result.tokens


def dumps(value) -> str:
    """JSON text as every tool result and argument is written: UTF-8 as it is."""
    return json.dumps(value, ensure_ascii=False)

