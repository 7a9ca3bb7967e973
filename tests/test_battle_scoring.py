"""Objectives, scores and victory: who holds an objective, what scores when, how a battle ends."""
from __future__ import annotations

from typing import Any

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules, run, summary
from compiler.driver import compile_text

BASE = '''
ruleset hold "Hold":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
stat OC "Objective control" 0..10
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 7  W 1  OC 1
  points 10
unit banner "Banner bearer":
  BS 7  W 1  OC 3
  points 15
unit sharpshooter "Sharpshooter":
  BS 1  W 1  OC 2
  points 25
'''

GAME = '''
game hold "Hold the line":
  turns {turns}
  activation whole_army
  control within 3" by {by}
{undecided}
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  score held "Objectives held": 2 for each objective held at end of turn
  score kills "Kills": points * started for each enemy unit destroyed
  victory wipe "Annihilation" by annihilation
  victory five "First to {target}" by reaching {target}
'''

SCENARIO = '''
scenario relic "The relic":
  game hold
  distance 24"
  first red
  objective relic "The relic" at 12"
  side red "Red":
{red}
  side blue "Blue":
{blue}
'''


def battle_of(red: str, blue: str, *, turns: int = 3, target: int = 5, by: str = "models", undecided: str = "",
              seed: int = 1) -> tuple[Battle, list[dict[str, Any]]]:
    source = BASE + GAME.format(turns=turns, target=target, by=by, undecided=undecided) + \
        SCENARIO.format(red=red, blue=blue)
    result = compile_text(source, "hold.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
    battle.run()
    return battle, battle.events


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"] == kind]


def test_an_objective_held_at_the_end_of_each_turn_scores_and_the_first_to_n_wins_that_turn() -> None:
    # Red's troopers stand on the relic; Blue's (BS 7: they never hit) stand 12" away
    battle, events = battle_of('    2 trooper at 12"', '    2 trooper at 24"')
    scores = of(events, "score")
    # end of Red's turn 1: 2; end of Blue's turn 1: 4; end of Red's turn 2: 6 >= 5
    assert [(e["to"], e["points"], e["total"], e["turn"], e["side"]) for e in scores] == [
        ("red", 2, 2, 1, "red"), ("red", 2, 4, 1, "blue"), ("red", 2, 6, 2, "red")]
    end = of(events, "end")[0]
    assert (end["winner"], end["reason"], end["turn"], end["side"]) == ("red", "five", 2, "red")
    assert battle.state.scores == [6.0, 0.0]
    assert of(events, "control")[0]["holders"] == {"relic": "red"}


def test_a_contested_objective_scores_for_nobody_and_the_undecided_result_is_the_games() -> None:
    battle, events = battle_of('    2 trooper at 12"', '    2 trooper at 14"', undecided="  if undecided: second player wins")
    assert of(events, "score") == []
    assert {tuple(e["holders"].items()) for e in of(events, "control")} == {(("relic", None),)}
    end = of(events, "end")[0]
    assert (end["winner"], end["reason"], end["turn"]) == ("blue", "turn limit", 3)
    draw, events = battle_of('    2 trooper at 12"', '    2 trooper at 14"')
    assert of(events, "end")[0]["winner"] is None and draw.state.winner is None


TWO_RELICS = SCENARIO.replace('  objective relic "The relic" at 12"',
                              '  objective relic "The relic" at 6"\n  objective altar "The altar" at 18"')


@pytest.mark.parametrize("undecided,winner", [("", None), ("  if undecided: first player wins", "red"),
                                              ("  if undecided: second player wins", "blue")])
def test_two_sides_reaching_the_points_together_end_the_battle_there_undecided(undecided: str,
                                                                               winner: str | None) -> None:
    # each side holds an objective of its own (BS 7: nobody hits), 2 points each at the end of every
    # player's turn: both reach 5 together at the end of Red's turn 2 (6 to 6)
    source = BASE + GAME.format(turns=5, target=5, by="models", undecided=undecided) + \
        TWO_RELICS.format(red='    2 trooper at 6"', blue='    2 trooper at 18"')
    result = compile_text(source, "hold.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    end = of(battle.events, "end")[0]
    assert (end["winner"], end["reason"], end["turn"], end["side"]) == (winner, "five", 2, "red")
    assert battle.state.scores == [6.0, 6.0] and out.reason == "five"


def test_control_by_a_stat_counts_the_stat_times_the_models() -> None:
    # one banner bearer (OC 3) against two troopers (OC 1 each), none of whom can hit
    _, events = battle_of('    1 banner at 12"', '    2 trooper at 13"', by="OC", turns=1)
    assert of(events, "control")[0]["holders"] == {"relic": "red"}  # 3 x 1 against 1 x 2
    _, events = battle_of('    1 banner at 12"', '    2 trooper at 13"', by="models", turns=1)
    assert of(events, "control")[0]["holders"] == {"relic": "blue"}  # 1 model against 2
    _, events = battle_of('    1 banner at 12"', '    3 trooper at 13"', by="OC", turns=1)
    assert of(events, "control")[0]["holders"] == {"relic": None}  # 3 against 3: a tie
    _, events = battle_of('    1 banner at 8"', '    2 trooper at 16"', by="OC", turns=1)
    assert of(events, "control")[0]["holders"] == {"relic": None}  # both 4" away: out of reach


def test_a_destroyed_unit_scores_its_formula_for_its_enemies_and_annihilation_ends_the_battle() -> None:
    # the sharpshooters hit on 1+: two shots kill the two troopers of Blue's first unit at once
    battle, events = battle_of('    2 sharpshooter at 0"', '    2 trooper at 24"', target=1000)
    kills = [e for e in of(events, "score") if e["score"] == "kills"]
    assert [(e["to"], e["points"], e["why"]) for e in kills] == [("red", 20, "Trooper")]  # points 10 x started 2
    end = of(events, "end")[0]
    assert (end["winner"], end["reason"], end["turn"]) == ("red", "wipe", 1)
    assert end["scores"] == [20, 0]


def test_simulate_reports_each_way_the_games_ended_and_the_policies() -> None:
    source = BASE + GAME.format(turns=3, target=5, by="models", undecided="") + \
        SCENARIO.format(red='    2 trooper at 12"', blue='    2 trooper at 15"\n    1 sharpshooter at 24"')
    model = compile_text(source, "hold.rules").rulesets[0]
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "hold.rules").write_text(source, encoding="utf-8")
        tally = run(d, model.get("relic"), 60, seed=3)
    out = summary(model, model.get("relic"), tally, 3)
    assert sum(out["ends"].values()) == 60 == tally.games
    assert set(out["ends"]) <= {"five", "wipe", "turn limit"}
    assert out["policy"] == {"red": "greedy", "blue": "greedy"}
    assert out["draws"] == out["ends"].get("turn limit", 0)  # undecided: a draw


@pytest.mark.parametrize("scenario,message", [
    ('  objective relic "The relic" at 30"', "objective 'relic' at 30\" is off the battlefield"),
    ('  objective relic "The relic" at 3", 4"', "placed across the table, but the battlefield is one line"),
    ('  objective relic "The relic" at 3"\n  objective relic "Again" at 4"', "objective 'relic' is placed twice"),
])
def test_objectives_that_cannot_be_played_are_refused_where_they_are_written(scenario: str, message: str) -> None:
    source = BASE + GAME.format(turns=3, target=5, by="models", undecided="") + \
        SCENARIO.format(red="    2 trooper", blue="    2 trooper").replace('  objective relic "The relic" at 12"', scenario)
    result = compile_text(source, "hold.rules")
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["W864"] and message in errors[0].message
    assert errors[0].span.line == source[:source.index(scenario.strip().splitlines()[-1])].count("\n") + 1


@pytest.mark.parametrize("change,message", [
    (('  control within 3" by models\n', ''), "scores objectives held but does not say who holds one"),
    (('by models', 'by Grit'), "unknown stat 'Grit'"),
    (('  score held "Objectives held": 2 for each objective held at end of turn\n'
      '  score kills "Kills": points * started for each enemy unit destroyed\n', ''),
     "is decided on points, but game 'hold' counts none"),
    (('distance 24"', 'distance 1000000"'), "a battlefield of 1,000,000 inches is larger than warscribe plays"),
    (('    2 trooper at 12"', '    2 trooper at 30"'), "a unit placed at 30\" is off the battlefield"),
])
def test_games_and_scenarios_that_cannot_be_scored_are_refused(change: tuple[str, str], message: str) -> None:
    source = BASE + GAME.format(turns=3, target=5, by="models", undecided="") + \
        SCENARIO.format(red='    2 trooper at 12"', blue="    2 trooper")
    assert change[0] in source
    result = compile_text(source.replace(change[0], change[1]), "hold.rules")
    errors = [d.message for d in result.diagnostics if d.severity.name == "ERROR"]
    assert any(message in e for e in errors), errors


def test_a_scenario_of_too_many_units_is_refused() -> None:
    source = BASE + GAME.format(turns=3, target=5, by="models", undecided="") + \
        SCENARIO.format(red="    1 trooper\n" * 150, blue="    1 trooper\n" * 60)
    result = compile_text(source, "hold.rules")
    errors = [d.message for d in result.diagnostics if d.severity.name == "ERROR"]
    assert any("210 units is more than warscribe plays in one battle (200)" in e for e in errors), errors


def test_export_describes_a_scenarios_objectives_and_a_games_control() -> None:
    from compiler.site.export import export
    source = BASE + GAME.format(turns=3, target=5, by="OC", undecided="  if undecided: first player wins") + \
        SCENARIO.format(red='    2 trooper at 12"', blue="    2 trooper")
    data = export(compile_text(source, "hold.rules"))
    decls = {d["id"]: d for d in data["rulesets"][0]["declarations"]}
    assert decls["relic"]["objectives"] == [{"id": "relic", "title": "The relic", "at": [12]}]
    assert decls["relic"]["distance"] == 24 and decls["relic"]["sides"][0]["units"][0]["at"] == 12
    assert decls["hold"]["control"] == {"within": 3, "by": "OC"} and decls["hold"]["undecided"] == "first"


def test_annihilation_is_looked_at_before_a_score_reached_and_a_kill_can_reach_it() -> None:
    # the sharpshooters wipe Blue's only unit: 20 points, over the 5 needed, but annihilation comes first
    _, events = battle_of('    2 sharpshooter at 0"', '    2 trooper at 24"', target=5)
    assert of(events, "end")[0]["reason"] == "wipe"
    # two units: the first one wiped is 20 points, the score reached at once (Blue still stands)
    battle, events = battle_of('    2 sharpshooter at 0"', '    2 trooper at 24"\n    1 banner at 24"', target=5)
    end = of(events, "end")[0]
    assert (end["winner"], end["reason"], end["turn"]) == ("red", "five", 1) and battle.state.units[2].models == 1


def test_a_lone_model_holds_an_objective_and_nothing_is_scored_for_nothing() -> None:
    battle, events = battle_of('    1 trooper at 12"', '    1 trooper at 24"', turns=1, target=50)
    assert of(events, "control")[0]["holders"] == {"relic": "red"}
    assert [e["points"] for e in of(events, "score")] == [2, 2]  # end of Red's turn, then of Blue's
    battle, events = battle_of('    1 trooper at 12"', '    1 trooper at 24"', turns=1, target=50, by="OC")
    assert of(events, "score") and battle.state.over


SURVIVING = '''
game hold "Hold the line":
  turns 2
  activation whole_army
{undecided}
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  score left "Models left": points per surviving model
  score zero "Nothing": 0 for each enemy unit destroyed
  victory most "Most points" by highest_score
scenario relic "The relic":
  game hold
  distance 24"
  first red
  side red "Red":
{red}
  side blue "Blue":
{blue}
'''


@pytest.mark.parametrize("red,blue,undecided,winner,reason,scores", [
    ("    2 trooper", "    1 banner", "", "red", "most", [20, 15]),           # 2 x 10 against 1 x 15
    ("    1 trooper", "    1 banner", "", "blue", "most", [10, 15]),
    ("    3 trooper", "    2 banner", "", None, "turn limit", [30, 30]),       # equal: undecided, a draw
    ("    3 trooper", "    2 banner", "  if undecided: first player wins", "red", "turn limit", [30, 30]),
    ("    3 trooper", "    2 banner", "  if undecided: second player wins", "blue", "turn limit", [30, 30]),
])
def test_the_highest_score_wins_at_the_turn_limit_and_a_tie_is_the_games_undecided_result(
        red: str, blue: str, undecided: str, winner: str | None, reason: str, scores: list[int]) -> None:
    result = compile_text(BASE + SURVIVING.format(undecided=undecided, red=red, blue=blue), "hold.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    end = of(battle.events, "end")[0]
    assert (end["winner"], end["reason"], end["scores"], out.turns) == (winner, reason, scores, 2)
    assert battle.state.over and of(battle.events, "score") == []
