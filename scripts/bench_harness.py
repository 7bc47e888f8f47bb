"""The engine's benchmark: wall time against a model of known latency, and the harness's cost.

Starts the scripted server on 127.0.0.1 with a fixed latency (every answer takes that long,
however many are in flight, like a batching server far from its limit) and runs the
repeated-words subset of issue 11 -- 150 samples, ``--scale full -k "n25w or n50w or n75w"``
-- through pytest in a subprocess with a fresh results directory, at several settings. For
each it prints:

    wall        the whole pytest command: start-up, collection, samples, summary, plots
    start-up    pytest launched -> the server's first request
    engine      the first request -> the last sample's record at the controller
    ideal       samples x latency / requests allowed in flight
    efficiency  ideal / engine
    in flight   the most requests the server saw at once
    peak RSS    the largest pytest process's peak resident memory (controller or worker);
                "all" adds the process that writes the run's files at the end (run_end.py)

Then, against a zero-latency server, the harness's own time per sample (engine time over
samples, and the median gap between records), and the peak RSS of the 900k-token NIAH
samples. ``--full-grid`` adds the whole repeated-words grid at full scale (1,090 samples,
long outputs to score) without and with ``-n 2``, where a second process has CPU work to
share.

    python scripts/bench_harness.py [--latency 0.2] [--skip-niah] [--full-grid]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixtures.scripted_server import ScriptedServer  # noqa: E402

SUBSET = ["-m", "repeated_words", "--scale", "full", "-k", "n25w or n50w or n75w"]
NIAH_900K = ["-m", "niah", "--scale", "full", "-k", "seq and ctx900k and d050 and dx0 and t00"]
FULL_GRID = ["-m", "repeated_words", "--scale", "full"]
# Runs pytest as a child and writes the child's (and its workers') peak RSS, in KiB.
RSS_WRAPPER = ("import os, resource, subprocess, sys\n"
               "code = subprocess.run(sys.argv[1:]).returncode\n"
               "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
               "open(os.environ['BENCH_RSS'], 'w').write(str(peak))\n"
               "sys.exit(code)\n")


def run_pytest(server: ScriptedServer, selection: list[str], extra: list[str]) -> dict:
    """One pytest command against ``server``; its timings, record count and peak RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        stamps, rss = Path(tmp) / "stamps.json", Path(tmp) / "rss"
        command = [sys.executable, "-c", RSS_WRAPPER, sys.executable, "-m", "pytest",
                   "benchmarks", *selection, "-q", "--model", "scripted",
                   "--base-url", server.base_url, "--no-cache",
                   "--results-dir", str(Path(tmp) / "results"), "--run-id", "bench",
                   "-p", "no:cacheprovider", "-p", "bench_probe", *extra]
        env = {**os.environ, "BENCH_STAMPS": str(stamps), "BENCH_RSS": str(rss),
               "PYTHONPATH": os.pathsep.join([str(ROOT / "scripts"),
                                              os.environ.get("PYTHONPATH", "")])}
        server.answered.clear()
        server.peak_in_flight = 0
        launched = time.monotonic()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
        wall = time.monotonic() - launched
        if done.returncode != 0:
            sys.exit(f"pytest {' '.join(extra)} exited {done.returncode}:\n"
                     + done.stdout[-3000:] + done.stderr[-3000:])
        samples = Path(tmp) / "results" / "bench" / "samples.jsonl"
        records = len(samples.read_text().splitlines())
        arrivals = sorted(json.loads(stamps.read_text()))
        first_request = min(started for started, _ in server.answered)
        return {"wall": wall, "startup": first_request - launched,
                "engine": arrivals[-1] - first_request, "records": records,
                "requests": len(server.answered), "in_flight": server.peak_in_flight,
                "gaps": [b - a for a, b in zip(arrivals, arrivals[1:])],
                "rss_mb": max(map(int, Path(f"{stamps}.rss").read_text().split())) / 1024,
                "all_rss_mb": int(rss.read_text()) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, metavar="SECONDS")
    parser.add_argument("--skip-niah", action="store_true",
                        help="leave out the 900k-token NIAH memory measurement")
    parser.add_argument("--full-grid", action="store_true",
                        help="also time the full repeated-words grid without and with -n 2")
    args = parser.parse_args()
    runs = [("no -n, --max-connections 1", 1, ["--max-connections", "1"]),
            ("no -n, --max-connections 16", 16, ["--max-connections", "16"]),
            ("no -n, --max-connections 64", 64, ["--max-connections", "64"]),
            ("-n 2, --max-connections 16", 16, ["-n", "2", "--max-connections", "16"]),
            ("-n 4, --max-connections 16", 16, ["-n", "4", "--max-connections", "16"]),
            ("-n 16, --max-connections 16", 16, ["-n", "16", "--max-connections", "16"])]
    print(f"150 repeated-words samples ({' '.join(SUBSET)}), a server answering after "
          f"{args.latency * 1000:.0f} ms, fresh results dir each run, {os.cpu_count()} cores")
    print(f"{'run':<30} {'wall':>7} {'start-up':>9} {'engine':>7} {'ideal':>6} "
          f"{'efficiency':>10} {'in flight':>9} {'records':>7} {'peak RSS':>9} {'all':>6}")
    with ScriptedServer("copy", context_length=1_000_000, latency_s=args.latency) as server:
        for name, connections, extra in runs:
            result = run_pytest(server, SUBSET, extra)
            ideal = result["records"] * args.latency / connections
            print(f"{name:<30} {result['wall']:>6.1f}s {result['startup']:>8.1f}s "
                  f"{result['engine']:>6.2f}s {ideal:>5.2f}s "
                  f"{ideal / result['engine']:>9.0%} {result['in_flight']:>9} "
                  f"{result['records']:>7} {result['rss_mb']:>7.0f}MB {result['all_rss_mb']:>4.0f}MB",
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
        if not args.skip_niah:
            data = os.environ.get("CONTEXTROT_DATA_DIR")
            if not data:
                print("900k-token NIAH: skipped (set CONTEXTROT_DATA_DIR)")
            else:
                result = run_pytest(server, NIAH_900K, [])
                print(f"900k-token NIAH samples ({result['records']}): wall "
                      f"{result['wall']:.1f}s, peak RSS {result['rss_mb']:.0f} MB (all "
                      f"processes {result['all_rss_mb']:.0f} MB)")
    if args.full_grid:
        print(f"\nthe full repeated-words grid ({' '.join(FULL_GRID)}), {args.latency * 1000:.0f}"
              " ms latency, --max-connections 16:")
        with ScriptedServer("copy", context_length=1_000_000, latency_s=args.latency) as server:
            for name, extra in (("no -n", []), ("-n 2", ["-n", "2"])):
                result = run_pytest(server, FULL_GRID, ["--max-connections", "16", *extra])
                print(f"  {name:<6} {result['records']} samples, wall {result['wall']:.1f}s, "
                      f"peak RSS {result['rss_mb']:.0f} MB (all processes "
                      f"{result['all_rss_mb']:.0f} MB)", flush=True)


if __name__ == "__main__":
    main()
