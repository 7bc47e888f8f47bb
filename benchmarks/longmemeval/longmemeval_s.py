"""LongMemEval's own data (``longmemeval_s``, MIT): 500 questions, each with its whole history.

The registry's copy is the cleaned release (``xiaowu0162/longmemeval-cleaned``,
``longmemeval_s_cleaned.json``); ``--longmemeval-file`` reads another copy in the same
layout (a JSON list of LongMemEval's instances) as is. Only Chroma's three question types are
kept unless ``--longmemeval-types`` says otherwise.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from .history import Question

REGISTRY_NAME = "longmemeval/longmemeval_s_cleaned.json"
FIELDS = ("question_id", "question_type", "question", "answer", "question_date",
          "haystack_session_ids", "haystack_dates", "haystack_sessions", "answer_session_ids")
FIX = "give LongMemEval's longmemeval_s.json (a JSON list of its instances)"


def read_questions(path: Path) -> tuple[Question, ...]:
    with path.open(encoding="utf-8") as handle:
        entries = json.load(handle)
    if not isinstance(entries, list):
        raise ValueError("not a JSON list of LongMemEval instances")
    if not entries:
        raise ValueError("no instances")
    questions = []
    for entry in entries:
        lacking = [f for f in FIELDS if f not in entry]
        if lacking:
            raise ValueError(f"not LongMemEval instances (no {', '.join(lacking)} field)")
        sessions = tuple(tuple(dict(turn) for turn in session)
                         for session in entry["haystack_sessions"])
        if not all("role" in t and "content" in t for s in sessions for t in s):
            raise ValueError("a session turn without a role or content")
        questions.append(Question(
            question_id=str(entry["question_id"]), question_type=str(entry["question_type"]),
            question=str(entry["question"]), answer=str(entry["answer"]),
            question_date=str(entry["question_date"]),
            session_ids=tuple(map(str, entry["haystack_session_ids"])),
            dates=tuple(map(str, entry["haystack_dates"])), sessions=sessions,
            evidence_ids=tuple(map(str, entry["answer_session_ids"]))))
    return tuple(questions)


@functools.lru_cache(maxsize=2)
def questions(path: str) -> tuple[Question, ...]:
    from fixtures.data import read_checked

    return read_checked(Path(path), read_questions, FIX)


def path(given: list[str] | None) -> str:
    if given:
        if len(given) > 1:
            raise ValueError("--longmemeval-file: give one longmemeval_s.json for "
                             "--longmemeval-source longmemeval")
        if not Path(given[0]).expanduser().is_file():
            raise ValueError(f"--longmemeval-file {given[0]}: no such file; {FIX}")
        return str(Path(given[0]).expanduser())
    from fixtures.data import data_file

    return str(data_file(REGISTRY_NAME))


def present() -> bool:
    from fixtures.data import data_dir

    return (data_dir() / REGISTRY_NAME).is_file()
