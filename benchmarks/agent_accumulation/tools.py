"""The four tools (spec section 2): their schemas, offered on every request, and their
results, pure functions of the ledger and the arguments (JSON text).

A call is read as it came: its arguments must be a JSON object (else the call is malformed),
its name one of the four (else malformed); ``read_page`` with a page that is not one of the
ledger's answers ``{"error": ...}`` and the episode goes on, as a real tool would.
``submit`` ends the episode; wrong types in it make it malformed.
"""

from __future__ import annotations

import dataclasses
import json

from .ledger import Ledger, dumps

TOOLS = (
    {"type": "function", "function": {
        "name": "list_pages",
        "description": "How many pages the ledger has, and how many records a page holds.",
        "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "read_page",
        "description": "The records of one page of the ledger (pages are numbered from 1).",
        "parameters": {"type": "object",
                       "properties": {"page": {"type": "integer",
                                               "description": "the page, from 1"}},
                       "required": ["page"]}}},
    {"type": "function", "function": {
        "name": "get_record",
        "description": "One record of the ledger by its id.",
        "parameters": {"type": "object",
                       "properties": {"id": {"type": "string",
                                             "description": "the record's id, inv-xxxxxx"}},
                       "required": ["id"]}}},
    {"type": "function", "function": {
        "name": "submit",
        "description": "Submit the answer: the ids of every matching record and the sum of "
                       "their amount_cents. Ends the task.",
        "parameters": {"type": "object",
                       "properties": {"ids": {"type": "array", "items": {"type": "string"}},
                                      "total_cents": {"type": "integer"}},
                       "required": ["ids", "total_cents"]}}},
)
NAMES = tuple(tool["function"]["name"] for tool in TOOLS)
FORCE_SUBMIT = {"type": "function", "function": {"name": "submit"}}
TOOLS_TEXT = dumps(list(TOOLS))  # what a prompt's count adds for the schemas

# Why a call is malformed (the episode ends there, scored 0)
BAD_ARGUMENTS = "bad_arguments"  # not a JSON object
UNKNOWN_TOOL = "unknown_tool"
BAD_SUBMIT = "bad_submit"  # submit's ids not a list of strings, or total_cents not an integer


@dataclasses.dataclass(frozen=True)
class Submission:
    ids: tuple[str, ...]
    total_cents: int


@dataclasses.dataclass(frozen=True)
class Result:
    """What one call did: its result's text (None for submit and a malformed call)."""
    name: str
    content: str | None = None
    submission: Submission | None = None
    malformed: str | None = None  # BAD_ARGUMENTS, UNKNOWN_TOOL or BAD_SUBMIT


def arguments(call: dict) -> dict | None:
    """A call's arguments as a dict, or None where they are not a JSON object."""
    text = (call.get("function") or {}).get("arguments")
    if isinstance(text, dict):  # an adapter that already parsed them
        return text
    try:
        found = json.loads(text or "{}")
    except (TypeError, ValueError, RecursionError):  # (nested past the parser: malformed)
        return None
    return found if isinstance(found, dict) else None


def run(ledger: Ledger, call: dict) -> Result:
    """One tool call (OpenAI's shape) against the ledger."""
    name = (call.get("function") or {}).get("name")
    if name not in NAMES:
        return Result(str(name), malformed=UNKNOWN_TOOL)
    args = arguments(call)
    if args is None:
        return Result(name, malformed=BAD_ARGUMENTS)
    if name == "submit":
        submission = read_submission(args)
        return Result(name, submission=submission,
                      malformed=None if submission is not None else BAD_SUBMIT)
    return Result(name, content=result(ledger, name, args))


def result(ledger: Ledger, name: str, args: dict) -> str:
    """The tool message's content for list_pages, read_page or get_record."""
    if name == "list_pages":
        return dumps({"pages": len(ledger.pages), "records_per_page": ledger.records_per_page})
    if name == "read_page":
        page = args.get("page")
        if not isinstance(page, int) or isinstance(page, bool) or \
                not 1 <= page <= len(ledger.pages):
            return dumps({"error": f"no page {page!r}: pages are 1 to {len(ledger.pages)}"})
        return read_page(ledger, page)
    record_id = args.get("id")
    record = ledger.by_id.get(record_id) if isinstance(record_id, str) else None
    return dumps(record) if record is not None else dumps({"error": f"no record {record_id}"})


def read_page(ledger: Ledger, page: int) -> str:
    return dumps({"page": page, "of": len(ledger.pages), "records": list(ledger.pages[page - 1])})


def read_submission(args: dict) -> Submission | None:
    ids, total = args.get("ids"), args.get("total_cents")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return None
    if not isinstance(total, int) or isinstance(total, bool):
        return None
    return Submission(tuple(ids), total)


def offered(request_tools) -> list[str]:
    """The names a request offered (for checks)."""
    return [tool["function"]["name"] for tool in request_tools or ()]
