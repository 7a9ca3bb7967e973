"""Plain whole numbers read without the general evaluator.

``attacks = shooter.models each weapon.A`` is, for most profiles, a product of two whole
numbers written on them.  :func:`plain_count` reads such an expression directly — numbers,
a profile's stats (each with the modifiers of the situation, through
:func:`~compiler.resolve.expressions.stat_of`, as the evaluator reads them) and ``each`` of
two whole numbers — and answers None for anything else (a roll, a let variable, a step's
total, a count out of range), which the evaluator then works out the general way, errors
included.  While what is used is being recorded, it answers None: everything goes the
general way.  :func:`plain_args` reads a call's arguments that are profiles' stats passed
under their own names (``hit(shooter.BS)``), which take no modifier beyond the stat's own; :func:`read_stat`, one such stat, whatever its kind.

>>> from compiler.driver import compile_text
>>> from compiler.model.values import ProfileRef
>>> from compiler.resolve import Evaluator, parse_expression
>>> model = compile_text('''ruleset d "D":
...   version 1.0.0
... stat A "Attacks" 1..6: "a"
... unit gunner "Gunner":
...   A 2
... ''').rulesets[0]
>>> plain_count(Evaluator(model), parse_expression("gunner.models each gunner.A"), {})
>>> plain_count(Evaluator(model), parse_expression("g.models each g.A"), {"g": ProfileRef("gunner", 5)})
10
"""
from __future__ import annotations

from typing import Any

from compiler import ast as A
from compiler.limits import MAX_COUNT
from compiler.model.values import ProfileRef
from compiler.resolve.evaluator import Evaluator
from compiler.resolve.expressions import stat_of
from compiler.trace import active as tracing


def plain_count(ev: Evaluator, expr: A.Expr, env: dict[str, Any]) -> int | None:
    """The whole number ``expr`` is, when it is made of numbers, profiles' whole-number stats
    (profiles bound in ``env``) and ``each`` of such numbers; else None (the general way)."""
    if tracing():
        return None
    return _plain(ev, expr, env)


def _plain(ev: Evaluator, expr: A.Expr, env: dict[str, Any]) -> int | None:
    kind = type(expr)
    if kind is A.Int:
        assert isinstance(expr, A.Int)
        return expr.value if type(expr.value) is int else None
    if kind is A.Attr:
        assert isinstance(expr, A.Attr)
        if type(expr.obj) is not A.Name:
            return None
        ref = env.get(expr.obj.id)
        if type(ref) is not ProfileRef:
            return None
        value = stat_of(ev, ref, expr.name, expr.obj.id, expr.span)
        return value if type(value) is int else None
    if kind is A.Each:
        assert isinstance(expr, A.Each)
        if expr.negate or expr.becomes:
            return None
        count = _plain(ev, expr.count, env)
        if count is None or not 0 <= count <= MAX_COUNT:  # out of range: the general way says so
            return None
        item = _plain(ev, expr.item, env)
        return None if item is None else count * item
    return None


def plain_args(ev: Evaluator, decl: Any, call: A.Call, env: dict[str, Any]) -> list[Any] | None:
    """The values of ``call``'s arguments when each is a stat of a profile bound in ``env``, given
    in order for the parameter of that stat's name (what ``Evaluator.call_args`` gives them then);
    else None (the general way)."""
    if tracing():
        return None
    reads = stat_reads(ev, decl, call)
    return None if reads is None else read_args(ev, reads, env)


def read_args(ev: Evaluator, reads: tuple[tuple[str, str, Any], ...], env: dict[str, Any]) -> list[Any] | None:
    """:func:`plain_args` with the call's reads already found (:func:`stat_reads`): None when a
    role is not bound to a profile.  Not while what is used is recorded (the caller checks)."""
    values = []
    for role, stat, span in reads:
        ref = env.get(role)
        if type(ref) is not ProfileRef:
            return None
        values.append(stat_of(ev, ref, stat, role, span))
    return values


def stat_reads(ev: Evaluator, decl: Any, call: A.Call) -> tuple[tuple[str, str, Any], ...] | None:
    """Each argument of ``call`` as (the role it reads, the stat, its span) when every one is a
    profile's stat given for the parameter of that stat's name (``hit(shooter.BS)``); else None.
    What the call's expressions and the model's stats say alone: worked out once per model, keyed
    by the call's identity (checked on reading) and the declaration it calls."""
    known: dict[int, tuple[A.Call, Any, tuple[tuple[str, str, Any], ...] | None]] = \
        ev.model.__dict__.setdefault("_stat_reads", {})
    hit = known.get(id(call))
    if hit is not None and hit[0] is call and hit[1] is decl:
        return hit[2]
    params = decl.params
    reads: tuple[tuple[str, str, Any], ...] | None = None
    if not call.kwargs and len(call.args) == len(params):
        found = []
        for p, arg in zip(params, call.args):
            if type(arg) is not A.Attr or type(arg.obj) is not A.Name or arg.name != ev.model.param_stat(p):
                break
            assert isinstance(arg, A.Attr) and isinstance(arg.obj, A.Name)
            found.append((arg.obj.id, arg.name, arg.span))
        else:
            reads = tuple(found)
    if len(known) > 20_000:
        known.clear()
    known[id(call)] = (call, decl, reads)
    return reads


def read_stat(ev: Evaluator, expr: A.Expr, env: dict[str, Any]) -> tuple[bool, Any]:
    """(True, its value) when ``expr`` is a stat of a profile bound in ``env`` (``weapon.D``),
    read with the modifiers that apply as the evaluator reads it; else (False, None)."""
    if tracing() or type(expr) is not A.Attr:
        return False, None
    assert isinstance(expr, A.Attr)
    if type(expr.obj) is not A.Name:
        return False, None
    ref = env.get(expr.obj.id)
    if type(ref) is not ProfileRef:
        return False, None
    return True, stat_of(ev, ref, expr.name, expr.obj.id, expr.span)
