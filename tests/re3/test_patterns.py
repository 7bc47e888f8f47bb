"""The configuration builder: all 14 patterns assemble to exact strings."""

import pytest

from benchmarks.re3 import patterns
from benchmarks.re3.patterns import CONFIGURATIONS, assemble, parse_separator

RE2 = "\n\nRead the question again: "
EXPECTED = {  # A = "q?", B = "Q!", with RE2's cue between repeats
    "C01": "q?",
    "C02": "Q!",
    "C03": f"q?{RE2}q?",
    "C04": f"q?{RE2}Q!",
    "C05": f"Q!{RE2}q?",
    "C06": f"Q!{RE2}Q!",
    "C07": f"q?{RE2}q?{RE2}q?",
    "C08": f"q?{RE2}q?{RE2}Q!",
    "C09": f"q?{RE2}Q!{RE2}q?",
    "C10": f"q?{RE2}Q!{RE2}Q!",
    "C11": f"Q!{RE2}q?{RE2}q?",
    "C12": f"Q!{RE2}q?{RE2}Q!",
    "C13": f"Q!{RE2}Q!{RE2}q?",
    "C14": f"Q!{RE2}Q!{RE2}Q!",
}


def test_the_fourteen_configurations_of_the_spec():
    assert [c.config_id for c in CONFIGURATIONS] == [f"C{i:02d}" for i in range(1, 15)]
    assert [c.pattern for c in CONFIGURATIONS] == [
        "A", "B", "AA", "AB", "BA", "BB", "AAA", "AAB", "ABA", "ABB", "BAA", "BAB", "BBA", "BBB"]
    # every string of A and B up to length 3, once
    assert len({c.pattern for c in CONFIGURATIONS}) == 2 + 4 + 8


@pytest.mark.parametrize("configuration", CONFIGURATIONS, ids=lambda c: c.config_id)
def test_assembly_is_exact(configuration):
    assert assemble(configuration.pattern, "q?", "Q!", parse_separator(None)) == \
        EXPECTED[configuration.config_id]


def test_separator_presets_and_literals():
    assert parse_separator("re2") == RE2
    assert parse_separator("verbose") == " Let me repeat that: "
    assert parse_separator("none") == ""
    assert parse_separator("\\n--\\n") == "\n--\n"
    assert assemble("ABA", "a", "b", parse_separator("verbose")) == \
        "a Let me repeat that: b Let me repeat that: a"
    assert assemble("AA", "a", "b", "") == "aa"  # Leviathan et al.'s plain <QUERY><QUERY>


@pytest.mark.parametrize("pattern", ["", "AC", "ab"])
def test_a_bad_pattern_is_refused(pattern):
    with pytest.raises(ValueError, match="pattern"):
        assemble(pattern, "a", "b", "")


def test_references():
    assert patterns.BY_ID[patterns.BASELINE].pattern == "A"
    assert patterns.BY_ID[patterns.RE2].pattern == "AA"
