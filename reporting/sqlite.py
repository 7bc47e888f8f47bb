"""SQLite files that several processes write: the results store and the response cache.

Switching a new file to WAL needs a moment alone with it, which SQLite does not wait for
("database is locked" at ``PRAGMA journal_mode=WAL`` when xdist workers open a fresh file
together), so the file is created and switched under a file lock, once; WAL is then a
property of the file and every later connection just uses it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterable

from filelock import FileLock

BUSY_TIMEOUT_S = 120


def connect_shared(path: Path, schema: str) -> sqlite3.Connection:
    """A connection in autocommit mode to a WAL-mode SQLite file, with ``schema`` applied."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock", timeout=BUSY_TIMEOUT_S):
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                             check_same_thread=False)
        if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            db.execute("PRAGMA journal_mode=WAL")
        db.executescript(schema)
    # A commit reaches the WAL file at once, so a crash loses nothing; only a power cut could
    # lose the last few, which a re-run asks again.
    db.execute("PRAGMA synchronous=NORMAL")
    return db


def check_files(directory: Path, names: Iterable[str]) -> None:
    """A ValueError, one line naming the file and the fix, unless ``directory`` can hold the
    run and each of its SQLite files that exists is one (a crash or a copy can leave junk)."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"--results-dir {directory} is a file, not a folder; give a folder "
                         "(it is made if missing)")
    for name in names:
        path = directory / name
        if not path.exists():
            continue
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
                db.execute("PRAGMA schema_version").fetchone()
        except sqlite3.DatabaseError as error:
            raise ValueError(f"{path} is not a usable SQLite file ({error}); move it aside "
                             "(nothing in it can be read) or give another --results-dir") \
                from None
