"""Chroma's 306 LongMemEval rows: a focused and a full prompt per question, sent unchanged.

Two layouts are read, from parquet, CSV or JSONL:

- openbench's (the Hugging Face copy ``kellyhongg/cleaned-longmemeval-s``): one row per
  question with ``question``, ``answer``, ``focused_input``, ``full_input``,
  ``focused_input_tokens``, ``full_input_tokens`` (and ``custom_id``);
- Chroma's own CSVs (``cleaned_longmemeval_s_{focused,full}.csv``): the prompt column is
  ``focused_prompt`` or ``full_prompt``, the count ``token_count``; give both files
  (``--longmemeval-file`` twice) and their rows are joined on ``custom_id``.

A ``question_type`` column is read where a file has one (neither layout does; a question's
type then reads ``unknown``). The default file is the registry's copy of the Hugging Face
parquet (``longmemeval/cleaned-longmemeval-s.parquet``); a file given on the command line is
read as is.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

REGISTRY_NAME = "longmemeval/cleaned-longmemeval-s.parquet"
PROMPTS = {"focused": ("focused_input", "focused_prompt"), "full": ("full_input", "full_prompt")}
COUNTS = {"focused": "focused_input_tokens", "full": "full_input_tokens"}
IDS = ("custom_id", "question_id")
FIX = ("give Chroma's LongMemEval rows: question, answer and focused_input/full_input "
       "(openbench's parquet, CSV or JSONL) or focused_prompt/full_prompt (Chroma's CSVs)")
UNKNOWN_TYPE = "unknown"


@dataclasses.dataclass(frozen=True)
class Row:
    question_id: str
    question_type: str
    question: str
    answer: str
    prompts: tuple[tuple[str, str], ...]  # (condition, prompt), focused first
    tokens: tuple[tuple[str, int], ...]  # (condition, the file's count), where it has one

    def prompt(self, condition: str) -> str:
        return dict(self.prompts)[condition]

    def count(self, condition: str) -> int | None:
        return dict(self.tokens).get(condition)


def read_table(path: Path) -> list[dict]:
    """A file's rows as dicts, by its suffix; empty and column-less files refused."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        rows = pq.read_table(path).to_pylist()
    elif suffix == ".csv":
        import pandas as pd

        rows = pd.read_csv(path, dtype=str, keep_default_na=False).to_dict("records")
    elif suffix in (".jsonl", ".json"):
        import pandas as pd

        rows = pd.read_json(path, lines=suffix == ".jsonl", dtype=False).to_dict("records")
    else:
        raise ValueError(f"not a .parquet, .csv or .jsonl file ({suffix or 'no suffix'})")
    if not rows:
        raise ValueError("no rows")
    columns = set(rows[0])
    lacking = [c for c in ("question", "answer") if c not in columns]
    if not any(name in columns for names in PROMPTS.values() for name in names):
        lacking.append("focused_input/full_input or focused_prompt/full_prompt")
    if lacking:
        raise ValueError(f"not LongMemEval rows (no {', '.join(lacking)} column)")
    return rows


def _rows_of(path: Path) -> dict[str, dict]:
    """One file's questions by id: question, answer, type, prompts and counts."""
    from fixtures.data.registry import read_checked

    return read_checked(path, lambda p: _questions(read_table(p)), FIX)


def _questions(table: list[dict]) -> dict[str, dict]:
    """Each row checked (fixtures/data/rows.py): a question, an answer and each prompt that are
    text (never null, NaN or empty: pandas would make them "nan"), counts that are whole
    numbers, one row per id (a second would be folded into the first)."""
    from fixtures.data import rows as check

    found, keyed = {}, []
    for number, raw in enumerate(table):
        key = next((str(raw[c]) for c in IDS if isinstance(raw.get(c), (str, int))
                    and not isinstance(raw.get(c), bool) and str(raw[c]).strip()),
                   f"row{number}")
        where = f"row {number}" + ("" if key == f"row{number}" else f" ({key})")
        keyed.append((where, key))
        prompts, counts = {}, {}
        own = [c for c, names in PROMPTS.items() if any(n in raw for n in names)]
        for condition in own:
            name = next(n for n in PROMPTS[condition] if n in raw)
            prompts[condition] = check.text(raw, where, name)
            field = COUNTS[condition] if COUNTS[condition] in raw or len(own) > 1 \
                else "token_count"
            count = check.count(raw, where, field)
            if count is not None:
                counts[condition] = count
        typed = raw.get("question_type") not in (None, "") and raw["question_type"] == \
            raw["question_type"]  # (NaN: a JSONL row without one)
        found[key] = {"question": check.text(raw, where, "question"),
                      "answer": check.text_or_number(raw, where, "answer"),
                      "type": check.text(raw, where, "question_type") if typed
                      else UNKNOWN_TYPE,
                      "prompts": prompts, "counts": counts}
    check.unique(keyed, "custom_id")
    return found


@functools.lru_cache(maxsize=4)
def rows(paths: tuple[str, ...]) -> tuple[Row, ...]:
    """The questions of one or more files, in the first file's order; a question's prompts
    come from whichever file holds them (the first, where two do)."""
    merged: dict[str, dict] = {}
    for path in paths:
        for key, row in _rows_of(Path(path)).items():
            held = merged.setdefault(key, {**row, "prompts": {}, "counts": {}})
            for condition, prompt in row["prompts"].items():
                held["prompts"].setdefault(condition, prompt)
                if condition in row["counts"]:
                    held["counts"].setdefault(condition, row["counts"][condition])
            if held["type"] == UNKNOWN_TYPE:
                held["type"] = row["type"]
    return tuple(Row(key, row["type"], row["question"], row["answer"],
                     tuple((c, row["prompts"][c]) for c in PROMPTS if c in row["prompts"]),
                     tuple((c, row["counts"][c]) for c in PROMPTS if c in row["counts"]))
                 for key, row in merged.items())


def paths(given: list[str] | None) -> tuple[str, ...]:
    """The files to read: those given (a missing one named), else the registry's copy
    (DataUnavailable where it is missing and cannot be fetched)."""
    if given:
        for path in given:
            if not Path(path).expanduser().is_file():
                raise ValueError(f"--longmemeval-file {path}: no such file; {FIX}")
        return tuple(str(Path(p).expanduser()) for p in given)
    from fixtures.data.registry import data_file

    return (str(data_file(REGISTRY_NAME)),)


def present() -> bool:
    """Whether the registry's copy is in the data directory (a stat: nothing is read)."""
    from fixtures.data.registry import data_dir

    return (data_dir() / REGISTRY_NAME).is_file()
