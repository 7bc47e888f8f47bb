"""RULER fitted in the server's own tokens (``--tokenizer server``), end to end: the scripted
server counts in its toy unit (``/tokenize``), and its ``usage.prompt_tokens`` is the truth
each prompt is checked against: prompt + tokens to generate <= L, within one unit of L
(fitted per sample; RULER's own procedure fills less, by design)."""

from __future__ import annotations

import json

from benchmarks.ruler.grid import TASKS
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_pytest
from . import oracle

# the noise haystack's line is about 40 toy tokens; a word list's entry 2 to 4
SLACK = {"niah_single_1": 60, "vt": 60, "cwe": 12}


def test_prompts_fill_each_length_as_the_server_counts_them(tmp_path):
    with ScriptedServer(oracle.perfect, tokenizer="toy", context_length=16384) as server:
        done = run_pytest(
            "-m", "ruler", "-q", "--model", "scripted", "--base-url", server.base_url,
            "--results-dir", str(tmp_path), "--run-id", "toy", "--tokenizer", "server",
            "--ruler-tasks", ",".join(SLACK), "--ruler-lengths", "1k,2k", "--ruler-samples", "1",
            "--ruler-fit", "per-sample")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    found = [json.loads(line) for line in
             (tmp_path / "toy" / "samples.jsonl").read_text().splitlines()]
    assert len(found) == len(SLACK) * 2
    for record in found:
        task, length = record["params"]["task"], record["params"]["length"]
        generate = TASKS[task].tokens_to_generate
        assert record["outcome"] == "ok" and record["scores"]["score"] == 1.0
        assert record["token_unit"].startswith("server:scripted#")
        assert record["target_length"] == length
        # the recorder's count (template included) is the server's own, but for where the
        # prompt meets the template (VT's prefix ends in a space the template's new line joins)
        assert abs(record["target_tokens"] - record["prompt_tokens"]) <= 2
        assert length - SLACK[task] <= record["prompt_tokens"] + generate <= length, record
        assert record["o200k_tokens"] > 0  # the o200k count, kept beside the unit's
