"""Ways across the table, worked out by hand: a wall of two impassable areas that touch has no way
round (a move stops a hundredth short of it, a charge never reaches across), of two ways round a
lake alike in length the one by its lower corners is taken, and a move that meets impassable
ground at a shallow slant stops at the first point, a hundredth of an inch back along its line and
then twice as far back each time, that kept to a thousandth stands clear of it."""
from __future__ import annotations

import math

import pytest

from compiler import ast as A
from compiler.battle.table import Area, Table

LAKE = A.TerrainKind(None, "lake", "Lake", impassable=True)  # type: ignore[arg-type]


def test_a_wall_of_two_areas_that_touch_has_no_way_round() -> None:
    """The wall runs the table's whole depth in two pieces (0" to 30", 30" to 48"): the corner where
    they meet is open on each side, but no way passes between them."""
    wall = Table(48, 48, (Area("a", "South", LAKE, 12, 0, 14, 30), Area("b", "North", LAKE, 12, 30, 14, 48)))
    assert wall.travel((10, 24), (30, 24)) == math.inf
    assert wall.move((10, 24), (30, 24), 10) == (11.99, 24.0)
    # with a gap between the pieces the way goes through it
    gap = Table(48, 48, (Area("a", "South", LAKE, 12, 0, 14, 29), Area("b", "North", LAKE, 12, 31, 14, 48)))
    assert gap.travel((10, 24), (30, 24)) < 30


def test_of_two_ways_round_alike_the_one_by_the_lower_corners_is_taken() -> None:
    """A lake across the line from (10", 24") to (40", 24"), as far above it as below: the way
    goes by its two lower corners (a hundredth clear of them)."""
    t = Table(48, 48, (Area("l", "Lake", LAKE, 20, 20, 30, 28),))
    assert t.route((10, 24), (40, 24)) == [(10, 24), (19.99, 19.99), (30.01, 19.99), (40, 24)]
    below = math.dist((10, 24), (19.99, 19.99))
    assert t.move((10, 24), (40, 24), 6) == (round(10 + 9.99 * 6 / below, 3), round(24 - 4.01 * 6 / below, 3))


@pytest.mark.parametrize("goal", [(48, 26.02), (48, 26.05), (48, 26.2), (30, 40)])
def test_a_move_at_a_slant_stops_at_the_first_point_back_that_stands_clear(goal: tuple[float, float]) -> None:
    """A gorge from 26" to 30" across the whole table; from (0", 24") the line meets it at y = 26".
    The move stops a hundredth of an inch back along its line, or twice as far back each time, at
    the first point that, kept to a thousandth, is out of the gorge."""
    gorge = Area("g", "Gorge", LAKE, 0, 26, 48, 30)
    t = Table(48, 48, (gorge,))
    length = math.hypot(goal[0], goal[1] - 24)
    meets = 2 / (goal[1] - 24)  # the share of the line at which it meets the gorge
    back = 0.01 / length
    while True:
        x, y = goal[0] * (meets - back), 24 + (goal[1] - 24) * (meets - back)
        if round(y, 3) < 26:
            break
        back *= 2
    assert t.move((0, 24), goal, 100) == (round(x, 3), round(y, 3))


def test_a_move_at_a_very_shallow_slant_steps_back_four_hundredths() -> None:
    """On a table 96" wide, from (0", 24") toward (96", 26.2"), the line meets the gorge (from 26")
    at 2/2.2 of the way.  An inch along it climbs 2.2/L (L = √(96² + 2.2²)), so a hundredth back
    is 0.00023" below the gorge and two hundredths 0.00046": kept to a thousandth both are 26.000",
    in it.  Four hundredths back, 0.00092" below, is 25.999": the move stops there."""
    t = Table(96, 48, (Area("g", "Gorge", LAKE, 0, 26, 96, 30),))
    length = math.hypot(96, 2.2)
    meets = 2 / 2.2
    for hundredths in (1, 2):
        assert round(24 + 2.2 * (meets - hundredths * 0.01 / length), 3) == 26.0
    back = meets - 0.04 / length
    assert t.move((0, 24), (96, 26.2), 100) == (round(96 * back, 3), round(24 + 2.2 * back, 3))
    assert t.move((0, 24), (96, 26.2), 100)[1] == 25.999
