"""Runs as inspect_ai eval logs, read back by inspect_ai itself.

A real run (pytest in a subprocess, the real openai client against the scripted server, a
real SQLite store) of one sample per declared experiment (``-m smoke``: every experiment,
those added later too) writes its logs with ``--inspect-log-dir``; ``python -m reporting
export --format inspect`` writes them again from the store. inspect_ai's ``read_eval_log``
reads each back, its ``log list`` lists them, its ``inspect view`` serves them to a real
headless Chromium. The server thinks aloud (a reasoning parser's ``message.reasoning``) and
has a prefix cache, so thinking, reasoning and cached tokens travel too. The outcomes a
smoke run does not meet (error, skip, overflow, refusal) and scores inspect cannot hold
travel in records written straight to a store.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.doubles.scripted_server import ScriptedServer
from reporting.analysis.verdicts import verdicts
from reporting.experiments import Experiment
from reporting.render.inspect_log import METADATA_KEY, export_run, model_name
from reporting.storage.records import SampleRecord
from reporting.storage.store import ResultsStore

from ..subprocess_pytest import (ROOT, child_env, run_pytest, run_reporting, run_scripted,
                                 without_module)
from .browser import chromium_path, visit
from .helpers import (EXPERIMENTS, MEAN, RATE, once_per_session, open_store, rate_run, record,
                      store_run)

inspect_log = pytest.importorskip("inspect_ai.log")  # the [inspect] extra, in [dev]

SECRET = "pa55-in-the-url"  # credentials in --base-url: in no log
RUN_ID = "smoke"
VIEWER_PROBES = ("/api/flow", "/api/pending-samples")  # optional, 404 where there is none


def declared() -> list[str]:
    return sorted(_experiments())


def _make_run(folder: Path) -> dict:
    results, logs, exported = folder / "results", folder / "logs", folder / "exported"
    with ScriptedServer("echo", context_length=200_000, behaviour="vllm-reasoning",
                        prefix_cache_tokens=100_000) as server:
        base_url = server.base_url.replace("http://", f"http://user:{SECRET}@")
        ran = run_pytest("-m", "smoke", "-q", "--model", "scripted", "--base-url", base_url,
                         "--thinking", "on", "--results-dir", str(results), "--run-id",
                         RUN_ID, "--inspect-log-dir", str(logs))
    again = run_reporting("export", RUN_ID, "--format", "inspect", "--out", str(exported),
                          "--results-dir", str(results))
    return {"results": str(results), "logs": str(logs), "exported": str(exported),
            "endpoint": server.base_url, "returncode": ran.returncode,
            "stdout": ran.stdout + ran.stderr, "export": [again.returncode, again.stdout,
                                                          again.stderr]}


@pytest.fixture(scope="session")
def run(tmp_path_factory) -> dict:
    return once_per_session(tmp_path_factory, "inspect-run", _make_run)


def _logs(folder: str) -> dict[str, object]:
    """Each log in ``folder`` read back by inspect_ai, by experiment."""
    found = {}
    for path in sorted(Path(folder).glob("*.eval")):
        log = inspect_log.read_eval_log(str(path))
        found[log.eval.task.removeprefix("contextrot/")] = log
    return found


def _records(results: str, run_id: str = RUN_ID) -> dict[str, list[SampleRecord]]:
    store = ResultsStore(Path(results) / "contextrot.sqlite", read_only=True)
    try:
        return {name: list(store.records(run_id, name)) for name in store.experiments(run_id)}
    finally:
        store.close()


def record_from(sample, log) -> SampleRecord:
    """The record a sample was written from, rebuilt from what inspect_ai read back."""
    params = dict(sample.metadata)
    kept = dict(params.pop(METADATA_KEY))
    parts = sample.output.choices[0].message.content if sample.output.choices else []
    usage = sample.model_usage.get(log.eval.model)
    return SampleRecord(
        experiment=log.eval.task.removeprefix("contextrot/"), sample_id=sample.id,
        run_id=log.eval.run_id, params=params,
        messages=[_message_from(m) for m in sample.input]
        if isinstance(sample.input, list) else [],
        output=next((p.text for p in parts if p.type == "text"), None),
        thinking=next((p.reasoning for p in parts if p.type == "reasoning"), None),
        scores={**{k: s.value for k, s in (sample.scores or {}).items()},
                **kept.pop("scores")},
        prompt_tokens=usage.input_tokens if usage else None,
        completion_tokens=usage.output_tokens if usage else None,
        cached_tokens=usage.input_tokens_cache_read if usage else None,
        reasoning_tokens=usage.reasoning_tokens if usage else None,
        **kept)


def _message_from(message) -> dict:
    """A message as the record keeps it: role and content, a tool result's call id, an
    assistant's tool calls (their arguments as JSON text, as OpenAI's shape holds them)."""
    found = {"role": message.role, "content": message.text}
    if message.role == "tool":
        found["tool_call_id"] = message.tool_call_id
    if message.role == "assistant" and message.tool_calls:
        found["tool_calls"] = [{"id": c.id, "type": "function", "function": {
            "name": c.function, "arguments": json.dumps(c.arguments, ensure_ascii=False)}}
            for c in message.tool_calls]
    return found


def _shows_the_reply(sample, reply: str, name: str) -> None:
    """What the viewer shows of a reply: the assistant message after the prompt (its
    Messages tab), every score's answer (the Answer column) and one model event with the
    prompt and the reply (the transcript tab)."""
    assert reply, name
    assistant = sample.messages[-1]
    assert assistant.role == "assistant" and assistant.text == reply, name
    assert sample.scores and all(s.answer == reply for s in sample.scores.values()), name
    resolved = inspect_log.resolve_sample_attachments(sample)  # long texts are attachments
    events = [e for e in resolved.events if e.event == "model"]
    assert len(events) == 1, name
    assert events[0].output.completion == reply, name
    assert [m.text for m in events[0].input] == [m.text for m in sample.input], name


def test_a_run_writes_one_log_per_experiment_read_back_with_status_success(run):
    assert run["returncode"] == 0, run["stdout"][-3000:]
    logs, records = _logs(run["logs"]), _records(run["results"])
    assert sorted(logs) == sorted(records) == declared()
    assert f"inspect logs: {len(logs)} in {run['logs']}" in run["stdout"]
    for name, log in logs.items():
        assert log.status == "success" and log.eval.model == model_name("scripted")
        assert log.eval.run_id == RUN_ID and log.eval.model_base_url == run["endpoint"]
        assert len(log.samples) == len(records[name]) == log.results.total_samples
        assert all(sample.scores for sample in log.samples), name  # one scored sample each
        if _experiments()[name].target:  # the answer the experiment declares, where it does
            assert all(sample.target for sample in log.samples), name
        headline = log.results.scores[0]
        assert headline.scored_samples == 1 and "mean" in headline.metrics
        assert log.eval.metadata[METADATA_KEY]["token_unit"] == "o200k_base"


def test_every_experiment_s_records_scores_and_usage_round_trip(run):
    logs = _logs(run["logs"])
    for name, originals in _records(run["results"]).items():
        log = logs[name]
        assert [record_from(s, log) for s in log.samples] == originals, name
        for sample, original in zip(log.samples, originals):
            usage = sample.model_usage[log.eval.model]
            assert (usage.input_tokens, usage.output_tokens, usage.input_tokens_cache_read,
                    usage.reasoning_tokens) == (original.prompt_tokens,
                                                original.completion_tokens,
                                                original.cached_tokens,
                                                original.reasoning_tokens), name
            assert original.thinking and original.reasoning_tokens  # the server thought
            _shows_the_reply(sample, original.output, name)
        total = log.stats.model_usage[log.eval.model]
        assert total.input_tokens == sum(r.prompt_tokens for r in originals)


def test_the_export_command_writes_the_same_logs(run):
    status, stdout, stderr = run["export"]
    assert status == 0, stderr
    written = sorted(Path(run["exported"]).glob("*.eval"))
    assert stdout.split() == [str(p) for p in written]
    assert [p.name for p in written] == sorted(p.name for p in Path(run["logs"]).glob("*.eval"))
    again, first = _logs(run["exported"]), _logs(run["logs"])
    for name in first:
        assert again[name].model_dump(exclude={"location"}) == \
            first[name].model_dump(exclude={"location"}), name


def test_inspect_s_log_list_lists_them(run):
    listed = subprocess.run([sys.executable, "-m", "inspect_ai", "log", "list", "--log-dir",
                             run["logs"], "--json"], capture_output=True, text=True,
                            env=child_env(), timeout=120)
    assert listed.returncode == 0, listed.stderr
    names = sorted(Path(entry["name"]).name for entry in json.loads(listed.stdout))
    assert names == sorted(p.name for p in Path(run["logs"]).glob("*.eval"))
    assert len(names) == len(declared())


def test_credentials_in_the_endpoint_url_are_in_no_log(run):
    for path in Path(run["logs"]).glob("*.eval"):  # compressed: as inspect_ai reads it
        assert SECRET not in inspect_log.read_eval_log(str(path)).model_dump_json(), path
    assert SECRET not in run["stdout"]


# inspect's own use of pandas (drop_duplicates(inplace=True)), not ours
@pytest.mark.filterwarnings("ignore:The inplace keyword")
def test_inspect_s_dataframes_read_one_row_per_log_and_per_record(run):
    from inspect_ai.analysis import evals_df, samples_df

    records = _records(run["results"])
    evals = evals_df(run["logs"], quiet=True)
    # (inspect reads contextrot/ as the package its tasks come from)
    assert sorted(t.removeprefix("contextrot/") for t in evals["task_name"]) == declared()
    assert set(evals["run_id"]) == {RUN_ID}
    samples = samples_df(run["logs"], quiet=True)
    assert len(samples) == sum(map(len, records.values()))
    for name, originals in records.items():
        experiment = _experiments()[name]
        score = experiment.metric.split(".")[-1]
        mine = samples[samples["eval_id"] == _logs(run["logs"])[name].eval.eval_id]
        assert sorted(mine["id"]) == sorted(r.sample_id for r in originals)
        assert sorted(mine[f"score_{score}"].astype(float)) == \
            sorted(float(r.scores[score]) for r in originals), name


def _experiments() -> dict:
    import benchmarks

    return {p.EXPERIMENT.name: p.EXPERIMENT for p in benchmarks.experiment_packages()}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def inspect_view(log_dir: str):
    """``inspect view`` serving ``log_dir`` on 127.0.0.1: its home URL."""
    if chromium_path() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run does)")
    port = _free_port()
    viewer = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", "view", "--log-dir", log_dir, "--host",
         "127.0.0.1", "--port", str(port)], env=child_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if viewer.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"inspect view did not start: {viewer.stderr.read()}")
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/"
    finally:
        viewer.terminate()
        viewer.wait(timeout=30)


def assert_clean_visits(home: str, *visits) -> None:
    for seen in visits:
        # the viewer asks for what finished logs have none of (404): an eval set's flow
        # file, a running eval's samples
        failed = [e for e in seen.errors if e.startswith("http ")]
        assert all(any(probe in e for probe in VIEWER_PROBES) for e in failed), failed
        assert [e for e in seen.errors if not e.startswith("http ")
                and "Failed to load resource" not in e] == []
        assert all(url.startswith(home) for url in seen.requests), seen.requests  # no CDN


def test_inspect_view_serves_the_logs_to_chromium(run, tmp_path):
    with inspect_view(run["logs"]) as home:
        listed = visit(home, tmp_path / "viewer.png",
                       shows=[f"contextrot/{name}" for name in declared()])
        log = sorted(Path(run["logs"]).glob("*contextrot-repeated-words*"))[0]
        record = _records(run["results"])["repeated_words"][0]
        opened = visit(f"{home}#/logs/{log.name}", tmp_path / "log.png",
                       shows=[record.sample_id, "levenshtein", "ci_low", "ci_high"])
    assert_clean_visits(home, listed, opened)


# -- a live agent episode: its whole transcript ------------------------------------------
def _make_episode(folder: Path) -> dict:
    """One live agent-accumulation episode (the scripted agent, compaction at 4k: summary
    requests too), exported from the store."""
    results, exported = folder / "results", folder / "exported"
    with ScriptedServer("agent", context_length=4_000_000) as server:
        ran = run_scripted("agent_accumulation", server.base_url, results, "--agent-modes",
                           "live", "--agent-lengths", "8k", "--agent-samples", "1",
                           "--agent-needles", "2", "--agent-conditions", "compact:4k")
        requests = json.loads(json.dumps(server.requests))
    again = run_reporting("export", "run", "--format", "inspect", "--out", str(exported),
                          "--results-dir", str(results))
    return {"results": str(results), "exported": str(exported), "requests": requests,
            "returncode": ran.returncode, "stdout": ran.stdout + ran.stderr,
            "export": [again.returncode, again.stdout, again.stderr]}


@pytest.fixture(scope="module")
def episode(tmp_path_factory) -> dict:
    return once_per_session(tmp_path_factory, "inspect-episode", _make_episode)


def test_an_exported_live_episode_carries_every_request_call_and_tool_result(episode):
    """The viewer's transcript of an agent's run: one model event per request the endpoint
    received (the messages it sent, the reply's calls; the compaction's summaries), one tool
    event per tool result, each after the call it answers, and the score."""
    assert episode["returncode"] == 0 and episode["export"][0] == 0, episode["stdout"][-3000:]
    (log,) = _logs(episode["exported"]).values()
    (sample,) = log.samples
    sample = inspect_log.resolve_sample_attachments(sample)
    (record,) = _records(episode["results"], "run")["agent_accumulation"]
    models = [e for e in sample.events if e.event == "model"]
    sent = episode["requests"]
    assert len(models) == len(sent) == record.model_calls > 2
    assert [[m.text for m in e.input] for e in models] == \
        [[m.get("content") or "" for m in r["messages"]] for r in sent]
    summaries = [e for e in models if e.tool_choice == "none"]
    assert summaries and [e.output.completion for e in summaries] == \
        record.details["summaries"]
    calls = [c for e in models for c in e.output.choices[0].message.tool_calls or ()]
    assert [c.function for c in calls].count("read_page") == record.details["pages_read"]
    assert calls[-1].function == "submit"
    tools_run = [e for e in sample.events if e.event == "tool"]
    results = {m["tool_call_id"]: m["content"] for r in sent for m in r["messages"]
               if m["role"] == "tool"}
    assert {e.id: str(e.result) for e in tools_run} == results
    assert len(tools_run) == len(calls) - 1  # every call but the submit was run
    order = [e.id if e.event == "tool" else None for e in sample.events]
    made = [c.id for e in models for c in e.output.choices[0].message.tool_calls or ()]
    assert all(made.index(i) < order.index(i) for i in results)  # a result after its call
    by_call = {c.id: c for c in calls}
    assert all(e.function == by_call[e.id].function and e.arguments == by_call[e.id].arguments
               for e in tools_run)
    assert sample.scores["exact"].value is True and sample.messages[-1].tool_calls[0].function \
        == "submit"


def test_inspect_view_shows_a_live_episode_s_calls_and_results(episode, tmp_path):
    (log,) = Path(episode["exported"]).glob("*.eval")
    (record,) = _records(episode["results"], "run")["agent_accumulation"]
    with inspect_view(episode["exported"]) as home:
        opened = visit(f"{home}#/logs/{log.name}/samples/sample/{record.sample_id}/1/transcript",
                       tmp_path / "episode.png",
                       shows=["read_page", "list_pages", "records_per_page", "submit"])
    assert_clean_visits(home, opened)


# -- every outcome, from records written straight to a store -----------------------------
def _outcomes(run_id: str) -> list[SampleRecord]:
    """Each outcome once, thinking, cached tokens, and scores inspect cannot hold."""
    ok = record(run_id, RATE, 1000, 0, 1)
    ok.thinking, ok.reasoning_tokens, ok.finish_reason = "first, the needle", 40, "length"
    ok.prompt_tokens, ok.completion_tokens, ok.cached_tokens = 1200, 60, 1024
    ok.scores.update(undefined=None, nested={"a": {"b": 1}}, parts=[1, 2], label="x")
    ok.messages.insert(0, {"role": "system", "content": "be brief"})
    refused = record(run_id, RATE, 1000, 1, 0)
    refused.outcome, refused.reason = "refused", "the model declined"
    overflow = record(run_id, RATE, 8000, 0, None, outcome="overflow", output=None)
    overflow.reason = "the prompt exceeds the context window"
    skipped = record(run_id, RATE, 8000, 1, None, outcome="skipped", output=None)
    skipped.reason = "output budget 9000 exceeds the model's output limit 4096"
    errored = record(run_id, MEAN, 100, 0, None, outcome="error", output=None)
    errored.reason = "gave up after 3 requests"
    return [ok, refused, overflow, skipped, errored]


def test_every_outcome_round_trips_as_inspect_marks_it(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "r1", _outcomes("r1"))
    paths = export_run(store, "r1", EXPERIMENTS, tmp_path / "logs")
    store.close()
    logs = {p: inspect_log.read_eval_log(str(p)) for p in paths}
    assert [log.eval.task for log in logs.values()] == ["contextrot/toy_mean",
                                                          "contextrot/toy_rate"]
    rebuilt = {s.id: record_from(s, log) for log in logs.values() for s in log.samples}
    for original in _outcomes("r1"):
        assert rebuilt[original.sample_id] == original
    samples = {s.id: s for log in logs.values() for s in log.samples}
    ok = samples["len1000-i0"]
    assert ok.output.stop_reason == "max_tokens" and ok.output.completion == "an answer"
    assert set(ok.scores) == {"accuracy", "parts", "label"}  # the rest stays with the record
    _shows_the_reply(ok, "an answer", "toy_rate")
    assert not samples["len8000-i1"].events  # no request answered: no model event
    assert samples["len8000-i0"].output.stop_reason == "model_length"
    assert samples["len8000-i1"].limit.type == "custom" and not samples["len8000-i1"].scores
    assert samples["len100-i0"].error.message == "gave up after 3 requests"
    rate = next(log for log in logs.values() if log.eval.task == "contextrot/toy_rate")
    accuracy = rate.results.scores[0]
    assert (accuracy.name, accuracy.scored_samples, accuracy.unscored_samples) == \
        ("accuracy", 1, 3)  # the refusal is scored but not counted, as the report does
    assert rate.results.completed_samples == 3  # ok, refused, overflow: a model answered


def test_without_inspect_ai_the_export_says_which_extra_to_install(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "r1", _outcomes("r1"))
    store.close()
    hidden = without_module(tmp_path / "no-inspect", "inspect_ai")
    done = subprocess.run([sys.executable, "-m", "reporting", "export", "r1", "--format",
                           "inspect", "--results-dir", str(tmp_path)], cwd=ROOT,
                          env=child_env(PYTHONPATH=hidden), capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "error: inspect logs are written with inspect_ai, which is not installed: "
        "pip install -e '.[inspect]' (or 'contextrot[inspect]')"]
    assert not (tmp_path / "r1" / "inspect").exists()


def test_a_run_stopped_early_is_cancelled_and_one_without_an_end_started(tmp_path):
    store = open_store(tmp_path)
    store_run(store, "stopped", [record("stopped", RATE, 1000, 0, 1)],
              info={"options": {}, "missing": ["benchmarks/x/test_x.py::test_x[len1000-i1]"]})
    store.begin_run("running", {"options": {}})
    store.add(record("running", RATE, 1000, 0, 1))
    status = {run: inspect_log.read_eval_log(
        str(export_run(store, run, EXPERIMENTS, tmp_path / run)[0])).status
        for run in ("stopped", "running")}
    store.close()
    assert status == {"stopped": "cancelled", "running": "started"}


def test_the_headline_carries_its_curve_and_verdict(tmp_path):
    curved = Experiment(name="toy_rate", title="a curve", cell=("params.length",),
                        metric="scores.accuracy", metric_kind="rate", length="params.length")
    store = open_store(tmp_path)
    store_run(store, "r1", rate_run("r1", {1000: 20, 2000: 19, 4000: 18, 8000: 4}))
    (path,) = export_run(store, "r1", {curved.name: curved}, tmp_path / "logs")
    found = verdicts(store.frame("r1"), {curved.name: curved})[curved.name]
    store.close()
    metrics = inspect_log.read_eval_log(str(path)).results.scores[0].metrics
    assert metrics["length=8000"].value == 0.2 and metrics["length=8000"].metadata["n"] == 20
    assert (metrics["mean"].value, metrics["mean"].metadata["n"]) == (61 / 80, 80)
    assert metrics["effective_length"].value == found.effective_length.value == 4000
    assert metrics["effective_length"].metadata["ci_low"] == found.effective_length.low
    assert metrics["length_auc"].value == pytest.approx(found.length_auc.value)
