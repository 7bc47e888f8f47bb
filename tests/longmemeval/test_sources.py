"""Reading Chroma's rows (openbench's columns, Chroma's CSVs; parquet, CSV, JSONL) and
LongMemEval's file; a bad file is one line naming it and the fix."""

from __future__ import annotations

import pytest

from benchmarks.longmemeval import chroma, longmemeval_s
from fixtures.data.registry import DataUnavailable

from .helpers import chroma_csvs, chroma_rows, longmemeval_file, write_rows


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_openbench_columns_in_each_format(tmp_path, suffix):
    rows = chroma_rows()
    path = write_rows(tmp_path / f"rows{suffix}", rows)
    found = chroma.rows((str(path),))
    assert [r.question_id for r in found] == [r["custom_id"] for r in rows]
    for row, raw in zip(found, rows):
        assert row.prompt("focused") == raw["focused_input"]
        assert row.prompt("full") == raw["full_input"]
        assert (row.count("focused"), row.count("full")) == (20, 2000)
        assert (row.question, row.answer, row.question_type) == (raw["question"], raw["answer"],
                                                                 "unknown")


def test_chromas_two_csvs_are_joined_on_custom_id(tmp_path):
    rows = chroma_rows()
    focused, full = chroma_csvs(tmp_path, rows)
    found = chroma.rows((str(full), str(focused)))
    assert [r.question_id for r in found] == [r["custom_id"] for r in rows]
    assert all(r.prompt("focused") == raw["focused_input"] and r.prompt("full") ==
               raw["full_input"] for r, raw in zip(found, rows))
    alone = chroma.rows((str(focused),))
    assert all(dict(r.prompts).keys() == {"focused"} for r in alone)


@pytest.mark.parametrize(("content", "line"), [
    (b"", "rows.csv: No columns to parse from file"),
    (b"question,answer\n", "rows.csv: no rows"),
    (b"question,answer\nq,a\n", "rows.csv: not LongMemEval rows (no focused_input/full_input"),
    (b"text\nq\n", "rows.csv: not LongMemEval rows (no question, answer, "),
])
def test_a_bad_file_is_one_line_naming_it_and_the_fix(tmp_path, content, line):
    path = tmp_path / "rows.csv"
    path.write_bytes(content)
    with pytest.raises(DataUnavailable) as raised:
        chroma.rows((str(path),))
    assert line in str(raised.value) and str(raised.value).endswith(chroma.FIX)


def test_a_missing_file_is_named_with_the_fix(tmp_path):
    with pytest.raises(ValueError, match=r"--longmemeval-file .*nope.parquet: no such file; "
                                         "give Chroma's LongMemEval rows"):
        chroma.paths([str(tmp_path / "nope.parquet")])


def test_longmemevals_file_is_read_in_its_layout(tmp_path):
    path = longmemeval_file(tmp_path / "s.json", count=2)
    found = longmemeval_s.questions(str(path))
    assert [q.question_id for q in found] == ["q0", "q1"]
    assert all(q.evidence_positions() for q in found)
    (tmp_path / "bad.json").write_text('[{"question_id": "x"}]')
    with pytest.raises(DataUnavailable, match=r"bad.json: not LongMemEval instances \(no "
                                              "question_type"):
        longmemeval_s.questions(str(tmp_path / "bad.json"))
