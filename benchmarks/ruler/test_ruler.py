"""Each case asks one RULER task at one length; a wrong answer is data, only a harness
failure fails. A task whose data is missing (qa_1, qa_2) is one ``<task>-unavailable`` case."""

import dataclasses
import time

import pytest

from fixtures.data.registry import DataUnavailable
from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples, unavailable_part

from . import EXPERIMENT, fitting, grid, qa, scoring, stimulus

SETTINGS_KEY = pytest.StashKey[dict]()


def settings(config: pytest.Config) -> dict:
    """The experiment's options, parsed once per process (a bad value: ValueError, which
    makes the experiment one [unavailable] case naming the option)."""
    if SETTINGS_KEY not in config.stash:
        scale = config.getoption("scale")
        embedded = config.getoption("model") is None  # the test grid sized to it (grid.py)
        config.stash[SETTINGS_KEY] = {
            "tasks": grid.parse_tasks(config.getoption("ruler_tasks"), scale, embedded),
            "lengths": grid.parse_lengths(config.getoption("ruler_lengths"), scale, embedded),
            "samples": grid.parse_samples(config.getoption("ruler_samples"), scale, embedded),
            "answer_prefix": config.getoption("ruler_answer_prefix"),
            "fit": config.getoption("ruler_fit")}
    return config.stash[SETTINGS_KEY]


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    s = settings(metafunc.config)
    samples = []
    for name in s["tasks"]:
        task = grid.TASKS[name]
        if task.needs_data:
            try:
                qa.check_available(task.dataset)
            except DataUnavailable as missing:
                samples.append(unavailable_part(EXPERIMENT.name, name, f"{name}: {missing}"))
                continue
        samples.extend(grid.build((name,), s["lengths"], s["samples"]))
    first = next((x for x in samples if isinstance(x, grid.RulerSample)), None)
    parametrize_samples(metafunc, EXPERIMENT.name, samples, smoke=lambda x: x is first)


def request_size(sample, ctx) -> tuple[int, int]:
    """``--plan`` without building: a prompt is at most its length less the tokens to
    generate, in any token unit (within a thousandth of it with ``--ruler-fit per-sample``;
    RULER's own fit fills 0.92-0.96 of L on average, so the plan is an upper bound)."""
    task = grid.TASKS[sample.task]
    if task.needs_data:  # its file is checked as the run checks it (read once per process)
        qa.load(task.dataset)
    return sample.length - task.tokens_to_generate, task.tokens_to_generate


@dataclasses.dataclass(frozen=True)
class Answered:
    completion: object
    outputs: tuple[str, ...]  # the references


async def solve(sample, ctx):
    s, record = settings(ctx.config), ctx.record
    task = grid.TASKS[sample.task]
    started = time.perf_counter()
    data = await ctx.build(qa.load, task.dataset) if task.needs_data else None
    if data is not None and sample.index >= len(data.questions):
        record.skip(f"{sample.task} has {len(data.questions)} questions; there is no "
                    f"question {sample.index} (use --ruler-samples {len(data.questions)})")
    try:
        fitted = await ctx.build(fitting.build, sample, ctx.tokenizer, data, s["fit"])
    except fitting.TooShort as reason:
        record.skip(f"{sample.task} does not fit {sample.length} tokens: {reason}")
    outputs = fitted.prompt.outputs
    server = getattr(ctx.model, "server_kind", None)
    form = stimulus.answer_prefix_form(s["answer_prefix"], server)
    record.detail(size=fitted.size, prompt_tokens=fitted.tokens, token_counts=fitted.counts,
                  fill=round(fitted.tokens / sample.length, 4),
                  tokens_to_generate=task.tokens_to_generate, outputs=list(outputs),
                  answer_prefix=fitted.prompt.answer_prefix, answer_prefix_as=form,
                  protocol={"ruler_fit": s["fit"], "ruler_answer_prefix": form + (
                      f" (auto: the server says {server or 'nothing'})"
                      if s["answer_prefix"] == "auto" else "")},
                  build_s=round(time.perf_counter() - started, 3))
    record.stimulus(stimulus.messages(fitted.prompt, form),
                    target_tokens=fitted.tokens, target_length=sample.length,
                    max_tokens=task.tokens_to_generate)
    del fitted  # the record holds the prompt until it is sent; nothing else does
    record.skip_unless_fits(ctx.model)
    completion = await record.ask(ctx.model, temperature=0.0, top_p=1.0,
                                  **stimulus.PREFILL_PARAMS[form])
    return Answered(completion, outputs)


def test_ruler(sample, solved, record):
    if solved.completion.ok:
        record.score(**scoring.score(sample.task, solved.completion.text, list(solved.outputs)))
