"""Probability distributions of dice mechanics: the resolver's engine.

Two backends behind one API (:class:`_Base` holds the API, the backends hold storage and
fast paths):

* :class:`Dist` is exact: integer weights over one common denominator, stored as a sorted
  tuple ``((outcome, weight), ...)``; probabilities come out as :class:`fractions.Fraction`.
  Sums of integer outcomes are polynomial products (python-flint ``fmpz_poly``).
* :class:`FastDist` is float64: a dense NumPy array plus an offset; integer outcomes only.

Every operand of a combinator is an independent roll. Unbounded processes (exploding dice)
are cut at an explicit depth and the cut-off mass is kept in ``.truncated``, never
renormalised; it propagates through every combinator.

Outcomes may be any hashable value; tuples add element-wise under ``+`` (joint counts such as
``(successes, failures)``). ``==`` compares two distributions structurally; to compare two
rolls use ``.binary('==', other)``. ``< <= > >=`` return distributions over booleans.

>>> d6 = Dist.die(6)
>>> (d6 + d6).p(7)
Fraction(1, 6)
>>> agree(d6.sum_of(3), FastDist.die(6).sum_of(3))
True
"""

from __future__ import annotations

import math
import operator
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any, Self, TypeAlias

import flint
import numpy as np

__all__ = ["Dist", "FastDist", "Outcome", "agree"]

Outcome: TypeAlias = Any  # any hashable value; int (and bool) outcomes have the fast paths
Op: TypeAlias = str | Callable[[Any, Any], Any]


# --- outcomes: ordering and arithmetic ---------------------------------------------------


def _sort_key(o: Outcome) -> tuple[Any, ...]:
    if isinstance(o, tuple):
        return ("tuple", tuple(_sort_key(x) for x in o))
    if isinstance(o, (int, float, Fraction)):  # bool included: numbers compare by value
        return ("", o)
    return (type(o).__name__, o)


def _sorted(pairs: Iterable[tuple[Outcome, Any]]) -> tuple[tuple[Outcome, Any], ...]:
    """Sort (outcome, weight) pairs by outcome; mixed types by (type name, value), then repr."""
    pairs = list(pairs)
    keys: tuple[Callable[[tuple[Outcome, Any]], Any], ...] = (
        operator.itemgetter(0),
        lambda kv: _sort_key(kv[0]),
        lambda kv: (type(kv[0]).__name__, repr(kv[0])),
    )
    for key in keys:
        try:
            return tuple(sorted(pairs, key=key))
        except TypeError:
            continue
    raise AssertionError("unreachable: repr keys always sort")


def _vadd(a: Any, b: Any) -> Any:
    """``a + b``, element-wise when both are tuples (joint outcomes)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            raise ValueError(f"cannot add joint outcomes of different sizes: {a!r} + {b!r}")
        return tuple(map(_vadd, a, b))
    return a + b


def _vsub(a: Any, b: Any) -> Any:
    """``a - b``, element-wise when both are tuples."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) != len(b):
            raise ValueError(f"cannot subtract joint outcomes of different sizes: {a!r} - {b!r}")
        return tuple(map(_vsub, a, b))
    return a - b


def _zero_like(o: Outcome) -> Outcome:
    return tuple(_zero_like(x) for x in o) if isinstance(o, tuple) else 0


_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": _vadd, "-": _vsub, "*": operator.mul, "//": operator.floordiv, "%": operator.mod,
    "max": max, "min": min, "and": operator.and_, "or": operator.or_,
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_OP_NAMES: dict[Callable[..., Any], str] = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.floordiv: "//",
    operator.mod: "%", max: "max", min: "min", operator.and_: "and", operator.or_: "or",
    operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
    operator.gt: ">", operator.ge: ">=",
}


def _resolve_op(op: Op) -> tuple[str | None, Callable[[Any, Any], Any]]:
    """(name for fast paths or None, function for the generic path)."""
    if isinstance(op, str):
        if op not in _OPS:
            raise ValueError(f"unknown operator {op!r}; known: {' '.join(_OPS)}")
        return op, _OPS[op]
    return _OP_NAMES.get(op), op


def _is_int(o: object) -> bool:
    return isinstance(o, (int, np.integer))


# --- the API, shared by both backends -----------------------------------------------------


