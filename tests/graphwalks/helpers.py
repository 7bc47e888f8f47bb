"""Scripted GraphWalks players for the scripted server: they read the graph and the operation
from the prompt as a model would (with their own BFS, not the generator's) and answer
exactly, with every node within D hops, or in other shapes; and the original's schema."""

from __future__ import annotations

import collections
import re

EDGE = re.compile(r"^(\S+) -> (\S+)$", re.MULTILINE)
BFS = re.compile(r"Perform a BFS from node (\S+) (?:with depth|and return only the nodes at "
                 r"exactly depth) (\d+)")
PARENTS = re.compile(r"Find the parents of node ([^\s.]+)\.")
GRAPH = "Here is the graph to operate on:"


def read(prompt: str) -> tuple[dict, str, str, int | None]:
    """(children by node, operation, node, depth) of the graph after the examples."""
    task = prompt.split(GRAPH, 1)[1]
    children = collections.defaultdict(list)
    for source, target in EDGE.findall(task):
        children[source].append(target)
    bfs, parents = BFS.search(task), PARENTS.search(task)
    if bfs:
        return children, "bfs", bfs.group(1), int(bfs.group(2))
    return children, "parents", parents.group(1), None


def distances(children: dict, start: str) -> dict[str, int]:
    found, queue = {start: 0}, collections.deque([start])
    while queue:
        node = queue.popleft()
        for child in children.get(node, ()):
            if child not in found:
                found[child] = found[node] + 1
                queue.append(child)
    return found


def solve(prompt: str, within: bool = False) -> list[str]:
    children, operation, node, depth = read(prompt)
    if operation == "parents":
        return sorted({s for s, targets in children.items() if node in targets and s != node})
    far = distances(children, node)
    return sorted(n for n, d in far.items()
                  if n != node and (1 <= d <= depth if within else d == depth))


def player(within: bool = False, shape=lambda nodes: f"Final Answer: [{', '.join(nodes)}]"):
    """A responder answering the last user message's graph operation."""
    def respond(request: dict) -> str:
        return shape(solve(request["messages"][-1]["content"], within))
    return respond


exact = player()
within_hops = player(within=True)


def original_row(prompt: str, problem_type: str, date: str = "04-12-2025") -> dict:
    """A row in openai/graphwalks' schema whose answer the reading player computes."""
    return {"prompt": prompt, "answer_nodes": solve(prompt), "prompt_chars": len(prompt),
            "problem_type": problem_type, "date_added": date}
