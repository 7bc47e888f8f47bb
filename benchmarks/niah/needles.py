"""Questions, needles and distractors: the JSON file's format, its checks, lexical overlap.

The format is documented in ``needles.json`` itself (its "about" field). A user replaces the
set with ``--niah-needle-file``; a malformed file is refused with one line naming the problem.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path

from fixtures.data.registry import import_nltk

DEFAULT_FILE = Path(__file__).with_name("needles.json")
FORMAT = "contextrot-niah-needles/1"
ID = re.compile(r"^[a-z][a-z0-9]*$")  # no "-": ids are joined with "-" in sample ids
MIN_DISTRACTORS = 1
# Function words left out of the overlap (question words and auxiliaries carry no topic).
STOPWORDS = frozenset("""
a an the and or but if of as at by for with about against between into through during before
after above below to from up down in out on off over under again further then once here there
when where why how all any both each few more most other some such no nor not only own same so
than too very can will just should now i me my myself we our you your he him his she her it its
they them their what which who whom this that these those am is are was were be been being have
has had having do does did doing would could shall may might must
""".split())


class NeedleFileError(ValueError):
    pass


@dataclasses.dataclass(frozen=True)
class Needle:
    id: str
    text: str
    answers: tuple[str, ...]
    lexical_overlap: float


@dataclasses.dataclass(frozen=True)
class Distractor:
    text: str
    answer: str
    changes: str = ""


@dataclasses.dataclass(frozen=True)
class Question:
    id: str
    question: str
    needles: tuple[Needle, ...]
    distractors: tuple[Distractor, ...]


@functools.lru_cache(maxsize=1)
def _stemmer():
    import_nltk()
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def content_stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return {_stemmer().stem(word) for word in words if word not in STOPWORDS}


def lexical_overlap(question: str, needle: str) -> float:
    """Share of the question's content-word stems that also occur in the needle (0 to 1)."""
    asked = content_stems(question)
    if not asked:
        return 0.0
    return round(len(asked & content_stems(needle)) / len(asked), 3)


