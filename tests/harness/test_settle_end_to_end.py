"""--settle end to end: repeated words (seven pairs, 21 samples a length) against the scripted
server's ``fading:200`` model, whose copies fail more often the longer the sequence (a known,
seeded, falling curve), at -n 2; then the same command again, which resumes from the response
cache and reaches the same decisions."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_records, run_scripted

FADING = "fading:200"
GRID = ("--word-pair", "report", "-p", "xdist", "-n", "2")


def run(server: ScriptedServer, results: Path, run_id: str, *extra: str):
    done = run_scripted("repeated_words", server.base_url, results, *GRID, *extra,
                        "--run-id", run_id)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def verdict_of(results: Path, run_id: str) -> dict:
    summary = json.loads((results / run_id / "summary.json").read_text())
    return summary["verdicts"]["repeated_words"]


def test_settle_reaches_the_full_grids_verdict_with_fewer_samples_and_resumes(tmp_path):
    results = tmp_path / "results"
    with ScriptedServer(FADING) as server:
        run(server, results, "full")
        settled = run(server, results, "settle", "--settle")
        asked = len(server.requests)
        run(server, results, "again", "--settle")  # the same command: from the cache
        assert len(server.requests) == asked
    full, first, again = (run_records(results, r) for r in ("full", "settle", "again"))
    outcomes = Counter(r["outcome"] for r in first)
    assert len(first) == len(full) == 105 and outcomes["not_needed"] > 0
    # a sample that ran is the full grid's sample: the same outcome (a refusal included)
    full_outcomes = {r["sample_id"]: r["outcome"] for r in full}
    assert all(r["outcome"] in ("not_needed", full_outcomes[r["sample_id"]]) for r in first)
    # every not-needed sample is named, and counted in the terminal and summary.json
    assert f"not_needed {outcomes['not_needed']}" in settled.stdout
    summary = json.loads((results / "settle" / "summary.json").read_text())
    cells = summary["experiments"]["repeated_words"]
    assert sum(c["outcomes"]["not_needed"] for c in cells) == outcomes["not_needed"]
    assert summary["not_needed"] == {"repeated_words": outcomes["not_needed"]}
    # the verdict: the same effective length as the full grid's
    assert verdict_of(results, "settle")["effective_length"]["value"] == \
        verdict_of(results, "full")["effective_length"]["value"]
    # the rerun: the same decisions, sample by sample
    assert {r["sample_id"]: r["outcome"] for r in again} == \
        {r["sample_id"]: r["outcome"] for r in first}
