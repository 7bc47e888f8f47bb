"""GraphWalks: OpenAI's graph-traversal eval (multi-hop reasoning over a long edge list).

The prompt is a directed graph written as an edge list that fills the context; the model
returns a set of nodes: those at exactly depth D of a breadth-first search from a node, or
the parents of a node. Graded by set F1. Spec: ../shared/specs/graphwalks.md.

Two sources: the original's rows (openai/graphwalks, sent unchanged) where its files are
there, and graphs built offline (seeded, byte-identical anywhere) grown to fill each length
in the run's unit. Reads top to bottom: grid.py (sources x problem types x lengths, the
settings), graphs.py (the generator's graphs and exact answers), stimulus.py (the
template, a graph fitted to its length), original.py (the original's rows and their bins),
scoring.py (set F1, strict and flexible; the findings), published.py (the model cards'
numbers), plots.py, test_graphwalks.py (the glue).
"""

from reporting.experiments import Experiment

from . import grid

EXPERIMENT = Experiment(
    name="graphwalks",
    title="GraphWalks: the nodes at depth D of a BFS, or a node's parents, in a long edge list",
    cell=("params.source", "params.problem_type", "params.length"),
    metric="scores.f1",
    metric_kind="mean",
    length="params.length",  # prompt tokens in the run's unit (a bin's top for original rows)
    render=f"{__name__}.plots:render",
    findings=f"{__name__}.scoring:findings",
    chance=0.0,  # guessing ids from thousands of nodes finds none
    published=f"{__name__}.published:TABLES",  # the model cards' rows, never gated
    output_budget="--graphwalks-max-tokens",
    stratum="params.problem_type",  # BFS and parents weigh equally at each length
    on_embedded="the machinery: edge lists and graph walks; a zero is expected of a 135M model",
)


def add_options(group) -> None:
    add = group.addoption
    add("--graphwalks-source", choices=grid.SOURCE_CHOICES, default="auto",
        help="GraphWalks samples: 'generated' (graphs built offline), 'original' "
             "(openai/graphwalks' rows, sent unchanged) or 'auto' (default: the original's "
             "rows where its files are present, else generated)")
    add("--graphwalks-lengths", default=None, metavar="LENGTHS",
        help="GraphWalks prompt lengths in the run's tokens, e.g. 1k,8k,128k,1m (k = 1,024; "
             "default 1k to 1m by powers of two at --scale full, 1k,1280 at --scale test); "
             "an original row is run at the smallest length that holds its prompt")
    add("--graphwalks-samples", type=int, default=None, metavar="N",
        help="GraphWalks samples per problem type and length (default 50; 1 at --scale test)")
    add("--graphwalks-prompt", choices=("2025", "2026"), default="2025",
        help="GraphWalks prompt: '2025' (default), the wording of the published rows and "
             "scores, or '2026', the revision asking for nodes at exactly depth D (generated "
             "graphs: the template; original rows: those dated 02-27-2026)")
    add("--graphwalks-seed", type=int, default=0, help="GraphWalks generator seed (default 0)")
    add("--graphwalks-max-tokens", default=None, metavar="TOKENS|answer",
        help="GraphWalks output budget: a number of tokens, or 'answer' (twice the answer's "
             "tokens plus 16). Default 16384 at --scale full, as the original's users give; "
             "answer at --scale test")
    add("--graphwalks-original-dir", default=None, metavar="DIR",
        help="GraphWalks: read openai/graphwalks' graphwalks_128k_and_shorter.parquet (and, "
             "for lengths above 128k, graphwalks_256k_to_1mil.parquet) from DIR (default: the "
             "data directory's openai_graphwalks/)")
