"""The HTML report from real records: the overview on its first screen (in a real Chromium),
identity without secrets, tables, samples worst first."""

import re

import pytest

from reporting.experiments import Experiment
from reporting.gating.compare import endpoint_host
from reporting.render.report import build_report, render_plots
from reporting.storage.store import records_frame

from .browser import chromium_path, visit
from .helpers import EXPERIMENTS, MEAN, RATE, rate_run, record


def _info():
    return {"options": {"model": "toy", "base_url": "https://user:hunter2@gpu.example:8443/v1",
                        "scale": "test", "judge_model": None, "haystack_seed": 7},
            "tokenizer": {"name": "o200k_base"}, "versions": {"pytest": "9.2.0"},
            "python": "3.11.7", "platform": "Linux"}


def test_endpoint_host_keeps_only_host_and_port():
    assert endpoint_host("https://user:hunter2@gpu.example:8443/v1?key=abc") == "gpu.example:8443"
    assert endpoint_host("http://127.0.0.1:9/v1") == "127.0.0.1:9"
    assert endpoint_host(None) is None


def test_report_shows_identity_counts_and_intervals_without_secrets():
    records = rate_run("r1", {1000: 15, 8000: 5})
    records.append(record("r1", RATE, 8000, 99, None, outcome="overflow"))
    page = build_report("r1", _info(), records_frame(records), EXPERIMENTS, {})
    assert "hunter2" not in page and "user:" not in page
    assert "127.0.0.1:9" in page  # the endpoint host the records name
    assert "haystack_seed=7" in page and "temperature=0.0" in page and "pytest 9.2.0" in page
    assert "deterministic (no LLM judge)" in page
    # cell 8000: 5 of 20 right, Wilson 95% interval [0.112, 0.469], one overflow counted
    row = re.search(r"<tr><td>length=8000</td>(.*?)</tr>", page).group(1)
    cells = re.findall(r">([^<]*)</td>", row)
    assert cells[:4] == ["0.250", "[0.112, 0.469]", "20", "20"] and cells[5] == "1"
    assert not re.search(r"(src|href)=\"https?:", page)  # nothing fetched from the network


def test_samples_are_listed_worst_first_and_escaped():
    records = [record("r1", MEAN, 100, i, score, output=f"<script>alert({i})</script>")
               for i, score in enumerate([0.9, 0.2, 0.6])]
    records.append(record("r1", MEAN, 100, 3, None, outcome="error"))
    page = build_report("r1", _info(), records_frame(records), EXPERIMENTS, {})
    assert "<script>" not in page and "&lt;script&gt;alert(1)" in page
    order = [page.index(f"len100-i{i}</td>") for i in (3, 1, 2, 0)]
    assert order == sorted(order)


def test_a_failing_renderer_is_reported_not_raised(tmp_path):
    def broken(frame, out):
        raise ZeroDivisionError("bad bin")

    experiments = {RATE.name: type(RATE)(**{**RATE.__dict__, "render": broken})}
    warnings = []
    plots = render_plots(records_frame(rate_run("r1", {10: 1})), experiments, tmp_path,
                         warnings.append)
    assert plots == {RATE.name: []}
    assert warnings == ["contextrot: plots of toy_rate failed: ZeroDivisionError: bad bin"]


# -- the first screen ----------------------------------------------------------------------
FIRST_SCREEN = 800  # px: the height of a laptop's browser window at 1280 px wide


def _length_experiments(count: int) -> dict:
    """``count`` toy experiments with a length axis (as many as the main job runs)."""
    return {f"toy_len{i}": Experiment(name=f"toy_len{i}", title=f"toy curve {i} over lengths",
                                      cell=("params.length",), metric="scores.accuracy",
                                      metric_kind="rate", length="params.length")
            for i in range(count)}


def _overview_run(experiments: dict, samples: int) -> list:
    """Per experiment, a curve that falls with length: right up to a point, then wrong."""
    return [record("r1", experiment, length, i, int(length <= 2000 * (k + 1) or i % 3 == 0))
            for k, experiment in enumerate(experiments.values())
            for length in (1000, 2000, 4000, 8000, 16000) for i in range(samples)]


