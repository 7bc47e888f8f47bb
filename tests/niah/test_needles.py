"""The needle file: the shipped set's properties and the checks on a user's file."""

import json

import pytest

from benchmarks.texts import haystack
from benchmarks.niah import grid, needles


def test_shipped_set():
    questions = needles.load()
    assert len(questions) >= 2
    corpus = needles.normalise(haystack.corpus_text(True))
    for q in questions:
        assert len(q.needles) >= 3 and len(q.distractors) >= 4
        assert min(n.lexical_overlap for n in q.needles) == 0.0  # semantic needles
        assert q.needles[0].lexical_overlap <= 0.25
        for phrase in [a for n in q.needles for a in n.answers] + \
                [d.answer for d in q.distractors]:
            assert f" {needles.normalise(phrase)} " not in f" {corpus} ", phrase


def test_overlap():
    assert needles.lexical_overlap("What did the ferryman ask?", "The ferryman asked.") == 1.0
    assert needles.lexical_overlap("What did the ferryman ask?", "Old Hendrick rowed.") == 0.0


GOOD = {"format": needles.FORMAT, "questions": [{
    "id": "q", "question": "What colour is the door?",
    "needles": [{"id": "q1", "text": "The door was painted teal.", "answer": "teal"}],
    "distractors": [{"text": "The gate was red.", "answer": "red"}]}]}


def write(tmp_path, data):
    path = tmp_path / "needles.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_user_file_loads_and_gets_its_overlap(tmp_path):
    [question] = needles.load(write(tmp_path, GOOD))
    assert question.needles[0].lexical_overlap == 0.5  # "door" of {colour, door}


@pytest.mark.parametrize("change, message", [
    (lambda d: "{not json", "not valid JSON"),
    (lambda d: {**d, "format": "x"}, '"format"'),
    (lambda d: {**d, "questions": []}, "non-empty list"),
    (lambda d: _needle(d, answer="blue"), "must contain one of its answers"),
    (lambda d: _needle(d, id="Q-1"), "lower-case letters"),
    (lambda d: _needle(d, lexical_overlap=0.9), "stale"),
    (lambda d: _distractor(d, text="The gate was teal.", answer="teal"), "overlaps"),
])
def test_a_malformed_file_is_named_with_the_fix(tmp_path, change, message):
    with pytest.raises(needles.NeedleFileError, match=message):
        needles.load(write(tmp_path, change(json.loads(json.dumps(GOOD)))))


def _needle(data, **fields):
    data["questions"][0]["needles"][0].update(fields)
    return data


def _distractor(data, **fields):
    data["questions"][0]["distractors"][0].update(fields)
    return data


def test_select():
    questions = needles.load()
    assert [n.id for _, n in needles.select(questions, "default")] == ["ferry1", "flower1"]
    assert len(needles.select(questions, "all")) == 8
    assert [n.id for _, n in needles.select(questions, "flower3, ferry2")] == \
        ["flower3", "ferry2"]
    with pytest.raises(needles.NeedleFileError, match="unknown needle 'nope'"):
        needles.select(questions, "nope")


def test_grid_ids_and_sizes():
    full = grid.build("full", [("ferry", "ferry1")])
    assert len(full) == 2 * 3 * 8 * 11 * 5
    assert len({s.id for s in full}) == len(full)
    # the spec's test mode has 12 samples: here 3 lengths in each of the four conditions
    test = grid.build("test", [("ferry", "ferry1")])
    assert len(test) == 12 and len({s.length for s in test}) == 3
    sample = grid.NiahSample("seq", "ferry", "ferry1", 100_000, 50, 0, 0)
    assert sample.id == "seq-ferry1-ctx100k-d050-dx0-t00"
    assert [s.id for s in full if "ctx1k" in s.id] == \
        [s.id for s in full if s.length == 1_000]
    assert grid.NiahSample("shuf", "q", "n", 500, 0, 0, 3).shuffle_seed == 3042


def test_option_parsers():
    assert grid.parse_modes("shuf,seq") == ("shuf", "seq")
    assert grid.parse_counts("4,0,1", 4) == (0, 1, 4)
    for bad in ("", "x", "seq,foo"):
        with pytest.raises(ValueError, match="--niah-modes"):
            grid.parse_modes(bad)
    for bad in ("a", "-1", "5"):
        with pytest.raises(ValueError, match="--niah-distractors"):
            grid.parse_counts(bad, 4)
