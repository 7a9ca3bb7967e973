"""Charges and moves on a table with impassable ground, worked out by hand: a charge reaches an
enemy only when the way round the impassable ground is within its reach (never over a chasm
narrower than the charge), a rolled charge that covers the straight gap but not the way round
falls short on the way round, difficult ground on the way costs what it costs a move, and a move
that runs into impassable ground with no way round stops short of it, never in it."""
from __future__ import annotations

import math
from typing import Any

import pytest

from compiler.battle import CHANCE, Node, Rules
from compiler.battle.state import State
from compiler.driver import compile_text

RULES = '''
ruleset charges "Charges":
  version 1.0.0
stat W "Wounds" 1..10 role wounds
status locked "Locked": "The unit is in close combat."
unit trooper "Trooper":
  W 1
game charges "Charges":
  turns 1
  activation whole_army
  terrain chasm "Chasm": impassable
  terrain mud "Mud": costs 2 inches per inch
  phase charge "Charge":
    must action go "Go": {effect}
  victory wipe "Annihilation" by annihilation
scenario field "A field":
  game charges
  table 48" by 48"
  first red
{terrain}
  side red "Red":
    5 trooper at {red}
  side blue "Blue":
    5 trooper at {blue}
'''

#: a chasm 2" wide between the two units, 6" apart: the way round its near end is about 7.7"
SHORT = '  terrain gap "The gap" chasm from 12", 22" to 14", 26"'
#: the same chasm, long: the way round is about 30"
LONG = '  terrain gorge "The gorge" chasm from 12", 10" to 14", 38"'


