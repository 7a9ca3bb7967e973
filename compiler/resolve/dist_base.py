"""The distribution API shared by both backends, and how outcomes order and add up.

:class:`DistBase` holds every combinator (map, binary, bind, convolve_power, reroll,
explode…) in terms of a few storage hooks (``_new``, ``_from_pairs``, ``_mix`` and the
``_fast_*`` paths) that :class:`~compiler.resolve.dist_exact.Dist` (exact) and
:class:`~compiler.resolve.dist_fast.FastDist` (float64) supply.  Import the backends from
:mod:`compiler.resolve.dist`.
"""

from __future__ import annotations

import dataclasses
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any, Self, TypeAlias

import numpy as np

Outcome: TypeAlias = Any  # any hashable value; int (and bool) outcomes have the fast paths
Op: TypeAlias = str | Callable[[Any, Any], Any]


# --- outcomes: ordering and arithmetic ---------------------------------------------------


def _sort_key(o: Outcome) -> tuple[Any, ...]:
    if isinstance(o, tuple):
        return ("tuple", tuple(_sort_key(x) for x in o))
    if isinstance(o, (int, float, Fraction)):  # bool included: numbers compare by value
        return ("", o)
    return (type(o).__name__, o)


def _fields_key(t: type) -> Callable[[Any], Any] | None:
    """For an ordered dataclass: its fields as a tuple, which order its values the same way
    without a comparison method written in Python per pair (the tests' Roll outcomes)."""
    if t not in _FIELDS_KEYS:
        params = getattr(t, "__dataclass_params__", None)
        _FIELDS_KEYS[t] = operator.attrgetter(*(f.name for f in dataclasses.fields(t))) \
            if params is not None and params.order and len(dataclasses.fields(t)) > 1 else None
    return _FIELDS_KEYS[t]


_FIELDS_KEYS: dict[type, Callable[[Any], Any] | None] = {}


def sorted_pairs(pairs: Iterable[tuple[Outcome, Any]]) -> tuple[tuple[Outcome, Any], ...]:
    """Sort (outcome, weight) pairs by outcome; mixed types by (type name, value), then repr."""
    pairs = list(pairs)
    if len(pairs) > 1:
        t = type(pairs[0][0])
        fields = _fields_key(t)
        if fields is not None and all(type(o) is t for o, _ in pairs):
            try:
                return tuple(sorted(pairs, key=lambda kv: fields(kv[0])))
            except TypeError:
                pass  # then as below: the dataclass's own comparison fails the same way
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
COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})
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


def is_int(o: object) -> bool:
    return isinstance(o, (int, np.integer))


# --- the API, shared by both backends -----------------------------------------------------


