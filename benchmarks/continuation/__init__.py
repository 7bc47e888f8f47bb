"""Context-window continuation: how a model's prose changes as its context grows.

Spec: ../shared/specs/context-window-continuation.md (original: Context-Tester, originals.md
section 4). The model reads a novel up to a fixed continuation point and continues it; bigger
tiers add text backwards from that point. Reads top to bottom: text.py (reading and
normalising the document, sentence boundaries), grid.py (tiers x rounds, the options),
stimulus.py (the continuation point, windows, prompt), sampling.py (sending the options),
scoring.py (both readability metric sets of a text: readability.py, what they share;
reading_context_tester.py, the original's values; reading_contextrot.py, ours), table.py (one
row per tier, degradation flags, rounds without words), plots.py (the CSV and the two pages),
compare.py (several runs overlaid), test_continuation.py (glue).
"""

from reporting.experiments import Experiment

from .readability import DEFAULT_SET, METRIC_SETS

EXPERIMENT = Experiment(
    name="continuation",
    title="continuing a novel from a fixed point as the context grows backwards",
    cell=("params.context",),
    metric="scores.cloze_score",
    metric_kind="mean",
    higher_is_better=False,  # a rising cloze score means simpler, more generic prose
    chance=None,  # a readability score of free text has no value "by guessing"
    length="params.context",  # the tier, in the run's unit (o200k_base unless --tokenizer)
    render=f"{__name__}.plots:render",
    output_budget="--continuation-max-tokens",  # named when samples hit the output limit
    findings=f"{__name__}.table:findings",  # the headline metric set, rounds without words
    on_embedded=("the machinery: a novel continued at the 1k to 4k tiers and its "
                 "readability scored; 3 samples carry no verdict"),
)


def add_options(group) -> None:
    add = group.addoption
    add("--continuation-text", default=None, metavar="DOCUMENT",
        help="document to continue: a file extractous reads (txt, html, pdf, epub, docx), "
             "nltk:<Gutenberg file id> or data:<registered file> (default: "
             "nltk:austen-emma.txt)")
    add("--continuation-rounds", type=int, default=None,
        help="rounds per tier (default: 3; 1 at --scale test)")
    add("--continuation-divisions", type=int, default=1,
        help="1 or a power of two: divisions-1 evenly spaced tiers between powers of two")
    add("--continuation-start-context", type=int, default=1024, metavar="TOKENS",
        help="skip tiers below this many tokens (default: 1024)")
    add("--continuation-max-tokens", type=int, default=None, metavar="TOKENS",
        help="tokens to generate, also the ground truth's length (default: 512; 128 at "
             "--scale test)")
    add("--continuation-temp", type=float, default=1.0, help="temperature (default: 1.0)")
    add("--continuation-top-k", type=int, default=100, help="top-k (default: 100)")
    add("--continuation-top-p", type=float, default=1.0, help="top-p (default: 1.0)")
    add("--continuation-min-p", type=float, default=0.1, help="min-p (default: 0.1)")
    add("--continuation-rep-pen", type=float, default=1.01,
        help="repetition penalty (default: 1.01)")
    add("--continuation-seed", type=int, default=0,
        help="seed of round 0; round r uses seed + r (default: 0, and it is sent)")
    add("--continuation-point", type=int, default=None, metavar="TOKENS",
        help="continue from the first sentence end after this many o200k tokens of the text "
             "(default: 1.1 x the largest tier); fix it to compare runs of different contexts")
    add("--continuation-metric-set", choices=tuple(METRIC_SETS), default=DEFAULT_SET,
        help="the readability reading behind the headline cloze score, the table and the "
             "graphs: context-tester (the original's values, comparable with its published "
             "curves; default) or contextrot (its defects fixed); records hold both")
    add("--continuation-token-allowance", type=float, default=1.1, metavar="FACTOR",
        help="the model's tokenizer may need this many times o200k's count; tiers hold that "
             "much less text (default: 1.1)")
