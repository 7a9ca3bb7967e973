"""Moves toward an objective and away from the enemy: where a scripted move ends (worked out by
hand), round impassable ground on a table, the scenarios `check` refuses, and the greedy player
going for an objective when holding it wins the game."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Node, Rules, chi_square, chi_square_critical, game_seed
from compiler.battle.exact import solve
from compiler.cli.narrate import Narrator
from compiler.driver import compile_text

RULES = '''
ruleset holdfast "Holdfast":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
game holdfast "Hold fast":
  turns {turns}
  activation whole_army
  control within 3" by models
  terrain lake "Lake": impassable
  phase move "Movement":
{actions}
{fire}
  score held "Objective held": 2 for each objective held at end of turn
  victory first_to_two "First to two" by reaching 2
  victory wipe "Annihilation" by annihilation
scenario field "A field":
  game holdfast
{board}
  first red
{objectives}
  side red "Red":
    5 trooper at {red}
  side blue "Blue":
    5 trooper at {blue}
'''

TABLE = '  table 48" by 48"'
LINE = '  distance 24"'


def compiled(actions: str, board: str = LINE, objectives: str = "", red: str = '0"', blue: str = '24"',
             turns: int = 1, fire: str = "") -> Any:
    return compile_text(RULES.format(actions=actions, board=board, objectives=objectives, red=red, blue=blue,
                                     turns=turns, fire=fire), "holdfast.rules")


def model_of(actions: str, **kw: Any) -> Any:
    result = compiled(actions, **kw)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def root(model: Any) -> Node:
    return Node.root(Rules(model, exact=True), model.get("field"))


def moved(model: Any, inches: int) -> tuple[float, float]:
    """Red takes the phase's first action and moves ``inches``: where it then stands."""
    node = root(model)
    assert node.choice() is not None and node.choice().kind == "action"  # type: ignore[union-attr]
    how_far = node.child(0)
    choice = how_far.choice()
    assert choice is not None and choice.kind == "move"
    red = how_far.child(inches).state().units[0]
    return red.position, red.y


def test_the_move_sentences_parse_to_their_goals() -> None:
    model = model_of('    action a "A": move up to 6" toward the enemy\n'
                     '    action b "B": move up to 6" away from the enemy\n'
                     '    action c "C": move up to 6" toward the nearest objective\n'
                     '    action d "D": move up to 6" toward objective relic',
                     objectives='  objective relic "The relic" at 12"')
    game = model.get("holdfast")
    assert isinstance(game, A.Game)
    got = [(e.goal, e.name) for a in game.phases[0].actions for e in a.effects]
    assert got == [("enemy", None), ("away", None), ("nearest objective", None), ("objective", "relic")]


@pytest.mark.parametrize("red,blue,inches,x", [
    ('10"', '20"', 6, 4.0),   # straight back from the enemy
    ('3"', '20"', 6, 0.0),    # no further than the edge of the battlefield
    ('20"', '10"', 3, 23.0),  # the enemy behind it: away is the other way
    ('10"', '10"', 2, 8.0),   # together: toward its own edge
])
def test_a_move_away_from_the_enemy_on_a_line(red: str, blue: str, inches: int, x: float) -> None:
    model = model_of('    action back "Fall back": move up to 6" away from the enemy', red=red, blue=blue)
    assert moved(model, inches) == (x, 0.0)


def test_a_move_toward_an_objective_stops_on_it_never_past() -> None:
    objectives = '  objective near "Near" at 8"\n  objective far "Far" at 20"'
    nearest = model_of('    action take "Take": move up to 6" toward the nearest objective', objectives=objectives)
    assert moved(nearest, 6) == (6.0, 0.0)
    named = model_of('    action take "Take": move up to 6" toward objective far', objectives=objectives,
                     red='17"')
    assert moved(named, 6) == (20.0, 0.0)  # 3" takes it there; it stops on the marker
    assert moved(named, 2) == (19.0, 0.0)


