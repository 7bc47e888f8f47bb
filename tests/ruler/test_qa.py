"""qa_1 and qa_2 on small files in SQuAD v2.0's and HotpotQA's formats, written here."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks.ruler import fitting, grid, qa, stimulus
from benchmarks.ruler.grid import RulerSample
from fixtures.tokens.tokenizer import o200k


def paragraph(article: int, number: int) -> str:
    return (f"Article {article}, paragraph {number}: " + "The river runs north past the old "
            f"mill and the bridge number {article * 100 + number}. " * 6).strip()


@pytest.fixture
def squad_file(tmp_path):
    data = {"version": "v2.0", "data": [
        {"title": f"Article {a}", "paragraphs": [
            {"context": paragraph(a, p), "qas": [
                {"id": f"{a}-{p}-0", "question": f"Which bridge is in article {a} part {p}?",
                 "answers": [{"text": f"bridge number {a * 100 + p}", "answer_start": 0},
                             {"text": f"{a * 100 + p}", "answer_start": 0}],
                 "is_impossible": False},
                {"id": f"{a}-{p}-1", "question": "What is unanswerable?", "answers": [],
                 "plausible_answers": [{"text": "x", "answer_start": 0}],
                 "is_impossible": True}]}
            for p in range(5)]}
        for a in range(40)]}
    path = tmp_path / "dev-v2.0.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def hotpot_file(tmp_path):
    data = [{"_id": f"q{i}", "question": f"Who built tower {i}?", "answer": f"Builder {i}",
             "type": "bridge", "level": "hard", "supporting_facts": [[f"Tower {i}", 0]],
             "context": [[f"Tower {i + j}", [f"Tower {i + j} was built by Builder {i + j}.",
                                             " It is tall, grey and old." * 12]]
                         for j in range(10)]}
            for i in range(60)]
    path = tmp_path / "hotpot_dev_distractor_v1.json"
    path.write_text(json.dumps(data))
    return path


def test_squad_is_read_as_ruler_reads_it(squad_file):
    data = qa.read_squad(squad_file)
    assert len(data.documents) == 200 and list(data.documents) == sorted(data.documents)
    assert len(data.questions) == 200  # the unanswerable ones are dropped
    first = data.questions[0]
    assert first["query"] == "Which bridge is in article 0 part 0?"
    assert first["outputs"] == ["bridge number 0", "0"]
    assert data.documents[first["context"][0]] == paragraph(0, 0)
    assert sorted(data.documents[i] for i in first["more"]) == sorted(
        paragraph(0, p) for p in range(1, 5))


def test_hotpotqa_documents_are_title_newline_sentences(hotpot_file):
    data = qa.read_hotpotqa(hotpot_file)
    assert "Tower 3\nTower 3 was built by Builder 3." + " It is tall, grey and old." * 12 \
        in data.documents
    assert len(data.documents) == 69  # unique over the questions
    assert data.questions[5]["outputs"] == ["Builder 5"] and len(data.questions[5]["context"]) == 10


@pytest.mark.parametrize("task, reader, fixture", [
    ("qa_1", qa.read_squad, "squad_file"), ("qa_2", qa.read_hotpotqa, "hotpot_file")])
@pytest.mark.parametrize("length", [2048, 4096])
def test_qa_prompts_hold_the_gold_documents_and_fit(task, reader, fixture, length, request):
    data = reader(request.getfixturevalue(fixture))
    fitted = fitting.build(RulerSample(task, length, 7), o200k(), data, "per-sample")
    prompt = fitted.prompt
    question = data.questions[7]
    assert prompt.outputs == tuple(question["outputs"])
    assert prompt.answer_prefix == " Answer:"
    context = prompt.input.split("The following are given documents.\n\n", 1)[1].split(
        "\n\nAnswer the question based on the given documents.", 1)[0]
    documents = re.split(r"\n\n(?=Document \d+:\n)", context)
    assert [d.split(":\n", 1)[0] for d in documents] == [
        f"Document {i + 1}" for i in range(len(documents))]
    shown = [d.split(":\n", 1)[1] for d in documents]
    assert len(shown) == fitted.size == len(set(shown))
    for gold in question["context"]:
        assert data.documents[gold] in shown
    assert prompt.input == stimulus.QA_TEMPLATE.format(context=context, query=question["query"])
    budget = length - grid.TASKS[task].tokens_to_generate
    assert o200k().count(prompt.text) <= budget
    maker = stimulus.QaMaker(grid.TASKS[task], length, RulerSample(task, length, 7).seed, data, 7)
    longer = maker.prompt(fitted.size + stimulus.increment(grid.TASKS[task], length))
    assert o200k().count(longer.text) > budget


def test_squad_fills_with_its_own_article_first(squad_file):
    data = qa.read_squad(squad_file)
    maker = stimulus.QaMaker(grid.TASKS["qa_1"], 4096, "seed", data, 0)
    assert sorted(maker.documents(5)) == sorted(paragraph(0, p) for p in range(5))
    assert sum(d.startswith("Article 0,") for d in maker.documents(12)) == 5


def test_gold_documents_keep_their_slots_for_a_given_size(hotpot_file):
    """RULER's fixed-seed shuffle: for a given n, the gold documents land at the same
    positions in every sample."""
    data = qa.read_hotpotqa(hotpot_file)
    slots = []
    for index in (3, 20):
        maker = stimulus.QaMaker(grid.TASKS["qa_2"], 4096, f"s{index}", data, index)
        chosen = maker.documents(25)
        slots.append([chosen.index(data.documents[i]) for i in data.questions[index]["context"]])
    assert slots[0] == slots[1]
