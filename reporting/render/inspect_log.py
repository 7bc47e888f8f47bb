"""A run as inspect_ai eval logs: one log per experiment, for ``inspect view`` and inspect's
``read_eval_log`` and dataframes.

inspect's file format is versioned but not frozen; the stable surface for other tools is its
Python API (inspect_ai #5066). So each log is built from ``inspect_ai.log``'s classes and
written by its ``write_eval_log``, never by hand, from the run's records alone. The mapping
(docs/inspect.md has it as a table):

- the task is ``contextrot/<experiment>``; the model ``openai/<name>`` (the OpenAI-compatible
  API it was asked through) at the records' endpoint (stored without credentials, and
  redacted again here); the generation settings every sample was sent alike are the
  model's generate config; the run id, token unit, protocol and identity lines are metadata;
- one sample per record: its id, the messages sent and the reply as the assistant message
  (with the thinking as its reasoning part), the experiment's ``target`` column, every score
  with the reply as its answer (the viewer's Answer column), the grid parameters as metadata
  and the rest of the record under ``metadata["contextrot"]``; usage (cached and reasoning
  tokens included) as the sample's model usage; one model event (the request and its reply:
  the viewer's transcript); a sample of many requests (a tool loop: the recorder's
  ``details["transcript"]``) one model event per request and one tool event per tool result,
  its messages the last request's and its reply;
- an error is the sample's error, an overflow the stop reason ``model_length`` (inspect's own
  mark of a context window exceeded), a provider's block the stop reason ``content_filter``
  (unscored; what blocked it in metadata), a skip a ``custom`` limit (the reason in
  metadata); a refusal is scored, its outcome in metadata;
- results: per score its mean, 95% interval and sample count; the headline's means along the
  length axis (else its most varied grid column), beside them the headline with each block
  scored 0 where the provider blocked samples, and the verdict's numbers; each outcome's
  count (``blocked`` among them) in the results' metadata.
"""

from __future__ import annotations

import hashlib
import importlib.util
from importlib import metadata as package_metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from reporting.experiments import Experiment
from reporting.storage.records import SampleRecord, encodable

if TYPE_CHECKING:  # the plugin checks the extra at start-up: pandas loads when logs are made
    import pandas as pd

    from reporting.analysis.verdicts import Verdict
    from reporting.storage.store import ResultsStore

EXTRA = "inspect"
MISSING = ("inspect logs are written with inspect_ai, which is not installed: "
           f"pip install -e '.[{EXTRA}]' (or 'contextrot[{EXTRA}]')")
METADATA_KEY = "contextrot"  # a sample's record beyond its grid parameters
# record fields a sample holds in inspect's own terms; the rest go to metadata["contextrot"]
_MAPPED = ("experiment", "run_id", "sample_id", "params", "messages", "output", "thinking",
           "scores", "prompt_tokens", "completion_tokens", "cached_tokens", "reasoning_tokens")
_STOP_REASONS = {"stop": "stop", "length": "max_tokens", "content_filter": "content_filter",
                 "tool_calls": "tool_calls", "function_call": "tool_calls"}
# sampling a record sent -> inspect's GenerateConfig field of the same meaning
_GENERATE_FIELDS = {"temperature": "temperature", "top_p": "top_p", "seed": "seed",
                    "reasoning_effort": "reasoning_effort", "max_tokens": "max_tokens",
                    "max_completion_tokens": "max_tokens", "stop": "stop_seqs",
                    "frequency_penalty": "frequency_penalty",
                    "presence_penalty": "presence_penalty"}


class InspectMissing(RuntimeError):
    """inspect_ai is not installed: its one line names the extra."""


def require_inspect() -> None:
    if importlib.util.find_spec("inspect_ai") is None:
        raise InspectMissing(MISSING)


