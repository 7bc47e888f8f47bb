"""Each case plays one episode over one ledger; a wrong answer, a missed call or a step cap
is data (a named end, scored 0), only a harness failure fails."""

import dataclasses
import re

import pytest

from benchmarks.texts.fitting import TooShort
from fixtures.providers.base import EndpointFatal
from fixtures.pytest_face.plan import PlannedSize

from fixtures.pytest_face.parametrize import experiment_grid, parametrize_samples

from . import EXPERIMENT, cost, episode, grid, ledger, scoring, stimulus, tools

# Checked against llama-cpp-python's server (llama_chat_format.py): with the GGUF's own chat
# template a named tool_choice is answered through a grammar of that tool's parameters, but
# "auto" returns plain text and never a call, and the smallest length (8k) fills the 8,192
# tokens of its context: neither mode can run, so every sample skips with this one line.
EMBEDDED_SKIP = ("the embedded SmolLM2-135M cannot play an agent: llama-cpp-python's server "
                 "returns no tool call under tool_choice auto with its chat template, and 8k "
                 "fills its 8,192-token context; pass --model and --base-url of an endpoint "
                 "that calls tools")
# (an endpoint without function calling is the engine's one line: fixtures/providers/generation.py)
REJECTED_HINT = ("a tool-calling request the endpoint rejected: its message says what it "
                 "wants of the history")


@experiment_grid(EXPERIMENT.name)
def pytest_generate_tests(metafunc):
    samples = grid.build(grid.settings(metafunc.config.getoption))  # a bad option: one line
    parametrize_samples(metafunc, EXPERIMENT.name, samples, smoke=grid.smoke_rule(samples))


def request_size(sample, ctx) -> tuple[int, int] | PlannedSize:
    """``--plan`` without building a ledger: a trajectory is one request of at most its
    length (the fit fills 0.85 to 1 of it); a live episode the P + 2 requests of an agent
    that reads every page once (cost.py: about L x T / 2 input, nearly all cacheable)."""
    if ctx.option("model") is None:
        ctx.record.skip(EMBEDDED_SKIP)
    if sample.mode == "trajectory":
        return sample.length, grid.MAX_TOKENS
    task = ledger.TASK.format(owner=ledger.OWNERS[0], category=ledger.CATEGORIES[0],
                              date=f"{ledger.YEAR}-06-01")
    count = ctx.tokenizer.count
    return cost.live_episode(sample.length, sample.pages, sample.applied_condition,
                             count(tools.TOOLS_TEXT) + count(ledger.SYSTEM) + count(task),
                             count(stimulus.CLEARED), grid.MAX_TOKENS)


@dataclasses.dataclass
class Played:
    ledger: ledger.Ledger
    episode: episode.Episode


async def solve(sample, ctx):
    if ctx.option("model") is None:
        ctx.record.skip(EMBEDDED_SKIP)
    record, model = ctx.record, ctx.model
    # in a model's own unit the chat template's tokens of the trajectory's messages are
    # part of the prompt (record.stimulus adds them): the pages fill the rest
    template = ctx.tokenizer.template_tokens(2 + 2 * (sample.pages + 1))
    try:
        built, fitted = await ctx.build(ledger.fitted, sample.ledger_seed, sample.needles,
                                        sample.pages, sample.length - template,
                                        stimulus.trajectory_text, ctx.tokenizer)
    except TooShort as problem:
        record.skip(f"{sample.pages} pages of {sample.needles} needles do not fit "
                    f"{sample.length} tokens ({problem}): a longer --agent-lengths or fewer "
                    "--agent-pages")
    condition = sample.applied_condition
    if (skipped := cannot_run(sample.mode, condition, model, ctx)) is not None:
        record.skip(skipped)
    count = Counter(ctx)
    trajectory = sample.mode == "trajectory"
    opening = stimulus.trajectory(built) if trajectory else stimulus.task_messages(built)
    identity = {"ledger": sample.ledger_seed, "records": built.records}
    record.stimulus(opening, target_tokens=fitted if trajectory else await count(opening),
                    max_tokens=grid.MAX_TOKENS, target_length=sample.length, **identity)
    # a live episode that reads every page reaches the length: it must fit
    record.skip_unless_fits(model, prompt_tokens=sample.length)

    # Each episode draws its own replies: the sample's id is the response cache's replicate,
    # so a rerun replays exactly this episode's (conditions never share a trunk of replies,
    # not even the first request, which every condition of a ledger sends alike).
    async def ask(messages, tool_choice):
        return await record.ask(model, messages, max_tokens=grid.MAX_TOKENS,
                                tools=list(tools.TOOLS), tool_choice=tool_choice,
                                replicate=sample.id, **condition.request())

    try:
        if trajectory:
            played = await episode.trajectory(built, ask, count)
        else:
            played = await episode.live(built, ask, count, condition, sample.max_steps)
    except EndpointFatal:
        raise
    except Exception as error:  # a 400 to a tool history: one line, not a traceback
        if getattr(error, "status_code", None) not in (400, 422):
            raise
        reason = f"the endpoint refused the request ({_first_line(error)}): {REJECTED_HINT}"
    else:
        if not trajectory:  # same stimulus; its size is now the last request's
            record.stimulus(opening, target_tokens=played.sent_tokens[-1] if played.sent_tokens
                            else None, max_tokens=grid.MAX_TOKENS, target_length=sample.length,
                            **identity)
        return Played(built, played)
    pytest.fail(reason, pytrace=False)


def cannot_run(mode: str, condition, model, ctx) -> str | None:
    """The one line of a sample this run cannot ask for: a native condition on another
    provider, or thinking cleared where there is no thinking; None: it runs. (A trajectory's
    forced submit with thinking on goes to Anthropic as ``auto``: its adapter says so once
    and the run's identity records it, docs/providers.md.)"""
    provider = getattr(model, "provider", None) or ctx.option("provider") or "openai"
    thinks = bool(getattr(model, "thinking_budget", 0))
    needed = condition.provider
    if needed is None:
        return None
    if provider != needed:
        return (f"{condition.name} is {needed}'s own context management: run it with "
                f"--provider {needed} (this run's is {provider})")
    if condition.kind == "anthropic-thinking" and not thinks:
        return (f"{condition.name} clears or keeps thinking across turns: run it with "
                "--thinking on (the API refuses it without thinking)")
    return None


class Counter:
    """A prompt's count in the run's unit, each message's text counted once (a live history
    re-sends the same messages every turn); off the event loop where the unit is a
    server's."""

    def __init__(self, ctx):
        self.ctx, self.known = ctx, {}

    async def __call__(self, messages: list[dict]) -> int:
        texts = [tools.TOOLS_TEXT, *map(stimulus.message_text, messages)]
        missing = list(dict.fromkeys(t for t in texts if t not in self.known))
        if missing:
            unit = self.ctx.tokenizer
            counts = unit.count_many(missing) if getattr(unit, "is_default", True) else \
                await self.ctx.build(unit.count_many, missing)
            self.known.update(zip(missing, counts))
        return sum(self.known[t] for t in texts)


def _first_line(error: Exception) -> str:
    return re.sub(r"\s+", " ", str(error)).strip()[:300]


def test_agent_accumulation(sample, solved, record):
    played = solved.episode
    record.score(**scoring.score(solved.ledger, played))
    record.detail(**scoring.details(solved.ledger, played))
    submission = played.submission
    record.output(ledger.dumps({"ids": list(submission.ids),
                                "total_cents": submission.total_cents})
                  if submission else f"({played.end})")
