"""The pytest plugins end to end, in inner pytest sessions against the scripted server.

Each inner session is a real subprocess (``runpytest_subprocess``) so that xdist's workers, the
record transport and the controller-only store are exercised exactly as in a real run.
"""

import json
import sqlite3

import pytest

from tests.doubles.scripted_server import ScriptedServer

CONFTEST = '''
pytest_plugins = ["reporting.plugin", "fixtures.pytest_face.plugin"]
from reporting.experiments import Experiment

TOY = Experiment(name="toy", title="echo a number", cell=("params.size",),
                 metric="scores.right", metric_kind="rate")

def pytest_contextrot_experiments(config):
    return [TOY]
'''

TOY_TEST = '''
import dataclasses, os
from fixtures.pytest_face.parametrize import SampleParams, parametrize_samples

@dataclasses.dataclass(frozen=True)
class Toy(SampleParams):
    size: int

    @property
    def id(self):
        return f"s{self.size:02d}"

def pytest_generate_tests(metafunc):
    parametrize_samples(metafunc, "toy", [Toy(i) for i in range(6)], smoke=lambda s: s.size == 0)

async def solve(sample, ctx):
    ctx.record.stimulus([{"role": "user", "content": f"say: {sample.size}"}], target_tokens=4,
                        max_tokens=20)
    ctx.record.skip_unless_fits(ctx.model)
    return await ctx.record.ask(ctx.model)

def test_toy(sample, solved, record):
    if sample.size == CRASH_AT and os.environ.get("PYTEST_XDIST_WORKER"):
        os._exit(1)  # a worker dies mid-sample
    record.score(right=solved.text == str(sample.size))
'''


@pytest.fixture
def server():
    with ScriptedServer("copy") as running:
        yield running


@pytest.fixture
def project(pytester):
    pytester.makeconftest(CONFTEST)
    (pytester.path / "benchmarks").mkdir()
    (pytester.path / "benchmarks" / "test_toy.py").write_text(TOY_TEST.replace("CRASH_AT", "-1"))
    return pytester


def run(project, server, *args):
    return project.runpytest_subprocess(
        "benchmarks", "--model", "scripted", "--base-url", server.base_url,
        "--results-dir", str(project.path / "results"), "-p", "no:cacheprovider", *args)


def stored(project, run_id):
    with sqlite3.connect(project.path / "results" / "contextrot.sqlite") as db:
        rows = db.execute("SELECT sample_id, record FROM samples WHERE run_id = ? "
                          "ORDER BY sample_id", (run_id,)).fetchall()
    return {nodeid: json.loads(record) for nodeid, record in rows}


def comparable(records):
    keep = ("sample_id", "params", "stimulus_hash", "output", "scores", "outcome", "messages")
    return {k: {f: r[f] for f in keep} for k, r in records.items()}


def test_records_reach_the_store_the_same_with_and_without_xdist(project, server):
    serial = run(project, server, "--run-id", "serial")
    serial.assert_outcomes(passed=6)
    parallel = run(project, server, "--run-id", "parallel", "-n", "2", "--no-cache")
    parallel.assert_outcomes(passed=6)
    one, two = stored(project, "serial"), stored(project, "parallel")
    assert len(one) == 6 and comparable(one) == comparable(two)
    assert all(r["scores"]["right"] for r in one.values())
    assert {r["worker"] for r in two.values()} <= {"gw0", "gw1"}
    lines = (project.path / "results" / "parallel" / "samples.jsonl").read_text().splitlines()
    assert len(lines) == 6
    summary = json.loads((project.path / "results" / "parallel" / "summary.json").read_text())
    assert summary["expected"] == summary["received"] == 6 and summary["missing"] == []
    cells = summary["experiments"]["toy"]
    assert [c["n"] for c in cells] == [1] * 6 and cells[0]["mean"] == 1.0


def test_a_second_run_is_served_from_the_cache(project, server):
    run(project, server, "--run-id", "first").assert_outcomes(passed=6)
    calls = len(server.requests)
    again = run(project, server, "--run-id", "second")
    again.assert_outcomes(passed=6)
    assert len(server.requests) == calls == 6
    again.stdout.fnmatch_lines(["*model calls: 0 (+6 served from the response cache)*"])


def test_a_sample_that_sends_no_record_is_named_and_fails_the_run(project, server):
    (project.path / "benchmarks" / "test_toy.py").write_text(TOY_TEST.replace("CRASH_AT", "3"))
    result = run(project, server, "--run-id", "crash", "-n", "2")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*1 expected samples sent no record*test_toy[[]s03[]]*"])
    summary = json.loads((project.path / "results" / "crash" / "summary.json").read_text())
    assert summary["missing"] == ["benchmarks/test_toy.py::test_toy[s03]"]
    assert summary["received"] == 5


