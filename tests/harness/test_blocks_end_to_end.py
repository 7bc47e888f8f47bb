"""Blocks and waits as a user meets them: ``pytest benchmarks`` in a subprocess, RULER at test
scale with ``--provider anthropic`` and ``--provider google``, the real SDKs against the
scripted servers answering as RULER's oracle (tests/ruler/oracle.py), with what each API's
reference says it sends in the bodies of the first requests.

- A scripted block (Claude's refusal; Gemini's SAFETY, RECITATION and a blocked prompt) is
  the outcome ``blocked`` with its count in the terminal's summary, ``summary.json``,
  ``cells.md``, ``report.html`` and the inspect export, the rate without the blocked samples
  beside the rate with each scored 0; pytest exits 0 (a block is no failure).
- A spend-cap 429 and a 12 h ``retryDelay`` stop the run in one line within a minute, at the
  first answer; the same command against a mended endpoint runs every sample.
- A server answering 429 forever (no Retry-After) is named in the first progress line after
  its first 429, under ``-n 2`` too (each worker notes it for the controller), and each
  sample ends within ``--rate-limit-wait`` with one line.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest

from fixtures.pytest_face.progress import EVERY_ENV
from tests.doubles.native_servers import AnthropicServer, GeminiServer
from tests.doubles.scripted_server import Fault

from ..ruler import oracle
from ..subprocess_pytest import ROOT, child_env, pytest_command, run_pytest

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-blocks-e2e-0001", "GEMINI_API_KEY": "AIza-blocks-e2e-02"}
SERVERS = {"anthropic": AnthropicServer, "google": GeminiServer}
# (thinking off: a Gemini model thinks within the answer's budget unless told not to)
RULER = ["-m", "ruler", "--ruler-tasks", "synthetic", "--ruler-lengths", "1k",
         "--ruler-samples", "1", "--thinking", "off"]
SAMPLES = 11
USAGE = {"input_tokens": 900, "output_tokens": 0}
GEMINI_USAGE = {"promptTokenCount": 900, "totalTokenCount": 900}


def gemini_blocked(finish: str, parts=()) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": list(parts)},
                            "finishReason": finish, "index": 0}],
            "usageMetadata": GEMINI_USAGE}


BLOCKS = {  # the first requests' answers, and the blocks the run must count
    "anthropic": ([{"id": "msg_b", "type": "message", "role": "assistant", "model": "scripted",
                    "content": [], "stop_reason": "refusal", "stop_sequence": None,
                    "usage": USAGE}] * 2, {"stop_reason refusal": 2}),
    "google": ([gemini_blocked("SAFETY"),
                gemini_blocked("RECITATION", [{"text": "It was the best of times"}]),
                {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": GEMINI_USAGE}],
               {"finishReason SAFETY": 1, "finishReason RECITATION": 1,
                "promptFeedback.blockReason SAFETY": 1}),
}


def arguments(server, provider: str, results: Path, run_id: str, *more: str) -> list[str]:
    return [*RULER, "-q", "--provider", provider, "--model", "scripted", "--base-url",
            server.base_url, "--results-dir", str(results), "--run-id", run_id, *more]


def env(**more: str) -> dict[str, str]:
    return child_env(**KEYS, GOOGLE_API_KEY=None, OPENAI_API_KEY=None, **more)


@pytest.fixture(scope="module")
def blocked_runs(tmp_path_factory) -> dict:
    results = tmp_path_factory.mktemp("blocked")
    found = {}
    for provider, (bodies, _) in BLOCKS.items():
        with SERVERS[provider](oracle.perfect, context_length=16384) as server:
            server.faults.extend(Fault(200, body) for body in bodies)
            done = run_pytest(*arguments(server, provider, results, provider,
                                         "--inspect-log-dir", str(results / f"{provider}-logs")),
                              env=env())
        run_dir = results / provider
        found[provider] = {
            "status": done.returncode, "terminal": done.stdout + done.stderr,
            "summary": json.loads((run_dir / "summary.json").read_text()),
            "records": [json.loads(line) for line in
                        (run_dir / "samples.jsonl").read_text().splitlines()],
            "cells": (run_dir / "cells.md").read_text(),
            "report": (run_dir / "report.html").read_text(),
            "logs": sorted((results / f"{provider}-logs").glob("*.eval"))}
    return found


@pytest.mark.parametrize("provider", sorted(BLOCKS))
def test_a_block_is_its_own_outcome_in_the_records(blocked_runs, provider):
    run, (_, expected) = blocked_runs[provider], BLOCKS[provider]
    assert run["status"] == 0, run["terminal"][-3000:]  # a block is no failure
    records = run["records"]
    assert len(records) == SAMPLES
    blocked = [r for r in records if r["outcome"] == "blocked"]
    assert {b: sum(r["details"]["block"] == b for r in blocked) for b in expected} == expected
    assert all(r["reason"] == f"blocked by the provider: {r['details']['block']}" and
               not r["scores"] for r in blocked)
    assert all(r["outcome"] == "ok" and r["scores"]["score"] == 1.0
               for r in records if r not in blocked)


@pytest.mark.parametrize("provider", sorted(BLOCKS))
def test_the_count_and_the_rate_with_blocks_are_beside_the_rate_everywhere(blocked_runs,
                                                                           provider):
    run, (_, expected) = blocked_runs[provider], BLOCKS[provider]
    count, answered = sum(expected.values()), SAMPLES - sum(expected.values())
    named = ", ".join(f"{b} {n}" for b, n in sorted(expected.items()))
    line = re.escape(f"{count} of {SAMPLES} samples blocked by the provider ({named}): not "
                     f"scored; score 1.000 [1.000, 1.000] over the {answered} answered, "
                     f"{answered / SAMPLES:.3f} [") + r"\d\.\d+, 1\.000\] with each block scored 0"
    # the terminal: the curve's blocked column and the rate with them, and the line
    terminal = run["terminal"]
    assert re.search(rf"^ +1,024 +1\.000 \[1\.000, 1\.000\] +{answered} +{count} +{count} +"
                     rf"{answered / SAMPLES:.3f} \[", terminal, re.MULTILINE), terminal
    assert re.search(line, terminal), terminal
    # summary.json: per cell and per experiment
    summary = run["summary"]
    cells = summary["experiments"]["ruler"]
    assert sum(c["outcomes"]["blocked"] for c in cells) == count
    assert all(c["with_blocked"] == {"mean": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 1}
               for c in cells if c["outcomes"]["blocked"])
    blocks = summary["findings"]["ruler"]["blocks"]
    assert blocks["blocked"] == count and blocks["by"] == expected
    assert blocks["without_blocked"]["mean"] == 1.0 and blocks["without_blocked"]["n"] == \
        answered
    assert blocks["with_blocked"]["mean"] == round(answered / SAMPLES, 6)
    # cells.md: the blocked column and the rate with them
    header = next(row for row in run["cells"].splitlines() if row.startswith("| task"))
    assert "| blocked |" in header and "with blocks scored 0 [95% CI]" in header
    rows = [row.split(" | ") for row in run["cells"].splitlines() if row.startswith("| ")]
    column = rows[0].index("blocked")
    assert sum(int(r[column]) for r in rows[1:]) == count
    # the report: the line, and its tables' columns
    assert re.search(line, run["report"]) and "with blocks scored 0" in run["report"]


@pytest.mark.parametrize("provider", sorted(BLOCKS))
def test_the_inspect_export_counts_the_blocks_and_stops_them_by_the_filter(blocked_runs,
                                                                           provider):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    (path,) = blocked_runs[provider]["logs"]
    log = read_eval_log(str(path))
    count = sum(BLOCKS[provider][1].values())
    assert log.results.metadata["contextrot"]["outcomes"] == {"blocked": count,
                                                             "ok": SAMPLES - count}
    metrics = log.results.scores[0].metrics
    assert metrics["mean"].value == 1.0
    assert metrics["mean_with_blocked"].value == pytest.approx((SAMPLES - count) / SAMPLES)
    stopped = [s for s in log.samples if s.output.choices and
               s.output.choices[0].stop_reason == "content_filter"]
    assert len(stopped) == count and not any(s.scores for s in stopped)


# -- waits that end --------------------------------------------------------------------------
SPEND_CAP = {
    "anthropic": Fault(429, {"type": "error", "error": {
        "type": "rate_limit_error", "message": "This request would exceed your account's "
        "monthly spend limit. Please try again later."}}),
    "google": Fault(429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message":
                                    "Resource has been exhausted (e.g. check quota).",
                                    "details": [{"@type": "type.googleapis.com/google.rpc."
                                                 "RetryInfo", "retryDelay": "43200s"}]}}),
}
STOP_LINES = {
    "anthropic": r"^! Interrupted: contextrot: http://127\.0\.0\.1:\d+ answered 429 \(This "
                 r"request would exceed your account's monthly spend limit\. Please try again "
                 r"later\.\): a spend cap or a quota used up; no wait mends it: .*run the same "
                 r"command again",
    "google": r"^! Interrupted: contextrot: http://127\.0\.0\.1:\d+ answered 429 \(Resource "
              r"has been exhausted \(e\.g\. check quota\)\.\) and asks to wait 12 h, longer "
              r"than --rate-limit-wait 300 s: the run stops; run the same command again",
}


@pytest.mark.parametrize("provider", sorted(SPEND_CAP))
def test_a_spend_cap_or_a_12_h_retry_delay_stops_the_run_in_one_line_within_a_minute(
        provider, tmp_path):
    with SERVERS[provider](oracle.perfect, context_length=16384) as server:
        server.chat_fault = SPEND_CAP[provider]
        started = time.monotonic()
        stopped = run_pytest(*arguments(server, provider, tmp_path, "run"), env=env())
        took = time.monotonic() - started
        asked = len(server.requests)
        server.chat_fault = None  # the limit lifted: the same command runs what is left
        again = run_pytest(*arguments(server, provider, tmp_path, "run"), env=env())
    terminal = stopped.stdout + stopped.stderr
    assert stopped.returncode == 2 and took < 60, terminal[-3000:]
    assert re.search(STOP_LINES[provider], terminal, re.MULTILINE), terminal[-3000:]
    assert "Traceback" not in terminal and asked == 1  # at the first answer
    assert f"{SAMPLES} samples were not run (the run stopped)" in terminal
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    assert f"{SAMPLES} passed" in again.stdout


class Lines:
    """A child's output lines as they come, each with the (monotonic) time it came."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[tuple[float, str]] = []
        self._reader = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._reader.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def join(self) -> str:
        self._reader.join(timeout=30)
        return "\n".join(text for _, text in self.lines)


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one-process", "xdist"])
def test_a_429_forever_is_named_at_once_and_each_sample_ends_within_the_budget(workers,
                                                                                tmp_path):
    first: list[float] = []  # when the server first answered 429
    with AnthropicServer(oracle.perfect, context_length=16384) as server:
        server.chat_fault = Fault(429, {"type": "error", "error": {
            "type": "rate_limit_error", "message": "Number of requests has exceeded your "
            "per-minute rate limit"}})  # and no retry-after, ever
        server.faults_for = lambda request: bool(first or first.append(time.monotonic())) \
            or True
        process = subprocess.Popen(
            pytest_command(*arguments(server, "anthropic", tmp_path, "run",
                                      "--rate-limit-wait", "3", *workers)),
            cwd=ROOT, env=env(**{EVERY_ENV: "0.5"}), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        lines = Lines(process)
        status = process.wait(timeout=600)
        terminal = lines.join()
    assert status == 1, terminal[-3000:]
    progress = [(at, text) for at, text in lines.lines if text.startswith("contextrot: ") and
                " samples (" in text]
    named = re.compile(r"; 429 from http://127\.0\.0\.1:\d+ for \d+ s with no answer between"
                       r"(?: \(and \d+ more process(?:es)?\))?; a sample ends after --rate-limit-wait 3 s$")
    # (the note is written as the client reads the 429: half a second after the server sent it)
    after = [text for at, text in progress if at > first[0] + 0.5]
    assert after and all(named.search(text) for text in after[:2]), after[:3]
    assert not any(named.search(text) for at, text in progress if at < first[0])
    records = [json.loads(line) for line in
               (tmp_path / "run" / "samples.jsonl").read_text().splitlines()]
    assert len(records) == SAMPLES and {r["outcome"] for r in records} == {"error"}
    host = re.escape(server.base_url)
    ended = [re.fullmatch(rf"Failed: {host} answered 429 \(Number of requests has exceeded "
                          r"your per-minute rate limit\) for (\d+) s with no answer between: "
                          r"the sample ends \(gave up after (\d+) requests?; --rate-limit-wait "
                          r"3 s\)", r["reason"]) for r in records]
    assert all(ended), [r["reason"] for r in records]
    # each within the budget: rate limited for it, or (a later sample, meeting a limit that
    # had lasted longer) at its first answer
    assert all(int(n) == 1 or int(d) in (3, 4) for d, n in (e.groups() for e in ended)), \
        [r["reason"] for r in records]
    assert "Traceback" not in terminal
    assert not (tmp_path / "run" / ".rate-limits").exists()  # every note taken away
