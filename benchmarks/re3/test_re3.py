"""Each case sends one configuration of one item; a wrong answer is data, only a harness
failure (no response, no score) fails."""

from __future__ import annotations

import pytest

from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples
from fixtures.pytest_face.items import RUN_KEY
from reporting.storage.records import excerpt

from . import EXPERIMENT, grid, items, patterns, phases, scoring, stimulus

SELECTION_KEY = pytest.StashKey[phases.Selection]()
ANSWER_TOKENS = {"mmlu": 48, "niah": 24}  # a letter or a number; GSM8K's is an option
GSM8K_TOKENS = {"full": 512, "test": 128}


def plan(config: pytest.Config) -> list[grid.Re3Sample]:
    """This run's samples; phases 2 and 3 read the earlier phase from the results store."""
    option = config.getoption
    phase, scale = option("re3_phase"), option("scale")
    count = grid.counts(scale, phase, option("re3_gsm8k_items"), option("re3_mmlu_items"),
                        option("re3_niah_items"))
    if option("re3_max_tokens") is not None and option("re3_max_tokens") < 1:
        raise ValueError(f"--re3-max-tokens {option('re3_max_tokens')}: give a positive budget")
    if phase == 1:
        return grid.phase1(count, option("re3_strategy"))
    strategies = grid.parse_strategies(option("re3_strategies"), "--re3-strategies")
    top = option("re3_top") or grid.TOP[phase]
    if top < 1:
        raise ValueError(f"--re3-top {top}: take at least 1 configuration")
    run = config.stash[RUN_KEY]
    selection = phases.select(phase, run.database, top, exclude_run=run.run_id,
                              from_run=option("re3_from_run"))
    config.stash[SELECTION_KEY] = selection
    if phase == 2:
        return grid.phase2(list(selection.configs), strategies, count)
    return grid.phase3(list(selection.configs), selection.best_strategy, count)


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    try:
        samples = plan(metafunc.config)
    except ValueError as error:  # bad options, or the earlier phase is not in the store
        raise pytest.UsageError(str(error)) from None
    smoke_item = min((s.item_id for s in samples if s.benchmark == "gsm8k"),
                     key=lambda i: (len(items.gsm8k_item(i).prompt_a), i), default=None)
    parametrize_samples(metafunc, EXPERIMENT.name, samples,
                        smoke=lambda s: s.phase == 1 and s.config_id == grid.SMOKE_CONFIG
                        and s.item_id == smoke_item)


async def solve(sample, ctx):
    option, tokenizer, record = ctx.option, ctx.tokenizer, ctx.record
    item = items.item(sample.item_id, tokenizer)
    prompt = stimulus.build(item, sample.pattern, sample.b_strategy,
                            patterns.parse_separator(option("re3_separator")),
                            cot=option("re3_cot"))
    max_tokens = ANSWER_TOKENS.get(sample.benchmark.split("_")[0]) or \
        option("re3_max_tokens") or GSM8K_TOKENS[option("scale")]
    record.stimulus([{"role": "user", "content": prompt.text}],
                    target_tokens=tokenizer.count(prompt.text), max_tokens=max_tokens)
    selection = ctx.config.stash.get(SELECTION_KEY, None)
    # The spec's run record (run_id, timestamp, token counts, latency and model id are on
    # every record already). The assembled prompt can be rebuilt exactly from A, B, the
    # pattern and the separator; a very long one is kept as head and tail.
    record.detail(prompt_a=prompt.prompt_a, prompt_b=prompt.prompt_b,
                  assembled_prompt=excerpt(prompt.assembled),
                  separator=patterns.parse_separator(option("re3_separator")),
                  expected_answer=item.expected, extracted_answer=None,
                  selected_from_run=selection.source_run if selection else None)
    record.skip_unless_fits(ctx.model)
    return await record.ask(ctx.model, temperature=0.0)


def test_re3(sample, solved, record):
    if not solved.ok:
        return
    evaluation = scoring.evaluate(sample.benchmark, solved.text,
                                  record.record.details["expected_answer"])
    record.detail(extracted_answer=evaluation.extracted)
    record.score(correct=evaluation.correct, extracted=evaluation.extracted is not None)
