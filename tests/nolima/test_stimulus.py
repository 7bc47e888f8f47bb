"""Stimuli built as NoLiMa builds them, checked against independent constructions from the
spec (helpers.py); the distractor variant; contextrot's own sets and haystacks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks.nolima import grid, haystacks, needlesets, placement, stimulus
from fixtures.tokens.tokenizer import o200k

from .helpers import NAMES, TEMPLATE, book, write_folder

DISTRACTED = [{
    "id": "0330", "needle": "{CHAR} keeps a sketchbook of the {1}.",
    "questions": {"onehop": "Which character has drawn {2}?"},
    "tests": {"T01": {"input_args": ["Rialto Bridge", "Venice"]}},
    "distractors": {"onehop": "There was a famous painting of {2} in the hall."},
    "character_set": NAMES, "system_prompt": "You are a helpful assistant"}]


def reference_with_distractor(text: str, entry: dict, length: int, index: int) -> list[str]:
    """The spec's distractor variant (section 2), written out for one test and haystack."""
    enc = o200k()._encoding
    tokens = enc.encode(text)
    valid = [0] + [i for i, t in enumerate(tokens) if "\n" in enc.decode([t])]

    def put(needle: str, depth: float) -> str:
        p = next(v for v in valid if v / (length + 1) >= depth)
        start = p - int(round(length * depth))
        pre = enc.decode(tokens[start:p + 1])
        pre = pre[:max(pre.rfind("\n"), 0)]
        return pre + " " + needle + "\n" + enc.decode(tokens[p + 1:start + length])

    args = entry["tests"]["T01"]["input_args"]
    needle = entry["needle"].replace("{1}", args[0])
    question = entry["questions"]["onehop"].replace("{2}", args[1])
    distractor = entry["distractors"]["onehop"].replace("{2}", args[1])
    np.random.seed(42 + 330 + index)
    users = []
    for step in range(26):
        depth = 4 * step / 100
        name = str(np.random.choice(NAMES))
        left, right = max(0, depth - 0.4), max(0, 1 - (depth + 0.4))
        where = np.random.uniform(0, left + right)
        where = depth + 0.2 + (where - left) if where > left else where + 0.2
        if length < 500:
            where = 0.7 if depth < 0.6 else 0.6 if depth > 0.75 else 0.5
        alone = put(distractor, where)
        at = alone.index(distractor)
        key = alone[max(at - (25 if length < 500 else 50), 0):at - 1]
        placed = put(needle.replace("{CHAR}", name), depth)
        cut = placed.index(key) + (23 if length < 500 else 49)
        haystack = placed[:cut] + " " + distractor + "\n" + placed[cut:]
        users.append(TEMPLATE.format(haystack=haystack, question=question))
    return users


@pytest.mark.parametrize("length", [250, 1000])
def test_the_distractor_variant_is_nolimas(tmp_path, length):
    folder = write_folder(tmp_path, {"needle_set_w_Distractor": DISTRACTED}, books=1)
    (test,) = needlesets.load(folder / "needlesets" / "needle_set_w_Distractor.json")
    assert test.distractor == "There was a famous painting of Venice in the hall."
    built = []
    for k, depth in enumerate(grid.DEPTHS):
        sample = grid.NolimaSample("needle_set_w_Distractor", "nolima", False, test.name,
                                   "onehop", "rand_book_1", 0, length, depth, k)
        try:
            built.append(stimulus.build(sample, test, folder, o200k()).messages[1]["content"])
        except placement.PlacementFailed as failed:  # NoLiMa stops there too
            built.append(str(failed))
    assert built == reference_with_distractor(book(1), DISTRACTED[0], length, 0)


def test_placeholders_are_filled_as_nolima_fills_them():
    """The question is filled from the original each time: only its last placeholder present
    is filled (NoLiMa's quirk, kept); the needle takes every one."""
    entry = {"id": "0007x", "needle": "{CHAR} saw {1} and {2}.",
             "questions": {"q": "Who saw {1} and {2}?"},
             "tests": {"T1": {"input_args": ["owls", "bats"]}},
             "character_set": ["Bo"], "system_prompt": ""}
    (test,) = needlesets._expand(entry, 0)
    assert test.needle == "{CHAR} saw owls and bats." and test.question == "Who saw {1} and bats?"
    assert test.name == "0007x_T1_q" and test.seed == 49 and test.distractor is None


@pytest.mark.parametrize("entry, problem", [
    ({"id": "x1", "needle": "", "questions": {"q": ""}, "tests": {"T": {"input_args": []}},
      "system_prompt": ""}, "does not start with four digits"),
    ({"id": "0001", "needle": "{CHAR}", "questions": {"q": "?"},
      "tests": {"T": {"input_args": []}}, "system_prompt": ""}, "no 'character_set'"),
    ({"id": "0001", "needle": "n", "questions": {"q": "?"},
      "tests": {"T": {"input_args": [], "gold_answers": "Paris"}}, "system_prompt": ""},
     "'gold_answers' is one text"),
])
def test_a_bad_entry_is_refused_with_what_is_wrong(entry, problem):
    with pytest.raises(ValueError, match=problem):
        needlesets._expand(entry, 0)


def test_contextrots_sets_are_twins_and_their_haystacks_never_name_a_character_or_answer():
    latent = json.loads(needlesets.OWN_SETS["contextrot_latent"].read_text())
    literal = json.loads(needlesets.OWN_SETS["contextrot_literal"].read_text())
    assert [(e["id"], e["needle"], e["tests"]) for e in latent] == \
        [(e["id"], e["needle"], e["tests"]) for e in literal]
    assert all(set(e["questions"]) == {"onehop", "twohop"} for e in latent)
    assert all(set(e["questions"]) == {"direct"} for e in literal)
    forbidden = stimulus.own_forbidden()
    for name in haystacks.OWN_HAYSTACKS:
        text = haystacks.own_text(name, forbidden)
        assert len(o200k().encode(text)) > 32_001 + 192  # NoLiMa's longest length fits
        lower = f" {text.lower()} "
        for word in forbidden:
            plain = haystacks.ARTICLE.sub("", word).lower()
            assert not any(f"{a}{plain}{b}" in lower for a in " \n\"'(" for b in " \n.,;:!?'\""), word