def export_run(store: ResultsStore, run_id: str, experiments: dict[str, Experiment],
               out: Path) -> list[Path]:
    """Write one log per experiment of the stored run ``run_id`` into ``out``, with the
    verdicts computed from its records under the rules the run was started with, as
    ``python -m reporting report`` does; their paths, in name order."""
    require_inspect()
    from reporting.analysis.verdict_settings import from_run_options
    from reporting.analysis.verdicts import verdicts as judge
    from reporting.storage.store import records_frame

    stored = store.read_run(run_id)
    info = stored.row["info"]
    found = judge(records_frame(stored.records, output_chars=0), experiments,
                  from_run_options(info.get("options") or {}))
    return write_logs(stored.records, info, stored.row, experiments, out, found)


def write_logs(records: list[SampleRecord], info: dict, row: dict,
               experiments: dict[str, Experiment], out: Path,
               verdicts: dict[str, Verdict]) -> list[Path]:
    """One log per experiment of ``records`` (the run's, or the end of a run's: those its
    report was written from) into ``out``; their paths, in name order. The same run exported
    again overwrites its logs (their names and ids derive from the run id and the
    experiment)."""
    require_inspect()
    out.mkdir(parents=True, exist_ok=True)
    by_experiment: dict[str, list[SampleRecord]] = {}
    for record in records:
        by_experiment.setdefault(record.experiment, []).append(record)
    return [write_log(part, name, info, row, experiments.get(name), verdicts.get(name), out)
            for name, part in sorted(by_experiment.items())]


def write_log(records: list[SampleRecord], name: str, info: dict, row: dict,
              experiment: Experiment | None, verdict: Verdict | None, out: Path) -> Path:
    from inspect_ai.log import EvalLog, EvalPlan, EvalPlanStep, EvalStats, write_eval_log

    from reporting.storage.store import records_frame

    # the frame is for the statistics, which read scores: outputs dropped
    frame = records_frame(records, output_chars=0)
    spec = _spec(records, name, info, row, frame)
    usage = [u for u in (_usage(r) for r in records) if u is not None]
    log = EvalLog(
        status=_status(row, info),
        eval=spec,
        plan=EvalPlan(steps=[EvalPlanStep(solver=spec.task)],
                      config=spec.model_generate_config),
        results=_results(records, frame, experiment, verdict),
        stats=EvalStats(started_at=row["started_at"], completed_at=row.get("finished_at") or "",
                        model_usage={spec.model: _sum(usage)} if usage else {}),
        samples=[_sample(r, spec.model, experiment) for r in records],
    )
    stamp = row["started_at"].replace(":", "-")
    path = out / f"{stamp}_contextrot-{name.replace('_', '-')}_{spec.task_id}.eval"
    write_eval_log(log, str(path))
    return path


# -- the task ----------------------------------------------------------------------------
def _spec(records: list[SampleRecord], name: str, info: dict, row: dict, frame: pd.DataFrame):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalSpec

    from reporting.gating.compare import run_identity

    model = next((r.model for r in records if r.model.get("name")), {})
    identity = run_identity(info, frame)
    task_id = hashlib.sha256(f"{row['run_id']}/{name}".encode()).hexdigest()[:22]
    return EvalSpec(
        run_id=row["run_id"], eval_id=task_id, task_id=task_id, created=row["started_at"],
        task=f"contextrot/{name}",
        dataset=EvalDataset(name=name, samples=len(records),
                            sample_ids=[r.sample_id for r in records]),
        model=model_name(model.get("name") or identity["model"]),
        model_base_url=_base_url(model.get("endpoint")),
        model_generate_config=_generate_config(records),
        config=EvalConfig(),
        packages={"contextrot": _version("contextrot")},
        metadata={METADATA_KEY: {
            "run_id": row["run_id"], "token_unit": identity["tokenizer"],
            "protocol": identity["protocol"], "identity": identity,
            "exit_status": row.get("exit_status"), "missing": info.get("missing") or [],
        }},
    )


def model_name(name: str) -> str:
    """inspect's ``provider/model``: contextrot asks every model through the OpenAI API."""
    return f"openai/{name}"


