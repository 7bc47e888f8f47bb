"""Every row of a LongMemEval file is checked where it is read: a row that would be sent or
judged as something it does not mean (an empty prompt, "nan" for a null answer, two rows
folded into one question, a count of inf, sessions without their dates, evidence that names
no session) refuses the file with one line naming the file, the row and the fix, under
--plan too, and nothing is sent. The broken files are written by the tests' own helpers in
each source's schema, broken one way each."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from benchmarks.longmemeval import chroma, longmemeval_s
from fixtures.data.registry import DataUnavailable
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_scripted
from .helpers import JUDGE, chroma_csvs, chroma_rows, longmemeval_file, short_only, write_rows


def changed(index: int = 1, **fields) -> list[dict]:
    rows = chroma_rows()
    rows[index].update(fields)
    return rows


CHROMA_CASES = {  # name: (suffix, rows, the problem the line names)
    "focused-prompt-empty": (".parquet", changed(focused_input=""),
                             "row 1 (id01): 'focused_input' is empty text, not text"),
    "full-prompt-null": (".jsonl", changed(full_input=None),
                         "row 1 (id01): 'full_input' is NaN (an empty cell or null), not text"),
    "answer-null-jsonl": (".jsonl", changed(answer=None), "row 1 (id01): 'answer' is "),
    "answer-null-parquet": (".parquet", changed(answer=None),
                            "row 1 (id01): 'answer' is null, not text"),
    "question-empty-csv": (".csv", changed(question=""),
                           "row 1 (id01): 'question' is empty text, not text"),
    "question-nan-jsonl": (".jsonl", changed(question=math.nan), "row 1 (id01): 'question' is "),
    "token-count-inf": (".parquet", changed(full_input_tokens=math.inf),
                        "row 1 (id01): 'full_input_tokens' is a number (inf), not a count"),
    "token-count-negative": (".parquet", changed(focused_input_tokens=-3),
                             "row 1 (id01): 'focused_input_tokens' is a number (-3), not a count"),
    "custom-id-twice": (".csv", changed(2, custom_id="id00"),
                        "row 0 (id00) and row 2 (id00) have the same custom_id 'id00'"),
}


@pytest.mark.parametrize("name", CHROMA_CASES)
def test_a_bad_chroma_row_refuses_the_file_with_one_line(tmp_path, name):
    suffix, rows, problem = CHROMA_CASES[name]
    path = write_rows(tmp_path / f"rows{suffix}", rows)
    with pytest.raises(DataUnavailable) as raised:
        chroma.rows((str(path),))
    line = str(raised.value)
    assert line.startswith(f"{path}: {problem}") and line.endswith(chroma.FIX), line
    assert "\n" not in line


def test_a_count_of_inf_in_chromas_csv_is_refused_too(tmp_path):
    focused, full = chroma_csvs(tmp_path, changed(full_input_tokens="inf"))
    with pytest.raises(DataUnavailable, match=r"full\.csv: row 1 \(id01\): 'token_count' is "
                                              r"text \('inf'\), not a count"):
        chroma.rows((str(full), str(focused)))


def test_a_number_as_the_answer_is_its_digits_and_a_missing_count_is_none(tmp_path):
    rows = changed(answer=7)
    rows[0]["full_input_tokens"] = None
    found = chroma.rows((str(write_rows(tmp_path / "rows.jsonl", rows)),))
    assert found[1].answer == "7" and found[0].count("full") is None


def instances(path: Path, change) -> Path:
    """LongMemEval's layout (helpers), instance 1 changed by ``change``."""
    longmemeval_file(path, count=2)
    entries = json.loads(path.read_text())
    change(entries[1])
    path.write_text(json.dumps(entries))
    return path


