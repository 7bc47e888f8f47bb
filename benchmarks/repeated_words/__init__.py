"""Repeated words: copy a long run of one word that holds one unique word.

Spec: ../shared/specs/repeated-words.md. Reads top to bottom: grid.py (the samples),
stimulus.py (the prompt), scoring.py (the metrics and the refusal filter), plots.py (the five
plots), test_repeated_words.py (the glue).
"""

from reporting.experiments import Experiment

EXPERIMENT = Experiment(
    name="repeated_words",
    title="exact replication of a repeated word holding one unique word",
    cell=("params.common", "params.modified", "params.n"),
    metric="scores.levenshtein",
    metric_kind="mean",
    # No chance level: a copy's similarity has no value "by guessing" (an empty output scores
    # the floor, 0, and a base of 0 supports no relative verdict whatever the chance level).
    chance=None,
    length="params.n",  # words in the sequence
    length_unit="words",
    render=f"{__name__}.plots:render",
    on_embedded=("the copying machinery; a 135M model refuses most copies, so too few "
                 "are scored for a verdict (expected)"),
)


def add_options(group) -> None:
    group.addoption("--word-pair", action="append", default=None, metavar="COMMON/MODIFIED",
                    help="repeated-words pair (repeatable; default apple/apples; 'report' "
                         "selects the seven pairs of the Chroma report)")
