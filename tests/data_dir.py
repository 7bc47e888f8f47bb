"""A test's own data directory: the user's data read, never written.

A test that needs a broken or an absent data file must not break it or remove it in the
user's data directory (``$CONTEXTROT_DATA_DIR``, the README's ``../shared/data``), nor write
through a link into it: a link to a folder that a test then writes into is the user's own
folder. ``own_data_dir`` builds a folder of the test's own that reads as the user's (each
entry a link to the user's), then breaks or removes paths in it: every folder on such a path
is made a real folder first (its entries linked one by one), and the path itself is written
as a file of the test's own, never through a link.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterable, Mapping

from .subprocess_pytest import ROOT


def user_data_dir() -> Path:
    """The data directory the tests read: ``$CONTEXTROT_DATA_DIR``, else ``../shared/data``."""
    return Path(os.environ.get("CONTEXTROT_DATA_DIR") or ROOT.parent / "shared" / "data")


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
