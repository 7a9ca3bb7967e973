"""Examples and properties: expectations the resolver checks, and bindings over ranges.
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.ast.common import Decl, Let, Prose
from compiler.ast.expr import Expr, RangeExpr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Expect:
    """``expect <subject> <op> <expected> [± tolerance]``."""

    span: Span
    subject: Expr
    op: str  # "=", "!=", ">=", "<=", ">", "<", "~"
    expected: Expr
    tolerance: Expr | None = None


@dataclass(frozen=True, slots=True)
class Binding:
    """``for S in 3..8``: a name ranging over values in a property."""

    span: Span
    name: str
    range: RangeExpr


@dataclass(frozen=True, slots=True)
class Example(Decl):
    """A worked example: ``let`` lines and expectations checked by the resolver."""

    title: str
    lets: tuple[Let, ...]
    expects: tuple[Expect, ...]
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Property(Decl):
    """A property checked over ranges of values: bindings, ``let`` lines, expectations."""

    title: str
    bindings: tuple[Binding, ...]
    lets: tuple[Let, ...]
    expects: tuple[Expect, ...]
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Claim(Property):
    """An author's claim judged over a grid: a property that may hold at only a share of its points.

    A claim is a kind of property (its ``for`` ranges make the grid), so every check of a
    property applies to it; only its verdict differs: the share of the grid where it holds.
    """
