"""Each case asks one question of one haystack; a wrong answer is data, only a harness
failure (no response, or a judge call that fails) fails."""

import time

import pytest

from fixtures.parametrize import parametrize_samples

from . import EXPERIMENT, grid, needles, scoring, stimulus


def settings(config: pytest.Config) -> dict:
    """The experiment's options, checked; a bad value is one UsageError line."""
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
            "trials": trials, "template": stimulus.TEMPLATES[option("niah_prompt")],
            "include_bible": option("niah_include_bible")}


def pytest_generate_tests(metafunc):
    if "sample" not in metafunc.fixturenames:
        return
    s = settings(metafunc.config)
    samples = grid.build(s["scale"], [(q.id, n.id) for q, n in s["chosen"]], modes=s["modes"],
                         distractor_counts=s["counts"], trials=s["trials"])
    first = s["chosen"][0][1].id
    parametrize_samples(metafunc, EXPERIMENT.name, samples,
                        smoke=lambda x: x.needle == first and (
                            x.mode, x.length, x.depth, x.distractors, x.trial) == grid.SMOKE)


def test_niah(sample, model, judge_model, tokenizer, record, pytestconfig):
    s = settings(pytestconfig)
    question, needle = next((q, n) for q, n in s["chosen"] if n.id == sample.needle)
    started = time.perf_counter()
    try:
        built = stimulus.build(sample, question, needle, tokenizer, template=s["template"],
                               include_bible=s["include_bible"])
    except stimulus.TooShort as reason:
        record.skip(str(reason))
    record.detail(target_length=sample.length, o200k_prompt_tokens=built.prompt_tokens,
                  build_s=round(time.perf_counter() - started, 3),
                  haystack_budget=built.haystack_budget, needle_text=needle.text,
                  question_text=question.question, lexical_overlap=needle.lexical_overlap,
                  needle_offset=built.needle_offset,
                  needle_depth_realised=built.needle_depth_realised,
                  distractor_indices=list(built.distractor_indices),
                  distractor_offsets=list(built.distractor_offsets),
                  include_bible=s["include_bible"])
    record.stimulus([{"role": "user", "content": built.prompt}],
                    target_tokens=built.prompt_tokens, max_tokens=stimulus.MAX_OUTPUT_TOKENS)
    record.skip_unless_fits(model)

    completion = record.ask(model, temperature=0.0)
    if not completion.ok:
        return
    output = completion.text
    contains = scoring.contains_answer(output, needle)
    if judge_model is None:
        correct, judge, reply = contains, scoring.DETERMINISTIC_JUDGE, None
    else:
        reply = _ask_judge(record, judge_model, scoring.judge_messages(
            question.question, needle.text, output))
        correct, judge = scoring.parse_verdict(reply), judge_model.identity
    record.score(correct=correct, contains_answer=contains)
    record.detail(judge=judge, judge_reply=reply, judge_unparsable=correct is None)

    if correct is False and built.distractor_indices:
        if judge_model is None:
            label, reply = scoring.matched_distractor(output, question.distractors), None
        else:
            reply = _ask_judge(record, judge_model, scoring.distractor_messages(
                question.question, question.distractors, output))
            label = scoring.parse_distractor_label(reply, len(question.distractors))
        record.score(distractor_label=label)
        record.detail(distractor_judge=judge, distractor_judge_reply=reply)


def _ask_judge(record, judge_model, messages) -> str:
    completion = record.ask(judge_model, messages, max_tokens=scoring.JUDGE_MAX_TOKENS)
    if not completion.ok:  # the judge could not answer: the sample is not scored
        raise RuntimeError(f"judge call failed ({completion.outcome}): {completion.error}")
    return completion.text
