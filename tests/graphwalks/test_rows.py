"""Every row of openai/graphwalks' files is checked where it is read: a row that would be
sent or graded as something it does not mean refuses the file with one line naming the file,
the row and the fix (under --plan too), and nothing is sent; a file without ``date_added``
(older revisions) runs as the 2025 rows. The broken files are the original's schema, written
by the tests' own helpers and broken one way each."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks.graphwalks import original
from fixtures.data.registry import DataUnavailable
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_records, run_scripted
from .helpers import original_row, player
from .test_end_to_end import CONTEXT, generated_prompt

FIX = "; replace it with openai/graphwalks' file"


def good_rows() -> list[dict]:
    return [original_row(generated_prompt(kind, 1000, index), kind)
            for index, kind in enumerate(("bfs", "parents"))]


def write(folder: Path, rows: list[dict], schema: pa.Schema | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / original.FILES[0][0]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return folder


def broken(**changes) -> list[dict]:
    """The good rows with row 1's fields changed (row 0's too where a column's type must
    change: a parquet column holds one type)."""
    rows = good_rows()
    rows[1].update(changes)
    return rows


CASES = {  # name: (rows, the problem the line names)
    "prompt-a-number": ([{**r, "prompt": 42} for r in good_rows()],
                        "row 0: 'prompt' is a number (42), not text"),
    "prompt-null": (broken(prompt=None), "row 1: 'prompt' is null, not text"),
    "prompt-empty": (broken(prompt="  "), "row 1: 'prompt' is empty text, not text"),
    "answer-nodes-null": (broken(answer_nodes=None), "row 1: 'answer_nodes' is null, not a "
                                                     "list of texts"),
    "answer-nodes-one-comma-joined-text": (
        [{**r, "answer_nodes": ", ".join(r["answer_nodes"])} for r in good_rows()],
        "row 0: 'answer_nodes' is one text ("),
    "answer-nodes-an-empty-id": (broken(answer_nodes=["c4ca4238a0", ""]),
                                 "row 1: 'answer_nodes' holds empty text, not only texts"),
    "problem-type-unknown": (broken(problem_type="dfs"),
                             "row 1: 'problem_type' is text ('dfs'), not one of 'bfs', "
                             "'parents'"),
    "prompt-chars-null": (broken(prompt_chars=None), "row 1: 'prompt_chars' is null, not a "
                                                     "count"),
    "date-added-null": (broken(date_added=None), "row 1: 'date_added' is null, not text"),
}


@pytest.mark.parametrize("name", CASES)
def test_a_bad_row_refuses_the_file_with_one_line_naming_it(tmp_path, name):
    rows, problem = CASES[name]
    folder = write(tmp_path, rows)
    with pytest.raises(DataUnavailable) as raised:
        original.Rows([folder / original.FILES[0][0]], len)
    line = str(raised.value)
    assert line.startswith(f"{folder / original.FILES[0][0]}: {problem}"), line
    assert line.endswith(original.FIX) and "\n" not in line


def test_a_file_without_date_added_holds_the_2025_rows(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "date_added"} for r in good_rows()]
    found = original.Rows([write(tmp_path, rows) / original.FILES[0][0]], len)
    assert {r["date_added"] for r in found.rows} == {original.DATES["2025"]}
    assert found.candidates("bfs", "2025") == [0] and found.candidates("bfs", "2026") == []


def test_the_registry_pins_the_2026_revision_with_both_digests():
    from fixtures.data.registry import REGISTRY

    entries = [REGISTRY[f"{original.FOLDER}/{name}"] for name, _ in original.FILES]
    assert all(original.REVISION in e.url and len(e.sha256) == 64 for e in entries)
    assert original.REVISION == "f338bb265735a56a79f4b0f5def722c9c3268ead"


# -- as a user meets it: one line, nothing sent, with and without --plan; and a run --------
@pytest.mark.parametrize(("name", "extra"), [
    *(pytest.param(name, extra, id=f"{name}-{label}")
      for name in ("answer-nodes-one-comma-joined-text", "prompt-a-number")
      for label, extra in (("run", []), ("plan", ["--plan"]))),
    pytest.param("prompt-a-number", ["-n", "16"], id="prompt-a-number-n16")])
def test_a_run_on_a_bad_row_is_one_line_and_sends_nothing(tmp_path, name, extra):
    """Each sample fails with the line; nothing is sent."""
    rows, problem = CASES[name]
    folder = write(tmp_path / "graphwalks", rows)
    with ScriptedServer(player(), context_length=CONTEXT) as server:
        done = run_scripted("graphwalks", server.base_url, tmp_path / "results",
                            "--graphwalks-source", "original", "--graphwalks-original-dir",
                            str(folder), "--graphwalks-lengths", "1k", *extra)
        sent = list(server.requests)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert re.search(rf"{re.escape(str(folder / original.FILES[0][0]))}: "
                     rf"{re.escape(problem)}.*{re.escape(FIX)}", output), output[-3000:]
    assert "Traceback" not in output and not sent


def test_a_file_without_date_added_runs_and_two_spaces_after_the_colon_score_1(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "date_added"} for r in good_rows()]
    folder = write(tmp_path / "graphwalks", rows)
    spaced = player(shape=lambda nodes: f"Final Answer:  [{', '.join(nodes)}]")
    with ScriptedServer(spaced, context_length=CONTEXT) as server:
        done = run_scripted("graphwalks", server.base_url, tmp_path / "results",
                            "--graphwalks-source", "original", "--graphwalks-original-dir",
                            str(folder), "--graphwalks-lengths", "1k")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = run_records(tmp_path / "results")
    assert len(found) == 2 and all(r["scores"]["f1"] == 1.0 for r in found)
    assert {r["details"]["date_added"] for r in found} == {"04-12-2025"}
