"""The answers' at-least column: one pass from the end, the same numbers as summing each tail."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, strategies as st

from compiler.resolve.dist import Dist
from compiler.resolve.report import at_least_column, distribution_rows


@given(st.lists(st.fractions(min_value=0, max_value=1), max_size=40))
def test_exact_tails_equal_the_sum_of_each_tail(ps: list[Fraction]) -> None:
    assert at_least_column(ps) == [sum(ps[i:]) for i in range(len(ps))]


@given(st.lists(st.floats(min_value=0, max_value=1), max_size=40))
def test_float_tails_are_the_exact_tail_rounded_once(ps: list[float]) -> None:
    assert at_least_column(ps) == [float(sum((Fraction(p) for p in ps[i:]), Fraction(0))) for i in range(len(ps))]


def test_a_long_distribution_has_every_tail() -> None:
    d = Dist.die(10_000)
    rows = distribution_rows(d)
    assert len(rows) == 10_000
    assert rows[0][2] == 1 and rows[-1][2] == Fraction(1, 10_000) and rows[5000][2] == Fraction(5000, 10_000)
