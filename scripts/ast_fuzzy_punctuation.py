"""Already said that, fuzzy mode: how many answers wrapped in Unicode punctuation are credited.

Every ideal of the four distractor sets (openai/evals registry samples, in the data
directory) wrapped in each form below gives one (answer, ideal) pair. Counted: the pairs
openai/evals' FuzzyMatch credits (its ``utils.fuzzy_match`` as documented: ASCII punctuation
and articles removed, then either string inside the other, character by character), and
the pairs contextrot's fuzzy rule credits (the ideal's words whole and in order).

    PYTHONPATH=. python scripts/ast_fuzzy_punctuation.py
"""

from __future__ import annotations

import json
import re
import string

from benchmarks.already_said_that.scoring import distractor_correct
from fixtures.data.registry import data_dir

SETS = ("ambiguous-sentences.samples.jsonl", "first-letters.samples.jsonl",
        "reverse-sort-words-eng.samples.jsonl", "which_is_heavier.jsonl")
FORMS = {  # Unicode punctuation only (every character below is in a P* category)
    "curly double quotes": "\u201c{}\u201d", "curly single quotes": "\u2018{}\u2019",
    "guillemets": "\u00ab{}\u00bb", "spaced guillemets": "\u00ab {} \u00bb",
    "German quotes": "\u201e{}\u201c", "corner brackets": "\u300c{}\u300d",
    "ellipsis": "{}\u2026", "ideographic full stop": "{}\u3002",
    "inverted question": "\u00bf{}?", "em dash before": "\u2014 {}",
    "curly quotes and ellipsis": "\u201c{}\u2026\u201d",
}


def ascii_normalize(text: str) -> str:
    """openai/evals' ``utils.normalize``: ASCII punctuation only."""
    text = text.lower().translate(str.maketrans("", "", string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def evals_fuzzy_match(answer: str, ideal: str) -> bool:
    a, b = ascii_normalize(answer), ascii_normalize(ideal)
    return a == b if not a or not b else (a in b or b in a)


def words_ascii_only(answer: str, ideal: str) -> bool:
    """contextrot's fuzzy rule before Unicode punctuation was stripped (issue 28)."""
    said, wanted = ascii_normalize(answer).split(), ascii_normalize(ideal).split()
    return bool(said and wanted) and any(
        said[i:i + len(wanted)] == wanted for i in range(len(said) - len(wanted) + 1))


def ideals() -> list[str]:
    found = []
    for name in SETS:
        for line in (data_dir() / "openai_evals" / name).read_text().splitlines():
            ideal = json.loads(line)["ideal"]
            found += ideal if isinstance(ideal, list) else [ideal]
    return found


def main() -> None:
    every = ideals()
    print(f"{len(every)} ideals x {len(FORMS)} forms = {len(every) * len(FORMS)} pairs")
    print(f"{'form':28} {'FuzzyMatch':>10} {'words, ASCII':>12} {'words, P*':>10}")
    totals = [0, 0, 0]
    for name, form in FORMS.items():
        pairs = [(form.format(ideal.strip()), ideal) for ideal in every]
        counts = [sum(evals_fuzzy_match(a, i) for a, i in pairs),
                  sum(words_ascii_only(a, i) for a, i in pairs),
                  sum(distractor_correct(a, i, "fuzzy") for a, i in pairs)]
        totals = [t + c for t, c in zip(totals, counts)]
        print(f"{name:28} {counts[0]:>10} {counts[1]:>12} {counts[2]:>10}")
    print(f"{'all':28} {totals[0]:>10} {totals[1]:>12} {totals[2]:>10}")


if __name__ == "__main__":
    main()
