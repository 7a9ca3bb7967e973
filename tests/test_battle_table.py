"""A table in two dimensions: distances on the table, sight blocked by terrain, cover read from the
table (the volley law of the ruleset's cover situation, exactly), moves through difficult and
impassable ground, and the scenarios `check` refuses."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest

from compiler.battle import CHANCE, Battle, GreedyPolicy, Node, Rules
from compiler.driver import compile_text
from compiler.model.values import ProfileRef
from compiler.resolve import Evaluator, parse_expression

RULES = '''
ruleset skirmish "Skirmish":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Sv "Save" 1..7
stat W "Wounds" 1..10 role wounds
situation in_cover "In cover"
situation smoke "Through smoke"
test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(if smoke then shooter.BS + 1 else shooter.BS)
  unsaved = hits each not save(if in_cover then target.Sv - 2 else target.Sv)
  killed = unsaved removes target
unit trooper "Trooper":
  BS 4  Sv 5  W 1
game skirmish "A skirmish":
  turns 1
  activation whole_army
  terrain woods "Woods": sets in_cover for units in it, costs 2 inches per inch
  terrain wall "Wall": blocks sight
  terrain lake "Lake": impassable
  terrain haze "Haze": sets smoke for fire through it
  phase move "Movement":
    action advance "Advance": move up to 6" toward the enemy
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
scenario field "A field":
  game skirmish
  table 48" by 48"
  first red
{terrain}
  side red "Red":
    4 trooper at {red}
  side blue "Blue":
    3 trooper at {blue}
'''


def compiled(terrain: str = "", red: str = '10", 24"', blue: str = '40", 24"'):  # type: ignore[no-untyped-def]
    result = compile_text(RULES.format(terrain=terrain, red=red, blue=blue), "skirmish.rules")
    return result


def model_of(**kw: Any):  # type: ignore[no-untyped-def]
    result = compiled(**kw)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def root(model) -> Node:  # type: ignore[no-untyped-def]
    return Node.root(Rules(model, exact=True), model.get("field"))


def test_distances_are_measured_on_the_table() -> None:
    model = model_of(red='10", 20"', blue='13", 24"')
    red, blue = root(model).state().units
    assert (red.position, red.y, blue.position, blue.y) == (10, 20, 13, 24)
    assert root(model).state().distance(red, blue) == 5.0  # a 3-4-5 triangle


def test_a_wall_between_two_units_leaves_the_shooter_no_target() -> None:
    open_ground = root(model_of()).child(1)  # Red does not move: its shooting phase
    assert [o.label for o in open_ground.choice().options] == ["Shoot", "Nothing"]  # type: ignore[union-attr]
    walled = root(model_of(terrain='  terrain stone "Stone wall" wall from 20", 10" to 22", 40"')).child(1)
    assert walled.current_player() == 1  # nothing to shoot at: Blue's turn comes
    beside = root(model_of(terrain='  terrain stone "Stone wall" wall from 20", 30" to 22", 40"')).child(1)
    assert beside.current_player() == 0  # the wall is off the line of fire


def law_in(model, situation: dict[str, Any]) -> list[Fraction]:  # type: ignore[no-untyped-def]
    ev = Evaluator(model, exact=True, situation=situation)
    steps = ev.evaluate(parse_expression("shooting(a, b)"), {"a": ProfileRef("trooper", 4), "b": ProfileRef("trooper", 3)}).steps
    return [p for _, p in sorted(steps.removal_state("killed").items())]


def test_a_unit_in_cover_terrain_is_shot_with_the_volley_law_of_the_cover_situation() -> None:
    model = model_of(terrain='  terrain copse "Copse" woods from 35", 20" to 45", 30"')
    volley = root(model).child(1).child(0)  # Red stays, shoots
    assert volley.current_player() == CHANCE and volley.chance_kind() == "volley"
    got = [p for _, p in volley.chance_outcomes()]
    assert got == law_in(model, {"in_cover": True}) != law_in(model, {})
    # fire through haze: the situation of the line of fire, not of the target
    hazy = model_of(terrain='  terrain mist "Mist" haze from 20", 0" to 25", 48"')
    assert [p for _, p in root(hazy).child(1).child(0).chance_outcomes()] == law_in(hazy, {"smoke": True})
    clear = model_of(terrain='  terrain mist "Mist" haze from 20", 0" to 25", 10"')
    assert [p for _, p in root(clear).child(1).child(0).chance_outcomes()] == law_in(clear, {})


@pytest.mark.parametrize("terrain,x", [
    ("", 16.0),                                                         # 6" of open ground
    ('  terrain band "Woods" woods from 12", 0" to 30", 48"', 14.0),    # 2" open, then 4" of move is 2" of wood
    ('  terrain pond "Pond" lake from 12", 0" to 14", 48"', 11.99),     # stops short of it, never on its edge
])
def test_difficult_and_impassable_ground_change_a_move_as_the_rules_say(terrain: str, x: float) -> None:
    node = root(model_of(terrain=terrain))
    choice = node.choice()
    assert choice is not None and choice.kind == "action"
    advance = node.child(0)  # Advance: how far? 0..6
    moved = advance.child(6)
    red = moved.state().units[0]
    assert (red.position, red.y) == (x, 24.0)


def test_a_battle_on_a_table_plays_to_a_result() -> None:
    model = model_of(terrain='  terrain copse "Copse" woods from 35", 20" to 45", 30"\n'
                             '  terrain stone "Stone wall" wall from 20", 26" to 22", 40"')
    rules = Rules(model)
    volleys = []
    for seed in range(20):
        battle = Battle(rules, model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        out = battle.run()
        assert out.reason in ("wipe", "turn limit")
        volleys += [e for e in battle.events if e["event"] == "volley"]
    # Blue stands in the copse all game: Red's fire at it is worked out in cover; Red's men are not
    assert {tuple(e["situation"]) for e in volleys if e["target"] == "Trooper" and e["unit"] == "Trooper"} <= \
        {("in_cover",), ()}
    assert any(e["situation"] == ["in_cover"] for e in volleys)


@pytest.mark.parametrize("change,message", [
    (('table 48" by 48"', 'table 1000000" by 48"'), 'a table of 1,000,000" by 48" is larger than warscribe plays'),
    (('4 trooper at 10", 24"', '4 trooper at 50", 24"'), 'a unit placed at 50", 24" is off the battlefield'),
    (('4 trooper at 10", 24"', '4 trooper at 10"'), "a unit on a table is placed at two numbers"),
    (('  first red\n', '  first red\n  terrain pond "Pond" lake from 5", 20" to 15", 30"\n'),
     "stands in impassable terrain 'pond'"),
    (('  first red\n', '  first red\n  terrain pond "Pond" swamp from 5", 20" to 15", 30"\n'), "unknown terrain kind 'swamp'"),
    (('  first red\n', '  first red\n  distance 24"\n'), "has a table and a distance"),
    (('  first red\n', '  first red\n  terrain pond "Pond" lake from 5", 20" to 60", 30"\n'),
     "terrain 'pond' at 60\", 30\" is off the battlefield"),
])
def test_scenarios_that_cannot_be_played_on_the_table_are_refused(change: tuple[str, str], message: str) -> None:
    source = RULES.format(terrain="", red='10", 24"', blue='40", 24"')
    assert change[0] in source
    result = compile_text(source.replace(change[0], change[1], 1), "skirmish.rules")
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert any(message in d.message for d in errors), [d.message for d in errors]
    assert all(d.span.line > 0 for d in errors)


@pytest.mark.parametrize("change", [
    ('4 trooper at 10", 24"', '4 trooper at 10.5", 24"'),
    ('table 48" by 48"', 'table 48" by 47.25"'),
])
def test_a_fraction_of_an_inch_in_a_scenario_is_refused_where_written(change: tuple[str, str]) -> None:
    """Scenario measures are whole inches: 10.5" was once cut to 10" without a word."""
    source = RULES.format(terrain="", red='10", 24"', blue='40", 24"')
    assert change[0] in source
    changed = source.replace(change[0], change[1], 1)
    result = compile_text(changed, "skirmish.rules")
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["W863"], [d.message for d in errors]
    (error,) = errors
    fraction = change[1].split()[-1] if "by" in change[1] else '10.5"'
    assert f"{fraction} is not one" in error.message and error.hint and "whole inches" in error.hint
    line = changed.splitlines()[error.span.line - 1]
    assert line[error.span.column - 1:].startswith(fraction), (line, error.span)


def test_an_objective_in_impassable_ground_is_refused_and_one_on_the_table_exported() -> None:
    from compiler.site.export import export
    game = RULES.replace("  victory wipe", '  control within 3" by models\n  victory wipe')
    bad = game.format(terrain='  terrain pond "Pond" lake from 20", 20" to 28", 28"\n'
                              '  objective relic "The relic" at 24", 24"', red='10", 24"', blue='40", 24"')
    assert any("objective 'relic' at 24\", 24\" stands in impassable terrain 'pond'" in d.message
               for d in compile_text(bad, "s.rules").diagnostics)
    good = game.format(terrain='  terrain copse "Copse" woods from 20", 20" to 28", 28"\n'
                               '  objective relic "The relic" at 24", 30"', red='10", 24"', blue='40", 24"')
    data = export(compile_text(good, "s.rules"))
    sc = {d["id"]: d for d in data["rulesets"][0]["declarations"]}["field"]
    assert sc["table"] == {"width": 48, "depth": 48}
    assert sc["terrain"] == [{"id": "copse", "title": "Copse", "kind": "woods", "from": [20, 20], "to": [28, 28]}]
    assert sc["objectives"] == [{"id": "relic", "title": "The relic", "at": [24, 30]}]
    assert sc["sides"][0]["units"][0]["at"] == [10, 24]


def test_deployment_zones_place_units_and_are_checked() -> None:
    zoned = RULES.replace('  side red "Red":\n', '  side red "Red":\n    deploy from 0", 0" to 48", 12"\n').replace(
        '  side blue "Blue":\n', '  side blue "Blue":\n    deploy from 0", 36" to 48", 48"\n')
    model = compile_text(zoned.format(terrain="", red='10", 4"', blue='40", 40"'), "s.rules")
    assert model.ok, [d.message for d in model.diagnostics]
    # a unit not placed stands in the middle of its zone
    loose = compile_text(zoned.replace("4 trooper at {red}", "4 trooper").format(terrain="", red="", blue='40", 40"'),
                         "s.rules").rulesets[0]
    red = Node.root(Rules(loose), loose.get("field")).state().units[0]
    assert (red.position, red.y) == (24.0, 6.0)
    outside = compile_text(zoned.format(terrain="", red='10", 20"', blue='40", 40"'), "s.rules")
    assert any('a unit placed at 10", 20" is outside the deployment zone of side \'red\'' in d.message
               for d in outside.diagnostics)
    overlap = compile_text(zoned.replace('deploy from 0", 36" to 48", 48"', 'deploy from 0", 10" to 48", 48"')
                           .format(terrain="", red='10", 4"', blue='40", 40"'), "s.rules")
    errors = [d for d in overlap.diagnostics if "overlap" in d.message]
    assert errors and errors[0].code == "W864" and "sides 'red' and 'blue'" in errors[0].message
    assert errors[0].span.line == zoned.split("\n").index('  side blue "Blue":') + 1


def test_play_draws_the_table_with_its_terrain_objectives_and_units() -> None:
    from compiler.cli.battlemap import battle_map
    model = model_of(terrain='  terrain pond "Pond" lake from 0", 0" to 4", 4"\n'
                             '  terrain stone "Stone wall" wall from 44", 44" to 48", 48"')
    state = Node.root(Rules(model), model.get("field")).state()
    drawn = battle_map(state)
    assert drawn is not None
    rows = drawn.plain.splitlines()
    assert rows[0] == rows[25] == "+" + "-" * 48 + "+"  # 48 columns of an inch, 24 rows of two inches
    grid = [r[1:-1] for r in rows[1:25]]
    assert grid[-1][:4] == "~~~~" and grid[0][-4:] == "####"  # the pond at the first side's corner, the wall far
    assert grid[24 - 1 - 12][10] == "A" and grid[24 - 1 - 12][40] == "a"  # Red at 10", 24"; Blue at 40", 24"
    assert rows[26:] == ["  A = Trooper (4)", "  a = Trooper (3)"]
    line = compile_text(RULES.replace('  table 48" by 48"\n', '  distance 24"\n').replace(' at {red}', '').replace(
        ' at {blue}', '').format(terrain=""), "s.rules").rulesets[0]
    assert battle_map(Node.root(Rules(line), line.get("field")).state()) is None  # no map of a line


# -- the table's geometry, against hand-worked answers ---------------------------------------------

def _kind(**kw: Any):  # type: ignore[no-untyped-def]
    from compiler import ast as A
    return A.TerrainKind(None, kw.pop("id", "k"), "K", **kw)  # type: ignore[arg-type]


def test_a_line_crosses_an_area_where_clipping_says() -> None:
    from compiler.battle.table import Area
    box = Area("b", "B", _kind(), 10, 10, 20, 20)
    assert box.crossing((0, 15), (30, 15)) == (pytest.approx(1 / 3), pytest.approx(2 / 3))  # straight across
    assert box.crossing((30, 15), (0, 15)) == (pytest.approx(1 / 3), pytest.approx(2 / 3))  # the other way
    assert box.crossing((15, 0), (15, 30)) == (pytest.approx(1 / 3), pytest.approx(2 / 3))  # up through it
    assert box.crossing((0, 0), (30, 30)) == (pytest.approx(1 / 3), pytest.approx(2 / 3))   # corner to corner
    assert box.crossing((0, 5), (30, 5)) is None      # below it
    assert box.crossing((0, 9.5), (30, 9.5)) is None and box.crossing((9.5, 0), (9.5, 30)) is None  # just outside
    assert box.crossing((0, 10), (30, 10)) is not None  # along its edge: the edge is in it
    assert box.crossing((0, 25), (30, 25)) is None    # above it
    assert box.crossing((25, 0), (25, 30)) is None    # beside it
    assert box.crossing((0, 15), (10, 15)) is None    # stops at its edge: touches, does not cross
    assert box.crossing((12, 12), (18, 18)) == (0.0, 1.0)  # inside all along
    assert box.crossing((15, 15), (15, 15)) == (0.0, 1.0) and box.crossing((5, 5), (5, 5)) is None  # a point
    assert box.contains((10, 10)) and box.contains((20, 20)) and not box.contains((9.99, 15))
    assert not box.contains((15, 20.01)) and not box.contains((20.01, 15)) and not box.contains((15, 9.99))


def test_sight_and_situations_between_two_points() -> None:
    from compiler.battle.table import Area, Table
    wall = Area("w", "Wall", _kind(blocks=True, through="behind_wall"), 10, 0, 12, 20)
    wood = Area("o", "Wood", _kind(inside="in_cover", through="through_wood"), 20, 0, 30, 20)
    t = Table(48, 48, (wall, wood))
    assert not t.in_sight((0, 5), (40, 5)) and t.in_sight((0, 30), (40, 30))
    assert t.in_sight((11, 5), (40, 5))  # standing in the wall: it sees out
    assert t.situations((40, 5), (25, 5)) == ("in_cover",)  # in the wood, fired at from beyond it
    assert t.situations((14, 5), (40, 5)) == ("through_wood",)
    assert t.situations((0, 5), (40, 5)) == ("behind_wall", "through_wood")
    assert t.situations((0, 30), (40, 30)) == ()
    assert t.situations((0, 5), (40, 5)) == ("behind_wall", "through_wood")  # asked again: the same


def test_moves_pay_for_the_ground_they_cross() -> None:
    from compiler.battle.table import Area, Table
    mud = Area("m", "Mud", _kind(cost=3), 10, 0, 20, 48)
    lake = Area("l", "Lake", _kind(impassable=True), 30, 0, 35, 48)
    t = Table(48, 48, (mud, lake))
    assert t.move((0, 5), (40, 5), 5) == (5.0, 5.0)          # open ground
    assert t.move((0, 5), (40, 5), 10) == (10.0, 5.0)        # to the mud's edge
    assert t.move((0, 5), (40, 5), 13) == (11.0, 5.0)        # 3" of move is 1" of mud
    assert t.move((0, 5), (40, 5), 40) == (20.0, 5.0)        # 10 of open, 30 for the 10" of mud
    assert t.move((0, 5), (40, 5), 45) == (25.0, 5.0)        # and 5" of open beyond
    assert t.move((0, 5), (40, 5), 50) == (29.99, 5.0)       # a hundredth short of the lake, where it stops
    assert t.move((0, 5), (40, 5), 49.995) == (29.99, 5.0)   # never nearer than that to it
    assert t.move((0, 5), (40, 5), 100) == (29.99, 5.0)
    assert t.move((0, 5), (8, 5), 100) == (8.0, 5.0)         # never past the goal
    assert t.move((0, 5), (40, 5), 0) == (0.0, 5.0) and t.move((3, 3), (3, 3), 9) == (3, 3)
    assert t.move((0, 0), (30, 40), 10) == (6.0, 8.0)        # straight along the diagonal
    assert t.cost_at((15, 5)) == 3.0 and t.cost_at((32, 5)) == float("inf") and t.cost_at((25, 5)) == 1.0


def test_a_move_goes_the_shortest_way_round_impassable_ground() -> None:
    from compiler.battle.table import Area, Table
    lake = Area("l", "Lake", _kind(impassable=True), 12, 10, 14, 40)
    t = Table(48, 48, (lake,))
    route = t.route((10, 24), (40, 24))
    assert route[0] == (10, 24) and route[-1] == (40, 24) and len(route) == 4
    assert [(round(x, 2), round(y, 2)) for x, y in route[1:3]] == [(11.99, 9.99), (14.01, 9.99)]  # the nearer end
    x, y = t.move((10, 24), (40, 24), 6)
    assert (x, y) == (round(10 + 1.99 * 6 / math.hypot(1.99, 14.01), 3), round(24 - 14.01 * 6 / math.hypot(1.99, 14.01), 3))
    assert t.move((10, 24), (40, 24), 100) == (40.0, 24.0)  # round it, and on to the goal
    assert t.route((10, 5), (40, 5)) == [(10, 5), (40, 5)]  # clear of it: straight
    wall = Table(48, 48, (Area("w", "Cliff", _kind(impassable=True), 12, 0, 14, 48),))
    assert wall.route((10, 24), (40, 24)) == [(10, 24), (40, 24)] and wall.move((10, 24), (40, 24), 9) == (11.99, 24.0)


@pytest.mark.parametrize("lake,start,goal,corner", [
    ((0.01, 10, 14, 40), (7, 5), (7, 45), (0.0, 9.99)),      # the left edge's corner: 7" across, not 7.01"
    ((34, 10, 47.99, 40), (41, 5), (41, 45), (48.0, 9.99)),  # the right edge's
    ((10, 0.01, 40, 14), (5, 7), (45, 7), (9.99, 0.0)),      # the near edge's
    ((10, 34, 40, 47.99), (5, 41), (45, 41), (9.99, 48.0)),  # the far edge's
])
def test_a_way_round_may_run_along_the_tables_edge(lake: tuple[float, float, float, float], start: tuple[float, float],
                                                   goal: tuple[float, float], corner: tuple[float, float]) -> None:
    """A corner of the way round that lies on the table's edge is on the table: the shorter way
    passes it."""
    from compiler.battle.table import Area, Table
    t = Table(48, 48, (Area("l", "Lake", _kind(impassable=True), *lake),))
    route = t.route(start, goal)
    assert len(route) == 4 and route[1] == corner


def test_an_attack_with_every_enemy_out_of_sight_is_not_made_and_the_log_says_so() -> None:
    from compiler.battle import EFFECTS
    model = model_of(terrain='  terrain stone "Stone wall" wall from 20", 10" to 22", 40"')
    battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    red, blue = battle.state.units
    shoot = model.get("skirmish").phases[1].actions[0]
    assert EFFECTS["attack"](battle, red, shoot.effects[0], shoot) is False
    assert battle.events[-1]["event"] == "out_of_sight" and blue.models == 3
