"""NoLiMa: needles with no literal match (Modarressi et al., ICML 2025).

The question shares almost no words with the needle ("Which character has been to Dresden?"
against "Yuki lives next to the Semper Opera House"): finding it takes a latent association.
Spec: ../shared/specs/nolima.md. Tests are built exactly as NoLiMa builds them, so the same
files and tokenizer give the same prompts byte for byte. NoLiMa's data (Adobe Research
License, non-commercial) is fetched by the user; contextrot's own needles and public-domain
haystacks give the test scale.

Reads top to bottom: needlesets.py (NoLiMa's JSON format, the tests it makes), haystacks.py
(NoLiMa's books, contextrot's own), grid.py (the samples and settings), placement.py
(NoLiMa's needle placement), stimulus.py (the draws and the messages), scoring.py
(``contains``, the base score, the effective length), published.py (the paper's table),
plots.py, test_nolima.py (the glue).
"""

from reporting.experiments import Experiment

EXPERIMENT = Experiment(
    name="nolima",
    title="needles with no literal match: latent associations beside literal ones",
    cell=("params.set", "params.question_type", "params.length"),
    metric="scores.contains",
    metric_kind="rate",
    chance=0.0,  # an open answer: the drawn name is written nowhere but in the needle
    length="params.length",  # haystack tokens, in the run's unit
    render=f"{__name__}.plots:render",
    target="details.gold",  # the needle's character: an exported inspect sample's target
    findings=f"{__name__}.scoring:findings",  # NoLiMa's base score and effective length
    # the literal-match sets are the control: the verdict reads the latent ones alone
    control=("params.literal", True),
    published=f"{__name__}.published:TABLES",
    on_embedded=("the machinery: latent and literal needles in prose; a zero is "
                 "expected of a 135M model"),
)


def add_options(group) -> None:
    add = group.addoption
    add("--nolima-dir", default=None, metavar="DIR",
        help="NoLiMa's data (needlesets/*.json, haystack/rand_shuffle/*.txt) as downloaded "
             "from huggingface.co/datasets/amodaresi/NoLiMa (Adobe Research License, "
             "non-commercial; you fetch it). Default: the data directory's nolima/")
    add("--nolima-sets", default=None, metavar="STEMS",
        help="NoLiMa needle sets, comma-separated file stems: needle_set, "
             "needle_set_ONLYDirect, needle_set_hard, needle_set_w_CoT, "
             "needle_set_w_Distractor, needle_set_MC, or contextrot's own contextrot_latent, "
             "contextrot_literal (default: needle_set,needle_set_ONLYDirect at --scale full, "
             "contextrot's two at --scale test)")
    add("--nolima-lengths", default=None, metavar="TOKENS",
        help="NoLiMa haystack lengths, e.g. 250,500,1k (default: NoLiMa's 250 to 32k at "
             "--scale full, 250,1k at --scale test)")
