"""The state of a battle, scripted: each query and each change of :class:`State` before and after,
on the one-line battlefield and on a table (distances to a thousandth, as the table's own pairs
give them; cover read from the table; the nearest enemy and objective; losses counted from the
start of the player turn; a unit wiped out)."""
from __future__ import annotations

import math
from typing import Any

from compiler import ast as A
from compiler.battle.state import Marker, State, Unit
from compiler.battle.table import Area, Table


def _unit(uid: int, side: int, models: int, x: float, y: float = 0.0, started: int | None = None) -> Unit:
    return Unit(uid, side, f"u{uid}", "trooper", (), models, models if started is None else started, 10, x, y=y)


def _kind(**kw: Any) -> A.TerrainKind:
    return A.TerrainKind(None, kw.pop("id", "k"), "K", **kw)  # type: ignore[arg-type]


def _state(units: list[Unit], table: Table | None = None, objectives: list[Marker] | None = None,
           defending: frozenset[str] = frozenset()) -> State:
    return State(units, ("red", "blue"), ("Red", "Blue"), table=table, objectives=objectives or [],
                 defending=defending)


def test_a_distance_on_the_table_is_the_tables_own_to_a_thousandth() -> None:
    """The engine reads distances from the table's pairs, the estimates from the state: both the
    same number, the straight line rounded to a thousandth of an inch."""
    table = Table(48, 48)
    a, b, c = _unit(0, 0, 5, 0, 0), _unit(1, 1, 5, 1, 1), _unit(2, 1, 5, 2, 3)
    st = _state([a, b, c], table)
    assert st.distance(a, b) == 1.414 == table.pair(0, 0, 1, 1)[0]
    assert st.distance(a, c) == 3.606 == round(math.sqrt(13), 3) == table.pair(0, 0, 2, 3)[0]
    assert st.distance(b, c) == st.distance(c, b) == table.pair(1, 1, 2, 3)[0] == 2.236
    line = _state([_unit(0, 0, 5, 3), _unit(1, 1, 5, 15)])
    assert line.distance(*line.units) == 12 == line.travel(*line.units)


def test_cover_is_what_the_table_sets_then_the_statuses_a_volley_reads_of_the_target() -> None:
    wood = Area("w", "Wood", _kind(inside="in_cover"), 20, 0, 30, 20)
    shooter, target = _unit(0, 0, 5, 0, 5), _unit(1, 1, 5, 25, 5)
    target.statuses = {"gone_to_ground": "", "pinned": ""}
    st = _state([shooter, target], Table(48, 48, (wood,)), defending=frozenset({"gone_to_ground"}))
    assert st.cover(shooter, target) == ("in_cover", "gone_to_ground")
    assert st.cover(target, shooter) == ()  # the shooter stands in the open and holds nothing
    open_table = _state([shooter, target], Table(48, 48), defending=frozenset({"gone_to_ground"}))
    assert open_table.cover(shooter, target) == ("gone_to_ground",)
    assert _state([shooter, target]).cover(shooter, target) == ()  # nothing the volley reads of it


def test_the_nearest_enemy_is_the_closest_standing_one_and_none_when_all_are_gone() -> None:
    a, b, c, d = _unit(0, 0, 5, 10), _unit(1, 1, 5, 30), _unit(2, 1, 5, 16), _unit(3, 1, 0, 11)
    st = _state([a, b, c, d])
    assert st.nearest_enemy(a) is c  # d, nearer, has no models
    assert st.nearest_enemy(c) is a
    c.models = b.models = 0
    assert st.nearest_enemy(a) is None


def test_an_objective_by_name_or_the_nearest_first_placed_on_a_tie() -> None:
    west, east, far = Marker("west", "West", 4), Marker("east", "East", 16), Marker("far", "Far", 40)
    u = _unit(0, 0, 5, 10)
    st = _state([u], objectives=[far, west, east])
    assert st.objective(u, "east") is east and st.objective(u, "nowhere") is None
    assert st.objective(u, None) is west  # 6" to each of west and east: the first placed of the two
    u.position = 12
    assert st.objective(u, None) is east
    assert _state([u]).objective(u, None) is None and _state([u]).objective(u, "east") is None
    st2 = _state([u], Table(48, 48), [Marker("low", "Low", 12, y=0), Marker("high", "High", 12, y=30)])
    u.y = 20
    assert st2.objective(u, None).oid == "high"  # measured on the table: 10" up against 20" down


def test_losses_of_the_turn_count_from_the_turns_start_and_in_the_first_from_the_start() -> None:
    u = _unit(0, 0, 3, 0, started=5)
    st = _state([u, _unit(1, 1, 5, 12)])
    assert u.lost_this_turn == 2  # the first turn: counted from the models it started with
    st.turn_begins()
    assert u.lost_this_turn == 0
    st.remove_models(u, 1)
    assert (u.models, u.lost_this_turn) == (2, 1)


def test_a_unit_wiped_out_keeps_nothing_and_is_noted_fallen_once() -> None:
    a, b = _unit(0, 0, 3, 0), _unit(1, 1, 2, 0)
    a.wounds, a.doomed, a.statuses = 1, 2, {"locked": ""}
    a.engaged, a.engaged_as, b.engaged, b.engaged_as = [1], ("locked",), [0], ("locked",)
    b.statuses = {"locked": "", "pinned": "turn"}
    st = _state([a, b])
    assert st.remove_models(a, 5) == 3
    assert (a.models, a.wounds, a.doomed, a.statuses, a.engaged) == (0, 0, 0, {}, [])
    assert b.engaged == [] and b.statuses == {"pinned": "turn"}  # left engaged with nobody
    st.destroy(a)
    assert st.fallen == [0]  # destroyed again: nothing standing to score
    assert st.remove_models(b, 1) == 1 and (b.models, st.fallen) == (1, [0])
    assert st.models_left(0) == 0 and st.models_left(1) == 1
