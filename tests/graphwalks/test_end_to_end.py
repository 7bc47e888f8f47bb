"""GraphWalks runs end to end: pytest in a subprocess, the real openai client, the scripted
server playing a model that reads the graph from the prompt (exactly, or every node within
D hops), the original's rows from small files in its schema, the store and the report."""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from benchmarks.graphwalks import original, stimulus
from tests.doubles.scripted_server import ScriptedServer
from fixtures.tokens.tokenizer import o200k

from ..data_dir import env_without
from ..subprocess_pytest import run_pytest, run_records, run_scripted
from .helpers import exact, original_row, player, within_hops

CONTEXT = 4_000_000  # the scripted server's context: nothing here overflows


def run(server: ScriptedServer, results: Path, *extra: str) -> subprocess.CompletedProcess:
    """A run whose data directory lacks the original's files (the ``auto`` source would take
    them wherever a user fetched them): a test that wants them gives their folder."""
    return run_scripted("graphwalks", server.base_url, results, *extra,
                        env=env_without(results.parent / "data-without-graphwalks", "graphwalks"))


records = run_records


def mean_f1(found: list[dict], kind: str, score: str = "f1") -> float:
    return statistics.fmean(r["scores"][score] for r in found
                            if r["details"]["problem_type"] == kind)


def test_a_model_reading_the_graph_scores_1_at_test_scale(tmp_path):
    with ScriptedServer(exact, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert sorted(r["sample_id"] for r in found) == [
        "gen-bfs-ctx1280t-s000", "gen-bfs-ctx1k-s000", "gen-parents-ctx1280t-s000",
        "gen-parents-ctx1k-s000"]
    assert all(r["outcome"] == "ok" and r["scores"]["f1"] == 1.0
               and r["scores"]["flexible_f1"] == 1.0 for r in found)
    assert {r["details"]["problem_type"] for r in found} == {"bfs", "parents"}
    # the prompt alone fills its length (o200k); the test scale caps the reply, temperature 0
    assert all(0.85 <= r["target_tokens"] / r["params"]["length"] <= 1.0 for r in found)
    assert all(r["max_tokens"] == 2 * r["details"]["answer_tokens"] + 16 for r in found)
    assert all(request["temperature"] == 0 and len(request["messages"]) == 1
               for request in server.requests)
    assert (tmp_path / "results" / "run" / "plots" / "graphwalks" / "curve-generated.png"
            ).is_file()
    assert "GraphWalks generated, bfs: f1 1.000" in done.stdout


def test_a_model_reading_the_graph_scores_1_at_full_scale_at_8k_and_32k(tmp_path):
    with ScriptedServer(exact, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--scale", "full", "--graphwalks-lengths",
                   "8k,32k", "--graphwalks-samples", "3")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert len(found) == 2 * 2 * 3 and all(r["outcome"] == "ok" for r in found)
    for length in (8192, 32768):
        mine = [r for r in found if r["params"]["length"] == length]
        assert statistics.fmean(r["scores"]["f1"] for r in mine) >= 0.99
        assert all(0.85 * length <= r["target_tokens"] <= length for r in mine)
    # full scale: the original's users' 16k output room, no sampling parameter sent
    assert all(request["max_tokens"] == 16384 and "temperature" not in request
               for request in server.requests)


def test_a_model_returning_every_node_within_d_hops_scores_at_most_09_on_bfs(tmp_path):
    with ScriptedServer(within_hops, context_length=CONTEXT) as server:
        test_scale = run(server, tmp_path / "test")
        full_scale = run(server, tmp_path / "full", "--scale", "full", "--graphwalks-lengths",
                         "8k,32k", "--graphwalks-samples", "4")
    for done, results in ((test_scale, tmp_path / "test"), (full_scale, tmp_path / "full")):
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        found = records(results)
        assert mean_f1(found, "bfs") <= 0.9
        assert mean_f1(found, "parents") == 1.0  # parents have no depth to misread


def test_a_reply_with_text_after_the_answer_is_strict_0_flexible_1_and_a_parse_failure(
        tmp_path):
    chatty = player(shape=lambda nodes: f"Final Answer: [{', '.join(nodes)}]\nDone.")
    with ScriptedServer(chatty, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--graphwalks-lengths", "1k")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert all(r["scores"] == {"f1": 0.0, "flexible_f1": 1.0, "parsed": False,
                               "f1_lm_eval": 0.0} for r in found)
    assert "parse failures 1" in done.stdout


def test_the_fit_counts_in_the_servers_own_tokens_with_tokenizer_server(tmp_path):
    with ScriptedServer(exact, context_length=CONTEXT, tokenizer="toy") as server:
        done = run(server, tmp_path / "results", "--tokenizer", "server",
                   "--graphwalks-lengths", "2k")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert all(r["token_unit"] != "o200k_base" and r["scores"]["f1"] == 1.0 for r in found)
    assert all(0.85 <= r["details"]["prompt_tokens"] / 2048 <= 1.0 for r in found)
    assert all(r["o200k_tokens"] > 1.2 * r["details"]["prompt_tokens"] for r in found)  # hex ids


