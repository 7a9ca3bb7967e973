"""A unit's signature (compiler.battle.signature) is the key under which the greedy player's
estimates are kept: two states under one signature must give the unit the same estimates.  Each
test changes one thing a unit's choices depend on and checks that the estimate then answered —
with everything kept from before the change — is the one a battle with nothing kept works out
for the changed state, and differs from the estimate before it (so a key that missed the change
would have answered the stale one)."""
from __future__ import annotations

from typing import Callable

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.battle.state import State
from compiler.driver import compile_text

RULES = '''
ruleset keys "Keys":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
situation range_band "Range band" one of short, long
test hit(BS) = roll d6 >= BS
modifier long_range "Long range": hit needs 6+ when range_band is long
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
  points 10
game firefight "A firefight":
  turns 1
  activation whole_army
  situation range_band is long when distance_to_enemy > 6, otherwise short
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation: "A side with no models left loses."
game hold "A hold":
  turns 1
  activation whole_army
  control within 3" by models
  phase move "Movement":
    action go "Go": move up to 6" toward the nearest objective
  score held "Objective held": 2 for each objective held at end of turn
  victory first_to_ten "First to ten" by reaching 10
scenario line "On a line":
  game firefight
  distance 24"
  first red
  side red "Red":
    5 trooper
  side blue "Blue":
    5 trooper
scenario table "On a table":
  game firefight
  table 24" by 24"
  first red
  side red "Red":
    5 trooper at 2", 2"
  side blue "Blue":
    5 trooper at 4", 6"
scenario relic "A relic":
  game hold
  distance 24"
  first red
  objective relic "The relic" at 8"
  side red "Red":
    5 trooper
    1 trooper
  side blue "Blue":
    5 trooper
'''


@pytest.fixture(scope="module")
def model() -> compiler.Ruleset:
    result = compile_text(RULES, "keys.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def kept_and_fresh(model: compiler.Ruleset, scenario: str, action: str,
                   change: Callable[[State], None]) -> tuple[float, float, float]:
    """Red's first unit's estimate of ``action`` before ``change``, after it (everything kept from
    before), and after it in a battle with nothing kept."""
    sc = model.get(scenario)
    act = next(a for p in model.get(sc.game).phases for a in p.actions if a.id == action)
    b = Battle(Rules(model), sc, [GreedyPolicy(), GreedyPolicy()], seed=1)
    before = b.estimates.action(b.state.units[0], act)
    change(b.state)
    kept = b.estimates.action(b.state.units[0], act)
    f = Battle(Rules(model), sc, [GreedyPolicy(), GreedyPolicy()], seed=1)
    change(f.state)
    return before, kept, f.estimates.action(f.state.units[0], act)


def test_on_a_table_an_enemy_that_moves_up_the_table_is_a_new_key(model: compiler.Ruleset) -> None:
    """Blue steps from 4.5" of Red (short range) to 18.1" (long range), 2" across as before."""
    def away(st: State) -> None:
        st.units[1].y = 20.0
    before, kept, fresh = kept_and_fresh(model, "table", "shoot", away)
    assert kept == fresh and kept < before


def test_on_a_table_the_unit_that_moves_up_the_table_is_a_new_key(model: compiler.Ruleset) -> None:
    def away(st: State) -> None:
        st.units[0].y = 22.0
    before, kept, fresh = kept_and_fresh(model, "table", "shoot", away)
    assert kept == fresh and kept < before


def test_on_a_line_two_units_closing_in_are_a_new_key(model: compiler.Ruleset) -> None:
    """Red from 0" to 9", Blue from 24" to 15": 6" apart (short range) instead of 24"."""
    def close(st: State) -> None:
        st.units[0].position, st.units[1].position = 9.0, 15.0
    before, kept, fresh = kept_and_fresh(model, "line", "shoot", close)
    assert kept == fresh and kept > before


def test_an_enemy_with_one_model_left_is_a_new_key(model: compiler.Ruleset) -> None:
    def thinned(st: State) -> None:
        st.units[1].models = 1
    for scenario in ("line", "table"):
        before, kept, fresh = kept_and_fresh(model, scenario, "shoot", thinned)
        assert kept == fresh and kept < before


def test_with_objectives_a_friend_that_takes_the_objective_is_a_new_key(model: compiler.Ruleset) -> None:
    """Red's 5 troopers would take the relic at 8" with a move of 6"; once Red's lone trooper stands
    on it, the move gains nothing more."""
    def taken(st: State) -> None:
        st.units[1].position = 8.0
    before, kept, fresh = kept_and_fresh(model, "relic", "go", taken)
    assert kept == fresh and kept < before
