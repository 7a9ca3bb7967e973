"""Every ``>>>`` example in the package runs, from one place.

The package is walked with ``pkgutil``; each module that has examples gets one test that runs
them (from the repository's root, so examples may name ``rules/…``). Modules without
examples are not run (there is nothing to run), but the stage entry points listed in
``MUST_HAVE_EXAMPLES`` must keep theirs: a public stage function teaches by example (STYLE.md,
habit 13). Add a module to that list once it has examples; do not remove one.
"""
from __future__ import annotations

import doctest
import importlib
import os
import pkgutil
from pathlib import Path
from types import ModuleType

import pytest

import compiler

ROOT = Path(__file__).resolve().parent.parent

# Stage entry points that had examples when this list was written: they must keep them.
MUST_HAVE_EXAMPLES = (
    "compiler.diagnostics",
    "compiler.driver",
    "compiler.syntax.parse",
    "compiler.syntax.unparse",
    "compiler.syntax.fmt",
    "compiler.ast.build",
    "compiler.model.static",
    "compiler.model.values",
    "compiler.resolve.dist",
    "compiler.resolve.evaluator",
    "compiler.review.diff",
    "compiler.site.export",
    "compiler.limits",
)

FINDER = doctest.DocTestFinder(exclude_empty=True)


def package_modules() -> list[str]:
    """Every module of ``compiler`` except ``__main__`` ones (importing those runs the CLI)."""
    names = [compiler.__name__]
    names += [m.name for m in pkgutil.walk_packages(compiler.__path__, f"{compiler.__name__}.")
              if not m.name.rsplit(".", 1)[-1] == "__main__"]
    return sorted(names)


def examples_of(module: ModuleType) -> list[doctest.DocTest]:
    return [t for t in FINDER.find(module, module.__name__) if t.examples]


MODULES = package_modules()


def with_examples() -> list[str]:
    return [name for name in MODULES if examples_of(importlib.import_module(name))]


@pytest.mark.parametrize("name", with_examples())
def test_docstring_examples_run(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module(name)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    runner = doctest.DocTestRunner()
    report: list[str] = []
    for test in examples_of(module):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
    assert result.attempted > 0


@pytest.mark.parametrize("name", MUST_HAVE_EXAMPLES)
def test_stage_entry_points_have_examples(name: str) -> None:
    assert name in MODULES, f"{name} is listed in MUST_HAVE_EXAMPLES but is not a module of the package"
    module = importlib.import_module(name)
    tests = examples_of(module)
    runnable = [e for t in tests for e in t.examples if not e.options.get(doctest.SKIP)]
    assert runnable, (f"{name} is a stage entry point and has no runnable >>> example: give its public "
                      "function one (tests/test_doctests.py runs it)")


def test_the_walk_finds_the_package() -> None:
    assert {"compiler.driver", "compiler.resolve.evaluator", "compiler.cli"} <= set(MODULES)
    assert os.path.isdir(ROOT / "compiler")
