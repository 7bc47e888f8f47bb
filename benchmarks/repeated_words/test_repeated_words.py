"""Each case copies one sequence; a wrong copy is data, only a harness failure fails."""


from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, grid, scoring, stimulus


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    pairs = grid.parse_pairs(metafunc.config.getoption("word_pair"))  # ValueError: one line
    samples = grid.build(metafunc.config.getoption("scale"), pairs)
    parametrize_samples(metafunc, EXPERIMENT.name, samples,
                        smoke=lambda s: (s.n, s.position) == grid.SMOKE
                        and (s.common, s.modified) == pairs[0])


async def solve(sample, ctx):
    prompt = stimulus.prompt(sample)
    input_tokens = await ctx.count(prompt)  # in the run's unit; a server counts off the loop
    max_tokens = 2 * input_tokens
    ctx.record.stimulus([{"role": "user", "content": prompt}], target_tokens=input_tokens,
                        max_tokens=max_tokens)
    # (an output budget past --model-max-output-tokens, the thinking budget's included, is
    # skipped there)
    ctx.record.skip_unless_fits(ctx.model)
    return await ctx.record.ask(ctx.model, temperature=0.0)


def test_repeated_words(sample, solved, record):
    if not solved.ok:
        return
    scores = scoring.score(sample, solved.text)
    record.score(**scores)
    reason = scoring.refusal_reason(sample, solved.text, scores)
    if reason:
        record.refused(reason)
