"""A text's readability in both metric sets, one of them the headline: pure functions, the
same for continuations, the ground truth and the context window.

Two named sets of the same ten metrics (``readability.METRICS``):

- ``context-tester``: Context-Tester's reading, its values exactly (``reading_context_tester``);
  the default headline, so curves sit beside the ones its users publish;
- ``contextrot``: contextrot's reading, the original's defects fixed (``reading_contextrot``).

Every text gets both, under ``context_tester`` and ``contextrot``, and the headline set's
values again at the top level, where the experiment's headline metric (``scores.cloze_score``)
and the tier table read them: the option ``--continuation-metric-set`` picks the set, and no
reporting code needs to know there are two.
"""

from __future__ import annotations

import functools

from . import reading_context_tester, reading_contextrot
from .readability import DEFAULT_SET, set_field

SETS = {"context-tester": reading_context_tester, "contextrot": reading_contextrot}


def score(text: str, headline: str = DEFAULT_SET) -> dict:
    """Both sets' metrics, each under its key, and the headline set's at the top level."""
    readings = {set_field(name): reading.metrics(text) for name, reading in SETS.items()}
    return {**readings[set_field(headline)], **readings}


@functools.lru_cache(maxsize=8)
def reference(text: str, headline: str = DEFAULT_SET) -> dict:
    """``score`` of a reference text (the truth, a tier's context window): every round of a
    tier reads the same ones, so each is scored once per process. Treat it as read-only."""
    return score(text, headline)
