"""What an episode costs, unbuilt (``--plan``): the requests of an agent that reads every page
once, sized from the length alone.

A live episode is T = P + 2 requests (list_pages, P reads, submit), each re-sending its
history: about L x T / 2 input tokens to reach L, nearly all of it the previous request's
prefix. The episode is played here with stand-in messages that carry their token counts,
through the very conditions the run applies (stimulus.apply), so a cleared, dropped or
trimmed history is sized, and its cacheable prefix found, as it will be sent.
"""

from __future__ import annotations

from fixtures.pytest_face.plan import PlannedSize

from . import stimulus
from .grid import Condition, parse_conditions

CALL_TOKENS = 24  # an assistant message with one call (and a short note beside it)
LIST_TOKENS = 12  # list_pages' result
SUMMARY_TOKENS = 400  # a compaction's summary


def _size(messages: list[dict], cleared: int) -> int:
    return sum(cleared if m["content"] == stimulus.CLEARED else m["tokens"] for m in messages)


def _shared(before: list[dict] | None, after: list[dict], cleared: int) -> int:
    """The tokens of the messages ``after`` starts with, as ``before`` held them."""
    shared = 0
    for old, new in zip(before or (), after):
        if old != new:
            break
        shared += cleared if new["content"] == stimulus.CLEARED else new["tokens"]
    return shared


def live_episode(length: int, pages: int, condition: Condition, task_tokens: int,
                 cleared_tokens: int, max_tokens: int) -> PlannedSize:
    """The requests of a live episode that reads every page once under ``condition``; a
    native condition is sized as its client-side twin (the server clears or compacts what
    it would; a compaction's summary is its own iteration, sized here as a request)."""
    if condition.kind in ("anthropic-clear", "anthropic-compact"):
        condition = parse_conditions(condition.twin)[0]
    per_page = max(1, (length - task_tokens - LIST_TOKENS - (pages + 1) * CALL_TOKENS) // pages)
    history = [{"role": "system", "content": "task", "tokens": task_tokens},
               {"role": "user", "content": "", "tokens": 0}]
    results = [LIST_TOKENS] + [per_page] * pages
    prompts, cacheable, before = [], 0, None
    for step in range(pages + 2):
        if condition.kind == "compact" and _size(history, cleared_tokens) > condition.value \
                and len(history) > stimulus.task_end(history) + 1:
            prompts.append(_size(history, cleared_tokens))  # the summary's request
            cacheable += _shared(before, history, cleared_tokens)
            history = stimulus.compacted(history, {"role": "assistant",
                                                   "content": f"summary {step}",
                                                   "tokens": SUMMARY_TOKENS})
            history[-1] = {**history[-1], "tokens": CALL_TOKENS}
            before = None
        sent = stimulus.apply(condition, history)
        prompts.append(_size(sent, cleared_tokens))
        cacheable += _shared(before, sent, cleared_tokens)
        before = sent
        if step < len(results):
            call = {"id": f"c{step}"}
            history = history + [
                {"role": "assistant", "content": f"call {step}", "tokens": CALL_TOKENS,
                 "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call["id"], "content": f"result {step}",
                 "tokens": results[step]}]
    return PlannedSize(requests=len(prompts), input_tokens=sum(prompts),
                       output_tokens=max_tokens * len(prompts), cacheable_tokens=cacheable,
                       largest_prompt=max(prompts), max_tokens=max_tokens)
