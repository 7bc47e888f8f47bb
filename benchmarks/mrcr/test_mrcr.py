"""Each case asks for one occurrence's answer; a wrong copy is data, only a harness failure
fails."""

import dataclasses
import re

import pytest

from fixtures.providers.base import Completion, EndpointFatal
from fixtures.pytest_face.parametrize import Unavailable, experiment_grid, parametrize_samples

from . import EXPERIMENT, generate, grid, scoring, stimulus
from .generate import Row

MERGE_HINT = ("MRCR opens with two consecutive user messages, as the original does: if that "
              "is what the endpoint rejects, add --mrcr-merge-user-messages")


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    settings = grid.settings(metafunc.config.getoption)  # a bad option: one line
    samples = grid.build(settings)
    if not samples:  # only the original was asked for, and it is not there
        raise ValueError(settings.missing_original)
    cases = list(samples)
    if settings.missing_original is not None:  # that source is [unavailable]; the rest runs
        cases.append(Unavailable(EXPERIMENT.name, settings.missing_original))
    parametrize_samples(metafunc, EXPERIMENT.name, cases, smoke=grid.smoke_rule(samples))


def request_size(sample, ctx) -> tuple[int, int | None] | None:
    """``--plan`` without building a generated conversation (1,500 at full scale): an upper
    bound, the bin's top less the shortest answer, and the cap of the longest answer. None
    (built, exact) for an original row, in another unit than o200k, or where the bound would
    not fit but the sample might: the plan skips exactly what the run would."""
    if sample.source != "generated" or not getattr(ctx.tokenizer, "is_default", True):
        return None
    settings = grid.settings(ctx.option)
    prompt, answer = generate.size_bounds(sample.needles, sample.bin_high, sample.max_passage)
    output = settings.output_cap(answer)
    model = ctx.model
    sent = (output or 0) + getattr(model, "thinking_budget", 0)
    if (model.context_length is not None and prompt + sent > model.context_length) or (
            getattr(model, "max_output_tokens", None) is not None
            and sent > model.max_output_tokens):
        return None
    return prompt, output


@dataclasses.dataclass
class Solved:
    completion: Completion
    row: Row


async def solve(sample, ctx):
    settings = grid.settings(ctx.option)
    prepared = await ctx.build(stimulus.prepare, sample, settings.original_dir)
    record = ctx.record
    if prepared.skip:
        record.skip(prepared.skip)
    row = prepared.row
    messages = stimulus.messages(row, sample.merge_user_messages)
    if getattr(ctx.tokenizer, "is_default", True):  # o200k: the bins' own counts
        prompt_tokens, answer_tokens = prepared.prompt_tokens, prepared.size - prepared.prompt_tokens
    else:  # another unit: counted off the event loop (a server counts over HTTP)
        # in one batch; a server's unit remembers what it counted (a passage recurs)
        *counts, answer_tokens = await ctx.build(
            ctx.tokenizer.count_many, [m["content"] for m in messages] + [row.answer])
        prompt_tokens = sum(counts)
    max_tokens = settings.output_cap(answer_tokens)  # None: no cap sent, as the original
    record.stimulus(messages, target_tokens=prompt_tokens, max_tokens=max_tokens,
                    o200k_tokens=prepared.prompt_tokens)
    record.detail(size_o200k=prepared.size, prompt_o200k=prepared.prompt_tokens,
                  answer_tokens=answer_tokens, random_string=row.random_string_to_prepend,
                  desired_msg_index=row.desired_msg_index, total_messages=row.total_messages,
                  n_chars=row.n_chars, **prepared.details)
    record.skip_unless_fits(ctx.model)
    try:
        completion = await record.ask(ctx.model, messages, max_tokens=max_tokens,
                                      uncapped=max_tokens is None,
                                      temperature=settings.temperature)
    except Exception as error:  # a 400 other than an overflow: the client's, or the harness's
        if sample.merge_user_messages or not rejected(error):
            raise
        reason = (f"the endpoint rejected the conversation ({str(error).splitlines()[0][:300]})"
                  f". {MERGE_HINT}")
    else:
        return Solved(completion, row)
    pytest.fail(reason, pytrace=False)  # outside the handler: one line, no chained traceback


def rejected(error: Exception) -> bool:
    """A 400/422 answer to the request (not a context overflow: that comes back as data)."""
    return getattr(error, "status_code", None) in (400, 422) or (
        isinstance(error, EndpointFatal) and re.search(r"answered 4(00|22)\b", str(error)))


def test_mrcr(sample, solved, record):
    if not solved.completion.ok:
        return
    result = scoring.score(solved.row, solved.completion.text)
    record.score(**result["scores"])
    record.detail(**result["details"])
