"""``--settle`` against the full grid on many seeded falling curves, with no server.

Each run is a grid of repeated words' samples scored as the scripted ``fading:HALF`` model
scores them (an exact copy with probability 2^(-words/HALF), else half of one; seeded), its
rounds replayed through the settle rule itself (``tests/doubles/settle_replay.py``). For each
curve it counts, over the seeds, how often the settled run states the full grid's effective
length, an interval the same or tighter, both; how often each one's interval holds the true
effective length (the rule applied to the expected curve); and the share of the samples the
settled run asked for (median and most).

    PYTHONPATH=. python scripts/settle_simulation.py [--grid full,test] [--halves 400,800,1500,3000]
        [--seeds 30] [--steps 0]
"""

from __future__ import annotations

import argparse
import statistics

from reporting.analysis.verdicts import verdict
from reporting.storage.store import records_frame
from tests.doubles.settle_replay import FULL, SIMILARITY, TEST, settled_run, true_effective_length

GRIDS = {"full": FULL, "test": TEST}
HALVES = {"full": (400, 800, 1500, 3000), "test": (100, 200, 300, 400)}


def compared(seed: int, half: int, steps: int, grid) -> dict:
    everything, kept = settled_run(seed, half, steps, grid)
    full = verdict(records_frame(everything), SIMILARITY).effective_length
    settled = verdict(records_frame(kept), SIMILARITY).effective_length
    truth = true_effective_length(grid, half)
    same = settled.value == full.value
    within = full.low <= settled.low and settled.high <= full.high
    return {"one length": full.low == full.high, "same length": same, "interval <=": within,
            "both": same and within, "truth in full's": full.low <= truth <= full.high,
            "truth in settle's": settled.low <= truth <= settled.high,
            "share": len(kept) / len(everything)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="full,test")
    parser.add_argument("--halves", help="HALF of each curve, comma-separated "
                                         "(default: 400,800,1500,3000 full; 100-400 test)")
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--steps", type=int, default=0, help="--settle-steps")
    options = parser.parse_args()
    counted = ("one length", "same length", "interval <=", "both", "truth in full's",
               "truth in settle's")
    print("| grid | curve | seeds | " + " | ".join(counted) + " | samples, median | most |")
    print("|" + " --- |" * (len(counted) + 5))
    for name in options.grid.split(","):
        halves = [int(h) for h in options.halves.split(",")] if options.halves \
            else HALVES[name]
        everything = []
        for half in halves:
            rows = [compared(seed, half, options.steps, GRIDS[name])
                    for seed in range(options.seeds)]
            everything += rows
            print(line(name, f"fading:{half}", rows, counted))
        print(line(name, "all", everything, counted))
        print(line(name, "all, where the full grid states one length",
                   [row for row in everything if row["one length"]], counted))


def line(grid: str, curve: str, rows: list[dict], counted) -> str:
    shares = [row["share"] for row in rows]
    return (f"| {grid} | {curve} | {len(rows)} | "
            + " | ".join(str(sum(row[c] for row in rows)) for c in counted)
            + f" | {statistics.median(shares):.0%} | {max(shares):.0%} |")


if __name__ == "__main__":
    main()
