"""Each case continues the text once at one tier: odd prose is data; only a harness failure
fails."""

from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, grid, sampling, scoring, stimulus, text

SHORT_FRACTION = 0.6  # a continuation under 60% of max_tokens is flagged short (not retried)


def prepared(config):
    """The settings and the text, read and tokenized once per process (the engine's builder
    thread, off the event loop): a text that cannot be read fails each sample with its line."""
    settings = grid.settings(config)
    point = settings.continuation_point or stimulus.default_point(settings.ceiling)
    return settings, stimulus.prepare(settings.text, point, settings.max_tokens)


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    settings = grid.settings(metafunc.config)  # a bad option is a usage error, at collection
    parametrize_samples(metafunc, EXPERIMENT.name,
                        grid.build(settings, text.document_name(settings.text)),
                        smoke=lambda s: (s.context, s.round) == grid.SMOKE)


async def solve(sample, ctx):
    settings, source = await ctx.build(prepared, ctx.config)
    record, tokenizer = ctx.record, ctx.tokenizer
    if tokenizer.is_default:  # o200k: the tier holds an allowance for the model's tokenizer
        budget = stimulus.text_budget(sample.context, settings.max_tokens,
                                      settings.token_allowance)
        window = stimulus.window(source, budget)
    else:  # the model's own tokens: the tier is its context, exactly
        budget = await ctx.build(stimulus.unit_text_budget, sample.context, settings.max_tokens,
                                 tokenizer)
        window = await ctx.build(stimulus.unit_window, source, budget, tokenizer)
    content = stimulus.prompt(window.text)
    record.stimulus([{"role": "user", "content": content}],
                    target_tokens=await ctx.count(content),
                    target_length=sample.context, max_tokens=settings.max_tokens,
                    truth=source.truth, sampling=settings.sampling(),
                    temperature=settings.temperature, seed=settings.seed + sample.round)
    record.detail(**source.report(), window_start_char=window.start_char,
                  window_tokens=window.tokens if window.tokens is not None
                  else await ctx.count(window.text), text_budget=budget,
                  base_seed=settings.seed,
                  truth=scoring.reference(source.truth, sample.metric_set))
    if window.skip_reason:
        record.skip(window.skip_reason)
    record.skip_unless_fits(ctx.model)
    # The same for every round of a tier: scored once per process, off the event loop (at
    # the largest tiers the window is hundreds of kilobytes), and only for a tier that fits.
    record.detail(context=await ctx.build(scoring.reference, window.text, sample.metric_set))
    return await sampling.ask(record, ctx.model, temperature=settings.temperature,
                              sampling=settings.sampling(), seed=settings.seed + sample.round,
                              replicate=sample.round)


def test_continuation(sample, solved, tokenizer, record, pytestconfig):
    if not solved.ok:
        return
    settings = grid.settings(pytestconfig)
    length = tokenizer.count(solved.text)
    # Output without a single word is data: it is scored (and counted by the table), never
    # dropped; each metric set says what such a round is worth.
    record.score(**scoring.score(solved.text, sample.metric_set), continuation_tokens=length)
    record.detail(short=length < SHORT_FRACTION * settings.max_tokens)