def root(effect: str, terrain: str = "", red: str = '10", 24"', blue: str = '16", 24"') -> Node:
    result = compile_text(RULES.format(effect=effect, terrain=terrain, red=red, blue=blue), "charges.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("field"))


def red_of(node: Node) -> Any:
    return node.state().units[0]


def in_impassable(state: State, x: float, y: float) -> bool:
    assert state.table is not None
    return any(a.kind.impassable and a.contains((x, y)) for a in state.table.areas)


def way_round(*points: tuple[float, float]) -> float:
    return sum(math.dist(a, b) for a, b in zip(points, points[1:]))


def test_a_charge_does_not_jump_a_chasm_whose_way_round_is_beyond_its_reach() -> None:
    """6" apart in a straight line, within an 8" charge; the gorge between is 2" wide and the way
    round it about 30": no charge."""
    after = root('engage within 8" as locked', LONG)
    red = red_of(after)
    assert after.is_terminal() and not red.engaged and (red.position, red.y) == (10.0, 24.0)
    # open ground: the same charge lands, the charger where its enemy stands
    open_ground = red_of(root('engage within 8" as locked'))
    assert open_ground.engaged == [1] and (open_ground.position, open_ground.y) == (16.0, 24.0)
    # a short chasm, whose way round (about 7.7") is within the charge: it lands, on the far side
    short = red_of(root('engage within 8" as locked', SHORT))
    assert short.engaged == [1] and short.has("locked") and (short.position, short.y) == (16.0, 24.0)


def test_a_rolled_charge_that_covers_the_straight_gap_but_not_the_way_round_falls_short_on_it() -> None:
    """2 + d6 against an enemy 6" away straight, about 7.7" round the chasm: a 7 (or a 6) covers the
    straight gap but not the way round, so the charger ends that far along the way round, free; an
    8 lands."""
    roll = root('engage within 2 + d6 as locked', SHORT)
    assert roll.current_player() == CHANCE and roll.chance_kind() == "charge"
    lowest = 3  # the outcomes are the law of 2 + d6: 3 to 8
    assert [v for v, _ in roll.chance_outcomes()] == list(range(6))
    # the way round the near end of the gap, by its corners (kept 0.01" clear of it)
    route = roll.state().table.route((10.0, 24.0), (16.0, 24.0))  # type: ignore[union-attr]
    length = way_round(*route)
    assert 7 < length < 8 and len(route) == 4
    for rolled in (6, 7):
        red = red_of(roll.child(rolled - lowest))
        assert not red.engaged
        gone = 0.0  # where the way round takes it after ``rolled`` inches
        point = route[0]
        for a, b in zip(route, route[1:]):
            leg = math.dist(a, b)
            if gone + leg >= rolled:
                t = (rolled - gone) / leg
                point = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
                break
            gone += leg
        assert (red.position, red.y) == (round(point[0], 3), round(point[1], 3))
        assert not in_impassable(roll.state(), red.position, red.y)
    landed = red_of(roll.child(8 - lowest))
    assert landed.engaged == [1] and (landed.position, landed.y) == (16.0, 24.0)


def test_difficult_ground_on_the_way_costs_a_charge_what_it_costs_a_move() -> None:
    """5" apart, 2" of them mud at 2 inches per inch: 7" of move, beyond a 6" charge."""
    mud = '  terrain bog "The bog" mud from 12", 0" to 14", 48"'
    red = red_of(root('engage within 6" as locked', mud, blue='15", 24"'))
    assert not red.engaged and (red.position, red.y) == (10.0, 24.0)
    red = red_of(root('engage within 7" as locked', mud, blue='15", 24"'))
    assert red.engaged == [1] and (red.position, red.y) == (15.0, 24.0)


@pytest.mark.parametrize("effect", ['move up to 3" toward the enemy', 'move up to 6" toward the enemy'])
def test_a_move_into_impassable_ground_with_no_way_round_stops_short_of_it(effect: str) -> None:
    """A consolidation toward an enemy across a gorge that runs the width of the table: the unit
    stops before the gorge, never on or in it."""
    gorge = '  terrain gorge "The gorge" chasm from 0", 26" to 48", 30"'
    start = root(effect, gorge, red='10", 24"', blue='10", 40"')
    state = start.state()
    step = int(effect.split()[3].rstrip('"'))
    red = red_of(start.child(step))
    assert red.y < 26 and 25.98 <= red.y and red.position == 10.0
    assert not in_impassable(state, red.position, red.y)


def test_the_move_it_takes_to_reach_a_point_goes_round_and_pays_for_the_ground() -> None:
    from compiler.battle.table import Area, Table
    kinds = {k.id: k for k in compile_text(RULES.format(effect='engage within 6" as locked', terrain="", red='1", 1"',
                                                        blue='2", 2"'), "c.rules").rulesets[0].get("charges").terrain}
    lake = Area("l", "Lake", kinds["chasm"], 12, 10, 14, 40)
    mud = Area("m", "Mud", kinds["mud"], 20, 0, 23, 48)
    t = Table(48, 48, (lake, mud))
    assert t.travel((0, 5), (30, 5)) == pytest.approx(33.0)  # straight, 3" of mud at 2
    round_it = way_round((10, 24), (11.99, 9.99), (14.01, 9.99), (18, 24))
    assert t.travel((10, 24), (18, 24)) == pytest.approx(round_it)  # the way round the lake's near end
    walled = Table(48, 48, (Area("w", "Cliff", kinds["chasm"], 12, 0, 14, 48),))
    assert walled.travel((10, 24), (18, 24)) == math.inf and walled.travel((10, 24), (10, 30)) == 6.0


@pytest.mark.parametrize("goal", [(48, 29), (48, 26.2), (48, 26.02), (30, 40)])
def test_a_move_that_meets_impassable_ground_at_a_slant_stops_clear_of_it(goal: tuple[float, float]) -> None:
    """Kept to a thousandth of an inch, the stop of a line that meets the gorge at a slant would
    round onto its edge: it stops clear of it, just short of where the line meets it."""
    from compiler.battle.table import Area, Table
    kinds = {k.id: k for k in compile_text(RULES.format(effect='engage within 6" as locked', terrain="", red='1", 1"',
                                                        blue='2", 2"'), "c.rules").rulesets[0].get("charges").terrain}
    gorge = Area("g", "Gorge", kinds["chasm"], 0, 26, 48, 30)
    t = Table(48, 48, (gorge,))
    end = t.move((0, 24), goal, 100)
    meets = (goal[0] * 2 / (goal[1] - 24), 26.0)  # where the line from (0, 24) meets the gorge's edge
    assert not gorge.contains(end) and end[1] < 26 and math.dist(end, meets) < 0.1


WATCH = '''
ruleset watch "Watch":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
status locked "Locked": "In close combat."
status on_overwatch "On overwatch": "Watching."
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
unit veteran "Veteran":
  BS 2  W 1
game g "A game":
  turns 1
  activation whole_army
  terrain chasm "Chasm": impassable
  phase watch "Watch":
    action hold "Hold": sets on_overwatch
  phase assault "Assault":
    action charge "Charge": engage within 8" as locked, attack shooting at engaged enemies
  when charged if on_overwatch: attack shooting
scenario field "A field":
  game g
  table 48" by 48"
  first red
{terrain}
  side red "Red":
    5 veteran at 10", 24"
  side blue "Blue":
    5 trooper at 16", 24"
'''


@pytest.mark.parametrize("terrain,reaches", [(LONG, False), (SHORT, True)])
def test_the_greedy_player_weighs_a_charge_and_overwatch_by_the_way_round(terrain: str, reaches: bool) -> None:
    """Across the long gorge the greedy player sees no charge to make (a charge worth less than
    nothing) and no charger to watch for; round the short gap it sees both (the veterans gain by
    closing: they strike surer than they are struck)."""
    from compiler.battle import Battle, GreedyPolicy

    result = compile_text(WATCH.format(terrain=terrain), "watch.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    red, blue = battle.state.units
    charge = model.get("g").phases[1].actions[0]
    assert (battle.estimates.action(red, charge) > 0) is reaches
    assert (battle.estimates.reaction_value(blue, "on_overwatch") > 0) is reaches
