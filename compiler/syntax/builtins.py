"""The built-in functions of the language: one entry per function, read by every stage.

Each :class:`Builtin` says how many values the function takes, what it does in one line
(with an example), how the highlighter colours it, and — for the functions that make sense
without dice — its implementation on plain values.  The lexer highlights the names, the
checker checks arities and gives the one-liner as a hint, :mod:`compiler.model.static` runs
the static implementations, and the resolver gives each name its meaning over
distributions (:mod:`compiler.resolve.builtins`, keyed by these names).  This module is
part of the earliest stage so that every later one may read it; it imports nothing of the
package.

>>> BUILTINS["clamp"].arity
(3, 3)
>>> BUILTINS["clamp"].static([7, 1, 5], int)
5
>>> sorted(n for n, b in BUILTINS.items() if b.static is None)
['P', 'd', 'explode', 'highest', 'keep_highest', 'keep_lowest', 'lowest', 'mean', 'natural', 'reroll']
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

Number = int | Fraction | float
AsNumber = Callable[[Any], Number]  # a plain value (a number, a target…) as a number; raises otherwise
StaticImpl = Callable[[Sequence[Any], AsNumber], Any]


@dataclass(frozen=True)
class Builtin:
    """One built-in function.

    ``static``: its value on plain (dice-free) arguments, given the caller's way of reading
    a value as a number; None when only the resolver can work it out (it reads a whole
    distribution or rolls dice).  ``aggregate``: it reads the whole distribution of its
    argument (``P``, ``mean``), so a ``let`` roll inside it is not enumerated outside.
    """

    name: str
    min_args: int
    max_args: int
    doc: str
    example: str
    static: StaticImpl | None = None
    aggregate: bool = False
    highlight: str = "Name.Builtin"

    @property
    def arity(self) -> tuple[int, int]:
        """(fewest, most) values it takes."""
        return self.min_args, self.max_args


def _whole(n: Number) -> Number:
    return int(n) if isinstance(n, Fraction) and n.denominator == 1 else n


def _pick(best: Callable[[list[Number]], Number]) -> StaticImpl:
    """min/max: the value (not its number) with the best number; ``none`` values are skipped."""
    def impl(args: Sequence[Any], number: AsNumber) -> Any:
        vals = [a for a in args if a is not None]
        if not vals:
            return None
        nums = [number(a) for a in vals]
        return vals[nums.index(best(nums))]
    return impl


def _clamp(args: Sequence[Any], number: AsNumber) -> Any:
    v, lo, hi = (number(a) for a in args)
    return _whole(min(max(v, lo), hi))


def _one(fn: Callable[[Number], Any]) -> StaticImpl:
    def impl(args: Sequence[Any], number: AsNumber) -> Any:
        return fn(number(args[0]))
    return impl


_ENTRIES = (
    Builtin("P", 1, 1, "the probability that a condition holds", "P(2d6 >= 7)", aggregate=True),
    Builtin("mean", 1, 1, "the average value", "mean(2d6)", aggregate=True),
    Builtin("natural", 1, 1, "the unmodified face of a die or test", "natural(roll)"),
    Builtin("min", 1, 99, "the smallest of the values (none is skipped)", "min(d6, 3)", _pick(min)),
    Builtin("max", 1, 99, "the largest of the values (none is skipped)", "max(d6, d6)", _pick(max)),
    Builtin("abs", 1, 1, "the value without its sign", "abs(T - S)", _one(abs)),
    Builtin("ceil", 1, 1, "rounded up to a whole number", "ceil(models / 2)", _one(math.ceil)),
    Builtin("floor", 1, 1, "rounded down to a whole number", "floor(models / 2)", _one(math.floor)),
    Builtin("clamp", 3, 3, "the value kept between a low and a high end", "clamp(BS - 1, 2, 6)", _clamp),
    Builtin("even", 1, 1, "whether a whole number is even", "even(d6)", _one(lambda n: n % 2 == 0)),
    Builtin("odd", 1, 1, "whether a whole number is odd", "odd(d6)", _one(lambda n: n % 2 == 1)),
    Builtin("reroll", 2, 2, "re-roll a die once when it shows one of the given faces: reroll(d6, 1)",
            "reroll(d6, 1)"),
    Builtin("explode", 2, 3, "roll again and add on the given face: explode(d6, 6[, times])", "explode(d6, 6)"),
    Builtin("d", 1, 1, "a die with as many sides as the value: one roll picks one of n models",
            "d(target.models)"),
    Builtin("highest", 2, 2, "the highest of k dice: highest(2, d6)", "highest(2, d6)"),
    Builtin("lowest", 2, 2, "the lowest of k dice: lowest(2, d6)", "lowest(2, d6)"),
    Builtin("keep_highest", 3, 3, "roll n dice and add up the k highest: keep_highest(k, n, d6)",
            "keep_highest(2, 3, d6)"),
    Builtin("keep_lowest", 3, 3, "roll n dice and add up the k lowest: keep_lowest(k, n, d6)",
            "keep_lowest(2, 3, d6)"),
)

BUILTINS: dict[str, Builtin] = {b.name: b for b in _ENTRIES}
"""Every built-in function by name, in the order the language documentation lists them."""
