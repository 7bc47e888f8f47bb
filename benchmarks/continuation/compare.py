"""Overlay several continuation runs (models, texts) on the same two pages of graphs.

    python -m benchmarks.continuation.compare RUN_A/plots/continuation/continuation.csv \
        RUN_B/.../continuation.csv --out comparison/

Each CSV is one run's tier table (written by the experiment's renderer). Runs that continue
the same text from different points, or with different ground truths, are compared anyway but
named on the terminal: their curves do not start from the same place.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from . import plots
from .readability import DEFAULT_SET

REQUIRED = ("model", "text", "context", "cloze_score_mean", "vocabulary_diversity_mean")


def read_run(path: Path) -> pd.DataFrame:
    try:
        table = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise SystemExit(f"compare: cannot read {path} ({type(error).__name__}); give the "
                         f"{plots.CSV_NAME} of a continuation run")
    missing = [c for c in REQUIRED if c not in table]
    if missing:
        raise SystemExit(f"compare: {path} lacks {', '.join(missing)}; give the "
                         f"{plots.CSV_NAME} of a continuation run")
    return table.sort_values("context").reset_index(drop=True)


def labels(paths: list[Path], tables: list[pd.DataFrame]) -> list[str]:
    """``model / text``; where runs share it, the innermost folder that tells them apart."""
    names = [plots.run_label(t) for t in tables]
    found = []
    for name, path in zip(names, paths):
        twins = [p for n, p in zip(names, paths) if n == name]
        found.append(f"{name} ({_distinct_folder(path, twins)})" if len(twins) > 1 else name)
    return found


def _distinct_folder(path: Path, twins: list[Path]) -> str:
    """The nearest folder of ``path`` whose name differs between the twin files."""
    chains = [list(reversed(p.resolve().parent.parts)) for p in twins]
    mine = list(reversed(path.resolve().parent.parts))
    for depth, part in enumerate(mine):
        if len({chain[depth] if depth < len(chain) else None for chain in chains}) > 1:
            return part
    return str(path)


def mismatches(tables: list[pd.DataFrame], names: list[str]) -> list[str]:
    """Runs of the same text whose continuation point or ground truth differ, and runs read
    with different metric sets (their readability values are not on one scale)."""
    found = []
    readings = {name: str(table["metric_set"].iloc[0]) if "metric_set" in table
                else DEFAULT_SET for name, table in zip(names, tables)}
    if len(set(readings.values())) > 1:
        found.append("runs read with different metric sets: " + "; ".join(
            f"{name} ({reading})" for name, reading in readings.items()))
    by_text: dict[str, list[tuple[str, tuple]]] = {}
    for name, table in zip(names, tables):
        key = tuple(table[c].iloc[0] if c in table else None
                    for c in ("continuation_point_tokens", "truth_sha256"))
        by_text.setdefault(str(table["text"].iloc[0]), []).append((name, key))
    for text, runs in by_text.items():
        if len({key for _, key in runs}) > 1:
            found.append(f"runs of {text} continue from different points: " + "; ".join(
                f"{name} at {key[0]} tokens (truth {key[1]})" for name, key in runs))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csvs", nargs="+", type=Path, help="continuation.csv of each run")
    parser.add_argument("--out", type=Path, default=Path("."), help="output folder")
    parser.add_argument("--name", default="comparison", help="file stem of the two pages")
    args = parser.parse_args(argv)
    tables = [read_run(path) for path in args.csvs]
    names = labels(args.csvs, tables)
    for warning in mismatches(tables, names):
        print(f"compare: warning: {warning}", file=sys.stderr)
    for path in plots.pages(list(zip(names, tables)), args.out, args.name):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