class DistBase:
    """The distribution API; :class:`Dist` and :class:`FastDist` supply storage and fast paths.

    >>> from compiler.resolve.dist import Dist, FastDist, agree
    >>> [cls.__mro__[1].__name__ for cls in (Dist, FastDist)]
    ['DistBase', 'DistBase']
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
        if isinstance(x, DistBase):
            raise TypeError(f"cannot combine {type(x).__name__} with {cls.__name__}; "
                            "use one backend (Dist.to_fast() converts)")
        return cls.const(x)

    # constructors
    @classmethod
    def die(cls, n: int) -> Self:
        """A fair die with faces 1..n.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.const(4).p(4)
        Fraction(1, 1)
        """
        return cls.from_weights({value: 1})

    @classmethod
    def from_faces(cls, faces: Iterable[Outcome]) -> Self:
        """A fair die with these faces (repeats allowed), e.g. a D3 written on a D6.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.from_faces([1, 2, 3, 1, 2, 3]) == Dist.die(3)
        True
        """
        return cls.from_weights(Counter(faces))

    @classmethod
    def bernoulli(cls, p: Fraction | int | float) -> Self:
        """True with probability ``p``, else False.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.bernoulli(Fraction(1, 3)).p(True)
        Fraction(1, 3)
        """
        if not 0 <= p <= 1:
            raise ValueError(f"a probability must be between 0 and 1, not {p}")
        return cls.from_weights({True: p, False: 1 - p})

    @classmethod
    def binomial(cls, n: int, p: Fraction | int | float) -> Self:
        """Number of successes among ``n`` independent trials of probability ``p``.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.binomial(2, Fraction(1, 2)).probabilities()
        {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
        """
        return cls.bernoulli(p).count_successes(n)

    @classmethod
    def mixture(cls, components: Iterable[tuple[Any, Any]]) -> Self:
        """Pick one component with probability proportional to its weight, then roll it.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> unsaved = Fraction(1, 6)
        >>> Dist.mixture([(1 - unsaved, 0), (unsaved, Dist.die(6))]).p(0)
        Fraction(5, 6)
        """
        return cls._mix([(w, cls._coerce(d)) for w, d in components], 0)

    # queries
    @property
    def total_weight(self) -> Any:
        """The common denominator of the weights (truncated weight included); 1.0 for FastDist.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.from_weights({0: 2, 1: 4}).total_weight
        3
        """
        return self._denom

    @property
    def truncated(self) -> Any:
        """Probability mass cut off by an explicit bound (never renormalised away).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).explode(lambda v: v == 6, depth=0).truncated
        Fraction(1, 6)
        """
        return self._ratio(self._trunc)

    def outcomes(self) -> tuple[Outcome, ...]:
        """The possible outcomes, sorted.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> (Dist.die(2) + Dist.die(2)).outcomes()
        (2, 3, 4)
        """
        return self._outcomes

    @cached_property
    def _outcomes(self) -> tuple[Outcome, ...]:  # immutable: listed once, however often it is asked
        return tuple(o for o, _ in self._items)

    def probabilities(self) -> dict[Outcome, Any]:
        """Outcome -> probability (Fraction for Dist, float for FastDist), sorted by outcome.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> FastDist.die(2).probabilities()
        {1: 0.5, 2: 0.5}
        """
        return {o: self._ratio(w) for o, w in self._items}

    _weights = cached_property(lambda self: dict(self._items))  # outcome -> weight, built once

    def p(self, outcome: Outcome) -> Any:
        """Probability of one outcome (0 if impossible).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).p(7)
        Fraction(0, 1)
        """
        return self._ratio(self._weights.get(outcome, 0))

    def p_where(self, predicate: Callable[[Any], bool]) -> Any:
        """Probability that the outcome satisfies ``predicate``.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).p_where(lambda v: v % 2 == 0)
        Fraction(1, 2)
        """
        return self._ratio(sum((w for o, w in self._items if predicate(o)), 0))

    def p_at_least(self, v: Any) -> Any:
        """P(outcome >= v).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).p_at_least(5)
        Fraction(1, 3)
        """
        return self.p_where(lambda o: o >= v)

    def p_at_most(self, v: Any) -> Any:
        """P(outcome <= v).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).p_at_most(2)
        Fraction(1, 3)
        """
        return self.p_where(lambda o: o <= v)

    def mean(self) -> Any:
        """Sum of outcome x probability (over the retained mass if something was truncated).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).mean()
        Fraction(7, 2)
        """
        return self._ratio(sum((o * w for o, w in self._items), 0))

    def variance(self) -> Any:
        """Sum of probability x (outcome - mean)^2 (over the retained mass, like ``mean``).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).map(lambda v: (v + 1) // 2) == Dist.die(3)
        True
        """
        return self._from_pairs(((f(o), w) for o, w in self._items), self._trunc)

    def binary(self, op: Op, other: object) -> Self:
        """Combine with an independent roll (or a constant): the one funnel for two-operand ops.

        ``op`` is a name ('+', '-', '*', '//', '%', 'max', 'min', 'and', 'or', '==', '!=', '<',
        '<=', '>', '>=') or any function of two outcomes. '+' and '-' are element-wise on tuples.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).bind(lambda v: Dist.die(6) if v >= 4 else 0).p(0)
        Fraction(1, 2)
        """
        return self._mix([(w, self._coerce(f(o))) for o, w in self._items], self._trunc)

    then = bind

    def convolve_power(self, n: int) -> Self:
        """Sum of ``n`` independent copies (``n @ dist`` is the same).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(3).sum_of_random(Dist.die(2)).probabilities()[6]
        Fraction(1, 18)
        """
        counts = self._coerce(count)
        if not all(is_int(k) and k >= 0 for k in counts.outcomes()):
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> (Dist.die(6) >= 4).count_successes(3).p(3)
        Fraction(1, 8)
        """
        return self._indicator().convolve_power(n)

    def count_successes_random(self, count: object) -> Self:
        """Number of True among a random number of independent copies.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> (Dist.die(6) >= 4).count_successes_random(Dist.die(2)).p(0)
        Fraction(3, 8)
        """
        return self._indicator().sum_of_random(count)

    def clamp(self, lo: Any = None, hi: Any = None) -> Self:
        """Outcomes below ``lo`` become ``lo``; above ``hi`` become ``hi``.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).clamp(2, 5).p(2)
        Fraction(1, 3)
        """
        def f(o: Any) -> Any:
            o = o if lo is None or o >= lo else lo
            return o if hi is None or o <= hi else hi
        return self.map(f)

    def max_with(self, other: object) -> Self:
        """The higher of this roll and an independent ``other``.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).max_with(Dist.die(6)).p(1)
        Fraction(1, 36)
        """
        return self.binary("max", other)

    def min_with(self, other: object) -> Self:
        """The lower of this roll and an independent ``other``.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).min_with(3).p(3)
        Fraction(2, 3)
        """
        return self.binary("min", other)

    def reroll(self, predicate: Callable[[Any], bool], times: int = 1) -> Self:
        """Re-roll outcomes matching ``predicate``, up to ``times`` times; keep the last roll.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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

