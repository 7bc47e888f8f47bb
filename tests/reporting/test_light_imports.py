"""The modules xdist workers load from reporting/ import no pandas, scipy or matplotlib."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pandas", "scipy", "matplotlib", "numpy")


@pytest.mark.parametrize("module", ["reporting.plugin", "reporting.sharding",
                                    "reporting.gating.thresholds", "reporting.analysis.verdict_settings",
                                    "reporting.experiments"])
def test_a_worker_side_module_imports_nothing_heavy(module):
    code = (f"import sys, {module}; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=True)
    assert found.stdout.strip() == "[]"
