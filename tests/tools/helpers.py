"""A small hand-built ledger (spec: specs/agent-accumulation.md, sections 1-2), its tools, the
conditions and a tool loop over the engine, for the scripted agents' and the engine's tests.
The experiment builds its own (benchmarks/agent_accumulation/); these are a test's fixtures."""

from __future__ import annotations

import json

from fixtures.engine.recording import SampleRecorder

OWNER, CATEGORY, DATE = "Ines Moreau", "travel", "2025-06-01"
TASK = (f"Find every record whose owner is {OWNER} and whose category is {CATEGORY}, dated on "
        f"or after {DATE}. Read every page of the ledger with the tools, then call submit with "
        "the ids of all such records and the sum of their amount_cents.")
SYSTEM = "You are a careful bookkeeper with tools."
NAMES = ("list_pages", "read_page", "get_record", "submit")
TOOLS = [{"type": "function", "function": {"name": name, "description": f"the {name} tool",
                                           "parameters": {"type": "object", "properties": {}}}}
         for name in NAMES]
OTHERS = ("Bram Visser", "Chen Wei", "Dara Okafor")


def ledger(pages: int = 4, per_page: int = 5, note_words: int = 40,
           needle_pages: tuple[int, ...] = (1, 3, 4)) -> list[list[dict]]:
    """Pages of records: one needle on each of ``needle_pages``, three near misses (each
    right on two of the three conditions), the rest nobody's match."""
    records, number = [], 0
    for page in range(1, pages + 1):
        rows = []
        for slot in range(per_page):
            number += 1
            owner, category, date = OTHERS[number % 3], "hardware", "2025-03-15"
            if slot == 0 and page in needle_pages:
                owner, category, date = OWNER, CATEGORY, f"2025-{5 + page:02d}-0{page}"
            elif slot == 1 and page <= 3:  # the near misses
                owner, category, date = [(OWNER, CATEGORY, "2025-05-31"),
                                         (OWNER, "meals", "2025-07-01"),
                                         ("Chen Wei", CATEGORY, "2025-08-01")][page - 1]
            rows.append({"id": f"inv-{number * 4099 % 16 ** 6:06x}", "owner": owner,
                         "category": category, "date": date,
                         "amount_cents": 1000 + 37 * number,
                         "note": " ".join(f"word{(number * 7 + i) % 97}"
                                          for i in range(note_words))})
        records.append(rows)
    return records


def gold(pages: list[list[dict]]) -> dict:
    found = [r for page in pages for r in page if r["owner"] == OWNER and
             r["category"] == CATEGORY and r["date"] >= DATE]
    return {"ids": sorted(r["id"] for r in found),
            "total_cents": sum(r["amount_cents"] for r in found)}


def tool_result(pages: list[list[dict]], call: dict) -> str:
    name = call["function"]["name"]
    try:
        arguments = json.loads(call["function"]["arguments"])
    except ValueError:
        return json.dumps({"error": "the arguments are not JSON"})
    if name == "list_pages":
        return json.dumps({"pages": len(pages), "records_per_page": len(pages[0])})
    if name == "read_page":
        page = arguments.get("page")
        if not isinstance(page, int) or not 1 <= page <= len(pages):
            return json.dumps({"error": f"no page {page}: pages run from 1 to {len(pages)}"})
        return json.dumps({"page": page, "of": len(pages), "records": pages[page - 1]})
    if name == "submit":
        return json.dumps({"ok": True})
    return json.dumps({"error": f"no tool {name}"})


def trajectory(pages: list[list[dict]]) -> list[dict]:
    """The scripted history: the task, list_pages, then every page read once, in order."""
    history = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    steps = [("list_pages", {})] + [("read_page", {"page": p}) for p in range(1, len(pages) + 1)]
    for number, (name, arguments) in enumerate(steps):
        call = {"id": f"call_script_{number}", "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}
        history += [{"role": "assistant", "content": "", "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": call["id"],
                     "content": tool_result(pages, call)}]
    return history


FORCE_SUBMIT = {"type": "function", "function": {"name": "submit"}}


def under(condition: str, history: list[dict]) -> list[dict]:
    """The history as a condition sends it (spec section 4): full, clear:K, drop:F, trim:F."""
    kind, _, value = condition.partition(":")
    head, rest = history[:2], history[2:]  # the system message and the task always stay
    if kind == "full":
        return list(history)
    if kind == "clear":
        tools = [i for i, m in enumerate(rest) if m["role"] == "tool"]
        kept = set(tools[len(tools) - int(value):]) if int(value) else set()
        cleared = json.dumps({"cleared": True, "hint": "call the tool again to see it"})
        return head + [m if m["role"] != "tool" or i in kept else {**m, "content": cleared}
                       for i, m in enumerate(rest)]
    starts = [i for i, m in enumerate(rest) if m["role"] == "assistant"]
    if kind == "drop":
        dropped = int(len(starts) * float(value))
        return head + (rest[starts[dropped]:] if dropped < len(starts) else [])
    if kind == "trim":  # the newest fraction of messages, widened to whole pairs
        keep = max(1, round(len(rest) * float(value)))
        return head + rest[max([i for i in starts if i <= len(rest) - keep] or [0]):]
    raise ValueError(condition)


async def episode(model, recorder: SampleRecorder, pages: list[list[dict]], *,
                  condition: str = "full", max_steps: int = 20, max_tokens: int = 400,
                  **params):
    """A live loop: the model's message appended as it came, each call answered locally;
    ``params``: more of each request (a server's own context management).
    (the submitted arguments or None, the full history, the completions)"""
    history = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    completions = []
    for _ in range(max_steps):
        completion = await recorder.ask(model, under(condition, history),
                                        max_tokens=max_tokens, tools=TOOLS,
                                        tool_choice="auto", **params)
        completions.append(completion)
        if not completion.tool_calls:
            return None, history, completions
        history.append(completion.message)
        for call in completion.tool_calls:
            history.append({"role": "tool", "tool_call_id": call["id"],
                            "content": tool_result(pages, call)})
            if call["function"]["name"] == "submit":
                return json.loads(call["function"]["arguments"]), history, completions
    return None, history, completions


def recorder(name: str = "s") -> SampleRecorder:
    return SampleRecorder("agent_test", name, f"tests/tools::{name}", "run", {})
