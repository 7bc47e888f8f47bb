"""MRCR's generated samples beside the original's published shape, statistic by statistic.

The original's figures are what is public about openai/mrcr (no row is in the data
directory): the dataset viewer's ranges as quoted in /work/shared/specs/mrcr.md section 2,
and the one row published whole enough to measure, evalscope's documentation sample
(docs/en/benchmarks/openai_mrcr.md: 2 needles, 772 messages, 708,925 characters, 146,252
o200k tokens; its preamble shown as 14,670 truncated characters plus the visible ends).
The generated figures are measured here on ``--samples`` rows per needle count and bin.

    PYTHONPATH=. python scripts/mrcr_shape.py [--samples 20]
"""

from __future__ import annotations

import argparse
import statistics

from benchmarks.mrcr import generate, grid, passages
from fixtures.tokens.tokenizer import o200k

# (statistic, the original's value, its source)
ORIGINAL = {
    "preamble characters": ("about 15,100", "evalscope's row: 14,670 truncated + ~430 shown"),
    "preamble o200k tokens": ("about 3,100", "15,100 chars at that row's 4.85 chars/token"),
    "worked examples in the preamble": ("2", "card (via Marin's checks)"),
    "pairs, 4k-8k bin": ("from 2", "viewer: total_messages from 6"),
    "writing characters": ("159 to 3,890 (answer)", "viewer's answer column"),
    "writing characters, mean": ("about 1,770", "evalscope's row: (708,925 - 15,100) / 385"),
    "o200k tokens per pair, 128k-256k": ("about 372", "evalscope's row: (146,252 - 3,100) / 385"),
    "needle share of requests, 2 needles, 128k-256k": ("0.52%", "evalscope's row: 2 of 385"),
}


def describe(values: list[float], percent: bool = False) -> str:
    if percent:
        return f"{min(values):.2%} to {max(values):.2%} (median {statistics.median(values):.2%})"
    return f"{min(values):,.0f} to {max(values):,.0f} (median {statistics.median(values):,.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100, help="per needle count and bin "
                        "in 4k-8k and 8k-16k (the original has 100)")
    parser.add_argument("--large", type=int, default=3, help="2-needle rows in 128k-256k")
    args = parser.parse_args()
    pool, count = passages.pool(), o200k().count
    built = {}
    for needles in grid.NEEDLES:
        for b in grid.BINS[:2]:
            built[needles, b.label] = [generate.build(
                pool, needles, b.low, b.high,
                generate.sample_seed(0, needles, b.label, i), count)
                for i in range(args.samples)]
    big = grid.BINS[5]  # 128k-256k, where the published row sits: one sample
    built[2, big.label] = [generate.build(pool, 2, big.low, big.high, generate.sample_seed(
        0, 2, big.label, i), count) for i in range(args.large)]
    rows = [r.row for samples in built.values() for r in samples]
    preambles = [row.messages()[0]["content"] for row in rows]
    writings = [m["content"] for row in rows for m in row.messages()[1:-1]
                if m["role"] == "assistant"]
    generated = {
        "preamble characters": describe([len(p) for p in preambles]),
        "preamble o200k tokens": describe([count(p) for p in preambles]),
        "worked examples in the preamble": describe(
            [p.count(generate.EXAMPLE_START) for p in preambles]),
        "pairs, 4k-8k bin": "; ".join(
            f"{n} needles {describe([(r.row.total_messages - 2) / 2 for r in built[n, '4k-8k']])}"
            for n in grid.NEEDLES),
        "writing characters": describe([len(w) for w in writings]),
        "writing characters, mean": f"{statistics.mean(len(w) for w in writings):,.0f}",
        "o200k tokens per pair, 128k-256k": describe(
            [(r.prompt_tokens - count(r.row.messages()[0]["content"])) /
             ((r.row.total_messages - 2) / 2) for r in built[2, big.label]]),
        "needle share of requests, 2 needles, 128k-256k": describe(
            [2 / ((r.row.total_messages - 2) / 2) for r in built[2, big.label]], percent=True),
    }
    print(f"{args.samples} generated rows per needle count in 4k-8k and 8k-16k, {args.large} "
          "2-needle rows in 128k-256k (seed 0)")
    print("| statistic | original | generated | original's source |")
    print("|---|---|---|---|")
    for name, (value, source) in ORIGINAL.items():
        print(f"| {name} | {value} | {generated[name]} | {source} |")
    for needles in grid.NEEDLES:
        for label in ("4k-8k", "8k-16k"):
            shares = [needles / ((r.row.total_messages - 2) / 2) for r in built[needles, label]]
            print(f"| needle share, {needles} needles, {label} | (not published) | "
                  f"{describe(shares, percent=True)} | |")


if __name__ == "__main__":
    main()
