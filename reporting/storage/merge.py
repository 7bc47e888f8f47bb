"""Join the shards of a run (``pytest --shard K/N``) into one run, as if it had run in one place.

    python -m reporting merge shard-1/ shard-2/ shard-3/ --into merged/ [--run-id ID]

Each STORE is a results directory (or its ``contextrot.sqlite``) holding one shard's run. The
shards must have been answered by the same model, judge and scale, and must not disagree on a
sample (the same node id with another stimulus). The merged run gets every record (its
``run_id`` set to the merged run's), ``samples.jsonl`` in node-id order, and the files every
run gets (``run_files.write_stored_run``): summary.json with the verdicts, cells.md/.csv,
plots, report.html; report, compare, gate and leaderboard then read it like any other run.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Sequence

from reporting.gating.compare import run_identity, unit_mismatch
from reporting.experiments import Experiment
from reporting.storage.records import SampleRecord
from reporting.render.run_files import RunFiles, write_stored_run
from reporting.storage.store import ResultsStore, records_frame
from reporting.analysis.verdict_settings import VerdictSettings

DATABASE = "contextrot.sqlite"
IDENTITY = ("model", "judge", "tokenizer", "scale")


class MergeError(ValueError):
    """Shards that cannot be joined: one line naming the problem and the fix."""


class NotComparable(MergeError):
    """Shards whose scores mean different things (lengths in other token units): exit 8."""


@dataclasses.dataclass
class Shard:
    source: Path  # the store's database file
    run: dict  # its runs row: run_id, started_at, finished_at, exit_status, info
    records: list[SampleRecord]

    @property
    def label(self) -> str:
        shard = (self.run["info"].get("options") or {}).get("shard")
        return f"{self.source.parent}:{self.run['run_id']}" + (f" (shard {shard})" if shard
                                                               else "")


@dataclasses.dataclass
class Merged:
    run_id: str
    records: int
    shards: list[str]
    warnings: list[str]
    files: RunFiles


def database_of(store: str | Path) -> Path:
    path = Path(store)
    database = path / DATABASE if path.is_dir() else path
    if not database.is_file():
        raise MergeError(f"no results store at {database}; pass the --results-dir of each shard "
                         "(or its contextrot.sqlite)")
    return database


def read_shard(store: str | Path, run_id: str | None) -> Shard:
    database = database_of(store)
    results = ResultsStore(database, read_only=True)
    try:
        runs = results.runs()
        if run_id is not None and any(r["run_id"] == run_id for r in runs):
            chosen = next(r for r in runs if r["run_id"] == run_id)
        elif len(runs) == 1:
            chosen = runs[0]
        else:
            names = ", ".join(r["run_id"] for r in runs) or "none"
            raise MergeError(f"{database} holds {len(runs)} runs ({names}); name the shards' "
                             "run with --run-id RUN")
        return Shard(database, chosen, list(results.records(chosen["run_id"])))
    finally:
        results.close()


def check_shards(shards: Sequence[Shard]) -> list[str]:
    """Raise on shards that cannot be one run; return warnings (a missing shard, overlaps)."""
    identities = [run_identity(s.run["info"], records_frame(s.records)) for s in shards]
    mixed = unit_mismatch([(str(s.source), i) for s, i in zip(shards, identities)])
    if mixed:
        raise NotComparable(mixed.replace("compare runs", "merge shards"))
    for field in IDENTITY:
        values = {str(i.get(field)) for i in identities}
        if len(values) > 1:
            raise MergeError(f"the shards differ in {field} ({', '.join(sorted(values))}); "
                             "only shards of one run (same model, judge, tokenizer, scale) merge")
    warnings = []
    declared = [(s.run["info"].get("options") or {}).get("shard") for s in shards]
    if all(declared):
        parts = [tuple(int(v) for v in text.split("/")) for text in declared]
        totals = {n for _, n in parts}
        if len(totals) > 1:
            raise MergeError(f"the shards split the run differently ({', '.join(declared)}); "
                             "merge shards of one --shard K/N split")
        total = totals.pop()
        absent = sorted(set(range(1, total + 1)) - {k for k, _ in parts})
        if absent:
            warnings.append(f"shards {', '.join(f'{k}/{total}' for k in absent)} are not "
                            "among the merged stores: the run is incomplete")
    else:
        warnings.append("some stores were not run with --shard; merged as given")
    return warnings


def merge(stores: Sequence[str | Path], into: str | Path, experiments: dict[str, Experiment],
          settings: VerdictSettings | None = None, run_id: str | None = None,
          warn: Callable[[str], None] = lambda message: None) -> Merged:
    if not stores:
        raise MergeError("name the shards' stores: python -m reporting merge DIR DIR ... "
                         "--into DIR")
    shards = [read_shard(store, run_id) for store in stores]
    if len({s.source.resolve() for s in shards}) < len(shards):
        raise MergeError("the same store is named twice")
    names = {s.run["run_id"] for s in shards}
    if run_id is None:
        if len(names) > 1:
            raise MergeError(f"the shards have different run ids ({', '.join(sorted(names))}); "
                             "name the merged run with --run-id ID")
        run_id = names.pop()
    warnings = check_shards(shards)
    records = _join(shards, warnings)

    target = Path(into)
    database = target / DATABASE
    store = ResultsStore(database)
    try:
        if any(r["run_id"] == run_id for r in store.runs()):
            raise MergeError(f"{database} already holds a run {run_id!r}; merge into an empty "
                             "folder or choose another --run-id")
        store.begin_run(run_id, _merged_info(shards, records), started_at=min(
            s.run["started_at"] for s in shards))
        run_dir = target / run_id
        run_dir.mkdir(parents=True, exist_ok=True)
        jsonl = run_dir / "samples.jsonl"
        jsonl.unlink(missing_ok=True)
        for record in records:
            record.run_id = run_id
            store.add(record, jsonl)
        statuses = [s.run["exit_status"] for s in shards]
        finished = [s.run["finished_at"] for s in shards if s.run["finished_at"]]
        store.finish_run(run_id, max((int(v) for v in statuses if v is not None), default=0),
                         finished_at=max(finished) if finished else None)
        for message in warnings:
            warn(f"merge: warning: {message}")
        files = write_stored_run(store, run_id, experiments, run_dir, settings, warn)
    finally:
        store.close()
    return Merged(run_id, len(records), [s.label for s in shards], warnings, files)


def _join(shards: Sequence[Shard], warnings: list[str]) -> list[SampleRecord]:
    """Every shard's records in node-id order; a sample in two shards is kept once."""
    found: dict[str, SampleRecord] = {}
    repeated = 0
    for shard in shards:
        for record in shard.records:
            key = record.nodeid or record.sample_id
            if key in found:
                if found[key].stimulus_hash != record.stimulus_hash:
                    raise MergeError(f"sample {key} has different stimuli in two shards; they "
                                     "are not shards of one run")
                repeated += 1
                continue
            found[key] = record
    if repeated:
        warnings.append(f"{repeated} samples were in more than one shard; each is kept once "
                        "(the first store's)")
    return [found[key] for key in sorted(found)]


def _merged_info(shards: Sequence[Shard], records: Sequence[SampleRecord]) -> dict:
    info = dict(shards[0].run["info"])
    info["options"] = {**(info.get("options") or {}), "shard": None}
    info["merged_from"] = [{"store": str(s.source), "run_id": s.run["run_id"],
                            "shard": (s.run["info"].get("options") or {}).get("shard"),
                            "records": len(s.records)} for s in shards]
    expected = [s.run["info"].get("expected") for s in shards]
    info["expected"] = sum(expected) if all(v is not None for v in expected) else len(records)
    info["missing"] = sorted({m for s in shards for m in s.run["info"].get("missing") or ()})
    for count in ("asked", "never_ran"):  # per experiment: each shard asked its own part
        info[count] = _summed(s.run["info"].get(count) or {} for s in shards)
    return info


def _summed(counts) -> dict[str, int]:
    total: dict[str, int] = {}
    for each in counts:
        for name, n in each.items():
            total[name] = total.get(name, 0) + n
    return dict(sorted(total.items()))
