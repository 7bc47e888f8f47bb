"""The messages: the task, the scripted trajectory, what a prompt's count reads, and the
conditions applied to a live history before each request (spec sections 3 and 4).

A history is OpenAI chat messages: the task (a system message and the task sentence), then
turns: an assistant message (its tool calls, any text beside them) followed by one ``tool``
message per call, in order. The conditions never break a turn: a tool message always follows
the assistant message whose call it answers (fixtures/engine/toolcalls.py checks every request).
"""

from __future__ import annotations

import math

from .grid import Condition
from .ledger import SYSTEM, Ledger, dumps
from .tools import TOOLS_TEXT, read_page, result

CLEARED = dumps({"cleared": True, "hint": "call the tool again to see it"})
SUMMARY_PROMPT = ("Your context is about to be compacted. Write a summary of your work on the "
                  "task so far that lets you continue without the messages above: the pages "
                  "you have read, and every record you found that matches the task, with its "
                  "id and amount_cents. Reply with the summary only.")
CONTINUE = "Your summary above replaces the earlier messages. Continue."


def task_messages(ledger: Ledger) -> list[dict]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ledger.task}]


def call_id(n: int) -> str:
    """Nine letters and digits: the strictest ids an endpoint asks for (Mistral's)."""
    return f"call{n:05d}"


def call(n: int, name: str, arguments: dict) -> dict:
    return {"id": call_id(n), "type": "function",
            "function": {"name": name, "arguments": dumps(arguments)}}


def trajectory(ledger: Ledger) -> list[dict]:
    """The task, one list_pages call and its result, then every page read once in order."""
    messages = task_messages(ledger)
    steps = [("list_pages", {}, result(ledger, "list_pages", {}))] + [
        ("read_page", {"page": p}, read_page(ledger, p)) for p in range(1, len(ledger.pages) + 1)]
    for n, (name, arguments, content) in enumerate(steps):
        made = call(n, name, arguments)
        messages.append({"role": "assistant", "content": "", "tool_calls": [made]})
        messages.append({"role": "tool", "tool_call_id": made["id"], "content": content})
    return messages


def message_text(message: dict) -> str:
    """What a prompt's count reads of a message: its content, each call's name and
    arguments (an endpoint's chat template adds its own few tokens a message)."""
    calls = [f"{(c.get('function') or {}).get('name', '')} "
             f"{(c.get('function') or {}).get('arguments', '')}"
             for c in message.get("tool_calls") or ()]
    return "\n".join([message.get("content") or "", *calls]) if calls else \
        message.get("content") or ""


def counted_text(messages: list[dict]) -> str:
    """What a prompt's count reads: the tools' schemas and every message's text."""
    return "\n".join([TOOLS_TEXT, *map(message_text, messages)])


def trajectory_text(ledger: Ledger) -> str:
    """The fitting's text: the trajectory as counted (benchmarks/texts/fitting.py)."""
    return counted_text(trajectory(ledger))


# -- conditions --------------------------------------------------------------------------
def task_end(history: list[dict]) -> int:
    """Where the task ends: the first assistant message (a compaction's summary, a user
    message right after the task, stays with it)."""
    return next((i for i, m in enumerate(history) if m["role"] == "assistant"), len(history))


def turns(messages: list[dict]) -> list[list[dict]]:
    """An assistant message and the tool messages after it, each turn a list."""
    found: list[list[dict]] = []
    for message in messages:
        if message["role"] == "assistant" or not found:
            found.append([message])
        else:
            found[-1].append(message)
    return found


def apply(condition: Condition, history: list[dict]) -> list[dict]:
    """The messages to send for ``history`` under ``condition`` (``full``: the history
    itself, so each request extends the previous one byte for byte). ``compact`` rewrites
    the history itself (``compacted``), and a native condition asks the endpoint to edit
    it: both send it as it is.

    ``clear:K`` never clears a result the model has not seen yet: the results of the newest
    turn stay whatever K (a turn of more than K parallel calls keeps them all)."""
    if condition.kind in ("full", "compact") or condition.provider is not None:
        return history
    end = task_end(history)
    task, rest = history[:end], history[end:]
    if condition.kind == "clear":
        last_call = max((i for i, m in enumerate(rest) if m["role"] == "assistant"), default=-1)
        seen = [i for i, m in enumerate(rest) if m["role"] == "tool" and i < last_call]
        unseen = sum(1 for m in rest[last_call + 1:] if m["role"] == "tool")
        kept_seen = max(0, int(condition.value) - unseen)
        hidden = set(seen[:max(0, len(seen) - kept_seen)])
        return task + [{**m, "content": CLEARED} if i in hidden else m
                       for i, m in enumerate(rest)]
    if condition.kind == "drop":
        grouped = turns(rest)
        # (the newest turn always stays: a call's own result is never dropped)
        dropped = min(math.floor(condition.value * len(grouped) + 1e-9), len(grouped) - 1)
        return task + [m for turn in grouped[dropped:] for m in turn]
    if condition.kind == "trim":
        cut = len(rest) - math.ceil(condition.value * len(rest) - 1e-9)
        while 0 < cut < len(rest) and rest[cut]["role"] == "tool":  # a turn stays whole:
            cut -= 1  # the call is kept with its result (the newest turn always is)
        return task + rest[cut:]
    raise ValueError(f"unknown condition {condition.name!r}")


def compacted(history: list[dict], summary: dict) -> list[dict]:
    """The history after compaction: the task, the model's summary (its reply to the summary
    request, as it came) and a user message that hands the turn back."""
    return history[:2] + [summary, {"role": "user", "content": CONTINUE}]


def summary_request(history: list[dict]) -> list[dict]:
    """The history and the fixed request for a summary."""
    return history + [{"role": "user", "content": SUMMARY_PROMPT}]


def page_results(messages: list[dict]) -> int:
    """How many read_page results a request shows (not cleared, not an error)."""
    return sum(1 for m in messages if m["role"] == "tool"
               and (m.get("content") or "").startswith('{"page": '))
