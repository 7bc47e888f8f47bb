"""Each case asks one question of one haystack; a wrong answer is data, only a harness failure
fails."""

import dataclasses

import pytest

from fixtures.data.registry import NOLIMA_URL, read_checked
from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples, unavailable_part

from . import EXPERIMENT, grid, needlesets, placement, scoring, stimulus

SETTINGS_KEY = pytest.StashKey[tuple]()


def settings(config: pytest.Config) -> tuple[grid.Settings, dict]:
    """The options and every chosen set's tests, read once per process (a bad option or
    file: ValueError or DataUnavailable, one line naming it)."""
    if SETTINGS_KEY not in config.stash:
        s = grid.settings(config.getoption)
        tests = {stem: read_set(s, stem) for stem in s.sets}
        for stem in s.sets:
            if not needlesets.is_own(stem) and not s.haystack_names(stem):
                raise ValueError(f"{s.folder / 'haystack' / 'rand_shuffle'}: no .txt haystacks;"
                                 f" fetch NoLiMa's haystack/rand_shuffle/rand_book_{{1..5}}.txt "
                                 f"from {NOLIMA_URL}/haystack/rand_shuffle/ into it")
        config.stash[SETTINGS_KEY] = s, tests
    return config.stash[SETTINGS_KEY]


def read_set(s: grid.Settings, stem: str) -> tuple[needlesets.Test, ...]:
    path = s.set_path(stem)
    if not path.is_file():
        raise ValueError(f"{path}: missing; fetch it from {NOLIMA_URL}/needlesets/{stem}.json "
                         "(NoLiMa's needle sets), or leave it out of --nolima-sets")
    return read_checked(path, needlesets.load,
                        f"replace it with NoLiMa's file ({NOLIMA_URL}/needlesets/{stem}.json)")


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    s, tests = settings(metafunc.config)
    samples = grid.build(s, tests)
    cases = list(samples)
    if s.missing is not None:  # NoLiMa's own data: one case says what to fetch
        cases.append(unavailable_part(EXPERIMENT.name, "nolima_data", s.missing))
    parametrize_samples(metafunc, EXPERIMENT.name, cases, smoke=grid.smoke_rule(samples))


def the_test(config, sample) -> needlesets.Test:
    _, tests = settings(config)
    return next(t for t in tests[sample.set] if t.name == sample.test)


def request_size(sample, ctx) -> tuple[int, int]:
    """``--plan`` without a haystack: the length plus the messages around it (the build's
    prompt is within a few tokens: the partial line before the needle is cut)."""
    return (stimulus.request_tokens(sample, the_test(ctx.config, sample), ctx.tokenizer),
            grid.MAX_OUTPUT_TOKENS)


@dataclasses.dataclass(frozen=True)
class Answered:
    completion: object
    gold: tuple[str, ...]


async def solve(sample, ctx):
    s, _ = settings(ctx.config)
    test = the_test(ctx.config, sample)
    record = ctx.record
    try:
        built = await ctx.build(stimulus.build, sample, test, s.folder, ctx.tokenizer)
    except placement.PlacementFailed as reason:
        record.skip(str(reason))
    prompt_tokens = sum(await ctx.build(ctx.tokenizer.count_many,
                                        [m["content"] for m in built.messages]))
    record.stimulus(built.messages, target_tokens=prompt_tokens, target_length=sample.length,
                    max_tokens=grid.MAX_OUTPUT_TOKENS)
    record.detail(character=built.character, gold=list(built.gold), needle=built.needle,
                  question=built.question, needle_token_position=built.position,
                  distractor_depth=built.distractor_depth)
    record.skip_unless_fits(ctx.model)
    completion = await record.ask(ctx.model, temperature=grid.TEMPERATURE, top_p=grid.TOP_P,
                                  seed=grid.SEED)
    return Answered(completion, built.gold)


def test_nolima(sample, solved, record):
    if not solved.completion.ok:
        return
    record.score(contains=scoring.contains(solved.completion.text or "", solved.gold))
