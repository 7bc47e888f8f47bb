"""Old against new repeated-words scores, record for record, over a full grid of outputs.

For every sample of the full grid of the given pairs (default: ``--word-pair report``, 7,630
samples), it makes realistic model outputs -- an exact copy and a seeded choice of damaged
ones: the modified word missing, moved, duplicated, a truncation, an over-generation,
punctuation, newline-separated words, quotes, a remark before the copy, refusals, empty and
whitespace-only text, a broken or miscased multi-word name -- and scores each with the
scoring module of ``--base`` (read from git) and with the working tree's. Every score and the
refusal reason must be equal (floats exactly); it prints the first differences and exits 1 if
there is any (an output the old code could not score, raising, is counted apart).

    python scripts/compare_repeated_words_scoring.py [--base 7c92e64] [--variants 3]
        [--word-pair report] [--max-words 10000]
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.repeated_words import grid, scoring, stimulus  # noqa: E402

REFUSALS = ("I'm sorry, but I can't help with that.",
            "I can't repeat that text exactly.\n\nIt is very long.",
            "-\n-\n--", "apple", "Sure!")


def _units(sample) -> list[str]:
    words = [sample.common] * sample.n
    words[sample.position] = sample.modified
    return words


def _damaged(sample, kind: str, rng: random.Random) -> str:
    """One output of the given kind for ``sample`` (a pure function of the seeded ``rng``)."""
    words, gold = _units(sample), stimulus.gold_text(sample)
    k = sample.position
    if kind == "copy":
        return gold
    if kind == "copy-newline":
        return gold + rng.choice(["\n", " ", "\n\n", "  \n"])
    if kind == "missing":
        words[k] = sample.common
    elif kind == "dropped":
        del words[k]
    elif kind == "moved":
        target = rng.randrange(len(words))
        words.insert(target, words.pop(k))
    elif kind == "duplicated":
        words.insert(rng.randrange(len(words) + 1), sample.modified)
    elif kind == "truncated":
        words = words[:rng.randrange(len(words))]
    elif kind == "overgenerated":
        words += [sample.common] * rng.randrange(1, len(words) + 1)
    elif kind == "shifted":  # a word lost early and one added late: a long Levenshtein middle
        del words[rng.randrange(len(words))]
        words.insert(rng.randrange(len(words) + 1), rng.choice([sample.common, "pear"]))
    elif kind == "period":
        return gold + "."
    elif kind == "commas":
        return ", ".join(words)
    elif kind == "quoted":
        return f'"{gold}"'
    elif kind == "newlines":
        return "\n".join(words)
    elif kind == "double-spaces":
        return "  ".join(words)
    elif kind == "remark":
        return rng.choice(["Sure! Here is the text: ", "Here you go:\n\n",
                           "I notice a discrepancy; I'll replicate it: "]) + gold
    elif kind == "refusal":
        return rng.choice(REFUSALS)
    elif kind == "empty":
        return rng.choice(["", " ", "\n", " \n\t "])
    elif kind == "lowercase":
        return gold.lower()
    elif kind == "broken-name":  # a multi-word name split, cut or miscased somewhere
        name = rng.choice([sample.common, sample.modified])
        parts = name.split()
        index = rng.randrange(len(words))
        if len(parts) > 1:
            words[index] = rng.choice([parts[0], " ".join(parts[:-1]), "\n".join(parts),
                                       " ".join(parts[:-1] + [parts[-1].lower()])])
        else:
            words[index] = name.upper()
    elif kind == "punctuated-words":
        for _ in range(rng.randrange(1, 5)):
            i = rng.randrange(len(words))
            words[i] = rng.choice(["'", "(", "-", "\u201c", ""]) + words[i] + rng.choice(
                [",", ".", "!", ")", "\u201d", "...", ""])
    elif kind == "gibberish":
        return " ".join(rng.choice(["Golden", "gate", "apple", "-", "San", "sf", "orange",
                                    "run", "the", "Francisco"])
                        for _ in range(rng.randrange(1, 2 * len(words))))
    else:
        raise ValueError(kind)
    return " ".join(words)


KINDS = ("copy-newline", "missing", "dropped", "moved", "duplicated", "truncated",
         "overgenerated", "shifted", "period", "commas", "quoted", "newlines", "double-spaces",
         "remark", "refusal", "empty", "lowercase", "broken-name", "punctuated-words",
         "gibberish")


def outputs(sample, variants: int) -> list[tuple[str, str]]:
    """(kind, output) pairs for ``sample``: the exact copy and ``variants`` seeded others."""
    rng = random.Random(sample.id)
    kinds = ["copy", *rng.sample(KINDS, variants)]
    return [(kind, _damaged(sample, kind, rng)) for kind in kinds]


def load_base(rev: str):
    """The scoring module as it was at ``rev``, imported beside the package it belongs to."""
    source = subprocess.run(["git", "show", f"{rev}:benchmarks/repeated_words/scoring.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader("benchmarks.repeated_words._base_scoring",
                                           loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "benchmarks.repeated_words"
    exec(compile(source, f"{rev}:scoring.py", "exec"), module.__dict__)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="7c92e64", help="the git revision to compare with")
    parser.add_argument("--variants", type=int, default=3,
                        help="damaged outputs per sample, beside the exact copy")
    parser.add_argument("--word-pair", action="append", default=None)
    parser.add_argument("--max-words", type=int, default=10_000)
    args = parser.parse_args()
    base = load_base(args.base)
    samples = [s for s in grid.build("full", grid.parse_pairs(args.word_pair or ["report"]))
               if s.n <= args.max_words]
    differences, crashed, compared, kinds = [], [], 0, {}
    times = {"base": 0.0, "new": 0.0}
    for sample in samples:
        for kind, output in outputs(sample, args.variants):
            started = time.process_time()
            try:
                old = (base.score(sample, output), base.refusal_reason(sample, output))
            except Exception as error:  # noqa: BLE001 - a crash of the old code is reported
                old = f"raised {error!r}"
            middle = time.process_time()
            scores = scoring.score(sample, output)
            new = (scores, scoring.refusal_reason(sample, output, scores))
            times["base"] += middle - started
            times["new"] += time.process_time() - middle
            compared += 1
            kinds[kind] = kinds.get(kind, 0) + 1
            if isinstance(old, str):
                crashed.append((sample.id, kind, old))
            elif old != new:
                differences.append((sample.id, kind, output[:80], old, new))
    print(f"{compared} outputs of {len(samples)} samples compared ({args.base} against the "
          f"working tree); kinds: {', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}")
    print(f"CPU: {args.base} {times['base']:.1f} s, working tree {times['new']:.1f} s")
    for sample_id, kind, output, old, new in differences[:10]:
        print(f"DIFFERENT {sample_id} {kind} {output!r}:\n  old {old}\n  new {new}")
    if crashed:
        print(f"{args.base} raised on {len(crashed)} outputs (the working tree scored them), "
              f"e.g. {crashed[0]}")
    print(f"{len(differences)} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
