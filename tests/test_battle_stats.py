"""The statistics the battles publish, against published values: Wilson's interval (Newcombe 1998,
single proportions), Newcombe's interval for a difference (Newcombe 1998, method 10),
Pearson's statistic with rare cells pooled (worked out by hand), and the chi-square table."""
from __future__ import annotations

import pytest

from compiler.battle.stats import Z95, chi_square, chi_square_critical, diff_interval, wilson


@pytest.mark.parametrize("k,n,lo,hi", [
    (81, 263, 0.2553, 0.3662),   # Newcombe (1998), single proportion, table I
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (20, 20, 0.8389, 1.0),
    (1, 1, 0.2065, 1.0),         # one game is a rate too
])
def test_the_wilson_interval_of_a_rate(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson(k, n)
    assert got == pytest.approx((lo, hi), abs=6e-5)
    assert 0.0 <= got[0] <= k / n <= got[1] <= 1.0


def test_a_rate_of_no_games_is_anything() -> None:
    assert wilson(0, 0) == (0.0, 1.0) and wilson(3, -1) == (0.0, 1.0)
    assert Z95 == pytest.approx(1.959964, abs=1e-6)
    wide = wilson(5, 10, z=2.576)  # a 99 % interval is wider than the 95 % one
    assert wide[0] < wilson(5, 10)[0] and wide[1] > wilson(5, 10)[1]


@pytest.mark.parametrize("k1,n1,k2,n2,lo,hi", [
    (56, 70, 48, 80, 0.0524, 0.3339),    # Newcombe (1998), method 10, his worked examples
    (9, 10, 3, 10, 0.1705, 0.8090),
    (5, 56, 0, 29, -0.0381, 0.1926),
])
def test_newcombes_interval_of_a_difference(k1: int, n1: int, k2: int, n2: int, lo: float, hi: float) -> None:
    assert diff_interval(k1, n1, k2, n2) == pytest.approx((lo, hi), abs=6e-5)
    flipped = diff_interval(k2, n2, k1, n1)
    assert flipped == pytest.approx((-hi, -lo), abs=6e-5)


def test_a_difference_stays_within_minus_one_and_one() -> None:
    lo, hi = diff_interval(10, 10, 0, 10)
    assert 0.0 < lo < 1.0 and hi == 1.0
    lo, hi = diff_interval(0, 10, 10, 10)
    assert lo == -1.0 and -1.0 < hi < 0.0


def test_pearsons_statistic_pools_the_rare_cells() -> None:
    # cells expected 2, 3 (pooled: 5), then 10 and 10: (4 - 5)²/5 + (12 - 10)²/10 + (9 - 10)²/10
    stat, df = chi_square([1, 3, 12, 9], [2.0, 3.0, 10.0, 10.0])
    assert (stat, df) == (pytest.approx(0.2 + 0.4 + 0.1), 2)
    # a tail too small for a cell of its own joins the last cell: (6 - 5)²/5 + (4 - 6)²/6
    stat, df = chi_square([6, 3, 1], [5.0, 4.0, 2.0])
    assert (stat, df) == (pytest.approx(1 / 5 + 4 / 6), 1)
    # a cell expected exactly at the threshold stands alone
    assert chi_square([5, 7], [5.0, 7.0], min_expected=5.0) == (0.0, 1)
    assert chi_square([3, 7], [5.0, 5.0], min_expected=6.0) == (0.0, 1)  # pooled into one: 10 for 10
    # a caller's lower threshold: cells of under one expected count are counted too
    assert chi_square([2, 0], [0.5, 1.5], min_expected=0.5) == (pytest.approx(4.5 + 1.5), 1)


# the table's values, and how far the approximation may stray from each (its docstring's bounds)
@pytest.mark.parametrize("df,alpha,table,rel", [
    (3, 0.05, 7.815, 6e-3), (10, 0.05, 18.307, 6e-3), (30, 0.05, 43.773, 6e-3),
    (3, 0.01, 11.345, 6e-3), (5, 0.01, 15.086, 6e-3), (20, 0.01, 37.566, 6e-3),
    (3, 0.001, 16.266, 1.8e-2), (5, 0.001, 20.515, 1.2e-2), (10, 0.001, 29.588, 6e-3), (20, 0.001, 45.315, 3e-3),
])
def test_the_critical_value_is_the_tables(df: int, alpha: float, table: float, rel: float) -> None:
    assert chi_square_critical(df, alpha) == pytest.approx(table, rel=rel)
    assert chi_square_critical(df, alpha) >= table * (1 - 6e-3)  # never much below: never too strict
