"""Every ``>>>`` example in the package runs, from one place.

The package's files are read (nothing is imported to collect the tests); each module whose source
holds examples gets one test that runs them (from the repository's root, so examples may name
``rules/…``). Modules without examples are not run (there is nothing to run), but the stage entry points listed in
``MUST_HAVE_EXAMPLES`` must keep theirs: a public stage function teaches by example (STYLE.md,
habit 13). Add a module to that list once it has examples; do not remove one.
"""
from __future__ import annotations

import doctest
import importlib
import os
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
    """Every module of ``compiler`` except ``__main__`` ones (importing those runs the CLI), read
    from the files (nothing imported while the tests are collected)."""
    package = Path(compiler.__file__).parent
    names = []
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__main__":
            continue
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def examples_of(module: ModuleType) -> list[doctest.DocTest]:
    return [t for t in FINDER.find(module, module.__name__) if t.examples]


MODULES = package_modules()


def source_of(name: str) -> Path:
    package = Path(compiler.__file__).parent.parent
    path = package.joinpath(*name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def with_examples() -> list[str]:
    """The modules whose source holds a ``>>>`` prompt: every module with examples is one of them
    (a docstring is in its module's source), and the test below fails for one that has none."""
    return [name for name in MODULES if ">>>" in source_of(name).read_text(encoding="utf-8")]


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