class _Base:
    """The distribution API; :class:`Dist` and :class:`FastDist` supply storage and fast paths.

    >>> issubclass(Dist, _Base) and issubclass(FastDist, _Base)
    True
    """

    _items: tuple[tuple[Outcome, Any], ...]  # sorted (outcome, weight), zero weights dropped
    _denom: Any  # weights and _trunc are over this denominator (1.0 for FastDist)
    _trunc: Any  # truncated weight

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            f"build a {type(self).__name__} with .die(), .const(), .from_weights(), ...")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    # backend hooks
    @classmethod
    def from_weights(cls, weights: Mapping[Outcome, Any]) -> Self:
        raise NotImplementedError

    @classmethod
    def _from_pairs(cls, pairs: Iterable[tuple[Outcome, Any]], trunc: Any) -> Self:
        raise NotImplementedError  # weights on a common scale; duplicates merged

    @classmethod
    def _mix(cls, weighted: Sequence[tuple[Any, Self]], outer_trunc: Any) -> Self:
        raise NotImplementedError  # weights normalised by their sum plus outer_trunc

    def _ratio(self, weight: Any) -> Any:
        raise NotImplementedError

    def _fast_binary(self, name: str | None, other: Self) -> Self | None:
        return None

    def _fast_power(self, n: int) -> Self | None:
        return None

    def _fast_sum_random(self, counts: Self, most: int) -> Self | None:
        return None

    @classmethod
    def _coerce(cls, x: object) -> Self:
        if isinstance(x, cls):
            return x
        if isinstance(x, _Base):
            raise TypeError(f"cannot combine {type(x).__name__} with {cls.__name__}; "
                            "use one backend (Dist.to_fast() converts)")
        return cls.const(x)

    # constructors
    @classmethod
    def die(cls, n: int) -> Self:
        """A fair die with faces 1..n.

        >>> Dist.die(3).probabilities()
        {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
        """
        die = _DICE.get((cls, n))
        if die is None:
            if not isinstance(n, int) or n < 1:
                raise ValueError(f"a die needs at least one face, not {n!r}")
            die = cls.from_weights(dict.fromkeys(range(1, n + 1), 1))
            if len(_DICE) < 256:
                _DICE[cls, n] = die
        return die

    @classmethod
    def const(cls, value: Outcome) -> Self:
        """A certain outcome.

        >>> Dist.const(4).p(4)
        Fraction(1, 1)
        """
        return cls.from_weights({value: 1})

    @classmethod
    def from_faces(cls, faces: Iterable[Outcome]) -> Self:
        """A fair die with these faces (repeats allowed), e.g. a D3 written on a D6.

        >>> Dist.from_faces([1, 2, 3, 1, 2, 3]) == Dist.die(3)
        True
        """
        return cls.from_weights(Counter(faces))

    @classmethod
    def bernoulli(cls, p: Fraction | int) -> Self:
        """True with probability ``p``, else False.

        >>> Dist.bernoulli(Fraction(1, 3)).p(True)
        Fraction(1, 3)
        """
        if not 0 <= p <= 1:
            raise ValueError(f"a probability must be between 0 and 1, not {p}")
        return cls.from_weights({True: p, False: 1 - p})

    @classmethod
    def binomial(cls, n: int, p: Fraction | int) -> Self:
        """Number of successes among ``n`` independent trials of probability ``p``.

        >>> Dist.binomial(2, Fraction(1, 2)).probabilities()
        {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
        """
        return cls.bernoulli(p).count_successes(n)

    @classmethod
    def mixture(cls, components: Iterable[tuple[Any, Any]]) -> Self:
        """Pick one component with probability proportional to its weight, then roll it.

        >>> unsaved = Fraction(1, 6)
        >>> Dist.mixture([(1 - unsaved, 0), (unsaved, Dist.die(6))]).p(0)
        Fraction(5, 6)
        """
        return cls._mix([(w, cls._coerce(d)) for w, d in components], 0)

    # queries
    @property
    def total_weight(self) -> Any:
        """The common denominator of the weights (truncated weight included); 1.0 for FastDist.

        >>> Dist.from_weights({0: 2, 1: 4}).total_weight
        3
        """
        return self._denom

    @property
    def truncated(self) -> Any:
        """Probability mass cut off by an explicit bound (never renormalised away).

        >>> Dist.die(6).explode(lambda v: v == 6, depth=0).truncated
        Fraction(1, 6)
        """
        return self._ratio(self._trunc)

    def outcomes(self) -> tuple[Outcome, ...]:
        """The possible outcomes, sorted.

        >>> (Dist.die(2) + Dist.die(2)).outcomes()
        (2, 3, 4)
        """
        return tuple(o for o, _ in self._items)

    def probabilities(self) -> dict[Outcome, Any]:
        """Outcome -> probability (Fraction for Dist, float for FastDist), sorted by outcome.

        >>> FastDist.die(2).probabilities()
        {1: 0.5, 2: 0.5}
        """
        return {o: self._ratio(w) for o, w in self._items}

    @cached_property
    def _weights(self) -> dict[Outcome, Any]:
        return dict(self._items)

    def p(self, outcome: Outcome) -> Any:
        """Probability of one outcome (0 if impossible).

        >>> Dist.die(6).p(7)
        Fraction(0, 1)
        """
        return self._ratio(self._weights.get(outcome, 0))

    def p_where(self, predicate: Callable[[Any], bool]) -> Any:
        """Probability that the outcome satisfies ``predicate``.

        >>> Dist.die(6).p_where(lambda v: v % 2 == 0)
        Fraction(1, 2)
        """
        return self._ratio(sum((w for o, w in self._items if predicate(o)), 0))

    def p_at_least(self, v: Any) -> Any:
        """P(outcome >= v).

        >>> Dist.die(6).p_at_least(5)
        Fraction(1, 3)
        """
        return self.p_where(lambda o: o >= v)

    def p_at_most(self, v: Any) -> Any:
        """P(outcome <= v).

        >>> Dist.die(6).p_at_most(2)
        Fraction(1, 3)
        """
        return self.p_where(lambda o: o <= v)

    def mean(self) -> Any:
        """Sum of outcome x probability (over the retained mass if something was truncated).

        >>> Dist.die(6).mean()
        Fraction(7, 2)
        """
        return self._ratio(sum((o * w for o, w in self._items), 0))

    def variance(self) -> Any:
        """Sum of probability x (outcome - mean)^2 (over the retained mass, like ``mean``).

        >>> Dist.die(6).variance()
        Fraction(35, 12)
        """
        d = self._denom
        m = sum((o * w for o, w in self._items), 0)  # mean * d
        return self._ratio(sum((w * (d * o - m) ** 2 for o, w in self._items), 0)) / (d * d)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        raise TypeError(
            f"a {type(self).__name__} has no truth value: use .p(True) or .p_where(...) for a "
            "probability, or == to compare two distributions structurally")

    def __repr__(self) -> str:
        name = type(self).__name__
        if len(self._items) > 12 or (isinstance(self._denom, int) and self._denom > 10**12):
            lo, hi = (self._items[0][0], self._items[-1][0]) if self._items else (None, None)
            text = f"<{name}: {len(self)} outcomes {lo!r}..{hi!r}>"
        else:
            text = f"{name}.from_weights({dict(self._items)!r})"
        return text + (f" [truncated {self.truncated}]" if self._trunc else "")

    # combinators
    def map(self, f: Callable[[Any], Outcome]) -> Self:
        """Apply ``f`` to each outcome; equal results merge.

        >>> Dist.die(6).map(lambda v: (v + 1) // 2) == Dist.die(3)
        True
        """
        return self._from_pairs(((f(o), w) for o, w in self._items), self._trunc)

    def binary(self, op: Op, other: object) -> Self:
        """Combine with an independent roll (or a constant): the one funnel for two-operand ops.

        ``op`` is a name ('+', '-', '*', '//', '%', 'max', 'min', 'and', 'or', '==', '!=', '<',
        '<=', '>', '>=') or any function of two outcomes. '+' and '-' are element-wise on tuples.

        >>> Dist.die(6).binary('max', Dist.die(6)).p(6)
        Fraction(11, 36)
        """
        name, fn = _resolve_op(op)
        o = self._coerce(other)
        fast = self._fast_binary(name, o)
        if fast is not None:
            return fast
        trunc = self._denom * o._denom - (self._denom - self._trunc) * (o._denom - o._trunc)
        return self._from_pairs(
            ((fn(a, b), wa * wb) for a, wa in self._items for b, wb in o._items), trunc)

    def bind(self, f: Callable[[Any], Any]) -> Self:
        """Roll, then roll ``f(outcome)`` (a distribution or a plain outcome): the mixture.

        >>> Dist.die(6).bind(lambda v: Dist.die(6) if v >= 4 else 0).p(0)
        Fraction(1, 2)
        """
        return self._mix([(w, self._coerce(f(o))) for o, w in self._items], self._trunc)

    then = bind

    def convolve_power(self, n: int) -> Self:
        """Sum of ``n`` independent copies (``n @ dist`` is the same).

        >>> Dist.die(6).convolve_power(2).p(12)
        Fraction(1, 36)
        """
        if not isinstance(n, int) or n < 0:
            raise ValueError(f"the number of copies must be an int >= 0, not {n!r}")
        if n == 0:
            return self.const(_zero_like(self._items[0][0]) if self._items else 0)
        if n == 1:
            return self
        fast = self._fast_power(n)
        if fast is not None:
            return fast
        result, base = None, self
        while True:  # repeated squaring
            if n & 1:
                result = base if result is None else result.binary("+", base)
            n >>= 1
            if not n:
                assert result is not None
                return result
            base = base.binary("+", base)

    sum_of = convolve_power

    def sum_of_random(self, count: object) -> Self:
        """Sum of a random number of independent copies (e.g. D6 attacks, each D3 damage).

        >>> Dist.die(3).sum_of_random(Dist.die(2)).probabilities()[6]
        Fraction(1, 18)
        """
        counts = self._coerce(count)
        if not all(_is_int(k) and k >= 0 for k in counts.outcomes()):
            raise ValueError(f"a count must have integer outcomes >= 0, got {counts.outcomes()}")
        if counts._items and counts._items[-1][0] > 0:
            fast = self._fast_sum_random(counts, int(counts._items[-1][0]))
            if fast is not None:
                return fast
        powers = [self.convolve_power(0)]
        for k in range(1, max(counts.outcomes(), default=0) + 1):
            powers.append(self if k == 1 else powers[-1].binary("+", self))
        return counts.bind(lambda k: powers[k])

    def _indicator(self) -> Self:
        if not all(isinstance(o, (bool, np.bool_)) for o in self.outcomes()):
            raise TypeError("counting successes needs a distribution over True/False; "
                            "make one with a comparison, e.g. Dist.die(6) >= 4")
        return self.map(int)

    def count_successes(self, n: int) -> Self:
        """Number of True among ``n`` independent copies of a Bernoulli distribution.

        >>> (Dist.die(6) >= 4).count_successes(3).p(3)
        Fraction(1, 8)
        """
        return self._indicator().convolve_power(n)

    def count_successes_random(self, count: object) -> Self:
        """Number of True among a random number of independent copies.

        >>> (Dist.die(6) >= 4).count_successes_random(Dist.die(2)).p(0)
        Fraction(3, 8)
        """
        return self._indicator().sum_of_random(count)

    def clamp(self, lo: Any = None, hi: Any = None) -> Self:
        """Outcomes below ``lo`` become ``lo``; above ``hi`` become ``hi``.

        >>> Dist.die(6).clamp(2, 5).p(2)
        Fraction(1, 3)
        """
        def f(o: Any) -> Any:
            o = o if lo is None or o >= lo else lo
            return o if hi is None or o <= hi else hi
        return self.map(f)

    def max_with(self, other: object) -> Self:
        """The higher of this roll and an independent ``other``.

        >>> Dist.die(6).max_with(Dist.die(6)).p(1)
        Fraction(1, 36)
        """
        return self.binary("max", other)

    def min_with(self, other: object) -> Self:
        """The lower of this roll and an independent ``other``.

        >>> Dist.die(6).min_with(3).p(3)
        Fraction(2, 3)
        """
        return self.binary("min", other)

    def reroll(self, predicate: Callable[[Any], bool], times: int = 1) -> Self:
        """Re-roll outcomes matching ``predicate``, up to ``times`` times; keep the last roll.

        >>> Dist.die(6).reroll(lambda v: v == 1).p(1)
        Fraction(1, 36)
        """
        result = self
        for _ in range(times):
            def step(o: Any, prev: Self = result) -> Any:
                return prev if predicate(o) else o
            result = self.bind(step)
        return result

    def _cut(self, predicate: Callable[[Any], bool]) -> Self:
        cut = sum((w for o, w in self._items if predicate(o)), 0)
        return self._from_pairs(((o, w) for o, w in self._items if not predicate(o)),
                                self._trunc + cut)

    def explode(self, predicate: Callable[[Any], bool], depth: int) -> Self:
        """Add another roll while ``predicate`` holds, at most ``depth`` extra rolls.

        A branch that would need more than ``depth`` extra rolls is cut off: its mass goes to
        ``.truncated``, the rest is not renormalised.

        >>> e = Dist.die(6).explode(lambda v: v == 6, depth=1)
        >>> e.p(7), e.truncated
        (Fraction(1, 36), Fraction(1, 36))
        """
        if depth < 0:
            raise ValueError("depth must be >= 0")
        level = self._cut(predicate)
        for _ in range(depth):
            def step(o: Any, rest: Self = level) -> Any:
                return rest.map(lambda x: _vadd(o, x)) if predicate(o) else o
            level = self.bind(step)
        return level

    # operators: all arithmetic goes through binary()
    def __add__(self, other: object) -> Self:
        return self.binary("+", other)

    def __radd__(self, other: object) -> Self:
        return self._coerce(other).binary("+", self)

    def __sub__(self, other: object) -> Self:
        return self.binary("-", other)

    def __rsub__(self, other: object) -> Self:
        return self._coerce(other).binary("-", self)

    def __mul__(self, other: object) -> Self:
        return self.binary("*", other)

    def __rmul__(self, other: object) -> Self:
        return self._coerce(other).binary("*", self)

    def __floordiv__(self, other: object) -> Self:
        return self.binary("//", other)

    def __rfloordiv__(self, other: object) -> Self:
        return self._coerce(other).binary("//", self)

    def __neg__(self) -> Self:
        return self._coerce(0).binary("-", self)

    def __lt__(self, other: object) -> Self:
        return self.binary("<", other)

    def __le__(self, other: object) -> Self:
        return self.binary("<=", other)

    def __gt__(self, other: object) -> Self:
        return self.binary(">", other)

    def __ge__(self, other: object) -> Self:
        return self.binary(">=", other)

    def __matmul__(self, other: object) -> Self:
        return self._coerce(other).sum_of_random(self)  # self is the count

    def __rmatmul__(self, other: object) -> Self:
        if isinstance(other, int):
            return self.convolve_power(other)
        return NotImplemented


