"""The import contract of ``docs/architecture.md``, read from the source with :mod:`ast`:

- layers: engine ← games ← units ← api ← battle ← serving ← presentation ← cli and web;
  a module imports only from its own layer or the ones below it;
- no import loops between modules, counting imports inside functions, those written
  as ``importlib.import_module("...")`` and the package a submodule's import runs first;
- no private name (``_x``) imported from another module.

Every import counts, also one made inside a function or only for type checking: a lazy
import hides an edge from a reader, not from the design.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("engine", ("warroom.engine", "warroom.dice", "warroom.errors", "warroom.i18n",
                "warroom.schema")),
    # the profile base class every game's unit models extend
    ("games", ("warroom.games", "warroom.units.base")),
    ("units", ("warroom.units",)),
    ("api", ("warroom.api", "warroom")),
    ("battle", ("warroom.battle",)),
    ("serving", ("warroom.serving",)),
    ("presentation", ("warroom.cli_render", "warroom.web.charts")),
    ("interface", ("warroom.cli", "warroom.cli_help", "warroom.__main__",
                   "warroom.battle.cli", "warroom.units.cli", "warroom.web")),
)
"""Each layer by the modules (and packages) in it; a module belongs to the layer of the
longest name that is it or a package holding it (``warroom`` alone: only the package)."""

def modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = modules()


def owner(name: str) -> str | None:
    """The module ``name`` is, or that holds it (``warroom.api.odds`` -> ``warroom.api``)."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in MODULES:
            return ".".join(parts)
        parts.pop()
    return None


def imports(module: str, source: str | None = None
            ) -> Iterator[tuple[str, str | None, int]]:
    """(module imported, the name taken from it or None, line) for every import of
    ``module`` (its file, or ``source``)."""
    path = MODULES.get(module)
    package = module if path is not None and path.name == "__init__.py" else (
        module.rpartition(".")[0])
    text = source if source is not None else MODULES[module].read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if owner(full) == full:  # a submodule
                    yield full, None, node.lineno
                else:
                    yield base, alias.name, node.lineno
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and (getattr(node.func, "attr", None) == "import_module"
                   or getattr(node.func, "id", None) == "import_module")):
            yield node.args[0].value, None, node.lineno


def graph(packages: bool = True) -> dict[str, set[str]]:
    """Module -> the warroom modules it imports; with ``packages``, each package that
    importing them runs first too (a loop through a package's ``__init__`` is a loop;
    for the layers, what a module names is what it uses)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module in MODULES:
        for target, _name, _line in imports(module):
            found = owner(target) if target.startswith("warroom") else None
            if found is None or found == module:
                continue
            edges[module].add(found)
            if not packages:
                continue
            parts = found.split(".")
            for i in range(2, len(parts)):  # importing a.b.c runs the package a.b
                package = ".".join(parts[:i])
                if package in MODULES and not module.startswith(package + "."):
                    edges[module].add(package)
    return edges


def layer(module: str) -> int:
    best = (-1, -1)
    for index, (_name, members) in enumerate(LAYERS):
        for member in members:
            exact = member == "warroom"
            if module == member or (not exact and module.startswith(member + ".")):
                best = max(best, (len(member), index))
    assert best[1] >= 0, f"{module} is in no layer: add it to LAYERS and the diagram"
    return best[1]


def loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_in_a_layer() -> None:
    for module in MODULES:
        layer(module)


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    wrong = [f"{m} ({LAYERS[layer(m)][0]}) imports {t} ({LAYERS[layer(t)][0]})"
             for m, targets in sorted(graph(packages=False).items()) for t in sorted(targets)
             if layer(t) > layer(m)]
    assert wrong == []


def test_no_import_loops() -> None:
    assert loops(graph()) == []


def test_the_contract_sees_imports_hidden_in_functions_and_import_module() -> None:
    source = """
import importlib

def later():
    from warroom.web import pages
    from ..errors import _hidden
    return importlib.import_module("warroom.web.battles"), pages
"""
    found = {(t, n) for t, n, _ in imports("warroom.web.app", source)}
    assert found == {("importlib", None), ("warroom.web.pages", None),
                     ("warroom.errors", "_hidden"), ("warroom.web.battles", None)}
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert loops(edges) == [["a", "b", "c"]]


def test_no_private_names_imported_across_modules() -> None:
    crossing = []
    for module in MODULES:
        for target, name, line in imports(module):
            if name is None or not name.startswith("_") or name.startswith("__"):
                continue
            source = owner(target)
            if source is None or source == module:
                continue
            # a package's private module (schema/_base.py) serves that package only
            if source.rpartition(".")[2].startswith("_") and (
                    module.startswith(source.rpartition(".")[0] + ".")):
                continue
            crossing.append(f"{module}:{line} imports {source}.{name}")
    assert crossing == []
