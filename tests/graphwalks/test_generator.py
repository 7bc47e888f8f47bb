"""The offline generator: the original's node ids, edges and template, exact answers, prompts
that fill their length in the run's unit, and the same bytes on any machine and any -n."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from benchmarks.graphwalks import graphs, stimulus
from benchmarks.graphwalks.graphs import Graph, Question
from fixtures.tokens.tokenizer import o200k

from ..subprocess_pytest import ROOT
from .helpers import solve

# The published 2025 row of spec section 2 (node lines are data): its graph and question.
PUBLISHED_EDGES = [(0, 0), (0, 6), (0, 2), (0, 1), (1, 8), (1, 9), (1, 3), (1, 8), (2, 9),
                   (2, 3), (2, 3), (2, 8), (3, 10), (3, 10), (3, 4), (3, 1), (4, 6), (4, 3),
                   (4, 0), (4, 5), (5, 1), (5, 6), (5, 6), (5, 9), (6, 7), (6, 7), (6, 5),
                   (6, 4), (7, 9), (7, 5), (7, 7), (7, 0), (8, 3), (8, 0), (8, 3), (8, 7),
                   (9, 0), (9, 6), (9, 4), (9, 4), (10, 7), (10, 10), (10, 9), (10, 5)]
PUBLISHED_2025 = (
    "You will be given a graph as a list of directed edges. All nodes are at least degree 1. "
    "You will also get a description of an operation to perform on the graph. \n"
    "Your job is to execute the operation on the graph and return the set of nodes that the "
    "operation results in. If asked for a breadth-first search (BFS), only return the nodes "
    "that are reachable at that depth, do not return the starting node. If asked for the "
    "parents of a node, only return the nodes that have an edge leading to the given node, "
    "do not return the given node itself.\n\nHere is an example:\n<begin example>\n\n"
    "The graph has the following edges:\nuvwx -> alke\nabcd -> uvwx\nabcd -> efgh\n"
    "efgh -> uvwx\n\nExample 1:\nOperation:\nPerform a BFS from node abcd with depth 1.\n"
    "Final Answer: [uvwx, efgh]\n\nExample 2:\nOperation:\nFind the parents of node abcd.\n"
    "Final Answer: []\n\n<end example>\nHere is the graph to operate on:\n"
    "The graph has the following edges:\ncfcd208495 -> cfcd208495\ncfcd208495 -> 1679091c5a\n")
PUBLISHED_END = (
    "d3d9446802 -> e4da3b7fbb\n\n\nOperation:\nFind the parents of node 8f14e45fce.\n\n"
    "You should immediately return the set of nodes that the operation results in, with no "
    "additional text. Return your final answer as a list of nodes in the very last line of "
    "your response. For example, if the operation returns the set of nodes [node1, node2, "
    "node3], your response should be:\nFinal Answer: [node1, node2, node3]\nIf the operation "
    "returns the empty set, your response should be:\nFinal Answer: []")


def test_node_ids_are_the_first_10_hex_digits_of_md5_of_the_index():
    assert [graphs.node_id(i) for i in (0, 1, 7, 10)] == [
        "cfcd208495", "c4ca4238a0", "8f14e45fce", "d3d9446802"]


def test_the_2025_template_around_the_published_rows_graph_is_that_row():
    graph = Graph(11, tuple(PUBLISHED_EDGES))
    asked = Question("parents", 7, None, graphs.ids(graphs.parents(graph, 7)))
    text = stimulus.prompt(graph, asked, "2025")
    assert text.startswith(PUBLISHED_2025) and text.endswith(PUBLISHED_END)
    assert text.count(" -> ") == 4 + len(PUBLISHED_EDGES)
    # its parents: 1679091c5a (twice), c9f0f895fb, d3d9446802; the self-loop is not one
    assert asked.answer == tuple(sorted(["1679091c5a", "c9f0f895fb", "d3d9446802"]))


def test_the_2026_revision_asks_for_exactly_depth_d_with_four_examples():
    made = stimulus.GraphMaker("bfs", "graphwalks/test", "2026").prompt(12)
    text = made.text
    assert "only return the nodes that are both reachable and exactly at that depth (not nodes " \
           "at intermediate depths), and do not return the starting node." in text
    assert text.count("\nExample ") == 4 and text.count("Final Answer: []\n") == 2
    assert (f"Perform a BFS from node {made.question.node_id} and return only the nodes at "
            f"exactly depth {made.question.depth} (not nodes at intermediate depths).") in text
    assert "with depth" not in text and text.endswith(stimulus.OUTRO)


@pytest.mark.parametrize("nodes", [8, 11, 40, 300])
def test_every_node_has_four_out_edges_grouped_by_source_in_index_order(nodes):
    graph = graphs.random_graph(nodes, f"graphwalks/test/{nodes}")
    assert [s for s, _ in graph.edges] == [i for i in range(nodes) for _ in range(4)]
    assert all(0 <= t < nodes for _, t in graph.edges)


@pytest.mark.parametrize("kind", ["bfs", "parents"])
@pytest.mark.parametrize("nodes", [8, 11, 19, 60, 500])
def test_answers_are_exact_as_a_reader_of_the_prompt_computes_them(kind, nodes):
    for index in range(8):
        made = stimulus.GraphMaker(kind, f"graphwalks/test/{index}", "2025").prompt(nodes)
        assert list(made.question.answer) == solve(made.text)
        if kind == "bfs":  # depth 2 or more, never empty, with nodes at lower depths
            assert made.question.depth >= 2 and made.question.answer
            assert solve(made.text, within=True) != solve(made.text)


@pytest.mark.parametrize("length", [1024, 1536, 2048, 4096, 8192, 32768, 131072])
def test_generated_prompts_fill_085_to_1_of_their_length_in_o200k(length):
    for kind in ("bfs", "parents"):
        for index in range(2):
            fitted = stimulus.generate(kind, length, "2025",
                                       stimulus.sample_seed(0, kind, length, index), o200k())
            assert fitted.tokens == o200k().count(fitted.prompt.text)
            assert 0.85 * length <= fitted.tokens <= length


class Halved:
    """Another token unit: one token per two characters."""

    identity = "halved"

    @staticmethod
    def count(text: str) -> int:
        return (len(text) + 1) // 2


def test_the_fit_counts_in_the_runs_unit():
    fitted = stimulus.generate("bfs", 4096, "2026", "graphwalks/unit", Halved())
    assert 0.85 * 4096 <= Halved.count(fitted.prompt.text) <= 4096
    assert o200k().count(fitted.prompt.text) != fitted.tokens


BUILD = ("from benchmarks.graphwalks import stimulus;"
         "from fixtures.tokens.tokenizer import o200k;"
         "import hashlib;"
         "print(hashlib.sha256(''.join(stimulus.generate(k, n, v, stimulus.sample_seed(3, k, n, i),"
         " o200k()).prompt.text for k in ('bfs', 'parents') for n in (1024, 8192)"
         " for v in ('2025', '2026') for i in range(2)).encode()).hexdigest())")


def test_the_same_options_build_the_same_bytes_in_any_process():
    here = hashlib.sha256("".join(
        stimulus.generate(k, n, v, stimulus.sample_seed(3, k, n, i), o200k()).prompt.text
        for k in ("bfs", "parents") for n in (1024, 8192) for v in ("2025", "2026")
        for i in range(2)).encode()).hexdigest()
    for hash_seed in ("1", "987"):
        other = subprocess.run([sys.executable, "-c", BUILD], cwd=ROOT, capture_output=True,
                               text=True, env={**os.environ, "PYTHONHASHSEED": hash_seed},
                               check=True)
        assert other.stdout.strip() == here
