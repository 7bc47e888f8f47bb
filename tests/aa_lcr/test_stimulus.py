"""The card's prompt byte for byte, and the sweep: lengths filled within the tolerance, the
question's own documents kept in order, the same bytes on every build."""

from __future__ import annotations

import hashlib
import zipfile

import pytest

from benchmarks.aa_lcr import dataset, grid, miniature, stimulus
from fixtures.data.registry import REGISTRY, DataUnavailable
from fixtures.tokens.tokenizer import o200k

# The dataset card's template (README "Prompt Template", revision bdae010), as printed there
CARD_TEMPLATE = ('BEGIN INPUT DOCUMENTS\n\n{documents_text}\n\nEND INPUT DOCUMENTS\n\n'
                 'Answer the following question using the input documents provided above.\n\n'
                 'START QUESTION\n\n{question}\n\nEND QUESTION\n')


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = miniature.write(tmp_path_factory.mktemp("aa-lcr"))
    return (dataset.read_questions(folder / dataset.CSV_NAME, "fix"),
            dataset.Documents(folder / "extracted_text" / dataset.ZIP_NAME, "fix"))


def card_prompt(docs, question):
    """The card's own code, as its README prints it."""
    documents_text = "\n\n".join(f"BEGIN DOCUMENT {i + 1}:\n{doc}\nEND DOCUMENT {i + 1}"
                                 for i, doc in enumerate(docs))
    return CARD_TEMPLATE.format(documents_text=documents_text, question=question)


def test_the_prompt_is_the_cards_template_byte_for_byte(store):
    assert stimulus.PROMPT_TEMPLATE == CARD_TEMPLATE
    questions, documents = store
    for question in questions:
        own = documents.of(question)
        built = stimulus.native(question, own, o200k().count)
        assert built.prompt == card_prompt([d.text for d in own], question.question)
        assert built.prompt.startswith("BEGIN INPUT DOCUMENTS\n\nBEGIN DOCUMENT 1:\n")
        assert built.prompt.endswith(f"START QUESTION\n\n{question.question}\n\nEND QUESTION\n")


@pytest.mark.parametrize("length", [1024, 2048])
def test_the_sweep_fills_each_length_and_keeps_the_questions_documents_in_order(store, length):
    questions, documents = store
    count = o200k().count
    for question in questions:
        own = documents.of(question)
        built = stimulus.swept(question, own, documents.others(question), length, 0, count)
        assert stimulus.FILL_SHARE * length <= built.tokens <= length
        assert built.tokens == count(built.prompt)
        names = [d[2] for d in built.documents]
        assert [names[i] for i in built.own_positions] == list(question.filenames)
        fillers = [d for i, d in enumerate(built.documents) if i not in built.own_positions]
        assert fillers and all(d[:2] != question.document_set for d in fillers)
        assert len(set(built.documents)) == len(built.documents)  # whole documents, once each
        texts = {**{(*d.document_set, d.filename): d.text for d in documents.others(question)},
                 **{(*d.document_set, d.filename): d.text for d in own}}
        assert built.prompt == card_prompt([texts[d] for d in built.documents],
                                           question.question)


def test_the_sweep_is_the_same_on_every_build_and_moves_with_the_seed(store):
    questions, documents = store
    question = questions[0]
    own, others = documents.of(question), documents.others(question)
    first = stimulus.swept(question, own, others, 2048, 0, o200k().count)
    again = stimulus.swept(question, own, list(reversed(others))[::-1], 2048, 0,
                           o200k().count)
    assert first == again
    assert hashlib.sha256(miniature.zip_bytes()).digest() == \
        hashlib.sha256(miniature.zip_bytes()).digest()
    other_seed = stimulus.swept(question, own, others, 2048, 1, o200k().count)
    assert other_seed.documents != first.documents


def test_a_length_the_documents_alone_exceed_is_skipped_with_the_reason(store):
    questions, documents = store
    question = questions[0]
    with pytest.raises(stimulus.Skip, match="its own documents make .* more than 256"):
        stimulus.swept(question, documents.of(question), documents.others(question), 256, 0,
                       o200k().count)


def test_the_miniature_is_the_datasets_layout(tmp_path):
    folder = miniature.write(tmp_path)
    header = (folder / "AA-LCR_Dataset.csv").read_text().splitlines()[0]
    assert header.split(",") == list(dataset.COLUMNS)
    with zipfile.ZipFile(folder / "extracted_text" / "AA-LCR_extracted-text.zip") as archive:
        names = archive.namelist()
    assert all(n.startswith("lcr/") and len(n.split("/")) == 4 for n in names)
    assert len(names) == 16


def test_a_bad_row_is_one_line_naming_the_file_and_the_row(tmp_path):
    folder = miniature.write(tmp_path)
    path = folder / dataset.CSV_NAME
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], lines[1].replace(",1,", ",one,", 1)]) + "\n")
    with pytest.raises(DataUnavailable, match=r"AA-LCR_Dataset\.csv, line 2: question_id "
                                              r"'one' .* not a whole number; fix"):
        dataset.read_questions(path, "fix")
    path.write_text(lines[0] + "\n" + lines[1].replace("Northwind_Q2_2024.txt", "Gone.txt") + "\n")
    found = dataset.read_questions(path, "fix")
    store = dataset.Documents(folder / "extracted_text" / dataset.ZIP_NAME, "fix")
    with pytest.raises(DataUnavailable, match="question 1 names .*Gone.txt, which the zip lacks"):
        store.of(found[0])


def test_a_zip_name_without_the_utf8_flag_is_matched_in_nfc(tmp_path):
    path = tmp_path / "docs.zip"
    with zipfile.ZipFile(path, "w") as archive:
        info = zipfile.ZipInfo("lcr/Legal/Set_X/Re\u0301sume\u0301.txt")  # NFD
        archive.writestr(info, "text")
    question = dataset.Question(1, "Legal", "Set_X", "q", "a", ("R\u00e9sum\u00e9.txt",), 0)
    assert [d.text for d in dataset.Documents(path, "fix").of(question)] == ["text"]


def test_the_registry_declares_the_cards_two_files_user_fetched():
    for name in ("aa_lcr/AA-LCR_Dataset.csv", "aa_lcr/extracted_text/AA-LCR_extracted-text.zip"):
        entry = REGISTRY[name]
        assert entry.user_fetched and entry.optional and len(entry.sha256) == 64
        assert entry.url.startswith("https://huggingface.co/datasets/ArtificialAnalysis/AA-LCR/"
                                    "resolve/" + grid.REVISION)
        assert "Apache-2.0" in entry.license
