"""The builder's part for tables and formulas: parameters, case rows, grids (a header line
naming the columns, one row per value), formulas and their ``let`` and ``result`` lines.
"""
from __future__ import annotations

from typing import Any

from lark import Token

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, unquote, with_meta


class TablesBuilder(BuilderBase):
    """Builds parameters, tables, grids, formulas and ``let`` lines."""

    def params(self, c: list[Any]) -> tuple[A.Param, ...]:
        return tuple(p for p in c if p is not None)

    @with_meta
    def param(self, meta: Any, c: list[Any]) -> A.Param:
        ptype: A.RangeExpr | str | None = None
        if len(c) > 1 and c[1] is not None:
            ptype = c[1] if isinstance(c[1], A.RangeExpr) else str(c[1])
        return A.Param(self.span(meta), str(c[0]), ptype)

    @with_meta
    def table(self, meta: Any, c: list[Any]) -> A.Table:
        name, params, title, rest = self._head(c)
        lets = tuple(x for x in rest if isinstance(x, A.Let))
        rows = tuple(x for x in rest if isinstance(x, A.CaseRow))
        grids = [x for x in rest if isinstance(x, A.Grid)]
        prose = self._prose(rest)
        if grids and rows:
            self.sink.error(codes.BAD_GRID, f"table '{name}' mixes a grid with case rows", grids[0].span,
                            "a table is either a grid or a list of cases")
        if len(grids) > 1:
            self.sink.error(codes.BAD_GRID, f"table '{name}' has more than one grid", grids[1].span)
        return A.Table(self.span(meta), name, params, title, lets, rows, grids[0] if grids else None, None, prose)

    @with_meta
    def table_formula(self, meta: Any, c: list[Any]) -> A.Table:
        name, params, title, rest = self._head(c)
        return A.Table(self.span(meta), name, params, title, (), (), None, rest[0], ())

    @with_meta
    def case_row(self, meta: Any, c: list[Any]) -> A.CaseRow:
        pattern = None if isinstance(c[0], Item) and c[0].tag == "otherwise" else c[0]
        return A.CaseRow(self.span(meta), pattern, c[1])

    @with_meta
    def otherwise(self, meta: Any, c: list[Any]) -> Item:
        return Item("otherwise", self.span(meta), None)

    @with_meta
    def grid(self, meta: Any, c: list[Any]) -> A.Grid:
        row_param, col_param = str(c[0]), str(c[1])
        header: Item = c[2]
        rows = [r for r in c[3:] if isinstance(r, Item)]
        span = self.span(meta)
        head_name, columns = header.data
        if head_name != col_param:
            self.sink.error(codes.BAD_GRID, f"the grid's first line names its columns: expected '{col_param}:', not '{head_name}:'",
                            header.span, f"start the header line with {col_param}:")
        for r in rows:
            if len(r.data[1]) != len(columns):
                self.sink.error(codes.BAD_GRID, f"this grid row has {len(r.data[1])} cells but the header has {len(columns)} columns",
                                r.span, "give one cell per column; use - for 'never'")
        return A.Grid(span, row_param, col_param, tuple(columns),
                      tuple((r.data[0], tuple(r.data[1])) for r in rows), tuple(r.span for r in rows))

    @with_meta
    def grid_header(self, meta: Any, c: list[Any]) -> Item:
        return Item("header", self.span(meta), (str(c[0]), [int(x) for x in c[1:]]))

    @with_meta
    def grid_row(self, meta: Any, c: list[Any]) -> Item:
        return Item("row", self.span(meta), (int(c[0]), list(c[1:])))

    @with_meta
    def grid_cell(self, meta: Any, c: list[Any]) -> A.Expr:
        tok: Token = c[0]
        span = self.tspan(tok)
        s = str(tok)
        if tok.type == "CELL_TARGET":
            direction = "high" if s.endswith("+") else "low"
            return A.Target(span, A.Int(span, int(s[:-1])), direction)
        if tok.type == "INT":
            return A.Int(span, int(s))
        if tok.type == "STRING":
            return A.Label(span, unquote(s))
        if s in ("-", "never"):
            return A.Const(span, "never")
        return A.Const(span, "always")

    @with_meta
    def formula(self, meta: Any, c: list[Any]) -> A.Formula:
        name, params, title, rest = self._head(c)
        expr = rest[0]
        _, prose, _, _ = self._entry_parts(rest[1:])
        return A.Formula(self.span(meta), name, params, title, (), expr, prose)

    @with_meta
    def formula_block(self, meta: Any, c: list[Any]) -> A.Formula:
        name, params, title, rest = self._head(c)
        lets = tuple(x for x in rest if isinstance(x, A.Let))
        results = [x for x in rest if isinstance(x, Item) and x.tag == "result"]
        if not results:
            self.sink.error(codes.MISSING_PART, f"formula '{name}' has no result line", self.span(meta),
                            "end it with a line such as: result a + b")
        elif len(results) > 1:
            self.sink.error(codes.REPEATED_PART, f"formula '{name}' has more than one result line", results[1].span)
        result = results[-1].data if results else None
        return A.Formula(self.span(meta), name, params, title, lets, result, self._prose(rest))

    @with_meta
    def result(self, meta: Any, c: list[Any]) -> Item:
        return Item("result", self.span(meta), c[0])

    @with_meta
    def let_line(self, meta: Any, c: list[Any]) -> A.Let:
        return A.Let(self.span(meta), str(c[0]), c[1])
