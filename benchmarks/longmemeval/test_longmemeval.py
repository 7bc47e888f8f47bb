"""Each case asks one question at one condition, then has the reply judged; a wrong answer is
data, only a harness failure (no reply, or a judge call that fails) fails."""

import dataclasses

import pytest

from fixtures.providers.base import EndpointError
from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, grid, history, scoring, stimulus

SETTINGS_KEY = pytest.StashKey[grid.Settings]()


def settings(config: pytest.Config) -> grid.Settings:
    """The experiment's settings, read once per process (a bad option raises ValueError)."""
    if SETTINGS_KEY not in config.stash:
        config.stash[SETTINGS_KEY] = grid.settings(config.getoption)
    return config.stash[SETTINGS_KEY]


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    samples = grid.build(settings(metafunc.config))
    parametrize_samples(metafunc, EXPERIMENT.name, samples, smoke=grid.smoke_rule(samples))


def request_size(sample, ctx) -> tuple[int, int]:
    """``--plan``: a padded length, the generated full bound or Chroma's own o200k count,
    without building; else the prompt built and counted."""
    s = settings(ctx.config)
    size = stimulus.planned_size(sample, s)
    if size is None or (sample.source == "chroma" and not ctx.tokenizer.is_default):
        try:
            size = stimulus.build(sample, s, ctx.tokenizer.count).tokens
        except stimulus.Skip as reason:
            ctx.record.skip(str(reason))
    return size, s.max_tokens


@dataclasses.dataclass(frozen=True)
class Answered:
    completion: object
    built: stimulus.Built
    judge_reply: str | None = None


async def solve(sample, ctx):
    s = settings(ctx.config)
    record = ctx.record
    try:
        built = await ctx.build(stimulus.build, sample, s, ctx.tokenizer.count)
    except stimulus.Skip as reason:
        record.skip(str(reason))
    record.detail(length_tier=history.length_tier(built.tokens), question=built.question,
                  answer=built.answer, sessions=built.sessions,
                  evidence_sessions=built.evidence_sessions)
    record.stimulus([{"role": "user", "content": built.prompt}], target_tokens=built.tokens,
                    target_length=sample.target, max_tokens=s.max_tokens)
    record.skip_unless_fits(ctx.model)
    completion = await record.ask(ctx.model, temperature=0.0)
    if not completion.ok or ctx.judge is None:
        return Answered(completion, built)
    messages, max_tokens = scoring.judge_request(
        s.judge, sample.question_type, sample.abstention, built.question, built.answer,
        completion.text or "")
    judged = await record.ask(ctx.judge, messages, max_tokens=max_tokens, temperature=0.0)
    if not judged.ok:  # the judge could not answer: the sample errors, with one line
        raise EndpointError(f"judge call failed ({judged.outcome}): {judged.error}")
    return Answered(completion, built, judged.text)


def test_longmemeval(sample, solved, judge_model, record, pytestconfig):
    if not solved.completion.ok:
        return
    s = settings(pytestconfig)
    output = solved.completion.text
    if judge_model is None:
        correct, judge = scoring.names_answer(output, solved.built.accepted), \
            scoring.DETERMINISTIC_JUDGE
    else:
        correct, judge = scoring.parse_verdict(solved.judge_reply, s.judge), \
            {**judge_model.identity, "prompt": s.judge}
    record.score(correct=correct, abstained=scoring.abstains(output))
    record.detail(judge=judge, judge_prompt=s.judge if judge_model else "deterministic",
                  judge_reply=solved.judge_reply, judge_unparsable=correct is None)
