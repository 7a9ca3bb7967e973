"""Pieces shared by every kind of declaration: the :class:`Decl` base, prose, parameters, ``let``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from compiler.ast.expr import Expr, RangeExpr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Prose:
    """A Markdown paragraph (or several) written by the author."""

    span: Span
    text: str
    line0: int = 0  # where the text's first line stands in the file
    col0: int = 0  # its column there
    indent: int = 0  # columns removed from the following lines by dedenting

    def position(self, offset: int) -> tuple[int, int]:
        """The (line, column) in the file of character ``offset`` of :attr:`text`."""
        before = self.text[:offset]
        lines = before.count("\n")
        if not self.line0:
            return self.span.line, self.span.column
        if lines == 0:
            return self.line0, self.col0 + len(before)
        return self.line0 + lines, self.indent + 1 + len(before) - before.rfind("\n") - 1


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter of a test, table, formula, ability or attack, with its type if written."""

    span: Span
    name: str
    type: RangeExpr | str | None  # a range, a named type (stat, unit, weapon…), or inferred


@dataclass(frozen=True, slots=True)
class Let:
    """``let name = expr``: a named intermediate value."""

    span: Span
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Decl:
    """Any declaration: its span and its stable ``id``."""

    span: Span
    id: str


def expressions_in(obj: Any) -> list[Expr]:
    """The outermost expressions inside a declaration (its fields, their fields…) — not inside
    the declarations it holds (a section's or a rule's body): :meth:`Ruleset.walk` visits those
    on their own."""
    found: list[Expr] = []
    _collect(obj, 0, found)
    return found


def _collect(obj: Any, depth: int, found: list[Expr]) -> None:
    if depth > 8 or obj is None or isinstance(obj, (str, int, bool)):
        return
    if isinstance(obj, Expr):
        found.append(obj)
    elif isinstance(obj, tuple):
        for x in obj:
            _collect(x, depth + 1, found)
    elif depth == 0 or not isinstance(obj, Decl):
        for name in _fields(type(obj)):
            _collect(getattr(obj, name), depth + 1, found)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that may hold expressions (none for prose, text and spans)."""
    try:
        return _FIELDS[cls]
    except KeyError:
        pass
    names: tuple[str, ...] = ()
    if dataclasses.is_dataclass(cls) and not issubclass(cls, Prose):
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")
    _FIELDS[cls] = names
    return names
