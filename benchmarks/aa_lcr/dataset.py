"""The card's files: ``AA-LCR_Dataset.csv`` (the questions) and ``AA-LCR_extracted-text.zip``
(the documents as text), read as Artificial Analysis lays them out.

The CSV has one row per question: ``document_category``, ``document_set_id``,
``question_id``, ``question``, ``answer``, ``data_source_filenames`` (the question's documents,
``;``-separated, in the order the prompt loads them), ``data_source_urls`` and
``input_tokens`` (the completed prompt in cl100k_base tokens). The zip holds each document at
``lcr/{document_category}/{document_set_id}/{filename}``. Some of its names are stored without
the zip's UTF-8 flag and some in another Unicode normal form than the CSV's: a name is
matched after decoding it as the zip wrote it and normalising both to NFC.

Every row is checked where it is read: a missing column, an empty question or answer, a
question id that is not a whole number or repeats, a document the zip lacks: one line naming
the file, the row and the fix (``DataUnavailable``), never a sample built from half a row.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import unicodedata
import zipfile
from pathlib import Path

from fixtures.data.registry import DataUnavailable

CSV_NAME = "AA-LCR_Dataset.csv"
ZIP_NAME = "AA-LCR_extracted-text.zip"
ZIP_ROOT = "lcr"
COLUMNS = ("document_category", "document_set_id", "question_id", "question", "answer",
           "data_source_filenames", "data_source_urls", "input_tokens")
UTF8_FLAG = 0x800  # the zip's "names are UTF-8" bit


@dataclasses.dataclass(frozen=True)
class Question:
    question_id: int
    category: str
    set_id: str
    question: str
    answer: str
    filenames: tuple[str, ...]  # in the order the prompt loads them
    input_tokens: int  # the card's count of the completed prompt (cl100k_base)

    @property
    def document_set(self) -> tuple[str, str]:
        return self.category, self.set_id


@dataclasses.dataclass(frozen=True)
class Document:
    document_set: tuple[str, str]  # (category, set id)
    filename: str
    text: str


def read_questions(path: Path, fix: str) -> list[Question]:
    """The CSV's rows in file order, each checked."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise DataUnavailable(f"{path}: cannot be read as UTF-8 text ({error}); {fix}") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    absent = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
    if absent:
        raise DataUnavailable(f"{path}: no column {', '.join(absent)} (not AA-LCR's questions "
                              f"file?); {fix}")
    found, seen = [], set()
    for number, row in enumerate(reader, start=2):  # line 1 is the header
        where = f"{path}, line {number}"
        try:
            qid = int(str(row["question_id"]).strip())
            tokens = int(str(row["input_tokens"]).strip().replace(",", "") or 0)
        except ValueError:
            raise DataUnavailable(f"{where}: question_id {row['question_id']!r} or "
                                  f"input_tokens {row['input_tokens']!r} is not a whole "
                                  f"number; {fix}") from None
        names = tuple(n for n in (row["data_source_filenames"] or "").split(";") if n)
        for column in ("document_category", "document_set_id", "question", "answer"):
            if not (row[column] or "").strip():
                raise DataUnavailable(f"{where}: empty {column}; {fix}")
        if not names:
            raise DataUnavailable(f"{where}: no data_source_filenames; {fix}")
        if qid in seen:
            raise DataUnavailable(f"{where}: question_id {qid} repeats; {fix}")
        seen.add(qid)
        found.append(Question(qid, row["document_category"], row["document_set_id"],
                              row["question"], row["answer"], names, tokens))
    if not found:
        raise DataUnavailable(f"{path}: no questions; {fix}")
    return found


def member_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its writer meant it, in NFC."""
    name = info.filename
    if not info.flag_bits & UTF8_FLAG:
        try:  # zipfile read it as cp437; an encoder that wrote UTF-8 without the flag
            name = name.encode("cp437").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
    return unicodedata.normalize("NFC", name)


class Documents:
    """The zip's documents by (category, set id, filename), read once per process."""

    def __init__(self, path: Path, fix: str):
        self.path, self.fix = path, fix
        try:
            with zipfile.ZipFile(path) as archive:
                self._texts = {}
                for info in archive.infolist():
                    parts = member_name(info).split("/")
                    if info.is_dir() or len(parts) != 4 or parts[0] != ZIP_ROOT:
                        continue
                    self._texts[tuple(parts[1:])] = archive.read(info).decode("utf-8")
        except (OSError, zipfile.BadZipFile, UnicodeDecodeError) as error:
            raise DataUnavailable(f"{path}: not AA-LCR's documents zip ({error}); {fix}") \
                from None
        if not self._texts:
            raise DataUnavailable(f"{path}: no document under {ZIP_ROOT}/CATEGORY/SET/; {fix}")

    def texts(self) -> dict[str, str]:
        """Every document's text by ``category/set/filename``."""
        return {"/".join(key): text for key, text in self._texts.items()}

    def of(self, question: Question) -> list[Document]:
        """The question's documents, in its order."""
        found = []
        for name in question.filenames:
            key = (question.category, question.set_id, unicodedata.normalize("NFC", name))
            if key not in self._texts:
                raise DataUnavailable(
                    f"{self.path}: question {question.question_id} names {'/'.join(key)}, "
                    f"which the zip lacks; {self.fix}")
            found.append(Document(question.document_set, name, self._texts[key]))
        return found

    def others(self, question: Question) -> list[Document]:
        """Every document of the other document sets, sorted by set and name (the sweep's
        filler, in an order that is the same on any machine)."""
        return [Document((category, set_id), name, text)
                for (category, set_id, name), text in sorted(self._texts.items())
                if (category, set_id) != question.document_set]
