"""The progress line keeps coming while a sample is in flight and none finishes.

A real run (pytest in a subprocess, the real openai client against the scripted server,
which answers after several seconds): the line comes every interval from the controller,
without -n and with -n 2 (xdist's controller, the samples in its workers), saying what it
waits on. The interval is shortened from 10 s so that the test takes seconds.
"""

from __future__ import annotations

import re

import pytest

from fixtures.pytest_face.progress import EVERY_ENV
from tests.doubles.scripted_server import ScriptedServer

from ..subprocess_pytest import child_env, run_pytest

LATENCY_S = 6.0
EVERY_S = 1.0


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one-process", "xdist"])
def test_a_line_every_interval_while_a_sample_is_in_flight(tmp_path, workers):
    with ScriptedServer("echo", latency_s=LATENCY_S) as server:
        ran = run_pytest("-m", "smoke and repeated_words", "-q", *workers, "--model",
                         "scripted", "--base-url", server.base_url, "--results-dir",
                         str(tmp_path), "--run-id", "slow",
                         env=child_env(**{EVERY_ENV: str(EVERY_S)}))
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    waiting = [line for line in ran.stdout.splitlines() if "; waiting on " in line]
    # one sample, answered after 6 s: a line about each second before it finishes
    assert len(waiting) >= 3, ran.stdout
    assert all(line.startswith("contextrot: 0/1 samples") for line in waiting), waiting
    seconds = [int(re.search(r"for (\d+) s", line).group(1)) for line in waiting]
    assert seconds == sorted(seconds) and seconds[-1] >= 3, waiting
    assert "test_repeated_words[" in waiting[0] and "ETA" in waiting[0]
