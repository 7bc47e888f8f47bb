"""Scripted MRCR players for the scripted server: they read the conversation as a model would
and answer with the asked occurrence (gold), the first one, or nothing useful."""

from __future__ import annotations

import re

QUESTION = re.compile(r"Prepend (\S+) to the (\d+)(?:st|nd|rd|th) \(1 indexed\) (.+)\. Do not "
                      r"include any other text in your response\.")


def occurrences(messages: list[dict], what: str) -> list[str]:
    """The replies to "write a(n) {what}", in order (a merged first message included: the
    preamble and the first ask in one, the ask on a line of its own: "\n\n" joined them, or,
    a Gemini content's parts, nothing after the preamble's last line)."""
    asks = (f"write a {what}", f"write an {what}")
    return [messages[i + 1]["content"] for i in range(len(messages) - 1)
            if messages[i]["role"] == "user" and messages[i + 1]["role"] == "assistant"
            and any(messages[i]["content"] == a or messages[i]["content"].endswith("\n" + a)
                    for a in asks)]


def player(pick):
    """A responder for ``ScriptedServer``: ``pick(n, replies)`` chooses the copied reply."""
    def respond(request: dict) -> str:
        messages = request["messages"]
        prefix, nth, what = QUESTION.fullmatch(messages[-1]["content"]).groups()
        return prefix + pick(int(nth), occurrences(messages, what))
    return respond


gold = player(lambda nth, replies: replies[nth - 1])
first = player(lambda nth, replies: replies[0])