def test_the_overview_states_each_experiment_s_headline_verdict_and_curve():
    experiments = {**_length_experiments(2), MEAN.name: MEAN}
    records = _overview_run(_length_experiments(2), 12) + [
        record("r1", MEAN, 100, i, 0.5) for i in range(3)]
    page = build_report("r1", _info(), records_frame(records), experiments, {})
    overview = re.search(r'<table id="overview">(.*?)</table>', page).group(1)
    rows = dict(re.findall(r'<tr><td><a href="#x-(\w+)">(.*?)</tr>', overview))
    assert list(rows) == ["toy_len0", "toy_len1", "toy_mean"]
    # toy_len0: right up to 2,000, a third right beyond: 0.85 x the base fails at 4,000
    assert "accuracy 0.600 [" in rows["toy_len0"]
    assert "effective length 2,000 [" in rows["toy_len0"]
    assert "length AUC" in rows["toy_len0"] and rows["toy_len0"].count("<circle") == 5
    assert "no length axis" in rows["toy_mean"]
    for name in experiments:  # each row links to its section
        assert f'href="#x-{name}"' in overview and f"<h2 id='x-{name}'>" in page
    assert page.index('id="overview"') < page.index("<h2 id='x-") < page.index("<h2 id='run'>")


def test_the_overview_says_no_verdict_and_why():
    experiments = _length_experiments(1)
    page = build_report("r1", _info(), records_frame(_overview_run(experiments, 2)),
                        experiments, {})
    overview = re.search(r'<table id="overview">(.*?)</table>', page).group(1)
    assert "<b>no verdict (too few samples)</b>" in overview
    assert "fewer than 10 scored samples" in overview


def test_the_overview_fills_the_first_screen_in_chromium(tmp_path):
    if chromium_path() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run does)")
    experiments = {**_length_experiments(6), MEAN.name: MEAN}  # seven, as the main job
    records = _overview_run(_length_experiments(6), 10) + [
        record("r1", MEAN, length, i, 0.5) for length in (100, 200) for i in range(3)]
    page = tmp_path / "report.html"
    page.write_text(build_report("r1", _info(), records_frame(records), experiments, {},
                                 gate_lines=[("gate: passed: 14 cells compared", False)]))
    seen = visit(page, tmp_path / "report.png", boxes=["#overview", "#overview tr:last-child",
                                                       "svg.spark"])
    assert seen.errors == [] and seen.requests == []
    overview, last_row, curve = (seen.boxes[s] for s in ("#overview", "#overview tr:last-child",
                                                         "svg.spark"))
    assert 0 < overview["top"] < last_row["bottom"] <= FIRST_SCREEN, seen.boxes
    assert curve["right"] - curve["left"] >= 100  # the small curve is drawn, not collapsed


def test_on_the_embedded_model_a_falling_curve_comes_first_and_each_row_says_what_it_shows():
    import dataclasses

    falls = dataclasses.replace(_length_experiments(1)["toy_len0"], name="z_falls")
    flat = dataclasses.replace(MEAN, on_embedded="the machinery; a zero is expected")
    experiments = {falls.name: falls, flat.name: flat}
    records = _overview_run({falls.name: falls}, 12) + [record("r1", MEAN, 100, i, 0.0)
                                                       for i in range(3)]
    info = {**_info(), "options": {**_info()["options"], "model": None}}
    page = build_report("r1", info, records_frame(records), experiments, {})
    overview = re.search(r'<table id="overview">(.*?)</table>', page).group(1)
    assert re.findall(r'<tr><td><a href="#x-(\w+)">', overview) == ["z_falls", "toy_mean"]
    assert "the machinery; a zero is expected" in overview
    assert page.index("<h2 id='x-z_falls'>") < page.index("<h2 id='x-toy_mean'>")
    # with --model the phrase is not shown: the numbers speak for another model
    other = build_report("r1", _info(), records_frame(records), experiments, {})
    assert "a zero is expected" not in other
