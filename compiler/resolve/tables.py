"""Tables and formulas: what a call to one gives for given argument values.

Registered with :func:`~compiler.resolve.evaluator.declaration` as *pointwise*: the
evaluator binds them over the outcomes of random arguments and calls them with plain
values.

>>> from compiler.driver import compile_text
>>> from compiler.resolve.evaluator import Evaluator, parse_expression
>>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\nformula twice(x) = 2 * x\\n').rulesets[0]
>>> Evaluator(model).evaluate(parse_expression("twice(d3)")).outcomes()
(2, 4, 6)
"""
from __future__ import annotations

from typing import Any

from compiler import ast as A
from compiler.limits import MAX_CALL_DEPTH
from compiler.model.static import as_number
from compiler.resolve.core import ResolveError, eq, is_dist, num, show, unwrap
from compiler.resolve.evaluator import Evaluator, declaration


@declaration(A.Table)
def run_table(ev: Evaluator, table: A.Table, args: list[Any], span: Any) -> Any:
    """A table's value for these (plain) argument values: the first row that matches."""
    env: dict[str, Any] = {p.name: a for p, a in zip(table.params, args)}
    sub = ev.child()
    if table.formula is not None:
        return sub.eval(table.formula, env)
    for let in table.lets:
        sub.bind_let(let, env)
    if table.grid is not None:
        g = table.grid
        r, c = env.get(g.row_param), env.get(g.col_param)
        for key, cells in g.rows:
            if eq(r, key):
                for col, cell in zip(g.columns, cells):
                    if eq(c, col):
                        return sub.eval(cell, env)
        raise ResolveError(f"the grid of table '{table.id}' has no cell for "
                           f"{g.row_param} = {show(r)}, {g.col_param} = {show(c)}", span)
    for row in table.rows:
        if row.pattern is None:
            return sub.eval(row.result, env)
        if isinstance(row.pattern, A.RangeExpr):
            v = unwrap(env[table.params[0].name])
            lo, hi = sub.eval(row.pattern.low, env), sub.eval(row.pattern.high, env)
            if v is not None and as_number(lo) <= num(v, span) <= as_number(hi):
                return sub.eval(row.result, env)
            continue
        m = sub.eval(row.pattern, env)
        if is_dist(m):
            raise ResolveError("a table row's case must not be random", row.span)
        m = unwrap(m)
        if isinstance(m, bool):
            if m:
                return sub.eval(row.result, env)
        elif len(table.params) == 1 and eq(env[table.params[0].name], m):
            return sub.eval(row.result, env)
    shown = ", ".join(f"{k} = {show(unwrap(v))}" for k, v in env.items() if k in {p.name for p in table.params})
    raise ResolveError(f"no row of table '{table.id}' matches {shown}", span,
                       "add a row for these values, or an 'otherwise' row")


@declaration(A.Formula)
def run_formula(ev: Evaluator, decl: A.Formula, args: list[Any], span: Any) -> Any:
    """A formula's result for these (plain) argument values, its ``let`` names bound first."""
    env = {p.name: a for p, a in zip(decl.params, args)}
    for let in decl.lets:
        ev.bind_let(let, env)
    if decl.result is None:
        raise ResolveError(f"formula '{decl.id}' has no result", decl.span)
    return ev.child().eval(decl.result, env) if ev.depth <= MAX_CALL_DEPTH else ev.eval(decl.result, env)
