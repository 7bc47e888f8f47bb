"""``--shard K/N``: run a deterministic share of the collected samples (a pytest plugin).

A test belongs to shard ``1 + sha256(node id) mod N``. The share depends on the node id
alone: not on collection order, ``-k``/``-m`` (which only remove tests), the machine, the
Python hash seed or the xdist worker, so every worker deselects the same tests and N runners
with K = 1..N cover every sample exactly once. Deselected tests are reported through
``pytest_deselected`` like ``-k`` does. ``python -m reporting merge`` joins the shards' stores
into one run afterwards.

Light on purpose (hashlib only): xdist workers load it.
"""

from __future__ import annotations

import hashlib
import re

import pytest

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` -> (2, 4); K counts from 1."""
    match = _SHARD.match(text or "")
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise pytest.UsageError(f"--shard {text!r}: write K/N with 1 <= K <= N, e.g. --shard 1/4 "
                                "(the first of four shares)")
    return int(match[1]), int(match[2])


def shard_of(nodeid: str, shards: int) -> int:
    """The shard (1..shards) that owns ``nodeid``: stable across machines and processes."""
    digest = hashlib.sha256(nodeid.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % shards


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("contextrot").addoption(
        "--shard", default=None, metavar="K/N",
        help="run only the K-th of N deterministic shares of the collected tests (by a hash "
             "of each node id); join the shards' results with `python -m reporting merge`")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("shard"):
        parse_shard(config.getoption("shard"))  # a usage error before anything is collected


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    text = config.getoption("shard")
    if not text:
        return
    shard, shards = parse_shard(text)
    kept, dropped = [], []
    for item in items:
        (kept if shard_of(item.nodeid, shards) == shard else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_report_header(config: pytest.Config) -> str | None:
    text = config.getoption("shard")
    return f"contextrot: shard {text} (a share of the collected tests by node-id hash)" \
        if text else None