def test_an_overflow_is_recorded_as_data_and_the_test_passes(project, server):
    server.context_length = 12  # every prompt + 20 output tokens overflows
    server.advertise_context = False  # the client cannot know it before calling
    result = run(project, server, "--run-id", "overflow", "-m", "smoke")
    result.assert_outcomes(passed=1)
    (record,) = stored(project, "overflow").values()
    assert record["outcome"] == "overflow" and "maximum context length" in record["reason"]


def test_a_refused_key_stops_the_run_with_one_line(project, server):
    server.api_key = "the-real-key"
    result = run(project, server, "--run-id", "refused")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*refused the request (401)*--api-key-env*"])
    assert len(server.requests) == 0  # GET /models found it out: no chat request was sent
    assert "the-real-key" not in result.stdout.str() + result.stderr.str()


def test_a_context_the_server_reports_skips_before_calling(project, server):
    server.context_length = 12
    result = run(project, server, "--run-id", "reported", "-m", "smoke")
    result.assert_outcomes(skipped=1)
    assert len(server.requests) == 0


def test_known_context_skips_before_calling(project, server):
    result = run(project, server, "--run-id", "small", "--max-context", "10", "-m", "smoke")
    result.assert_outcomes(skipped=1)
    assert len(server.requests) == 0
    (record,) = stored(project, "small").values()
    assert record["outcome"] == "skipped" and "10-token context" in record["reason"]


@pytest.mark.parametrize("junk", ["results-is-a-file", "contextrot.sqlite",
                                  "response-cache.sqlite"])
def test_a_results_dir_that_cannot_hold_the_run_is_one_line(project, server, junk):
    results = project.path / "results"
    if junk == "results-is-a-file":
        results.write_text("not a folder")
    else:
        results.mkdir()
        (results / junk).write_bytes(b"garbage, not SQLite" * 100)
    result = run(project, server, "--run-id", "junk", "-m", "smoke")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and ("is a file" in errors[0] or junk in errors[0])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert len(server.requests) == 0


def test_a_model_with_no_key_and_no_base_url_is_one_line_and_sends_nothing(project,
                                                                           monkeypatch):
    """Issue 12 item 7: it would go to the public API with no key (it sent "not-needed")."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = project.runpytest_subprocess("benchmarks", "--model", "gpt-x", "-p",
                                          "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --model gpt-x goes to the public OpenAI API, but "
                                 "$OPENAI_API_KEY is empty*--base-url*"])


def test_credentials_in_the_base_url_reach_no_output_log_or_file(project, server):
    """Issue 12 item 13: with -l (locals in tracebacks), DEBUG logs and a JUnit XML, the
    password in --base-url appears nowhere; it travels as a header, never in the client."""
    from tests.doubles.scripted_server import Fault

    server.faults.extend(Fault(500) for _ in range(12))  # errors: tracebacks show locals
    url = server.base_url.replace("http://", "http://alice:s3cret-pw@")
    junit = project.path / "junit.xml"
    result = project.runpytest_subprocess(
        "benchmarks", "--model", "scripted", "--base-url", url, "--max-retries", "1",
        "--results-dir", str(project.path / "results"), "--run-id", "secret", "-l",
        "--log-level", "DEBUG", f"--junitxml={junit}", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the 500s failed some samples
    written = [p.read_text(errors="replace") for p in project.path.rglob("*")
               if p.is_file() and p.suffix in (".xml", ".jsonl", ".json", ".html", ".md",
                                                 ".csv", ".log")]
    for text in [result.stdout.str(), result.stderr.str(), *written]:
        assert "s3cret-pw" not in text
    assert any(r.get("sample_id") for r in stored(project, "secret").values())


def test_a_failure_after_the_last_record_is_in_the_runs_files(project, server):
    # The end starts at the last record, with the session's status so far (passed). A test
    # that is not a sample fails after it: the end is redone with the session's real status.
    (project.path / "tests").mkdir()
    (project.path / "tests" / "test_after.py").write_text(
        "def test_after_the_samples():\n    assert False\n")
    result = run(project, server, "--run-id", "late", "tests")
    result.assert_outcomes(passed=6, failed=1)
    with sqlite3.connect(project.path / "results" / "contextrot.sqlite") as db:
        status, = db.execute("SELECT exit_status FROM runs WHERE run_id = 'late'").fetchone()
    assert status == result.ret == pytest.ExitCode.TESTS_FAILED
    summary = json.loads((project.path / "results" / "late" / "summary.json").read_text())
    assert summary["received"] == 6
