"""Reading documents with extractous, normalisation, sentence boundaries."""

import pytest
from hypothesis import given, strategies as st

from benchmarks.continuation import text as texts


def test_normalise_changes_quotes_dashes_and_paragraphs():
    raw = ("\u201cWell,\u201d said she\u2014\nquite calm -- and \u2018sure\u2019."
           "\r\n\r\n\nNext  para\ufb01ne.")  # \ufb01 is the "fi" ligature: NFKC splits it
    assert texts.normalise(raw) == ('"Well," said she\u2014 quite calm \u2014 and \'sure\'.'
                                    "\n\nNext parafine.")


def test_normalise_without_blank_lines_keeps_one_paragraph_per_line():
    assert texts.normalise("One line.\nTwo line.\n") == "One line.\n\nTwo line."


@given(st.text(alphabet=st.sampled_from(list("ab .\n\u201c\u201d\u2019-\t")), max_size=80))
def test_normalise_is_idempotent_and_leaves_no_curly_quotes(raw):
    once = texts.normalise(raw)
    assert texts.normalise(once) == once
    assert not set(once) & set("\u201c\u201d\u2019\t") and "--" not in once


def test_sentence_ends_skip_titles_and_initials():
    body = 'Mr. Knightley met J. Smith. "Stop!" she cried. It was I. Then--'
    ends = texts.sentence_ends(body)
    assert [body[:e] for e in ends] == ['Mr. Knightley met J. Smith.',
                                       'Mr. Knightley met J. Smith. "Stop!"',
                                       'Mr. Knightley met J. Smith. "Stop!" she cried.',
                                       'Mr. Knightley met J. Smith. "Stop!" she cried. It was I.']


def test_windows_may_start_at_paragraph_breaks_too():
    body = "CHAPTER I\n\nShe came. He went"
    assert [body[:end] for end in texts.boundaries(body)] == ["CHAPTER I",
                                                             "CHAPTER I\n\nShe came."]


def _write_pdf(path, lines):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(8.5, 11))
    for i, line in enumerate(lines):
        fig.text(0.1, 0.9 - 0.05 * i, line, fontsize=12)
    fig.savefig(path, format="pdf")
    plt.close(fig)


@pytest.mark.parametrize("kind", ["txt", "html", "pdf"])
def test_extractous_reads_txt_html_and_pdf(tmp_path, kind):
    path = tmp_path / f"story.{kind}"
    if kind == "txt":
        path.write_text("It was a dark night.\n\nThe \u201cwind\u201d howled.\n", encoding="utf-8")
    elif kind == "html":
        path.write_text("<html><head><title>T</title></head><body><p>It was a dark night."
                        "</p><p>The \u201cwind\u201d howled.</p></body></html>", encoding="utf-8")
    else:
        _write_pdf(path, ["It was a dark night.", "The wind howled."])
    document = texts.load(str(path))
    assert document.name == "story" and not document.truncated
    assert "It was a dark night." in document.text
    assert "wind" in document.text and "\u201c" not in document.text
    assert texts.sentence_ends(document.text)


def test_extraction_that_hits_the_limit_is_reported(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("word " * 500)
    raw, truncated = texts.extract(path, limit=100)
    assert truncated and len(raw) == 100
    assert not texts.extract(path)[1]


def test_bad_inputs_say_what_to_do(tmp_path):
    with pytest.raises(texts.TextUnavailable, match="no such file"):
        texts.load(str(tmp_path / "missing.txt"))
    empty = tmp_path / "empty.txt"
    empty.write_text("   \n")
    with pytest.raises(texts.TextUnavailable, match="no text"):
        texts.load(str(empty))
    with pytest.raises(texts.TextUnavailable, match="not in NLTK"):
        texts.load("nltk:no-such-novel.txt")


def test_registered_plain_file_loads():
    document = texts.load("data:gutenberg/pride-and-prejudice.txt")
    assert document.name == "pride-and-prejudice"
    assert "Bennet" in document.text and "\u201c" not in document.text
