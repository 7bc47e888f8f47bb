"""The results store: one SQLite file for every run, plus plain files per run.

Only the controller process writes here (xdist workers send their records to it); two runs
at once share the file (``reporting.storage.sqlite``). Every record is written the moment it arrives
(a commit reaches the WAL at once, with no fsync per record), so a crash or Ctrl-C loses
nothing that was already received. ``samples.jsonl`` is appended as records arrive and
rewritten from the store at the end, so a re-run of the same run id leaves one line per
sample.

Layout under the results directory::

    contextrot.sqlite                 runs and samples of every run
    <run-id>/samples.jsonl            one record per line, in arrival order
    <run-id>/summary.json             per experiment and cell: counts, headline metric, interval
    <run-id>/plots/<experiment>/*.png
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Callable, Iterable, Iterator

from reporting.storage.records import SampleRecord, excerpt
from reporting.storage.sqlite import connect_reader, connect_shared

if TYPE_CHECKING:  # pandas loads when a frame is asked for, not when records are written
    import pandas as pd

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    exit_status INTEGER,
    info        TEXT NOT NULL          -- JSON: options, model, judge, versions
);
CREATE TABLE IF NOT EXISTS samples (
    run_id        TEXT NOT NULL REFERENCES runs(run_id),
    sample_id     TEXT NOT NULL,       -- the pytest node id: unique within a run
    experiment    TEXT NOT NULL,
    stimulus_hash TEXT NOT NULL,
    outcome       TEXT NOT NULL,
    record        TEXT NOT NULL,       -- the full SampleRecord as JSON
    PRIMARY KEY (run_id, sample_id)
);
CREATE INDEX IF NOT EXISTS samples_by_experiment ON samples(run_id, experiment);
"""


RUN_COLUMNS = "run_id, started_at, finished_at, exit_status, info"


@dataclasses.dataclass
class StoredRun:
    """A run as read once (``ResultsStore.read_run``)."""

    row: dict  # run_id, started_at, finished_at, exit_status, info (the run's options)
    texts: list[str]  # every record's JSON as stored, in arrival order (samples.jsonl)
    records: list[SampleRecord]  # those that can be read, by node id (as records() yields)

    def received(self, wanted: set[str]) -> list[SampleRecord]:
        """The records of the samples in ``wanted`` (node ids): one session's."""
        return [r for r in self.records if (r.nodeid or r.sample_id) in wanted]


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


