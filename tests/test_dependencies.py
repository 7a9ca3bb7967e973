"""Dependencies that tell the truth: what the code imports is what pyproject.toml declares.

`pip install .` must give a working tool, so every third-party module the package imports
is a declared dependency; the tests import only the package's dependencies and the ``test``
extra; the benchmarks' dice libraries live in the ``bench`` extra. Imports are read from the
source (its AST), and each imported module is mapped to the distribution that provides it
with ``importlib.metadata.packages_distributions``.
"""
from __future__ import annotations

import ast
import functools
import importlib.metadata as metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
# Modules of this repository, not third-party: the package, and the tests' own helper modules.
LOCAL = {"compiler"} | {p.stem for p in (ROOT / "tests").glob("*.py")} | {p.stem for p in (ROOT / "bench").glob("*.py")}


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(*extras: str) -> set[str]:
    names = {normalise(requirement_name(r)) for r in PROJECT["dependencies"]}
    for extra in extras:
        names |= {normalise(requirement_name(r)) for r in PROJECT["optional-dependencies"][extra]}
    return names


@functools.cache
def imports(folder: Path) -> dict[str, list[str]]:
    """Top-level modules imported anywhere in ``folder``'s Python files (also inside functions);
    read once per folder (two tests read the package's)."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in LOCAL:
                    found.setdefault(top, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@functools.cache
def installed_modules() -> dict[str, list[str]]:
    return metadata.packages_distributions()  # reads every installed distribution: once


def distributions_of(module: str) -> set[str]:
    """The distributions that provide an importable module; for one not installed here (the
    benchmarks' peers, outside the test extra), the distribution of the same name."""
    provided = installed_modules().get(module)
    return {normalise(d) for d in provided} if provided else {normalise(module)}


def undeclared(folder: Path, allowed: set[str], exempt: dict[str, set[str]] | None = None) -> list[str]:
    problems = []
    for module, places in sorted(imports(folder).items()):
        places = [p for p in places if p.split(":")[0] not in (exempt or {}).get(module, set())]
        if places and not distributions_of(module) & allowed:
            problems.append(f"{module} (from {', '.join(sorted(distributions_of(module)))}) at {', '.join(places[:3])}")
    return problems


def pytest_plugin_files() -> set[str]:
    """Modules registered as pytest plugins: only pytest loads them, so they may import pytest."""
    plugins = PROJECT.get("entry-points", {}).get("pytest11", {})
    return {str(Path(*value.split(":")[0].split("."))) + ".py" for value in plugins.values()}


#: Optional extras, each with the one module allowed to import it (lazily, when asked to).
EXTRA_IMPORTS = {"dask": ("cluster", "compiler/battle/simulate.py")}


def test_every_import_of_the_package_is_a_declared_dependency() -> None:
    extras = {module: {place} for module, (_, place) in EXTRA_IMPORTS.items()}
    problems = undeclared(ROOT / "compiler", declared(), exempt={"pytest": pytest_plugin_files(), **extras})
    assert not problems, "the package imports undeclared distributions (add them to [project] dependencies):\n" + \
        "\n".join(problems)


def test_only_the_pytest_plugin_imports_pytest() -> None:
    places = imports(ROOT / "compiler").get("pytest", [])
    assert {p.split(":")[0] for p in places} <= pytest_plugin_files(), places


def test_the_tests_import_only_declared_test_dependencies() -> None:
    problems = undeclared(ROOT / "tests", declared("test"))
    assert not problems, "tests/ imports distributions missing from the test extra:\n" + "\n".join(problems)


def test_the_benchmarks_import_only_declared_dependencies() -> None:
    problems = undeclared(ROOT / "bench", declared("test", "bench"))
    assert not problems, "bench/ imports distributions missing from the bench extra:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", ["build", "dyce"])
def test_the_test_extra_has_no_unused_tools(name: str) -> None:
    assert name not in declared("test") - declared(), f"{name} is not used by the tests"


def test_ci_installs_no_chromium_driver() -> None:
    # Playwright drives Debian's chromium itself; chromedriver (chromium-driver) is unused.
    assert "chromium-driver" not in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_optional_extras_are_declared_in_their_extra() -> None:
    for module, (extra, _) in EXTRA_IMPORTS.items():
        assert distributions_of(module) & declared(extra), f"{module} is not in the [{extra}] extra"
