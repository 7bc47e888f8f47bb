"""How much time does the harness add to the model's own time?

Runs the repeated-words grid through pytest against the scripted server (an instant "model"),
so nearly all the time measured is the harness: stimulus building, tokenization, the client,
record transport, the store, and the session's fixed costs (start-up, summary, plots). Then
compares, per sample, pytest's own test duration with the model-call latency recorded in the
sample's record.

    python scripts/bench_harness.py [--scale test|full] [-n WORKERS]
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
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fixtures.scripted_server import ScriptedServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="test", choices=("test", "full"))
    parser.add_argument("-n", "--workers", default="0")
    args = parser.parse_args()
    with ScriptedServer("copy", context_length=1_000_000) as server, \
            tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "junit.xml"
        command = [sys.executable, "-m", "pytest", "benchmarks", "-m", "repeated_words", "-q",
                   "--model", "scripted", "--base-url", server.base_url, "--no-cache",
                   "--scale", args.scale, "--results-dir", tmp, "--run-id", "bench",
                   "-n", args.workers, f"--junitxml={junit}", "-p", "no:cacheprovider"]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                              env=os.environ.copy())
        wall = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(done.stdout[-3000:] + done.stderr[-3000:])
        records = {json.loads(line)["nodeid"]: json.loads(line)
                   for line in (Path(tmp) / "bench" / "samples.jsonl").read_text().splitlines()}
        durations = {}
        for case in ET.parse(junit).getroot().iter("testcase"):
            module = case.get("classname").replace(".", "/") + ".py"
            durations[f"{module}::{case.get('name')}"] = float(case.get("time"))
    overhead = [durations[k] - records[k]["latency_s"] for k in records if k in durations]
    latency = [records[k]["latency_s"] for k in records]
    print(f"samples: {len(records)}  (scale={args.scale}, -n {args.workers})")
    print(f"session wall time: {wall:.2f} s  (includes interpreter start-up, collection, "
          f"summary and plots)")
    print(f"model-call latency per sample (scripted server): median "
          f"{statistics.median(latency) * 1000:.1f} ms")
    print(f"harness time per sample beyond the model call: median "
          f"{statistics.median(overhead) * 1000:.1f} ms, max {max(overhead) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
