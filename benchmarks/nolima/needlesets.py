"""Needle sets in NoLiMa's JSON format, and the tests NoLiMa's ``run_tests.py`` makes of them.

A set is a list of entries: ``id`` (its first four characters are digits: they seed the
character draws), ``needle`` (with ``{CHAR}`` and ``{1}``, ``{2}``... placeholders),
``questions`` (question type -> text), ``tests`` (test id -> ``{"input_args": [...],
"gold_answers": [...]}``, the answers optional), ``character_set``, ``system_prompt``, and
optionally ``distractors`` (question type -> text) and ``task_template``.

Each entry, question type and test is one test, named ``{id}_{test}_{question type}``, seeded
``42 + int(id[:4])`` (plus the haystack's position, stimulus.py). Placeholders are filled as
NoLiMa fills them, quirks kept (spec section 2): the needle takes every ``{k}``; the question
is filled from the *original* question for each argument present, so only its last
placeholder present is filled; the distractor likewise, and an entry's distractor with no
placeholder is not placed at all.

Every entry is checked where the set is read (fixtures/data/rows.py): a task template must name
``{haystack}`` and ``{question}`` and nothing else (a lone brace, ``{bogus}``, a template
without its haystack are refused); a needle without ``{CHAR}`` needs gold answers; names,
gold answers, questions and arguments are non-empty texts (an empty one is in every reply);
a ``{k}`` with no k-th argument is refused. One bad entry refuses the set with one line.

Two sources: NoLiMa's own sets (``needle_set.json`` ...: the user fetches them, see data.py)
and contextrot's own (``contextrot_latent.json``, ``contextrot_literal.json`` beside this
file: needles written for the project over public knowledge, each latent one with a literal
twin). contextrot's are never called NoLiMa's.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path

from fixtures.data import rows as check

HERE = Path(__file__).parent
OWN_SETS = {"contextrot_latent": HERE / "contextrot_latent.json",
            "contextrot_literal": HERE / "contextrot_literal.json"}
# NoLiMa's literal-match controls: the question names the needle's words
LITERAL_SETS = frozenset({"needle_set_ONLYDirect", "contextrot_literal"})
DEFAULT_TASK_TEMPLATE = (
    "You will answer a question based on the following book snippet:\n\n{haystack}\n\nUse the "
    "information provided in the book snippet to answer the question. Your answer should be "
    "short and based on either explicitly stated facts or strong, logical inferences.\n\n"
    "Question: {question}\n\n Return only the final answer with no additional explanation or "
    "reasoning.")
BASE_SEED = 42
CHAR = "{CHAR}"
TEMPLATE_FIELDS = ("haystack", "question")  # what fills a task template (str.format)
PLACEHOLDER = re.compile(r"\{(\d+)\}")
STEM = re.compile(r"^\w+$")  # a set's file stem: it becomes part of sample ids ("-" splits them)
TEST_ID = re.compile(r"^[^-\s]+$")


@dataclasses.dataclass(frozen=True)
class Test:
    """One test of a set: the needle, question and distractor with their arguments filled."""

    name: str  # {id}_{test id}_{question type}
    entry: str
    test: str
    question_type: str
    needle: str  # may hold {CHAR}
    question: str  # may hold {CHAR}
    distractor: str | None
    gold_answers: tuple[str, ...]  # used when the needle has no {CHAR}
    character_set: tuple[str, ...]
    task_template: str
    seed: int  # before the haystack's position is added

    @property
    def draws_character(self) -> bool:
        return CHAR in self.needle


def is_own(stem: str) -> bool:
    return stem in OWN_SETS


def is_literal(stem: str) -> bool:
    return stem in LITERAL_SETS or stem.endswith("ONLYDirect")


@functools.lru_cache(maxsize=16)
def load(path: Path) -> tuple[Test, ...]:
    """Every test of the set at ``path``, in NoLiMa's order (entries, question types, tests).
    A file that cannot be read as a needle set raises (read_checked names the file)."""
    entries = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ValueError("not a NoLiMa needle set (a JSON list of entries)")
    if not entries:
        raise ValueError("holds no entries")
    tests = []
    for number, entry in enumerate(entries):
        tests.extend(_expand(entry, number))
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})[0]
        raise ValueError(f"two tests are named {twice!r}")
    return tuple(tests)


def _expand(entry, number: int) -> list[Test]:
    if not isinstance(entry, dict):
        raise ValueError(f"entry {number} is not an object")
    missing = [k for k in ("id", "needle", "questions", "tests", "system_prompt")
               if k not in entry]
    if missing:
        raise ValueError(f"entry {number} has no field {missing[0]!r}")
    entry_id = str(entry["id"])
    if not entry_id[:4].isdigit() or len(entry_id) < 4 or not TEST_ID.match(entry_id):
        raise ValueError(f"entry {number}'s id {entry_id!r} does not start with four digits")
    needle, questions, tests = entry["needle"], entry["questions"], entry["tests"]
    if not isinstance(needle, str) or not isinstance(questions, dict) or not questions \
            or not isinstance(tests, dict) or not tests:
        raise ValueError(f"entry {entry_id}: 'needle' must be text and 'questions' and "
                         "'tests' non-empty objects")
    characters = entry.get("character_set", "")
    if CHAR in needle and (not isinstance(characters, list) or not characters
                           or not all(isinstance(c, str) for c in characters)):
        raise ValueError(f"entry {entry_id}: its needle has {{CHAR}} but no 'character_set' "
                         "list of names")
    where = f"entry {entry_id}"
    if CHAR in needle:  # an empty name is in every reply: it would always pass
        check.texts(entry, where, "character_set", empty=False)
    for question_type, question in questions.items():
        check.text(questions, where + "'s questions", question_type)
    distractors = entry.get("distractors")
    if distractors is not None:
        for question_type in questions:
            check.text(distractors if isinstance(distractors, dict) else {},
                       where + "'s distractors", question_type)
    template = check.template(entry.get("task_template", DEFAULT_TASK_TEMPLATE), where,
                              "task_template", TEMPLATE_FIELDS)
    found = []
    for question_type, question in questions.items():
        for test_id, test in tests.items():
            if not isinstance(test, dict) or not isinstance(test.get("input_args"), list):
                raise ValueError(f"entry {entry_id}: test {test_id!r} has no 'input_args' list")
            if not TEST_ID.match(str(test_id)) or not TEST_ID.match(str(question_type)):
                raise ValueError(f"entry {entry_id}: test {test_id!r} or question type "
                                 f"{question_type!r} holds a '-' or a space")
            found.append(_fill(entry_id, str(test_id), str(question_type), needle, question,
                               test, distractors, characters, template))
    return found


def _fill(entry_id, test_id, question_type, needle, question, test, distractors, characters,
          template) -> Test:
    where = f"entry {entry_id}, test {test_id!r}"
    arguments = check.texts(test, where, "input_args")
    full_needle, full_question, distractor = needle, question, None
    for number, argument in enumerate(arguments, start=1):
        placeholder = "{" + str(number) + "}"
        if placeholder in question:  # from the original question each time (NoLiMa's quirk)
            full_question = question.replace(placeholder, argument)
        full_needle = full_needle.replace(placeholder, argument)
        if distractors is not None and placeholder in distractors[question_type]:
            distractor = distractors[question_type].replace(placeholder, argument)
    if CHAR in full_question and CHAR not in full_needle:
        raise ValueError(f"entry {entry_id}: its question has {{CHAR}} but its needle has none")
    left = [m for m in PLACEHOLDER.findall(full_needle + full_question)
            if int(m) > len(arguments)]
    if left:  # (a question's placeholder left by NoLiMa's quirk is kept, as NoLiMa sends it)
        raise check.BadRow(f"{where}: its needle or question has {{{left[0]}}} but "
                           f"'input_args' has {len(arguments)}")
    # NoLiMa would test each character of a text: refused; an empty one is in every reply
    gold = check.texts(test, where, "gold_answers") if "gold_answers" in test else ()
    if CHAR not in full_needle and not gold:
        raise check.BadRow(f"{where}: its needle has no {{CHAR}} and no 'gold_answers': no "
                           "reply could ever pass")
    return Test(
        name=f"{entry_id}_{test_id}_{question_type}", entry=entry_id, test=test_id,
        question_type=question_type, needle=full_needle, question=full_question,
        distractor=distractor,
        gold_answers=gold,
        character_set=tuple(characters) if isinstance(characters, list) else (),
        task_template=template, seed=BASE_SEED + int(entry_id[:4]))
