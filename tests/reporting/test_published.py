"""Published reference rows: beside a comparable run in the leaderboard and the report, absent
(with the reason) beside an incomparable one, and never read by the gate.

The runs are real SampleRecords in a real SQLite store, read back by ``python -m reporting
leaderboard`` in a subprocess with the project's own catalogue (RULER's and MRCR's declared
tables); their scores are chosen so that the measured row is known.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.mrcr import EXPERIMENT as MRCR
from benchmarks.ruler import EXPERIMENT as RULER
from benchmarks.ruler.grid import LENGTHS, TASKS
from reporting.analysis import published
from reporting.experiments import Experiment
from reporting.gating import gate
from reporting.render.report import build_report
from reporting.storage.records import SampleRecord, stimulus_hash
from reporting.storage.store import records_frame

from .helpers import EXPERIMENTS, RATE, open_store, rate_run, store_run

ROOT = Path(__file__).resolve().parents[2]
K = 1024
# RULER's per-length score on this toy model: 100% to 16K, then below RULER's bar (85.6)
SCORES = {4 * K: 1.0, 8 * K: 1.0, 16 * K: 0.9, 32 * K: 0.8, 64 * K: 0.5, 128 * K: 0.2}
OWN_UNIT = "server:toy#0123456789ab"  # a model's own tokenizer, as --tokenizer server records it


def ruler_run(run_id: str, model: str, tasks=tuple(TASKS), lengths=LENGTHS,
              unit: str = OWN_UNIT, samples: int = 2) -> list[SampleRecord]:
    return [SampleRecord(
        experiment="ruler", sample_id=f"{task}-{length}-s{i}", run_id=run_id,
        params={"task": task, "length": length, "index": i},
        stimulus_hash=stimulus_hash([task, length, i]), model={"name": model},
        output="answer", scores={"score": SCORES.get(length, 1.0)}, token_unit=unit)
        for task in tasks for length in lengths for i in range(samples)]


def leaderboard(results: Path, out: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "reporting", "leaderboard", "--results-dir",
                           str(results), "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_a_comparable_ruler_run_sits_beside_ruler_s_published_rows(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "own-full", ruler_run("own-full", "toy-own"),
              {"options": {"scale": "full"}, "tokenizer": {"name": "server"}})
    shown = leaderboard(tmp_path, tmp_path / "board")
    table = shown[shown.index("## RULER's published results"):]
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in table.splitlines()
            if line.startswith("| ")}
    # measured here: RULER's arithmetic on the run's records (16K is the last length >= 85.6)
    measured = rows["toy-own (own-full)"]
    assert measured[1:4] == ["measured here", "—", "16K"]
    assert measured[4] == "100.0 [100.0, 100.0]" and measured[7] == "80.0 [80.0, 80.0]"
    # every published row, marked, with RULER's own numbers
    assert rows["GPT-4-1106-preview"][1:10] == ["published, not measured here", "128K", "64K",
                                                "96.6", "96.3", "95.2", "93.2", "87.0", "81.2"]
    assert sum(1 for row in rows.values() if row[1] == published.PUBLISHED_MARK) == 8
    assert "github.com/NVIDIA/RULER at commit c3f5e3b" in table
    page = (tmp_path / "board" / "leaderboard.html").read_text()
    assert page.count("<tr class=\"published\">") == 8 and "toy-own (own-full)" in page
    assert "Gemini-1.5-pro" not in (tmp_path / "board" / "leaderboard.csv").read_text()


@pytest.mark.parametrize("records, reason", [
    (ruler_run("test", "toy", tasks=("niah_single_1", "vt", "cwe"),
               lengths=(1 * K, 3 * K // 2, 2 * K), unit="o200k_base", samples=1),
     "task niah_single_2, niah_single_3, niah_multikey_1, niah_multikey_2 and 6 more not "
     "scored (10 of the table's 13); length 4096, 8192, 16384, 32768 and 2 more not scored "
     "(6 of the table's 6); lengths in o200k_base tokens, the table's in the model's own "
     "tokenizer (run with --tokenizer server or hf:PATH)"),
    (ruler_run("test", "toy", unit="o200k_base"),
     "lengths in o200k_base tokens, the table's in the model's own tokenizer"),
    (ruler_run("test", "toy", samples=1)[1:], "1 of the table's cells not scored, e.g. "
                                              "task=niah_single_1 length=4096"),
], ids=["main-job", "o200k", "one-cell-short"])
def test_an_incomparable_ruler_run_shows_no_published_row_and_says_why(tmp_path, records,
                                                                      reason):
    store = open_store(tmp_path)
    store_run(store, "test", records)
    shown = leaderboard(tmp_path, tmp_path / "board")
    assert published.PUBLISHED_MARK not in shown and "Gemini-1.5-pro" not in shown
    assert "RULER's published results (score = mean of the 13 task scores, %): not shown, no " \
        "run here is comparable: toy's run test: " + reason in shown
    assert published.PUBLISHED_MARK not in (tmp_path / "board" / "leaderboard.html").read_text()


def test_the_report_shows_the_run_beside_published_rows_only_when_comparable():
    info = {"options": {"scale": "full"}}
    page = build_report("own-full", info, records_frame(ruler_run("own-full", "toy-own")),
                        {"ruler": RULER}, {})
    assert page.count("<tr class=\"published\">") == 8
    assert "<td>this run (own-full)</td><td>measured here</td><td>—</td><td>16K</td>" in page
    overview = page[page.index('id="overview"'):page.index("</table>")]
    assert "<a href='#x-ruler-published'>beside 8 published rows</a>" in overview
    assert "<h3 id='x-ruler-published'>RULER&#x27;s published results" in page
    other = build_report("o200k", info, records_frame(ruler_run("o200k", "toy",
                                                                unit="o200k_base")),
                         {"ruler": RULER}, {})
    assert "<tr class=\"published\">" not in other
    assert "not shown, this run differs: lengths in o200k_base tokens" in other
    assert "published rows</a>" not in other


def mrcr_record(source: str, needles: int, high: int, i: int, ratio: float) -> SampleRecord:
    return SampleRecord(experiment="mrcr", sample_id=f"{source}-{needles}-{high}-{i}",
                        params={"source": source, "needles": needles, "bin_high": high,
                                "test_bin": False, "index": i},
                        scores={"ratio": ratio}, output="x")


def test_mrcr_reads_only_the_protocol_s_records_and_its_optional_bins():
    bins = [8 * K << k for k in range(8)]  # 8k ... 1M
    records = [mrcr_record("openai", 2, high, i, 1.0 - k / 10) for k, high in enumerate(bins)
               for i in range(2)]
    records += [mrcr_record("openai", 4, high, 0, 0.0) for high in bins]  # not Context Arena's
    records += [mrcr_record("generated", 2, high, 0, 0.0) for high in bins]
    (reference,) = published.references(records_frame(records), MRCR)
    assert reference.comparable and reference.error == ""
    # per bin: 100, 90, ..., 30; AUC on a linear axis from 8k (the 4- and 8-needle and
    # generated rows, all 0, are left out)
    assert reference.measured["8k"] == "100.0" and reference.measured["1M"] == "30.0"
    # (8 x .95 + 16 x .85 + 32 x .75 + 64 x .65) / 120; both samples of a bin agree
    assert reference.measured["AUC@128k"] == "72.3 [72.3, 72.3]"
    assert reference.measured["AUC@1M"] == "44.4 [44.4, 44.4]"  # on to 1M: the optional bins
    without = [r for r in records if r.params["bin_high"] != 64 * K or r.params["needles"] != 2
               or r.params["source"] != "openai"]
    (missing,) = published.references(records_frame(without), MRCR)
    assert missing.problems == ["1 of the table's cells not scored, e.g. source=openai "
                                "needles=2 bin_high=65536"]


def test_the_gate_never_reads_published_rows(tmp_path):
    """A declaration whose published tables cannot even be imported: the gate compares and
    judges as before; only reporting's published rows would have read them."""
    unreadable = Experiment(**{**RATE.__dict__, "length": "params.length",
                               "published": "no_such_module_anywhere:TABLES"})
    experiments = {**EXPERIMENTS, RATE.name: unreadable}
    store = open_store(tmp_path)
    store_run(store, "base", rate_run("base", {1000: 20, 8000: 20}))
    baseline = gate.load_baseline("base", store)
    candidate = records_frame(rate_run("cand", {1000: 20, 8000: 4}))
    thresholds = [gate.parse_threshold(t) for t in ("toy_rate:-0.1",
                                                    "toy_rate.length_auc:-0.1")]
    result = gate.evaluate(thresholds, baseline, baseline.identity, candidate, experiments)
    assert result.exit_status == gate.REGRESSION_EXIT
    with pytest.raises(ModuleNotFoundError):
        published.references(candidate, unreadable)
