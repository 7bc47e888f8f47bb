"""SQLite files that several processes write: the results store and the response cache.

Switching a new file to WAL needs a moment alone with it, which SQLite does not wait for
("database is locked" at ``PRAGMA journal_mode=WAL`` when xdist workers open a fresh file
together), so the file is created and switched under a file lock, once; WAL is then a
property of the file and every later connection just uses it.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path
from typing import Iterable

from filelock import FileLock

BUSY_TIMEOUT_S = 120
STORAGE_ERRORS = (sqlite3.Error, OSError)
STORAGE_FIX = {"the disk is full": "free space or give another --results-dir",
               "the folder is read-only": "give a writable --results-dir"}


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


def connect_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection: no lock file, no schema, nothing written beside the file.

    A store in a folder nobody may write (an archive, a CI artifact, a read-only mount) is
    read as it is: SQLite opens a WAL file read-only when it can create its ``-shm`` index
    or finds one; a cleanly closed file in a read-only folder has none, so it is opened as
    immutable (nothing can change it: nobody can write there).
    """
    uri = path.resolve().as_uri()
    try:
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False)
        db.execute("PRAGMA schema_version").fetchone()
        return db
    except sqlite3.OperationalError:
        wal = path.with_name(path.name + "-wal")
        if writable(path.parent) or (wal.exists() and wal.stat().st_size):
            raise
    db = sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False)
    db.execute("PRAGMA schema_version").fetchone()
    return db


def writable(folder: Path) -> bool:
    """Whether this process may create files in ``folder`` (a read-only mount says no even
    to root)."""
    return os.access(folder, os.W_OK | os.X_OK)


def check_files(directory: Path, names: Iterable[str]) -> None:
    """A ValueError, one line naming the file and the fix, unless ``directory`` can hold the
    run: a folder (made if missing) this process may write, where each of the SQLite files
    that exists is one and is writable (a crash or a copy can leave junk)."""
    if directory.exists() and not directory.is_dir():
        raise ValueError(f"--results-dir {directory} is a file, not a folder; give a folder "
                         "(it is made if missing)")
    existing = next(p for p in (directory, *directory.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"--results-dir {directory}: {existing} is a file, not a folder; "
                         "give a folder (it is made if missing)")
    if not writable(existing):
        where = f"{directory} is" if existing == directory else \
            f"{directory} cannot be made: {existing} is"
        raise ValueError(f"--results-dir {where} read-only; give a folder you can write "
                         f"(runs stored in a read-only folder can still be read: python -m "
                         f"reporting runs --results-dir {existing})")
    for name in names:
        path = directory / name
        if not path.exists():
            continue
        if not os.access(path, os.R_OK | os.W_OK):
            raise ValueError(f"{path} is read-only; make it writable or give another "
                             "--results-dir")
        try:
            connect_reader(path).close()
        except sqlite3.DatabaseError as error:
            raise ValueError(f"{path} is not a usable SQLite file ({error}); move it aside "
                             "(nothing in it can be read) or give another --results-dir") \
                from None


def storage_problem(message: str) -> str | None:
    """What a failed write says of its storage, in words (None: something else)."""
    if re.search(r"disk is full|No space left|Errno 28\b|quota", message, re.IGNORECASE):
        return "the disk is full"
    if re.search(r"read-?only|Errno 30\b|Errno 13\b|Permission denied", message,
                 re.IGNORECASE):
        return "the folder is read-only"
    return None
