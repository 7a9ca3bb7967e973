"""Tables worked out for the page: every cell with its target *and* its chance.

:func:`table_view` turns :func:`compiler.resolve.report.evaluate_table` (the same
numbers ``warscribe table`` prints) into grids a template can lay out: a
one-parameter table is one row (or one column when it is long), a
two-parameter table is a grid, and a table of three or more parameters is one
grid per value of the leading ones.  Each cell carries its text ("4+ · 50%")
and, when it has a chance, the heat-map colour for it.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.resolve.claims import Judgement
from compiler.resolve.report import evaluate_table, table_axes
from compiler.resolve.evaluator import Evaluator, ResolveError
from compiler.site.charts import heat
from compiler.site.env import percent
from compiler.words import value_words

MAX_CELLS = 400  # beyond this a table is described, not printed
MAX_CLAIM_CELLS = 2_000  # beyond this a claim's grid is described, not printed


@dataclass(frozen=True)
class Cell:
    text: str
    style: str  # "" or the heat-map custom property
    p: float | None


@dataclass(frozen=True)
class Axis:
    name: str
    stat: str | None  # the stat it is named after, for a link to the lexicon
    values: tuple[str, ...]


@dataclass(frozen=True)
class Grid:
    caption: str  # "Sv = 2+" for a slice of a larger table, else ""
    rows: Axis | None  # None for a one-row table
    cols: Axis | None  # None for a single value
    cells: tuple[tuple[Cell, ...], ...]  # cells[row][col]


@dataclass(frozen=True)
class TableView:
    id: str
    title: str
    axes: tuple[Axis, ...]
    grids: tuple[Grid, ...]
    p_is: str  # what the percentages mean
    has_p: bool
    size: int
    error: str | None = None

    @property
    def large(self) -> bool:
        return self.size > 150


def _cell(c: dict[str, Any]) -> Cell:
    r = c.get("result")
    p = c.get("p_float")
    if r is None and c.get("mean") is not None:
        m = Fraction(c["mean"])
        text = f"avg {float(m):.3g}" if m.denominator != 1 else f"avg {m.numerator}"
    else:
        text = value_words(r)
    if p is not None:
        return Cell(f"{text} · {percent(p)}", heat(p), p)
    return Cell(text, "", None)


def table_view(rs: Ruleset, decl: A.Table | A.Formula, ev: Evaluator | None = None) -> TableView:
    """The worked-out table (or an explanation of why it could not be worked out)."""
    title = getattr(decl, "title", None) or decl.id
    try:
        size = 1
        for _, values in table_axes(rs, decl):
            size *= len(values)
        if size > MAX_CELLS:
            return TableView(decl.id, title, (), (), "", False, size,
                             f"it has {size} cells, too many to print; `warscribe table {rs.id} {decl.id}` lists them")
        data = evaluate_table(ev or Evaluator(rs), decl)
    except ResolveError as err:
        return TableView(decl.id, title, (), (), "", False, 0, err.message)
    axes = tuple(Axis(a["name"], a["name"] if a["name"] in rs.stats else _param_stat(rs, decl, a["name"]),
                      tuple(value_words(v) for v in a["values"])) for a in data["axes"])
    cells = data["cells"]
    size = len(cells)
    has_p = any(c.get("p_float") is not None for c in cells)
    by_point = {tuple(value_words(v) for v in c["at"].values()): _cell(c) for c in cells}
    if not axes:
        by_point = {(): _cell(cells[0])}
    return TableView(decl.id, title, axes, _grids(axes, by_point), data["p_is"], has_p, size)


def _param_stat(rs: Ruleset, decl: Any, name: str) -> str | None:
    """``(attacker: WS)``: a parameter typed by a stat links to that stat."""
    for p in decl.params:
        if p.name == name and isinstance(p.type, str) and p.type in rs.stats:
            return p.type
    return None


def _grids(axes: tuple[Axis, ...], by_point: dict[tuple[str, ...], Cell]) -> tuple[Grid, ...]:
    """Cells laid out as tables are: one row, one grid, or one grid per value of the leading axes."""
    if not axes:
        return (Grid("", None, None, ((by_point[()],),)),)
    if len(axes) == 1:
        return (Grid("", None, axes[0], (tuple(by_point[(v,)] for v in axes[0].values),)),)
    grids = []
    lead, (row_ax, col_ax) = axes[:-2], axes[-2:]
    for prefix in itertools.product(*(a.values for a in lead)):
        caption = ", ".join(f"{a.name} = {v}" for a, v in zip(lead, prefix))
        rows = tuple(tuple(by_point[prefix + (rv, cv)] for cv in col_ax.values) for rv in row_ax.values)
        grids.append(Grid(caption, row_ax, col_ax, rows))
    return tuple(grids)


def claim_view(rs: Ruleset, claim: A.Claim, j: Judgement) -> TableView:
    """A claim's measure at every point of its grid, as a heat map: each cell the measure
    (to two decimals) with ✓ where the claim holds, green, or ✗ where it does not, red."""
    title = "Measure"
    if j.error is not None:
        return TableView(claim.id, title, (), (), "", False, 0, j.error.message)
    if j.size > MAX_CLAIM_CELLS:
        return TableView(claim.id, title, (), (), "", False, j.size,
                         f"its grid has {j.size} points, too many to print; `warscribe test` gives the verdict")
    axes = tuple(Axis(name, name if name in rs.stats else None, tuple(str(v) for v in values))
                 for name, values in j.axes)
    by_point: dict[tuple[str, ...], Cell] = {}
    for p in j.points:
        text = "?" if p.measure is None else f"{float(p.measure):.2f}"
        by_point[tuple(str(v) for v in p.at)] = Cell(f"{text} {'✓' if p.held else '✗'}",
                                                     heat(1.0 if p.held else 0.0), None)
    if len(axes) <= 3:
        return TableView(claim.id, title, axes, _grids(axes, by_point), "", False, j.size)
    # Four or more axes: one grid per value of the first, its rows every combination of the middle ones.
    first, middle, last = axes[0], axes[1:-1], axes[-1]
    rows = Axis(", ".join(a.name for a in middle), None,
                tuple(", ".join(c) for c in itertools.product(*(a.values for a in middle))))
    combos = list(itertools.product(*(a.values for a in middle)))
    grids = tuple(Grid(f"{first.name} = {v}", rows, last,
                       tuple(tuple(by_point[(v, *c, lv)] for lv in last.values) for c in combos))
                  for v in first.values)
    return TableView(claim.id, title, axes, grids, "", False, j.size)
