"""A small folder in NoLiMa's layout, with made-up content (never NoLiMa's own data), and an
independent construction of NoLiMa's prompts from the spec, to check the experiment against."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

NAMES = ["Wilhelmina", "Bo", "Ottokar", "Xiu", "Radomir", "Ayo"]
SETS = {
    "needle_set": [
        {"id": "0101", "needle": "Actually, {CHAR} has a cabin near the {1}.",
         "questions": {"onehop": "Which character has been to {2}?",
                       "twohop": "Which character has been to {3}?"},
         "tests": {"T01": {"input_args": ["Blue Lagoon", "Grindavik", "Iceland"]}},
         "character_set": NAMES, "system_prompt": "You are a helpful assistant"},
        {"id": "0217", "needle": "{CHAR} once repaired the {1} single-handed.",
         "questions": {"onehop": "Which character knows {2} well?"},
         "tests": {"T01": {"input_args": ["old mill wheel", "water power"]},
                   "T02": {"input_args": ["church organ", "pipes and bellows"]}},
         "character_set": NAMES[:3], "system_prompt": "You are a helpful assistant"},
    ],
    "needle_set_ONLYDirect": [
        {"id": "0101", "needle": "Actually, {CHAR} has a cabin near the {1}.",
         "questions": {"direct": "Which character has a cabin near the {1}?"},
         "tests": {"T01": {"input_args": ["Blue Lagoon", "Grindavik", "Iceland"]}},
         "character_set": NAMES, "system_prompt": "You are a helpful assistant"},
    ],
}
WORDS = ("lantern meadow quietly harbour copper window whistle orchard thunder velvet "
         "pebble saddle gravel marble ribbon candle").split()


def book(seed: int, lines: int = 260) -> str:
    """Made-up text: lines of random words, a few of them with accents and a blank line."""
    rng = random.Random(seed)
    out = []
    for number in range(lines):
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 30))]
        if number % 17 == 3:
            words.append("café — naïve")
        out.append(" ".join(words).capitalize() + ".")
        if number % 40 == 39:
            out.append("")
    return "\n".join(out) + "\n"


def write_folder(folder: Path, sets: dict | None = None, books: int = 2) -> Path:
    (folder / "needlesets").mkdir(parents=True, exist_ok=True)
    for stem, entries in (sets or SETS).items():
        (folder / "needlesets" / f"{stem}.json").write_text(json.dumps(entries, indent=1))
    haystacks = folder / "haystack" / "rand_shuffle"
    haystacks.mkdir(parents=True, exist_ok=True)
    for n in range(1, books + 1):
        (haystacks / f"rand_book_{n}.txt").write_text(book(n), encoding="utf-8")
    return folder


TEMPLATE = ("You will answer a question based on the following book snippet:\n\n{haystack}\n\n"
            "Use the information provided in the book snippet to answer the question. Your "
            "answer should be short and based on either explicitly stated facts or strong, "
            "logical inferences.\n\nQuestion: {question}\n\n Return only the final answer "
            "with no additional explanation or reasoning.")


def reference_prompts(folder: Path, stems, lengths, encoding) -> list[tuple[str, str]]:
    """(system, user) of every test, haystack, depth and length, by the spec (section 2),
    written here without the experiment's code: plain loops over lists."""
    prompts = []
    books = sorted((folder / "haystack" / "rand_shuffle").glob("*.txt"))
    for stem in stems:
        entries = json.loads((folder / "needlesets" / f"{stem}.json").read_text())
        for entry in entries:
            for qtype, question in entry["questions"].items():
                for test in entry["tests"].values():
                    needle, asked = entry["needle"], question
                    for k, arg in enumerate(test["input_args"], start=1):
                        needle = needle.replace("{%d}" % k, arg)
                        if "{%d}" % k in question:
                            asked = question.replace("{%d}" % k, arg)
                    for index, path in enumerate(books):
                        text = path.read_text(encoding="utf-8")
                        tokens = encoding.encode(text)
                        valid = [0] + [i for i, t in enumerate(tokens)
                                       if "\n" in encoding.decode([t])]
                        for length in lengths:
                            np.random.seed(42 + int(entry["id"][:4]) + index)
                            for step in range(26):
                                depth = (4 * step) / 100
                                name = str(np.random.choice(entry["character_set"]))
                                p = next(v for v in valid if v / (length + 1) >= depth)
                                start = p - int(round(length * depth))
                                pre = encoding.decode(tokens[start:p + 1])
                                pre = pre[:max(pre.rfind("\n"), 0)]
                                post = encoding.decode(tokens[p + 1:start + length])
                                haystack = (pre + " " + needle.replace("{CHAR}", name) + "\n"
                                            + post)
                                prompts.append(("You are a helpful assistant", TEMPLATE.format(
                                    haystack=haystack,
                                    question=asked.replace("{CHAR}", name))))
    return prompts
