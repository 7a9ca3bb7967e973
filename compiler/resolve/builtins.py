"""The distribution implementations of the built-in functions, keyed by their names.

The names, arities and documentation of the built-ins live in one registry,
:mod:`compiler.syntax.builtins`; this module gives each of them its meaning over
distributions and registers it with :func:`~compiler.resolve.evaluator.builtin`.

>>> from compiler.driver import compile_text
>>> from compiler.resolve.evaluator import Evaluator, parse_expression
>>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\n').rulesets[0]
>>> Evaluator(model).evaluate(parse_expression("mean(highest(2, d6))"))
Fraction(161, 36)
>>> Evaluator(model).evaluate(parse_expression("P(keep_highest(2, 3, d6) == 12)"))
Fraction(2, 27)
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from compiler import ast as A
from compiler.limits import MAX_EXPLODE, MAX_KEEP, MAX_PAIRS, MAX_SIDES
from compiler.resolve.core import (DEFAULT_EXPLODE_DEPTH, ResolveError, as_count, fast_to_exact, is_dist, natural,
                                   num, unwrap)
from compiler.resolve.budget import refuse_keep
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import BuiltinHandler, Env, Evaluator, builtin
from compiler.syntax.builtins import BUILTINS


def _b_P(ev: Evaluator, e: A.Call, env: Env) -> Any:
    return ev.probability(ev.eval(e.args[0], env), e.args[0].span)


def _b_mean(ev: Evaluator, e: A.Call, env: Env) -> Any:
    return ev.mean(ev.eval(e.args[0], env), e.args[0].span)


def _b_natural(ev: Evaluator, e: A.Call, env: Env) -> Any:
    return ev.lift1(ev.eval(e.args[0], env), lambda o: natural(o, e.span))


def _minmax(kind: str) -> BuiltinHandler:
    def f(ev: Evaluator, e: A.Call, env: Env) -> Any:
        values = [ev.eval(a, env) for a in e.args]
        sizes = [len(v) for v in values if is_dist(v)]
        if len(sizes) > 1 and math.prod(sizes) > MAX_PAIRS:
            raise ResolveError(f"{kind}(…) of these rolls combines {math.prod(sizes):,} results; the limit is "
                               f"{MAX_PAIRS:,}", e.span, "ask a smaller question, or split it")
        result = values[0]
        for v in values[1:]:
            result = ev.lift2(kind, result, v, e.span)
        return result
    return f


def _unary_num(fn: Callable[[Any], Any]) -> BuiltinHandler:
    def f(ev: Evaluator, e: A.Call, env: Env) -> Any:
        return ev.lift1(ev.eval(e.args[0], env), lambda x: None if unwrap(x) is None else fn(num(unwrap(x), e.span)))
    return f


def _b_clamp(ev: Evaluator, e: A.Call, env: Env) -> Any:
    v, lo, hi = (ev.eval(a, env) for a in e.args)
    return ev.lift2("min", ev.lift2("max", v, lo, e.span), hi, e.span)


def _b_reroll(ev: Evaluator, e: A.Call, env: Env) -> Any:
    dice = ev.eval(e.args[0], env)
    faces = ev.eval(e.args[1], env)
    if not is_dist(dice):
        return dice
    face_set = {num(unwrap(faces), e.args[1].span)}
    return dice.reroll(lambda o: unwrap(o) in face_set)


def _b_explode(ev: Evaluator, e: A.Call, env: Env) -> Any:
    dice = ev.eval(e.args[0], env)
    face = num(unwrap(ev.eval(e.args[1], env)), e.args[1].span)
    depth = DEFAULT_EXPLODE_DEPTH
    if len(e.args) > 2:
        depth = as_count(unwrap(ev.eval(e.args[2], env)), e.args[2].span)
        if depth > MAX_EXPLODE:
            raise ResolveError(f"explode(…) rolls again at most {MAX_EXPLODE} times, not {depth:,}", e.args[2].span)
    if not is_dist(dice):
        raise ResolveError("explode(…) needs a die", e.args[0].span)
    if isinstance(dice, FastDist):
        dice = fast_to_exact(dice)
    return dice.explode(lambda o: o == face, depth)


def _b_d(ev: Evaluator, e: A.Call, env: Env) -> Any:
    """``d(n)``: a die of ``n`` sides, ``n`` worked out (and, when it is random, rolled first)."""
    span = e.args[0].span

    def die(n: Any) -> Dist:
        sides = as_count(unwrap(n), span)
        if sides < 1 or sides > MAX_SIDES:
            raise ResolveError(f"a die of {sides:,} sides cannot be rolled (1 to {MAX_SIDES:,})", span)
        return Dist.die(sides)

    n = ev.eval(e.args[0], env)
    if is_dist(n):
        exact = fast_to_exact(n) if isinstance(n, FastDist) else n
        return ev.check_size(ev.to_backend(exact.bind(die)), e.span)
    return ev.to_backend(die(n))


def _fixed_count(ev: Evaluator, arg: A.Expr, env: Env, what: str) -> int:
    """A count of dice that must be known before rolling: ``highest(2, …)``, not ``highest(d6, …)``."""
    value = ev.eval(arg, env)
    if is_dist(value):
        raise ResolveError(f"the number of dice {what} must be a fixed number, not a roll", arg.span,
                           "bind the roll with let first: let n = d3, then highest(n, d6)")
    return as_count(unwrap(value), arg.span)


def _keep(kind: str) -> BuiltinHandler:
    def f(ev: Evaluator, e: A.Call, env: Env) -> Any:
        k = _fixed_count(ev, e.args[0], env, "kept")
        if k < 1:
            raise ResolveError(f"{e.func} of no dice", e.args[0].span)
        if k > MAX_KEEP:
            raise ResolveError(f"{e.func}(…) keeps at most {MAX_KEEP} dice, not {k:,}", e.args[0].span)
        result = ev.eval(e.args[1], env)
        if is_dist(result) and (k - 1) * len(result) ** 2 > MAX_PAIRS:
            raise ResolveError(f"{e.func}({k}, …) of a roll with {len(result):,} results is too much to work out",
                               e.span, "keep fewer dice, or roll smaller ones")
        for _ in range(k - 1):
            result = ev.lift2(kind, result, ev.eval(e.args[1], env), e.span)
        return result
    return f


def _keep_sum(highest: bool) -> BuiltinHandler:
    """``keep_highest(k, n, die)``: roll ``n`` dice, add up the ``k`` highest (or lowest).

    The dice are followed one at a time, remembering only the ``k`` best faces so far: a
    state is a sorted tuple of at most ``k`` faces, so the work grows with the number of such
    tuples, not with the faces to the power ``n``.
    """
    def f(ev: Evaluator, e: A.Call, env: Env) -> Any:
        k = _fixed_count(ev, e.args[0], env, "kept")
        n = _fixed_count(ev, e.args[1], env, "rolled")
        if k < 1 or k > n:
            raise ResolveError(f"{e.func}(…) keeps between 1 and the {n} dice rolled, not {k}", e.args[0].span)
        if n > MAX_KEEP:
            raise ResolveError(f"{e.func}(…) rolls at most {MAX_KEEP} dice, not {n:,}", e.args[1].span)
        die = ev.eval(e.args[2], env)
        if not is_dist(die):
            return k * num(unwrap(die), e.args[2].span)
        die = fast_to_exact(die) if isinstance(die, FastDist) else die
        if die.truncated:
            raise ResolveError(f"{e.func}(…) of a roll with a cut-off part cannot say what is kept", e.args[2].span,
                               "roll the dice without explode(…), or explode fewer times")
        faces = [(num(unwrap(o), e.args[2].span), p) for o, p in die.probabilities().items()]
        refuse_keep(e.func, k, n, len(faces), e.span)  # before any of the work
        states: dict[tuple[Any, ...], Any] = {(): Fraction(1)}
        for _ in range(n):
            if len(states) * len(faces) > MAX_PAIRS:
                raise ResolveError(f"{e.func}({k}, {n}, …) of a roll with {len(faces):,} results is too much to "
                                   "work out", e.span, "keep fewer dice, or roll smaller ones")
            nxt: dict[tuple[Any, ...], Any] = {}
            for kept, p in states.items():
                for face, q in faces:
                    key = tuple(sorted(kept + (face,), reverse=highest)[:k])
                    nxt[key] = nxt.get(key, 0) + p * q
            states = nxt
        totals: dict[Any, Any] = {}
        for kept, p in states.items():
            totals[sum(kept)] = totals.get(sum(kept), 0) + p
        return ev.to_backend(Dist.from_weights(totals))
    return f


def _b_even_odd(parity: int) -> BuiltinHandler:
    def f(ev: Evaluator, e: A.Call, env: Env) -> Any:
        return ev.lift1(ev.eval(e.args[0], env), lambda x: num(unwrap(x), e.span) % 2 == parity)
    return f


IMPLEMENTATIONS: dict[str, BuiltinHandler] = {
    "P": _b_P,
    "mean": _b_mean,
    "natural": _b_natural,
    "min": _minmax("min"),
    "max": _minmax("max"),
    "abs": _unary_num(abs),
    "ceil": _unary_num(math.ceil),
    "floor": _unary_num(math.floor),
    "clamp": _b_clamp,
    "even": _b_even_odd(0),
    "odd": _b_even_odd(1),
    "reroll": _b_reroll,
    "explode": _b_explode,
    "d": _b_d,
    "highest": _keep("max"),
    "lowest": _keep("min"),
    "keep_highest": _keep_sum(True),
    "keep_lowest": _keep_sum(False),
}
"""The meaning over distributions of each built-in of :data:`compiler.syntax.builtins.BUILTINS`."""

for _name in BUILTINS:  # keyed by the registry: a built-in without an implementation fails here
    builtin(_name)(IMPLEMENTATIONS[_name])
