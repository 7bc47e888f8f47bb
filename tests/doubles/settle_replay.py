"""A ``--settle`` run replayed on a known falling curve, with no server: every sample of a
grid scored as the scripted ``fading:HALF`` model would score it (seeded), and the rounds cut
and decided as the run cuts and decides them (``fixtures/pytest_face/settling.py``,
``reporting/analysis/settling.py``). For tests/reporting/test_settling.py and
scripts/settle_simulation.py."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Sequence

import numpy as np

from fixtures.pytest_face.settling import ROUNDS, round_of
from reporting.analysis.settling import decide
from reporting.analysis.verdict_settings import MIN_SAMPLES, VerdictSettings
from reporting.analysis.verdicts import _Rules
from reporting.experiments import Experiment
from reporting.storage.records import SampleRecord
from reporting.storage.store import records_frame

from tests.reporting.helpers import record

SIMILARITY = Experiment(name="toy_copy", title="a copy's similarity by length",
                        cell=("params.length",), metric="scores.similarity",
                        metric_kind="mean", length="params.length")


@dataclasses.dataclass(frozen=True)
class Grid:
    lengths: tuple  # in words, ascending
    samples: tuple  # samples at each length


# repeated words' full grid (one word pair) up to 2,500 words, where the scripted model's
# context ends; and the test scale with 14 word pairs (42 samples at each length)
FULL = Grid((25, 50, 75, 100, 250, 500, 750, 1000, 2500), (25, 50, 75, 100, 126, 101, 108, 101, 101))
TEST = Grid((25, 50, 100, 250, 500), (42,) * 5)


def copied(length: int, index: int, seed: int, half: float) -> float:
    """The scripted fading model's score: an exact copy (1.0) with probability
    2^(-length/half), else half of it (0.5); drawn from a seeded hash."""
    digest = hashlib.sha256(f"{seed}/{length}/{index}".encode()).digest()
    return 1.0 if int.from_bytes(digest[:8], "big") / 2 ** 64 < 2 ** (-length / half) else 0.5


def true_mean(length: int, half: float) -> float:
    """The curve ``copied`` draws from: its expected score at ``length``."""
    return 0.5 + 0.5 * 2 ** (-length / half)


def true_effective_length(grid: Grid, half: float,
                          settings: VerdictSettings = VerdictSettings()) -> float:
    """The verdict's own relative rule applied to the expected curve: what an endless grid
    would state."""
    rules = _Rules.of(SIMILARITY, settings, np.asarray(grid.lengths, dtype=float))
    means = np.asarray([[true_mean(length, half) for length in grid.lengths]])
    return float(rules.at(rules.statistics(means)[1])[0])


def settled_run(seed: int, half: float, steps: int = 0, grid: Grid = FULL
                ) -> tuple[list[SampleRecord], list[SampleRecord]]:
    """(every record of the grid, the records a --settle run keeps): rounds cut as the run
    cuts them, each round run where the decision from the rounds before it needs it."""
    records = {length: [record("r", SIMILARITY, length, i, copied(length, i, seed, half))
                        for i in range(count)]
               for length, count in zip(grid.lengths, grid.samples)}
    kept: list = []
    for round_ in range(ROUNDS):
        decision = decide(records_frame(kept), SIMILARITY, grid.lengths, steps=steps) \
            if round_ else None
        if decision is not None and decision.settled:
            break
        for length, samples in records.items():
            if decision is None or decision.needs(length):
                kept += [r for i, r in enumerate(samples)
                         if round_of(i, len(samples), MIN_SAMPLES) == round_]
    return [r for samples in records.values() for r in samples], kept
