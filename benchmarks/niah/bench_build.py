"""How long a NIAH stimulus takes to build: ``python -m benchmarks.niah.bench_build``.

Prints the one-time, per-process corpus preparation (tokenizing the corpus, splitting it
into sentences) and then the per-stimulus build at 900k tokens for both modes, split into
the haystack and insertions versus the final o200k count of the whole prompt.
"""

from __future__ import annotations

import statistics
import time

from fixtures.tokenizer import o200k

from . import grid, haystack, needles, stimulus


def timed(function, *args, **kwargs):
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - started


def main(length: int = 900_000, repeats: int = 3) -> None:
    tokenizer = o200k()
    _, seconds = timed(haystack.corpus_token_count, tokenizer)
    print(f"once per process: tokenize the corpus ({haystack.corpus_token_count(tokenizer):,} "
          f"tokens): {seconds:.2f} s")
    _, seconds = timed(haystack.shuffled_haystack, tokenizer, 10, 0)
    print(f"once per process: split it into {len(haystack.corpus_sentences()):,} sentences "
          f"and count them: {seconds:.2f} s")
    question = needles.load()[0]
    needle = question.needles[0]
    for mode in grid.MODES:
        totals, counts = [], []
        for trial in range(repeats):
            sample = grid.NiahSample(mode, question.id, needle.id, length, 50, 4, trial)
            built, seconds = timed(stimulus.build, sample, question, needle, tokenizer)
            _, counting = timed(tokenizer.count, built.prompt)
            totals.append(seconds)
            counts.append(counting)
        print(f"{mode:4s} {length:,} tokens, 4 distractors: build {statistics.median(totals):.2f} s "
              f"median of {repeats} (of which the final o200k count "
              f"{statistics.median(counts):.2f} s); prompt {built.prompt_tokens:,} tokens")


if __name__ == "__main__":
    main()