_DICE: dict[tuple[type, int], Any] = {}  # Dist.die(n) and FastDist.die(n), memoised


# --- exact backend ------------------------------------------------------------------------


class Dist(_Base):
    """Exact distribution: integer weights over a common denominator, Fraction answers.

    >>> Dist.from_weights({"hit": 2, "miss": 1}).p("hit")
    Fraction(2, 3)
    """

    _denom: int
    _trunc: int

    @classmethod
    def _new(cls, items: Sequence[tuple[Outcome, int]], trunc: int, *, presorted: bool = False,
             reduce: bool = True) -> Dist:
        if reduce:
            g = math.gcd(trunc, *(w for _, w in items))
            if g > 1:
                items = [(o, w // g) for o, w in items]
                trunc //= g
        denom = sum(w for _, w in items) + trunc
        if denom <= 0:
            raise ValueError("a distribution needs a positive total weight")
        self = object.__new__(cls)
        self.__dict__.update(_items=tuple(items) if presorted else _sorted(items),
                             _denom=denom, _trunc=trunc)
        return self

    @classmethod
    def _from_pairs(cls, pairs: Iterable[tuple[Outcome, int]], trunc: int) -> Dist:
        acc: dict[Outcome, int] = defaultdict(int)
        for o, w in pairs:
            acc[o] += w
        return cls._new([(o, w) for o, w in acc.items() if w], trunc)

    @classmethod
    def from_weights(cls, weights: Mapping[Outcome, int | Fraction]) -> Dist:
        """From outcome -> weight (int or Fraction); weights need not sum to 1.

        >>> Dist.from_weights({1: Fraction(1, 2), 2: Fraction(1, 4)}).p(1)
        Fraction(2, 3)
        """
        ws = _int_weights(list(weights.values()))
        return cls._from_pairs(zip(weights.keys(), ws), 0)

    @classmethod
    def _mix(cls, weighted: Sequence[tuple[Any, Dist]], outer_trunc: Any) -> Dist:
        *ws, t = _int_weights([w for w, _ in weighted] + [outer_trunc])
        if sum(ws) + t <= 0:
            raise ValueError("mixture weights must be non-negative with a positive sum")
        scale = math.lcm(*(d._denom for _, d in weighted))
        acc: dict[Outcome, int] = defaultdict(int)
        trunc = t * scale
        for w, (_, d) in zip(ws, weighted):
            if w:
                k = w * (scale // d._denom)
                for o, x in d._items:
                    acc[o] += k * x
                trunc += k * d._trunc
        return cls._new([(o, w) for o, w in acc.items() if w], trunc)

    def _ratio(self, weight: Any) -> Fraction:
        return Fraction(weight, self._denom)

    @cached_property
    def _poly(self) -> tuple[int, Any] | None:
        """(lowest outcome, fmpz_poly of weights) for dense integer outcomes, else None."""
        items = self._items
        if not items or not all(type(o) is int or type(o) is bool for o, _ in items):
            return None
        lo, hi = int(items[0][0]), int(items[-1][0])
        if hi - lo + 1 > 16 * len(items) + 64:
            return None  # too sparse for a dense polynomial
        coeffs = [0] * (hi - lo + 1)
        for o, w in items:
            coeffs[o - lo] = w
        return lo, flint.fmpz_poly(coeffs)

    @classmethod
    def _from_poly(cls, lo: int, poly: Any, trunc: int, reduce: bool = True) -> Dist:
        items = [(lo + i, c) for i, c in enumerate(map(int, poly.coeffs())) if c]
        return cls._new(items, trunc, presorted=True, reduce=reduce)

    def _fast_binary(self, name: str | None, other: Dist) -> Dist | None:
        if name not in ("+", "-") or self._poly is None or other._poly is None:
            return None
        (la, pa), (lb, pb) = self._poly, other._poly
        if name == "-":
            coeffs = pb.coeffs()
            lb, pb = -(lb + len(coeffs) - 1), flint.fmpz_poly(coeffs[::-1])
        trunc = self._denom * other._denom - (self._denom - self._trunc) * (
            other._denom - other._trunc)
        return self._from_poly(la + lb, pa * pb, trunc)

    def _fast_power(self, n: int) -> Dist | None:
        if self._poly is None:
            return None
        lo, poly = self._poly
        denom, mass = self._denom, self._denom - self._trunc
        # No gcd needed: a power of a reduced distribution is reduced (Gauss's lemma).
        return self._from_poly(lo * n, poly**n, denom**n - mass**n, reduce=False)

    def _fast_sum_random(self, counts: Dist, most: int) -> Dist | None:
        if self._poly is None:
            return None
        lo, poly = self._poly
        denom, mass = self._denom, self._denom - self._trunc
        base = min(0, most * lo)  # lowest possible total
        weight = dict(counts._items)
        acc, kept, power = flint.fmpz_poly([]), 0, flint.fmpz_poly([1])
        for k in range(most + 1):  # powers incrementally, mixed by the count's weights
            if k:
                power *= poly
            if weight.get(k):
                scale = weight[k] * denom ** (most - k)
                acc += (power * scale).left_shift(k * lo - base)
                kept += scale * mass**k
        return self._from_poly(base, acc, counts._denom * denom**most - kept)

    def to_fast(self) -> FastDist:
        """The float64 version (integer outcomes only).

        >>> Dist.die(4).to_fast().p(2)
        0.25
        """
        return FastDist._from_pairs(((o, w / self._denom) for o, w in self._items),
                                    self._trunc / self._denom)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Dist):
            return NotImplemented
        return (self._denom, self._trunc, self._items) == (other._denom, other._trunc, other._items)

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self._denom, self._trunc, self._items))


