"""Needle in a haystack, extended: semantic needles, shuffled haystacks, distractors, a judge.

Spec: ../shared/specs/niah-extension.md (the original: originals.md 2 and 6). Reads top to
bottom: haystack.py (Gutenberg haystacks, sentence splitting, insertion), needles.py and
needles.json (questions, needles, distractors), grid.py (the samples), stimulus.py (the
prompt at its token budget), scoring.py (the judges), plots.py (heatmaps, curves, the
distractor histogram), test_niah.py (the glue). ``python -m benchmarks.niah.bench_build``
times a 900k-token build.
"""

from reporting.experiments import Experiment

EXPERIMENT = Experiment(
    name="niah",
    title="needle in a haystack: semantic needles, shuffled haystacks, distractors",
    cell=("params.mode", "params.needle", "params.distractors", "params.length",
          "params.depth"),
    metric="scores.correct",
    metric_kind="rate",
    # An open answer judged against the needle's phrasings: a guess never names the needle.
    chance=0.0,
    length="params.length",  # tokens, in the run's unit (o200k_base unless --tokenizer)
    render=f"{__name__}.plots:render",
    target="details.needle_text",  # the needle: an exported inspect sample's target
    findings=f"{__name__}.agreement:findings",  # the LLM judge against the deterministic one
    on_embedded=("the machinery: haystacks, needles and distractors at 500 and 1k "
                 "tokens; RULER's row is this model's curve"),
)


def add_options(group) -> None:
    group.addoption("--niah-needle-file", default=None, metavar="PATH",
                    help="NIAH questions, needles and distractors (JSON; the format is in "
                         "benchmarks/niah/needles.json, the default set)")
    group.addoption("--niah-needles", default=None, metavar="WHICH",
                    help="NIAH needles: 'default' (each question's first needle), 'all', or "
                         "comma-separated needle ids (default: 'default' at --scale full, "
                         "the first question's first needle at --scale test)")
    group.addoption("--niah-modes", default="seq,shuf", metavar="MODES",
                    help="NIAH haystack modes: seq, shuf or seq,shuf (default: both)")
    group.addoption("--niah-distractors", default=None, metavar="COUNTS",
                    help="NIAH distractor counts, e.g. 0,1,4 (default: 0,1,4 at --scale full, "
                         "0,4 at --scale test)")
    group.addoption("--niah-trials", type=int, default=None, metavar="N",
                    help="NIAH trials per cell (default: 5 at --scale full, 1 at test)")
    group.addoption("--niah-include-bible", action="store_true",
                    help="NIAH: include the KJV Bible in the Gutenberg haystack (2.66M "
                         "instead of 1.51M tokens)")
    group.addoption("--niah-prompt", choices=("spec", "original", "closed"), default="spec",
                    help="NIAH prompt: the spec's template verbatim (default), the original's "
                         "exact f-string (indented), or the spec's with closed tags")
