"""Tables worked out for the page: every cell with its target *and* its chance.

:func:`table_view` turns :func:`compiler.resolve.report.evaluate_table` (the same
numbers ``warscribe table`` prints) into grids a template can lay out: a
one-parameter table is one row (or one column when it is long), a
two-parameter table is a grid, and a table of three or more parameters is one
grid per value of the leading ones.  Each cell carries what the roll needs ("4+")
and its chance ("50%", or "never" / "always"), the exact fraction for a tooltip, and the
heat-map colour.  Axes and values are in the reader's words: a parameter named after a stat
reads as the stat ("BS"), one typed by a stat or a situation as its words ("target WS",
"Model class"), a label as words ("fall back").
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.resolve.claims import Judgement
from compiler.resolve.report import evaluate_table, table_axes, target_die
from compiler.resolve.evaluator import Evaluator, ResolveError
from compiler.site.charts import heat
from compiler.words import chance_words, decimal, exact_words, mean_words, value_words

MAX_CELLS = 400  # beyond this a table is described, not printed
MAX_CLAIM_CELLS = 2_000  # beyond this a claim's grid is described, not printed


@dataclass(frozen=True)
class Cell:
    text: str  # what the cell says: "4+", "never", "fall back", "avg 2.50"
    style: str  # "" or the heat-map custom property
    p: float | None
    chance: str = ""  # "50%" under the target; "" when the text says it all
    exact: str = ""  # hover text: "4+: exactly 1/2"


@dataclass(frozen=True)
class Axis:
    name: str
    stat: str | None  # the stat it is named after, for a link to the lexicon
    values: tuple[str, ...]
    title: str = ""  # the words a reader sees for it
    shown: tuple[str, ...] = ()  # the values in words

    @property
    def words(self) -> str:
        return self.title or self.name

    @property
    def labels(self) -> tuple[str, ...]:
        return self.shown or self.values


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
        return self.error is None and self.size > 150


def words(name: str) -> str:
    """An identifier as words: ``fall_back`` → ``fall back``; other text as it is.

    >>> words("very_bulky_infantry"), words("4+"), words("Ld")
    ('very bulky infantry', '4+', 'Ld')
    """
    return name.replace("_", " ").strip() if "_" in name and " " not in name else name


def _cell(c: dict[str, Any]) -> Cell:
    r = c.get("result")
    p = c.get("p_float")
    if r is None and c.get("mean") is not None:
        m = Fraction(c["mean"])
        return Cell(f"avg {mean_words(m)}", "", None, "", f"average: exactly {exact_words(m)}")
    text = words(value_words(r))
    if p is None:
        return Cell(text, "", None)
    exact = f"{text}: exactly {c.get('p') or p}"
    if p in (0, 1):
        return Cell(chance_words(p, words=True), heat(p), p, "", exact)
    return Cell(text, heat(p), p, chance_words(p), exact)


def _axis(rs: Ruleset, decl: A.Table | A.Formula, name: str, values: list[Any]) -> Axis:
    raw = tuple(value_words(v) for v in values)
    shown = tuple(words(v) for v in raw)
    if name in rs.stats:
        return Axis(name, name, raw, name, shown)
    typed = _param_type(decl, name)
    stat = typed if typed in rs.stats else None
    if typed is not None and stat is None and rs.get(typed) is not None:
        title = getattr(rs.get(typed), "title", None) or words(typed)
        return Axis(name, None, raw, title, shown)
    return Axis(name, stat, raw, words(name), shown)


def table_view(rs: Ruleset, decl: A.Table | A.Formula, ev: Evaluator | None = None) -> TableView:
    """The worked-out table (or an explanation of why it could not be worked out)."""
    title = getattr(decl, "title", None) or words(decl.id)
    try:
        size = 1
        for _, values in table_axes(rs, decl):
            size *= len(values)
        if size > MAX_CELLS:
            return TableView(decl.id, title, (), (), "", False, size,
                             f"it has {size} cells, too many to print")
        data = evaluate_table(ev or Evaluator(rs), decl)
    except ResolveError as err:
        return TableView(decl.id, title, (), (), "", False, 0, err.message)
    axes = tuple(_axis(rs, decl, a["name"], a["values"]) for a in data["axes"])
    cells = data["cells"]
    size = len(cells)
    has_p = any(c.get("p_float") is not None for c in cells)
    by_point = {tuple(value_words(v) for v in c["at"].values()): _cell(c) for c in cells}
    if not axes:
        by_point = {(): _cell(cells[0])}
    return TableView(decl.id, title, axes, _grids(axes, by_point), _p_is(rs, data["p_is"]), has_p, size)


def legend(rs: Ruleset) -> tuple[Cell, ...]:
    """The heat map's key in chances the ruleset's own die gives: never, needing its highest but one
    face, 50%, needing 2+, always (on a d6: never, 33%, 50%, 83%, always).

    >>> from compiler.driver import compile_text
    >>> rs = compile_text('ruleset r "R":\\n  version 1.0.0\\ntest hit(x: 2..9) "Hit":\\n  roll d10 >= x\\n').rulesets[0]
    >>> [(c.text, c.style) for c in legend(rs)][1:4]
    [('20%', '--ws-p:0.200'), ('50%', '--ws-p:0.500'), ('90%', '--ws-p:0.900')]
    """
    n = target_die(rs)
    stops = sorted({Fraction(0), Fraction(min(2, n), n), Fraction(1, 2), Fraction(max(n - 1, 1), n), Fraction(1)})
    return tuple(Cell(chance_words(p, words=True), heat(float(p)), float(p)) for p in stops)


def _p_is(rs: Ruleset, p_is: str) -> str:
    """What the chances mean, naming the test by its title: "the chance to pass Roll to hit"."""
    if p_is.startswith("P(") and ")" in p_is:
        test = rs.get(p_is[2:p_is.index(")")])
        name = getattr(test, "title", None) if test is not None else None
        if name:
            return f"the chance to pass {name}, the test that rolls against this table"
    return p_is


def _param_type(decl: Any, name: str) -> str | None:
    for p in decl.params:
        if p.name == name and isinstance(p.type, str):
            return str(p.type)
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
        caption = ", ".join(f"{a.words} = {words(v)}" for a, v in zip(lead, prefix))
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
        text = "?" if p.measure is None else decimal(p.measure, ".2f")
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
