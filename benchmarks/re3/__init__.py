"""RE3: prompt repetition with re-tokenized variants (14 patterns of A and B).

Spec: ../shared/specs/re3-prompt-repetition.md. Reads top to bottom: transforms.py (the
prompt transformer: B strategies), patterns.py (the configuration builder: the 14 patterns and
their assembly), items.py (GSM8K, MMLU and secret-number haystack items), stimulus.py (the
prompt), grid.py (each phase's samples), scoring.py (the result evaluator), summary.py (the
summary table with paired tests), phases.py (phases 2 and 3 choose from the store), plots.py
(the summary CSV and the plots), test_re3.py (the glue: the orchestrator is pytest, the model
interface the ``model`` fixture, the data recorder the ``record`` fixture).
"""

from reporting.experiments import Experiment

from .patterns import DEFAULT_SEPARATOR, SEPARATOR_PRESETS
from .transforms import STRATEGIES

EXPERIMENT = Experiment(
    name="re3",
    title="prompt repetition with re-tokenized variants (RE2 and beyond)",
    cell=("params.phase", "params.benchmark", "params.config_id", "params.b_strategy"),
    metric="scores.correct",
    metric_kind="rate",
    # No length axis: RE3 varies the repetition pattern and the task; its prompt lengths
    # follow from those (GSM8K, MMLU, 1k-8k haystacks), so a curve over them would mix tasks.
    length=None,
    # No single chance level: the tasks mix four-option MMLU (1/4) with open answers (0).
    chance=None,
    render=f"{__name__}.plots:render",
    target="details.expected_answer",  # the answer: an exported inspect sample's target
    output_budget="--re3-max-tokens",  # named when samples hit the output limit
    on_embedded=("the machinery: MMLU questions and their re-tokenized variants; near "
                 "chance is expected of a 135M model"),
)


def add_options(group) -> None:
    group.addoption("--re3-phase", type=int, choices=(1, 2, 3), default=1,
                    help="RE3 phase: 1 = all 14 configurations with B1 on GSM8K; 2 = phase 1's "
                         "top configurations with every B strategy; 3 = phase 2's top "
                         "configurations with its best strategy on every benchmark (default: 1)")
    group.addoption("--re3-from-run", default=None, metavar="RUN_ID",
                    help="RE3 phases 2-3: the run holding the earlier phase's records (default: "
                         "the newest such run in --results-dir)")
    group.addoption("--re3-top", type=int, default=None, metavar="N",
                    help="RE3 phases 2-3: configurations taken from the earlier phase "
                         "(default: 5 in phase 2, 3 in phase 3)")
    group.addoption("--re3-strategy", choices=STRATEGIES, default="camelcase",
                    help="RE3 phase 1: the B strategy (default: camelcase, B1)")
    group.addoption("--re3-strategies", default=None, metavar="LIST",
                    help=f"RE3 phase 2: comma-separated B strategies (default: all of "
                         f"{','.join(STRATEGIES)})")
    for name, full in (("gsm8k", "50 in phases 1-2, 100 in phase 3"), ("mmlu", "50"),
                       ("niah", "17 per context length")):
        group.addoption(f"--re3-{name}-items", type=int, default=None, metavar="N",
                        help=f"RE3: {name} items per configuration (full scale: {full}; "
                             f"test scale: a handful)")
    group.addoption("--re3-separator", default=DEFAULT_SEPARATOR, metavar="CUE",
                    help=f"RE3: the cue between repeats, a preset ({', '.join(SEPARATOR_PRESETS)}) "
                         "or a literal string in which \\n is a line break (default: re2, "
                         "'\\n\\nRead the question again: ')")
    group.addoption("--re3-cot", action="store_true",
                    help="RE3: end the prompt with \"A: Let's think step by step.\" (RE2's CoT)")
    group.addoption("--re3-max-tokens", type=int, default=None, metavar="TOKENS",
                    help="RE3: output budget of a GSM8K answer (default: 512 full, 128 test); "
                         "MMLU and NIAH answers get 48 and 24")
