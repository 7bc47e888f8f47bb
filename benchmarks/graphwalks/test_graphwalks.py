"""Each case asks one graph operation; a wrong set is data, only a harness failure fails."""

import dataclasses

from benchmarks.texts.fitting import TooShort
from fixtures.providers.base import Completion
from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, grid, original, scoring, stimulus


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    settings = grid.settings(metafunc.config.getoption)  # a bad option: one line
    samples = grid.build(settings)
    parametrize_samples(metafunc, EXPERIMENT.name, samples, smoke=grid.smoke_rule(samples))


def request_size(sample, ctx) -> tuple[int, int]:
    """``--plan`` without building a graph: a prompt is at most its length (a generated one
    fills 0.95-1.0 of it; an original row's bin tops at it). The output is the budget, or
    under ``answer`` at most twice an answer naming every node (a node costs at least 36
    prompt tokens, four edge lines, and at most 6 in an answer) plus 16. The original's files
    are read (checked) as the run reads them."""
    s = grid.settings(ctx.option)
    if sample.source == "original":
        original.rows(s.lengths, s.original_dir, ctx.tokenizer)
    return sample.length, s.output_cap(sample.length // 6)


@dataclasses.dataclass(frozen=True)
class Solved:
    completion: Completion
    gold: tuple[str, ...]


async def solve(sample, ctx):
    s, record = grid.settings(ctx.option), ctx.record
    if sample.source == "generated":
        seed = stimulus.sample_seed(sample.seed, sample.problem_type, sample.length,
                                    sample.index)
        try:
            fitted = await ctx.build(stimulus.generate, sample.problem_type, sample.length,
                                     sample.prompt, seed, ctx.tokenizer)
        except TooShort as reason:
            record.skip(f"no graph fits {sample.length} tokens: {reason}")
        built = fitted.prompt
        text, gold, tokens = built.text, built.question.answer, fitted.tokens
        details = {"nodes": fitted.size, "node": built.question.node_id,
                   "depth": built.question.depth, "token_counts": fitted.counts}
    else:
        rows = await ctx.build(original.rows, s.lengths, s.original_dir, ctx.tokenizer)
        index, seen = await ctx.build(rows.nth_in_bin, sample.problem_type, sample.prompt,
                                      sample.bin_low, sample.length, sample.index)
        if index is None:
            record.skip(f"openai/graphwalks has {seen} {sample.problem_type} rows of the "
                        f"{sample.prompt} prompt in ({sample.bin_low}, {sample.length}] "
                        f"tokens, not {sample.index + 1}")
        row = rows.rows[index]
        text, gold, tokens = row["prompt"], tuple(row["answer_nodes"]), rows.tokens(index)
        details = {"file": row["file"], "row": row["row"], "split": row["split"],
                   "date_added": row["date_added"], "prompt_chars": row["prompt_chars"],
                   "revision": None if s.original_dir else original.REVISION}
    answer_tokens = await ctx.count(stimulus.answer_text(gold))
    max_tokens = s.output_cap(answer_tokens)
    record.stimulus([{"role": "user", "content": text}], target_tokens=tokens,
                    target_length=sample.length, max_tokens=max_tokens)
    record.detail(problem_type=sample.problem_type, prompt_tokens=tokens,
                  fill=round(tokens / sample.length, 4), answer_nodes=len(gold),
                  answer_tokens=answer_tokens, **details)
    record.skip_unless_fits(ctx.model)
    completion = await record.ask(ctx.model, max_tokens=max_tokens, temperature=s.temperature)
    return Solved(completion, gold)


def test_graphwalks(sample, solved, record):
    if solved.completion.ok:
        result = scoring.score(solved.completion.text, solved.gold)
        record.score(**result["scores"])
        record.detail(**result["details"])
