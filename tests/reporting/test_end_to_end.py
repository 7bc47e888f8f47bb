"""The gate, the comparison and the report on real runs: pytest in a subprocess, the real openai
client against our scripted OpenAI-compatible server, a real SQLite store, a real Chromium.

``copy`` is a perfect, deterministic repeated-words model; ``drop`` is the same model made
worse on purpose (it loses one word in three). Each pytest run is 15 samples (--scale test).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_pytest, run_reporting
from .browser import chromium_path, visit
from .helpers import shared_folder

GATE = ["--fail-on", "repeated_words:-0.05"]
SECRET = "s3cr3t-in-url"  # credentials in the endpoint URL must never be written anywhere


def run_benchmark(server: ScriptedServer, results: Path, run_id: str, *extra: str,
                  base_url: str | None = None) -> subprocess.CompletedProcess:
    return run_pytest("-m", "repeated_words", "-q", "--model", "scripted",
                      "--base-url", base_url or server.base_url,
                      "--results-dir", str(results), "--run-id", run_id, *extra)


cli = run_reporting


@pytest.fixture(scope="session")
def runs(tmp_path_factory) -> dict:
    """Three runs, made once per test session even under xdist (the first worker makes them).

    ``base``: copy, with a baseline file that does not exist yet (the first CI run);
    ``again``: copy again with the response cache off, gated against ``base`` (A/A);
    ``worse``: drop, gated against base's summary.json (the planted regression).
    """
    from filelock import FileLock

    shared = shared_folder(tmp_path_factory)
    done = shared / "scripted-runs.json"
    with FileLock(str(shared / "scripted-runs.lock")):
        if not done.exists():
            results = shared / "scripted-results"
            found = {}
            with ScriptedServer("copy", context_length=16384) as copier, \
                    ScriptedServer("drop", context_length=16384) as dropper:
                with_secret = dropper.base_url.replace("http://", f"http://user:{SECRET}@")
                for run_id, server, url, extra in (
                        ("base", copier, None,
                         ["--baseline", str(shared / "ci-cache" / "summary.json")]),
                        ("again", copier, None, ["--no-cache", "--baseline", "base"]),
                        ("worse", dropper, with_secret,
                         ["--baseline", str(results / "base" / "summary.json")])):
                    process = run_benchmark(server, results, run_id, *extra, *GATE,
                                            base_url=url)
                    found[run_id] = {"returncode": process.returncode, "stdout": process.stdout}
            done.write_text(json.dumps({"results": str(results), "runs": found}))
    return json.loads(done.read_text())


def test_first_run_without_a_baseline_is_saved_and_passes_with_a_warning(runs):
    base = runs["runs"]["base"]
    assert base["returncode"] == 0, base["stdout"][-3000:]
    assert "gate: warning: no baseline yet" in base["stdout"]
    assert (Path(runs["results"]) / "base" / "summary.json").exists()


def test_a_a_two_runs_of_a_deterministic_model_pass_the_gate(runs):
    again = runs["runs"]["again"]
    assert again["returncode"] == 0, again["stdout"][-3000:]
    assert "gate: passed: 6 cells compared" in again["stdout"]
    assert "model calls: 15 (+0 served from the response cache)" in again["stdout"]


def test_a_planted_regression_exits_7_naming_the_cell_delta_and_p(runs):
    worse = runs["runs"]["worse"]
    assert worse["returncode"] == 7, worse["stdout"][-3000:]
    assert "15 passed" in worse["stdout"]  # the samples ran fine: only the gate failed
    regressed = [line for line in worse["stdout"].splitlines() if "REGRESSED" in line]
    assert len(regressed) == 1 and "[all cells]: 1.000 -> 0.6" in regressed[0]
    assert "n=15 pairs; sign p=6.1e-05" in regressed[0]
    results = Path(runs["results"])
    verdict = json.loads((results / "worse" / "gate.json").read_text())
    assert verdict["exit_status"] == 7 and len(verdict["checks"]) == 6
    assert "REGRESSED" in (results / "worse" / "report.html").read_text()


def test_credentials_in_the_endpoint_url_are_written_nowhere(runs):
    assert SECRET not in runs["runs"]["worse"]["stdout"]
    written = [path for path in Path(runs["results"]).rglob("*") if path.is_file()]
    assert any(path.name == "report.html" for path in written)
    leaking = [str(path) for path in written if SECRET.encode() in path.read_bytes()]
    assert leaking == []


def test_compare_overlays_two_runs_and_the_gate_runs_outside_pytest(runs):
    results = runs["results"]
    compared = cli("compare", "base", "worse", "--results-dir", results)
    assert compared.returncode == 0, compared.stderr
    assert "levenshtein  all cells" in compared.stdout
    page = (Path(results) / "compare" / "base__worse" / "compare.html").read_text()
    assert page.count("data:image/png;base64,") == 2  # curves overlaid, heatmaps side by side

    outside = cli("gate", "worse", "--baseline", "again", *GATE, "--results-dir", results)
    assert outside.returncode == 7 and "REGRESSED" in outside.stdout

    unknown = cli("report", "nope", "--results-dir", results)
    assert unknown.returncode == 2
    assert unknown.stderr.strip().splitlines() == [
        f"error: no run 'nope' in {results}/contextrot.sqlite (latest: base, again, worse); "
        f"list them with `python -m reporting runs --results-dir {results}`"]


def test_report_opens_in_chromium_with_every_plot_visible(runs, tmp_path):
    if chromium_path() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run does)")
    run_dir = Path(runs["results"]) / "worse"
    expected_plots = len(list((run_dir / "plots" / "repeated_words").glob("*.png")))
    assert expected_plots == 5

    seen = visit(run_dir / "report.html", tmp_path / "report.png",
                 boxes=["#overview", "#x-repeated_words"])
    assert seen.errors == []
    assert seen.requests == []  # self-contained: nothing fetched
    # the first screen (1280 x 800) holds the overview, ahead of the experiment's section
    overview = seen.boxes["#overview"]
    assert 0 < overview["top"] < overview["bottom"] <= 800, seen.boxes
    assert seen.boxes["#x-repeated_words"]["top"] > overview["bottom"]
    assert len(seen.images) == expected_plots
    for image in seen.images:
        assert image["complete"] and image["width"] > 100 and image["shown"] > 100, image
    assert seen.screenshot[:8] == b"\x89PNG\r\n\x1a\n"
