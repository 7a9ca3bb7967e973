"""From a scenario to the first state: where each unit stands on a line and on a table (placed, in
the middle of its side's zone, or mid-edge), its models and points, the objectives, a fresh copy
for each battle, and the prepared scenario kept per set of rules."""
from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from compiler.battle import Rules
from compiler.battle.setup import initial_state, prepared
from compiler.driver import compile_text

RULES = '''
ruleset deploy "Deploy":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
  points 10
unit sniper "Sniper":
  BS 2  W 1
  points 25
game g "A game":
  turns 1
  activation whole_army
  control within 3" by models
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  terrain lake "Lake": impassable
  victory wipe "Annihilation" by annihilation
scenario line "On a line":
  game g
  distance 30"
  first red
  objective hill "The hill" at 12"
  side red "Red":
    3 trooper
    1 sniper at 5"
  side blue "Blue":
    2 trooper
    4 trooper at 20"
scenario table "On a table":
  table 48" by 36"
  first red
  objective well "The well" at 20", 18"
  terrain pond "The pond" lake from 30", 14" to 34", 20"
  side red "Red":
    deploy from 4", 2" to 40", 8"
    3 trooper
    1 sniper at 10", 2"
  side blue "Blue":
    2 trooper
    4 trooper at 30", 30"
'''


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(RULES, "deploy.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def where(state: Any) -> list[tuple[Any, ...]]:
    return [(u.uid, u.side, u.profile, u.models, u.started, u.points, u.position, u.y) for u in state.units]


def test_on_a_line_side_one_stands_at_0_and_side_two_at_the_distance(model: Any) -> None:
    st = initial_state(model, model.get("line"), model.get("g"))
    assert where(st) == [(0, 0, "trooper", 3, 3, 10, 0.0, 0.0), (1, 0, "sniper", 1, 1, 25, 5.0, 0.0),
                         (2, 1, "trooper", 2, 2, 10, 30.0, 0.0), (3, 1, "trooper", 4, 4, 10, 20.0, 0.0)]
    assert (st.sides, st.side_titles, st.table) == (("red", "blue"), ("Red", "Blue"), None)
    assert [(o.oid, o.title, o.position, o.y) for o in st.objectives] == [("hill", "The hill", 12.0, 0.0)]


def test_on_a_table_a_unit_stands_where_placed_else_mid_zone_else_mid_edge(model: Any) -> None:
    st = initial_state(model, model.get("table"), model.get("g"))
    assert [(u.position, u.y) for u in st.units] == [(22.0, 5.0), (10.0, 2.0), (24.0, 36.0), (30.0, 30.0)]
    assert st.table is not None and (st.table.width, st.table.depth) == (48, 36)
    assert [(a.aid, a.kind.id, a.kind.impassable) for a in st.table.areas] == [("pond", "lake", True)]
    assert [(o.position, o.y) for o in st.objectives] == [(20.0, 18.0)]


def test_each_battle_gets_a_fresh_copy_of_the_first_state(model: Any) -> None:
    rules = Rules(model)
    ready = prepared(rules, model.get("table"))
    assert prepared(rules, model.get("table")) is ready
    assert ready.game is model.get("g")  # a scenario that names no game plays the first
    one, two = ready.fresh_state(), ready.fresh_state()
    assert where(one) == where(two) == where(ready.first)
    one.units[0].models, one.units[0].position, one.objectives[0].holder = 0, 3.0, 1
    assert where(two) == where(ready.first) and two.objectives[0].holder is None
    assert two.table is ready.first.table and [(o.position, o.y) for o in two.objectives] == [(20.0, 18.0)]
    # another scenario object under the same id (the ruleset compiled again) is prepared afresh
    again = compile_text(RULES, "deploy.rules").rulesets[0]
    assert prepared(rules, again.get("table")) is not ready
    assert prepared(Rules(model), model.get("table")) is not ready  # and per set of rules


def test_a_scenario_with_no_game_to_play_is_refused(model: Any) -> None:
    lost = dataclasses.replace(model.get("line"), game="nowhere")
    with pytest.raises(ValueError, match="scenario 'line' has no game to play"):
        prepared(Rules(model), lost)
