"""Samples built once per test session: the generator's output is what most tests check."""

from __future__ import annotations

import pytest

from benchmarks.mrcr import generate, grid, passages
from fixtures.tokens.tokenizer import o200k

# (needles, bin, samples): every test bin that holds the needles, the first real bins, and
# one sample each of 128k and 1M (a 1M sample needs a million tokens of unique passages).
CASES = ([(n, b, 4) for n in grid.NEEDLES for b in grid.TEST_BINS
          if n * grid.TEST_BIN_TOKENS_PER_NEEDLE <= b.high]
         + [(n, b, 6) for n in grid.NEEDLES for b in grid.BINS[:3]]
         + [(n, grid.BINS[4], 1) for n in grid.NEEDLES] + [(8, grid.BINS[7], 1)])


def build(needles: int, bin: grid.Bin, index: int, seed: int = 0) -> generate.Built:
    return generate.build(passages.pool(), needles, bin.low, bin.high,
                          generate.sample_seed(seed, needles, bin.label, index), o200k().count)


@pytest.fixture(scope="session")
def built_samples() -> list[tuple[int, grid.Bin, generate.Built]]:
    return [(n, b, build(n, b, i)) for n, b, count in CASES for i in range(count)]


@pytest.fixture(scope="session")
def generated_rows(built_samples) -> list[generate.Row]:
    return [built.row for n, b, built in built_samples if not b.test_only and b.high <= 32768]
