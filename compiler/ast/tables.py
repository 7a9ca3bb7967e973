"""Tables (case rows, grids, formulas written as tables) and named formulas.
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.ast.common import Decl, Let, Param, Prose
from compiler.ast.expr import Expr, RangeExpr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One row of a case table: ``pattern -> result`` (``otherwise`` when pattern is None)."""

    span: Span
    pattern: Expr | RangeExpr | None  # None means "otherwise"
    result: Expr


@dataclass(frozen=True, slots=True)
class Grid:
    """A two-dimensional table written as a grid of cells."""

    span: Span
    row_param: str
    col_param: str
    columns: tuple[int, ...]
    rows: tuple[tuple[int, tuple[Expr, ...]], ...]
    row_spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class Table(Decl):
    """A lookup table: case rows, a grid, or a formula."""

    params: tuple[Param, ...]
    title: str | None
    lets: tuple[Let, ...] = ()
    rows: tuple[CaseRow, ...] = ()
    grid: Grid | None = None
    formula: Expr | None = None  # ``table x(S, T) = expr``
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Formula(Decl):
    """A named formula: ``let`` lines and a result."""

    params: tuple[Param, ...]
    title: str | None
    lets: tuple[Let, ...]
    result: Expr | None
    prose: tuple[Prose, ...] = ()
