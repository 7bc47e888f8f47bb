"""``-k PART`` selects exactly the cases whose id has PART, in every experiment's grid
(issue 12 item 11: ``-k n25`` selected n25, n250 and n2500)."""

import pytest

from benchmarks.already_said_that import grid as already_said_that
from benchmarks.continuation import grid as continuation
from benchmarks.graphwalks import grid as graphwalks
from benchmarks.longmemeval import grid as longmemeval
from benchmarks.mrcr import grid as mrcr
from benchmarks.niah import grid as niah
from benchmarks.niah import needles
from benchmarks.nolima import grid as nolima
from benchmarks.nolima import needlesets as nolima_sets
from benchmarks.re3 import grid as re3
from benchmarks.repeated_words import grid as repeated_words
from benchmarks.ruler import grid as ruler
from benchmarks import experiment_packages
from fixtures.pytest_face.parametrize import inexact_parts, tokens_id

from ..subprocess_pytest import run_pytest


EXPERIMENTS = [package.EXPERIMENT.name for package in experiment_packages()]


def names(experiment: str) -> list[str]:
    """What ``-k`` matches besides the id: the test's and module's names, the markers."""
    return [f"test_{experiment}", f"test_{experiment}.py", experiment, "benchmarks", "smoke"]


def repeated_words_ids():
    return [s.id for s in repeated_words.build("full", list(repeated_words.REPORT_PAIRS))]


def niah_ids():
    pairs = [(q.id, n.id) for q in needles.load() for n in q.needles]
    return [s.id for s in niah.build("full", pairs, trials=12)]  # more trials than t0-t9


def continuation_ids():
    return [continuation.ContinuationSample("emma", context, r).id
            for divisions in (1, 2, 256) for context in
            continuation.tiers(1 << 20, divisions=divisions) for r in range(12)]


def already_said_that_ids():
    return [s.id for turns in (already_said_that.MAX_TURNS, 4, 10)
            for s in already_said_that.build(
                "full", already_said_that.Settings(max_turns=turns))]


def mrcr_ids():
    every = mrcr.Settings(sources=mrcr.SOURCES, needles=mrcr.NEEDLES,
                          bins=mrcr.TEST_BINS + mrcr.BINS, samples=120, seed=0,
                          merge_user_messages=False, max_tokens=None, max_passage=800,
                          original_dir=None, missing_original=None)
    return [s.id for s in mrcr.build(every)]  # more samples than s000-s099


def longmemeval_ids():
    every = longmemeval.Settings(scale="full", source="generated", files=(), questions=500,
                                 types=longmemeval.CHROMA_TYPES, seed=0, judge="chroma",
                                 lengths=(768, 1024, 8192, 16384, 32768, 65536, 1 << 20),
                                 max_tokens=1000, has_judge=False)
    generated = [s.id for s in longmemeval.build(every)]  # 500 questions: q000-q499
    return generated + [i.replace("gen-", "chr-") for i in generated]


def graphwalks_ids():
    every = graphwalks.Settings(
        sources=graphwalks.SOURCES, lengths=graphwalks.LENGTHS + graphwalks.TEST_LENGTHS
        + (1536, 5000), samples=120, prompt="2025", seed=0, max_tokens=16384,
        temperature=None, original_dir=None, missing_original=None)
    return [s.id for s in graphwalks.build(every)]  # more samples than s000-s099


def re3_ids():
    strategies = ("camelcase", "digitspace", "lowercase", "uppercase")
    return [s.id for s in re3.phase1(re3.counts("full", 1))
            + re3.phase2(["C04", "C05", "C10", "C12", "C14"], strategies, re3.counts("full", 2))
            + re3.phase3(["C04", "C05", "C10"], "camelcase", re3.counts("full", 3))]


def ruler_ids():
    lengths = ruler.LENGTHS + ruler.LONG_LENGTHS + ruler.TEST_LENGTHS + (512, 5000)
    return [s.id for samples in (12, 1000) for s in ruler.build(tuple(ruler.TASKS), lengths,
                                                                 samples)] \
        + [f"{task}-unavailable" for task in ruler.TASKS if ruler.TASKS[task].needs_data]


