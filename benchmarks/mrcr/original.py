"""The original's rows: openai/mrcr (MIT) at the revision after the 2025-12-05 fix.

Six parquet files, ``{n}needle/{n}needle_0.parquet`` and ``_1.parquet`` for n = 2, 4, 8
(800 rows per needle count, 100 per bin), declared in the data registry under
``openai_mrcr/`` with their sha256. Where they are in the data directory the experiment runs
their rows unchanged; ``--mrcr-original-dir DIR`` reads the same layout from another folder
without checking hashes (a local copy, or the tests' small files).

A sample ``(needles, bin, index)`` is the index-th row of that needle count, in file order,
whose size (o200k tokens of the message contents plus the answer, as the original bins) falls
in the bin. Sizes are counted once per process, and only for rows whose length in characters
could put them in a bin that was asked for: a row cannot hold more tokens than its UTF-8
bytes, and prose never averages 16 characters per token.

Download the files (1.39 GB) with ``python -m benchmarks.mrcr.original``.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
from pathlib import Path

REVISION = "f4c69fae7cf81f7ca26b9fee34b392a50f6b8a1d"
FOLDER = "openai_mrcr"
COLUMNS = ("prompt", "answer", "random_string_to_prepend", "n_needles", "desired_msg_index",
           "total_messages", "n_chars")
OPTIONAL = ("date_added",)  # only in the fixed revision: marks the replaced rows
MAX_CHARS_PER_TOKEN = 16
MAX_BYTES_PER_CHAR = 4
FIX = "replace it with openai/mrcr's file (`python -m benchmarks.mrcr.original` downloads them)"


def relative(needles: int, shard: int) -> str:
    return f"{needles}needle/{needles}needle_{shard}.parquet"


def names(needles: int) -> tuple[str, str]:
    """The registry names of one needle count's two files."""
    return tuple(f"{FOLDER}/{relative(needles, shard)}" for shard in (0, 1))


def url(needles: int, shard: int) -> str:
    return (f"https://huggingface.co/datasets/openai/mrcr/resolve/{REVISION}/"
            f"{relative(needles, shard)}")


def missing(needles, directory: str | None) -> str | None:
    """Why the original's rows for these needle counts cannot be read, or None (a stat: no
    file is read or hashed here)."""
    from fixtures.data.registry import data_dir

    base = Path(directory).expanduser() if directory else data_dir() / FOLDER
    absent = [relative(n, shard) for n in needles for shard in (0, 1)
              if not (base / relative(n, shard)).is_file()]
    if not absent:
        return None
    if directory:
        return (f"--mrcr-original-dir {directory}: {', '.join(absent)} missing; give the "
                "folder holding openai/mrcr's {2,4,8}needle/ parquet files")
    return (f"openai/mrcr is not in {base} ({', '.join(absent)} missing): download it with "
            "`python -m benchmarks.mrcr.original` (1.39 GB), or give --mrcr-original-dir")


def paths(needles: int, directory: str | None) -> list[Path]:
    if directory:
        return [Path(directory).expanduser() / relative(needles, shard) for shard in (0, 1)]
    from fixtures.data.registry import data_file

    return [data_file(name) for name in names(needles)]  # sha256-checked


class Rows:
    """One needle count's rows, in file order (the first file, then the second)."""

    def __init__(self, files: list[Path]):
        import pyarrow as pa
        import pyarrow.compute as pc

        from fixtures.data.registry import read_checked

        tables = [read_checked(path, read_file, FIX) for path in files]
        self.files = list(files)
        self.ends = list(itertools.accumulate(t.num_rows for t in tables))  # rows per file
        self.table = tables[0] if len(tables) == 1 else pa.concat_tables(
            [t.select(tables[0].column_names) for t in tables])
        chars = pc.add(pc.utf8_length(self.table.column("prompt")),
                       pc.utf8_length(self.table.column("answer")))
        self.chars = chars.to_pylist()
        self._sizes: dict[int, int] = {}

    def __len__(self) -> int:
        return self.table.num_rows

    def row(self, index: int) -> dict:
        return {name: self.table.column(name)[index].as_py() for name in self.table.column_names}

    def size(self, index: int) -> int:
        """o200k tokens of the message contents plus the answer (the original's binning)."""
        if index not in self._sizes:
            from fixtures.data.registry import DataUnavailable, data_problem
            from fixtures.tokens.tokenizer import o200k

            count = o200k().count
            row = self.row(index)
            try:
                contents = [m["content"] for m in conversation(row["prompt"])]
            except (ValueError, KeyError, TypeError) as error:
                shard = bisect.bisect_right(self.ends, index)
                first = self.ends[shard - 1] if shard else 0
                raise DataUnavailable(f"{self.files[shard]}: row {index - first}'s prompt: "
                                      f"{data_problem(error)}; {FIX}") from None
            self._sizes[index] = sum(map(count, contents)) + count(row["answer"])
        return self._sizes[index]

    def could_hold(self, index: int, low: int, high: int) -> bool:
        chars = self.chars[index]
        return chars * MAX_BYTES_PER_CHAR >= low and chars / MAX_CHARS_PER_TOKEN <= high

    def in_bin(self, index: int, bin) -> bool:
        return self.could_hold(index, bin.low, bin.high) and bin.holds(self.size(index))

    def nth_in_bin(self, bin, nth: int) -> int | None:
        """The row number of the nth (0-based) row in ``bin``, or None when it has fewer."""
        seen = 0
        for index in range(len(self)):
            if self.in_bin(index, bin):
                if seen == nth:
                    return index
                seen += 1
        return None

    def count_in_bin(self, bin) -> int:
        return sum(1 for index in range(len(self)) if self.in_bin(index, bin))


def read_file(path: Path):
    """One file's table, checked: its columns, and its first prompt a JSON conversation."""
    import pyarrow.parquet as pq

    present = set(pq.read_schema(path).names)
    lacking = [c for c in COLUMNS if c not in present]
    if lacking:
        raise ValueError(f"not an openai/mrcr file (no {', '.join(lacking)} column)")
    table = pq.read_table(path, columns=list(COLUMNS) + sorted(present.intersection(OPTIONAL)))
    if table.num_rows:
        try:
            conversation(table.column("prompt")[0].as_py())
        except (ValueError, TypeError) as error:
            raise ValueError(f"its prompts are not JSON conversations ({error})") from None
    return table


def conversation(prompt: str) -> list[dict]:
    """A row's prompt: a JSON list of chat messages (a ValueError or TypeError otherwise)."""
    messages = json.loads(prompt)
    if not isinstance(messages, list) or not all(isinstance(m, dict) and "content" in m
                                                 for m in messages):
        raise ValueError("not a list of messages with a 'content'")
    return messages


@functools.lru_cache(maxsize=3)
def rows(needles: int, directory: str | None) -> Rows:
    return Rows(paths(needles, directory))


def download() -> None:
    """Fetch the six files into the data directory (pooch checks each sha256)."""
    from fixtures.data.registry import data_file

    for needles in (2, 4, 8):
        for name in names(needles):
            print(data_file(name))


if __name__ == "__main__":
    download()
