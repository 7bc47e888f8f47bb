"""How an experiment declares itself to the reporting layer.

Reporting never imports an experiment: the root conftest hands it the catalogue through the
``pytest_contextrot_experiments`` hook. A declaration says which record fields make a grid
cell, which score is the headline, which column is the input length, and how to draw the
experiment's plots from its records.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pytest

if TYPE_CHECKING:  # xdist workers import this module: pandas is not loaded for a type name
    import pandas as pd

Renderer = Callable[["pd.DataFrame", Path], list[Path]]


@dataclasses.dataclass(frozen=True)
class Experiment:
    name: str  # also its pytest marker and the records' ``experiment`` field
    title: str
    cell: tuple[str, ...]  # record columns (e.g. "params.n") that make one grid cell
    metric: str  # the headline score column, e.g. "scores.levenshtein"
    metric_kind: str = "mean"  # "rate" (0/1 scores: Wilson interval) or "mean" (bootstrap)
    higher_is_better: bool = True
    # Draws the plots from this experiment's records: the function, or "module:function",
    # imported only when plots are drawn (so a worker never loads pandas or matplotlib).
    render: Renderer | str | None = None
    # The record column that is the input length (e.g. "params.length", in o200k tokens or the
    # experiment's own unit); None when the experiment has no length axis. The verdicts
    # (effective length, area under the curve) and the terminal's curve table read it.
    length: str | None = None
    # What the length axis counts: "tokens" (in the run's unit, --tokenizer: o200k_base or a
    # model's own, read from the records) or the experiment's own unit, e.g. "words".
    length_unit: str = "tokens"
    # More findings from this experiment's records, beside the verdict: a function (or
    # "module:function") of its frame giving a JSON-able dict, empty when there is nothing
    # to say; its "lines" are printed in the terminal. summary.json keeps the whole dict.
    findings: Callable[["pd.DataFrame"], dict] | str | None = None
    # The headline metric's value by guessing (0.0 for accuracy on open answers, 0.5 for a
    # yes/no answer); None when there is no such level. A base score at or below it supports
    # no verdict: every length would hold up relative to it.
    chance: float | None = None
    # The experiment's own fixed bar for the absolute rule (RULER: 0.856, Llama-2-7B's 4k
    # score); --verdict-absolute overrides it. None: the default for the metric's kind.
    absolute: float | None = None
    # Published reference tables (other people's numbers for this experiment, with the
    # protocol they were measured under): a tuple of ``PublishedTable``, or "module:NAME",
    # imported only when a report or leaderboard is written. Shown beside a run measured under
    # the same protocol, never read by the gate.
    published: tuple["PublishedTable", ...] | str = ()
    # The option that raises the answer's output budget (e.g. "--mrcr-max-tokens"), named
    # when samples hit the output limit; None: the budget is the protocol's own.
    output_budget: str | None = None
    # A record column whose groups weigh equally at each length (RULER: "params.task", its
    # per-length score is the mean of the task scores): the verdict's curve is then the
    # mean of the groups' means, each group resampled on its own. None: samples pooled.
    stratum: str | None = None
    # Records that are a control, not the measurement (NoLiMa's literal-match sets): a
    # (record column, value) pair whose records the verdict leaves out (they keep their
    # curve, table and plots); the value may be a function of the column's value that says
    # a record is one (agent accumulation: every condition but full). None: the verdict
    # reads every record.
    control: tuple[str, object] | None = None
    # The record column holding what a right answer is (RE3: "details.expected_answer"), the
    # target of an exported inspect sample (reporting/render/inspect_log.py); None: none.
    target: str | None = None
    # What a run on the embedded model (SmolLM2-135M, the default with no --model) shows of
    # this experiment, in one plain phrase: its machinery, a zero that is expected of a 135M
    # model. Shown beside the experiment's row in the overview and the terminal when the run
    # was on the embedded model, so that a newcomer's zero does not read as a fault.
    on_embedded: str | None = None
    # How the field aggregates this experiment's curve (OpenAI's per-bin means, Google's
    # cumulative average and pointwise value, ...): a tuple of ``Aggregation``, or
    # "module:NAME", imported only when a run's findings are written. Each is computed from
    # the run's records beside the per-length curve (reporting/analysis/aggregations.py),
    # with the published rows of its own kind. Never read by the gate.
    aggregations: tuple["Aggregation", ...] | str = ()

    def __post_init__(self) -> None:
        if self.metric_kind not in ("rate", "mean"):
            raise ValueError(f"metric_kind must be 'rate' or 'mean', not {self.metric_kind!r}")

    def renderer(self) -> Renderer | None:
        return _resolve(self.render)

    def finder(self) -> Callable[["pd.DataFrame"], dict] | None:
        return _resolve(self.findings)

    def published_tables(self) -> tuple["PublishedTable", ...]:
        return tuple(_resolve(self.published) or ())

    def declared_aggregations(self) -> tuple["Aggregation", ...]:
        return tuple(_resolve(self.aggregations) or ())


# What a table's lengths count, when a run's records must count the same (``token_unit``).
O200K = "o200k_base"
MODELS_OWN = "the model's own tokenizer"  # any unit but o200k_base: server:..., hf:...


@dataclasses.dataclass(frozen=True)
class Protocol:
    """What a published table was measured under, in the terms of a run's records."""

    # record column -> the values the table was measured at: a run is comparable when its
    # scored samples cover every combination of them (other values are left out of its row)
    grid: dict[str, tuple]
    # O200K, MODELS_OWN, or None when the lengths do not depend on the run's unit
    token_unit: str | None
    described: str  # for people: "all 13 tasks at 4K to 128K tokens, ..."
    # record column -> more values the table has columns for, read where the run has them
    # (MRCR's bins past 128k: AUC@1M), never required
    optional: dict[str, tuple] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class PublishedTable:
    """Numbers someone else published for this experiment, and how to compute a run's row
    in the same columns."""

    title: str
    source: str  # where the numbers were published (a URL, with its version or snapshot)
    protocol: Protocol
    columns: tuple[str, ...]
    rows: tuple[tuple[str, dict], ...]  # (model, {column: value as published})
    # the run's records under the protocol (only its values) -> {column: text}; "module:name"
    # or the function
    measure: Callable[["pd.DataFrame"], dict] | str
    note: str = ""  # what still differs from the original's measurement

    def measurer(self) -> Callable[["pd.DataFrame"], dict]:
        return _resolve(self.measure)