LME_CASES = {
    "dates-shorter-than-sessions": (lambda e: e["haystack_dates"].pop(),
                                    r"instance 1 \(q1\): (\d+) haystack_sessions, (\d+) "
                                    r"haystack_dates and \d+ haystack_session_ids: one of each"),
    "evidence-names-no-session": (lambda e: e["answer_session_ids"].append("nowhere"),
                                  r"instance 1 \(q1\): its evidence session 'nowhere' "
                                  r"\(answer_session_ids\) is none of its haystack_session_ids"),
    "no-evidence": (lambda e: e.update(answer_session_ids=[]),
                    r"instance 1 \(q1\): 'answer_session_ids' is an empty list"),
    "answer-null": (lambda e: e.update(answer=None),
                    r"instance 1 \(q1\): 'answer' is null, not text"),
    "question-empty": (lambda e: e.update(question=" "),
                       r"instance 1 \(q1\): 'question' is empty text, not text"),
    "question-id-twice": (lambda e: e.update(question_id="q0"),
                          r"instance 0 \(q0\) and instance 1 \(q0\) have the same question_id"),
    "turn-content-null": (lambda e: e["haystack_sessions"][0][0].update(content=None),
                          r"instance 1 \(q1\): session '.*' has a turn whose content is null"),
    "dates-a-text": (lambda e: e.update(haystack_dates="2023/05/20"),
                     r"instance 1 \(q1\): 'haystack_dates' is one text"),
}


@pytest.mark.parametrize("name", LME_CASES)
def test_a_bad_longmemeval_instance_refuses_the_file_with_one_line(tmp_path, name):
    change, problem = LME_CASES[name]
    path = instances(tmp_path / "s.json", change)
    with pytest.raises(DataUnavailable) as raised:
        longmemeval_s.questions(str(path))
    line = str(raised.value)
    assert re.match(rf"{re.escape(str(path))}: {problem}", line), line
    assert line.endswith(longmemeval_s.FIX) and "\n" not in line


def test_a_numeric_answer_is_read_as_its_digits(tmp_path):
    path = instances(tmp_path / "s.json", lambda e: e.update(answer=3))
    assert longmemeval_s.questions(str(path))[1].answer == "3"


# -- as a user meets it: one line, nothing sent, with and without --plan -------------------
@pytest.mark.parametrize("plan", [False, True])
def test_a_run_on_an_empty_prompt_is_one_line_and_sends_nothing(tmp_path, plan):
    path = write_rows(tmp_path / "rows.parquet", changed(focused_input=""))
    with ScriptedServer(short_only({}, 3000)) as server:
        done = run_scripted("longmemeval", server.base_url, tmp_path / "results",
                            "--longmemeval-file", str(path), "--judge-model", JUDGE,
                            *(["--plan"] if plan else []))
        sent = list(server.requests)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert re.search(rf"^longmemeval: {re.escape(str(path))}: row 1 \(id01\): 'focused_input' "
                     rf"is empty text, not text; give Chroma's LongMemEval rows", output,
                     re.MULTILINE), output[-3000:]
    assert "Traceback" not in output and not [r for r in sent if r.get("messages")]


@pytest.mark.parametrize("plan", [False, True])
def test_a_run_on_sessions_without_their_dates_is_one_line(tmp_path, plan):
    path = instances(tmp_path / "s.json", lambda e: e["haystack_dates"].pop())
    with ScriptedServer(short_only({}, 3000)) as server:
        done = run_scripted("longmemeval", server.base_url, tmp_path / "results",
                            "--longmemeval-source", "longmemeval", "--longmemeval-file",
                            str(path), "--judge-model", JUDGE, "--longmemeval-types",
                            "knowledge-update,multi-session,temporal-reasoning,"
                            "single-session-user", *(["--plan"] if plan else []))
        sent = list(server.requests)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert re.search(rf"^longmemeval: {re.escape(str(path))}: instance 1 \(q1\): \d+ "
                     r"haystack_sessions, \d+ haystack_dates", output, re.MULTILINE), \
        output[-3000:]
    assert "Traceback" not in output and not [r for r in sent if r.get("messages")]
