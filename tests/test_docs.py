"""The README and the docs say what runs: CI runs the README's commands as written, the
commands marked ``<!-- offline -->`` run (each in a subprocess, with a time limit), and the
README's links name pages that exist. (The site itself is built strictly by .ci/run.)"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from .subprocess_pytest import ROOT, child_env

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
OFFLINE_MARK = "<!-- offline -->"
COMMAND_S = 180  # the slowest, RULER's full --plan, took 17 s on the busy 2-core machine
FENCE = re.compile(r"^```\w*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def code_blocks(text: str, marked: bool = False) -> list[str]:
    """The fenced blocks, or only those right under the offline mark."""
    return [m.group(1) for m in FENCE.finditer(text)
            if not marked or text[:m.start()].rstrip().endswith(OFFLINE_MARK)]


def offline_commands() -> list:
    found = []
    for page in PAGES:
        for block in code_blocks(page.read_text(), marked=True):
            for line in block.splitlines():
                if line.strip():
                    found.append(pytest.param(line, id=f"{page.relative_to(ROOT)}: {line[:60]}"))
    return found


def readme_command(word: str) -> str:
    (block,) = [b for b in code_blocks(README.read_text()) if word in b]
    (line,) = block.strip().splitlines()
    return line


def test_ci_runs_the_readme_commands_as_written():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    tests = readme_command("pytest tests")
    assert tests.startswith("CONTEXTROT_DATA_DIR=../shared/data ")  # relative, as users type
    assert tests in ci
    setup = readme_command("pip install").split(" && CONTEXTROT_DATA_DIR=")[0]
    assert setup in ci


def test_some_commands_are_marked_to_run():
    assert len(offline_commands()) >= 3


@pytest.mark.parametrize("command", offline_commands())
def test_a_quoted_offline_command_runs(command):
    env = child_env(PATH=os.pathsep.join([os.path.dirname(sys.executable),
                                          os.environ.get("PATH", "")]))
    done = subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=COMMAND_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stdout + done.stderr


def test_the_readme_links_name_pages_that_exist():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text())
    local = [link for link in links if "://" not in link]
    assert local and [link for link in local if not (ROOT / link).is_file()] == []


def test_marked_commands_run_the_project_only():
    for param in offline_commands():
        (command,) = param.values
        assert shlex.split(command, comments=True)[0] in {"pytest", "python"}, command
