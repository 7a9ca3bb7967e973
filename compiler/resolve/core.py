"""The resolver's values and the small helpers every part of it shares.

What a random expression's outcomes can be besides plain numbers — a test's
:class:`Roll` (pass/fail and its natural face), a custom die's :class:`Face`, a
:class:`Pool` of tests, an :class:`AttackResult` — and :class:`ResolveError`, the one
exception a question the resolver cannot answer raises.  The helpers turn outcomes into
plain values (:func:`unwrap`, :func:`truth`, :func:`num`, :func:`count`…) with errors that
point at the rules.  Nothing here evaluates an expression: that is
:mod:`compiler.resolve.evaluator` and the modules that register with it.

>>> unwrap(Roll(True, 6)), unwrap(Face(3, 2)), unwrap(Pool(2, 1))
(True, 3, 2)
>>> num_int(Fraction(4, 2), None)
2
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping, TypeAlias, TypeGuard

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.limits import MAX_COUNT, MAX_PAIRS
from compiler.model.static import NoneInArithmetic, StaticError
from compiler.model.static import binary as static_binary
from compiler.model.values import ProfileRef, TargetValue
from compiler.resolve.dist import Dist, FastDist
from compiler.syntax.builtins import BUILTINS
from compiler.words import value_words


AGGREGATES = frozenset(b.name for b in BUILTINS.values() if b.aggregate)  # built-ins that read a whole roll
MAX_BRANCHES = MAX_PAIRS // 10  # random values a definition is worked out for, one by one
DEFAULT_EXPLODE_DEPTH = 10

show = value_words  # the old name of compiler.words.value_words, which other stages import


class ResolveError(Exception):
    """A question the resolver cannot answer, located in the rules."""

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint

    def __reduce__(self) -> tuple[Any, ...]:  # whole across processes (a worker's error keeps its place)
        return (_rebuilt, (type(self), self.message, self.span, self.hint))


def _rebuilt(cls: type[ResolveError], message: str, span: Span | None, hint: str | None) -> ResolveError:
    """A :class:`ResolveError` (or a subclass, whatever its ``__init__``) as it was pickled."""
    err = cls.__new__(cls, message)
    Exception.__init__(err, message)
    err.message, err.span, err.hint = message, span, hint
    return err


class ProfileLacks(ResolveError):
    """A profile lacks what the rules read of it: a stat it has no line for, or one written ``-``
    (none) reaching arithmetic.  The battle engine skips a weapon whose profile lacks what an
    attack reads (a close-combat blade in a shooting attack); any other :class:`ResolveError`
    is a question the rules leave unanswered, reported where it is written."""


# ---------------------------------------------------------------------------
# Outcomes that carry more than a number
# ---------------------------------------------------------------------------


@dataclass(frozen=True, order=True, slots=True)
class Roll:
    """The outcome of a test: passed or not, and the natural roll (the dice total)."""

    success: bool
    natural: int

    def __str__(self) -> str:
        return f"{'pass' if self.success else 'fail'} ({self.natural})"


@dataclass(frozen=True, order=True, slots=True)
class Face:
    """A custom die's value and the natural face of the die it is rolled on."""

    value: Any
    natural: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, order=True, slots=True)
class Pool:
    """``k each test``: how many passed and how many failed."""

    successes: int
    failures: int

    def __str__(self) -> str:
        return str(self.successes)


@dataclass(frozen=True)
class AttackResult:
    """The steps of a resolved attack sequence, each a distribution of counts."""

    attack: str
    steps: Mapping[str, Any]
    truncated: Fraction = Fraction(0)

    def __hash__(self) -> int:
        return hash((self.attack, tuple(self.steps)))


@dataclass(frozen=True)
class ProfileMix:
    """``(10 - r.killed) ork_boy``: a profile whose number of models is a distribution.  An
    attack called with it is worked out for each number and mixed by its chances."""

    id: str
    counts: Any  # an exact Dist over whole numbers of models

    def __hash__(self) -> int:
        return hash((self.id, tuple(sorted(self.counts.probabilities().items()))))

    def __str__(self) -> str:
        return f"({', '.join(str(n) for n in self.counts.outcomes())}) {self.id}"


@dataclass(frozen=True)
class LetVar:
    """A name bound with ``let`` to something random: one roll, enumerated where used."""

    name: str
    expr: A.Expr
    cached: Any = None  # the distribution, when it depends on no other let variable

Number: TypeAlias = int | Fraction | float
Plain: TypeAlias = Number | bool | str | TargetValue | ProfileRef | None
"""A value that is not random: a number, yes/no, a label, a target, a profile, none."""
Outcome: TypeAlias = Plain | Roll | Face | Pool
"""One outcome of a random value: a plain value, or a test's roll, a custom die's face, a pool."""
Random: TypeAlias = Dist | FastDist
"""A distribution over outcomes: exact or float64."""
Value: TypeAlias = Outcome | Random | AttackResult | LetVar | ProfileMix
"""Anything an expression of a ruleset can evaluate to (or a ``let`` name can stand for)."""


_PLAIN_TYPES = frozenset({int, bool, Fraction, str, TargetValue, type(None)})  # each its own plain value


def unwrap(v: Value) -> Any:
    """The plain value of an outcome: a test's pass/fail, a custom die's value, a pool's count."""
    if type(v) in _PLAIN_TYPES:  # the common case, asked at every step: one look-up
        return v
    if isinstance(v, Roll):
        return v.success
    if isinstance(v, Face):
        return v.value
    if isinstance(v, Pool):
        return v.successes
    return v


