"""A perfect RULER model for the scripted server: it solves each task from the prompt alone
(finds the needles of the asked keys, follows the chain, counts the words), so a run that
scores 100 with it shows that every prompt holds its answer. ``drop`` loses every second
value it finds (a model made worse on purpose: multivalue and multiquery score 50).
"""

from __future__ import annotations

import collections
import re

NEEDLE = re.compile(r"One of the special magic (?:numbers|uuids|words) for (\S+) is: (\S+)\.")
NIAH_QUESTION = re.compile(r"What (?:are all|is) the special magic \w+ for (.+) mentioned in "
                           r"the provided text\?")
VT_QUESTION = re.compile(r"assigned the value (\d+) in the text above\.")
VT_STATEMENT = re.compile(r"^VAR ([A-Z]+) = (?:VAR )?([A-Z0-9]+) ?$", re.MULTILINE)
CWE_ENTRY = re.compile(r"\d+\. (.+?)(?= \d+\. |$)")  # a word can hold a space


def prompt_of(request: dict) -> str:
    """The prompt as sent: one user message, or a user message and the prefill."""
    return "".join(message["content"] for message in request["messages"])


def answer(prompt: str) -> list[str]:
    """The values a perfect model names, in order."""
    if "special magic" in prompt:
        return niah(prompt)
    if "chain(s) of variable assignment" in prompt:
        return variable_tracking(prompt)
    if "numbered list of words" in prompt:
        return common_words(prompt)
    if "coded text" in prompt:
        return frequent_words(prompt)
    raise ValueError("not a RULER prompt")


def niah(prompt: str) -> list[str]:
    query = NIAH_QUESTION.findall(prompt)[-1]
    keys = re.split(r", and |, ", query)
    found = collections.defaultdict(list)
    for key, value in NEEDLE.findall(prompt):
        found[key].append(value)
    return [value for key in keys for value in found[key]]


def variable_tracking(prompt: str) -> list[str]:
    main = prompt[prompt.rindex("Memorize and track"):]  # after the one-shot example
    value = VT_QUESTION.findall(main)[-1]
    assigned = collections.defaultdict(list)  # source (value or name) -> names
    for name, source in VT_STATEMENT.findall(main):
        assigned[source].append(name)
    names, frontier = [], [value]
    while frontier:
        source = frontier.pop(0)
        for name in assigned[source]:
            names.append(name)
            frontier.append(name)
    return names


def common_words(prompt: str) -> list[str]:
    main = prompt[prompt.rindex("Below is a numbered list"):]  # after the one-shot example
    listing = main[:main.index("\nQuestion:")]
    counts = collections.Counter(CWE_ENTRY.findall(listing))
    return [word for word, _ in counts.most_common(10)]


def frequent_words(prompt: str) -> list[str]:
    text = prompt[prompt.index("coded words. ") + len("coded words. "):prompt.index("\nQuestion:")]
    counts = collections.Counter(word for word in text.split(" ") if word != "...")
    return [word for word, _ in counts.most_common(3)]


def perfect(request: dict) -> str:
    return " ".join(answer(prompt_of(request)))


def drop(request: dict) -> str:
    return " ".join(answer(prompt_of(request))[::2])


def wrong(request: dict) -> str:
    """Thinking that names a wrong value and none of the right ones (a scorer that read the
    thinking would find it there)."""
    return "The special magic value must be 0000000; I will answer with 0000000."
