"""The original's rows: openai/graphwalks (MIT), two parquet files.

``graphwalks_128k_and_shorter.parquet`` (22.6 MB) and ``graphwalks_256k_to_1mil.parquet``
(300 MB), declared in the data registry under ``openai_graphwalks/`` at revision f338bb2
with the sha256 public harnesses check (not checked here against the files: see
docs/experiments/graphwalks.md). ``--graphwalks-original-dir DIR`` reads the same two names
from another folder as they are, unhashed (an older revision, the tests' small files). The
second file is read only when a length above 128k is asked for: its rows are all longer.

The files hold both the 2025 rows and the rows re-added on 2026-02-27 with the revised
prompt (``date_added`` 04-12-2025 or 02-27-2026): ``--graphwalks-prompt`` picks which. A file
without ``date_added`` (older revisions) holds the 2025 rows only. Every row is checked where
it is read (``read_file``): one bad row refuses the file with one line naming the row.
Each file is the original's split for its published scores: "<128k" and ">128k".

A sample ``(problem type, length, index)`` is the index-th row of that type and prompt
version, in file order (the first file, then the second), whose prompt counted in the run's
unit falls in the length's bin: above the next shorter length asked for, at most this one.
Prompts are counted once per process and unit, and only where their length in characters
could put them in the bin (a prompt of c characters holds at most c tokens of a byte-level
unit and, being hex ids, never averages 16 characters per token).
"""

from __future__ import annotations

import functools
from pathlib import Path

from .graphs import PROBLEM_TYPES

REVISION = "f338bb265735a56a79f4b0f5def722c9c3268ead"  # the registry's (fixtures/data/registry.py)
FOLDER = "openai_graphwalks"
FILES = (("graphwalks_128k_and_shorter.parquet", "<128k"),
         ("graphwalks_256k_to_1mil.parquet", ">128k"))
SPLIT_LIMIT = 128 << 10  # lengths above it need the second file
COLUMNS = ("prompt", "answer_nodes", "prompt_chars", "problem_type", "date_added")
DATES = {"2025": "04-12-2025", "2026": "02-27-2026"}  # date_added of each prompt version
MAX_CHARS_PER_TOKEN = 16
FIX = ("replace it with openai/graphwalks' file (pass --graphwalks-original-dir DIR, or put "
       f"it in the data directory's {FOLDER}/)")


def needed(lengths) -> tuple[str, ...]:
    """The file names the asked lengths read."""
    return tuple(name for name, split in FILES
                 if split == "<128k" or max(lengths) > SPLIT_LIMIT)


def missing(lengths, directory: str | None) -> str | None:
    """Why the original's rows for these lengths cannot be read, or None (a stat)."""
    from fixtures.data.registry import data_dir

    base = Path(directory).expanduser() if directory else data_dir() / FOLDER
    absent = [name for name in needed(lengths) if not (base / name).is_file()]
    if not absent:
        return None
    if directory:
        return (f"--graphwalks-original-dir {directory}: {', '.join(absent)} missing; give the "
                "folder holding openai/graphwalks' parquet files")
    return (f"openai/graphwalks is not in {base} ({', '.join(absent)} missing): download it "
            f"from https://huggingface.co/datasets/openai/graphwalks (revision {REVISION[:7]}) "
            "into that folder, or give --graphwalks-original-dir")


def paths(lengths, directory: str | None) -> list[Path]:
    if directory:
        return [Path(directory).expanduser() / name for name in needed(lengths)]
    from fixtures.data.registry import data_file

    return [data_file(f"{FOLDER}/{name}") for name in needed(lengths)]


def read_file(path: Path) -> list[dict]:
    """One file's rows, each checked (fixtures/data/rows.py): the original's columns, at least
    one row; a prompt that is text, answer nodes that are a list of texts (one
    comma-joined text would be graded against its characters), a known problem type. A
    file without ``date_added`` holds the 2025 rows (the column came with the 2026 ones)."""
    import pyarrow.parquet as pq

    from fixtures.data import rows as check

    present = set(pq.read_schema(path).names)
    lacking = [c for c in COLUMNS if c not in present and c != "date_added"]
    if lacking:
        raise ValueError(f"not an openai/graphwalks file (no {', '.join(lacking)} column)")
    table = pq.read_table(path, columns=[c for c in COLUMNS if c in present])
    if not table.num_rows:
        raise ValueError("no rows")
    found = []
    for number, raw in enumerate(table.to_pylist()):
        where = f"row {number}"
        found.append({
            "prompt": check.text(raw, where, "prompt"),
            "answer_nodes": check.texts(raw, where, "answer_nodes"),
            "prompt_chars": check.count(raw, where, "prompt_chars", required=True),
            "problem_type": check.one_of(raw, where, "problem_type", PROBLEM_TYPES),
            "date_added": (check.text(raw, where, "date_added") if "date_added" in present
                           else DATES["2025"])})
    return found


class Rows:
    """The rows of the files asked for, in file order; prompts counted in one unit."""

    def __init__(self, files: list[Path], count):
        from fixtures.data.registry import read_checked

        self.count = count
        self.rows: list[dict] = []
        for path in files:
            split = dict(FILES).get(path.name, "<128k")
            for number, row in enumerate(read_checked(path, read_file, FIX)):
                self.rows.append({**row, "split": split, "file": path.name, "row": number})
        self._tokens: dict[int, int] = {}

    def tokens(self, index: int) -> int:
        if index not in self._tokens:
            self._tokens[index] = self.count(self.rows[index]["prompt"])
        return self._tokens[index]

    def could_hold(self, index: int, low: int, high: int) -> bool:
        chars = len(self.rows[index]["prompt"])
        return chars > low and chars / MAX_CHARS_PER_TOKEN <= high

    def candidates(self, problem_type: str, version: str) -> list[int]:
        return [i for i, row in enumerate(self.rows) if row["problem_type"] == problem_type
                and row["date_added"] == DATES[version]]

    def nth_in_bin(self, problem_type: str, version: str, low: int, high: int,
                   nth: int) -> tuple[int | None, int]:
        """(the row number of the nth (0-based) row in (low, high], or None; how many rows
        the bin was seen to hold)."""
        seen = 0
        for index in self.candidates(problem_type, version):
            if self.could_hold(index, low, high) and low < self.tokens(index) <= high:
                if seen == nth:
                    return index, seen + 1
                seen += 1
        return None, seen


@functools.lru_cache(maxsize=4)
def _rows(files: tuple[Path, ...], unit_key, count) -> Rows:
    return Rows(list(files), count)


def rows(lengths, directory: str | None, tokenizer) -> Rows:
    """The rows, read once per process and unit (a bad file: DataUnavailable, one line)."""
    files = tuple(paths(lengths, directory))
    return _rows(files, getattr(tokenizer, "identity", None) or id(tokenizer), tokenizer.count)