def test_a_move_toward_an_objective_on_a_table_goes_round_a_lake() -> None:
    actions = '    action take "Take": move up to 12" toward objective relic'
    objectives = ('  objective relic "The relic" at 10", 30"\n'
                  '  terrain pond "Pond" lake from 5", 15" to 12", 17"')
    model = model_of(actions, board=TABLE, objectives=objectives, red='10", 10"', blue='40", 40"')
    # straight up is blocked; the shortest way passes the pond's nearer corner (12.01", 14.99")
    corner = (12.01, 14.99)
    first = math.dist((10, 10), corner)
    x, y = moved(model, 12)
    left = 12 - first
    beyond = (12.01, 17.01)  # then up the pond's side to its far corner, and on to the relic
    side = math.dist(corner, beyond)
    assert left > side
    rest = left - side
    toward = (10 - beyond[0], 30 - beyond[1])
    k = rest / math.hypot(*toward)
    assert (x, y) == (round(beyond[0] + toward[0] * k, 3), round(beyond[1] + toward[1] * k, 3))
    assert moved(model, 4) == (round(10 + 2.01 * 4 / first, 3), round(10 + 4.99 * 4 / first, 3))


def test_a_move_away_on_a_table_runs_straight_back_to_the_edge() -> None:
    model = model_of('    action back "Fall back": move up to 6" away from the enemy', board=TABLE,
                     red='10", 4"', blue='10", 20"')
    assert moved(model, 3) == (10.0, 1.0)
    assert moved(model, 6) == (10.0, 0.0)  # the table's edge


def test_an_objective_the_scenario_does_not_place_is_refused_at_the_move() -> None:
    result = compiled('    action take "Take": move up to 6" toward objective relik',
                      objectives='  objective relic "The relic" at 12"')
    errors = [d for d in result.diagnostics if d.code == "W101"]
    assert len(errors) == 1 and "unknown objective 'relik'" in errors[0].message
    assert errors[0].hint == "did you mean 'relic'?"
    assert errors[0].span.line == RULES.splitlines().index("  phase move \"Movement\":") + 2
    none = compiled('    action take "Take": move up to 6" toward the nearest objective')
    assert any(d.code == "W864" and "places no objective" in d.message for d in none.diagnostics)
    assert not none.ok


def test_the_greedy_player_takes_the_objective_that_wins_the_game() -> None:
    """Nobody can shoot: the only way to win is to hold the objective, behind Red, at the end of a
    turn (2 points, the score that wins).  Red, first, has Advance listed before Take; the greedy
    player weighs Take at the 2 points it scores and wins in its first turn."""
    actions = ('    action advance "Advance": move up to 6" toward the enemy\n'
               '    action take "Take": move up to 6" toward the nearest objective')
    model = model_of(actions, objectives='  objective relic "The relic" at 4"', red='10"')
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    assert (out.winner, out.reason, out.scores) == (0, "first_to_two", (2.0, 0.0))
    acts = [e["action"] for e in battle.events if e["event"] == "action"]
    assert acts == ["take"]
    move = next(e for e in battle.events if e["event"] == "move")
    assert (move["inches"], move["objective"], move["distance"]) == (6, "The relic", 0.0)
    said = Narrator(model, ("Red", "Blue")).line(move)
    assert said is not None and said.endswith('moves 6": 0" from The relic.')
    # the objective out of reach this turn (14" away, 6" of move): it only draws nearer, so the
    # first action listed (Advance, worth as much) is taken, and nobody scores in one turn
    far = model_of(actions, objectives='  objective relic "The relic" at 14"', red='0"')
    out = Battle(Rules(far), far.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1).run()
    assert out.scores == (0.0, 0.0)


def test_the_exact_law_of_a_battle_won_by_taking_the_objective() -> None:
    """Red takes the relic behind it (the greedy pick), fires its five shots (each kills on a 4+),
    and scores 2 at the end of its turn: it wins in turn 1 whatever the dice, Blue losing a
    binomial number of its five models (all five: by annihilation, before the score)."""
    actions = ('    action advance "Advance": move up to 6" toward the enemy\n'
               '    action take "Take": move up to 6" toward the nearest objective')
    fire = '  phase fire "Shooting":\n    action shoot "Shoot": attack shooting'
    model = model_of(actions, objectives='  objective relic "The relic" at 4"', red='10"', turns=2, fire=fire)
    law = solve(Rules(model, exact=True), model.get("field"))
    expected = {(0, 1, (5, 5 - k)): Fraction(math.comb(5, k), 32) for k in range(6)}
    assert law.endings == expected
    # sampled battles follow it (and reject a law a little off: a hit on a 3+)
    rules, games = Rules(model), 400
    left = [0] * 6
    for i in range(games):
        out = Battle(rules, model.get("field"), [GreedyPolicy(), GreedyPolicy()], game_seed(3, i), record=False).run()
        assert (out.winner, out.turns) == (0, 1)
        left[out.survivors[1]] += 1
    stat, df = chi_square(left, [float(expected[(0, 1, (5, n))]) * games for n in range(6)])
    assert stat < chi_square_critical(df, 0.001)
    off = [math.comb(5, 5 - n) * (2 / 3) ** (5 - n) * (1 / 3) ** n * games for n in range(6)]
    assert chi_square(left, off)[0] > chi_square_critical(df, 0.001)


