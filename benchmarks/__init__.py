"""The experiments: one package each, declaring itself with an ``EXPERIMENT``.

Adding an experiment is adding a folder here whose ``__init__.py`` defines ``EXPERIMENT`` (a
``reporting.experiments.Experiment``) and, optionally, ``add_options(group)`` for its own
command-line options. Its test module parametrizes one pytest case per sample.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def experiment_packages() -> list[ModuleType]:
    """Every importable experiment package, in name order (collection must be deterministic).

    A package that fails to import is left out here; its test module then fails to import
    during collection, which fails the run loudly and names the error.
    """
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}")
        except Exception:
            continue
        if hasattr(module, "EXPERIMENT"):
            found.append(module)
    return found