def nolima_ids():
    own = tuple(nolima_sets.OWN_SETS)
    tests = {stem: nolima_sets.load(path) for stem, path in nolima_sets.OWN_SETS.items()}
    lengths = nolima.FULL_LENGTHS + (100, 1500, 64000, 128000)
    return [s.id for scale in ("full", "test") for s in nolima.build(
        nolima.Settings(scale, nolima_sets.HERE, own, lengths, None), tests)] \
        + ["nolima_data-unavailable"]


@pytest.mark.parametrize("experiment, ids", [
    ("repeated_words", repeated_words_ids), ("niah", niah_ids),
    ("continuation", continuation_ids), ("already_said_that", already_said_that_ids),
    ("re3", re3_ids), ("ruler", ruler_ids), ("mrcr", mrcr_ids), ("nolima", nolima_ids),
    ("longmemeval", longmemeval_ids), ("graphwalks", graphwalks_ids)])
def test_every_id_part_selects_exactly_its_cases(experiment, ids):
    found = sorted(set(ids()))  # the union of several runs' grids (phases, options)
    assert inexact_parts(found, names(experiment)) == {}


def test_the_issues_case_and_the_readmes_examples():
    ids = repeated_words_ids()
    assert {i.split("-")[1] for i in ids if "n25w" in i.lower()} == {"n25w"}
    lengths = {i.split("-")[2] for i in niah_ids() if "ctx100k" in i.lower()}
    assert lengths == {"ctx100k"}
    assert inexact_parts(["a-n25", "a-n250"]) == {"n25": ["a-n250"]}  # the check does find it


def test_lengths_read_in_thousands_and_end_in_k():
    assert [tokens_id("ctx", n) for n in (500, 1_000, 2_500, 100_000, 1_234)] == \
        ["ctx0.5k", "ctx1k", "ctx2.5k", "ctx100k", "ctx1.234k"]


def test_an_experiment_that_cannot_build_its_grid_never_blocks_the_others(tmp_path):
    """--max-context 800 is below continuation's smallest tier: continuation becomes one
    placeholder case (failing with that line when selected); the others collect as usual."""
    done = run_pytest("--collect-only", "-q", "--max-context", "800",
                      "--model", "builtin:random", "--results-dir", str(tmp_path))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    collected = done.stdout.splitlines()
    assert "benchmarks/continuation/test_continuation.py::test_continuation[unavailable]" \
        in collected
    assert any("test_repeated_words[" in line for line in collected)
    assert any("test_niah[" in line for line in collected)


@pytest.mark.parametrize(("expression", "selects"), [
    ("", {"niah", "ruler", "repeated_words"}),
    ("niah", {"niah"}),
    ("not niah", {"ruler", "repeated_words"}),
    ("smoke", {"niah", "ruler", "repeated_words"}),  # one case of each is a smoke case
    ("niah and not smoke", {"niah"}),
    ("ruler or repeated_words", {"ruler", "repeated_words"}),
    ("niah(kind=1)", {"niah", "ruler", "repeated_words"}),  # arguments: pytest decides
    ("niah and (", {"niah", "ruler", "repeated_words"}),  # pytest reports the bad expression
])
def test_an_experiment_left_out_by_m_is_not_built(expression, selects):
    from fixtures.pytest_face.parametrize import may_select

    assert {e for e in ("niah", "ruler", "repeated_words") if may_select(expression, e)} \
        == selects


def test_m_selects_the_same_cases_with_grids_left_unbuilt(tmp_path):
    """Every case -m selects is collected as before; each left-out experiment is one
    deselected case, not its whole grid."""
    def collected(*selection: str) -> tuple[list[str], str]:
        done = run_pytest("--collect-only", "-q", "--model", "builtin:random",
                          "--results-dir", str(tmp_path), *selection)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        lines = done.stdout.splitlines()
        return [line for line in lines if "::" in line], lines[-1]

    every, _ = collected()
    for expression, prefixes in (("niah or mrcr", ("benchmarks/niah/", "benchmarks/mrcr/")),
                                 ("smoke and not re3", None)):
        cases, summary = collected("-m", expression)
        if prefixes is not None:
            assert cases == [c for c in every if c.startswith(prefixes)]
            assert f"({len(every) - len(cases)} deselected)" not in summary  # grids unbuilt
            # one case for each of the other experiments
            assert f"({len(EXPERIMENTS) - 2} deselected)" in summary
        else:
            assert len(cases) == len(EXPERIMENTS) - 1  # one smoke case each, but re3's
            assert not any(c.startswith("benchmarks/re3/") for c in cases)
