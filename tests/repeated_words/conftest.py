import pytest

from ..subprocess_pytest import run_pytest


@pytest.fixture
def pytester_root():
    """Run pytest in the project root (collection only needs no model)."""
    def run(*args):
        done = run_pytest(*args)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return done.stdout.splitlines()
    return run
