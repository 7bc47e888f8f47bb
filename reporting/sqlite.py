"""SQLite files that several processes write: the results store and the response cache.

Switching a new file to WAL needs a moment alone with it, which SQLite does not wait for
("database is locked" at ``PRAGMA journal_mode=WAL`` when xdist workers open a fresh file
together), so the file is created and switched under a file lock, once; WAL is then a
property of the file and every later connection just uses it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

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
