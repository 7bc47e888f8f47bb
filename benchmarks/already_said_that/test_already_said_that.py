"""Each case plays one whole conversation; a lost game is data, only a harness failure fails."""

import random

import pytest

from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, conversation, grid, scoring, settings, sources, stimulus


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    try:
        chosen = settings(metafunc.config.getoption)
        samples = grid.build(metafunc.config.getoption("scale"), chosen)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    parametrize_samples(metafunc, EXPERIMENT.name, samples, smoke=grid.smoke_rule(samples))


async def solve(sample, ctx):
    """The whole conversation: each reply steers the next turn."""
    record, tokenizer, model = ctx.record, ctx.tokenizer, ctx.model
    max_tokens = grid.max_tokens(ctx.option("scale"), settings(ctx.option))
    words = sources.word_list(sample.word_source, sample.seed, sample.index,
                              grid.WORDS_PER_SAMPLE)
    example, pool = stimulus.distractor_pool(
        sample.variant, sources.distractor_rows(sample.variant),
        corrected_ideals=sample.reverse_sort_ideals == "corrected")
    description = stimulus.task_description(example)
    opening = [{"role": "system", "content": description}]
    # The conversation is defined by the opening, the words and the distractors it may ask
    # (and the seeded choices, via the params); the model's replies steer it from there.
    identity = {"words": words, "distractors": [as_pair(d) for d in pool]}
    record.stimulus(opening, target_tokens=tokenizer.count(description), max_tokens=max_tokens,
                    **identity)
    record.skip_unless_fits(model)

    def count(messages):
        return sum(tokenizer.count(m["content"]) for m in messages)

    sent = {"o200k_in": 0, "o200k_out": 0, "served": None, "o200k_last": None}

    def fits(messages):
        if model.context_length is None:
            return True
        needed = conversation.estimate_prompt_tokens(count(messages), sent["served"],
                                                     sent["o200k_last"])
        return needed + max_tokens <= model.context_length

    async def respond(messages):
        completion = await record.ask(model, messages, max_tokens=max_tokens)
        if not completion.ok:
            return None
        sent["o200k_last"] = count(messages)
        sent["served"] = completion.prompt_tokens
        sent["o200k_in"] += sent["o200k_last"]
        sent["o200k_out"] += tokenizer.count(completion.text)
        return completion.turn()  # the answer, and what the API wants back with it

    dialogue = conversation.Conversation(words, pool, random.Random(sample.rng_seed),
                                         adversarial_pool=sample.adversarial_pool,
                                         distractor_match=sample.distractor_match)
    transcript = await conversation.play(dialogue, description, respond,
                                         max_turns=sample.max_turns, fits=fits)
    record.stimulus(opening, target_tokens=count(transcript.messages), max_tokens=max_tokens,
                    **identity)  # same stimulus; the length is now the whole dialogue's
    record.detail(o200k_input_tokens=sent["o200k_in"], o200k_output_tokens=sent["o200k_out"],
                  distractor_pool=len(pool), random_distractor_accuracy=scoring.
                  random_distractor_accuracy([d.ideal for d in pool]))
    return transcript


def test_already_said_that(sample, solved, record):
    transcript = solved
    pool_size = record.record.details["distractor_pool"]
    distractor_probability = scoring.DISTRACTOR_PROBABILITY if pool_size else 0.0
    record.output(transcript.text())
    record.score(**scoring.sample_scores(transcript.log, transcript.ended_by))
    record.detail(
        turns=transcript.log,
        random_baseline_turns=scoring.random_baseline_turns(sample.max_turns,
                                                            distractor_probability),
        random_baseline_distractors=scoring.random_baseline_distractors(
            sample.max_turns, distractor_probability),
    )


def as_pair(distractor: stimulus.Distractor) -> list[str]:
    return [distractor.question, distractor.ideal]
