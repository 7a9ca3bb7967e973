"""Hypothesis builds small dice expressions in both backends at once; they must agree."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.resolve.dist import Dist, FastDist, agree

Pair = tuple[Dist, FastDist]


def both(make: Any) -> Pair:
    return make(Dist), make(FastDist)


def leaves() -> st.SearchStrategy[Pair]:
    dice = st.sampled_from([2, 3, 4, 6]).map(lambda n: both(lambda B: B.die(n)))
    return st.one_of(
        dice,
        st.lists(st.integers(-2, 4), min_size=2, max_size=4).map(
            lambda faces: both(lambda B: B.from_faces(faces))),
        st.fractions(Fraction(1, 6), Fraction(5, 6), max_denominator=6).map(
            lambda p: both(lambda B: B.bernoulli(p).map(int))),
        st.integers(-3, 3).map(lambda v: both(lambda B: B.const(v))),
    )


def extend(children: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
    ops = st.sampled_from(["+", "-", "*", "max", "min", "<", ">=", "=="])
    small = st.integers(-2, 5)
    return st.one_of(
        st.tuples(children, ops, children).map(
            lambda t: (t[0][0].binary(t[1], t[2][0]), t[0][1].binary(t[1], t[2][1]))),
        st.tuples(children, st.integers(1, 3)).map(
            lambda t: (t[0][0].sum_of(t[1]), t[0][1].sum_of(t[1]))),
        st.tuples(children, small, st.integers(1, 2)).map(
            lambda t: tuple(d.reroll(lambda v: v < t[1], times=t[2]) for d in t[0])),
        st.tuples(children, st.integers(0, 2)).map(
            lambda t: tuple(d.explode(lambda v, top=_top(t[0][0]): v >= top, depth=t[1])
                            for d in t[0])),
        st.tuples(children, small, children, children).map(
            lambda t: tuple(d.bind(lambda v, a=a, b=b: a if v >= t[1] else b)
                            for d, a, b in zip(t[0], t[2], t[3]))),
        st.tuples(st.integers(0, 3), children, st.integers(1, 3), children).map(
            lambda t: tuple(type(a).mixture([(t[0], a), (Fraction(t[2], 2), b)])
                            for a, b in zip(t[1], t[3]))),
        st.tuples(children, st.integers(2, 4)).map(
            lambda t: tuple(d.sum_of_random(type(d).die(t[1]) - 1) for d in t[0])),
        st.tuples(children, small, st.integers(1, 4)).map(
            lambda t: tuple(d.clamp(t[1], t[1] + t[2]) for d in t[0])),
        children.map(lambda t: tuple(d.map(lambda v: v // 2) for d in t)),
    )


def _top(d: Dist) -> int:
    """Explode on the highest outcome, unless that would explode every roll."""
    outcomes = d.outcomes()
    return max(outcomes) if len(outcomes) > 1 else max(outcomes, default=0) + 1


expressions = extend(st.recursive(leaves(), extend, max_leaves=6))  # at least one combinator


@settings(max_examples=300, deadline=None)
@given(expressions)
def test_exact_and_fast_agree(pair: Pair) -> None:
    exact, fast = pair
    assert agree(exact, fast)
    if exact.outcomes() and all(isinstance(o, int) for o in exact.outcomes()):
        assert agree(exact, exact.to_fast())


@settings(max_examples=200, deadline=None)
@given(expressions)
def test_exact_invariants(pair: Pair) -> None:
    exact = pair[0]
    probabilities = exact.probabilities()
    assert sum(probabilities.values()) + exact.truncated == 1
    assert all(p > 0 for p in probabilities.values())
    assert list(exact.outcomes()) == sorted(exact.outcomes())
    rebuilt = Dist.mixture([(1 - exact.truncated, Dist.from_weights(probabilities))] if probabilities
                           else [(1, 0)])
    if exact.truncated == 0:
        assert rebuilt == exact and hash(rebuilt) == hash(exact)


@settings(max_examples=100, deadline=None)
@given(expressions, expressions)
def test_sum_laws(x: Pair, y: Pair) -> None:
    a, b = x[0], y[0]
    assert a + b == b + a
    assert a.sum_of(2) == a + a
    assert (a + b).truncated == 1 - (1 - a.truncated) * (1 - b.truncated)
    assert a.sum_of_random(Dist.const(2)) == a.sum_of(2)
    assert b.sum_of_random(Dist.die(2)) == Dist.mixture([(1, b), (1, b + b)])
