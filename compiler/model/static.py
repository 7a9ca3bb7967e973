"""Evaluating expressions that involve no dice: numbers, yes/no, targets, labels.

Used by the checker (to find gaps and unreachable rows in tables over their
parameters' ranges) and by the resolver for table lookups.  Anything random
raises :class:`NotStatic`; the caller then leaves it to the resolver.

>>> from compiler.syntax.parse import parse_text
>>> from compiler.ast.build import build_expression
>>> tree, _ = parse_text("(T + 4) - S", "e", start="eval_input")
>>> expr, _ = build_expression(tree, "e")
>>> evaluate(expr, {"T": 4, "S": 3}, None)
5
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Mapping

from compiler import ast as A
from compiler.trace import note
from compiler.model.values import ProfileRef, TargetValue
from compiler.syntax.builtins import BUILTINS

MAX_DEPTH = 64


class NotStatic(Exception):
    """The expression needs the resolver (dice, tests, attacks…)."""


class StaticError(Exception):
    """The expression cannot be evaluated with these values (e.g. a type mix-up)."""

    def __init__(self, message: str, span: Any = None) -> None:
        super().__init__(message)
        self.span = span


class NoneInArithmetic(StaticError):
    """A none (a stat written ``-``, the value of an ability not held) met with arithmetic."""


NONE = None


def as_number(v: Any) -> int | Fraction | float:
    if isinstance(v, bool):
        raise StaticError("a yes/no value is not a number")
    if isinstance(v, TargetValue):
        n = v.as_number
        if n is None:
            raise StaticError(f"the target {v} has no number")
        return n
    if isinstance(v, (int, Fraction, float)):
        return v
    if isinstance(v, ProfileRef):
        raise StaticError(f"{v} is a group of models, not a number" if v.models != 1
                          else f"{v} is a profile, not a number")
    raise StaticError(f"{v!r} is not a number")


def _num(v: Any) -> Any:
    """A whole Fraction as an int; anything else unchanged."""
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return v


def to_target(v: Any, direction: str) -> TargetValue:
    if isinstance(v, TargetValue):
        if v.kind in ("high", "low") and v.kind != direction:
            return TargetValue(direction, v.number)
        return v
    n = as_number(v)
    if isinstance(n, Fraction):
        n = math.ceil(n) if direction == "high" else math.floor(n)
    return TargetValue(direction, int(n))


def evaluate(expr: A.Expr, env: Mapping[str, Any], model: Any, depth: int = 0) -> Any:
    """Evaluate a dice-free expression; ``model`` (a Ruleset) resolves calls to tables and formulas."""
    if depth > MAX_DEPTH:
        raise StaticError("definitions call each other too deeply (a cycle?)")
    try:
        rule = _RULES[type(expr)]
    except KeyError:
        rule = _rule_for(type(expr))
    return rule(expr, env, model, depth + 1)


# One function per kind of expression, each given (expression, env, model, depth of its operands).
Rule = Callable[[Any, Mapping[str, Any], Any, int], Any]

_CONSTANTS: dict[str, Callable[[], Any]] = {
    "true": lambda: True, "false": lambda: False, "none": lambda: NONE,
    "never": TargetValue.never, "always": TargetValue.always}


def _name(expr: A.Name, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    if expr.id in env:
        return env[expr.id]
    if model is not None and expr.id in model.profiles:
        return ProfileRef(expr.id)
    if model is not None and any(expr.id in s.choices for s in model.situations.values()):
        return expr.id
    raise NotStatic(expr.id)


def _dice(expr: A.Dice, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    raise NotStatic("dice")


def _unary(expr: A.Unary, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    v = evaluate(expr.operand, env, model, depth)
    if expr.op == "not":
        return not _truth(v)
    if v is NONE:
        return NONE
    return _num(-as_number(v))


def _binary(expr: A.Binary, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    if expr.op == "and":
        return _truth(evaluate(expr.left, env, model, depth)) and _truth(evaluate(expr.right, env, model, depth))
    if expr.op == "or":
        return _truth(evaluate(expr.left, env, model, depth)) or _truth(evaluate(expr.right, env, model, depth))
    return binary(expr.op, evaluate(expr.left, env, model, depth), evaluate(expr.right, env, model, depth))


def _in_range(expr: A.InRange, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    v = evaluate(expr.operand, env, model, depth)
    if v is NONE:
        return False
    n = as_number(v)
    return as_number(evaluate(expr.range.low, env, model, depth)) <= n <= \
        as_number(evaluate(expr.range.high, env, model, depth))


def _target(expr: A.Target, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    v = evaluate(expr.value, env, model, depth)
    if v is NONE:
        return TargetValue.never()
    return to_target(v, expr.direction)


def _chain(expr: A.Chain, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    first, then = evaluate(expr.first, env, model, depth), evaluate(expr.then, env, model, depth)
    if not isinstance(first, TargetValue):
        first = TargetValue.exactly(int(as_number(first)))
    if not isinstance(then, TargetValue):
        then = TargetValue.exactly(int(as_number(then)))
    return TargetValue.chain(first, then)


def _if_else(expr: A.IfElse, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    chosen = expr.then if _truth(evaluate(expr.cond, env, model, depth)) else expr.otherwise
    return evaluate(chosen, env, model, depth)


def _attr(expr: A.Attr, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    obj = evaluate(expr.obj, env, model, depth)
    if isinstance(obj, ProfileRef) and model is not None:
        return profile_attr(model, obj, expr.name)
    raise NotStatic("attribute")


def _call(expr: A.Call, env: Mapping[str, Any], model: Any, depth: int) -> Any:
    return call(expr, [evaluate(a, env, model, depth) for a in expr.args], model, depth - 1, env)


_RULES: dict[type, Rule] = {
    A.Int: lambda e, env, model, depth: e.value,
    A.Decimal: lambda e, env, model, depth: e.value,
    A.Inches: lambda e, env, model, depth: _num(e.value),
    A.Label: lambda e, env, model, depth: e.text,
    A.Const: lambda e, env, model, depth: _CONSTANTS[e.value](),
    A.Name: _name,
    A.Group: lambda e, env, model, depth: ProfileRef(e.profile, e.count),
    A.Dice: _dice,
    A.Unary: _unary,
    A.Binary: _binary,
    A.InRange: _in_range,
    A.IsChoice: lambda e, env, model, depth: evaluate(e.operand, env, model, depth) == e.choice,
    A.IsNone: lambda e, env, model, depth: is_none(evaluate(e.operand, env, model, depth)),
    A.Has: lambda e, env, model, depth: profile_has(model, evaluate(e.operand, env, model, depth), e.keyword),
    A.Target: _target,
    A.Chain: _chain,
    A.IfElse: _if_else,
    A.Attr: _attr,
    A.Call: _call,
}


def _rule_for(cls: type) -> Rule:
    """The rule of a subclass is its base's; an expression of no known kind needs the resolver."""
    for base in cls.__mro__[1:]:
        if base in _RULES:
            _RULES[cls] = _RULES[base]
            return _RULES[cls]

    def not_static(expr: A.Expr, env: Mapping[str, Any], model: Any, depth: int) -> Any:
        raise NotStatic(type(expr).__name__)
    return not_static