def test_a_greedy_advance_stops_on_the_objective_rather_than_give_it_up() -> None:
    """Red holds the relic 2" ahead (control within 3"); a whole 6" advance toward the enemy would
    take it 4" past: the greedy player advances 5" and keeps it, scoring the 2 that win."""
    model = model_of('    action advance "Advance": move up to 6" toward the enemy',
                     objectives='  objective relic "The relic" at 12"', red='10"')
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    assert [e["inches"] for e in battle.events if e["event"] == "move"] == [5]
    assert (out.winner, out.reason) == (0, "first_to_two")
    # a relic on the way, out of reach from where Red stands: the whole advance takes it
    ahead = model_of('    action advance "Advance": move up to 6" toward the enemy',
                     objectives='  objective relic "The relic" at 19"', red='10"')
    battle = Battle(Rules(ahead), ahead.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    assert battle.run().reason == "first_to_two"
    assert [e["inches"] for e in battle.events if e["event"] == "move"] == [6]


def test_a_greedy_unit_leaves_an_objective_its_side_holds_to_the_friend_on_it() -> None:
    """Red's first squad stands on the relic; the second, 6" off, is offered Advance (listed first)
    and Take: its side already holds the relic (the first squad, 3" on, keeps it), so taking it
    scores nothing more and it advances.
    With Blue's six models on the relic, the first squad's five do not hold it; the second's five
    more would: it takes the relic."""
    actions = ('    action advance "Advance": move up to 6" toward the enemy\n'
               '    action take "Take": move up to 6" toward objective relic')
    two = '4"\n    5 trooper at 10"'
    model = model_of(actions, objectives='  objective relic "The relic" at 4"', red=two)
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    red = [e for e in battle.events if e["side"] == "red" and e["event"] in ("action", "move")]
    # the first squad advances no further than keeps it within 3" of the relic; the second advances
    assert [e.get("action", e.get("inches")) for e in red] == ["advance", 3, "advance", 6]


@pytest.mark.parametrize("friend,worth", [("", 1e-3), ('\n    1 trooper at 6"', 2 + 1e-3)])
def test_taking_a_contested_objective_is_worth_its_points_only_where_the_side_would_outweigh(
        friend: str, worth: float) -> None:
    """Blue's five models stand 1" from the relic; Red's five, 6" off, would only tie there (nobody
    holds it): taking it is worth drawing nearer.  A friend of one model 2" from it tips the balance:
    the move is worth the 2 points it then scores."""
    model = model_of('    action take "Take": move up to 6" toward objective relic',
                     objectives='  objective relic "The relic" at 4"', red='10"' + friend, blue='5"')
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    take = model.get("holdfast").phases[0].actions[0].effects[0]
    assert battle.estimates.seize(battle.state.units[0], take) == pytest.approx(worth, abs=1e-12)


def test_a_greedy_move_toward_one_objective_keeps_the_one_it_holds() -> None:
    """Red holds the outpost where it stands (control within 3"); the relic is 10" on, out of its
    6" reach.  Moving more than 3" gives the outpost up for nothing: the greedy player moves 3",
    and the choice's estimates (what a searching player reads) say the same."""
    model = model_of('    action take "Take": move up to 6" toward objective relic',
                     objectives='  objective outpost "The outpost" at 10"\n  objective relic "The relic" at 20"',
                     red='10"')
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    assert [e["inches"] for e in battle.events if e["event"] == "move" and e["side"] == "red"] == [3]
    assert out.winner == 0 and out.reason == "first_to_two"
    choice = root(model).child(0).choice()
    assert choice is not None and choice.kind == "move" and choice.estimates is not None
    values = choice.estimates()
    assert values.index(max(values)) == 3 and [round(v) for v in values] == [0, 0, 0, 0, -2, -2, -2]