def _base_url(endpoint: str | None) -> str | None:
    """The endpoint where it is a URL (not an embedded model's id), without credentials."""
    from fixtures.providers.base import redact_url  # one definition of "safe to store"

    if not endpoint or not endpoint.startswith(("http://", "https://")):
        return None
    return redact_url(endpoint)


def _generate_config(records: list[SampleRecord]):
    """What every sample of the experiment was sent alike: sampling and token limit."""
    from inspect_ai.model import GenerateConfig

    sent = [{**(r.model.get("sampling") or {}), **(r.model.get("token_limit") or {})}
            for r in records if r.model.get("sampling") is not None]
    common = dict(sent[0]) if sent else {}
    for other in sent[1:]:
        common = {k: v for k, v in common.items() if k in other and other[k] == v}
    config = {_GENERATE_FIELDS[k]: v for k, v in common.items() if k in _GENERATE_FIELDS}
    extra = {k: v for k, v in common.items() if k not in _GENERATE_FIELDS}
    return GenerateConfig(**config, **({"extra_body": extra} if extra else {}))


def _status(row: dict, info: dict) -> str:
    if not row.get("finished_at"):
        return "started"  # still running, or stopped without an end: run it again
    return "cancelled" if info.get("missing") else "success"


# -- samples -----------------------------------------------------------------------------
def _sample(record: SampleRecord, model: str, experiment: Experiment | None):
    from inspect_ai.log import EvalError, EvalSample, EvalSampleLimit
    from inspect_ai.scorer import Score

    data = record.__dict__
    kept = {k: v for k, v in data.items() if k not in _MAPPED}
    # a score inspect's Score cannot hold (undefined, or nested) stays with the record
    kept["scores"] = {k: v for k, v in record.scores.items() if not _score_value(v)}
    if METADATA_KEY in record.params:
        raise ValueError(f"{record.experiment}: a grid parameter named {METADATA_KEY!r} "
                         "would hide the record in its inspect sample's metadata; rename it")
    # ids from the record, not inspect's random ones: the same run exports the same logs
    messages = [_message(m, f"{record.sample_id}/{i}") for i, m in enumerate(record.messages)]
    output = _output(record, model)
    usage = _usage(record)
    transcript = record.details.get("transcript")
    if isinstance(transcript, dict) and transcript.get("requests"):
        conversation, events = _episode(record, transcript, model)
    else:
        conversation = messages + [c.message for c in output.choices]
        events = _events(record, messages, output, model)
    return EvalSample(
        id=record.sample_id, epoch=1, input=messages or "",
        target=_target(record, experiment),
        messages=conversation,
        output=output,
        scores={k: Score(value=v, answer=record.output) for k, v in record.scores.items()
                if _score_value(v)},
        events=events,
        metadata={**record.params, METADATA_KEY: kept},
        model_usage={model: usage} if usage is not None else {},
        total_time=round(record.latency_s, 6),
        error=EvalError(message=record.reason, traceback=record.reason,
                        traceback_ansi=record.reason) if record.outcome == "error" else None,
        limit=EvalSampleLimit(type="custom", limit=0) if record.outcome == "skipped" else None,
    )


def _score_value(value: Any) -> bool:
    """Whether inspect's ``Score.value`` holds ``value`` as it is: a number, string or
    boolean, a list of them, or a mapping of them (its values may be None)."""
    scalar = (str, int, float, bool)
    if isinstance(value, scalar):
        return True
    if isinstance(value, list):
        return all(isinstance(v, scalar) for v in value)
    if isinstance(value, dict):
        return all(v is None or isinstance(v, scalar) for v in value.values())
    return False


