"""Hooks that contextrot adds to pytest."""

import pytest


@pytest.hookspec
def pytest_contextrot_experiments(config):
    """Return a list of Experiment declarations (see reporting.experiments).

    Every implementation's list is merged; the root conftest returns the benchmarks/ catalogue.
    """
