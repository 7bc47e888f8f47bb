"""The identity of one run: its id and where its files go."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import re
import secrets
from pathlib import Path

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def new_run_id() -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{secrets.token_hex(3)}"


def check_run_id(run_id: str) -> str:
    if not _RUN_ID.match(run_id):
        raise ValueError(
            f"--run-id {run_id!r} is not usable as a folder name; use letters, digits, '.', '_' "
            "or '-' (at most 128 characters)"
        )
    return run_id


@dataclasses.dataclass(frozen=True)
class RunContext:
    run_id: str
    results_dir: Path

    @property
    def run_dir(self) -> Path:
        return self.results_dir / self.run_id

    @property
    def database(self) -> Path:
        return self.results_dir / "contextrot.sqlite"

    @property
    def response_cache(self) -> Path:
        return self.results_dir / "response-cache.sqlite"

    def to_dict(self) -> dict:
        return {"run_id": self.run_id, "results_dir": str(self.results_dir)}

    @classmethod
    def from_dict(cls, data: dict) -> "RunContext":
        return cls(run_id=data["run_id"], results_dir=Path(data["results_dir"]))
