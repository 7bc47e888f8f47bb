"""LongMemEval, focused vs full: Chroma's third context-rot experiment, and a memory curve.

Questions about a user's chat history, asked with only the relevant sessions (focused) and
with the whole history (full), on the same questions; paired: the gap with its interval and
McNemar's exact test, by question type, abstentions apart from wrong answers. Spec:
../shared/specs/longmemeval.md (originals.md 2.10). Reads top to bottom: grid.py (sources,
conditions, settings), chroma.py (Chroma's 306 rows), longmemeval_s.py (LongMemEval's own
file), generate.py (contextrot's own histories), history.py (conditions, padding, the reader
prompt), stimulus.py (a sample's prompt), scoring.py (the judges, abstention, the paired
findings), published.py (Chroma's GPT-4.1 rows), plots.py, test_longmemeval.py (the glue).
"""

from reporting.experiments import Experiment

from . import grid

EXPERIMENT = Experiment(
    name="longmemeval",
    title="questions about a chat history: focused (its evidence) vs full, and by length",
    cell=("params.source", "params.condition", "params.target", "params.question_type"),
    metric="scores.correct",
    metric_kind="rate",
    # An open answer: a guess names the right value or count about never.
    chance=0.0,
    # The prompt's tokens rounded up to a power of two (history.length_tier): Chroma's focused
    # prompts (~300 tokens) sit at 256-1k, its full ones (~113k) at 128k.
    length="details.length_tier",
    render=f"{__name__}.plots:render",
    target="details.answer",  # the answer: an exported inspect sample's target
    findings=f"{__name__}.scoring:findings",  # the paired test, by type, abstentions
    published=f"{__name__}.published:TABLES",  # Chroma's GPT-4.1 run, never gated
    output_budget="--longmemeval-max-tokens",
    on_embedded=("the machinery: chat histories, focused and full; a zero is expected "
                 "of a 135M model"),
)


def add_options(group) -> None:
    add = group.addoption
    add("--longmemeval-source", choices=grid.SOURCE_CHOICES, default="auto",
        help="LongMemEval questions: 'chroma' (Chroma's 306 focused/full prompts), "
             "'longmemeval' (LongMemEval's longmemeval_s: a curve by length), 'generated' "
             "(contextrot's own histories, judged without an LLM) or 'auto' (default: a data "
             "source present in the data directory when --judge-model is given, else "
             "generated)")
    add("--longmemeval-file", action="append", default=None, metavar="PATH",
        help="LongMemEval: read this file as is: Chroma's rows (parquet, CSV or JSONL; give "
             "Chroma's focused and full CSVs as two options) or, with --longmemeval-source "
             "longmemeval, a longmemeval_s.json")
    add("--longmemeval-lengths", default=None, metavar="LENGTHS",
        help="LongMemEval: padded history lengths between focused and full, e.g. 8k,16k,64k "
             "(k = 1,024 tokens) or 'none' (default 8k,16k,32k,64k at --scale full, none at "
             "--scale test); not for Chroma's rows")
    add("--longmemeval-questions", type=int, default=None, metavar="N",
        help="LongMemEval: the first N questions (default: all of a data source; 60 generated, "
             "3 at --scale test)")
    add("--longmemeval-types", default=None, metavar="TYPES",
        help="LongMemEval's file: question types kept (default Chroma's three: "
             "knowledge-update,temporal-reasoning,multi-session)")
    add("--longmemeval-judge", choices=grid.JUDGES, default="chroma",
        help="LongMemEval with --judge-model: Chroma's judge prompt (default) or LongMemEval's "
             "per-type prompts")
    add("--longmemeval-max-tokens", type=int, default=None, metavar="TOKENS",
        help="LongMemEval: the answer's output budget (default 1000 at --scale full, as "
             "Chroma's runs; 48 at --scale test)")
    add("--longmemeval-seed", type=int, default=0,
        help="LongMemEval: seed of the generated histories and of the padding order")
