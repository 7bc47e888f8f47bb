"""How long a NIAH stimulus takes to build: ``python -m benchmarks.niah.bench_build``.

Prints the one-time, per-process corpus preparation (tokenizing the corpus in o200k,
splitting it into sentences) and then, per haystack mode, the CPU and wall time of a
900k-token build: a new haystack (three trials, median) and another depth of one already
built. Every count is composed from counted pieces (``fixtures/tokens/counted.py``); the last
column checks it against one full count of the prompt.

``--tokenizer server --base-url URL --model NAME`` builds in the endpoint's own tokens
instead (``--tokenizer hf:PATH`` in a tokenizer.json's): the first build then also counts the
corpus pieces the haystack reaches, once per process, and the line says how many counting
requests the server received.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from fixtures.tokens.tokenizer import make_unit, o200k

from benchmarks.texts import haystack

from . import grid, needles, stimulus


def timed(function, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=900_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tokenizer", default="o200k")
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    tokenizer = make_unit(args.tokenizer, base_url=args.base_url, model=args.model)
    _, cpu, _ = timed(haystack.corpus_index)
    print(f"once per process: tokenize the corpus in o200k ({haystack.corpus_token_count():,} "
          f"tokens) and index it: {cpu:.2f} s CPU")
    _, cpu, _ = timed(haystack.corpus_sentences)
    print(f"once per process: split it into {len(haystack.corpus_sentences()):,} sentences: "
          f"{cpu:.2f} s CPU")
    if tokenizer.is_default:
        _, cpu, _ = timed(haystack.sentence_costs, tokenizer, False)
        print(f"once per process: count the sentences: {cpu:.2f} s CPU")
    print(f"unit: {tokenizer.name} (chat template: {tokenizer.chat_overhead} tokens)")
    question = needles.load()[0]
    needle = question.needles[0]
    reference = o200k()
    for mode in grid.MODES:
        fresh, walls, requests = [], [], getattr(tokenizer, "requests", None)
        for trial in range(args.repeats):
            sample = grid.NiahSample(mode, question.id, needle.id, args.length, 50, 4, trial)
            built, cpu, wall = timed(stimulus.build, sample, question, needle, tokenizer)
            fresh.append(cpu)
            walls.append(wall)
        other = dataclasses.replace(sample, depth=20)
        again, depth_cpu, depth_wall = timed(stimulus.build, other, question, needle, tokenizer)
        asked = "" if requests is None else \
            f"; {tokenizer.requests - requests} counting requests"
        check = reference.count(built.prompt) if tokenizer.is_default else \
            tokenizer.count(built.prompt)
        print(f"{mode:4s} {args.length:,} tokens, 4 distractors: new haystack "
              f"{statistics.median(fresh):.3f} s CPU ({statistics.median(walls):.3f} s wall, "
              f"median of {args.repeats}; first {fresh[0]:.3f} s); another depth "
              f"{depth_cpu:.3f} s CPU ({depth_wall:.3f} s wall){asked}; prompt "
              f"{built.prompt_tokens:,} tokens composed, {check:,} counted whole")


if __name__ == "__main__":
    main()
