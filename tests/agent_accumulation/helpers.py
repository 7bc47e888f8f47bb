"""What the unit tests share: the options of a run, a ledger, and a scripted agent that
plays the loop in process (the scripted server's own agents play it over HTTP)."""

from __future__ import annotations

import dataclasses
import json

from benchmarks.agent_accumulation import grid, ledger, stimulus

DEFAULTS = {"scale": "test", "agent_modes": None, "agent_conditions": None,
            "agent_lengths": None, "agent_needles": None, "agent_samples": None,
            "agent_pages": None, "agent_max_steps": None, "agent_seed": 0}


def options(**given):
    values = {**DEFAULTS, **given}
    return values.__getitem__


def settings(**given) -> grid.Settings:
    return grid.settings(options(**given))


def small_ledger(needles: int = 2, pages: int = 10, size: int = 60, seed: str = "t"):
    return ledger.build(seed, needles, pages, size)


@dataclasses.dataclass
class Reply:
    """What ``episode`` reads of a completion."""
    message: dict | None
    outcome: str = "ok"
    prompt_tokens: int | None = None
    cached_tokens: int | None = None
    finish_reason: str | None = "tool_calls"

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"

    @property
    def text(self) -> str:
        return (self.message or {}).get("content") or ""

    @property
    def tool_calls(self) -> list[dict]:
        return (self.message or {}).get("tool_calls") or []


def tool_reply(n: int, name: str, arguments, notes: str = "") -> Reply:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Reply({"role": "assistant", "content": notes, "reasoning_content": f"step {n}",
                  "tool_calls": [{"id": f"c{n}", "type": "function",
                                  "function": {"name": name, "arguments": text}}]})


class Agent:
    """A perfect agent: reads the task, lists the pages, reads each in turn, and keeps what
    it found in its notes (its message's content), so it needs only its last message and
    the results after it. Records every request it was sent."""

    def __init__(self):
        self.sent: list[tuple[list[dict], object]] = []

    async def __call__(self, messages, tool_choice):
        self.sent.append((messages, tool_choice))
        n = len(self.sent)
        task = messages[1]["content"]
        owner = task.split("owner is ")[1].split(" and whose")[0]
        category = task.split("category is ")[1].split(", dated")[0]
        date = task.split("on or after ")[1].split(".")[0]
        notes = {"pages": None, "read": [], "found": {}}
        for message in messages:
            if message["role"] == "assistant" and message.get("content"):
                notes = json.loads(message["content"])
            if message["role"] == "tool":
                result = json.loads(message["content"])
                if "pages" in result:
                    notes["pages"] = result["pages"]
                for record in result.get("records", ()):
                    if (record["owner"], record["category"]) == (owner, category) and \
                            record["date"] >= date:
                        notes["found"][record["id"]] = record["amount_cents"]
                if "records" in result and result["page"] not in notes["read"]:
                    notes["read"].append(result["page"])
        if messages[-1]["content"] == stimulus.SUMMARY_PROMPT:
            return Reply({"role": "assistant", "content": json.dumps(notes)}, finish_reason="stop")
        text = json.dumps(notes)
        if tool_choice != "auto" or (notes["pages"] and len(notes["read"]) == notes["pages"]):
            return tool_reply(n, "submit", {"ids": sorted(notes["found"]),
                                            "total_cents": sum(notes["found"].values())}, text)
        if notes["pages"] is None:
            return tool_reply(n, "list_pages", {}, text)
        return tool_reply(n, "read_page", {"page": len(notes["read"]) + 1}, text)


async def count(messages) -> int:
    """A stand-in unit: a token a four characters."""
    return len(stimulus.counted_text(messages)) // 4
