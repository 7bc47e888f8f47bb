"""LongMemEval runs end to end: pytest in a subprocess, the real openai client, the scripted
server playing a model (and its judge) that answers only short prompts, the store, the
findings in summary.json and the report."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

from benchmarks.longmemeval import scoring
from tests.doubles.scripted_server import ScriptedServer

from ..data_dir import env_without
from ..subprocess_pytest import run_pytest, run_records, run_scripted
from .helpers import (JUDGE, chroma_csvs, chroma_rows, generated_answers, longmemeval_file,
                      short_only, write_rows)

CONTEXT = 1_000_000
# sha256 of Chroma's DEFAULT_PROMPT (evaluate_longmemeval.py @ 1091346), read from its source
CHROMA_PROMPT_SHA256 = "883431f0c300ba3631db63a387f4456fb586ceabcea54361f8864ec9e74052e6"


def run(server: ScriptedServer, results: Path, *extra: str) -> subprocess.CompletedProcess:
    """A run whose data directory lacks the original's files (the ``auto`` source would take
    them wherever a user fetched them): a test that wants them gives their folder."""
    return run_scripted("longmemeval", server.base_url, results, *extra,
                        env=env_without(results.parent / "data-without-longmemeval", "longmemeval"))


records = run_records


def summary(results: Path) -> dict:
    return json.loads((results / "run" / "summary.json").read_text())


def test_a_model_answering_only_short_prompts_scores_focused_1_and_full_0(tmp_path):
    """The generated histories at test scale, the deterministic judge: the paired gap is 1,
    McNemar's exact test on 3 discordant pairs, abstentions counted apart, in summary.json
    and in the report."""
    with ScriptedServer(short_only(generated_answers(3), 3000),
                        context_length=CONTEXT) as server:
        done = run(server, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path)
    assert sorted((r["params"]["index"], r["params"]["condition"]) for r in found) == [
        (i, c) for i in range(3) for c in ("focused", "full")]
    for record in found:
        assert list(record["scores"])[0] == "correct"
        assert record["scores"]["correct"] is (record["params"]["condition"] == "focused")
        assert record["scores"]["abstained"] is (record["params"]["condition"] == "full")
        assert record["details"]["judge"]["name"].startswith("deterministic")
    # the test scale stays cheap: ~4k prompt tokens in all, 48 output tokens each
    assert sum(r["target_tokens"] for r in found) < 4500
    assert all(r["max_tokens"] == 48 for r in found)
    paired = summary(tmp_path)["findings"]["longmemeval"]
    assert paired["paired_test"].startswith("McNemar's exact test")
    generated = paired["sources"]["generated"]
    assert generated["focused"]["accuracy"] == 1.0 and generated["full"]["accuracy"] == 0.0
    assert generated["gap"] == 1.0 and generated["test"] == "mcnemar"
    assert generated["p"] == 0.25  # 3 discordant pairs, all one way: 2 x 0.5^3
    assert generated["abstentions"]["full"] == {"scored": 3, "wrong": 3, "abstained": 3,
                                                "answered_wrong": 0}
    assert set(generated["by_type"]) == {"knowledge-update", "temporal-reasoning",
                                         "multi-session"}
    report = (tmp_path / "run" / "report.html").read_text()
    assert "paired, generated, 3 questions: focused 3/3 = 1.000" in report
    assert "full 0/3 = 0.000" in report and "gap +1.000" in report
    assert "McNemar p = 0.25" in report and "3 abstained" in report
    assert "focused-full-generated" in report  # the two-bar plot, embedded


def test_chroma_rows_reach_the_model_unchanged_and_the_judge_gets_chromas_prompt(tmp_path):
    """openbench's columns in parquet: each focused and full prompt is the request's one user
    message, byte for byte; the judge's request is Chroma's prompt around the question, the
    answer and the reply; the published row sits beside the run."""
    rows = chroma_rows()
    path = write_rows(tmp_path / "rows.parquet", rows)
    answers = {r["focused_input"]: r["answer"] for r in rows}
    with ScriptedServer(short_only(answers, 3000), context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--longmemeval-file", str(path),
                   "--judge-model", JUDGE)
        requests = list(server.requests)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    asked = [r for r in requests if r["model"] == "scripted"]
    judged = [r for r in requests if r["model"] == JUDGE]
    sent = sorted(r["messages"][0]["content"] for r in asked)
    assert sent == sorted([r["focused_input"] for r in rows] + [r["full_input"] for r in rows])
    assert all(len(r["messages"]) == 1 and r["messages"][0]["role"] == "user" for r in asked)
    assert all(r["temperature"] == 0 for r in asked + judged)
    assert {r["max_tokens"] for r in judged} == {100}
    assert hashlib.sha256(scoring.CHROMA_JUDGE_PROMPT.encode()).hexdigest() == \
        CHROMA_PROMPT_SHA256
    expected = {scoring.CHROMA_JUDGE_PROMPT.format(
        question=row["question"], correct_answer=row["answer"], output=output)
        for row in rows for output in (row["answer"], "I don't know: it is not mentioned.")}
    assert {r["messages"][0]["content"] for r in judged} == expected
    found = records(tmp_path / "results")
    assert {r["params"]["question_id"] for r in found} == {r["custom_id"] for r in rows}
    assert {r["params"]["abstention"] for r in found if r["params"]["question_id"].endswith(
        "_abs")} == {True}
    chroma = summary(tmp_path / "results")["findings"]["longmemeval"]["sources"]["chroma"]
    assert (chroma["focused"]["correct"], chroma["full"]["correct"], chroma["pairs"]) == (3, 0, 3)
    report = (tmp_path / "results" / "run" / "report.html").read_text()
    assert "Chroma&#x27;s LongMemEval run" in report or "Chroma's LongMemEval run" in report
    assert "0.873 (267/306)" in report and "1.000 (3/3)" in report


def test_chromas_two_csvs_are_joined_and_a_judge_reply_neither_word_is_counted(tmp_path):
    rows = chroma_rows(2)
    focused, full = chroma_csvs(tmp_path / "csv", rows)

    def judge_unsure(request: dict) -> str:
        if request["model"] == JUDGE:
            return "Maybe."
        return "3"

    with ScriptedServer(judge_unsure, context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--longmemeval-file", str(focused),
                   "--longmemeval-file", str(full), "--judge-model", JUDGE)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = records(tmp_path / "results")
    assert sorted(r["sample_id"] for r in found) == [
        "chr-q000-focused", "chr-q000-full", "chr-q001-focused", "chr-q001-full"]
    assert all(r["scores"]["correct"] is None and r["details"]["judge_unparsable"]
               for r in found)
    findings = summary(tmp_path / "results")["findings"]["longmemeval"]
    assert findings["judge_unparsable"]["count"] == 4
    assert "judge: 4 replies neither true nor false, not scored: chr-q000-focused" in done.stdout


def test_longmemevals_own_file_gives_a_curve_and_its_per_type_judge(tmp_path):
    path = longmemeval_file(tmp_path / "longmemeval_s.json")
    answers = generated_answers(2, seed=7)
    with ScriptedServer(short_only(answers, 3000), context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--longmemeval-source", "longmemeval",
                   "--longmemeval-file", str(path), "--judge-model", JUDGE,
                   "--longmemeval-judge", "longmemeval", "--longmemeval-lengths", "768,1k",
                   "--verdict-min-samples", "2")
        judged = [r for r in server.requests if r["model"] == JUDGE]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = {r["sample_id"]: r for r in records(tmp_path / "results")}
    assert set(found) == {f"lme-q00{i}-{c}" for i in (0, 1)
                          for c in ("focused", "pad0.768k", "pad1.024k", "full")}
    for i in (0, 1):
        tokens = [found[f"lme-q00{i}-{c}"]["target_tokens"]
                  for c in ("focused", "pad0.768k", "pad1.024k", "full")]
        assert tokens == sorted(tokens) and tokens[1] <= 768 and tokens[2] <= 1024
    assert all(r["messages"][0]["content"].endswith("Answer yes or no only.") for r in judged)
    assert all(r["max_tokens"] == 10 for r in judged)
    # the shared verdict on the length tiers: the short-only model holds up to 1k, not 2k
    verdict = summary(tmp_path / "results")["verdicts"]["longmemeval"]
    assert verdict["length_axis"] == "details.length_tier"
    assert verdict["lengths"] == [256, 1024, 2048] and verdict["means"][-1] == 0.0
    assert verdict["effective_length"]["value"] < 2048
    plots = tmp_path / "results" / "run" / "plots" / "longmemeval"
    assert {p.name for p in plots.iterdir()} == {"focused-full-longmemeval.png",
                                                 "curve-longmemeval.png"}


def test_a_data_source_without_a_judge_model_is_one_line(tmp_path):
    path = write_rows(tmp_path / "rows.jsonl", chroma_rows())
    with ScriptedServer("echo", context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--longmemeval-file", str(path))
    assert done.returncode == 1
    assert "longmemeval: --longmemeval-source chroma needs --judge-model" in done.stdout


def test_the_plan_at_full_scale_sizes_the_generated_grid_without_building_it():
    done = run_pytest("-m", "longmemeval", "-q", "--plan", "--scale", "full",
                      "--model", "some-model", "--base-url", "http://127.0.0.1:9/v1",
                      "--max-context", "200000")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    row = next(line.split() for line in done.stdout.splitlines()
               if line.startswith("longmemeval "))
    assert row[1] == "360"  # 60 questions x (focused, 4 padded lengths, full)


def test_the_thinking_is_never_judged(tmp_path):
    """A model (and judge) that thinks in <think> tags, its thinking naming both verdict words:
    the judge gets the answer alone, and its own verdict is read without its thinking."""
    with ScriptedServer(short_only(generated_answers(3), 3000), context_length=CONTEXT,
                        behaviour="think-tags",
                        thinker=lambda request: "SECRET-THOUGHT: true or false?") as server:
        done = run(server, tmp_path, "--judge-model", JUDGE)
        judged = [r for r in server.requests if r["model"] == JUDGE]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert len(judged) == 6
    assert not any("SECRET-THOUGHT" in r["messages"][0]["content"] for r in judged)
    found = records(tmp_path)
    assert all(r["scores"]["correct"] is (r["params"]["condition"] == "focused") for r in found)
    assert all("SECRET-THOUGHT" in (r["thinking"] or "") for r in found)


def test_the_plan_sizes_chromas_rows_by_their_own_counts(tmp_path):
    path = write_rows(tmp_path / "rows.parquet", chroma_rows())
    done = run_pytest("-m", "longmemeval", "-q", "--plan", "--longmemeval-file", str(path),
                      "--judge-model", JUDGE, "--model", "some-model",
                      "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    row = next(line.split() for line in done.stdout.splitlines()
               if line.startswith("longmemeval "))
    assert row[1:4] == ["6", "0", f"{3 * (20 + 2000):,}"]  # the files' focused and full counts


def test_chromas_token_limit_field_is_sent_with_token_limit_param(tmp_path):
    """Chroma's provider sends max_completion_tokens; --token-limit-param sends that field in
    the model's requests, and the record names it (the judge keeps auto: max_tokens)."""
    rows = chroma_rows(1)
    path = write_rows(tmp_path / "rows.parquet", rows)
    answers = {r["focused_input"]: r["answer"] for r in rows}
    with ScriptedServer(short_only(answers, 3000), context_length=CONTEXT) as server:
        done = run(server, tmp_path / "results", "--longmemeval-file", str(path),
                   "--judge-model", JUDGE, "--token-limit-param", "max_completion_tokens")
        requests = list(server.requests)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    asked = [r for r in requests if r.get("model") == "scripted"]
    judged = [r for r in requests if r.get("model") == JUDGE]
    assert len(asked) == 2 and all(r.get("max_completion_tokens") == 48 and "max_tokens" not in r
                                   for r in asked)
    assert judged and all(r.get("max_tokens") == 100 for r in judged)
    assert {r["model"]["token_limit"]["max_completion_tokens"]
            for r in records(tmp_path / "results")} == {48}