class ResultsStore:
    def __init__(self, database: Path, *, read_only: bool = False,
                 warn: Callable[[str], None] = _say):
        """``read_only``: only read (``python -m reporting``, a baseline): no lock file and
        no schema, so a store in a read-only folder is read as it is. ``warn`` is told, once
        each, of the entries that cannot be read (a record or a run's options that a crash,
        a disk or a hand left as something other than JSON): they are left out, the rest
        read."""
        self.database = database
        self._warn = warn
        self._unreadable: set[tuple[str, str]] = set()
        self._db = connect_reader(database) if read_only else \
            connect_shared(database, _SCHEMA)
        self._appending: dict[Path, IO[str]] = {}

    def close(self) -> None:
        for handle in self._appending.values():
            try:
                handle.close()
            except OSError:  # a full disk: samples.jsonl is rewritten from the store at the end
                pass
        self._appending.clear()
        self._db.close()

    # -- writing (controller only) -------------------------------------------------------
    def begin_run(self, run_id: str, info: dict, started_at: str | None = None) -> None:
        self._db.execute(
            "INSERT INTO runs(run_id, started_at, info) VALUES (?, ?, ?) "
            "ON CONFLICT(run_id) DO UPDATE SET info = excluded.info",
            (run_id, started_at or _now(), json.dumps(info, sort_keys=True)),
        )

    def update_run_info(self, run_id: str, **info) -> None:
        current = self.run_info(run_id)
        current.update(info)
        self._db.execute("UPDATE runs SET info = ? WHERE run_id = ?",
                         (json.dumps(current, sort_keys=True), run_id))

    def finish_run(self, run_id: str, exit_status: int, finished_at: str | None = None) -> str:
        """Mark the run finished; the time written."""
        finished_at = finished_at or _now()
        self._db.execute("UPDATE runs SET finished_at = ?, exit_status = ? WHERE run_id = ?",
                         (finished_at, int(exit_status), run_id))
        return finished_at

    def add(self, record: SampleRecord, jsonl: Path | None = None,
            text: str | None = None) -> None:
        """Store one record (``text``: its JSON, when the caller already has it)."""
        text = text or record.to_json()
        self._db.execute(
            "INSERT OR REPLACE INTO samples VALUES (?, ?, ?, ?, ?, ?)",
            (record.run_id, record.nodeid or record.sample_id, record.experiment,
             record.stimulus_hash, record.outcome, text),
        )
        if jsonl is not None:
            if jsonl not in self._appending:
                jsonl.parent.mkdir(parents=True, exist_ok=True)
                self._appending[jsonl] = jsonl.open("a", encoding="utf-8", buffering=1)
            self._appending[jsonl].write(text + "\n")  # line-buffered: on disk at once

    def write_jsonl(self, run_id: str, jsonl: Path, texts: Iterable[str] | None = None) -> None:
        """Rewrite ``jsonl`` with the run's records, one line each, in arrival order
        (``texts``: those already read, ``StoredRun.texts``)."""
        handle = self._appending.pop(jsonl, None)
        if handle is not None:
            handle.close()
        if texts is None:
            texts = (text for (text,) in self._db.execute(
                "SELECT record FROM samples WHERE run_id = ? ORDER BY rowid", (run_id,)))
        partial = jsonl.with_suffix(".jsonl.tmp")
        partial.parent.mkdir(parents=True, exist_ok=True)
        with partial.open("w", encoding="utf-8") as out:
            for text in texts:
                out.write(text + "\n")
        partial.replace(jsonl)

    # -- reading (anyone) ----------------------------------------------------------------
    def runs(self) -> list[dict]:
        rows = self._db.execute(f"SELECT {RUN_COLUMNS} FROM runs ORDER BY started_at, run_id")
        return [self._run_row(row) for row in rows.fetchall()]

    def _run_row(self, row: tuple) -> dict:
        return {"run_id": row[0], "started_at": row[1], "finished_at": row[2],
                "exit_status": row[3], "info": self._info(row[0], row[4])}

    def read_run(self, run_id: str) -> StoredRun:
        """The run's row and all its records in one read: what the end of a run and the
        re-writing of its files hand to every renderer."""
        row = self._db.execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE run_id = ?",
                               (run_id,)).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r} in {self.database}")
        stored = self._db.execute("SELECT sample_id, record FROM samples WHERE run_id = ? "
                                  "ORDER BY rowid", (run_id,)).fetchall()
        return StoredRun(self._run_row(row), [text for _, text in stored],
                         list(self._readable(run_id, sorted(stored))))

    def run_info(self, run_id: str) -> dict:
        row = self._db.execute("SELECT info FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r} in {self.database}")
        return self._info(run_id, row[0])

    def _info(self, run_id: str, text: str) -> dict:
        """A run's options, or {} (said once) where its entry cannot be read."""
        try:
            info = json.loads(text)
        except (ValueError, TypeError) as error:
            info = error
        if isinstance(info, dict):
            return info
        self._left_out(("run", run_id), f"run {run_id!r}: its entry (the run's options) is "
                       f"not readable ({_problem(info)}); read without them")
        return {}

    def _left_out(self, entry: tuple[str, str], message: str) -> None:
        if entry not in self._unreadable:
            self._unreadable.add(entry)
            self._warn(f"warning: {self.database}: {message}")

    def latest_run(self, before: str | None = None) -> str | None:
        rows = [r["run_id"] for r in self.runs() if r["run_id"] != before]
        return rows[-1] if rows else None

    def records(self, run_id: str, experiment: str | None = None) -> Iterator[SampleRecord]:
        query = "SELECT sample_id, record FROM samples WHERE run_id = ?"
        args: tuple = (run_id,)
        if experiment:
            query += " AND experiment = ?"
            args += (experiment,)
        yield from self._readable(run_id, self._db.execute(query + " ORDER BY sample_id", args))

    def _readable(self, run_id: str, rows: Iterable[tuple[str, str]]) -> Iterator[SampleRecord]:
        """The records of ``(sample id, JSON)`` rows, those that cannot be read left out."""
        for sample_id, text in rows:
            try:
                yield SampleRecord.from_json(text)
            except (ValueError, TypeError, AttributeError) as error:
                self._left_out((run_id, sample_id), f"run {run_id!r}, sample {sample_id}: its "
                               f"record is not readable ({_problem(error)}); left out (run the "
                               "run's command again to record it anew)")

    def experiments(self, run_id: str) -> list[str]:
        """The experiments with records in ``run_id``, in name order."""
        return [name for (name,) in self._db.execute(
            "SELECT DISTINCT experiment FROM samples WHERE run_id = ? ORDER BY experiment",
            (run_id,))]

    def frame(self, run_id: str, experiment: str | None = None, *,
              output_chars: int | None = None) -> pd.DataFrame:
        return records_frame(self.records(run_id, experiment), output_chars=output_chars)


def _problem(error: object) -> str:
    """What is wrong with an entry, in a few words."""
    if isinstance(error, Exception):
        return f"{type(error).__name__}: {str(error)[:80]}"
    return f"JSON {type(error).__name__}, not an object"


def records_frame(records: Iterable[SampleRecord], *,
                  output_chars: int | None = None) -> pd.DataFrame:
    """Records as a flat table: nested fields become dotted columns (``params.n``).

    Rows are in node-id order, the store's order, whatever order the records arrived in
    (xdist's varies): seeded bootstrap intervals resample by position, so the same records
    must give the same table to give the same intervals. ``output_chars``: each output cut to
    an excerpt of that length (0: dropped), for tables that show one at most (a run's outputs
    can be gigabytes; the statistics read scores).
    """
    import pandas as pd

    def row_of(record: SampleRecord) -> dict:
        if output_chars is not None and record.output:  # a copy: the caller's record stays
            record = dataclasses.replace(
                record, output=excerpt(record.output, output_chars) if output_chars else "")
        return json.loads(record.to_json())

    rows = sorted(map(row_of, records),
                  key=lambda row: row.get("nodeid") or row.get("sample_id") or "")
    if not rows:
        return pd.DataFrame()
    return pd.json_normalize(rows, sep=".")


def experiment_frames(frame: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """The records of each experiment on their own, in name order.

    In a run's combined table an integer column became float where other experiments' rows
    left gaps; within one experiment's part it is an integer column again (a renderer then
    writes ``x0``, not ``x0.0``). Columns are kept even when empty: a score that is null in
    every sample (position accuracy when the word never appears) is still that
    experiment's column.
    """
    if frame.empty:
        return
    for name, part in frame.groupby("experiment", sort=True):
        part = part.reset_index(drop=True)
        for column in part.columns:
            values = part[column]
            if values.dtype.kind == "f" and values.notna().all() \
                    and (values == values.round()).all():
                part[column] = values.astype("int64")
        yield name, part
