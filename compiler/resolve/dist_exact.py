"""The exact backend: integer weights over one common denominator, Fraction answers.

Sums of integer outcomes are polynomial products (python-flint ``fmpz_poly``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import flint

from compiler.resolve.dist_base import DistBase, Outcome, sorted_pairs
from compiler.resolve.dist_fast import FastDist



class Dist(DistBase):
    """Exact distribution: integer weights over a common denominator, Fraction answers.

    >>> from compiler.resolve.dist import Dist, FastDist, agree
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
        self.__dict__.update(_items=tuple(items) if presorted or len(items) < 2 else sorted_pairs(items),
                             _denom=denom, _trunc=trunc)
        return self

    @classmethod
    def const(cls, value: Outcome) -> Dist:
        """A certain outcome (built directly: the most common distribution of all).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.const(4) == Dist.from_weights({4: 1})
        True
        """
        hash(value)  # an unhashable outcome fails here, as in a mapping of weights
        self = object.__new__(cls)
        self.__dict__.update(_items=((value, 1),), _denom=1, _trunc=0)
        return self

    def map(self, f: Callable[[Any], Outcome]) -> Dist:
        """Apply ``f`` to each outcome; equal results merge (``DistBase.map``, in one loop).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(6).map(lambda v: v > 4).probabilities()
        {False: Fraction(2, 3), True: Fraction(1, 3)}
        """
        acc: dict[Outcome, int] = {}
        for o, w in self._items:
            k = f(o)
            acc[k] = acc.get(k, 0) + w
        return self._new([(o, w) for o, w in acc.items() if w], self._trunc)

    @classmethod
    def _from_pairs(cls, pairs: Iterable[tuple[Outcome, int]], trunc: int) -> Dist:
        acc: dict[Outcome, int] = {}
        for o, w in pairs:
            acc[o] = acc.get(o, 0) + w
        return cls._new([(o, w) for o, w in acc.items() if w], trunc)

    @classmethod
    def from_weights(cls, weights: Mapping[Outcome, int | Fraction]) -> Dist:
        """From outcome -> weight (int or Fraction); weights need not sum to 1.

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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
    def _from_poly(cls, lo: int, poly: Any, trunc: int, reduce: bool = True, denom: int | None = None) -> Dist:
        """The distribution whose weights are the coefficients of ``poly`` (outcome ``lo`` for
        the constant term).  The weights stay in the polynomial until something reads them:
        converting hundreds of big coefficients to Python ints costs more than the product
        that made them, and a sum that only feeds another sum never needs them.  ``denom``,
        when the caller knows it (with ``reduce`` off), is the coefficients' sum plus
        ``trunc``: then the polynomial is not evaluated at 1 to find it."""
        if poly.is_zero():  # no weight left
            return cls._new([], trunc, reduce=reduce)
        if poly[0] == 0:  # the lowest outcomes impossible: the lowest possible one comes first
            shift = next(i for i in range(poly.length()) if poly[i] != 0)
            lo, poly = lo + shift, poly.right_shift(shift)
        if reduce:
            g = math.gcd(int(poly.content()), trunc)
            if g > 1:
                poly, trunc = poly // g, trunc // g
        if denom is None or reduce:
            denom = int(poly(1)) + trunc
        if denom <= 0:
            raise ValueError("a distribution needs a positive total weight")
        self = object.__new__(cls)
        self.__dict__.update(_poly=(lo, poly), _denom=denom, _trunc=trunc)
        return self

    @cached_property
    def _items(self) -> tuple[tuple[Outcome, int], ...]:  # type: ignore[override]  # read from the polynomial, where the base stores it
        lo, poly = self.__dict__["_poly"]
        return tuple((lo + i, c) for i, c in enumerate(map(int, poly.coeffs())) if c)

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
        # No gcd needed: a power of a reduced distribution is reduced (Gauss's lemma).  The
        # weights of the power add up to mass**n, so with what is cut off they make denom**n.
        whole = denom**n
        return self._from_poly(lo * n, poly**n, whole - mass**n, reduce=False, denom=whole)

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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> Dist.die(4).to_fast().p(2)
        0.25
        """
        return self._fast

    @cached_property
    def _fast(self) -> FastDist:  # both are immutable: converted once, however often it is asked
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
    if all(type(w) is int and w >= 0 for w in ws):
        return ws
    for w in ws:
        if isinstance(w, float) or not isinstance(w, (int, Fraction)):
            raise TypeError(f"exact weights must be int or Fraction, not {w!r}; "
                            "use FastDist for float weights")
        if w < 0:
            raise ValueError(f"weights must be non-negative, not {w}")
    scale = math.lcm(*(Fraction(w).denominator for w in ws))
    return [int(w * scale) for w in ws]
