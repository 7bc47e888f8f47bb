"""Each case asks one question at one length, then applies the rule or the judge; a wrong
answer is data, only a harness failure (no reply, a judge call that fails) fails."""

import dataclasses

import pytest

from fixtures.providers.base import Completion, EndpointError
from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, grid, scoring, stimulus

COUNTS: dict = {}  # (unit, text) -> tokens: a filler document is counted once per process


def settings(config: pytest.Config) -> grid.Settings:
    """The settings (cheap: two stats; the miniature is written once per process)."""
    return grid.settings(config.getoption)


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    samples = grid.build(settings(metafunc.config))
    parametrize_samples(metafunc, EXPERIMENT.name, samples, smoke=grid.smoke_rule(samples))


def request_size(sample, ctx):
    """``--plan``: a swept prompt is at most its length; a native one is built and counted."""
    if sample.length == 0:
        return None
    return sample.length, settings(ctx.config).max_tokens


def counter(tokenizer):
    unit = getattr(tokenizer, "unit", "o200k_base")

    def count(text: str) -> int:
        key = (unit, text)
        if key not in COUNTS:
            COUNTS[key] = tokenizer.count(text)
        return COUNTS[key]
    return count


def build(sample, s: grid.Settings, tokenizer) -> stimulus.Built:
    question = grid.question(s, sample.question_id)
    _, documents = grid.source_data(s)
    own, count = documents.of(question), counter(tokenizer)
    if sample.length == 0:
        return stimulus.native(question, own, count)
    return stimulus.swept(question, own, documents.others(question), sample.length,
                          sample.seed, count)


@dataclasses.dataclass(frozen=True)
class Solved:
    completion: Completion
    judge_reply: str | None = None


async def solve(sample, ctx):
    s, record = settings(ctx.config), ctx.record
    question = grid.question(s, sample.question_id)
    try:
        built = await ctx.build(build, sample, s, ctx.tokenizer)
    except stimulus.Skip as reason:
        record.skip(str(reason))
    record.detail(length_tier=length_tier(built.tokens), question=question.question,
                  answer=question.answer, documents=["/".join(d) for d in built.documents],
                  own_positions=list(built.own_positions), filler_tokens=built.filler_tokens,
                  card_input_tokens=question.input_tokens or None,
                  fill=round(built.tokens / sample.length, 4) if sample.length else None)
    record.stimulus([{"role": "user", "content": built.prompt}], target_tokens=built.tokens,
                    target_length=sample.length or None, max_tokens=s.max_tokens)
    record.skip_unless_fits(ctx.model)
    completion = await record.ask(ctx.model, temperature=s.temperature,
                                  replicate=sample.repeat, uncapped=s.max_tokens is None)
    if not completion.ok or ctx.judge is None or scoring.rule(completion.text):
        return Solved(completion)
    judged = await record.ask(ctx.judge, scoring.judge_messages(
        question.question, question.answer, completion.text), max_tokens=scoring.JUDGE_MAX_TOKENS,
        temperature=0.0)
    if not judged.ok:
        raise EndpointError(f"judge call failed ({judged.outcome}): {judged.error}")
    return Solved(completion, judged.text)


def length_tier(tokens: int) -> int:
    """A prompt's tokens rounded up to a power of two (a swept prompt's tier is its length)."""
    return max(256, 1 << max(tokens - 1, 0).bit_length())


def test_aa_lcr(sample, solved, judge_model, record, pytestconfig):
    if not solved.completion.ok:
        return
    answer = solved.completion.text
    ruled = scoring.rule(answer)
    if ruled:  # INCORRECT by rule, before any judge
        record.score(correct=False)
        record.detail(rule=ruled, judge=None)
        return
    if judge_model is None:
        official = grid.question(settings(pytestconfig), sample.question_id).answer
        record.score(correct=scoring.names_answer(answer, official))
        record.detail(judge=scoring.DETERMINISTIC_JUDGE)
        return
    verdict = scoring.parse_verdict(solved.judge_reply)
    record.score(correct=verdict)
    record.detail(judge={**judge_model.identity, "prompt": scoring.JUDGE_PROMPT_NAME},
                  judge_reply=solved.judge_reply, judge_unparsable=verdict is None)
