"""The result evaluator: extract the answer from a response and compare it with the gold.

GSM8K follows RE2's number parser in order (the last ``\\boxed{}``, else the text after the
last "answer is", else the last number in the response) and its numeric comparison
(|pred - gold| < 1e-3). Differences, each a defect of the original: a thousands comma is read
only between groups of three digits ("1,200.50" is 1200.5, but "1,2,3" is not 123), a
``\\boxed{\\frac{3}{4}}`` is read whole (the original's lazy ``boxed{(.*?)}`` stops at the first
"}"), and a minus sign glued to a preceding digit ("16-3") is an operator, not a sign.

MMLU takes the last letter in the first rule that matches: "Answer: X", "the answer is X"
(also "(X)" and "option X"), ``\\boxed{X}``, a line holding a lone letter, a response that
opens with an option label ("C. ..."). Unlike RE2 there is no similarity fallback that always
returns a letter: a response with no extractable letter is *unextracted*, recorded as such.

NIAH reads the number after the last "secret number is", else the last number; a run of
single digits separated by single spaces ("4 2 7 1", a B2 echo) is read as one number.
"""

from __future__ import annotations

import dataclasses
import math
import re

GSM8K_TOLERANCE = 1e-3
LETTERS = "ABCD"

_NUMBER = re.compile(
    r"(?:(?<![0-9A-Za-z])-)?"  # a sign, unless it is a minus between operands
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"  # thousands commas only between 3-digit groups
    r"(?:/\d+(?:\.\d+)?)?"  # a fraction 3/4
)
_ANSWER_IS = re.compile(r"answer\s+is", re.IGNORECASE)
_SPACED_DIGITS = re.compile(r"(?<![0-9])[0-9](?: [0-9]){2,}(?![0-9])")
_LETTER_RULES = (
    re.compile(r"[Aa][Nn][Ss][Ww][Ee][Rr][ \t]*:[ \t]*\**\$?\(?([A-D])\)?\$?(?![A-Za-z0-9])"),
    re.compile(r"[Aa]nswer\s+is\s*:?\s*(?:[Oo]ption\s+|[Cc]hoice\s+)?\**\(?([A-D])\)?"
               r"(?![A-Za-z0-9])"),
    re.compile(r"boxed\{\s*(?:\\text\{)?\(?([A-D])\)?\}?\s*\}"),
    re.compile(r"^[ \t]*\**\(?([A-D])\)?[.:)]?\**[ \t]*$", re.MULTILINE),
    re.compile(r"\A\s*\(?([A-D])[.)]\s"),
)


@dataclasses.dataclass(frozen=True)
class Evaluation:
    extracted: str | None  # the answer read from the response; None when none could be read
    correct: bool


# -- numbers -------------------------------------------------------------------------------
def parse_number(text: str) -> float | None:
    """A number as the regex found it ("1,200.50", "-3", "3/4") as a float."""
    plain = text.replace(",", "")
    try:
        if "/" in plain:
            numerator, denominator = plain.split("/")
            return float(numerator) / float(denominator) if float(denominator) else None
        return float(plain)
    except ValueError:
        return None


def numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def last_boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}``, braces balanced."""
    start = text.rfind("boxed{")
    if start < 0:
        return None
    depth, i = 1, start + len("boxed{")
    for j in range(i, len(text)):
        depth += {"{": 1, "}": -1}.get(text[j], 0)
        if depth == 0:
            return text[i:j]
    return text[i:]  # an unclosed box (a truncated response): take what is there


def _frac_to_slash(text: str) -> str:
    return re.sub(r"\\d?frac\{([^{}]*)\}\{([^{}]*)\}", r"\1/\2", text)


def extract_number(response: str) -> str | None:
    """RE2's order: boxed, then after the last "answer is", then the last number."""
    boxed = last_boxed(response)
    if boxed is not None:
        found = numbers(_frac_to_slash(boxed))
        if found:
            return found[0]
    answer_is = list(_ANSWER_IS.finditer(response))
    if answer_is:
        found = numbers(response[answer_is[-1].end():])
        if found:
            return found[0]
    found = numbers(response)
    return found[-1] if found else None


def gsm8k_gold(answer_field: str) -> str:
    """The number after ``####`` in a GSM8K solution, commas removed."""
    marker = answer_field.rfind("####")
    if marker < 0:
        raise ValueError("a GSM8K answer ends with '#### <number>'")
    return answer_field[marker + 4:].strip().replace(",", "")


def evaluate_gsm8k(response: str, gold: str) -> Evaluation:
    extracted = extract_number(response)
    value = parse_number(extracted) if extracted is not None else None
    correct = value is not None and math.isfinite(value) and \
        abs(value - float(gold)) < GSM8K_TOLERANCE
    return Evaluation(extracted.replace(",", "") if extracted else None, correct)


# -- letters -------------------------------------------------------------------------------
def extract_letter(response: str) -> str | None:
    for rule in _LETTER_RULES:
        found = rule.findall(response)
        if found:
            return found[-1]
    return None


def evaluate_mmlu(response: str, gold: str) -> Evaluation:
    extracted = extract_letter(response)
    return Evaluation(extracted, extracted == gold)


# -- the secret number ---------------------------------------------------------------------
def extract_secret(response: str) -> str | None:
    joined = _SPACED_DIGITS.sub(lambda m: m.group().replace(" ", ""), response)
    marker = list(re.finditer(r"secret\s+number\s+is", joined, re.IGNORECASE))
    if marker:
        found = re.findall(r"\d[\d,]*", joined[marker[-1].end():])
        if found:
            return found[0].rstrip(",").replace(",", "")
    found = re.findall(r"\d[\d,]*", joined)
    return found[-1].rstrip(",").replace(",", "") if found else None


def evaluate_niah(response: str, gold: str) -> Evaluation:
    extracted = extract_secret(response)
    return Evaluation(extracted, extracted is not None and extracted == gold)


EVALUATORS = {"gsm8k": evaluate_gsm8k, "mmlu": evaluate_mmlu, "niah": evaluate_niah}


def evaluate(benchmark: str, response: str, gold: str) -> Evaluation:
    """``benchmark`` is gsm8k, mmlu or a NIAH length (``niah_4k``)."""
    return EVALUATORS[benchmark.split("_")[0]](response, gold)
