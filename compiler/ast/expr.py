"""Expression nodes: numbers, dice, targets, names, operations, calls, ``with`` settings.

Every expression is an :class:`Expr` with the :class:`~compiler.diagnostics.Span` it was
written at.  :func:`sub_expressions` walks an expression; :func:`children` gives the
expressions directly inside one node.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterator

from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Expr:
    """Any expression: a value, dice, a target, a name, an operation, a call."""

    span: Span


@dataclass(frozen=True, slots=True)
class Int(Expr):
    """A whole number: ``4``."""

    value: int


@dataclass(frozen=True, slots=True)
class Decimal(Expr):
    """A decimal number as written (``0.5``): its exact value and its text."""

    value: Fraction
    text: str


@dataclass(frozen=True, slots=True)
class Dice(Expr):
    """``NdM``: ``count`` dice of ``sides`` sides; ``name`` is the die as written (``D3``)."""

    count: int
    sides: int
    name: str


@dataclass(frozen=True, slots=True)
class Inches(Expr):
    """A distance in inches: ``6"``."""

    value: Fraction


@dataclass(frozen=True, slots=True)
class Label(Expr):
    """A quoted string used as a value (an outcome such as ``"bust"``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Name(Expr):
    """A name used as a value: a parameter, a stat, a ``let``, a profile."""

    id: str


@dataclass(frozen=True, slots=True)
class Group(Expr):
    """``5 space_marine``: a number of models of one profile; ``(10 - r.killed) ork_boy``: a
    number worked out from other values (``computed``; then ``count`` is 0)."""

    count: int
    profile: str
    computed: Expr | None = None


@dataclass(frozen=True, slots=True)
class Const(Expr):
    """``never``, ``always``, ``none``, ``true`` or ``false``."""

    value: str


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    """``-x`` or ``not x``."""

    op: str  # "-" or "not"
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    """An arithmetic, comparison or logical operation on two operands."""

    op: str  # + - * / and or == != >= <= > <
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class RangeExpr(Expr):
    """``low..high``, both ends included."""

    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class InRange(Expr):
    """``x in 2..3``."""

    operand: Expr
    range: RangeExpr


@dataclass(frozen=True, slots=True)
class IsChoice(Expr):
    """``cover is soft``: a situation has one of its choices."""

    operand: Expr
    choice: str


@dataclass(frozen=True, slots=True)
class IsNone(Expr):
    """``x is none``."""

    operand: Expr


@dataclass(frozen=True, slots=True)
class Has(Expr):
    """``target has vehicle``: a profile carries a keyword or an ability."""

    operand: Expr
    keyword: str


@dataclass(frozen=True, slots=True)
class Each(Expr):
    """``count each item``: count successes (item is a test) or sum amounts."""

    count: Expr
    item: Expr
    negate: bool = False
    becomes: bool = False  # ``hits each becomes 2``: each one becomes ``item`` of them
    cap: Expr | None = None  # ``… capped at target.models``: never more than this, each


@dataclass(frozen=True, slots=True)
class Target(Expr):
    """``4+`` (direction "high") or ``3-`` (direction "low") built from a number."""

    value: Expr
    direction: str


@dataclass(frozen=True, slots=True)
class Chain(Expr):
    """``6 then 4+``: pass ``first`` on one die, then ``then`` on another."""

    first: Expr
    then: Expr


@dataclass(frozen=True, slots=True)
class IfElse(Expr):
    """``if cond then a else b``."""

    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    """``shooter.BS``: a stat of a profile (or a field of a value)."""

    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Call(Expr):
    """``hit(shooter)``: a test, table, formula or attack applied to arguments."""

    func: str
    func_span: Span
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting of a ``with``: ``cover = soft``, ``charged`` or ``not charged``."""

    span: Span
    name: str
    value: Expr | None  # None with ``negated`` False means true
    negated: bool = False


@dataclass(frozen=True, slots=True)
class With(Expr):
    """``expr with cover = soft, charged``: evaluate under a situation."""

    expr: Expr
    settings: tuple[Setting, ...]


def sub_expressions(expr: Expr) -> Iterator[Expr]:
    """Every expression node inside ``expr`` (pre-order), including itself."""
    stack = [expr]
    while stack:
        e = stack.pop()
        yield e
        inside = children(e)
        if inside:
            stack.extend(reversed(inside))


def children(e: Expr) -> tuple[Expr, ...]:
    """The expressions directly inside ``e`` (its operands, arguments, settings' values)."""
    try:
        inside = _INSIDE[type(e)]
    except KeyError:
        inside = _INSIDE[type(e)] = _inside(type(e))
    return inside(e)


# How to find the expressions directly inside a node, by its class (filled as classes are met:
# the checks and the evaluator walk expressions hundreds of thousands of times).
_INSIDE: dict[type, Callable[[Any], tuple[Expr, ...]]] = {}


def _inside(cls: type) -> Callable[[Any], tuple[Expr, ...]]:
    if issubclass(cls, Binary):
        return lambda e: (e.left, e.right)
    if issubclass(cls, RangeExpr):
        return lambda e: (e.low, e.high)
    if issubclass(cls, InRange):
        return lambda e: (e.operand, e.range)
    if issubclass(cls, (Unary, IsChoice, IsNone, Has)):
        return lambda e: (e.operand,)
    if issubclass(cls, Each):
        return lambda e: (e.count, e.item) if e.cap is None else (e.count, e.item, e.cap)
    if issubclass(cls, Target):
        return lambda e: (e.value,)
    if issubclass(cls, Chain):
        return lambda e: (e.first, e.then)
    if issubclass(cls, IfElse):
        return lambda e: (e.cond, e.then, e.otherwise)
    if issubclass(cls, Attr):
        return lambda e: (e.obj,)
    if issubclass(cls, Call):
        return lambda e: e.args + tuple(v for _, v in e.kwargs) if e.kwargs else e.args
    if issubclass(cls, With):
        return lambda e: (e.expr,) + tuple(s.value for s in e.settings if s.value is not None)
    if issubclass(cls, Group):
        return lambda e: () if e.computed is None else (e.computed,)
    return lambda e: ()
