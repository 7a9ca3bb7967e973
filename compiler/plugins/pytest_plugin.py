"""A pytest plugin: ``pytest rules/`` runs every example and property of the rulesets as test items.

Registered through the ``pytest11`` entry point; each ``.rules`` file yields one
item per example, property or claim written in it, and an overlay's header file one more item
per example of its base, run under the overlay's rules — the same runs, and so the same count,
as ``warscribe test``.  A ruleset that does not compile
yields one failing item listing the diagnostics.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import pytest

from compiler import ast as A
from compiler.diagnostics import render
from compiler.driver import Compilation, compile_paths
from compiler.model.ruleset import kind_of
from compiler.resolve.report import failure_lines
from compiler.resolve.claims import run_claim
from compiler.resolve.runner import Result, run_example, run_property


@lru_cache(maxsize=None)
def _compile(folder: str) -> Compilation:
    return compile_paths([folder])


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> "RulesFile | None":
    if file_path.suffix == ".rules":
        return RulesFile.from_parent(parent, path=file_path)
    return None


class RulesFailure(Exception):
    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class RulesFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        folder = str(self.path.parent)
        comp = _compile(folder)
        here = self.path.resolve()
        if not comp.ok:
            errors = [d for d in comp.diagnostics if d.is_error and Path(d.span.file).resolve() == here]
            if errors or (comp.rulesets == () and self.path.name == "ruleset.rules"):
                yield CompileItem.from_parent(self, name="check", errors=errors or list(comp.diagnostics),
                                              sources=dict(comp.sources))
            return
        for model in comp.rulesets:
            own = Path(model.folder).resolve()
            if own != self.path.parent.resolve():
                continue
            header = Path(model.header.span.file).resolve() == here
            for d in model.walk():
                if not isinstance(d, (A.Example, A.Property)):
                    continue
                written = Path(d.span.file).resolve()
                if written == here:
                    yield RulesItem.from_parent(self, name=d.id, decl=d, model=model, sources=dict(comp.sources))
                elif header and not written.is_relative_to(own):
                    # An overlay runs its base's examples again under its own rules, as `warscribe test`
                    # does: they are items of the overlay's header file, named after the base's folder.
                    yield RulesItem.from_parent(self, name=f"{written.parent.name}:{d.id}", decl=d, model=model,
                                                sources=dict(comp.sources))


class CompileItem(pytest.Item):
    def __init__(self, *, errors: list[Any], sources: dict[str, str], **kw: Any) -> None:
        super().__init__(**kw)
        self.errors = errors
        self.sources = sources

    def runtest(self) -> None:
        raise RulesFailure([render(d, self.sources) for d in self.errors] or ["the ruleset does not compile"])

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, RulesFailure):
            return "\n\n".join(excinfo.value.lines)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, "warscribe check"


class RulesItem(pytest.Item):
    def __init__(self, *, decl: Any, model: Any, sources: dict[str, str], **kw: Any) -> None:
        super().__init__(**kw)
        self.decl = decl
        self.model = model
        self.sources = sources

    def runtest(self) -> None:
        result: Result
        if isinstance(self.decl, A.Example):
            result = run_example(self.model, self.decl)
        elif isinstance(self.decl, A.Claim):
            result = run_claim(self.model, self.decl)  # judged, not enforced: fails only when it cannot be worked out
        else:
            result = run_property(self.model, self.decl)
        if not result.passed:
            raise RulesFailure(failure_lines(result, self.sources))

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, RulesFailure):
            return "\n".join(excinfo.value.lines)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        kind = kind_of(self.decl)
        return self.path, self.decl.span.line - 1, f"{kind} {self.decl.id}: {self.decl.title}"
