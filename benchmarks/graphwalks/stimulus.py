"""The prompt: the original's template around a graph, and a generated graph fitted to its
length in the run's unit.

**2025** (``--graphwalks-prompt 2025``, the default) is the template of the published 2025
rows, verbatim (spec section 2: the first line ends with a space; two examples; two blank
lines between the last edge and the operation, as public copies of a published row show). It is the
default because it is the wording every published score was measured with (GPT-4.1's post,
GPT-5's), and the only one checked against a published row.

**2026** is the 2026-02-27 revision as the dataset card's changelog and the Claude Opus 4.6
system card describe it: the BFS instruction "only return the nodes that are both reachable
and exactly at that depth (not nodes at intermediate depths), and do not return the starting
node", the operation ``Perform a BFS from node X and return only the nodes at exactly depth
D (not nodes at intermediate depths).`` (NeMo Gym rewrites old rows so, examples included),
and four examples, two of them empty. Its text is rebuilt from those sources, not copied
from a 2026 row (none could be read here): the original rows themselves are always sent
unchanged.

A generated prompt is grown node by node (four edge lines each) until the prompt alone fills
its target length in the run's unit (the original bins rows by prompt size; the output
budget is apart), by the shared fitting (benchmarks/texts/fitting.py): the largest graph
that fits, within a thousandth of the length or one node of it.
"""

from __future__ import annotations

import dataclasses

from benchmarks.texts.fitting import Fitted, calibrate, fit, per_tokenizer

from . import graphs
from .graphs import Graph, Question

PROMPTS = ("2025", "2026")

INTRO_2025 = (
    "You will be given a graph as a list of directed edges. All nodes are at least degree 1. "
    "You will also get a description of an operation to perform on the graph. \n"
    "Your job is to execute the operation on the graph and return the set of nodes that the "
    "operation results in. If asked for a breadth-first search (BFS), only return the nodes "
    "that are reachable at that depth, do not return the starting node. If asked for the "
    "parents of a node, only return the nodes that have an edge leading to the given node, do "
    "not return the given node itself.\n")
INTRO_2026 = INTRO_2025.replace(
    "only return the nodes that are reachable at that depth, do not return the starting node.",
    "only return the nodes that are both reachable and exactly at that depth (not nodes at "
    "intermediate depths), and do not return the starting node.")
EXAMPLE_GRAPH = ("\nHere is an example:\n<begin example>\n\nThe graph has the following edges:\n"
                 "uvwx -> alke\nabcd -> uvwx\nabcd -> efgh\nefgh -> uvwx\n")
EXAMPLES = {
    "2025": (("bfs", "abcd", 1, "[uvwx, efgh]"), ("parents", "abcd", None, "[]")),
    "2026": (("bfs", "abcd", 1, "[uvwx, efgh]"), ("bfs", "alke", 1, "[]"),
             ("parents", "uvwx", None, "[abcd, efgh]"), ("parents", "abcd", None, "[]")),
}
OUTRO = (
    "You should immediately return the set of nodes that the operation results in, with no "
    "additional text. Return your final answer as a list of nodes in the very last line of "
    "your response. For example, if the operation returns the set of nodes [node1, node2, "
    "node3], your response should be:\nFinal Answer: [node1, node2, node3]\nIf the operation "
    "returns the empty set, your response should be:\nFinal Answer: []")


def operation(problem_type: str, node: str, depth: int | None, version: str) -> str:
    if problem_type == "parents":
        return f"Find the parents of node {node}."
    if version == "2025":
        return f"Perform a BFS from node {node} with depth {depth}."
    return (f"Perform a BFS from node {node} and return only the nodes at exactly depth "
            f"{depth} (not nodes at intermediate depths).")


def preamble(version: str) -> str:
    """Everything before the graph's edges: the instructions and the worked examples."""
    examples = "".join(
        f"\nExample {n}:\nOperation:\n{operation(kind, node, depth, version)}\n"
        f"Final Answer: {answer}\n"
        for n, (kind, node, depth, answer) in enumerate(EXAMPLES[version], start=1))
    intro = INTRO_2025 if version == "2025" else INTRO_2026
    return (f"{intro}{EXAMPLE_GRAPH}{examples}\n<end example>\nHere is the graph to operate "
            "on:\nThe graph has the following edges:\n")


def prompt(graph: Graph, asked: Question, version: str) -> str:
    return (f"{preamble(version)}{graph.lines()}\n\n\nOperation:\n"
            f"{operation(asked.problem_type, asked.node_id, asked.depth, version)}\n\n{OUTRO}")


def answer_text(nodes) -> str:
    """The gold answer as a reply would give it (its tokens size the test scale's cap)."""
    return f"Final Answer: [{', '.join(nodes)}]"


@dataclasses.dataclass(frozen=True)
class Built:
    """A generated sample at one size: what the fitting counts (``text``) and its answer."""

    text: str
    graph: Graph
    question: Question


@dataclasses.dataclass(frozen=True)
class GraphMaker:
    """The fitting's maker: the sample's graph at n nodes, its question and prompt."""

    problem_type: str
    seed: str
    version: str
    minimum: int = graphs.MIN_NODES

    def prompt(self, nodes: int) -> Built:
        graph = graphs.random_graph(nodes, self.seed)
        asked = graphs.question(graph, self.problem_type, self.seed)
        return Built(prompt(graph, asked, self.version), graph, asked)


def sample_seed(seed: int, problem_type: str, length: int, index: int) -> str:
    return f"graphwalks/{seed}/{problem_type}/{length}/{index}"


@per_tokenizer
def calibration(problem_type: str, length: int, version: str, *, tokenizer
                ) -> tuple[int, float]:
    """(nodes, tokens per node) at this length, from a probe graph; once per process and
    unit (every sample of the length starts there)."""
    probe = GraphMaker(problem_type, f"graphwalks/probe/{problem_type}/{length}", version)
    return calibrate(probe, tokenizer.count, length)


def generate(problem_type: str, length: int, version: str, seed: str, tokenizer) -> Fitted:
    """The sample's graph grown to fill ``length`` tokens of the run's unit (TooShort when
    even the smallest graph does not fit)."""
    start, unit = calibration(problem_type, length, version, tokenizer=tokenizer)
    return fit(GraphMaker(problem_type, seed, version), tokenizer.count, length, start, unit)
