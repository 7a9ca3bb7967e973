"""The builder's part for expressions: values (numbers, dice, distances, labels, names,
constants), operators, targets and chains, ``with`` settings, attributes and calls.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from lark import Token

from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, dice_parts, die_key, unquote, with_meta

RuleMethod = Callable[[BuilderBase, Any, "list[Any]"], A.Expr]


def _binary(op: str) -> RuleMethod:
    """The callback of a rule that builds ``left op right``."""
    def method(self: BuilderBase, meta: Any, c: list[Any]) -> A.Expr:
        return A.Binary(self.span(meta), op, c[0], c[1])
    return with_meta(method)


def _constant(value: str) -> RuleMethod:
    """The callback of a rule that builds the constant ``value`` (``never``, ``true``…)."""
    def method(self: BuilderBase, meta: Any, c: list[Any]) -> A.Expr:
        return A.Const(self.span(meta), value)
    return with_meta(method)


class ExprBuilder(BuilderBase):
    """Builds expressions."""

    @with_meta
    def with_settings(self, meta: Any, c: list[Any]) -> A.With:
        return A.With(self.span(meta), c[0], tuple(c[1:]))

    @with_meta
    def set_value(self, meta: Any, c: list[Any]) -> A.Setting:
        value = c[1]
        if isinstance(value, A.Const) and value.value == "none":
            # ``cover = none`` names a choice (``one of none, half, full``): no situation is set to no value.
            value = A.Name(value.span, "none")
        return A.Setting(self.span(meta), str(c[0]), value)

    @with_meta
    def set_true(self, meta: Any, c: list[Any]) -> A.Setting:
        return A.Setting(self.span(meta), str(c[0]), None)

    @with_meta
    def set_false(self, meta: Any, c: list[Any]) -> A.Setting:
        return A.Setting(self.span(meta), str(c[0]), None, negated=True)

    @with_meta
    def chain_target(self, meta: Any, c: list[Any]) -> A.Chain:
        return A.Chain(self.span(meta), c[0], c[1])

    @with_meta
    def target_high(self, meta: Any, c: list[Any]) -> A.Target:
        return A.Target(self.span(meta), c[0], "high")

    @with_meta
    def target_low(self, meta: Any, c: list[Any]) -> A.Target:
        return A.Target(self.span(meta), c[0], "low")

    @with_meta
    def if_else(self, meta: Any, c: list[Any]) -> A.IfElse:
        return A.IfElse(self.span(meta), c[0], c[1], c[2])

    @with_meta
    def or_(self, meta: Any, c: list[Any]) -> A.Binary:
        return A.Binary(self.span(meta), "or", c[0], c[1])

    @with_meta
    def and_(self, meta: Any, c: list[Any]) -> A.Binary:
        return A.Binary(self.span(meta), "and", c[0], c[1])

    @with_meta
    def not_(self, meta: Any, c: list[Any]) -> A.Unary:
        return A.Unary(self.span(meta), "not", c[0])

    @with_meta
    def compare(self, meta: Any, c: list[Any]) -> A.Binary:
        return A.Binary(self.span(meta), c[1], c[0], c[2])

    @with_meta
    def in_range(self, meta: Any, c: list[Any]) -> A.InRange:
        return A.InRange(self.span(meta), c[0], c[1])

    @with_meta
    def is_choice(self, meta: Any, c: list[Any]) -> A.IsChoice:
        return A.IsChoice(self.span(meta), c[0], str(c[1]))

    @with_meta
    def is_none(self, meta: Any, c: list[Any]) -> A.IsNone:
        return A.IsNone(self.span(meta), c[0])

    @with_meta
    def has_keyword(self, meta: Any, c: list[Any]) -> A.Has:
        return A.Has(self.span(meta), c[0], str(c[1]))

    @with_meta
    def each(self, meta: Any, c: list[Any]) -> A.Each:
        return A.Each(self.span(meta), c[0], c[1])

    @with_meta
    def each_not(self, meta: Any, c: list[Any]) -> A.Each:
        return A.Each(self.span(meta), c[0], c[1], negate=True)

    @with_meta
    def each_becomes(self, meta: Any, c: list[Any]) -> A.Each:
        """``hits each becomes weapon.blast capped at target.models``: each one of the count
        becomes that many (no more than the cap), keeping what it carries."""
        return A.Each(self.span(meta), c[0], c[1], becomes=True, cap=c[2] if len(c) > 2 else None)

    @with_meta
    def range(self, meta: Any, c: list[Any]) -> A.RangeExpr:
        return A.RangeExpr(self.span(meta), c[0], c[1])

    @with_meta
    def neg(self, meta: Any, c: list[Any]) -> A.Expr:
        if isinstance(c[0], A.Int):
            return A.Int(self.span(meta), -c[0].value)
        return A.Unary(self.span(meta), "-", c[0])

    @with_meta
    def attr(self, meta: Any, c: list[Any]) -> A.Attr:
        return A.Attr(self.span(meta), c[0], str(c[1]))

    @with_meta
    def call(self, meta: Any, c: list[Any]) -> A.Call:
        func: Token = c[0]
        args = [x for x in c[1:] if x is not None]
        pos = tuple(a for a in args if not isinstance(a, Item))
        kw = tuple(a.data for a in args if isinstance(a, Item))
        return A.Call(self.span(meta), str(func), self.tspan(func), pos, kw)

    @with_meta
    def kwarg(self, meta: Any, c: list[Any]) -> Item:
        return Item("kwarg", self.span(meta), (str(c[0]), c[1]))

    @with_meta
    def int(self, meta: Any, c: list[Any]) -> A.Int:
        return A.Int(self.span(meta), int(str(c[0])))

    @with_meta
    def decimal(self, meta: Any, c: list[Any]) -> A.Decimal:
        return A.Decimal(self.span(meta), Fraction(str(c[0])), str(c[0]))

    @with_meta
    def dice(self, meta: Any, c: list[Any]) -> A.Dice:
        s = str(c[0])
        count, sides = dice_parts(s)
        return A.Dice(self.span(meta), count, sides, die_key(s))

    @with_meta
    def inches(self, meta: Any, c: list[Any]) -> A.Inches:
        return A.Inches(self.span(meta), Fraction(str(c[0])[:-1]))

    @with_meta
    def label(self, meta: Any, c: list[Any]) -> A.Label:
        return A.Label(self.span(meta), unquote(str(c[0])))

    @with_meta
    def name(self, meta: Any, c: list[Any]) -> A.Name:
        return A.Name(self.span(meta), str(c[0]))

    @with_meta
    def profile_group(self, meta: Any, c: list[Any]) -> A.Group:
        return A.Group(self.span(meta), int(str(c[0])), str(c[1]))

    @with_meta
    def computed_group(self, meta: Any, c: list[Any]) -> A.Group:
        """``(10 - r.killed) ork_boy``: a model count worked out from other values (a roll, too)."""
        return A.Group(self.span(meta), 0, str(c[1]), c[0])

    add = _binary("+")
    sub = _binary("-")
    mul = _binary("*")
    div = _binary("/")

    never = _constant("never")
    always = _constant("always")
    none = _constant("none")
    true = _constant("true")
    false = _constant("false")
