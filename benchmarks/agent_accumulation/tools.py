"""The four tools (spec section 2): their schemas, offered on every request, and their
results, pure functions of the ledger and the arguments (JSON text).

Every call the model makes is answered, as a real tool loop answers it (LOCA-bench and
inspect_ai return the error and go on): a tool that does not exist, arguments that are not a
JSON object, or a page that is not one of the ledger's get an ``{"error": ...}`` result and
the episode goes on; the slip is counted (``Result.error``). ``submit`` ends the episode once
called; arguments of the wrong types make it an ill-formed submission (``Result.submission``
None), scored 0, but submitted all the same.
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

# The slips a call can make, counted per episode (details.call_errors)
BAD_ARGUMENTS = "bad_arguments"  # not a JSON object: an error result, the loop goes on
UNKNOWN_TOOL = "unknown_tool"  # a name not offered: an error result, the loop goes on
BAD_PAGE = "bad_page"  # read_page of a page the ledger does not have: an error result
BAD_SUBMIT = "bad_submit"  # submit's ids not a list of strings, or total_cents not an integer
ERRORS = (BAD_ARGUMENTS, UNKNOWN_TOOL, BAD_PAGE, BAD_SUBMIT)


@dataclasses.dataclass(frozen=True)
class Submission:
    ids: tuple[str, ...]
    total_cents: int


@dataclasses.dataclass(frozen=True)
class Result:
    """What one call did: its result's text (None for submit), the submission (None for an
    ill-formed one) and the slip it made, if any (one of ERRORS)."""
    name: str
    content: str | None = None
    submitted: bool = False  # submit was called: the episode ends
    submission: Submission | None = None
    error: str | None = None


def arguments(call: dict) -> dict | None:
    """A call's arguments as a dict, or None where they are not a JSON object (an object
    sent as it is, never JSON text, is read too: the trajectory's one reply carries nothing
    on; the live loop ends before it, episode.OBJECT_ARGUMENTS)."""
    text = (call.get("function") or {}).get("arguments")
    if isinstance(text, dict):
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
        return Result(str(name), error=UNKNOWN_TOOL, content=dumps(
            {"error": f"no tool {name!r}: the tools are {', '.join(NAMES)}"}))
    args = arguments(call)
    if args is None:
        return Result(name, error=BAD_ARGUMENTS, content=dumps(
            {"error": f"the arguments of {name} are not a JSON object; call it again with "
                      "JSON arguments"}))
    if name == "submit":
        submission = read_submission(args)
        return Result(name, submitted=True, submission=submission,
                      error=None if submission is not None else BAD_SUBMIT)
    content = result(ledger, name, args)
    return Result(name, content=content,
                  error=BAD_PAGE if name == "read_page" and content.startswith('{"error"')
                  else None)


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
