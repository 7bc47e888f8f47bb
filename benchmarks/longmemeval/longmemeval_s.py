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

from fixtures.data import rows as check

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
    questions = [_question(entry, number) for number, entry in enumerate(entries)]
    check.unique(((f"instance {n} ({q.question_id})", q.question_id)
                  for n, q in enumerate(questions)), "question_id")
    return tuple(questions)


def _question(entry, number: int) -> Question:
    """One instance, checked (fixtures/data/rows.py): texts that are text (an answer may be a
    number, as LongMemEval writes some), one date and one id per session, turns with a role
    and text, and evidence ids that each name one of its sessions."""
    if not isinstance(entry, dict):
        raise check.BadRow(f"instance {number} is {check.shown(entry)}, not an object")
    lacking = [f for f in FIELDS if f not in entry]
    if lacking:
        raise ValueError(f"not LongMemEval instances (no {', '.join(lacking)} field)")
    where = f"instance {number}"
    question_id = check.text(entry, where, "question_id")
    where = f"instance {number} ({question_id})"
    session_ids = check.texts(entry, where, "haystack_session_ids", empty=False)
    dates = check.texts(entry, where, "haystack_dates", empty=False)
    raw_sessions = entry["haystack_sessions"]
    if not isinstance(raw_sessions, list) or not all(isinstance(s, list) for s in raw_sessions):
        raise check.BadRow(f"{where}: 'haystack_sessions' is not a list of sessions (lists "
                           "of turns)")
    if not len(session_ids) == len(dates) == len(raw_sessions):
        raise check.BadRow(f"{where}: {len(raw_sessions)} haystack_sessions, "
                           f"{len(dates)} haystack_dates and {len(session_ids)} "
                           "haystack_session_ids: one of each per session")
    for session, turns in zip(session_ids, raw_sessions):
        for turn in turns:
            if not isinstance(turn, dict) or "role" not in turn or "content" not in turn:
                raise ValueError("a session turn without a role or content")
            for field in ("role", "content"):
                if not isinstance(turn[field], str):
                    raise check.BadRow(f"{where}: session {session!r} has a turn whose "
                                       f"{field} is {check.shown(turn[field])}, not text")
    evidence = check.texts(entry, where, "answer_session_ids", empty=False)
    unknown = [e for e in evidence if e not in set(session_ids)]
    if unknown:
        raise check.BadRow(f"{where}: its evidence session {unknown[0]!r} "
                           "(answer_session_ids) is none of its haystack_session_ids")
    return Question(
        question_id=question_id, question_type=check.text(entry, where, "question_type"),
        question=check.text(entry, where, "question"),
        answer=check.text_or_number(entry, where, "answer"),
        question_date=check.text(entry, where, "question_date"),
        session_ids=session_ids, dates=dates,
        sessions=tuple(tuple(dict(turn) for turn in session) for session in raw_sessions),
        evidence_ids=evidence)


@functools.lru_cache(maxsize=2)
def questions(path: str) -> tuple[Question, ...]:
    from fixtures.data.registry import read_checked

    return read_checked(Path(path), read_questions, FIX)


def path(given: list[str] | None) -> str:
    if given:
        if len(given) > 1:
            raise ValueError("--longmemeval-file: give one longmemeval_s.json for "
                             "--longmemeval-source longmemeval")
        if not Path(given[0]).expanduser().is_file():
            raise ValueError(f"--longmemeval-file {given[0]}: no such file; {FIX}")
        return str(Path(given[0]).expanduser())
    from fixtures.data.registry import data_file

    return str(data_file(REGISTRY_NAME))


def present() -> bool:
    from fixtures.data.registry import data_dir

    return (data_dir() / REGISTRY_NAME).is_file()