def _message(message: dict, id: str):
    from inspect_ai.model import (ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                                  ChatMessageUser)

    kinds = {"system": ChatMessageSystem, "developer": ChatMessageSystem,
             "user": ChatMessageUser, "assistant": ChatMessageAssistant,
             "tool": ChatMessageTool}
    role = message.get("role", "user")
    if role not in kinds:
        raise ValueError(f"a message of role {role!r} has no inspect message type")
    content = message.get("content") or ""
    if role == "tool":  # a tool's result answers its call by id
        return ChatMessageTool(id=id, content=content,
                               tool_call_id=message.get("tool_call_id"))
    if role == "assistant" and message.get("tool_calls"):
        return ChatMessageAssistant(id=id, content=content,
                                    tool_calls=[_tool_call(c) for c in message["tool_calls"]])
    return kinds[role](id=id, content=content)


def _tool_call(call: dict):
    """An OpenAI-shaped tool call as inspect's; arguments that are not a JSON object are kept
    as its parse error (what a model sent is data)."""
    import json

    from inspect_ai.tool import ToolCall

    function = call.get("function") or {}
    text = function.get("arguments") or "{}"
    try:  # (JSON text may escape what UTF-8 cannot hold: a lone surrogate stays escaped)
        arguments, error = encodable(json.loads(text)), None
    except (ValueError, RecursionError) as problem:  # (nested past the parser's depth)
        arguments, error = {}, f"{problem}: {text[:200]}"
    if not isinstance(arguments, dict):
        arguments, error = {}, f"not a JSON object: {text[:200]}"
    return ToolCall(id=str(call.get("id") or ""), function=str(function.get("name") or ""),
                    arguments=arguments, parse_error=error)


def _output(record: SampleRecord, model: str):
    """The answer as one choice (its thinking as a reasoning part); no choice where no
    request was answered."""
    from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ContentReasoning,
                                  ContentText, ModelOutput)

    answered = record.output is not None or record.thinking is not None \
        or record.finish_reason is not None or record.outcome == "overflow"
    if not answered:
        return ModelOutput(model=model, usage=_usage(record))
    parts = ([ContentReasoning(reasoning=record.thinking)] if record.thinking is not None
             else []) + ([ContentText(text=record.output)] if record.output is not None else [])
    stop = "model_length" if record.outcome == "overflow" else "content_filter" \
        if record.outcome == "blocked" else _STOP_REASONS.get(record.finish_reason or "",
                                                              "unknown")
    return ModelOutput(model=model, completion=record.output or "", usage=_usage(record),
                       choices=[ChatCompletionChoice(
                           message=ChatMessageAssistant(id=f"{record.sample_id}/answer",
                                                        content=parts, model=model),
                           stop_reason=stop)])


def _events(record: SampleRecord, messages: list, output, model: str) -> list:
    """The request and its reply as one model event, which the viewer's transcript shows;
    none where no request was answered. Its time is the record's (the same run exports the
    same logs), its config what the request was sent with."""
    from inspect_ai.event import ModelEvent

    if not output.choices:
        return []
    stamp = {"timestamp": record.finished_at} if record.finished_at else {}
    return [ModelEvent(uuid=f"{record.sample_id}/model", model=model, input=messages,
                       tools=[], tool_choice="none", config=_generate_config([record]),
                       output=output, working_start=0.0, **stamp)]


