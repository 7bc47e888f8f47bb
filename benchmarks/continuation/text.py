"""The input text: where it comes from, how it is normalised, where its sentences end.

Any document extractous reads (txt, html, pdf, epub, docx...) can be continued; the default
is a Gutenberg novel from NLTK's corpus. Unlike the original (Context-Tester), nothing is cut
silently: extraction that reaches its character limit is reported as truncated, and the text
is never repeated to fill a tier. Normalisation changes exactly what it says (the original's
quote normalisation replaced nothing).
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from pathlib import Path

from fixtures.data.registry import REGISTRY, DataUnavailable, data_file, use_nltk_data

DEFAULT_TEXT = "nltk:austen-emma.txt"
# extractous stops at this many characters; reaching it is reported as a truncation.
EXTRACT_LIMIT_CHARS = 200_000_000


class TextUnavailable(DataUnavailable, ValueError):
    """The --continuation-text value names nothing readable; the message says the fix.

    Raised at collection for what is cheap to check (``document_name``); a text that only
    fails when read (a missing NLTK file, an unreadable PDF) fails its samples with this line.
    """


@dataclasses.dataclass(frozen=True)
class Document:
    name: str  # short label for records and plots, e.g. "austen-emma"
    source: str  # what --continuation-text said
    text: str  # normalised
    raw_chars: int  # characters before normalisation
    truncated: bool  # extraction stopped at its limit: the end of the document is missing


# -- reading -------------------------------------------------------------------------------
def document_name(source: str) -> str:
    """The document's short label, from ``--continuation-text`` alone: collection needs no
    more, so a run that deselects this experiment never reads (or tokenizes) the text."""
    kind, _, rest = source.partition(":")
    if kind == "nltk" and rest:
        return Path(rest).stem
    if kind == "data" and rest:
        if rest not in REGISTRY:
            raise TextUnavailable(f"--continuation-text {source}: {rest!r} is not in the data "
                                  "registry (fixtures/data/registry.py); give a registered name")
        return Path(rest).stem
    path = Path(source).expanduser()
    if not path.is_file():
        problem = "a folder, not a document" if path.is_dir() else "no such file"
        raise TextUnavailable(
            f"--continuation-text {source}: {problem}; give a readable document path, "
            f"nltk:<gutenberg file id> or data:<registered file> (default {DEFAULT_TEXT})")
    return path.stem


def load(source: str, limit: int = EXTRACT_LIMIT_CHARS) -> Document:
    """``nltk:<fileid>`` (NLTK Gutenberg), ``data:<registry name>`` or a file path."""
    name = document_name(source)
    kind, _, rest = source.partition(":")
    if kind == "nltk" and rest:
        raw, truncated = _nltk_gutenberg(rest), False
    elif kind == "data" and rest:
        try:
            path = data_file(rest)
        except DataUnavailable as error:
            raise TextUnavailable(f"--continuation-text {source}: {error}") from None
        raw, truncated = extract(path, limit)
    else:
        raw, truncated = extract(Path(source).expanduser(), limit)
    text = normalise(raw)
    if not text.strip():
        raise TextUnavailable(f"--continuation-text {source}: no text could be extracted; "
                              "give a document with prose in it")
    return Document(name=name, source=source, text=text, raw_chars=len(raw),
                    truncated=truncated)


def extract(path: Path, limit: int = EXTRACT_LIMIT_CHARS) -> tuple[str, bool]:
    """The document's text by extractous, and whether it reached the character limit."""
    from extractous import Extractor

    try:
        raw, _metadata = Extractor().set_extract_string_max_length(limit) \
            .extract_file_to_string(str(path))
    except Exception as error:  # extractous raises its own error types for unreadable files
        raise TextUnavailable(f"--continuation-text {path}: extractous could not read it "
                              f"({type(error).__name__}: {error}); give a txt, html, pdf, "
                              "epub or docx document") from None
    return raw, len(raw) >= limit


def _nltk_gutenberg(fileid: str) -> str:
    use_nltk_data()
    from nltk.corpus import gutenberg

    try:
        return gutenberg.raw(fileid)
    except (LookupError, OSError, ValueError) as error:
        raise TextUnavailable(f"--continuation-text nltk:{fileid}: not in NLTK's Gutenberg "
                              f"corpus ({type(error).__name__}); e.g. nltk:austen-emma.txt, "
                              "with NLTK_DATA pointing at the data folder") from None


# -- normalisation -------------------------------------------------------------------------
_DOUBLE_QUOTES = dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033"), '"')
_SINGLE_QUOTES = dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032"), "'")
_EM_DASHES = re.compile(r"-{2,}|\u2015|\u2e3a|\u2e3b")  # "--", horizontal bar, 2- and 3-em
_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n")
_SPACES = re.compile(r"\s+")


def normalise(raw: str) -> str:
    """NFKC; curly quotes to straight; ``--`` and long bars to an em dash; paragraphs.

    Paragraphs are separated by blank lines in the input (hard-wrapped lines inside one are
    joined with a space); a text without any blank line (extractous's HTML output) has one
    paragraph per line. The result has one blank line between paragraphs and single spaces.
    """
    text = unicodedata.normalize("NFKC", raw)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n") \
        .replace("\u2029", "\n\n")
    text = text.translate(_DOUBLE_QUOTES).translate(_SINGLE_QUOTES)
    text = _EM_DASHES.sub("\u2014", text)
    blocks = _BLANK_LINE.split(text) if _BLANK_LINE.search(text) else text.split("\n")
    paragraphs = [_SPACES.sub(" ", block).strip() for block in blocks]
    return "\n\n".join(p for p in paragraphs if p)


# -- sentence boundaries -------------------------------------------------------------------
# A sentence ends at . ! ? (or a run of them), with any closing quotes or brackets, before
# whitespace or the end of the text. A single "." after a title or an initial is not an end.
_SENTENCE_END = re.compile(r"([.!?]+)[\"')\]]*(?=\s|$)")
ABBREVIATIONS = frozenset(
    "mr mrs ms dr st messrs mme mlle rev revd col capt gen lt sgt jr sr esq vs etc viz "
    "prof hon gov sen rep no vol ch fig".split())
_WORD_BEFORE = re.compile(r"([A-Za-z]+)$")


def sentence_ends(text: str) -> list[int]:
    """Character positions just after each sentence end (the index of what follows it)."""
    ends = []
    for match in _SENTENCE_END.finditer(text):
        before = text[max(match.start() - 32, 0):match.start()]  # never copy the whole prefix
        if match.group(1) == "." and _is_abbreviation(before):
            continue
        ends.append(match.end())
    return ends


def _is_abbreviation(before: str) -> bool:
    word = _WORD_BEFORE.search(before)
    if word is None:
        return False
    token = word.group(1)
    # an initial ("J. Smith"), but not the pronoun that ends "... than I."
    return token.lower() in ABBREVIATIONS or (len(token) == 1 and token.isupper()
                                              and token != "I")


def boundaries(text: str) -> list[int]:
    """Sentence ends and paragraph breaks: the places a window may start or end."""
    found = set(sentence_ends(text))
    found.update(match.start() for match in re.finditer(r"\n\n", text))
    return sorted(found)
