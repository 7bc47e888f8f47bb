"""AA-LCR's rows of 2026 beside a run of the card's 100 questions at the native length, and
"not comparable" (with why) beside anything else."""

from __future__ import annotations

from benchmarks.aa_lcr import EXPERIMENT
from benchmarks.aa_lcr.published import TABLE
from reporting.analysis.published import references
from reporting.storage.records import SampleRecord, stimulus_hash
from reporting.storage.store import records_frame


def run(source: str, questions: int, correct=lambda q: q % 4 != 0, lengths=(0,)):
    return records_frame([SampleRecord(
        experiment="aa_lcr", sample_id=f"{source}-q{q:03d}-{length}-r00", run_id="r",
        params={"source": source, "question_id": q, "length": length, "repeat": 0, "seed": 0},
        stimulus_hash=stimulus_hash([source, q, length]), model={"name": "toy"}, output="x",
        scores={"correct": correct(q)}, details={"length_tier": 131072})
        for q in range(1, questions + 1) for length in lengths])


def test_a_run_of_the_cards_100_questions_sits_beside_the_rows():
    (reference,) = references(run("card", 100, lengths=(0, 131072)), EXPERIMENT)
    assert reference.comparable and not reference.error
    assert reference.measured["accuracy (%)"].startswith("75.0 [")
    assert reference.measured["accuracy (%)"].endswith("n=100")
    assert {model for model, _ in TABLE.rows} == {"Kimi K3", "Claude Fable 5.1", "GPT-6 Astra"}
    for _, values in TABLE.rows:
        assert set(values) == {"accuracy (%)", "version", "settings", "aggregation"}


def test_the_miniature_or_a_part_of_the_card_is_not_comparable_and_says_why():
    (mini,) = references(run("miniature", 6), EXPERIMENT)
    assert not mini.comparable and "source card not scored" in "; ".join(mini.problems)
    (part,) = references(run("card", 40), EXPERIMENT)
    assert not part.comparable
    assert "question_id 41, 42, 43, 44 and 56 more not scored" in "; ".join(part.problems)