def is_dist(v: object) -> TypeGuard[Random]:
    """Is ``v`` a distribution (exact or float)?"""
    return isinstance(v, (Dist, FastDist))


def truth(v: Value, span: Any = None) -> bool:
    """A yes/no value (none counts as no); anything else is an error at ``span``."""
    v = unwrap(v)
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    raise ResolveError(f"{show(v)} is not a yes/no value", span)


def all_int(d: Random) -> bool:
    """Are all outcomes of a distribution whole numbers (or yes/no)?  (Kept on it, as :func:`plain_ints`.)"""
    known = d.__dict__.get("_all_int")
    if known is None:
        known = d.__dict__["_all_int"] = all(isinstance(o, (int, bool)) for o in d.outcomes())
    return known


def plain_ints(d: Random, least: int | None = None) -> bool:
    """Are all outcomes of ``d`` plain ``int`` (not yes/no, not a roll or a face), and at least
    ``least`` when given?  Then mapping them to whole numbers changes nothing (and is skipped).
    A distribution is immutable: whether its outcomes are plain is worked out once and kept on it."""
    known = d.__dict__.get("_plain_ints")
    if known is None:
        known = d.__dict__["_plain_ints"] = all(type(o) is int for o in d.outcomes())
    return known and (least is None or not d.outcomes() or min(d.outcomes()) >= least)


def custom_die_faces(faces: tuple[Any, ...]) -> Dist:
    """A custom die as :class:`Face` outcomes, so its natural face can be read."""
    return Dist.from_faces(Face(v, i) for i, v in enumerate(faces, 1))


def hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def natural(o: Value, span: Any) -> int:
    if isinstance(o, Roll):
        return o.natural
    if isinstance(o, Face):
        return o.natural
    if isinstance(o, bool) or not isinstance(o, int):
        raise ResolveError(f"{show(o)} has no natural roll", span)
    return o


def num(v: object, span: Any) -> Number:
    """A value as a number (a target as its number); anything else is an error at ``span``."""
    if isinstance(v, TargetValue):
        if v.as_number is None:
            raise ResolveError(f"the target {v} has no number", span)
        return v.as_number
    if isinstance(v, ProfileRef):
        raise ResolveError(f"{v} is a group of models, not a number" if v.models != 1
                           else f"{v} is a profile, not a number", span)
    if isinstance(v, bool) or not isinstance(v, (int, Fraction, float)):
        raise ResolveError(f"{show(v)} is not a number", span)
    return v


def num_int(v: Value, span: Any) -> int:
    """A value as a whole number."""
    n = num(v, span)
    if isinstance(n, Fraction):
        if n.denominator != 1:
            raise ResolveError(f"{show(n)} is not a whole number", span)
        return int(n)
    return n  # type: ignore[return-value]  # a float-backend count passes through unchanged, as it always did


def as_count(v: Value, span: Any) -> int:
    """A value as a count of things: whole, not negative, not beyond the resolver's limit."""
    n = num_int(v, span)
    if n < 0:
        raise ResolveError(f"cannot count {n} of something", span)
    if n > MAX_COUNT:
        raise ResolveError(f"{n:,} is more than warscribe will count ({MAX_COUNT:,})", span)
    return n


def mean_value(v: Value, span: Any) -> Number:
    if isinstance(v, bool):
        return int(v)
    return num(v, span)


def eq(a: Any, b: Any) -> bool:
    """``a == b`` as the language means it (a target equals its number)."""
    return bool(static_binary("==", unwrap(a), unwrap(b)))


_INT_OPS: dict[str, Callable[[int, int], Any]] = {
    "+": int.__add__, "-": int.__sub__, "*": int.__mul__,
    ">=": int.__ge__, "<=": int.__le__, ">": int.__gt__, "<": int.__lt__}


def binary_fn(op: str, span: Any) -> Callable[[Any, Any], Any]:
    on_ints = _INT_OPS.get(op)

    def fn(a: Any, b: Any) -> Any:
        if on_ints is not None and type(a) is int and type(b) is int:
            return on_ints(a, b)  # what the general rule gives two whole numbers, without Fractions
        a, b = unwrap(a), unwrap(b)
        if op in ("and", "or"):
            x, y = truth(a, span), truth(b, span)
            return (x and y) if op == "and" else (x or y)
        try:
            return static_binary(op, a, b)
        except NoneInArithmetic as err:
            raise ProfileLacks(str(err), span) from None
        except StaticError as err:
            raise ResolveError(str(err), span) from None
    return fn


def dense_sum(op: str, a: Any, b: Any) -> bool:
    """Is ``a op b`` a sum or difference of dense whole numbers (worked out as a polynomial product)?"""
    if op not in ("+", "-") or not all_int(a) or not all_int(b):
        return False
    for d in (a, b):
        values = [int(o) for o in d.outcomes()]
        if max(values) - min(values) + 1 > 16 * len(values) + 64:
            return False
    return True


def fast_to_exact(d: Random) -> Dist:
    """A float distribution as exact weights (limited denominators): only for mixing backends."""
    weights = {o: Fraction(p).limit_denominator(10**15) for o, p in d.probabilities().items()}
    return Dist.from_weights(weights)


def exact_to_fast(d: Dist) -> FastDist:
    return d.to_fast()


def exactify(v: Value) -> Value:
    return fast_to_exact(v) if isinstance(v, FastDist) else v
