"""Published reference rows beside a run's own, where the run is comparable.

An experiment declares the tables others published (``Experiment.published``: numbers, their
source, and the ``Protocol`` they were measured under). Whether a run's records were measured
under that protocol is decided here from the records alone: its scored samples must cover
every combination of the protocol's grid values (the same tasks, the same lengths, ...) and
count lengths in the same token unit. Only then is the run's row, computed by the
experiment's own arithmetic from the records under the protocol, shown beside the published
ones; otherwise the reader is told why not. The gate never reads any of this.
"""

from __future__ import annotations

import dataclasses
import itertools

import pandas as pd

from reporting.analysis.curve_tables import scored, short
from reporting.experiments import MODELS_OWN, O200K, Experiment, Protocol, PublishedTable

PUBLISHED_MARK = "published, not measured here"
SHOWN_MISSING = 4  # values named in a reason before "and N more"


@dataclasses.dataclass
class Reference:
    """One published table against one run's records of the experiment."""

    table: PublishedTable
    problems: list[str]  # why the run is not comparable; empty when it is
    measured: dict | None = None  # the run's row (column -> text), when comparable
    error: str = ""  # the experiment's arithmetic failed on these records

    @property
    def comparable(self) -> bool:
        return not self.problems


def references(frame: pd.DataFrame, experiment: Experiment) -> list[Reference]:
    """Every published table of the experiment, judged against ``frame`` (one run's records)."""
    found = []
    for table in experiment.published_tables():
        problems = protocol_problems(frame, experiment, table)
        reference = Reference(table, problems)
        if not problems:
            try:
                reference.measured = table.measurer()(protocol_records(frame, experiment,
                                                                       table))
            except Exception as error:  # a bug in a table's arithmetic must not lose a report
                reference.error = f"{type(error).__name__}: {error}"
        found.append(reference)
    return found


def protocol_records(frame: pd.DataFrame, experiment: Experiment,
                     table: PublishedTable) -> pd.DataFrame:
    """The experiment's records at the protocol's values (required and optional)."""
    mine = frame[frame["experiment"] == experiment.name] if not frame.empty else frame
    keep = pd.Series(True, index=mine.index)
    protocol = table.protocol
    for column in {**protocol.grid, **protocol.optional}:
        values = {_plain(v) for v in (*protocol.grid.get(column, ()),
                                      *protocol.optional.get(column, ()))}
        keep &= mine[column].map(_plain).isin(values) if column in mine else False
    return mine[keep]


def protocol_problems(frame: pd.DataFrame, experiment: Experiment,
                      table: PublishedTable) -> list[str]:
    """Why the run's records are not measured under the table's protocol (empty: they are)."""
    return problems_under(frame, experiment, table.protocol)


def problems_under(frame: pd.DataFrame, experiment: Experiment,
                   protocol: Protocol) -> list[str]:
    """Why the run's records are not measured under ``protocol`` (empty: they are)."""
    good = scored(frame, experiment)
    if good.empty:
        return ["no scored sample"]
    problems = []
    for column, values in protocol.grid.items():
        have = set(good[column].map(_plain)) if column in good else set()
        missing = [v for v in values if _plain(v) not in have]
        if missing:
            problems.append(f"{short(column)} {_some(missing)} not scored "
                            f"({len(missing)} of the table's {len(values)})")
    if not problems:  # every value is there: is every combination?
        have = set(zip(*(good[c].map(_plain) for c in protocol.grid)))
        missing = [combination for combination in itertools.product(
            *({_plain(v): None for v in values} for values in protocol.grid.values()))
            if combination not in have]
        if missing:
            problems.append(f"{len(missing)} of the table's cells not scored, e.g. " + " ".join(
                f"{short(c)}={v}" for c, v in zip(protocol.grid, missing[0])))
    if protocol.token_unit is not None:
        units = set(good["token_unit"].dropna().astype(str)) if "token_unit" in good else set()
        units = units or {O200K}  # a run before units were recorded
        if protocol.token_unit == MODELS_OWN:
            if O200K in units:
                problems.append(f"lengths in {O200K} tokens, the table's in {MODELS_OWN} (run "
                                "with --tokenizer server or hf:PATH)")
        elif units != {protocol.token_unit}:
            problems.append(f"lengths in {', '.join(sorted(units))} tokens, the table's in "
                            f"{protocol.token_unit} tokens")
    return problems


def rows(table: PublishedTable, measured: list[tuple[str, dict]]) -> tuple[list[str],
                                                                          list[list[str]]]:
    """(header, rows) of a table shown with measured rows: each measured row first (``label``
    says which run), then every published row, marked as such."""
    header = ["model", "row", *table.columns]
    body = [[label, "measured here", *(str(row.get(c, "—")) for c in table.columns)]
            for label, row in measured]
    body += [[model, PUBLISHED_MARK, *(_published(values.get(c)) for c in table.columns)]
             for model, values in table.rows]
    return header, body


def source_text(table: PublishedTable) -> str:
    return (f"Rows marked \"{PUBLISHED_MARK}\": {table.source}. Shown beside a run measured "
            f"under their protocol ({table.protocol.described}); never read by the gate. "
            + (f"{table.note} " if table.note else "")
            + "Measured rows: each value with its 95% bootstrap interval [low, high].")


def not_shown_text(table: PublishedTable, why: str) -> str:
    return (f"{table.title}: not shown, {why}. The table was measured under "
            f"{table.protocol.described}; source: {table.source}.")


def _published(value) -> str:
    return "—" if value is None else str(value)


def _some(values: list) -> str:
    shown = ", ".join(str(v) for v in values[:SHOWN_MISSING])  # 4096, not 4,096: a list
    more = len(values) - SHOWN_MISSING
    return shown + (f" and {more} more" if more > 0 else "")


def _plain(value):
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
