"""Tables, formulas and tests worked out cell by cell, and the cells that changed between two versions.

A textual change to a table is easy to read; what a reader wants to know is
which *results* moved.  :func:`worked_cells` works a table, formula or test out
over every value of its parameters (when there are not too many) into
:class:`Cell` values, and :func:`compare_cells` lists the :class:`CellChange`
between two versions.  The declaration-level diff (:mod:`compiler.review.diff`)
calls these for the declarations whose results may differ.

>>> Cell("4+", "1/2").text(), Cell(None, "1/3").text(), Cell(None, None, "7/2").text()
('4+ (1/2)', 'P 1/3', 'mean 7/2')
>>> compare_cells({(("S", 3),): Cell("4+")}, {(("S", 3),): Cell("5+")})[0].where()
'S = 3'
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.words import value_words

#: Tables and tests with more cells than this are not worked out cell by cell.
MAX_CELLS = 2_000
#: Nor formulas with more than this (a formula's cell may be a whole distribution: slow).
MAX_FORMULA_CELLS = 300

#: A worked-out cell's position: (parameter, value) pairs, e.g. (("S", 3), ("T", 6)).
CellKey = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Cell:
    """One worked-out cell of a table, formula or test.

    ``result`` is what the table gives (``4+``, ``3``, ``never``); ``p`` the chance
    to pass it as an exact fraction in text (``1/2``) when there is one — for a
    test, the chance that the test passes; ``mean`` the average when the cell is
    random (a formula that rolls dice).
    """

    result: str | None
    p: str | None = None
    mean: str | None = None

    def text(self) -> str:
        """``"4+ (1/2)"``, ``"P 1/3"`` or ``"mean 7/2"``."""
        parts = []
        if self.result is not None:
            parts.append(self.result)
        if self.mean is not None:
            parts.append(f"mean {self.mean}")
        if self.p is not None:
            parts.append(f"({self.p})" if parts else f"P {self.p}")
        return " ".join(parts) or "?"


@dataclass(frozen=True)
class CellChange:
    """A cell whose result or chance changed; ``old``/``new`` is None where the cell does not exist."""

    at: CellKey  # (parameter, value) pairs, e.g. (("S", 3), ("T", 6))
    old: Cell | None
    new: Cell | None

    def where(self) -> str:
        """``"S = 3, T = 6"``."""
        return ", ".join(f"{k} = {show_value(v)}" for k, v in self.at) or "(no parameters)"


def show_value(v: Any) -> str:
    """A cell's argument or value in words (the one formatter of :mod:`compiler.words`)."""
    return value_words(v)


def exact_text(v: Any) -> str:
    from compiler.resolve.report import fraction_text
    if isinstance(v, bool) or v is None:
        return show_value(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Fraction):
        return fraction_text(v) if v.denominator != 1 else str(v.numerator)
    if isinstance(v, float):
        return repr(v)
    return str(v)



def worked_cells(model: Ruleset, decl: A.Decl) -> dict[CellKey, Cell] | None:
    """A table, formula or test worked out over its parameters' ranges (None when it cannot be).

    A table's cell has its result and, where a test rolls against the table (or
    the result is a target), the chance to pass; a test's cell has the chance
    that it passes; a random formula's cell has its mean.
    """
    from compiler.check.passes import param_domain
    from compiler.resolve.report import evaluate_table, json_value
    from compiler.resolve.evaluator import Evaluator, ResolveError

    if not isinstance(decl, (A.Table, A.Formula, A.Test)):
        return None
    domains = []
    for param in decl.params:
        dom = param_domain(model, param)
        if dom is None:
            return None
        domains.append(dom)
    size = 1
    for dom in domains:
        size *= len(dom)
    if size > (MAX_FORMULA_CELLS if isinstance(decl, A.Formula) else MAX_CELLS):
        return None
    ev = Evaluator(model)
    out: dict[CellKey, Cell] = {}
    try:
        if isinstance(decl, A.Test):
            names = [p.name for p in decl.params]
            for point in itertools.product(*domains):
                at = tuple(zip(names, (json_value(v) for v in point)))
                p = ev.probability(ev.apply(decl, list(point), decl.span), decl.span)
                out[at] = Cell(None, exact_text(p))
            return out
        data = evaluate_table(ev, decl)
    except ResolveError:
        return None
    for c in data["cells"]:
        at = tuple(c["at"].items())
        if "mean" in c:  # a random result: its mean
            out[at] = Cell(None, None, None if c["mean"] is None else exact_text(Fraction(c["mean"])))
        else:
            result = c.get("result")
            p = c.get("p")
            out[at] = Cell(result if isinstance(result, str) else show_value(result),
                           None if p is None else exact_text(Fraction(p)))
    return out


def compare_cells(old: Mapping[CellKey, Cell], new: Mapping[CellKey, Cell]) -> tuple[CellChange, ...]:
    """The cells whose result or chance differ, the new side's order first, then the cells only ``old`` has."""
    keys = list(new) + [k for k in old if k not in new]
    return tuple(CellChange(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k))

