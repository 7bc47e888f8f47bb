"""The scorer's CPU time: ``python -m benchmarks.continuation.bench_scoring``.

Prints, in CPU seconds (median of the repeats), what scoring costs per sample at the largest
full-scale tier (131,072 tokens): one continuation of ``max_tokens`` (512 by default) in both
metric sets, the whole per-sample cost, and once per process per tier, the tier's context
window (the references are cached: every round of a tier reuses them). Then the cost per
1,000 characters of prose at growing sizes: flat when scoring is linear in the text's size.
The text is the default novel (its prose stands in for a model's); once-per-process loading
(the word lists, WordNet's parts of speech) is done before timing and printed apart.
"""

from __future__ import annotations

import argparse
import statistics
import time

from fixtures.tokens.tokenizer import o200k

from . import reading_context_tester, reading_contextrot, scoring, stimulus
from . import text as texts

LARGEST_TIER = 131_072


def cpu(function, *args, repeats: int) -> float:
    """Median CPU seconds of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        started = time.process_time()
        function(*args)
        times.append(time.process_time() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default=texts.DEFAULT_TEXT)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)

    started = time.process_time()
    reading_context_tester.easy_words()
    reading_contextrot.lexicon()
    print(f"once per process: word lists and WordNet's parts of speech "
          f"{time.process_time() - started:.3f} s")
    source = stimulus.prepare(args.text, stimulus.default_point(LARGEST_TIER), args.max_tokens)
    tokenizer = o200k()
    output = source.truth  # max_tokens tokens of the novel, cut at a sentence end
    print(f"one continuation ({tokenizer.count(output)} tokens, {len(output):,} chars):")
    for name, reading in scoring.SETS.items():
        print(f"  {name:15s} {cpu(reading.metrics, output, repeats=args.repeats) * 1e3:7.2f} ms")
    per_sample = cpu(scoring.score, output, repeats=args.repeats)
    print(f"  both sets (per sample) {per_sample * 1e3:7.2f} ms")

    budget = stimulus.text_budget(LARGEST_TIER, args.max_tokens, 1.1)
    window = stimulus.window(source, budget).text
    repeats = max(args.repeats // 10, 3)
    seconds = cpu(scoring.score, window, repeats=repeats)
    print(f"the {LARGEST_TIER:,}-token tier's context window ({tokenizer.count(window):,} "
          f"tokens, {len(window):,} chars), once per tier and process: {seconds:.3f} s")

    print("per 1,000 chars, both sets (flat = linear):")
    for size in (2_000, 20_000, 200_000, len(window)):
        piece = window[-size:]
        seconds = cpu(scoring.score, piece, repeats=max(repeats, 3))
        print(f"  {len(piece):>9,} chars: {seconds / len(piece) * 1e6:.3f} ms")


if __name__ == "__main__":
    main()
