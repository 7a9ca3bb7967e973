"""The package's layout limits: no module over 600 lines, no import cycle (imports inside
functions count), no private name imported from another module.

The import graph is read from the source with :mod:`ast`, so an import written inside a
function to dodge a cycle is still an edge.  A package importing its own submodules (an
``__init__`` re-exporting its stage's entry points) is not a cycle.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "compiler"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = f
    return mods


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, str, int]]:
    """(imported module, imported name or '', line) for each import of a module of the package."""
    is_pkg = path.name == "__init__.py"
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_pkg else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                if full in MODULES:
                    found.append((full, "", node.lineno))
                elif target in MODULES:
                    found.append((target, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    found.append((alias.name, "", node.lineno))
    return found


@functools.cache
def graph() -> dict[str, list[tuple[str, str, int]]]:
    """The package's imports, read once on first use (not while collecting)."""
    return {name: _imports(name, path) for name, path in MODULES.items()}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_the_limit(name: str) -> None:
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name} has {lines} lines; split it by concept (limit {MAX_LINES})"


def test_no_private_name_is_imported_from_another_module() -> None:
    private = [f"{name}:{line} imports {target}.{imported}"
               for name, edges in graph().items() for target, imported, line in edges
               if target != name and imported.startswith("_") and not imported.startswith("__")]
    assert not private, "\n".join(private)


def _cycles(imports: dict[str, list[tuple[str, str, int]]] | None = None) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively), in the
    package's imports or in ``imports``."""
    g = graph() if imports is None else imports
    edges = {v: sorted({t for t, _, _ in g[v] if t != v and not t.startswith(v + ".")}) for v in g}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            for j in range(i, len(edges[v])):
                w = edges[v][j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return found


def test_no_import_cycle() -> None:
    cycles = _cycles()
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle() -> None:
    """The check above can fail: two modules importing each other are reported."""
    fake = {"p.a": [("p.b", "", 1)], "p.b": [("p.c", "", 1)], "p.c": [("p.a", "x", 3)], "p.d": [("p.a", "", 1)]}
    assert _cycles(fake) == [["p.a", "p.b", "p.c"]]


def test_each_stage_is_a_subpackage_with_a_docstring() -> None:
    for stage in ("syntax", "ast", "model", "check", "resolve", "review", "site", "cli", "plugins"):
        init = PACKAGE / stage / "__init__.py"
        assert init.is_file(), stage
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"compiler/{stage} needs a docstring"
