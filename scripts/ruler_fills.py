"""Measure the fills of RULER's own length fitting: run NVIDIA/RULER's ``prepare.py`` (its real
code, from a fetched checkout) with tiktoken's o200k_base on contextrot's essay text, and
write each task's prompt tokens / L per length to tests/ruler/ruler_fills.json.

    PYTHONPATH=$PWD python scripts/ruler_fills.py --ruler-git /path/to/RULER/.git \
        [--commit c3f5e3b4...] [--lengths 4096,8192] [--samples 100]
    # CWE over several of RULER's seeds: its mean fill and the o200k tokens of its asked
    # common words (" word", as the list writes them), into the JSON's "cwe_by_seed"
    PYTHONPATH=$PWD python scripts/ruler_fills.py --ruler-git ... --cwe-seeds 42,43,44,45,46 \
        --lengths 4096 --samples 30

What is RULER's and what is not (all said in the JSON's ``how``):
- RULER's scripts/data (prepare.py, synthetic/*.py, template.py, tokenizer.py) run unchanged,
  ``--tokenizer_type openai --tokenizer_path o200k_base --model_template_type base``, seed 42;
- its ``json/PaulGrahamEssays.json`` is written from contextrot's essay (the Gutenberg prose
  of benchmarks/ruler/essay.py): the same haystack text the project fits;
- NLTK's Punkt model is not in the shared data, so ``nltk.tokenize.sent_tokenize`` is
  contextrot's splitter (benchmarks/texts/haystack.py); it moves needles between sentences,
  not the text's tokens;
- ``tenacity`` (imported by tokenizer.py for Gemini's API only) is a no-op stand-in;
- ``json/english_words.json`` (a git-LFS file: only its pointer is in the snapshot; CWE reads
  it past 8,169 words, never at 4K or 8K) is WordNet's lemmas, as contextrot uses.
The 11 synthetic tasks need no other data (qa_1/qa_2 read SQuAD/HotpotQA: left out).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.ruler import essay, words  # noqa: E402
from benchmarks.ruler.grid import TASKS  # noqa: E402
from fixtures.tokens.tokenizer import install_offline_vocabulary  # noqa: E402

COMMIT = "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"  # the spec's RULER (specs/ruler.md)
OUT = ROOT / "tests" / "ruler" / "ruler_fills.json"
SYNTHETIC = [name for name, task in TASKS.items() if not task.needs_data]

SITECUSTOMIZE = textwrap.dedent("""
    # Loaded before RULER's scripts (PYTHONPATH): Punkt and tenacity stand-ins, see ruler_fills.py
    import sys, types
    import nltk, nltk.data, nltk.tokenize
    from benchmarks.texts import haystack
    _find = nltk.data.find
    def find(resource, *args, **kwargs):
        if resource.startswith("tokenizers/punkt"):
            return resource
        return _find(resource, *args, **kwargs)
    nltk.data.find = find
    nltk.tokenize.sent_tokenize = lambda text, language="english": haystack.split_sentences(text)
    tenacity = types.ModuleType("tenacity")
    tenacity.retry = lambda *a, **k: (lambda f: f)
    tenacity.stop_after_attempt = tenacity.wait_fixed = tenacity.wait_random = lambda *a, **k: 0
    sys.modules.setdefault("tenacity", tenacity)
""")


def essay_text() -> str:
    sentences, _ = essay._essay(len(essay.ESSAY_FILES))
    return " ".join(sentences)


def asked_word_tokens(words: list[str]) -> float:
    """Mean o200k tokens of CWE's asked words as its list writes them (``1. word``)."""
    from fixtures.tokens.tokenizer import o200k

    return statistics.fmean(o200k().count(" " + word) for word in words)


