"""Sticky objective control: an objective stays with the side that last held it until an enemy
comes within reach (``control within 3" by models, sticky``), worked through a scripted state."""
from __future__ import annotations

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

SOURCE = '''
ruleset hold "Hold":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 7  W 1
  points 10
game hold "Hold the line":
  turns 3
  activation whole_army
  control within 3" by {by}{sticky}
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  score held "Objectives held": 2 for each objective held at end of turn
  victory most "Most points" by highest_score
scenario relic "The relic":
  game hold
  distance 24"
  first red
  objective relic "The relic" at 12"
  side red "Red":
    2 trooper at 12"
  side blue "Blue":
    2 trooper at 24"
'''


def battle(sticky: bool, by: str = "models") -> Battle:
    result = compile_text(SOURCE.format(sticky=", sticky" if sticky else "", by=by), "hold.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    game = model.get("hold")
    assert game.control is not None and game.control.sticky is sticky
    return Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=1)


@pytest.mark.parametrize("sticky", [True, False])
def test_a_sticky_objective_stays_taken_until_an_enemy_comes_within_reach(sticky: bool) -> None:
    b = battle(sticky)
    st, ref = b.state, b.referee
    red, blue = st.units
    relic = st.objectives[0]

    def after(red_at: float, blue_at: float, blue_models: int = 2) -> int | None:
        red.position, blue.position, blue.models = red_at, blue_at, blue_models
        ref.watch() if sticky else ref.control()
        return relic.holder

    assert after(12, 24) == 0  # Red stands on it alone: Red's
    # Red walks away: sticky, still Red's (the models that took it need not stay); else nobody's
    assert after(0, 24) == (0 if sticky else None)
    b.period_ends("turn")  # a scoring moment while nobody stands there
    assert st.scores == ([2.0, 0.0] if sticky else [0.0, 0.0])
    assert after(0, 14) == 1  # Blue comes within 3": Blue holds it, by the count
    assert after(0, 24) == (1 if sticky else None)  # and keeps it once gone
    assert after(12, 14) is None  # Blue's, then 2 models against 2 there: a tie ends Blue's hold
    assert after(0, 24) is None  # nobody held it last: nobody's
    assert after(12, 13, blue_models=1) == 0  # 2 against 1: Red's
    assert after(0, 13, blue_models=0) == (0 if sticky else None)  # Red gone, no enemy: kept if sticky


def test_the_greedy_player_counts_a_sticky_objective_as_kept_when_it_walks_away() -> None:
    for sticky in (True, False):
        b = battle(sticky)
        st = b.state
        red = st.units[0]
        b.referee.watch() if sticky else b.referee.control()
        gain = b.estimates.held_gain(red, (12.0, 0.0), (6.0, 0.0), st.objectives)
        assert gain == (0.0 if sticky else -2.0)  # leaving the relic costs its 2 points unless sticky


def test_by_presence_one_side_alone_holds_and_any_enemy_model_contests() -> None:
    """The 40K-S rule: taken by being there with no enemy there, kept until an enemy comes."""
    b = battle(True, by="presence")
    st, ref = b.state, b.referee
    red, blue = st.units
    relic = st.objectives[0]
    steps = [(12, 24, 2, 0),     # Red alone: Red's
             (12, 13, 1, None),  # one Blue model against Red's two: contested, nobody's (by models: Red's)
             (0, 13, 1, 1),      # Red gone: Blue's
             (0, 24, 1, 1)]      # Blue gone too: still Blue's
    for red_at, blue_at, blue_models, holder in steps:
        red.position, blue.position, blue.models = red_at, blue_at, blue_models
        ref.watch()
        assert relic.holder == holder, (red_at, blue_at, blue_models)
    red.position = 12
    ref.watch()
    assert relic.holder == 0  # Red there alone with Blue away: Red takes it from Blue
    ref.control()  # the same count at a scoring moment
    assert relic.holder == 0
    # the greedy player: a Red step onto the relic while a Blue model is there gains nothing
    blue.position = 13
    ref.watch()
    assert relic.holder is None
    assert b.estimates.held_gain(red, (0.0, 0.0), (12.0, 0.0), st.objectives) == 0.0
    blue.position = 24
    assert b.estimates.held_gain(red, (0.0, 0.0), (12.0, 0.0), st.objectives) == 2.0