NUMBER_WORDS = {word: str(value) for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def normalise(text: str) -> str:
    """The judges' comparison form: lower case, letters and digits only, single spaces, and
    number words as digits ("3 copper buttons" answers "three copper buttons")."""
    return " ".join(NUMBER_WORDS.get(word, word)
                    for word in re.findall(r"[a-z0-9]+", text.lower()))


@functools.lru_cache(maxsize=8)
def load(path: str | Path = DEFAULT_FILE) -> tuple[Question, ...]:
    """Read and check a needle file; raise NeedleFileError with the problem and the fix."""
    path = Path(path)
    where = f"--niah-needle-file {path}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise NeedleFileError(f"{where}: cannot read it ({error.strerror})") from None
    except json.JSONDecodeError as error:
        raise NeedleFileError(f"{where}: not valid JSON ({error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise NeedleFileError(f'{where}: set "format": "{FORMAT}" at the top level')
    raw_questions = data.get("questions")
    if not isinstance(raw_questions, list) or not raw_questions:
        raise NeedleFileError(f'{where}: "questions" must be a non-empty list')
    questions = tuple(_question(entry, f"{where}: question {i}")
                      for i, entry in enumerate(raw_questions))
    ids = [q.id for q in questions] + [n.id for q in questions for n in q.needles]
    if len(ids) != len(set(ids)):
        raise NeedleFileError(f"{where}: question and needle ids must be unique")
    return questions


def _id(entry: dict, where: str) -> str:
    value = _text(entry, "id", where)
    if not ID.match(value):
        raise NeedleFileError(f"{where}: id {value!r} must be lower-case letters and digits, "
                              "starting with a letter")
    return value


def _question(entry, where: str) -> Question:
    if not isinstance(entry, dict):
        raise NeedleFileError(f"{where}: must be an object")
    qid = _id(entry, where)
    question = _text(entry, "question", where)
    needles = tuple(_needle(n, question, f"{where} ({qid}) needle {j}")
                    for j, n in enumerate(_list(entry, "needles", where, 1)))
    distractors = tuple(_distractor(d, f"{where} ({qid}) distractor {j}")
                        for j, d in enumerate(_list(entry, "distractors", where,
                                                    MIN_DISTRACTORS)))
    phrases = [normalise(a) for n in needles for a in n.answers]
    wrong = [normalise(d.answer) for d in distractors]
    for index, phrase in enumerate(wrong):
        clash = [p for p in phrases + wrong[:index] + wrong[index + 1:]
                 if phrase in p or p in phrase]
        if clash:
            raise NeedleFileError(f"{where} ({qid}): distractor answer {phrase!r} overlaps "
                                  f"{clash[0]!r}; answers must not contain one another")
    return Question(qid, question, needles, distractors)


def _needle(entry, question: str, where: str) -> Needle:
    if not isinstance(entry, dict):
        raise NeedleFileError(f"{where}: must be an object")
    nid = _id(entry, where)
    text = _text(entry, "text", where)
    answers = entry.get("answer")
    answers = [answers] if isinstance(answers, str) else answers
    if not isinstance(answers, list) or not answers or not all(
            isinstance(a, str) and normalise(a) for a in answers):
        raise NeedleFileError(f'{where}: "answer" must be a phrase or a list of phrases')
    if not any(normalise(a) in normalise(text) for a in answers):
        raise NeedleFileError(f"{where}: the needle's text must contain one of its answers")
    overlap = lexical_overlap(question, text)
    stored = entry.get("lexical_overlap")
    if stored is not None and abs(float(stored) - overlap) > 0.001:
        raise NeedleFileError(f"{where}: lexical_overlap {stored} is stale, it computes to "
                              f"{overlap}; correct it or leave it out")
    return Needle(nid, text, tuple(answers), overlap)


def _distractor(entry, where: str) -> Distractor:
    if not isinstance(entry, dict):
        raise NeedleFileError(f"{where}: must be an object")
    text = _text(entry, "text", where)
    answer = _text(entry, "answer", where)
    if normalise(answer) not in normalise(text):
        raise NeedleFileError(f"{where}: the distractor's text must contain its answer")
    return Distractor(text, answer, str(entry.get("changes", "")))


def _text(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise NeedleFileError(f'{where}: "{key}" must be a non-empty string')
    return value.strip()


def _list(entry: dict, key: str, where: str, minimum: int) -> list:
    value = entry.get(key)
    if not isinstance(value, list) or len(value) < minimum:
        raise NeedleFileError(f'{where}: "{key}" must be a list of at least {minimum}')
    return value


def select(questions: tuple[Question, ...], choice: str) -> list[tuple[Question, Needle]]:
    """``default``: each question's first needle; ``all``; or comma-separated needle ids."""
    if choice == "default":
        return [(q, q.needles[0]) for q in questions]
    if choice == "all":
        return [(q, n) for q in questions for n in q.needles]
    wanted = [part.strip() for part in choice.split(",") if part.strip()]
    known = {n.id: (q, n) for q in questions for n in q.needles}
    unknown = [w for w in wanted if w not in known]
    if not wanted or unknown:
        raise NeedleFileError(f"--niah-needles {choice!r}: unknown needle "
                              f"{(unknown or [''])[0]!r}; use default, all or ids from "
                              f"{', '.join(known)}")
    return [known[w] for w in dict.fromkeys(wanted)]


if __name__ == "__main__":  # a table of the set: python -m benchmarks.niah.needles [file]
    import sys

    for q in load(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_FILE):
        print(f"{q.id}: {q.question}")
        for n in q.needles:
            print(f"  {n.id:10s} overlap {n.lexical_overlap:.3f}  {n.text}")
        for i, d in enumerate(q.distractors):
            print(f"  distractor {i}: {d.answer!r} ({d.changes})")
