"""The engine's benchmark: wall time against a model of known latency, and the harness's cost.

Starts the scripted server on 127.0.0.1 with a fixed latency (every answer takes that long,
however many are in flight, like a batching server far from its limit) and runs pytest in a
subprocess with a fresh results directory, at several settings. For each run it prints:

    wall        the whole pytest command: start-up, collection, samples, summary, plots
    start-up    pytest launched -> the server's first request
    engine      the first request -> the last sample's record at the controller
    ideal       samples x latency / requests allowed in flight
    efficiency  ideal / engine
    in flight   the most requests the server saw at once
    CPU         user + system time of every process of the run (pytest, its workers, the
                end's process and its plot writers; the server is in this process, not counted)
    peak RSS    the largest pytest process's peak resident memory (controller or worker);
                "all" adds the process that writes the run's files at the end (run_end.py)

The sections (all by default; name some to run only those):

    subset      the repeated-words subset of issue 11 -- 150 samples, ``--scale full -k "n25w
                or n50w or n75w"`` -- at 1 to 64 connections and -n 1 to 16; then, against a
                zero-latency server, the harness's time per sample and the peak RSS of the
                900k-token NIAH samples
    per-sample  the harness's CPU per sample of each experiment at its largest size (repeated
                words at 10,000 words, NIAH at 900k tokens, continuation at its 128k tier,
                already-said-that at 100 turns; and repeated words at 25 to 75 words, the
                cost of any sample): the CPU of a run of K samples less that of a run of fewer, per
                extra sample, against a zero-latency server. Everything the harness does for
                a sample counts (the experiment's stimulus builder and scorer, token counts,
                the client, pytest, the record, the store, its share of the plots): the
                experiments run as a user runs them, through pytest. Then the repeated-words
                experiment's own part at 10,000 words, in this process: the prompt, its token
                count and the scores of an exact copy
    full-grid   the whole repeated-words grid of one pair (1,090 samples, up to 10,000 words)
                at 16 and 64 connections, without and with ``-n 2``

    prefix      the order of requests for a prefix cache (fixtures/engine/prefix.py): the full grids
                with shared prefixes (``--quick``: cut-down ones), NIAH, RULER's haystack
                tasks, continuation's rounds (and
                repeated words, which shares nothing worth waiting for) against the
                scripted server's prefix cache model (16-token blocks, ``--cache-tokens``,
                LRU) at 64 connections, ``--prefix-order off`` then ``on``: the prompt
                tokens the server computed, the lower bound (the distinct blocks of all the
                run's prompts: their prefix tree), computed / bound, what the cache served,
                and wall time with prefill on one lane at ``--prefill`` s a token (prefill
                dominates); then the records' scores of both runs compared

    main-job    the README's main job (``pytest benchmarks -n 2``, test scale) on the embedded
                model, ``--prefix-order off`` then ``on``, back to back, each with a fresh
                results dir and ``--no-cache``: wall, CPU, the prompt tokens sent, those the
                server evaluated (its own timings: what its cache did not serve), their prefill
                seconds, the lower bound (the distinct token prefixes of the records' prompts,
                in the server's tokens and chat template) and whether the scores are equal

    python scripts/bench_harness.py [--latency 0.2] [subset] [per-sample] [full-grid] [prefix]
                                    [main-job]

NIAH, continuation and already-said-that read their data from ``$CONTEXTROT_DATA_DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixtures.embedded.model import TIMINGS_ENV  # noqa: E402
from tests.doubles.scripted_server import ScriptedServer  # noqa: E402

SUBSET = ["-m", "repeated_words", "--scale", "full", "-k", "n25w or n50w or n75w"]
NIAH_900K = ["-m", "niah", "--scale", "full", "-k", "seq and ctx900k and d050 and dx0 and t00"]
FULL_GRID = ["-m", "repeated_words", "--scale", "full"]
# Per experiment at its largest size: (name, responder, a selection of K samples, of fewer).
LARGEST = (
    ("repeated words, 25-75 words", "copy", SUBSET,
     ["-m", "repeated_words", "--scale", "full", "-k", "n25w-pos0000"]),
    ("repeated words, 10,000 words", "copy",
     ["-m", "repeated_words", "--scale", "full", "-k", "n10000w"],
     ["-m", "repeated_words", "--scale", "full", "-k", "n10000w-pos0000"]),
    # both haystack modes in both runs: each mode's one-off corpus set-up in a process (0.5 s
    # sequential, 1.7 s shuffled) is paid by the run of fewer too, so it is not a sample's
    ("NIAH, 900k tokens", "no",
     ["-m", "niah", "--scale", "full", "-k", "ctx900k and d050 and dx0 and t00"],
     ["-m", "niah", "--scale", "full", "-k", "ctx900k and d050 and dx0 and t00 and ferry1"]),
    ("continuation, 128k tier", "no",
     ["-m", "continuation", "--scale", "full", "-k", "ctx128k", "--continuation-rounds", "4"],
     ["-m", "continuation", "--scale", "full", "-k", "ctx128k", "--continuation-rounds", "1"]),
    ("already said that, 100 turns", "remembers",
     ["-m", "already_said_that", "--scale", "full", "--ast-variant", "distractorless",
      "--ast-samples", "4"],
     ["-m", "already_said_that", "--scale", "full", "--ast-variant", "distractorless",
      "--ast-samples", "1"]),
)
SECTIONS = ("subset", "per-sample", "full-grid", "prefix", "main-job")
NOTHING_TO_SHARE = ("repeated words 25-75 words (nothing to wait for)", "copy", SUBSET)
# (name, responder, selection): the full grids with prompts that share prefixes, and one
# without; ``--quick`` runs the cut-down grids instead (a few minutes)
PREFIX_GRIDS = (
    ("NIAH, full grid", "no", ["-m", "niah", "--scale", "full"]),
    # RULER's tasks whose haystacks share a start (noise and essay); its four other synthetic
    # tasks share nothing but the instruction, so they only add hours here
    ("RULER, full grid of the haystack tasks", "no",
     ["-m", "ruler", "--scale", "full", "--ruler-tasks",
      "niah_single_1,niah_single_2,niah_single_3,niah_multikey_1,niah_multivalue,"
      "niah_multiquery,vt"]),
    ("continuation, full grid", "no", ["-m", "continuation", "--scale", "full"]),
    NOTHING_TO_SHARE,
)
QUICK_PREFIX_GRIDS = (
    ("NIAH seq, 1 needle, 1k-50k, 11 depths x 3 distractors, 1 trial", "no",
     ["-m", "niah", "--scale", "full", "--niah-modes", "seq", "--niah-needles", "ferry1",
      "--niah-trials", "1", "-k", "ctx1k or ctx5k or ctx10k or ctx50k"]),
    ("RULER haystack tasks, 4k and 8k, 20 samples", "no",
     ["-m", "ruler", "--scale", "full", "--ruler-lengths", "4096,8192",
      "--ruler-samples", "20", "--ruler-tasks",
      "niah_single_1,niah_single_2,niah_single_3,niah_multikey_1,niah_multivalue,"
      "niah_multiquery,vt"]),
    ("continuation, tiers to 32k, 3 rounds", "no",
     ["-m", "continuation", "--scale", "full", "--max-context", "32768"]),
    NOTHING_TO_SHARE,
)


def remembers(request: dict) -> str:
    """Already said that, played without a mistake: "yes" to a word asked before, else "no"
    (the distractorless variant asks nothing else), so every conversation runs 100 turns."""
    from benchmarks.already_said_that.stimulus import MAIN_PREFIX

    asked = [m["content"][len(MAIN_PREFIX):] for m in request["messages"]
             if m["role"] == "user" and m["content"].startswith(MAIN_PREFIX)]
    return f"[answer: {'yes' if asked and asked[-1] in asked[:-1] else 'no'}]"


RESPONDERS = {"remembers": remembers}
# Runs pytest as a child and writes the peak RSS (KiB) and the CPU seconds of the child and
# all it started (workers, the end's process, plot writers).
RSS_WRAPPER = ("import os, resource, subprocess, sys\n"
               "code = subprocess.run(sys.argv[1:]).returncode\n"
               "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
               "open(os.environ['BENCH_RSS'], 'w').write("
               "f'{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}')\n"
               "sys.exit(code)\n")


def child_pytest(arguments: list[str], results: Path, env: dict[str, str]
                 ) -> tuple[float, float, int]:
    """``pytest benchmarks ARGUMENTS`` as a child writing to ``results``, with a fresh results
    dir and no response cache; (its wall seconds, the CPU seconds of it and all it started,
    their peak RSS in KiB). Exits with its output if pytest failed."""
    rss = results.parent / "rss"
    command = [sys.executable, "-c", RSS_WRAPPER, sys.executable, "-m", "pytest", "benchmarks",
               *arguments, "-q", "--no-cache", "--results-dir", str(results),
               "-p", "no:cacheprovider"]
    launched = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **env, "BENCH_RSS": str(rss)})
    wall = time.monotonic() - launched
    if done.returncode != 0:
        sys.exit(f"pytest {' '.join(arguments)} exited {done.returncode}:\n"
                 + done.stdout[-3000:] + done.stderr[-3000:])
    peak, cpu = rss.read_text().split()
    return wall, float(cpu), int(peak)


def records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]


def run_pytest(server: ScriptedServer, selection: list[str], extra: list[str],
               keep: bool = False) -> dict:
    """One pytest command against ``server``; its timings, record count, CPU and peak RSS
    (``keep``: and each record's outcome and scores, by node id)."""
    with tempfile.TemporaryDirectory() as tmp:
        stamps = Path(tmp) / "stamps.json"
        env = {"BENCH_STAMPS": str(stamps),
               "PYTHONPATH": os.pathsep.join([str(ROOT / "scripts"),
                                              os.environ.get("PYTHONPATH", "")])}
        server.answered.clear()
        server.peak_in_flight = 0
        launched = time.monotonic()
        wall, cpu, peak = child_pytest(
            [*selection, "--model", "scripted", "--base-url", server.base_url,
             "--run-id", "bench", "-p", "bench_probe", *extra], Path(tmp) / "results", env)
        found = records(Path(tmp) / "results" / "bench")
        scores = {r["nodeid"]: (r["outcome"], r["scores"]) for r in found} if keep else None
        arrivals = sorted(json.loads(stamps.read_text()))
        first_request = min(started for started, _ in server.answered)
        return {"wall": wall, "startup": first_request - launched,
                "engine": arrivals[-1] - first_request, "records": len(found),
                "requests": len(server.answered), "in_flight": server.peak_in_flight,
                "gaps": [b - a for a, b in zip(arrivals, arrivals[1:])], "cpu": cpu,
                "rss_mb": max(map(int, Path(f"{stamps}.rss").read_text().split())) / 1024,
                "all_rss_mb": peak / 1024, "scores": scores}


HEADER = (f"{'run':<30} {'wall':>7} {'start-up':>9} {'engine':>7} {'ideal':>6} "
          f"{'efficiency':>10} {'in flight':>9} {'records':>7} {'CPU':>7} {'peak RSS':>9} "
          f"{'all':>6}")


def timed_row(name: str, result: dict, latency: float, connections: int) -> str:
    ideal = result["records"] * latency / connections
    return (f"{name:<30} {result['wall']:>6.1f}s {result['startup']:>8.1f}s "
            f"{result['engine']:>6.2f}s {ideal:>5.2f}s {ideal / result['engine']:>9.0%} "
            f"{result['in_flight']:>9} {result['records']:>7} {result['cpu']:>6.1f}s "
            f"{result['rss_mb']:>7.0f}MB {result['all_rss_mb']:>4.0f}MB")


def subset(latency: float, niah: bool) -> None:
    runs = [("no -n, --max-connections 1", 1, ["--max-connections", "1"]),
            ("no -n, --max-connections 16", 16, ["--max-connections", "16"]),
            ("no -n, --max-connections 64", 64, ["--max-connections", "64"]),
            ("-n 2, --max-connections 16", 16, ["-n", "2", "--max-connections", "16"]),
            ("-n 4, --max-connections 16", 16, ["-n", "4", "--max-connections", "16"]),
            ("-n 16, --max-connections 16", 16, ["-n", "16", "--max-connections", "16"])]
    print(f"150 repeated-words samples ({' '.join(SUBSET)}), a server answering after "
          f"{latency * 1000:.0f} ms, fresh results dir each run, {os.cpu_count()} cores")
    print(HEADER)
    with ScriptedServer("copy", context_length=1_000_000, latency_s=latency) as server:
        for name, connections, extra in runs:
            print(timed_row(name, run_pytest(server, SUBSET, extra), latency, connections),
                  flush=True)
    with ScriptedServer("copy", context_length=1_000_000) as server:
        result = run_pytest(server, SUBSET, ["--max-connections", "16"])
        per_sample = result["engine"] / max(1, result["records"] - 1)
        print(f"\nzero latency, --max-connections 16: {result['records']} samples, engine "
              f"{result['engine']:.2f}s -> harness time per sample {per_sample * 1000:.1f} ms "
              f"(median gap between records {statistics.median(result['gaps']) * 1000:.1f} ms)"
              f", start-up to the first request {result['startup']:.1f}s, wall "
              f"{result['wall']:.1f}s, peak RSS {result['rss_mb']:.0f} MB (all processes "
              f"{result['all_rss_mb']:.0f} MB)")
        if niah and _data_dir("900k-token NIAH"):
            result = run_pytest(server, NIAH_900K, [])
            print(f"900k-token NIAH samples ({result['records']}): wall "
                  f"{result['wall']:.1f}s, peak RSS {result['rss_mb']:.0f} MB (all "
                  f"processes {result['all_rss_mb']:.0f} MB)")


def per_sample() -> None:
    """The harness's CPU per sample: (CPU of K samples - CPU of k) / (K - k)."""
    print("\nthe harness's CPU per sample at each experiment's largest size (a zero-latency "
          "server; the CPU of a run of K samples less that of a run of k, over K - k):")
    print(f"  {'experiment':<30} {'K':>4} {'CPU':>7} {'k':>4} {'CPU':>7} {'per sample':>11}")
    for name, responder, many, few in LARGEST:
        if not name.startswith("repeated") and not _data_dir(name):
            continue
        with ScriptedServer(RESPONDERS.get(responder, responder),
                            context_length=2_000_000) as server:
            extra = ["--max-connections", "16"]
            small, large = run_pytest(server, few, extra), run_pytest(server, many, extra)
        cost = (large["cpu"] - small["cpu"]) / (large["records"] - small["records"])
        print(f"  {name:<30} {large['records']:>4} {large['cpu']:>6.1f}s "
              f"{small['records']:>4} {small['cpu']:>6.1f}s {cost * 1000:>8.1f} ms", flush=True)
    print(f"  of which the repeated-words experiment's own part at 10,000 words: "
          f"{repeated_words_own_part() * 1000:.1f} ms (the prompt, its o200k count, the scores "
          "and the refusal rule of an exact copy)")


def repeated_words_own_part(repeats: int = 20) -> float:
    """CPU seconds per 10,000-word sample of the experiment's builder, count and scorer."""
    from benchmarks.repeated_words import grid, scoring, stimulus
    from fixtures.tokens.tokenizer import o200k

    samples = [s for s in grid.build("full", [grid.DEFAULT_PAIR]) if s.n == 10_000]
    tokenizer = o200k()
    started = time.process_time()
    for sample in samples[:repeats]:
        tokenizer.count(stimulus.prompt(sample))
        output = stimulus.gold_text(sample)
        scoring.refusal_reason(sample, output, scoring.score(sample, output))
    return (time.process_time() - started) / repeats


def full_grid(latency: float) -> None:
    print(f"\nthe full repeated-words grid of one pair ({' '.join(FULL_GRID)}), "
          f"{latency * 1000:.0f} ms latency:")
    print(HEADER)
    with ScriptedServer("copy", context_length=1_000_000, latency_s=latency) as server:
        for connections in (16, 64):
            for workers in ([], ["-n", "2"]):
                name = f"{' '.join(workers) or 'no -n'}, --max-connections {connections}"
                result = run_pytest(server, FULL_GRID,
                                    ["--max-connections", str(connections), *workers])
                print(timed_row(name, result, latency, connections), flush=True)


def prefix(latency: float, prefill: float, cache_tokens: int, grids: list[str],
           quick: bool, orders: list[str]) -> None:
    print(f"\nrequests ordered for a prefix cache: the scripted server's cache model "
          f"({cache_tokens:,} tokens in 16-token blocks, LRU), prefill {prefill * 1e6:.2g} us a "
          f"token on one lane, {latency * 1000:.0f} ms a reply, --max-connections 64; load "
          f"average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"  {'grid':<44} {'order':>5} {'samples':>7} {'prompt tok':>12} {'computed':>12} "
          f"{'bound':>12} {'/bound':>6} {'cached':>6} {'wall':>7} {'same scores':>11}")
    for name, responder, selection in QUICK_PREFIX_GRIDS if quick else PREFIX_GRIDS:
        if grids and not any(g in name for g in grids):
            continue
        if not name.startswith("repeated") and not _data_dir(name):
            continue
        scores = {}
        for order in orders:
            with ScriptedServer(RESPONDERS.get(responder, responder), context_length=2_000_000,
                                latency_s=latency, prefix_cache_tokens=cache_tokens,
                                prefill_s_per_token=prefill) as server:
                result = run_pytest(server, selection, ["--max-connections", "64",
                                                        "--prefix-order", order], keep=True)
                counts = server.prefix_cache.counts()
            scores[order] = result["scores"]
            same = ("yes" if scores["on"] == scores["off"] else "NO") if len(scores) == 2 else ""
            print(f"  {name[:44]:<44} {order:>5} {result['records']:>7} "
                  f"{counts['prompt_tokens']:>12,} {counts['computed_tokens']:>12,} "
                  f"{counts['lower_bound']:>12,} "
                  f"{counts['computed_tokens'] / counts['lower_bound']:>5.2f}x "
                  f"{counts['served_tokens'] / counts['prompt_tokens']:>6.1%} "
                  f"{result['wall']:>6.1f}s {same:>11}", flush=True)


# llama.cpp's timings of one request, as llama-cpp-python's server logs them when verbose
PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
DECODE = re.compile(r"\n\S+\s+eval time =\s*([\d.]+) ms /\s*(\d+) runs")


def server_timings(log: str) -> dict:
    """The embedded server's own count of the prompt tokens it evaluated (its cache served
    the rest), the tokens it generated, and their seconds, summed over its requests."""
    prompts = [(float(ms), int(n)) for ms, n in PROMPT_EVAL.findall(log)]
    decodes = [(float(ms), int(n)) for ms, n in DECODE.findall(log)]
    return {"requests": len(prompts), "evaluated": sum(n for _, n in prompts),
            "prefill_s": sum(ms for ms, _ in prompts) / 1000,
            "decoded": sum(n for _, n in decodes),
            "decode_s": sum(ms for ms, _ in decodes) / 1000}


def prefix_tree(prompts: list[list[int]]) -> int:
    """The distinct prefixes of ``prompts`` (their prefix tree's size): the fewest tokens any
    order can evaluate. Sorted, each prompt shares most with its predecessor."""
    ordered = sorted(prompts)
    return sum(map(len, ordered)) - sum(len(os.path.commonprefix([before, prompt]))
                                        for before, prompt in zip(ordered, ordered[1:]))


def embedded_prompts(messages: list[list[dict]]) -> list[list[int]]:
    """``messages`` as the embedded server tokenizes them: its GGUF chat template, its
    vocabulary, the BOS token where the template does not add one."""
    from llama_cpp import Llama
    from llama_cpp._utils import suppress_stdout_stderr
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    from fixtures.embedded.model import model_path

    # a vocabulary alone has no trained context: llama.cpp's error about it says nothing here
    with suppress_stdout_stderr(disable=False):
        model = Llama(str(model_path()), vocab_only=True, verbose=False)
    vocab = model._model
    formatter = Jinja2ChatFormatter(
        template=model.metadata["tokenizer.chat_template"],
        eos_token=vocab.token_get_text(model.token_eos()),
        bos_token=vocab.token_get_text(model.token_bos()),
        stop_token_ids=[model.token_eos()])
    prompts = []
    for conversation in messages:
        rendered = formatter(messages=conversation)
        prompts.append(model.tokenize(rendered.prompt.encode(),
                                      add_bos=not rendered.added_special, special=True))
    return prompts


def main_job(orders: list[str]) -> None:
    print(f"\nthe main job (pytest benchmarks -n 2, test scale) on the embedded model, "
          f"--no-cache, a fresh results dir each; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"  {'order':>5} {'samples':>7} {'wall':>7} {'CPU':>7} {'requests':>8} "
          f"{'prompt tok':>10} {'evaluated':>10} {'bound':>8} {'/bound':>6} {'prefill':>8} "
          f"{'decoded':>8} {'decode':>7} {'same scores':>11}")
    scores = {}
    for order in orders:
        with tempfile.TemporaryDirectory() as tmp:
            results = Path(tmp) / "results"
            wall, cpu, _ = child_pytest(
                ["-n", "2", "--prefix-order", order, "--run-id", "main"], results,
                {TIMINGS_ENV: "1"})
            found = records(results / "main")
            timings = server_timings((results / "main" / "embedded-server.log").read_text())
        scores[order] = {r["nodeid"]: (r["outcome"], r["scores"], r["output"]) for r in found}
        # a conversation's record keeps its opening messages: its later turns count as adding
        # nothing, so this stays a lower bound
        bound = prefix_tree(embedded_prompts([r["messages"] for r in found]))
        same = ("yes" if scores["on"] == scores["off"] else "NO") if len(scores) == 2 else ""
        print(f"  {order:>5} {len(found):>7} {wall:>6.1f}s {cpu:>6.1f}s "
              f"{timings['requests']:>8} {sum(r['prompt_tokens'] or 0 for r in found):>10,} "
              f"{timings['evaluated']:>10,} {bound:>8,} {timings['evaluated'] / bound:>5.2f}x "
              f"{timings['prefill_s']:>7.1f}s {timings['decoded']:>8,} "
              f"{timings['decode_s']:>6.1f}s {same:>11}", flush=True)


def _data_dir(what: str) -> bool:
    if os.environ.get("CONTEXTROT_DATA_DIR"):
        return True
    print(f"  {what}: skipped (set CONTEXTROT_DATA_DIR)")
    return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sections", nargs="*", metavar="SECTION",
                        help=f"what to run: {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--latency", type=float, default=0.2, metavar="SECONDS")
    parser.add_argument("--prefill", type=float, default=2e-6, metavar="SECONDS",
                        help="prefix section: prefill time per uncached token (one lane)")
    parser.add_argument("--cache-tokens", type=int, default=20_000_000, metavar="TOKENS",
                        help="prefix section: the server's prefix cache capacity")
    parser.add_argument("--grid", action="append", default=[], metavar="WORDS",
                        help="prefix section: only the grids whose name holds WORDS")
    parser.add_argument("--orders", default="off,on", choices=("off,on", "off", "on"),
                        help="prefix and main-job sections: the --prefix-order values to run")
    parser.add_argument("--quick", action="store_true",
                        help="prefix section: cut-down grids (minutes) instead of the full ones")
    parser.add_argument("--skip-niah", action="store_true",
                        help="leave out the 900k-token NIAH memory measurement (subset)")
    args = parser.parse_args()
    sections = args.sections or SECTIONS
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section {', '.join(sorted(unknown))}: choose from "
                     f"{', '.join(SECTIONS)}")
    if "subset" in sections:
        subset(args.latency, not args.skip_niah)
    if "per-sample" in sections:
        per_sample()
    if "full-grid" in sections:
        full_grid(args.latency)
    if "prefix" in sections:
        prefix(args.latency, args.prefill, args.cache_tokens, args.grid, args.quick,
               args.orders.split(","))
    if "main-job" in sections and _data_dir("the main job"):
        main_job(args.orders.split(","))


if __name__ == "__main__":
    main()