def run(ruler_git: Path, commit: str, lengths: list[int], samples: int,
        tasks: list[str] = SYNTHETIC, workers: int = 3, seeds: list[int] | None = None) -> dict:
    """RULER's fills of ``tasks`` at ``lengths`` (seed 42); with ``seeds``, CWE's instead,
    one prepare.py per seed and length."""
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        archive = subprocess.run(["git", f"--git-dir={ruler_git}", "archive", commit, "scripts"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
        data = work / "scripts" / "data"
        (data / "synthetic" / "json" / "PaulGrahamEssays.json").write_text(
            json.dumps({"text": essay_text()}))
        (data / "synthetic" / "json" / "english_words.json").write_text(json.dumps(
            {str(i): word for i, word in enumerate(words.cwe_long_vocabulary())}))
        shim = work / "shim"
        shim.mkdir()
        (shim / "sitecustomize.py").write_text(SITECUSTOMIZE)
        env = dict(os.environ, PYTHONPATH=f"{shim}{os.pathsep}{ROOT}",
                   TIKTOKEN_CACHE_DIR=str(install_offline_vocabulary().parent),
                   PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")

        def one(task: str, length: int, seed: int = 42) -> tuple[str, int, dict]:
            out = work / f"{task}-{length}-{seed}"
            command = [sys.executable, "prepare.py", "--save_dir", str(out), "--benchmark",
                       "synthetic", "--task", task, "--tokenizer_path", "o200k_base",
                       "--tokenizer_type", "openai", "--max_seq_length", str(length),
                       "--model_template_type", "base", "--num_samples", str(samples),
                       "--random_seed", str(seed)]
            done = subprocess.run(command, cwd=data, env=env, capture_output=True, text=True)
            written = out / task / "validation.jsonl"
            rows = [json.loads(line) for line in written.read_text().splitlines()] \
                if written.exists() else []
            if len(rows) != samples:
                raise RuntimeError(f"{task} at {length}: RULER wrote {len(rows)} of {samples} "
                                   f"samples:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
            generate = TASKS[task].tokens_to_generate
            # RULER's "length" is prompt tokens (answer prefix included) + tokens_to_generate
            ratios = [(row["length"] - generate) / length for row in rows]
            found = {"mean": round(statistics.fmean(ratios), 5), "min": round(min(ratios), 5),
                     "max": round(max(ratios), 5), "samples": len(ratios)}
            if task == "cwe":
                found["asked_word_tokens"] = round(asked_word_tokens(
                    [word for row in rows for word in row["outputs"]]), 5)
            print(task, length, seed, found, flush=True)
            return task, length, found

        if seeds:
            by_seed = {str(length): {str(seed): one("cwe", length, seed)[2] for seed in seeds}
                       for length in lengths}
            return {str(length): {
                "seeds": seeds, "samples_per_seed": samples,
                "fill": round(statistics.fmean(s["mean"] for s in found.values()), 5),
                "asked_word_tokens": round(statistics.fmean(
                    s["asked_word_tokens"] for s in found.values()), 5),
                "by_seed": found} for length, found in by_seed.items()}
        fills: dict = {task: {} for task in tasks}
        # each prepare.py is one process; a few at once (the NIAH ones hold ~1 GB each)
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            for task, length, found in pool.map(lambda job: one(*job),
                                                [(t, n) for t in tasks for n in lengths]):
                fills[task][str(length)] = found
    by_length = {str(length): round(statistics.fmean(fills[t][str(length)]["mean"]
                                                     for t in tasks), 5)
                 for length in lengths}
    return {
        "how": {
            "ruler_commit": commit,
            "command": ("python prepare.py --benchmark synthetic --task TASK --tokenizer_path "
                        "o200k_base --tokenizer_type openai --max_seq_length L "
                        f"--model_template_type base --num_samples {samples} (seed 42), in "
                        "RULER's scripts/data; made by scripts/ruler_fills.py"),
            "tokenizer": "tiktoken o200k_base",
            "haystack": "contextrot's essay (benchmarks/ruler/essay.py) as "
                        "json/PaulGrahamEssays.json",
            "stand_ins": "nltk sent_tokenize = benchmarks/texts/haystack.split_sentences "
                         "(no Punkt model offline); tenacity = no-op (Gemini only); "
                         "json/english_words.json = WordNet's lemmas (an LFS pointer in the "
                         "snapshot; unread at 4K and 8K)",
            "fill": "prompt tokens (answer prefix included) / L, per sample; RULER's "
                    "'length' field less tokens_to_generate",
        },
        "tasks": tasks,
        "fills": fills,
        "mean_fill_by_length": by_length,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruler-git", type=Path, required=True,
                        help="the git directory of a NVIDIA/RULER clone")
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--lengths", default="4096,8192")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--tasks", default=",".join(SYNTHETIC))
    parser.add_argument("--workers", type=int, default=3, help="prepare.py runs at once")
    parser.add_argument("--cwe-seeds", default=None,
                        help="CWE only, one prepare.py per seed (e.g. 42,43,44,45,46): kept "
                             "in the existing JSON's cwe_by_seed")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.cwe_seeds:
        seeds = [int(x) for x in args.cwe_seeds.split(",")]
        found = json.loads(args.out.read_text()) if args.out.exists() else {}
        found["cwe_by_seed"] = run(args.ruler_git, args.commit,
                                   [int(x) for x in args.lengths.split(",")], args.samples,
                                   seeds=seeds)
        found["how"]["cwe_by_seed"] = (
            f"CWE alone, prepare.py as above with --random_seed each of {seeds}, "
            f"{args.samples} samples each; asked_word_tokens: mean o200k tokens of ' word' "
            "over the asked common words")
        args.out.write_text(json.dumps(found, indent=1) + "\n")
        print("cwe by seed:", found["cwe_by_seed"])
        return
    found = run(args.ruler_git, args.commit, [int(x) for x in args.lengths.split(",")],
                args.samples, args.tasks.split(","), args.workers)
    args.out.write_text(json.dumps(found, indent=1) + "\n")
    print("mean fill by length:", found["mean_fill_by_length"], "->", args.out)


if __name__ == "__main__":
    main()
