"""The house's walls: no experiment imports another, and the shared layers import none."""

import ast
import pathlib

import benchmarks

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPERIMENTS = {package.__name__.split(".")[-1] for package in benchmarks.experiment_packages()}


def imported_modules(path: pathlib.Path) -> set[str]:
    """Every module a file imports, at any depth of its code (lazy imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def experiment_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == "benchmarks" and parts[1] in EXPERIMENTS:
        return parts[1]
    return None


def test_the_experiments_are_found():
    assert {"niah", "ruler", "mrcr", "re3", "continuation", "already_said_that",
            "repeated_words", "graphwalks"} <= EXPERIMENTS


def test_no_experiment_imports_another():
    crossings = []
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):
        own = path.relative_to(ROOT / "benchmarks").parts[0]
        for module in imported_modules(path):
            other = experiment_of(module)
            if other is not None and other != own:
                crossings.append(f"{path.relative_to(ROOT)} imports {module}")
    assert crossings == []


def test_the_shared_layers_import_no_experiment():
    crossings = []
    for layer in ("fixtures", "reporting", "benchmarks/texts"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            crossings += [f"{path.relative_to(ROOT)} imports {module}"
                          for module in imported_modules(path) if experiment_of(module)]
    assert crossings == []


def test_a_lazy_crossing_is_seen(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("def f():\n    from benchmarks.niah.stimulus import build\n")
    assert {experiment_of(m) for m in imported_modules(source)} == {"niah"}


def test_every_experiment_says_what_it_shows_on_the_embedded_model():
    """The main job runs on a 135M model: each experiment's row says in one plain phrase
    what it shows there (its machinery, a zero that is expected), never a bare zero."""
    import importlib

    for name in sorted(EXPERIMENTS):
        experiment = importlib.import_module(f"benchmarks.{name}").EXPERIMENT
        phrase = experiment.on_embedded
        assert phrase and len(phrase) <= 120 and "\n" not in phrase, name
