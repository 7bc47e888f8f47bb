"""The HTML report from real records: identity without secrets, tables, samples worst first."""

import re

from reporting.gating.compare import endpoint_host
from reporting.render.report import build_report, render_plots
from reporting.storage.store import records_frame

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
