"""Probability distributions of dice mechanics: the resolver's engine.

Two backends behind one API (:class:`~compiler.resolve.dist_base.DistBase` holds the API, the
backends hold storage and fast paths):

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

The modules: :mod:`~compiler.resolve.dist_base` (the shared API, outcome ordering),
:mod:`~compiler.resolve.dist_exact` (:class:`Dist`), :mod:`~compiler.resolve.dist_fast`
(:class:`FastDist`); this module gathers them and compares the two.
"""

from __future__ import annotations

from compiler.resolve.dist_base import Outcome
from compiler.resolve.dist_exact import Dist
from compiler.resolve.dist_fast import FastDist

__all__ = ["Dist", "FastDist", "Outcome", "agree"]


def agree(exact: Dist, fast: FastDist, tol: float = 1e-12) -> bool:
    """True if every probability (and the truncated mass) agrees within ``tol``.

    >>> agree(Dist.die(6).reroll(lambda v: v == 1), FastDist.die(6).reroll(lambda v: v == 1))
    True
    """
    pe, pf = exact.probabilities(), fast.probabilities()
    return abs(float(exact.truncated) - fast.truncated) <= tol and all(
        abs(float(pe.get(o, 0)) - pf.get(o, 0.0)) <= tol for o in set(pe) | set(pf))
