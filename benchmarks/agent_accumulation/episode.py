"""An episode: the trajectory's one request, or the live loop (spec section 3).

The live loop asks, runs each tool call of the reply locally in order, appends the reply's
assistant message exactly as it came (``completion.message``: reasoning content, thought
signatures and call ids included) and one tool message per call, and asks again, each
request shaped by the condition. Every reply is data: a call of a tool that does not exist,
arguments that are not JSON or a page out of range is answered with an ``{"error": ...}``
result and the loop goes on (counted, ``call_errors``). It ends with one of ``ENDS``:

- ``submitted``: submit was called (scored; an ill-formed one scores 0, ``submit_well_formed``
  says which);
- ``no_call``: a reply without a tool call (scored 0);
- ``step_cap``: the cap on requests reached without a submit (scored 0);
- ``overflow``: the endpoint said the prompt does not fit (not scored: the record's outcome is
  ``overflow``, counted apart in the headline, the verdict and the paired findings alike);
- a reply the next request could not carry, so the loop cannot go on (scored 0, never a
  harness error): ``duplicate_call_ids`` (two calls of the reply, or a call and an earlier
  one, share an id), ``missing_call_id`` (a call without an id), ``object_arguments``
  (arguments sent as an object, not as JSON text: OpenAI's format, and every server that
  takes it back, wants text).

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

SUBMITTED, NO_CALL, STEP_CAP, OVERFLOW = "submitted", "no_call", "step_cap", "overflow"
DUPLICATE_IDS, MISSING_ID, OBJECT_ARGUMENTS = (
    "duplicate_call_ids", "missing_call_id", "object_arguments")
UNCARRIED = (DUPLICATE_IDS, MISSING_ID, OBJECT_ARGUMENTS)
ENDS = (SUBMITTED, NO_CALL, STEP_CAP, OVERFLOW, *UNCARRIED)

Ask = Callable[[list[dict], Any], Awaitable[Any]]
Count = Callable[[list[dict]], Awaitable[int]]


@dataclasses.dataclass
class Episode:
    end: str = ""
    submitted: bool = False  # submit was called (well formed or not)
    submission: tools.Submission | None = None  # None: no submit, or an ill-formed one
    steps: int = 0  # requests of the agent (a compaction's summary request apart)
    calls: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    call_errors: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    page_reads: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    prompt_tokens: list = dataclasses.field(default_factory=list)  # per request, as reported
    sent_tokens: list = dataclasses.field(default_factory=list)  # per request, counted here
    finish_reasons: list = dataclasses.field(default_factory=list)
    summaries: list = dataclasses.field(default_factory=list)  # compact:T's, in order
    # what the endpoint's own context management did to each request (a native condition:
    # Completion.context_management), in order
    server_context: list = dataclasses.field(default_factory=list)
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
            "episode_end": self.end, "steps": self.steps,
            "submit_well_formed": (self.submission is not None) if self.submitted else None,
            "tool_calls": dict(sorted(self.calls.items())),
            "call_errors": {kind: self.call_errors[kind] for kind in tools.ERRORS
                            if self.call_errors[kind]},
            "pages_reread": sum(1 for n in self.page_reads.values() if n > 1),
            "pages_read": len(self.page_reads),
            "get_record_calls": self.calls.get("get_record", 0),
            # (the endpoint's counts per request are the recorder's details.requests)
            "sent_tokens_per_request": self.sent_tokens,
            "finish_reason": self.finish_reasons[-1] if self.finish_reasons else None,
            "accumulated_tokens": self.accumulated_tokens,
            "most_page_results": self.most_page_results,
            **({"summaries": self.summaries} if self.summaries else {}),
            **({"server_context": server_totals(self.server_context)}
               if any(self.server_context) else {}),
        }

    def noted(self, completion, sent: list[dict], tokens: int) -> None:
        self.prompt_tokens.append(completion.prompt_tokens)
        self.finish_reasons.append(completion.finish_reason)
        self.sent_tokens.append(tokens)
        self.most_page_results = max(self.most_page_results, stimulus.page_results(sent))
        self.server_context.append(getattr(completion, "context_management", None))


# Each request re-sends the whole history and the server edits it again: what one request
# had cleared is the most any did (the episode's end: its max); compactions, their tokens and
# the input tokens cleared (not read, not billed) add up over the requests.
MOST_AT_ONCE = ("cleared_tool_uses", "cleared_thinking_turns")


def server_totals(reports: list[dict | None]) -> dict:
    """An episode's server-side context management: the totals and each request's."""
    found = [report or {} for report in reports]
    names = sorted({name for report in found for name in report})
    totals = {name: (max if name in MOST_AT_ONCE else sum)(r.get(name, 0) for r in found)
              for name in names}
    return {**totals, "per_request": found}


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
    """The model runs the loop until it submits, stops calling, overflows, sends a reply
    the next request could not carry, or meets the cap."""
    episode = Episode()
    history = stimulus.task_messages(ledger)
    while episode.steps < max_steps:
        if condition.kind == "compact" and \
                await count(history) > condition.value and \
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
        if (uncarried := carry_problem(calls, history)) is not None:
            episode.end = uncarried
            break
        history = history + [completion.message]
        history += _read_calls(episode, ledger, calls)
        if episode.end:
            break
    else:
        episode.end = STEP_CAP
    episode.history = history
    return episode


def carry_problem(calls: list[dict], history: list[dict]) -> str | None:
    """Why the next request could not carry this reply's calls (one of UNCARRIED), or None:
    each call needs an id of its own, its tool message answers it by that id, and its
    arguments go back as JSON text."""
    earlier = {call.get("id") for message in history
               for call in message.get("tool_calls") or () if isinstance(call, dict)}
    ids = [call.get("id") if isinstance(call, dict) else None for call in calls]
    if not all(isinstance(i, str) and i for i in ids):
        return MISSING_ID
    if len(set(ids)) < len(ids) or earlier & set(ids):
        return DUPLICATE_IDS
    if any(not isinstance((call.get("function") or {}).get("arguments"), str)
           for call in calls):
        return OBJECT_ARGUMENTS
    return None


def _read_calls(episode: Episode, ledger: Ledger, calls: list[dict]) -> list[dict]:
    """Run the calls in order; their tool messages. A submit ends the episode there (the
    calls after it are not run)."""
    answers = []
    for made in calls:
        done = tools.run(ledger, made)
        episode.calls[done.name] += 1
        if done.error:
            episode.call_errors[done.error] += 1
        if done.submitted:
            episode.end, episode.submitted = SUBMITTED, True
            episode.submission = done.submission
            break
        if done.name == "read_page" and not done.error:
            episode.page_reads[tools.arguments(made)["page"]] += 1
        answers.append({"role": "tool", "tool_call_id": made.get("id"), "content": done.content})
    return answers
