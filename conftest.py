"""Glue: load contextrot's two plugins and hand them the experiments under benchmarks/."""

import benchmarks

pytest_plugins = ["reporting.plugin", "fixtures.pytest_face.plugin", "reporting.sharding"]


def pytest_addoption(parser):
    group = parser.getgroup("contextrot")
    for package in benchmarks.experiment_packages():
        if hasattr(package, "add_options"):
            package.add_options(group)


def pytest_contextrot_experiments(config):
    return [package.EXPERIMENT for package in benchmarks.experiment_packages()]
