"""The generator's graphs and their exact answers, pure functions of a seed and a size.

Choices (spec section 3 says which facts the published rows show, and which they do not):

- **Node ids** are the original's: the first 10 hex digits of md5 of the node's decimal index
  (``cfcd208495`` = md5("0")); a graph of n nodes uses indices 0 .. n-1.
- **Out-edges**: every node has exactly four (the published sample first checked shows
  four; real rows also have nodes of out-degree 5 and 1: a choice, not the original's
  distribution), drawn uniformly from all n nodes with replacement (duplicate lines and
  self-loops occur), and the lines are grouped by source in index order, each source's in
  draw order. Every node then has degree at least 1, as the prompt says.
- **BFS**: the answer is the set of nodes whose *shortest* distance from the start is exactly
  D (the start excluded, even when a cycle returns to it). The start is the first node, in a
  seeded random order, whose BFS reaches depth 2; D is drawn uniformly from 2 .. min(its
  deepest level, ``MAX_DEPTH``), so the answer is never empty and nodes at intermediate
  depths exist: a reply of every node within D hops is wrong.
- **Parents**: the target is drawn uniformly; the answer is every node with an edge to it,
  less the target itself (a self-loop does not make a node its own parent: the card's
  2026-02-27 fix). A target without parents has an empty answer, as some original rows do.

Random choices come from ``random.Random`` seeded with a string: the same on any machine and
any Python from 3.2 on.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random

OUT_DEGREE = 4
MAX_DEPTH = 4
MIN_NODES = 8  # the smallest graph: room for depth 2 and a parent or two
PROBLEM_TYPES = ("bfs", "parents")


@functools.lru_cache(maxsize=1 << 20)
def node_id(index: int) -> str:
    return hashlib.md5(str(index).encode()).hexdigest()[:10]


@dataclasses.dataclass(frozen=True)
class Graph:
    nodes: int
    edges: tuple[tuple[int, int], ...]  # (source, target) in the prompt's order

    def lines(self) -> str:
        """The edge list as the prompt writes it, one ``src -> dst`` per line."""
        return "\n".join(f"{node_id(s)} -> {node_id(t)}" for s, t in self.edges)

    def children(self) -> list[list[int]]:
        found: list[list[int]] = [[] for _ in range(self.nodes)]
        for source, target in self.edges:
            found[source].append(target)
        return found


@dataclasses.dataclass(frozen=True)
class Question:
    problem_type: str  # "bfs" or "parents"
    node: int  # the start (bfs) or the target (parents)
    depth: int | None  # bfs only
    answer: tuple[str, ...]  # node ids, sorted

    @property
    def node_id(self) -> str:
        return node_id(self.node)


def random_graph(nodes: int, seed: str) -> Graph:
    draw = random.Random(f"{seed}/edges")
    return Graph(nodes, tuple((source, draw.randrange(nodes)) for source in range(nodes)
                              for _ in range(OUT_DEGREE)))


def levels(children: list[list[int]], start: int) -> list[set[int]]:
    """BFS levels from ``start``: ``levels[d]`` holds the nodes at shortest distance d
    (level 0 is the start alone)."""
    seen, frontier, found = {start}, {start}, [{start}]
    while frontier:
        frontier = {t for s in frontier for t in children[s]} - seen
        if frontier:
            seen |= frontier
            found.append(frontier)
    return found


def at_depth(graph: Graph, start: int, depth: int) -> set[int]:
    reached = levels(graph.children(), start)
    return reached[depth] if depth < len(reached) else set()


def parents(graph: Graph, target: int) -> set[int]:
    return {s for s, t in graph.edges if t == target and s != target}


def question(graph: Graph, problem_type: str, seed: str) -> Question:
    draw = random.Random(f"{seed}/{problem_type}")
    if problem_type == "parents":
        target = draw.randrange(graph.nodes)
        return Question("parents", target, None, ids(parents(graph, target)))
    children = graph.children()
    order = list(range(graph.nodes))
    draw.shuffle(order)
    deepest = None
    for start in order:
        reached = levels(children, start)
        if len(reached) > 2:
            depth = draw.randint(2, min(len(reached) - 1, MAX_DEPTH))
            return Question("bfs", start, depth, ids(reached[depth]))
        if deepest is None or len(reached) > len(deepest[1]):
            deepest = (start, reached)
    start, reached = deepest  # no node reaches depth 2 (a tiny graph): its deepest level
    depth = len(reached) - 1
    return Question("bfs", start, depth, ids(reached[depth]) if depth else ())


def ids(indices: set[int]) -> tuple[str, ...]:
    return tuple(sorted(node_id(i) for i in indices))
