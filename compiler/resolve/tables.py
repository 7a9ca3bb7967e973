"""Tables and formulas: what a call to one gives for given argument values.

A table's rows are looked up by :func:`compiler.model.static.table_result`, shared with the
checker, so the two cannot disagree about which row applies.

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
from compiler.model.static import StaticError, outside_range, param_range, table_result
from compiler.resolve.core import ResolveError, is_dist, num, show, unwrap
from compiler.resolve.evaluator import Evaluator, declaration


@declaration(A.Table)
def run_table(ev: Evaluator, table: A.Table, args: list[Any], span: Any) -> Any:
    """A table's value for these (plain) argument values.

    Which row applies is decided by :func:`compiler.model.static.table_result`, the lookup the
    checker uses too; the resolver only evaluates the cases (refusing a random one) and the
    chosen result (which may be random).
    """
    env: dict[str, Any] = {p.name: a for p, a in zip(table.params, args)}
    for p, a in zip(table.params, args):
        _within_range(ev, table, p, unwrap(a), span)
    sub = ev.child()
    if table.formula is not None:
        return sub.eval(table.formula, env)
    for let in table.lets:
        sub.bind_let(let, env)

    def value_of(expr: A.Expr, blame: Any) -> Any:
        value = sub.eval(expr, env)
        if is_dist(value):
            raise ResolveError("a table row's case must not be random", blame)
        return value
    try:
        result = table_result(table, env, value_of, unwrap, lambda v: num(v, span))
    except StaticError as err:
        raise ResolveError(str(err), span) from None
    if result is not None:
        return sub.eval(result, env)
    if table.grid is not None:
        g = table.grid
        raise ResolveError(f"the grid of table '{table.id}' has no cell for "
                           f"{g.row_param} = {show(env.get(g.row_param))}, {g.col_param} = {show(env.get(g.col_param))}",
                           span)
    shown = ", ".join(f"{k} = {show(unwrap(v))}" for k, v in env.items() if k in {p.name for p in table.params})
    raise ResolveError(f"no row of table '{table.id}' matches {shown}", span,
                       "add a row for these values, or an 'otherwise' row")


def _within_range(ev: Evaluator, table: A.Table, p: A.Param, value: Any, span: Any) -> None:
    """Refuse a whole number outside the range of the parameter (or of the stat it is named
    after): a table's rows are written for that range, and a row such as ``otherwise`` would
    answer for a value the game cannot have."""
    problem = outside_range(ev.model, table, p, value)
    if problem is not None:
        found = param_range(ev.model, p)
        lo, hi = (found[1], found[2]) if found else (0, 0)
        raise ResolveError(problem, span, f"pass a value in {lo}..{hi}, e.g. min({hi}, max({lo}, …))")


@declaration(A.Formula)
def run_formula(ev: Evaluator, decl: A.Formula, args: list[Any], span: Any) -> Any:
    """A formula's result for these (plain) argument values, its ``let`` names bound first."""
    env = {p.name: a for p, a in zip(decl.params, args)}
    for let in decl.lets:
        ev.bind_let(let, env)
    if decl.result is None:
        raise ResolveError(f"formula '{decl.id}' has no result", decl.span)
    return ev.child().eval(decl.result, env) if ev.depth <= MAX_CALL_DEPTH else ev.eval(decl.result, env)
