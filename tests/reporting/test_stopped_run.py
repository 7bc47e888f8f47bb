"""A run stopped by Ctrl-C says so on the report's first screen: how many samples were asked
and how many never ran, in the identity line and per experiment, with a row for an
experiment that never started. A real run (pytest in a subprocess, the scripted server, a
real store) interrupted after its first records."""

from __future__ import annotations

import json
import re

from tests.doubles.scripted_server import ScriptedServer

from ..harness.test_faults import Watched, records_in
from ..subprocess_pytest import pytest_command

NIAH, REPEATED_WORDS = 12, 15  # their test-scale samples; NIAH runs first (folder order)


def test_a_run_stopped_early_shows_asked_and_never_ran_per_experiment(tmp_path):
    results = tmp_path / "results"
    with ScriptedServer("copy", latency_s=0.2) as server:
        run = Watched(pytest_command("-m", "niah or repeated_words", "--model", "scripted",
                                     "--base-url", server.base_url, "--max-connections", "1",
                                     "--results-dir", str(results), "--run-id", "stopped"))
        run.wait_for(lambda: records_in(results) >= 2)
        run.interrupt()
        ran = run.finish()
    assert ran.status == 2, ran.output[-3000:]
    summary = json.loads((results / "stopped" / "summary.json").read_text())
    received = summary["received"]
    assert 2 <= received < NIAH  # stopped within NIAH: repeated words never started
    assert summary["asked"] == {
        "niah": {"asked": NIAH, "never_ran": NIAH - received},
        "repeated_words": {"asked": REPEATED_WORDS, "never_ran": REPEATED_WORDS}}
    page = (results / "stopped" / "report.html").read_text()
    lede = re.search(r"<p class='lede'>(.*?)</p>", page).group(1)
    total = NIAH + REPEATED_WORDS
    assert f"{total} samples asked, {received} ran" in lede
    assert f"{total - received} never ran</b>" in lede
    overview = re.search(r'<table id="overview">(.*?)</table>', page).group(1)
    rows = re.findall(r"<tr><td>(.*?)</tr>", overview)
    niah = next(r for r in rows if ">niah</a>" in r)
    words = next(r for r in rows if "repeated_words" in r)
    assert f"{received} ran of {NIAH} asked; <b class='bad'>{NIAH - received} never ran" in niah
    assert "never started" in words
    assert f"0 ran of {REPEATED_WORDS} asked; <b class='bad'>{REPEATED_WORDS} never ran" \
        in words
    # the terminal says it per experiment too
    assert f"niah: " in ran.output and f"({received} of {NIAH} samples ran, " \
        f"{NIAH - received} never ran)" in ran.output
