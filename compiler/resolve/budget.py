"""How much work a question will take, estimated before the work starts: refused up front when too much.

Two places where the size of the answer is not visible in the question:

* an **attack step summed over all its attacks** — ``shooting(1000 guy, xgun, 10 guy)`` with
  D6 attacks each and *Sustained Hits* is a sum over up to 6,000 attacks of a per-attack
  count, and its exact chances are fractions with thousands of digits.
  :func:`attack_sum_work` estimates the work of the exact sum and of reading its chances
  (results × bits of their weights × bits again, more when the number of attacks is a roll)
  and :func:`refuse_attack_sum` refuses a step over :data:`~compiler.limits.MAX_ATTACK_WORK`,
  saying what to reduce — in well under a second, before any of it is summed.  The float
  backend (``--fast``) sums at a fixed cost per result and is only held to
  :data:`~compiler.limits.MAX_OUTCOMES`.
* **two rolls combined by ``*``, ``/`` (or a sparse ``+``, ``-``)** — ``d1000 / d999`` has a
  million pairs (within :data:`~compiler.limits.MAX_PAIRS`) but 607,983 different results;
  working each one out as an exact fraction takes many seconds before the result is found
  too big.  :func:`refuse_results` counts the different results of whole-number rolls with
  numpy first.

>>> from compiler.resolve.dist import Dist
>>> attack_sum_work(Dist.from_weights({0: 1, 1: 1}), 1000)   # 1,001 results of 1,000 bits
50050000
>>> distinct_results("*", Dist.die(6), Dist.die(6))         # 1..6 × 1..6: 18 products
18
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from compiler.limits import MAX_ATTACK_WORK, MAX_KEEP_WORK, MAX_OUTCOMES
from compiler.resolve.core import ResolveError, dense_sum, is_dist, unwrap
from compiler.resolve.dist import Dist, FastDist

#: How much faster a fraction is reduced (per bit²) than the polynomial sums work (per bit).
GCD_SPEED = 20
#: Outcomes as big as this are left to the ordinary check after the work (numpy's int64 is 63 bits).
_NUMPY_SAFE = 2**30


def _int_outcomes(d: Any) -> list[int] | None:
    """The whole-number outcomes of ``d`` (None when some are not whole numbers)."""
    outcomes = d.outcomes()
    if outcomes and all(type(o) is int for o in outcomes):  # plain whole numbers: nothing to unwrap
        return list(outcomes)
    values = [unwrap(o) for o in outcomes]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    return values


def _int_range(d: Any) -> tuple[int, int] | None:
    """The least and the greatest of ``d``'s outcomes when all are whole numbers, else None.
    A distribution is immutable: the answer is kept on it (an attack's kept per-attack
    distribution is asked at every sum of it)."""
    if "_int_range" not in d.__dict__:
        values = _int_outcomes(d)
        d.__dict__["_int_range"] = None if values is None else (min(values), max(values))
    found: tuple[int, int] | None = d.__dict__["_int_range"]
    return found


def attack_sum_work(per_attack: Any, attacks: Any, values: tuple[int, int] | None = None) -> int:
    """Steps an exact sum of ``per_attack`` over ``attacks`` (a number or a roll) takes, estimated.

    The sum of ``n`` attacks has ``n × width + 1`` results, each weighed by a whole number of
    about ``n × bits(denominator)`` bits.  Reading its chances (a mean, a printed row) reduces
    each weight to a fraction: about its bits squared, counted here as bits² / :data:`GCD_SPEED`.
    When the number of attacks is itself a roll, every possible number up to the largest is
    summed and mixed in: another ``most`` times the results and their bits.  Measured on
    one core: about 5·10⁹ steps a second.
    """
    if values is None:  # else the least and the greatest outcome of ``per_attack``, already found
        values = _int_range(per_attack)
    if values is None or not isinstance(per_attack, Dist):
        return 0
    width = values[1] - values[0]
    bits = max((int(per_attack.total_weight) - 1).bit_length(), 1)  # log2 of the denominator, rounded up
    if is_dist(attacks):
        counts = _int_range(attacks)
        if counts is None:
            return 0
        most = max(counts[1], 0)
        count_bits = int(attacks.total_weight).bit_length() if isinstance(attacks, Dist) else 53
        weight_bits = most * bits + count_bits
        return (most * width + 1) * weight_bits * (weight_bits // GCD_SPEED + most)
    n = unwrap(attacks)
    if not isinstance(n, int) or isinstance(n, bool) or n <= 1:
        return 0
    return (n * width + 1) * (n * bits) * (n * bits // GCD_SPEED)


def refuse_attack_sum(per_attack: Any, attacks: Any, exact: bool, span: Any) -> None:
    """Refuse, before the work, summing an attack step that is too big to work out (exactly)."""
    values = _int_range(per_attack) if is_dist(per_attack) else None
    if values is None:
        return
    if is_dist(attacks):
        counts = _int_range(attacks)
        if counts is None:
            return
        most = max(counts[1], 0)
    else:
        n = unwrap(attacks)
        if not isinstance(n, int):
            return
        most = max(n, 0)
    results = most * (values[1] - values[0]) + 1
    fewer = "ask about fewer models or fewer attacks per model"
    if results > MAX_OUTCOMES:
        raise ResolveError(f"this step sums up to {most:,} attacks into {results:,} possible results; the limit is "
                           f"{MAX_OUTCOMES:,}", span, fewer)
    if not exact or isinstance(per_attack, FastDist) or isinstance(attacks, FastDist):
        return
    work = attack_sum_work(per_attack, attacks, values)
    if work > MAX_ATTACK_WORK:
        many = f"up to {most:,} attacks (a random number)" if is_dist(attacks) else f"{most:,} attacks"
        raise ResolveError(f"the exact chances of this step over {many} would take about {work:.1e} steps to "
                           f"work out; the limit is {MAX_ATTACK_WORK:.0e}", span,
                           fewer + ", or use --fast (floating point)")


def distinct_results(op: str, a: Any, b: Any) -> int | None:
    """How many different results ``a op b`` has, counted with numpy (None: not counted).

    Sums, differences, products and quotients of whole numbers are counted (a comparison has
    two results); a sum of dense whole numbers is left to the polynomial product that works
    it out at once.
    """
    if op not in ("+", "-", "*", "/") or not is_dist(a) or not is_dist(b) or dense_sum(op, a, b):
        return None
    xs, ys = _int_outcomes(a), _int_outcomes(b)
    if xs is None or ys is None or max(map(abs, xs + ys)) >= _NUMPY_SAFE:
        return None
    x = np.asarray(xs, dtype=np.int64)
    y = np.asarray(ys, dtype=np.int64)
    if op in ("+", "-", "*"):
        return int(np.unique({"+": np.add, "-": np.subtract, "*": np.multiply}[op].outer(x, y)).size)
    y = y[y != 0]  # a division by zero is refused by the work itself
    if y.size == 0:
        return None
    g = np.gcd.outer(x, y)
    g[g == 0] = 1  # 0 / y is 0 whatever y is: numerator 0, and the denominator below made 1
    num = x[:, None] // g
    den = np.where(num == 0, 1, y[None, :] // g)
    sign = np.where(den < 0, -1, 1)
    span = 2 * int(np.abs(y).max()) + 1
    key = (num * sign) * span + den * sign  # a reduced fraction as one integer (|key| < 2**62)
    return int(np.unique(key).size)


def refuse_results(op: str, a: Any, b: Any, span: Any) -> None:
    """Refuse, before the work, combining two rolls into more results than the resolver works with."""
    if not is_dist(a) or not is_dist(b) or len(a) * len(b) <= MAX_OUTCOMES:
        return
    count = distinct_results(op, a, b)
    if count is not None and count > MAX_OUTCOMES:
        raise ResolveError(f"this has {count:,} possible results; the limit is {MAX_OUTCOMES:,}", span,
                           "ask a smaller question, or split it")


def keep_work(k: int, n: int, faces: int) -> int:
    """Steps of working out ``keep_highest(k, n, die)`` (or ``keep_lowest``) of a die of ``faces``
    results, one die at a time: the sorted tuples of at most ``k`` kept faces after each die
    (multisets: C(kept + faces - 1, faces - 1)), each met with every face.

    >>> keep_work(3, 4, 6), keep_work(99, 100, 6) > MAX_KEEP_WORK
    (504, True)
    """
    total = 0
    for i in range(n):
        total += math.comb(min(i, k) + faces - 1, faces - 1) * faces
        if total > MAX_KEEP_WORK:
            return total  # enough to refuse: the sum need not be finished
    return total


def refuse_keep(name: str, k: int, n: int, faces: int, span: Any) -> None:
    """Refuse, before any of it is done, a ``keep_highest``/``keep_lowest`` over :data:`~compiler.limits.MAX_KEEP_WORK`."""
    if keep_work(k, n, faces) > MAX_KEEP_WORK:
        raise ResolveError(f"{name}({k}, {n}, …) of a roll with {faces:,} results is too much to work out "
                           f"(more than {MAX_KEEP_WORK:,} steps)", span,
                           "keep fewer dice or roll fewer, or use smaller dice")