def _episode(record: SampleRecord, transcript: dict, model: str) -> tuple[list, list]:
    """A sample of many requests (a tool loop, a conversation; the recorder's
    ``details["transcript"]``) as inspect shows an agent's run: one model event per request
    (the messages it sent, the reply: its calls, a compaction's summary), one tool event per
    tool result the next request carried, after the call it answers; the conversation is the
    last request's messages and its reply."""
    from inspect_ai.event import ModelEvent, ToolEvent
    from inspect_ai.model import ChatCompletionChoice, ModelOutput

    messages = [_message(m, f"{record.sample_id}/t{i}")
                for i, m in enumerate(transcript.get("messages") or [])]
    stamp = {"timestamp": record.finished_at} if record.finished_at else {}
    usage = record.details.get("requests") or []
    calls: dict[str, Any] = {}  # call id -> inspect's ToolCall, from the replies so far
    shown: set[int] = set()  # tool results already shown
    events: list = []
    conversation: list = []
    for number, request in enumerate(transcript["requests"]):
        sent = [messages[i] for i in request.get("sent") or ()]
        for i in request.get("sent") or ():
            message = messages[i]
            if message.role == "tool" and i not in shown:
                shown.add(i)
                call = calls.get(message.tool_call_id or "")
                events.append(ToolEvent(
                    uuid=f"{record.sample_id}/tool/{i}", id=message.tool_call_id or "",
                    function=call.function if call else "", arguments=call.arguments
                    if call else {}, result=message.text, working_start=0.0, **stamp))
        reply = messages[request["reply"]] if request.get("reply") is not None else None
        for call in getattr(reply, "tool_calls", None) or ():
            calls[call.id] = call
        stop = "model_length" if request.get("outcome") == "overflow" else \
            _STOP_REASONS.get(request.get("finish_reason") or "", "unknown")
        counted = usage[number] if number < len(usage) else {}
        output = ModelOutput(model=model, completion=reply.text if reply else "",
                             usage=_model_usage(
                                 counted.get("prompt_tokens"), counted.get("completion_tokens"),
                                 counted.get("cached_tokens")),
                             choices=[ChatCompletionChoice(message=reply, stop_reason=stop)]
                             if reply is not None else [])
        events.append(ModelEvent(
            uuid=f"{record.sample_id}/model/{number}", model=model, input=sent, tools=[],
            tool_choice=_tool_choice(request.get("tool_choice")),
            config=_generate_config([record]), output=output, working_start=0.0, **stamp))
        conversation = sent + ([reply] if reply is not None else [])
    return conversation, events


def _tool_choice(choice: Any):
    """OpenAI's ``tool_choice`` as inspect's: "auto", "none", "any" (required) or a named
    function."""
    from inspect_ai.tool import ToolFunction

    if isinstance(choice, dict):
        return ToolFunction(name=str((choice.get("function") or {}).get("name") or ""))
    return {"required": "any", "none": "none"}.get(str(choice), "auto")


def _target(record: SampleRecord, experiment: Experiment | None) -> str | list[str]:
    """The value of the experiment's ``target`` column ("" where it declares none)."""
    if experiment is None or experiment.target is None:
        return ""
    value: Any = record.__dict__
    for part in experiment.target.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return str(value)


def _usage(record: SampleRecord):
    """The record's tokens as inspect's usage; None where the endpoint reported none."""
    return _model_usage(record.prompt_tokens, record.completion_tokens, record.cached_tokens,
                        record.reasoning_tokens)


def _model_usage(prompt: int | None, completion: int | None, cached: int | None,
                 reasoning: int | None = None):
    from inspect_ai.model import ModelUsage

    if prompt is None and completion is None:
        return None
    return ModelUsage(input_tokens=prompt or 0, output_tokens=completion or 0,
                      total_tokens=(prompt or 0) + (completion or 0),
                      input_tokens_cache_read=cached, reasoning_tokens=reasoning)


def _sum(usages: Iterable):
    from inspect_ai.model import ModelUsage

    total = ModelUsage()
    for usage in usages:
        total.input_tokens += usage.input_tokens
        total.output_tokens += usage.output_tokens
        total.total_tokens += usage.total_tokens
        for field in ("input_tokens_cache_read", "reasoning_tokens"):
            value = getattr(usage, field)
            if value is not None:
                setattr(total, field, (getattr(total, field) or 0) + value)
    return total


