"""Where a move toward an objective or away from the enemy ends, case by case (worked out by hand):
the objective a named move heads for, a unit standing on its enemy (each side, on a line and on a
table), a foe closer than an inch, both edges of the battlefield, a move whose length reads the
distance to the enemy or is nothing at all, positions and distances kept to a thousandth, and the
greedy player's picks made the same way its general path makes them."""
from __future__ import annotations

import io
import math
from fractions import Fraction
from typing import Any

import pytest

from compiler.battle import Battle, GreedyPolicy, Node, Rules
from compiler.battle.log import read_log, replay, write_log
from compiler.driver import compile_text

RULES = '''
ruleset paths "Paths":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
stat M "Move" 0..12
situation distance "Distance" 0..48
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1  M {move}
game paths "Paths":
  turns 1
  activation whole_army
  control within 3" by models
  terrain lake "Lake": impassable
  phase move "Movement":
    must action go "Go": {effect}
  victory wipe "Annihilation" by annihilation
scenario field "A field":
  game paths
{board}
  first {first}
{objectives}
  side red "Red":
    5 trooper at {red}
  side blue "Blue":
    5 trooper at {blue}
'''

AWAY = 'move up to 6" away from the enemy'
TABLE = '  table 48" by 48"'
LINE = '  distance 24"'
TWO = '  objective near "Near" at 8"\n  objective far "Far" at 20"'


class PlainGreedy(GreedyPolicy):
    """The greedy policy asked each choice the general way (no engine shortcut)."""


