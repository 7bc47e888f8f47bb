"""AA-LCR: Artificial Analysis Long Context Reasoning, at its own length and swept past it.

100 human-written questions, each over a set of real documents (about 100k tokens) that must
be read together; scored by an LLM equality checker. Published at one length: here the same
questions also run with whole documents of the other sets around their own, at 128k to 1M
tokens, paired by question. Spec: the dataset card (huggingface.co/datasets/
ArtificialAnalysis/AA-LCR); docs/experiments/aa-lcr.md. Reads top to bottom: grid.py
(sources, lengths, repeats, settings), dataset.py (the card's CSV and zip), miniature.py
(the offline miniature in the same layout), stimulus.py (the card's prompt, the sweep),
scoring.py (the rule, the card's judge, the findings), published.py (Artificial Analysis's
rows), plots.py, test_aa_lcr.py (the glue).
"""

from reporting.experiments import Experiment

from . import grid

EXPERIMENT = Experiment(
    name="aa_lcr",
    title="AA-LCR: reasoning over a set of documents, at its length and swept past it",
    cell=("params.source", "params.length"),
    metric="scores.correct",
    metric_kind="rate",
    chance=0.0,  # open answers
    # the prompt's tokens rounded up to a power of two: a native prompt's own tier, a swept
    # one's length (it fills 95-100% of it)
    length="details.length_tier",
    render=f"{__name__}.plots:render",
    target="details.answer",
    findings=f"{__name__}.scoring:findings",
    published=f"{__name__}.published:TABLES",
    output_budget="--aa-lcr-max-tokens",
    on_embedded="the machinery on a miniature: the card's prompt and the sweep; a zero is "
                "expected of a 135M model",
)


def add_options(group) -> None:
    add = group.addoption
    add("--aa-lcr-source", choices=grid.SOURCE_CHOICES, default="auto",
        help="AA-LCR questions: 'card' (the user-fetched dataset; needs --judge-model), "
             "'miniature' (six offline questions in the same layout) or 'auto' (default: the "
             "card's files where present, else the miniature)")
    add("--aa-lcr-dir", default=None, metavar="DIR",
        help="AA-LCR: read AA-LCR_Dataset.csv and extracted_text/AA-LCR_extracted-text.zip "
             "from DIR, unverified (default: the data directory's aa_lcr/, sha256-checked)")
    add("--aa-lcr-lengths", default=None, metavar="LENGTHS",
        help="AA-LCR sweep lengths in the run's tokens beside the native one, e.g. "
             "128k,256k,512k,1m (the default at --scale full; 1k at --scale test), or 'none'")
    add("--aa-lcr-questions", type=int, default=None, metavar="N",
        help="AA-LCR: the first N questions (default all; 2 at --scale test)")
    add("--aa-lcr-repeats", type=int, default=1, metavar="N",
        help="AA-LCR: repeats of each question and length (default 1); the findings give "
             "the mean over repeats and questions with its interval")
    add("--aa-lcr-max-tokens", type=int, default=None, metavar="TOKENS",
        help="AA-LCR: the answer's output budget (default: none sent at --scale full, 32 "
             "at --scale test)")
    add("--aa-lcr-seed", type=int, default=0,
        help="AA-LCR: seed of the sweep's filler order and positions (default 0)")
