"""The float64 backend: a dense NumPy array of probabilities plus an offset (integer outcomes)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from compiler.resolve.dist_base import COMPARISONS, DistBase, Outcome, is_int

_ONE = np.ones(1)
_ONE.flags.writeable = False
_UFUNCS: dict[str, Any] = {
    "*": np.multiply, "//": np.floor_divide, "%": np.mod, "max": np.maximum,
    "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or, "==": np.equal,
    "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
    ">=": np.greater_equal,
}


class FastDist(DistBase):
    """Float64 distribution over integer (or boolean) outcomes: dense array + offset.

    >>> from compiler.resolve.dist import Dist, FastDist, agree
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
        """A certain integer outcome (a shortcut of ``DistBase.const`` for speed).

        >>> from compiler.resolve.dist import Dist, FastDist, agree
        >>> FastDist.const(3).p(3)
        1.0
        """
        if not is_int(value):
            raise TypeError(f"FastDist holds integer outcomes, not {value!r}; use Dist")
        return cls._new(int(value), _ONE, 0.0, isinstance(value, (bool, np.bool_)))

    @cached_property
    def _items(self) -> tuple[tuple[Outcome, float], ...]:  # type: ignore[override]  # computed from the array, where the base stores it
        kind = bool if self._bool else int
        return tuple((kind(self._lo + i), float(self._p[i])) for i in np.flatnonzero(self._p))

    @classmethod
    def _from_pairs(cls, pairs: Iterable[tuple[Outcome, float]], trunc: float) -> FastDist:
        acc: dict[Any, float] = defaultdict(float)
        for o, w in pairs:
            if not is_int(o):
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

        >>> from compiler.resolve.dist import Dist, FastDist, agree
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
        is_bool = name in COMPARISONS or (
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