def model_of(effect: str, red: str, blue: str, board: str = LINE, first: str = "red", objectives: str = "",
             move: int = 6) -> Any:
    text = RULES.format(effect=effect, red=red, blue=blue, board=board, first=first, objectives=objectives,
                        move=move)
    result = compile_text(text, "paths.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def after_move(model: Any, inches: int) -> tuple[float, float]:
    """The side that goes first takes Go and moves ``inches``: where its unit then stands."""
    node = Node.root(Rules(model, exact=True), model.get("field"))
    how_far = node if node.choice() is not None and node.choice().kind == "move" else node.child(0)  # type: ignore[union-attr]
    choice = how_far.choice()
    assert choice is not None and choice.kind == "move"
    unit = next(u for u in how_far.child(inches).state().units if u.side == how_far.state().active)
    return unit.position, unit.y


def test_a_move_toward_a_named_objective_heads_for_it_not_for_the_nearest() -> None:
    named = model_of('move up to 6" toward objective far', '10"', '24"', objectives=TWO)
    assert after_move(named, 6) == (16.0, 0.0)
    nearest = model_of('move up to 6" toward the nearest objective', '10"', '24"', objectives=TWO)
    assert after_move(nearest, 6) == (8.0, 0.0)


@pytest.mark.parametrize("board,first,here,inches,end", [
    (LINE, "red", '10"', 2, (8.0, 0.0)),            # red's own edge is at 0"
    (LINE, "blue", '10"', 2, (12.0, 0.0)),          # blue's at the far end
    (TABLE, "red", '10", 10"', 3, (10.0, 7.0)),     # on a table: straight back to its own edge
    (TABLE, "blue", '10", 10"', 3, (10.0, 13.0)),
])
def test_a_unit_standing_on_its_enemy_falls_back_toward_its_own_edge(
        board: str, first: str, here: str, inches: int, end: tuple[float, float]) -> None:
    model = model_of(AWAY, here, here, board=board, first=first)
    assert after_move(model, inches) == end


def test_a_move_away_goes_straight_back_not_round_ground_it_does_not_reach() -> None:
    """Blue 2" in front; a lake 3" to 4" behind Red: a 3" move away ends 3" straight back, short of
    the lake (not on a way round it toward a point further back)."""
    lake = '  terrain pond "Pond" lake from 5", 5" to 15", 6"'
    model = model_of(AWAY, '10", 10"', '10", 12"', board=TABLE, objectives=lake)
    assert after_move(model, 3) == (10.0, 7.0)


@pytest.mark.parametrize("board,red,blue,end", [
    (LINE, '22"', '10"', (24.0, 0.0)),            # the far end of the line
    (LINE, '2"', '10"', (0.0, 0.0)),
    (TABLE, '10", 44"', '10", 30"', (10.0, 48.0)),  # the table's far edge
    (TABLE, '45", 10"', '30", 10"', (48.0, 10.0)),
    (TABLE, '2", 10"', '30", 10"', (0.0, 10.0)),
])
def test_a_move_away_stops_at_the_edge_of_the_battlefield(board: str, red: str, blue: str,
                                                          end: tuple[float, float]) -> None:
    assert after_move(model_of(AWAY, red, blue, board=board), 6) == end


@pytest.mark.parametrize("red,most", [('0"', 6), ('20"', 2)])
def test_the_length_of_a_move_toward_an_objective_reads_the_distance_to_the_enemy(red: str, most: int) -> None:
    """``distance`` in a move toward an objective is the distance to the nearest enemy."""
    model = model_of('move up to (if distance > 12 then 6 else 2) toward objective far', red, '24"',
                     objectives=TWO)
    choice = Node.root(Rules(model, exact=True), model.get("field")).child(0).choice()
    assert choice is not None and choice.kind == "move"
    assert [o.label for o in choice.options] == [f'{d}"' for d in range(most + 1)]


@pytest.mark.parametrize("effect", ['move up to M toward objective far', 'move up to M away from the enemy',
                                    'move up to (M - 2) toward objective far'])  # less than none: none
def test_a_move_of_no_inches_asks_nothing_and_leaves_the_unit_where_it_stands(effect: str) -> None:
    model = model_of(effect, '10"', '24"', objectives=TWO, move=0)
    node = Node.root(Rules(model, exact=True), model.get("field"))  # Go, the one action, is not asked
    assert node.choice() is None and node.is_terminal()
    assert [(u.position, u.y) for u in node.state().units] == [(10.0, 0.0), (24.0, 0.0)]
    # the greedy player records what its general path records: no answer for a move of nothing
    plays = []
    for policy in (GreedyPolicy, PlainGreedy):
        battle = Battle(Rules(model), model.get("field"), [policy(), policy()], seed=1)
        plays.append((battle.run(), battle.choices, battle.events))
        assert [e["inches"] for e in battle.events if e["event"] == "move"] == [0, 0]
    assert plays[0] == plays[1]


def test_the_greedy_player_falls_back_the_whole_way_as_its_general_path_does() -> None:
    model = model_of(AWAY, '10"', '20"')
    for policy in (GreedyPolicy, PlainGreedy):
        battle = Battle(Rules(model), model.get("field"), [policy(), policy()], seed=1)
        battle.run()
        moves = [(e["side"], e["inches"], e["distance"]) for e in battle.events if e["event"] == "move"]
        assert moves == [("red", 6, 16.0), ("blue", 4, 20.0)]  # blue goes the 4" to the far end, 24", and stops
    choice = Node.root(Rules(model, exact=True), model.get("field")).child(0).choice()
    assert choice is not None and choice.estimates is not None
    values = choice.estimates()
    assert len(values) == 7 and values == sorted(values) and len(set(values)) == 7


def test_a_distance_on_a_table_is_reported_to_a_thousandth() -> None:
    table = model_of('move up to 6" toward objective far', '10", 10"', '40", 40"', board=TABLE,
                     objectives='  objective far "Far" at 20", 12"')
    battle = Battle(Rules(table), table.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    move = next(e for e in battle.events if e["event"] == "move")
    way = math.hypot(10, 2)  # straight toward it: 6" of its 10.2"
    red = (round(10 + 6 * 10 / way, 3), round(10 + 6 * 2 / way, 3))
    assert move["distance"] == round(math.dist(red, (20, 12)), 3) == 4.198


def test_a_logged_greedy_battle_with_one_action_to_take_replays() -> None:
    """A unit offered one `must` action is asked nothing; the greedy player's log records no
    answer for it, so the log replays (it listed one answer too many for each such unit)."""
    model = model_of(AWAY, '10"', '20"')
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=4)
    battle.run()
    assert battle.choices == [6, 6]  # how far each side falls back; the one action is no answer
    out = io.StringIO()
    write_log(out, battle, "paths", 4)
    again = replay(Rules(model), read_log(out.getvalue().splitlines()))
    assert again.events == battle.events


def test_a_move_toward_an_objective_of_no_inches_is_worth_nothing_to_the_greedy_player() -> None:
    """The Far objective 4" off: a move of 1" would draw nearer (worth a little); a move of 0" is
    worth nothing."""
    for inches, worth in ((0, 0.0), (1, 1e-3)):
        model = model_of('move up to M toward objective far', '10"', '24"', objectives='  objective far "Far" at 14"',
                         move=inches)
        battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
        take = model.get("paths").phases[0].actions[0].effects[0]
        assert battle.estimates.seize(battle.state.units[0], take) == worth


def test_the_greedy_player_weighs_a_move_whose_length_reads_the_distance_at_that_distance() -> None:
    """The Far objective 9" off scores 2 when held (within 3"): Blue 14" away makes the move 6",
    enough to take it (worth the 2 points); read without the distance it would be 2"."""
    text = RULES.format(effect='move up to (if distance > 12 then 6 else 2) toward objective far', red='10"',
                        blue='24"', board=LINE, first="red", objectives='  objective far "Far" at 19"', move=6)
    text = text.replace('  victory wipe', '  score held "Held": 2 for each objective held at end of turn\n  victory wipe')
    result = compile_text(text, "paths.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    take = model.get("paths").phases[0].actions[0].effects[0]
    assert battle.estimates.seize(battle.state.units[0], take) == 2 + 1e-3


def test_a_rolled_move_of_no_inches_or_less_asks_nothing() -> None:
    """``move up to (d6 - 3)``: the roll, a chance node of six even outcomes, is the most inches;
    -2, -1 or 0 is a move of none (nothing asked: Blue's roll comes next, Red where it stood)."""
    model = model_of('move up to (d6 - 3) toward objective far', '10"', '24"', objectives=TWO)
    node = Node.root(Rules(model, exact=True), model.get("field"))
    law = node.law()
    assert node.chance_kind() == "move" and law is not None and law.values == (-2, -1, 0, 1, 2, 3)
    assert [p for _, p in node.chance_outcomes()] == [Fraction(1, 6)] * 6
    for i, most in enumerate(law.values):
        after = node.child(i)
        choice = after.choice()
        if most > 0:
            assert choice is not None and choice.kind == "move" and len(choice.options) == most + 1
        else:
            assert choice is None and after.chance_kind() == "move" and after.state().units[0].position == 10.0


@pytest.mark.parametrize("red,blue,end", [
    ('45", 14"', '41", 11"', (48.0, 16.25)),  # straight away at a slant (4 across, 3 up): the edge after 3.75"
    ('14", 45"', '11", 41"', (16.25, 48.0)),
])
def test_a_move_away_at_a_slant_stops_where_its_line_meets_the_edge(red: str, blue: str,
                                                                    end: tuple[float, float]) -> None:
    assert after_move(model_of(AWAY, red, blue, board=TABLE), 6) == end


def test_the_log_of_a_move_away_cut_short_at_the_edge_gives_the_inches_gone() -> None:
    """Red's 6" away at a slant ends at the edge after 3.75"; Blue's, straight away from Red, goes
    the whole 6": the log gives each the inches gone and the distance to the enemy after."""
    model = model_of(AWAY, '45", 14"', '41", 11"', board=TABLE)
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    moves = [(e["side"], e["inches"], e["distance"]) for e in battle.events if e["event"] == "move"]
    assert moves == [("red", 3.75, 8.75), ("blue", 6, 14.75)]


GONE = '''
ruleset gone "Gone":
  version 1.0.0
stat W "Wounds" 1..10 role wounds
test hit() = roll d6 >= 1
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit()
  killed = hits removes target
unit trooper "Trooper":
  W 1
game gone "Gone":
  turns 1
  activation whole_army
  phase fire "Fire":
    must action shoot "Shoot": attack shooting
  phase back "Back":
    must action back "Fall back": {effect}
scenario field "A field":
  game gone
{board}
  first red
  side red "Red":
    5 trooper at {red}
  side blue "Blue":
    1 trooper at {blue}
'''


@pytest.mark.parametrize("board,red,blue", [(LINE, '10"', '14"'), (TABLE, '10", 10"', '10", 14"')])
def test_a_move_away_with_no_enemy_left_does_nothing(board: str, red: str, blue: str) -> None:
    """Red's five sure shots leave Blue no model; Red's fall back then has nothing to go away from:
    it stays where it stands, and nothing is logged as moved."""
    result = compile_text(GONE.format(effect=AWAY, board=board, red=red, blue=blue), "gone.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    red_unit, blue_unit = battle.state.units
    assert blue_unit.models == 0 and red_unit.models == 5
    assert (red_unit.position, red_unit.y) == ((10.0, 0.0) if board == LINE else (10.0, 10.0))
    assert not [e for e in battle.events if e["event"] == "move"]
    assert [e["action"] for e in battle.events if e["event"] == "action"] == ["shoot", "back"]


def test_an_action_goes_on_after_a_move_away() -> None:
    """Fall back, then fire: after its move away Red's unit fires its volley."""
    model = model_of(AWAY + ", attack shooting", '10", 10"', '10", 14"', board=TABLE)
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    done = [(e["event"], e["side"]) for e in battle.events if e["event"] in ("move", "volley")]
    assert done[:2] == [("move", "red"), ("volley", "red")]
