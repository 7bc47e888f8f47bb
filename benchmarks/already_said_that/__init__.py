"""Already said that: say whether a word was shown before, across a long dialogue with
unrelated questions thrown in.

Spec: ../shared/specs/already-said-that.md (originals.md §5 for the original's protocol).
Reads top to bottom: grid.py (variants x word lists), sources.py (the data files),
stimulus.py (distractor processing, the task description), scoring.py (parsing, the
per-sample record, the aggregate table, the random baseline), conversation.py (the turn
generator and the loop), plots.py (table and bar charts), test_already_said_that.py (glue).
"""

from reporting.experiments import Experiment

from . import grid

EXPERIMENT = Experiment(
    name="already_said_that",
    title="turns survived in a seen-this-word-before dialogue with distractors",
    cell=("params.variant", "params.max_turns"),
    metric="scores.num_turns",
    metric_kind="mean",
    # No length axis: the dialogue grows turn by turn and the metric (turns survived) is
    # itself where the model stopped holding up.
    length=None,
    # No single chance level: a coin's turns survived depend on the variant (2 with
    # distractors, 1 without: scoring.random_baseline_turns); --model builtin:random plays it.
    chance=None,
    render=f"{__name__}.plots:render",
    output_budget="--ast-max-tokens",  # named when samples hit the output limit
    on_embedded=("the machinery of a many-turn memory game; a 135M model losing it "
                 "early is expected"),
)


def add_options(group) -> None:
    group.addoption("--ast-variant", action="append", default=None, metavar="VARIANT",
                    help="already-said-that distractor variant (repeatable; default all: "
                         + ", ".join(v.replace("_", "-") for v in grid.VARIANTS) + ")")
    group.addoption("--ast-samples", type=int, default=None, metavar="N",
                    help=f"already-said-that conversations per variant (default "
                         f"{grid.TEST_SAMPLES} at --scale test, {grid.FULL_SAMPLES} at full)")
    group.addoption("--ast-max-turns", type=int, default=grid.MAX_TURNS, metavar="N",
                    help=f"already-said-that turns per conversation (default {grid.MAX_TURNS})")
    group.addoption("--ast-seed", type=int, default=0,
                    help="already-said-that seed: word lists, turns, distractor order")
    group.addoption("--ast-words", choices=("original", "wordnet"), default="original",
                    help="already-said-that word lists: the original's 500 (default) or new "
                         "ones sampled from WordNet with --ast-seed")
    group.addoption("--ast-adversarial-pool", choices=("distractors", "original", "none"),
                    default="distractors",
                    help="already-said-that adversarial words: from distractor questions and "
                         "answers (default); 'original' also adds main-task answers (yes/no); "
                         "'none' disables them")
    group.addoption("--ast-reverse-sort-ideals", choices=("corrected", "original"),
                    default="corrected",
                    help="reverse-sort-words-eng ideals: corrected (default) or the original "
                         "data with its two wrong ideals")
    group.addoption("--ast-distractor-match", choices=grid.DISTRACTOR_MATCHES,
                    default="exact",
                    help="already-said-that distractor grading: the original's exact match "
                         "(default); fuzzy (normalised, the ideal's words inside the answer) "
                         "where the source eval used it, ambiguous-sentences; fuzzy-all: on "
                         "every variant")
    group.addoption("--ast-max-tokens", type=int, default=None, metavar="TOKENS",
                    help="already-said-that output tokens per turn (default "
                         f"{grid.MAX_TOKENS['test']} at --scale test, "
                         f"{grid.MAX_TOKENS['full']} at full)")


def settings(option) -> "grid.Settings":
    """The run's protocol from the command line (``option`` is ``config.getoption``)."""
    return grid.Settings(
        variants=grid.parse_variants(option("ast_variant")),
        samples=option("ast_samples"), max_turns=option("ast_max_turns"),
        seed=option("ast_seed"), word_source=option("ast_words"),
        adversarial_pool=option("ast_adversarial_pool"),
        reverse_sort_ideals=option("ast_reverse_sort_ideals"),
        distractor_match=option("ast_distractor_match"), max_tokens=option("ast_max_tokens"))