def _int_weights(ws: list[Any]) -> list[int]:
    """Scale int/Fraction weights to integers with a common denominator."""
    for w in ws:
        if isinstance(w, float) or not isinstance(w, (int, Fraction)):
            raise TypeError(f"exact weights must be int or Fraction, not {w!r}; "
                            "use FastDist for float weights")
        if w < 0:
            raise ValueError(f"weights must be non-negative, not {w}")
    scale = math.lcm(*(Fraction(w).denominator for w in ws))
    return [int(w * scale) for w in ws]


# --- float backend ------------------------------------------------------------------------


_ONE = np.ones(1)
_ONE.flags.writeable = False
_UFUNCS: dict[str, Any] = {
    "*": np.multiply, "//": np.floor_divide, "%": np.mod, "max": np.maximum,
    "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or, "==": np.equal,
    "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
    ">=": np.greater_equal,
}


class FastDist(_Base):
    """Float64 distribution over integer (or boolean) outcomes: dense array + offset.

    >>> round(FastDist.die(6).sum_of(2).p(7), 12)
    0.166666666667
    """

    _MAX_SPAN = 10_000_000
    _lo: int
    _p: np.ndarray
    _bool: bool

    @classmethod
    def _new(cls, lo: int, p: np.ndarray, trunc: float, is_bool: bool) -> FastDist:
        if p.size and not (p[0] and p[-1]):  # trim zero ends
            nz = np.flatnonzero(p)
            if nz.size:
                lo, p = lo + int(nz[0]), p[nz[0]:nz[-1] + 1]
            else:
                lo, p, is_bool = 0, p[:0], False
        p.flags.writeable = False
        self = object.__new__(cls)
        self.__dict__.update(_lo=int(lo), _p=p, _trunc=float(trunc), _bool=bool(is_bool),
                             _denom=1.0)
        return self

    @classmethod
    def const(cls, value: Outcome) -> FastDist:
        """A certain integer outcome (a shortcut of ``_Base.const`` for speed).

        >>> FastDist.const(3).p(3)
        1.0
        """
        if not _is_int(value):
            raise TypeError(f"FastDist holds integer outcomes, not {value!r}; use Dist")
        return cls._new(int(value), _ONE, 0.0, isinstance(value, (bool, np.bool_)))

    @cached_property
    def _items(self) -> tuple[tuple[Outcome, float], ...]:  # type: ignore[override]
        kind = bool if self._bool else int
        return tuple((kind(self._lo + i), float(self._p[i])) for i in np.flatnonzero(self._p))

    @classmethod
    def _from_pairs(cls, pairs: Iterable[tuple[Outcome, float]], trunc: float) -> FastDist:
        acc: dict[Any, float] = defaultdict(float)
        for o, w in pairs:
            if not _is_int(o):
                raise TypeError(f"FastDist holds integer outcomes, not {o!r}; use Dist")
            acc[o] += w
        if not acc:
            return cls._new(0, np.zeros(0), trunc, False)
        lo, hi = int(min(acc)), int(max(acc))
        if hi - lo >= cls._MAX_SPAN:
            raise ValueError(f"outcomes {lo}..{hi} are too spread out for FastDist; use Dist")
        p = np.zeros(hi - lo + 1)
        for o, w in acc.items():
            p[int(o) - lo] += w
        return cls._new(lo, p, trunc, all(isinstance(o, (bool, np.bool_)) for o in acc))

    @classmethod
    def from_weights(cls, weights: Mapping[Outcome, Any]) -> FastDist:
        """From integer outcome -> weight (int, Fraction or float), normalised.

        >>> FastDist.from_weights({0: 3, 1: 1}).p(1)
        0.25
        """
        if any(w < 0 for w in weights.values()):
            raise ValueError("weights must be non-negative")
        total = float(sum(weights.values()))
        if total <= 0:
            raise ValueError("a distribution needs a positive total weight")
        return cls._from_pairs(((o, float(w) / total) for o, w in weights.items()), 0.0)

    @classmethod
    def _mix(cls, weighted: Sequence[tuple[Any, FastDist]], outer_trunc: Any) -> FastDist:
        ws = [float(w) for w, _ in weighted]
        total = sum(ws) + float(outer_trunc)
        if total <= 0 or min(ws, default=0.0) < 0:
            raise ValueError("mixture weights must be non-negative with a positive sum")
        trunc, parts, is_bool = float(outer_trunc), [], True
        for w, (_, d) in zip(ws, weighted):
            if w:
                trunc += w * d._trunc
                if d._p.size:
                    parts.append((w / total, d))
                    is_bool = is_bool and d._bool
        if not parts:
            return cls._new(0, np.zeros(0), trunc / total, False)
        lo = min([d._lo for _, d in parts])
        out = np.zeros(max([d._lo + d._p.size for _, d in parts]) - lo)
        for w, d in parts:
            if d._p.size == 1:  # a constant: skip the array temporaries
                out[d._lo - lo] += w * float(d._p[0])
            else:
                out[d._lo - lo:d._lo - lo + d._p.size] += w * d._p
        return cls._new(lo, out, trunc / total, is_bool)

    def _ratio(self, weight: Any) -> float:
        return float(weight)

    def _fast_binary(self, name: str | None, other: FastDist) -> FastDist | None:
        a, b = self._p, other._p
        trunc = 1.0 - (1.0 - self._trunc) * (1.0 - other._trunc)
        if not a.size or not b.size:
            return self._new(0, np.zeros(0), trunc, False)
        if name == "+":
            return self._new(self._lo + other._lo, np.convolve(a, b), trunc, False)
        if name == "-":
            hi_b = other._lo + b.size - 1
            return self._new(self._lo - hi_b, np.convolve(a, b[::-1]), trunc, False)
        ufunc = _UFUNCS.get(name or "")
        if ufunc is None or (name in ("//", "%") and other._lo <= 0 < other._lo + b.size
                             and b[-other._lo] > 0):
            return None  # generic path (raises ZeroDivisionError like Python)
        va = np.arange(self._lo, self._lo + a.size)
        vb = np.arange(other._lo, other._lo + b.size)
        vals = ufunc.outer(va, vb).ravel().astype(np.int64)
        lo = int(vals.min())
        p = np.bincount(vals - lo, weights=np.outer(a, b).ravel())
        is_bool = name in _COMPARISONS or (
            name in ("max", "min", "and", "or") and self._bool and other._bool)
        return self._new(lo, p, trunc, is_bool)

    def _fast_power(self, n: int) -> FastDist:
        trunc = 1.0 - (1.0 - self._trunc) ** n
        if not self._p.size:
            return self._new(0, self._p, trunc, False)
        result, base, k = None, self._p, n
        while True:  # repeated squaring
            if k & 1:
                result = base if result is None else np.convolve(result, base)
            k >>= 1
            if not k:
                break
            base = np.convolve(base, base)
        assert result is not None
        return self._new(self._lo * n, result, trunc, False)

    def _fast_sum_random(self, counts: FastDist, most: int) -> FastDist | None:
        p, lo, span = self._p, self._lo, self._p.size - 1
        if not p.size:
            return None
        base = min(0, most * lo)
        out = np.zeros(max(-base, most * (lo + span) - base) + 1)
        weight = dict(counts._items)
        trunc, power = counts._trunc, _ONE
        for k in range(most + 1):  # powers incrementally, mixed by the count's weights
            if k:
                power = np.convolve(power, p)
            if weight.get(k):
                start = k * lo - base
                out[start:start + power.size] += weight[k] * power
                trunc += weight[k] * (1.0 - (1.0 - self._trunc) ** k)
        return self._new(base, out, trunc, False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FastDist):
            return NotImplemented
        return ((self._lo, self._trunc, self._bool) == (other._lo, other._trunc, other._bool)
                and np.array_equal(self._p, other._p))

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self._lo, self._p.tobytes(), self._trunc, self._bool))


def agree(exact: Dist, fast: FastDist, tol: float = 1e-12) -> bool:
    """True if every probability (and the truncated mass) agrees within ``tol``.

    >>> agree(Dist.die(6).reroll(lambda v: v == 1), FastDist.die(6).reroll(lambda v: v == 1))
    True
    """
    pe, pf = exact.probabilities(), fast.probabilities()
    return abs(float(exact.truncated) - fast.truncated) <= tol and all(
        abs(float(pe.get(o, 0)) - pf.get(o, 0.0)) <= tol for o in set(pe) | set(pf))
