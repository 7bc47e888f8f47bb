"""An episode: the trajectory's one request, or the live loop (spec section 3).

The live loop asks, runs each tool call of the reply locally in order, appends the reply's
assistant message exactly as it came (``completion.message``: reasoning content, thought
signatures and call ids included) and one tool message per call, and asks again, each
request shaped by the condition. It ends with one of ``ENDS``:

- ``submitted``: a well-formed submit (scored);
- ``no_call``: a reply without a tool call (not submitted, scored 0);
- ``step_cap``: the cap on requests reached without a submit (scored 0);
- ``overflow``: the endpoint said the prompt does not fit (scored 0);
- ``malformed_call``: arguments that are not a JSON object, a tool that does not exist, or a
  submit with wrong types (scored 0; ``malformed`` says which).

``ask(messages, tool_choice)`` sends one request (the solver's ``record.ask``) and
``count(messages)`` counts a prompt in the run's unit (both awaited): the loop knows nothing
else of models, so the unit tests play it with scripted replies.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Awaitable, Callable

from . import stimulus, tools
from .grid import Condition
from .ledger import Ledger

SUBMITTED, NO_CALL, STEP_CAP, OVERFLOW, MALFORMED = (
    "submitted", "no_call", "step_cap", "overflow", "malformed_call")
ENDS = (SUBMITTED, NO_CALL, STEP_CAP, OVERFLOW, MALFORMED)

Ask = Callable[[list[dict], Any], Awaitable[Any]]
Count = Callable[[list[dict]], Awaitable[int]]


@dataclasses.dataclass
class Episode:
    end: str = ""
    submission: tools.Submission | None = None
    malformed: str | None = None
    steps: int = 0  # requests of the agent (a compaction's summary request apart)
    calls: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    page_reads: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    prompt_tokens: list = dataclasses.field(default_factory=list)  # per request, as reported
    sent_tokens: list = dataclasses.field(default_factory=list)  # per request, counted here
    finish_reasons: list = dataclasses.field(default_factory=list)
    summaries: list = dataclasses.field(default_factory=list)  # compact:T's, in order
    most_page_results: int = 0  # the most page results one request showed
    history: list = dataclasses.field(default_factory=list)  # the episode's whole history

    @property
    def accumulated_tokens(self) -> int | None:
        """The last request's prompt size: the endpoint's count, else the run unit's."""
        if self.prompt_tokens and self.prompt_tokens[-1] is not None:
            return self.prompt_tokens[-1]
        return self.sent_tokens[-1] if self.sent_tokens else None

    def details(self) -> dict:
        return {
            "episode_end": self.end, "malformed": self.malformed, "steps": self.steps,
            "tool_calls": dict(sorted(self.calls.items())),
            "pages_reread": sum(1 for n in self.page_reads.values() if n > 1),
            "pages_read": len(self.page_reads),
            "get_record_calls": self.calls.get("get_record", 0),
            # (the endpoint's counts per request are the recorder's details.requests)
            "sent_tokens_per_request": self.sent_tokens,
            "finish_reason": self.finish_reasons[-1] if self.finish_reasons else None,
            "accumulated_tokens": self.accumulated_tokens,
            "most_page_results": self.most_page_results,
            **({"summaries": self.summaries} if self.summaries else {}),
        }

    def noted(self, completion, sent: list[dict], tokens: int) -> None:
        self.prompt_tokens.append(completion.prompt_tokens)
        self.finish_reasons.append(completion.finish_reason)
        self.sent_tokens.append(tokens)
        self.most_page_results = max(self.most_page_results, stimulus.page_results(sent))


async def trajectory(ledger: Ledger, ask: Ask, count: Count) -> Episode:
    """The scripted history, submit forced: one request."""
    episode = Episode()
    sent = stimulus.trajectory(ledger)
    completion = await ask(sent, tools.FORCE_SUBMIT)
    episode.steps = 1
    episode.noted(completion, sent, await count(sent))
    episode.history = sent
    if not completion.ok:
        episode.end = OVERFLOW
        return episode
    _read_calls(episode, ledger, completion.tool_calls)
    if not episode.end:
        episode.end = NO_CALL  # (a forced submit that came back without one)
    return episode


async def live(ledger: Ledger, ask: Ask, count: Count,
               condition: Condition, max_steps: int) -> Episode:
    """The model runs the loop until it submits, stops calling, overflows, errs or the cap."""
    episode = Episode()
    history = stimulus.task_messages(ledger)
    while episode.steps < max_steps:
        if condition.kind == "compact" and await count(history) > condition.value and \
                len(history) > stimulus.task_end(history) + 1:
            summary = await ask(stimulus.summary_request(history), "none")
            if not summary.ok:
                episode.end = OVERFLOW
                break
            episode.summaries.append(summary.text)
            # its reply as it came; one that called a tool anyway: its text alone (a call
            # left unanswered would break the history)
            history = stimulus.compacted(history, summary.message if summary.message and not
                                         summary.tool_calls else
                                         {"role": "assistant", "content": summary.text})
        sent = stimulus.apply(condition, history)
        completion = await ask(sent, "auto")  # (record.ask never sends a broken history)
        episode.steps += 1
        episode.noted(completion, sent, await count(sent))
        if not completion.ok:
            episode.end = OVERFLOW
            break
        calls = completion.tool_calls
        if not calls:
            episode.end = NO_CALL
            break
        history = history + [completion.message]
        history += _read_calls(episode, ledger, calls)
        if episode.end:
            break
    else:
        episode.end = STEP_CAP
    episode.history = history
    return episode


def _read_calls(episode: Episode, ledger: Ledger, calls: list[dict]) -> list[dict]:
    """Run the calls in order; their tool messages. A submit or a malformed call ends the
    episode there (the calls after it are not run)."""
    answers = []
    for made in calls:
        done = tools.run(ledger, made)
        episode.calls[done.name] += 1
        if done.malformed:
            episode.end, episode.malformed = MALFORMED, done.malformed
            break
        if done.submission is not None:
            episode.end, episode.submission = SUBMITTED, done.submission
            break
        if done.name == "read_page":
            page = tools.arguments(made).get("page")
            if isinstance(page, int) and 1 <= page <= len(ledger.pages):
                episode.page_reads[page] += 1
        answers.append({"role": "tool", "tool_call_id": made.get("id"), "content": done.content})
    return answers
