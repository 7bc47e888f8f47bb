"""The house's walls: no experiment imports another, and the shared layers import none; in the
product (fixtures/, reporting/, benchmarks/) no import circle, no module taking another's
underscore names, and no module importing a test double (tests/doubles/)."""

import ast
import dataclasses
import pathlib

import benchmarks

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXPERIMENTS = {package.__name__.split(".")[-1] for package in benchmarks.experiment_packages()}
PRODUCT = ("fixtures", "reporting", "benchmarks")


@dataclasses.dataclass(frozen=True)
class Import:
    module: str  # the module imported (``from package import module`` imports the module)
    name: str | None  # the name taken from it (``from module import name``), else None
    alias: str  # the name it is bound to
    line: int


def module_name(path: pathlib.Path, root: pathlib.Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_files(root: pathlib.Path = ROOT, tops=PRODUCT) -> dict[str, pathlib.Path]:
    return {module_name(path, root): path for top in tops if (root / top).is_dir()
            for path in sorted((root / top).rglob("*.py"))}


def imports(tree: ast.AST, module: str, is_package: bool = False,
            known: frozenset[str] = frozenset()) -> list[Import]:
    """Every import in ``tree``, at any depth of its code (lazy imports included), relative
    ones resolved; ``from package import name`` imports the module ``package.name`` where
    that is one of ``known``."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, None, alias.asname or alias.name.split(".")[0],
                             node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                bound = alias.asname or alias.name
                if f"{base}.{alias.name}" in known:
                    found.append(Import(f"{base}.{alias.name}", None, bound, node.lineno))
                else:
                    found.append(Import(base, alias.name, bound, node.lineno))
    return found


def file_imports(path: pathlib.Path, module: str, known=frozenset()) -> list[Import]:
    return imports(ast.parse(path.read_text(encoding="utf-8")), module,
                   path.name == "__init__.py", known)


def imported_modules(path: pathlib.Path) -> set[str]:
    """Every absolute module a file imports, and each name it takes as ``module.name``."""
    module = module_name(path) if path.is_relative_to(ROOT) else path.stem
    found = set()
    for taken in file_imports(path, module):
        found.add(taken.module)
        if taken.name is not None:
            found.add(f"{taken.module}.{taken.name}")
    return found


def import_graph(files: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    """Each module's imports among ``files``. Importing a submodule runs its package first, as
    it does for every submodule: the package itself is not an edge."""
    known = frozenset(files)
    return {module: {taken.module for taken in file_imports(path, module, known)
                     if taken.module in known and taken.module != module}
            for module, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle through each group of modules that import each other (the strongly
    connected components, Tarjan's), as the path that closes it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = set(stack[stack.index(module):])
            del stack[stack.index(module):]
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [closing_path(graph, group) for group in groups]


def closing_path(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest path from the group's first module back to it."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        module = frontier.pop(0)
        for target in sorted(graph[module] & group):
            if target == start:
                return paths[module] + [start]
            if target not in paths:
                paths[target] = paths[module] + [target]
                frontier.append(target)
    raise AssertionError(f"no circle through {sorted(group)}")


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def underscore_uses(files: dict[str, pathlib.Path]) -> list[str]:
    """Where a module takes another module's underscore name: ``from m import _x``, or
    ``m._x`` on a module it imported (dunders are Python's, not the module's)."""
    known = frozenset(files)
    found = []
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        taken = imports(tree, module, path.name == "__init__.py", known)
        found += [f"{module}:{t.line} takes {t.module}.{t.name}" for t in taken
                  if t.name is not None and private(t.name) and t.module in known
                  and t.module != module]
        modules = {t.alias: t.module for t in taken if t.name is None and t.module in known
                   and t.module != module}
        found += [f"{module}:{node.lineno} takes {modules[node.value.id]}.{node.attr}"
                  for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                  and node.value.id in modules and private(node.attr)]
    return found


def double_imports(files: dict[str, pathlib.Path]) -> list[str]:
    """Where product code imports the tests' package (its test doubles above all)."""
    return [f"{module} imports {taken.module}" for module, path in files.items()
            for taken in file_imports(path, module)
            if taken.module == "tests" or taken.module.startswith("tests.")]


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


def test_no_import_circle_in_the_product():
    assert circles(import_graph(module_files())) == []


def test_no_module_takes_another_modules_underscore_names():
    assert underscore_uses(module_files()) == []


def test_no_product_module_imports_a_test_double():
    assert double_imports(module_files()) == []


# fixtures/'s rooms and those each may import: the pytest face down to the engine, the
# engine down to providers and tokens (docs/architecture.md)
ROOMS_BELOW = {"pytest_face": {"engine", "providers", "tokens", "data", "embedded"},
               "engine": {"providers", "tokens"}, "tokens": {"providers"},
               "providers": set(), "data": set(), "embedded": set()}


def test_fixtures_rooms_import_only_the_rooms_below():
    graph = {module: {t for t in targets if t.startswith("fixtures.")}
             for module, targets in import_graph(module_files()).items()
             if module.startswith("fixtures.")}

    def room(module: str) -> str:
        return module.split(".")[1]

    # a module beside the rooms, or a new room, must say where it stands
    assert {room(module) for module in graph} == set(ROOMS_BELOW)
    upward = [f"{module} imports {target}" for module, targets in sorted(graph.items())
              for target in sorted(targets)
              if room(target) != room(module) and room(target) not in ROOMS_BELOW[room(module)]]
    assert upward == []


def test_the_import_graph_is_the_products():
    graph = import_graph(module_files())
    assert "fixtures.engine.models" in graph["fixtures.pytest_face.harness"]
    assert "fixtures.providers.base" in graph["fixtures.engine.models"]
    # a sibling named from its package is that module, not the package
    assert graph["benchmarks.mrcr.grid"] >= {"benchmarks.mrcr.original"}
    assert "benchmarks.mrcr" not in graph["benchmarks.mrcr.grid"]


def planted(tmp_path: pathlib.Path, sources: dict[str, str]) -> dict[str, pathlib.Path]:
    for name, source in sources.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return module_files(tmp_path, ("pkg",))


def test_a_planted_circle_is_seen(tmp_path):
    files = planted(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from . import b\n",
        "pkg/b.py": "def f():\n    from .c import g\n",  # lazy: a circle all the same
        "pkg/c.py": "from pkg.a import x\n",
        "pkg/d.py": "from . import a\n",  # into the circle, not on it
    })
    assert circles(import_graph(files)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


def test_a_planted_underscore_use_is_seen(tmp_path):
    files = planted(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "_HIDDEN = 1\n__all__ = []\n",
        "pkg/b.py": "from .a import _HIDDEN, __all__\n",
        "pkg/c.py": "from . import a\nprint(a._HIDDEN, a.__name__)\n",
        "pkg/d.py": "_OWN = 1\nfrom pkg.d import _OWN\n",  # its own: allowed
    })
    assert underscore_uses(files) == ["pkg.b:1 takes pkg.a._HIDDEN", "pkg.c:2 takes pkg.a._HIDDEN"]


def test_a_planted_test_double_import_is_seen(tmp_path):
    files = planted(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    from tests.doubles.scripted_server import ScriptedServer\n",
        "pkg/b.py": "import tests.doubles\n",
    })
    assert double_imports(files) == ["pkg.a imports tests.doubles.scripted_server",
                                     "pkg.b imports tests.doubles"]
