"""The referee at its edges, on scripted states: a unit exactly at the control reach, a unit wiped
out on an objective, control looked at between scorings only when it is sticky, annihilation in a
game that does not count it and after the battle has ended, and scores reported to a millionth."""
from __future__ import annotations

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

SOURCE = '''
ruleset edge "Edge":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
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
{victories}
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


def battle(by: str = "models", sticky: bool = False, victories: str = "") -> Battle:
    text = SOURCE.format(by=by, sticky=", sticky" if sticky else "", victories=victories)
    result = compile_text(text, "edge.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=1)


@pytest.mark.parametrize("by", ["models", "presence"])
def test_a_unit_exactly_at_the_control_reach_holds_the_objective(by: str) -> None:
    b = battle(by)
    red, blue = b.state.units
    for at, holder in ((9, 0), (8, None), (15, 0), (16, None)):
        red.position = at
        b.referee.control()
        assert b.state.objectives[0].holder == holder, at


def test_a_unit_wiped_out_on_an_objective_neither_holds_nor_contests_it() -> None:
    b = battle("presence")
    red, blue = b.state.units
    blue.position, blue.models = 12, 0  # Blue's unit fell where it stood, on the relic
    b.referee.control()
    assert b.state.objectives[0].holder == 0
    red.models = 0
    b.referee.control()
    assert b.state.objectives[0].holder is None


def test_control_changes_between_scorings_only_when_it_is_sticky() -> None:
    """A move calls ``watch``: sticky control follows the units at once (with a ``control``
    event); plain control is counted at the scoring moments only."""
    for sticky, holder in ((False, None), (True, 0)):
        b = battle(sticky=sticky)
        b.referee.watch()
        assert b.state.objectives[0].holder == holder
        assert [e for e in b.events if e["event"] == "control"] == \
            ([] if holder is None else [{**b.events[-1], "holders": {"relic": "red"}}])


def test_a_side_wiped_out_ends_nothing_in_a_game_that_does_not_count_annihilation() -> None:
    b = battle()
    b.state.units[1].models = 0
    b.referee.annihilation()
    assert (b.state.over, b.state.winner, b.state.reason) == (False, None, "")


def test_annihilation_after_the_battle_ended_changes_nothing() -> None:
    b = battle(victories='  victory wipe "Annihilation" by annihilation')
    st = b.state
    st.over, st.winner, st.reason = True, 1, "most"
    st.units[1].models = 0
    b.referee.annihilation()
    assert (st.over, st.winner, st.reason) == (True, 1, "most")
    st.over = False
    b.referee.annihilation()
    assert (st.over, st.winner, st.reason) == (True, 0, "wipe")


def test_a_score_is_reported_to_a_millionth() -> None:
    b = battle()
    score = b.referee.held[0]
    b.referee.add(0, 1 / 3, score, "The relic")
    b.referee.add(0, 1 / 3, score, "The relic")
    events = [(e["points"], e["total"]) for e in b.events if e["event"] == "score"]
    assert events == [(0.333333, 0.333333), (0.333333, 0.666667)]
    assert b.state.scores[0] == 2 / 3


def test_a_unit_that_counts_against_control_gives_the_objective_to_nobody() -> None:
    """By a stat that can be negative: Red's unit alone on the relic counts -2 a model; Blue has
    nobody there (0).  Nobody holds it, not the side with nobody there."""
    text = SOURCE.format(by="OC", sticky="", victories="").replace(
        'stat W "Wounds" 1..10 role wounds', 'stat W "Wounds" 1..10 role wounds\nstat OC "Objective control" -2..2'
    ).replace("  BS 7  W 1\n", "  BS 7  W 1  OC -2\n")
    result = compile_text(text, "edge.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    b = Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    b.referee.control()
    assert b.state.objectives[0].holder is None
