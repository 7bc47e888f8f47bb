import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def pytester_root():
    """Run pytest in the project root (collection only needs no model)."""
    def run(*args):
        done = subprocess.run([sys.executable, "-m", "pytest", "benchmarks", *args], cwd=ROOT,
                              capture_output=True, text=True, env=os.environ.copy(), timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done.stdout.splitlines()
    return run
