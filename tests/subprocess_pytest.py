"""Running contextrot as a user does, for the tests that need a whole run: ``pytest
benchmarks`` (or ``python -m reporting``) in a subprocess, in the project root, with this
environment less what the outer pytest (xdist) sets for itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 600


def child_env(**extra: str | None) -> dict[str, str]:
    """This environment less the outer pytest's own variables, plus ``extra`` (None drops)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "COV_")) and k != "PYTHONBREAKPOINT"}
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def pytest_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "benchmarks", "-p", "no:cacheprovider", *args]


def run_pytest(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT,
               timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """``pytest benchmarks ARGS``; stdout and stderr are kept apart, as text."""
    return subprocess.run(pytest_command(*args), cwd=cwd, env=env or child_env(),
                          capture_output=True, text=True, timeout=timeout)


def run_scripted(marker: str, base_url: str, results: Path, *extra: str,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``pytest benchmarks -m MARKER`` against the scripted server at ``base_url``, as the
    run ``run`` under ``results``."""
    return run_pytest("-m", marker, "-q", "--model", "scripted", "--base-url", base_url,
                      "--results-dir", str(results), "--run-id", "run", *extra, env=env)


def run_records(results: Path, run_id: str = "run") -> list[dict]:
    """The records a run wrote (``samples.jsonl``)."""
    lines = (results / run_id / "samples.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def run_reporting(*args: str, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """``python -m reporting ARGS``."""
    return subprocess.run([sys.executable, "-m", "reporting", *args], cwd=ROOT,
                          env=child_env(), capture_output=True, text=True, timeout=timeout)


def without_module(folder: Path, module: str) -> str:
    """A PYTHONPATH entry (``folder``) whose sitecustomize hides ``module`` from a child
    Python, as if it were not installed (an optional extra left out)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(f"import sys\nsys.modules[{module!r}] = None\n")
    return str(folder)