# -- the original's rows -------------------------------------------------------------------
def write_files(folder: Path, rows: list[dict], second: list[dict] | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), folder / original.FILES[0][0])
    if second is not None:
        pq.write_table(pa.Table.from_pylist(second), folder / original.FILES[1][0])


def generated_prompt(kind: str, length: int, index: int, version: str = "2025") -> str:
    return stimulus.generate(kind, length, version, f"graphwalks/original/{index}",
                             o200k()).prompt.text


@pytest.fixture(scope="module")
def original_dir(tmp_path_factory) -> Path:
    """Rows in the original's schema: two bfs and two parents rows under 1k o200k tokens,
    one of each in (1k, 1.5k], two rows of the 2026 prompt, and the second file's row."""
    rows = [original_row(generated_prompt(kind, length, index), kind)
            for kind in ("bfs", "parents") for length, index in ((1000, 0), (1024, 1),
                                                                 (1536, 2))]
    rows += [original_row(generated_prompt(kind, 1024, 3, "2026"), kind, "02-27-2026")
             for kind in ("bfs", "parents")]
    folder = tmp_path_factory.mktemp("graphwalks")
    write_files(folder, rows, [original_row(generated_prompt("bfs", 4096, 4), "bfs")])
    return folder


def test_original_rows_are_sent_unchanged_binned_by_length_and_scored(original_dir, tmp_path):
    written = pq.read_table(original_dir / original.FILES[0][0]).to_pylist()
    with ScriptedServer(exact, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--graphwalks-original-dir", str(original_dir),
                   "--graphwalks-samples", "2", "--graphwalks-lengths", "1k,1.5k")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = {r["sample_id"]: r for r in records(tmp_path / "results")}
    assert {i for i, r in found.items() if r["outcome"] == "ok"} == {
        "oai-bfs-ctx1k-s000", "oai-bfs-ctx1k-s001", "oai-parents-ctx1k-s000",
        "oai-parents-ctx1k-s001", "oai-bfs-ctx1.5k-s000", "oai-parents-ctx1.5k-s000"}
    assert "has 1 bfs rows of the 2025 prompt in (1024, 1536] tokens, not 2" in \
        found["oai-bfs-ctx1.5k-s001"]["reason"]
    sent = [request["messages"] for request in server.requests]
    assert all(len(m) == 1 and m[0]["role"] == "user" for m in sent)
    assert sorted(m[0]["content"] for m in sent) == sorted(
        row["prompt"] for row in written if row["date_added"] == "04-12-2025")
    for record in found.values():
        if record["outcome"] == "ok":
            assert record["scores"]["f1"] == 1.0 and record["details"]["split"] == "<128k"
            assert record["details"]["date_added"] == "04-12-2025"
            assert record["target_tokens"] <= record["params"]["length"]
            assert record["params"]["source"] == "original"
    # the model cards' table, with this run's row beside it: 3 bfs and 3 parents rows scored
    report = (tmp_path / "results" / "run" / "report.html").read_text()
    assert "GraphWalks on the model cards" in report and "GPT-4.1 nano" in report
    assert "measured here" in report and report.count("100.0 [100.0, 100.0] n=3") == 2


def test_the_2026_prompt_runs_the_revised_rows_and_long_lengths_read_the_second_file(
        original_dir, tmp_path):
    with ScriptedServer(exact, context_length=CONTEXT) as server:
        revised = run(server, tmp_path / "revised", "--graphwalks-original-dir",
                      str(original_dir), "--graphwalks-prompt", "2026",
                      "--graphwalks-lengths", "1k")
        long = run(server, tmp_path / "long", "--graphwalks-original-dir", str(original_dir),
                   "--graphwalks-lengths", "2k,256k", "-k", "bfs and ctx256k")
    assert revised.returncode == 0, revised.stdout[-3000:] + revised.stderr[-3000:]
    assert {r["details"]["date_added"] for r in records(tmp_path / "revised")} == {"02-27-2026"}
    assert long.returncode == 0, long.stdout[-3000:] + long.stderr[-3000:]
    (record,) = records(tmp_path / "long")  # (2k, 256k]: only the second file's row
    assert record["outcome"] == "ok" and record["details"]["split"] == ">128k"
    assert record["details"]["file"] == original.FILES[1][0]


def test_the_plan_sizes_the_full_grid_without_building_a_graph(tmp_path):
    started = time.perf_counter()
    done = run_pytest("-m", "graphwalks", "--scale", "full", "--plan", "--graphwalks-source",
                      "generated", "--results-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert time.perf_counter() - started < 30  # a whole pytest process; graphs would take minutes
    assert "1,100" in done.stdout or "1100" in done.stdout  # 2 types x 11 lengths x 50
