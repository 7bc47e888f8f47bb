"""A test's own data directory: the user's data read, never written.

A test that needs a broken or an absent data file must not break it or remove it in the
user's data directory (``$CONTEXTROT_DATA_DIR``, the README's ``../shared/data``), nor write
through a link into it: a link to a folder that a test then writes into is the user's own
folder. ``own_data_dir`` builds a folder of the test's own that reads as the user's (each
entry a link to the user's), then breaks or removes paths in it: every folder on such a path
is made a real folder first (its entries linked one by one), and the path itself is written
as a file of the test's own, never through a link.

The tests read only the data they ship or build: ``hermetic_data_dir`` (the session's data
directory, tests/conftest.py) is the user's less every optional registered file (SQuAD,
HotpotQA, openai/mrcr, LongMemEval, GraphWalks, NoLiMa: a test that needs one builds it) and
less any registered file whose digest is not the registered one (a partial download, another
revision). ``excluded_files`` names what it left out; the user's own data is checked by a
test of its own that skips naming such a file (tests/harness/test_data.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterable, Mapping

from .subprocess_pytest import ROOT


# where the session's own data directory was made from (tests/conftest.py sets both)
USER_DATA_VARIABLE = "CONTEXTROT_TESTS_USER_DATA_DIR"


def user_data_dir() -> Path:
    """The data directory the tests read: ``$CONTEXTROT_DATA_DIR``, else ``../shared/data``
    (inside a session: its hermetic copy, ``hermetic_data_dir``)."""
    return Path(os.environ.get("CONTEXTROT_DATA_DIR") or ROOT.parent / "shared" / "data")


def users_own_data_dir() -> Path:
    """The user's own data directory, before the session made its hermetic copy."""
    return Path(os.environ.get(USER_DATA_VARIABLE) or user_data_dir())


def excluded_files(user: Path) -> dict[str, str]:
    """The registered files of ``user`` that the tests must not read, each with why: every
    optional one, and any whose sha256 is not the registered one."""
    from fixtures.data.registry import REGISTRY, file_sha256

    found = {}
    for name, entry in sorted(REGISTRY.items()):
        path = user / name
        if not path.is_file():
            continue
        if entry.optional:
            found[name] = "optional: a test that needs it builds its own"
        elif entry.sha256 and file_sha256(path) != entry.sha256:
            found[name] = f"its sha256 is not the registered {entry.sha256[:16]}..."
    return found


def hermetic_data_dir(folder: Path, user: Path) -> Path:
    """``folder``: ``user``'s data directory as links, less ``excluded_files(user)``."""
    return own_data_dir(folder, without=list(excluded_files(user)), user=user)


def own_data_dir(folder: Path, *, files: Mapping[str, bytes] = {},
                 without: Iterable[str] = (), user: Path | None = None) -> Path:
    """``folder``: the user's data directory (``user``) as links, less the paths in
    ``without`` (files or folders), with each of ``files`` (a path below it: its bytes) a file
    of the folder's own."""
    user = user or user_data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    if user.is_dir():
        _link_entries(user, folder)
    for name in without:
        path = _own_parents(folder, name)
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
    for name, content in files.items():
        path = _own_parents(folder, name)
        if path.is_symlink() or path.is_file():
            path.unlink()  # the link goes, not the user's file behind it
        elif path.is_dir():
            shutil.rmtree(path)
        path.write_bytes(content)
    return folder


def _link_entries(source: Path, folder: Path) -> None:
    for entry in source.iterdir():
        (folder / entry.name).symlink_to(entry.resolve())


def _own_parents(folder: Path, name: str) -> Path:
    """``folder / name``, each folder above it a real folder of ``folder``'s own (a linked
    folder is replaced by one whose entries link to its entries)."""
    relative = Path(name)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"{name!r}: a path below the data directory")
    current = folder
    for part in relative.parts[:-1]:
        current = current / part
        if current.is_symlink():
            target = current.resolve()
            current.unlink()
            current.mkdir()
            if target.is_dir():
                _link_entries(target, current)
        elif not current.exists():
            current.mkdir()
    return current / relative.name


def env_without(folder: Path, *names: str) -> dict[str, str]:
    """A subprocess environment whose data directory (built at ``folder``) lacks ``names``:
    for a test whose outcome depends on their absence (an ``auto`` source that would take
    the original's files wherever the user fetched them)."""
    from .subprocess_pytest import child_env

    if not folder.exists():
        own_data_dir(folder, without=names)
    return child_env(CONTEXTROT_DATA_DIR=str(folder))