def is_none(v: Any) -> bool:
    """``x is none``: no value, or a situation's choice named ``none``
    (``situation cover one of none, half, full``)."""
    return v is NONE or (isinstance(v, str) and v == "none")


def _truth(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if v is NONE:
        return False
    raise StaticError(f"{v!r} is not a yes/no value")


def binary(op: str, left: Any, right: Any) -> Any:
    if op in ("==", "="):
        return _eq(left, right)
    if op == "!=":
        return not _eq(left, right)
    if op in ("max", "min") and (left is NONE or right is NONE):
        return right if left is NONE else left
    if left is NONE or right is NONE:
        if op in ("+", "-", "*", "/"):
            # A stat written '-' has no number: adding it to one would silently make the
            # whole sum none (and a roll against it fail), so it is refused.
            raise NoneInArithmetic(f"'{op}' needs two numbers, but one side is none (a stat written '-'); "
                              "ask 'x is none' first, e.g. if AP is none then Sv else Sv + AP")
        return False
    a, b = as_number(left), as_number(right)
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if op == "/" and b == 0:
            raise StaticError("division by zero")
        arith = {"+": a + b, "-": a - b, "*": a * b, "/": (a / b) if op == "/" else 0.0}
        if op in arith:
            return arith[op]
    if op == "+":
        return _num(Fraction(a) + b)
    if op == "-":
        return _num(Fraction(a) - b)
    if op == "*":
        return _num(Fraction(a) * b)
    if op == "/":
        if b == 0:
            raise StaticError("division by zero")
        return _num(Fraction(a) / b)
    if op == "max":
        return left if a >= b else right
    if op == "min":
        return left if a <= b else right
    if op == ">=":
        return a >= b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == "<":
        return a < b
    raise StaticError(f"unknown operator {op}")


def _eq(left: Any, right: Any) -> bool:
    if isinstance(left, TargetValue) and not isinstance(right, TargetValue) and right is not NONE:
        return bool(left.as_number == right)
    if isinstance(right, TargetValue) and not isinstance(left, TargetValue) and left is not NONE:
        return bool(right.as_number == left)
    return bool(left == right)


BUILTIN_STATIC = frozenset(name for name, b in BUILTINS.items() if b.static is not None)


def call(expr: A.Call, args: list[Any], model: Any, depth: int, outer: Mapping[str, Any] | None = None) -> Any:
    """A call on dice-free values: a built-in with a static implementation, a table or a formula."""
    f = expr.func
    builtin = BUILTINS.get(f)
    if builtin is not None and builtin.static is not None:
        return builtin.static(args, as_number)
    if model is None:
        raise NotStatic(f)
    decl = model.callables.get(f)
    if decl is not None:
        note(decl.id)
    situation = {k: v for k, v in (outer or {}).items() if k in model.situations}
    if isinstance(decl, A.Table):
        return table_lookup(model, decl, args, depth, situation)
    if isinstance(decl, A.Formula):
        env = {**situation, **bind(decl.params, args)}
        for let in decl.lets:
            env[let.name] = evaluate(let.value, env, model, depth + 1)
        if decl.result is None:
            raise StaticError(f"formula {f} has no result")
        return evaluate(decl.result, env, model, depth + 1)
    raise NotStatic(f)


def bind(params: tuple[A.Param, ...], args: list[Any]) -> dict[str, Any]:
    if len(params) != len(args):
        raise StaticError(f"expected {len(params)} values, got {len(args)}")
    return {p.name: a for p, a in zip(params, args)}


ValueOf = Callable[[A.Expr, Any], Any]  # (expression, span to blame) -> its plain value


def _same(v: Any) -> Any:
    return v


def case_holds(table: A.Table, row: A.CaseRow, env: Mapping[str, Any], value_of: ValueOf,
               plain: Callable[[Any], Any] = _same, number_of: Callable[[Any], Any] = as_number) -> bool:
    """Does a case row's pattern hold for these parameter values?

    The one definition of a table row's case, shared by the checker (``value_of`` is
    :func:`evaluate`) and the resolver (``value_of`` evaluates with the resolver and refuses
    a random case; ``plain`` reads a test's pass/fail and a custom die's value).
    """
    pat = row.pattern
    if pat is None:
        return True
    if isinstance(pat, A.RangeExpr):
        v = plain(env[table.params[0].name])
        if v is NONE:
            return False
        lo, hi = value_of(pat.low, row.span), value_of(pat.high, row.span)
        return bool(as_number(lo) <= number_of(v) <= as_number(hi))
    value = plain(value_of(pat, row.span))
    if isinstance(value, bool):
        return value
    # A keyed row: ``1 -> 6+`` compares the only parameter with the key.
    if len(table.params) == 1:
        return _eq(plain(env[table.params[0].name]), value)
    raise StaticError("a table row's case must be a yes/no condition")


def table_result(table: A.Table, env: Mapping[str, Any], value_of: ValueOf,
                 plain: Callable[[Any], Any] = _same, number_of: Callable[[Any], Any] = as_number) -> A.Expr | None:
    """Which expression gives a table's value for these parameter values (its ``let`` names
    bound): the grid's cell, or the result of the first row whose case holds; None when
    nothing applies.  A table written as a formula has neither: its formula is the answer.

    Checker and resolver both look rows up here, so they cannot disagree about which row
    applies.

    >>> from compiler.driver import compile_text
    >>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\ntable t(x):\\n  x <= 2 -> 1\\n  otherwise -> 3\\n').rulesets[0]
    >>> table = model.callables["t"]
    >>> [evaluate(table_result(table, {"x": x}, lambda e, _: evaluate(e, {"x": x}, model)), {}, model) for x in (1, 5)]
    [1, 3]
    """
    if table.grid is not None:
        g = table.grid
        r, c = plain(env.get(g.row_param)), plain(env.get(g.col_param))
        for key, cells in g.rows:
            if _eq(r, key):
                for col, cell in zip(g.columns, cells):
                    if _eq(c, col):
                        return cell
        return None
    for row in table.rows:
        if case_holds(table, row, env, value_of, plain, number_of):
            return row.result
    return None


def row_matches(table: A.Table, row: A.CaseRow, env: Mapping[str, Any], model: Any, depth: int = 0) -> bool:
    """Does a case row's pattern hold for these parameter values (dice-free)?"""
    return case_holds(table, row, env, lambda e, _span: evaluate(e, env, model, depth + 1))


def table_lookup(model: Any, table: A.Table, args: list[Any], depth: int = 0,
                 situation: Mapping[str, Any] | None = None) -> Any:
    """A table's value for dice-free arguments (a whole number outside a parameter's range refused)."""
    env = {**(situation or {}), **bind(table.params, args)}
    for p, a in zip(table.params, args):
        problem = outside_range(model, table, p, a)
        if problem is not None:
            raise StaticError(problem)
    if table.formula is not None:
        return evaluate(table.formula, env, model, depth + 1)
    for let in table.lets:
        env[let.name] = evaluate(let.value, env, model, depth + 1)
    result = table_result(table, env, lambda e, _span: evaluate(e, env, model, depth + 1))
    if result is not None:
        return evaluate(result, env, model, depth + 1)
    if table.grid is not None:
        g = table.grid
        r, c = env.get(g.row_param), env.get(g.col_param)
        raise StaticError(f"the grid of table {table.id} has no cell for {g.row_param}={r}, {g.col_param}={c}")
    shown = ", ".join(f"{k}={v}" for k, v in env.items())
    raise StaticError(f"no row of table {table.id} matches {shown}")


def profile_has(model: Any, ref: Any, keyword: str) -> bool:
    """Does a profile carry this keyword (or ability, or class)?"""
    if not isinstance(ref, ProfileRef) or model is None:
        raise StaticError("'has' asks a unit or weapon about its keywords")
    profile = model.profiles.get(ref.id)
    if profile is None:
        return False
    return (keyword in {k for k, _ in profile.keywords} or keyword in {a.ability for a in profile.abilities}
            or profile.klass == keyword)


def profile_attr(model: Any, ref: ProfileRef, name: str) -> Any:
    if name == "models":
        return ref.models
    profile = model.profiles.get(ref.id)
    if profile is None:
        raise StaticError(f"unknown profile {ref.id}")
    sv = profile.stat(name)
    if sv is None:
        raise StaticError(f"{profile.title} has no {name}")
    return stat_value(sv)


def stat_value(sv: A.StatValue) -> Any:
    if sv.kind == "int":
        return sv.value
    if sv.kind == "high":
        return TargetValue.high(int(stat_number(sv)))
    if sv.kind == "low":
        return TargetValue.low(int(stat_number(sv)))
    if sv.kind == "inches":
        return _num(sv.value)
    if sv.kind == "none":
        return NONE
    if sv.kind == "dice":
        raise NotStatic("dice")
    return sv.value


def stat_number(sv: A.StatValue) -> int | Fraction:
    """The number of a profile value written as a number, a target (``3+``) or a distance."""
    if isinstance(sv.value, bool) or not isinstance(sv.value, (int, Fraction)):
        raise StaticError(f"{sv.stat} {sv.text} is not a number")
    return sv.value


def int_range(rng: A.RangeExpr, model: Any = None) -> tuple[int, int] | None:
    """The whole-number ends of ``lo..hi``, or None when they are not plain whole numbers."""
    try:
        lo, hi = evaluate(rng.low, {}, model), evaluate(rng.high, {}, model)
    except (NotStatic, StaticError, RecursionError):
        return None
    if type(lo) is not int or type(hi) is not int:
        return None
    return lo, hi


def param_range(model: Any, p: A.Param) -> tuple[str, int, int] | None:
    """The whole numbers parameter ``p`` ranges over, as ``(what says so, low, high)``: its own
    range (``x: 1..6``) or the range of the stat it is named after (``T`` of ``1..10``)."""
    t = p.type
    if isinstance(t, A.RangeExpr):
        ends = int_range(t, model)
        return (p.name, *ends) if ends else None
    stat = model.stats.get(t if isinstance(t, str) else p.name)
    if stat is not None and isinstance(stat.type, A.RangeExpr):
        ends = int_range(stat.type, model)
        return (f"stat {stat.id}", *ends) if ends else None
    return None


def outside_range(model: Any, table: A.Table, p: A.Param, value: Any) -> str | None:
    """Why a whole number handed to a table is outside the range of its parameter (or of the
    stat it is named after), or None: the rows are written for that range, and a row such as
    ``otherwise`` would answer for a value the game cannot have."""
    if type(value) is not int or model is None:
        return None
    kept: dict[tuple[str, str], tuple[A.Table, tuple[str, int, int] | None]] = \
        model.__dict__.setdefault("_table_ranges", {})
    known = kept.get((table.id, p.name))
    if known is None or known[0] is not table:
        known = kept[(table.id, p.name)] = (table, param_range(model, p))
    found = known[1]
    if found is None:
        return None
    what, lo, hi = found
    if lo <= value <= hi:
        return None
    return f"table '{table.id}' is given {p.name} = {value}, outside {what}'s range {lo}..{hi}"