# -- results -----------------------------------------------------------------------------
def _results(records: list[SampleRecord], frame: pd.DataFrame,
             experiment: Experiment | None, verdict: Verdict | None):
    """Per score its mean, interval and count; the headline first, with its curve and
    verdict."""
    from inspect_ai.log import EvalResults

    headline = experiment.metric.split(".")[-1] if experiment else None
    names = sorted({k for r in records for k in r.scores}, key=lambda k: (k != headline, k))
    scores = [s for s in (_score(records, name, experiment if name == headline else None,
                                 frame, verdict) for name in names) if s is not None]
    return EvalResults(
        total_samples=len(records),
        completed_samples=sum(r.outcome not in ("error", "skipped") for r in records),
        scores=scores,
        metadata={METADATA_KEY: {
            "outcomes": {o: sum(r.outcome == o for r in records) for o in
                         sorted({r.outcome for r in records})},
            "verdict": verdict.text() if verdict else None,
            "verdict_numbers": verdict.to_dict() if verdict else None}},
    )


def _score(records: list[SampleRecord], name: str, headline: Experiment | None,
           frame: pd.DataFrame, verdict: Verdict | None):
    """One score's EvalScore over the ``ok`` samples (None: not a number)."""
    from inspect_ai.log import EvalMetric, EvalScore

    from reporting.analysis.blocks import with_blocks
    from reporting.analysis.curve_tables import curve, curve_axes, short
    from reporting.analysis.stats import is_binary, mean_interval

    values = [r.scores.get(name) for r in records if r.outcome == "ok"]
    numbers = [v for v in values if v is not None]
    if not all(isinstance(v, (bool, int, float)) for v in numbers) \
            or (not numbers and headline is None):
        return None
    kind = headline.metric_kind if headline else ("rate" if numbers and is_binary(numbers)
                                                  else "mean")
    mean, low, high, n = mean_interval(numbers, kind)
    interval = "Wilson" if kind == "rate" else "percentile bootstrap"
    metrics = _metrics(EvalMetric, {"mean": mean, "ci_low": low, "ci_high": high}, n,
                       f"95% {interval} interval")
    if headline is not None:
        blocks = sum(r.outcome == "blocked" for r in records)
        if (beside := with_blocks(numbers, blocks, headline)) is not None:
            metrics.update(_metrics(EvalMetric, {
                "mean_with_blocked": beside["mean"], "ci_low_with_blocked": beside["ci_low"],
                "ci_high_with_blocked": beside["ci_high"]}, beside["n"],
                f"{blocks} samples the provider blocked, each scored 0"))
        x, _ = curve_axes(frame, headline)
        for point in curve(frame, headline, x) if x else ():
            metrics.update(_metrics(EvalMetric, {f"{short(x)}={point.value}": point.mean},
                                    point.n, f"[{point.low}, {point.high}] (95%)"))
        if verdict is not None:
            metrics.update(_verdict_metrics(EvalMetric, verdict))
    return EvalScore(name=name, scorer=name, scored_samples=n,
                     unscored_samples=len(records) - n, metrics=metrics,
                     metadata={"headline": headline is not None, "kind": kind})


def _metrics(metric, values: dict[str, float | None], n: int, note: str) -> dict:
    """Finite values as EvalMetrics with their count (an undefined mean is left out)."""
    return {name: metric(name=name, value=float(value), metadata={"n": n, "note": note})
            for name, value in values.items()
            if value is not None and value == value}


def _verdict_metrics(metric, verdict: Verdict) -> dict:
    from reporting.analysis.verdict_settings import (ABSOLUTE_EFFECTIVE_LENGTH, EFFECTIVE_LENGTH,
                                                     LENGTH_AUC)

    found = {}
    for name in (EFFECTIVE_LENGTH, ABSOLUTE_EFFECTIVE_LENGTH, LENGTH_AUC):
        estimate = getattr(verdict, name, None)
        if estimate is None or estimate.value is None or name in verdict.no_verdict:
            continue
        censored = bool(getattr(verdict, f"{name}_censored", False))
        found[name] = metric(name=name, value=float(estimate.value), metadata={
            "n": verdict.n, "ci_low": estimate.low, "ci_high": estimate.high,
            "censored": censored, "text": verdict.number_text(name)})
    return found


def _version(name: str) -> str:
    try:
        return package_metadata.version(name)
    except package_metadata.PackageNotFoundError:
        return "unknown"