AGGREGATION_KINDS = ("per_bin", "cumulative", "pointwise")


@dataclasses.dataclass(frozen=True)
class PublishedAggregate:
    """One published number of an aggregation's kind, with what it was measured under."""

    model: str
    values: dict  # label (e.g. "512K-1M", "128K") -> value as published (%)
    source: str  # the card or page, as precisely as known
    version: str  # the card's version or date
    settings: str  # effort, thinking, as the card states them ("not stated": not stated)


@dataclasses.dataclass(frozen=True)
class Aggregation:
    """A lab's way of turning the curve by length into its published numbers.

    ``kind``: "per_bin" (the mean at each length in ``lengths``), "cumulative" (the mean of
    the per-length means over every length in ``lengths``, each weighing equally: a
    "cumulative average up to" the largest) or "pointwise" (the mean at the one length in
    ``lengths``). Computed per value of the ``series`` columns (MRCR: source and needles).
    ``published`` rows are compared with it only where ``protocol`` holds for the run's
    records (reporting/analysis/published.py's rule); ``protocol`` None: no run here is
    measured as they were, and ``not_comparable`` says why.
    """

    name: str  # named after its source: "OpenAI per-bin"
    source: str  # where the aggregation is defined
    kind: str
    lengths: tuple[int, ...]  # values of the experiment's length column
    labels: tuple[str, ...] = ()  # the published label of each length ("4K-8K"); default str
    series: tuple[str, ...] = ()
    published: tuple[PublishedAggregate, ...] = ()
    protocol: Protocol | None = None
    not_comparable: str = ""

    def __post_init__(self) -> None:
        if self.kind not in AGGREGATION_KINDS:
            raise ValueError(f"Aggregation kind must be one of {AGGREGATION_KINDS}, not "
                             f"{self.kind!r}")
        if self.kind == "pointwise" and len(self.lengths) != 1:
            raise ValueError("a pointwise aggregation reads exactly one length")

    def label(self, length) -> str:
        return dict(zip(self.lengths, self.labels)).get(length, str(length))


def length_unit(experiment: Experiment, frame: "pd.DataFrame") -> str:
    """What the experiment's lengths count, for people: its own unit ("words"), or tokens in
    the unit its records were built in ("o200k_base tokens")."""
    if experiment.length_unit != "tokens":
        return experiment.length_unit
    return f"{record_units(frame) or 'o200k_base'} tokens"


def record_units(frame: "pd.DataFrame") -> str:
    """The token units the records were built in (``token_unit``), joined by ", "; "" when
    no record says (a run before units were recorded: o200k_base)."""
    if frame.empty or "token_unit" not in frame:
        return ""
    return ", ".join(sorted({str(u) for u in frame["token_unit"].dropna()}))


def _resolve(reference):
    """A function given as itself or as "module:function" (imported on first use)."""
    if not isinstance(reference, str):
        return reference
    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)


CATALOG_KEY = pytest.StashKey[dict]()


def catalog(config: pytest.Config) -> dict[str, Experiment]:
    """Every declared experiment by name, asked of the hook once per process."""
    if CATALOG_KEY not in config.stash:
        found: dict[str, Experiment] = {}
        for declared in config.hook.pytest_contextrot_experiments(config=config):
            for experiment in declared or ():
                found[experiment.name] = experiment
        config.stash[CATALOG_KEY] = found
    return config.stash[CATALOG_KEY]
