"""Closed expressions compiled to Python closures.

A closed test (:mod:`compiler.resolve.closed`) reads nothing but its arguments: its target
``to_wound(S, T)``, and caps such as ``never better than 2+``, are made of numbers, targets,
arithmetic, comparisons, ranges, ``if … else`` and calls of closed tables.  The first time a
matchup is asked about, those are worked out for its numbers; the general evaluator would walk
the tree node by node, each step asking what kind of node it is and whether a value is random.
Here each expression is turned once per ruleset into nested closures (as a template engine
compiles a template), which do the same operations with the same functions — the binary
operators of :func:`~compiler.resolve.core.binary_fn`, the table look-up of
:func:`~compiler.model.static.table_result`, the point functions of
:mod:`compiler.resolve.expressions` — on plain values only.

Anything else raises :class:`Unsure` and the caller takes the general way: a die (a random
value), a name that is not an argument, an error (the general way reports it, located).  The
closures never see a distribution, so what they return is what the general evaluator returns.

>>> from compiler.driver import compile_text
>>> model = compile_text('''ruleset d "D":
...   version 1.0.0
... stat S "Strength" 1..10
... stat T "Toughness" 1..10
... table to_wound(S, T) "To wound":
...   T - S <= -1 -> 3+
...   T - S == 0 -> 4+
...   otherwise -> 5+
... test wound(S, T) = roll d6 against to_wound(S, T)
... ''').rulesets[0]
>>> target = model.callables["wound"].roll.target
>>> closed_value(model, target, {"S": 5, "T": 4}), closed_value(model, target, {"S": 4, "T": 4})
(3+, 4+)
"""
from __future__ import annotations

from typing import Any, Callable

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.model.static import StaticError, outside_range, table_result
from compiler.model.values import TargetValue
from compiler.resolve.core import ResolveError, binary_fn, num, truth, unwrap
from compiler.resolve.expressions import chain_of, inside, negative, target_of

Env = dict[str, Any]
Compiled = Callable[[Env], Any]


class Unsure(Exception):
    """A compiled expression met something only the general evaluator handles."""


def closed_value(model: Ruleset, expr: A.Expr, env: Env) -> Any:
    """The value of the closed expression ``expr`` for the plain values of ``env``; raises
    :class:`Unsure` when the general evaluator has to answer (or to report an error)."""
    try:
        return _compiled(model, expr)(env)
    except (ResolveError, StaticError, KeyError):
        raise Unsure from None


def _compiled(model: Ruleset, expr: A.Expr) -> Compiled:
    """``expr`` compiled, once per (immutable) model."""
    store: dict[int, tuple[A.Expr, Compiled]] = model.__dict__.setdefault("_compiled_exprs", {})
    known = store.get(id(expr))
    if known is not None and known[0] is expr:
        return known[1]
    fn = _compile(model, expr)
    store[id(expr)] = (expr, fn)
    return fn


def _unsure(env: Env) -> Any:
    raise Unsure


def _constant(value: Any) -> Compiled:
    return lambda env: value


def _compile(model: Ruleset, e: A.Expr) -> Compiled:
    t = type(e)
    if t is A.Int or t is A.Decimal:
        return _constant(e.value)  # type: ignore[attr-defined]
    if t is A.Label:
        return _constant(e.text)  # type: ignore[attr-defined]
    if t is A.Const:
        value = e.value  # type: ignore[attr-defined]
        if value in ("never", "always"):
            return _constant(TargetValue(value))
        return _constant({"true": True, "false": False, "none": None}[value])
    if t is A.Name:
        name = e.id  # type: ignore[attr-defined]
        return lambda env: env[name]
    if isinstance(e, A.Unary):
        operand, span = _compile(model, e.operand), e.span
        if e.op == "not":
            return lambda env: not truth(operand(env), span)
        return lambda env: negative(operand(env), span)
    if isinstance(e, A.Binary):
        return _binary(model, e)
    if isinstance(e, A.InRange):
        lo, hi, value, span = (_compile(model, e.range.low), _compile(model, e.range.high),
                               _compile(model, e.operand), e.span)
        return lambda env: inside(lo(env), hi(env), value(env), span)
    if isinstance(e, A.Target):
        value, target = _compile(model, e.value), e
        return lambda env: target_of(value(env), target)
    if isinstance(e, A.Chain):
        first, then, chain = _compile(model, e.first), _compile(model, e.then), e
        return lambda env: chain_of(first(env), then(env), chain)
    if isinstance(e, A.IfElse):
        cond, yes, no, cspan = _compile(model, e.cond), _compile(model, e.then), _compile(model, e.otherwise), e.cond.span
        return lambda env: yes(env) if truth(cond(env), cspan) else no(env)
    if isinstance(e, A.Call):
        return _call(model, e)
    return _unsure  # a die, a range on its own, anything the general evaluator alone handles


def _binary(model: Ruleset, e: A.Binary) -> Compiled:
    left, right = _compile(model, e.left), _compile(model, e.right)
    lspan, rspan = e.left.span, e.right.span
    if e.op == "and":
        return lambda env: truth(left(env), lspan) and truth(right(env), rspan)
    if e.op == "or":
        return lambda env: truth(left(env), lspan) or truth(right(env), rspan)
    fn = binary_fn(e.op, e.span)
    return lambda env: fn(left(env), right(env))


def _call(model: Ruleset, e: A.Call) -> Compiled:
    table = model.callables.get(e.func)
    if not isinstance(table, A.Table) or e.kwargs or table.lets or len(e.args) != len(table.params):
        return _unsure
    args = [_compile(model, a) for a in e.args]
    names = [p.name for p in table.params]
    span = e.span

    compiled: dict[int, Compiled] = {}  # the table's rows and results, compiled when first reached

    def value_of(expr: A.Expr, env: Env) -> Any:
        fn = compiled.get(id(expr))
        if fn is None:
            fn = compiled[id(expr)] = _compiled(model, expr)
        return fn(env)

    def number_of(v: Any) -> Any:
        return num(v, span)

    def call(env: Env) -> Any:
        inner = {n: a(env) for n, a in zip(names, args)}
        if any(outside_range(model, table, p, unwrap(inner[p.name])) for p in table.params):
            raise Unsure  # outside a parameter's range: the general way refuses it
        if table.formula is not None:
            return value_of(table.formula, inner)
        result = table_result(table, inner, lambda expr, _blame: value_of(expr, inner), unwrap, number_of)
        if result is None:
            raise Unsure  # no row applies: the general way says so
        return value_of(result, inner)
    return call
