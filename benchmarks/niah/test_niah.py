"""Each case asks one question of one haystack; a wrong answer is data, only a harness
failure (no response, or a judge call that fails) fails."""

import dataclasses
import time

import pytest

from fixtures.providers.base import EndpointError
from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, grid, needles, scoring, stimulus


SETTINGS_KEY = pytest.StashKey[dict]()


def settings(config: pytest.Config) -> dict:
    """The experiment's options, checked once per process; a bad value is one UsageError."""
    if SETTINGS_KEY not in config.stash:
        config.stash[SETTINGS_KEY] = _settings(config)
    return config.stash[SETTINGS_KEY]


def _settings(config: pytest.Config) -> dict:
    option = config.getoption
    scale = option("scale")
    try:
        questions = needles.load(option("niah_needle_file") or needles.DEFAULT_FILE)
        choice = option("niah_needles")
        chosen = needles.select(questions, choice or "default")
        if choice is None and scale != "full":
            chosen = chosen[:1]
        modes = grid.parse_modes(option("niah_modes"))
        counts = grid.parse_counts(option("niah_distractors"),
                                   min(len(q.distractors) for q, _ in chosen))
        if counts is None and scale != "full":
            counts = tuple(c for c in grid.TEST_DISTRACTOR_COUNTS
                           if c <= min(len(q.distractors) for q, _ in chosen))
        trials = option("niah_trials")
        if trials is not None and trials < 1:
            raise ValueError(f"--niah-trials {trials}: give at least 1")
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    return {"scale": scale, "chosen": chosen, "modes": modes, "counts": counts,
            "embedded": option("model") is None,
            "trials": trials, "template": stimulus.TEMPLATES[option("niah_prompt")],
            "include_bible": option("niah_include_bible")}


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    s = settings(metafunc.config)
    samples = grid.build(s["scale"], [(q.id, n.id) for q, n in s["chosen"]], modes=s["modes"],
                         distractor_counts=s["counts"], trials=s["trials"],
                         embedded=s["embedded"])
    first = s["chosen"][0][1].id
    parametrize_samples(metafunc, EXPERIMENT.name, samples,
                        smoke=lambda x: x.needle == first and (
                            x.mode, x.length, x.depth, x.distractors, x.trial) == grid.SMOKE)


def chosen_pair(s: dict, sample):
    """The (question, needle) of ``sample`` among the run's chosen pairs."""
    return next((q, n) for q, n in s["chosen"] if n.id == sample.needle)


def request_size(sample, ctx) -> tuple[int, int]:
    """``--plan`` without building: every haystack is cut to the sample's length."""
    s = settings(ctx.config)
    question, needle = chosen_pair(s, sample)
    try:
        prompt = stimulus.request_tokens(sample, question, needle, ctx.tokenizer, s["template"])
    except stimulus.TooShort as reason:
        ctx.record.skip(str(reason))
    return prompt, stimulus.MAX_OUTPUT_TOKENS


@dataclasses.dataclass(frozen=True)
class Answered:
    """What a NIAH sample asked of models: the answer and, with an LLM judge, its replies."""

    completion: object
    judge_reply: str | None = None
    distractor_reply: str | None = None


async def solve(sample, ctx):
    s = settings(ctx.config)
    record, judge = ctx.record, ctx.judge
    question, needle = chosen_pair(s, sample)
    started = time.perf_counter()
    try:
        built = await ctx.build(stimulus.build, sample, question, needle, ctx.tokenizer,
                                template=s["template"], include_bible=s["include_bible"])
    except stimulus.TooShort as reason:
        record.skip(str(reason))
    record.detail(target_length=sample.length, build_s=round(time.perf_counter() - started, 3),
                  haystack_budget=built.haystack_budget, needle_text=needle.text,
                  question_text=question.question, lexical_overlap=needle.lexical_overlap,
                  needle_offset=built.needle_offset,
                  needle_token_offset=built.needle_token_offset,
                  needle_depth_realised=built.needle_depth_realised,
                  distractor_indices=list(built.distractor_indices),
                  distractor_offsets=list(built.distractor_offsets),
                  include_bible=s["include_bible"])
    record.stimulus([{"role": "user", "content": built.prompt}],
                    target_tokens=built.prompt_tokens, target_length=sample.length,
                    max_tokens=stimulus.MAX_OUTPUT_TOKENS)
    del built  # the prompt lives on in the record until it is sent; nothing else holds it
    record.skip_unless_fits(ctx.model)

    completion = await record.ask(ctx.model, temperature=0.0)
    if not completion.ok or judge is None:
        return Answered(completion)
    reply = await _ask_judge(record, judge, scoring.judge_messages(
        question.question, needle.text, completion.text))
    distractor_reply = None
    if scoring.parse_verdict(reply) is False and sample.distractors:
        distractor_reply = await _ask_judge(record, judge, scoring.distractor_messages(
            question.question, question.distractors, completion.text))
    return Answered(completion, reply, distractor_reply)


def test_niah(sample, solved, judge_model, record, pytestconfig):
    if not solved.completion.ok:
        return
    question, needle = chosen_pair(settings(pytestconfig), sample)
    output = solved.completion.text
    contains = scoring.contains_answer(output, needle)
    if judge_model is None:
        correct, judge = contains, scoring.DETERMINISTIC_JUDGE
    else:
        correct, judge = scoring.parse_verdict(solved.judge_reply), judge_model.identity
    record.score(correct=correct, contains_answer=contains)
    record.detail(judge=judge, judge_reply=solved.judge_reply,
                  judge_unparsable=correct is None)

    if correct is False and sample.distractors:
        if judge_model is None:
            label = scoring.matched_distractor(output, question.distractors)
        else:
            label = scoring.parse_distractor_label(solved.distractor_reply,
                                                   len(question.distractors))
        record.score(distractor_label=label)
        record.detail(distractor_judge=judge, distractor_judge_reply=solved.distractor_reply)


async def _ask_judge(record, judge_model, messages) -> str:
    completion = await record.ask(judge_model, messages, max_tokens=scoring.JUDGE_MAX_TOKENS)
    if not completion.ok:  # the judge could not answer: the sample errors, with one line
        raise EndpointError(f"judge call failed ({completion.outcome}): {completion.error}")
    return completion.text
