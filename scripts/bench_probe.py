"""A pytest plugin for ``bench_harness.py`` (loaded with ``-p bench_probe``): in the controller,
the monotonic time at which each sample's record arrived, written to ``$BENCH_STAMPS`` at the
end. CLOCK_MONOTONIC is one clock for every process of the machine, so these times compare
with the latency server's. Every pytest process (controller and workers) appends its own
peak resident memory, in KiB, to ``$BENCH_STAMPS.rss``."""

import json
import os
import resource
import time

_arrivals: list[float] = []


def pytest_runtest_logreport(report):
    if report.when == "teardown" and "PYTEST_XDIST_WORKER" not in os.environ:
        _arrivals.append(time.monotonic())


def pytest_unconfigure(config):
    path = os.environ.get("BENCH_STAMPS")
    if path:
        with open(path + ".rss", "a") as out:
            out.write(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\n")
    if path and "PYTEST_XDIST_WORKER" not in os.environ:
        with open(path, "w") as out:
            json.dump(_arrivals, out)
