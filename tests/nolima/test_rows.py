"""Every entry of a needle set is checked where it is read: a task template with a field
nothing fills, a lone brace or no haystack, a needle no reply could ever match, an empty
name or gold answer that every reply contains, arguments that are not text: one line naming
the file, the entry and the fix (under --plan too), and nothing is sent. The broken sets are
the tests' own made-up set (helpers.SETS), broken one way each."""

from __future__ import annotations

import copy
import json
import re

import pytest

from benchmarks.nolima import needlesets
from fixtures.data.registry import DataUnavailable, read_checked
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import run_scripted
from .helpers import SETS, write_folder

FIX = "; replace it with NoLiMa's file"


def entry_with(**fields) -> dict:
    entry = copy.deepcopy(SETS["needle_set"][0])
    entry.update(fields)
    return entry


def changed_test(**fields) -> dict:
    entry = entry_with()
    entry["tests"]["T01"].update(fields)
    return entry


CASES = {  # name: (the broken entry, the problem the line names)
    "template-unknown-field": (entry_with(task_template="{haystack} {question} {bogus}"),
                               "entry 0101: 'task_template' has the field {bogus}, which "
                               "nothing fills (only {haystack}, {question})"),
    "template-lone-brace": (entry_with(task_template="{haystack} {question} {"),
                            "entry 0101: 'task_template' is not a format template (Single '{' "
                            "encountered in format string; a literal brace is written {{ or }})"),
    "template-without-haystack": (entry_with(task_template="Answer: {question}"),
                                  "entry 0101: 'task_template' has no {haystack}"),
    "template-positional-field": (entry_with(task_template="{haystack} {} {question}"),
                                  "entry 0101: 'task_template' has the field {}"),
    "needle-without-char-or-gold": (entry_with(needle="Someone has a cabin near the {1}."),
                                    "entry 0101, test 'T01': its needle has no {CHAR} and no "
                                    "'gold_answers': no reply could ever pass"),
    "gold-answer-empty": (changed_test(gold_answers=["Grindavik", ""]),
                          "entry 0101, test 'T01': 'gold_answers' holds empty text"),
    "gold-answers-one-text": (changed_test(gold_answers="Grindavik"),
                              "entry 0101, test 'T01': 'gold_answers' is one text"),
    "character-set-empty-name": (entry_with(character_set=["Bo", " "]),
                                 "entry 0101: 'character_set' holds empty text"),
    "question-a-number": (entry_with(questions={"onehop": 3}),
                          "entry 0101's questions: 'onehop' is a number (3), not text"),
    "input-arg-a-number": (changed_test(input_args=["Blue Lagoon", 7, "Iceland"]),
                           "entry 0101, test 'T01': 'input_args' holds a number (7)"),
    "placeholder-without-argument": (entry_with(needle="{CHAR} has a cabin near the {4}."),
                                     "entry 0101, test 'T01': its needle or question has {4} "
                                     "but 'input_args' has 3"),
}


def write_set(folder, entry) -> object:
    write_folder(folder, {"needle_set": [entry, *SETS["needle_set"][1:]]})
    return folder / "needlesets" / "needle_set.json"


@pytest.mark.parametrize("name", CASES)
def test_a_bad_entry_refuses_the_set_with_one_line(tmp_path, name):
    entry, problem = CASES[name]
    path = write_set(tmp_path, entry)
    with pytest.raises(DataUnavailable) as raised:
        read_checked(path, needlesets.load, "replace it with NoLiMa's file")
    line = str(raised.value)
    assert line.startswith(f"{path}: {problem}"), line
    assert line.endswith("replace it with NoLiMa's file") and "\n" not in line


def test_a_needle_without_char_passes_on_its_gold_answers_and_literal_braces_are_kept(
        tmp_path):
    entry = changed_test(gold_answers=["Grindavik"])
    entry.update(needle="Someone has a cabin near the {1}.",
                 task_template="{{note}} {haystack}\n{question}")
    path = write_set(tmp_path, entry)
    tests = read_checked(path, needlesets.load, "fix")
    mine = [t for t in tests if t.entry == "0101"]
    assert all(t.gold_answers == ("Grindavik",) and not t.draws_character for t in mine)
    assert mine[0].task_template.format(haystack="H", question="Q") == "{note} H\nQ"


@pytest.mark.parametrize("plan", [False, True])
@pytest.mark.parametrize("name", ["template-unknown-field", "template-lone-brace"])
def test_a_run_on_a_bad_template_is_one_line_and_sends_nothing(tmp_path, name, plan):
    entry, problem = CASES[name]
    path = write_set(tmp_path / "nolima", entry)
    with ScriptedServer("copy") as server:
        done = run_scripted("nolima", server.base_url, tmp_path / "results", "--scale", "full",
                            "--nolima-lengths", "250", "--nolima-dir", str(tmp_path / "nolima"),
                            *(["--plan"] if plan else []))
        sent = [r for r in server.requests if r.get("messages")]
    output = done.stdout + done.stderr
    assert done.returncode == 1, output[-3000:]
    assert re.search(rf"^nolima: {re.escape(str(path))}: {re.escape(problem)}"
                     rf"{re.escape(FIX)}", output, re.MULTILINE), output[-3000:]
    assert "Traceback" not in output and not sent
