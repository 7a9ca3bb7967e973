"""What a recorded battle reports, and in what order it does things: as it starts, who goes first
and how far apart the sides stand (on a line the scenario's distance, on a table the distance
between the nearest two enemies: each pair of units of different sides measured, friends never);
each action before what it does; a test at the end of a turn, then everything after it and its
case; a volley's count that a counter reads, for a shot and never for a blow in a combat."""
from __future__ import annotations

import math

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

RULES = '''
ruleset start "Start":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
game g "A firefight":
  turns 1
  activation whole_army
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation: "A side with no models left loses."
scenario line "On a line":
  game g
  distance 18"
  first blue
  side red "Red":
    5 trooper
  side blue "Blue":
    5 trooper
scenario table "On a table":
  game g
  table 36" by 24"
  first red
  side red "Red":
    5 trooper at 2", 2"
    5 trooper at 3", 2"
  side blue "Blue":
    5 trooper at 30", 20"
    5 trooper at 12", 14"
'''


@pytest.fixture(scope="module")
def model() -> compiler.Ruleset:
    result = compile_text(RULES, "start.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def start(model: compiler.Ruleset, scenario: str) -> dict[str, object]:
    battle = Battle(Rules(model), model.get(scenario), [GreedyPolicy(), GreedyPolicy()], seed=3)
    battle.run()
    assert battle.events[0]["event"] == "start"
    return battle.events[0]


def test_on_a_line_the_start_reports_the_scenarios_distance(model: compiler.Ruleset) -> None:
    event = start(model, "line")
    assert (event["first"], event["distance"], event["table"]) == ("blue", 18.0, None)


def test_on_a_table_the_start_reports_how_far_apart_the_nearest_enemies_stand(model: compiler.Ruleset) -> None:
    """Red's units 1" apart, Blue's at (30, 20) and (12, 14): the nearest enemies are Red's second
    unit and Blue's second, 15.0" apart (9 across, 12 up)."""
    event = start(model, "table")
    assert (event["first"], event["table"]) == ("red", [36.0, 24.0])
    assert event["distance"] == round(math.hypot(12 - 3, 14 - 2), 3) == 15.0


def test_each_action_taken_is_reported_before_what_it_does(model: compiler.Ruleset) -> None:
    """Each unit shoots in its side's turn: an "action" event (the unit, the action and its title)
    comes before the unit's volley, one per volley."""
    battle = Battle(Rules(model), model.get("line"), [GreedyPolicy(), GreedyPolicy()], seed=3)
    battle.run()
    kinds = [e["event"] for e in battle.events if e["event"] in ("action", "volley")]
    assert kinds and kinds == ["action", "volley"] * (len(kinds) // 2)
    for action, volley in zip(battle.events, battle.events[1:]):
        if action["event"] == "action":
            assert (action["action"], action["title"], volley["event"], volley["unit"]) == \
                ("shoot", "Shoot", "volley", action["unit"])


TESTED = RULES.replace('''test hit(BS) = roll d6 >= BS''', '''test hit(BS) = roll d6 >= BS
stat Ld "Leadership" 2..12
test steady(Ld) = roll 2d6 <= Ld
status shaken "Shaken": "Lost models this turn."
status pinned "Pinned": "Failed its test."''').replace('''  BS 4  W 1''', '''  BS 4  W 1  Ld 7''').replace(
    '''  victory wipe''', '''  at end of turn: each unit with models < started takes steady(Ld), sets shaken
    on "failed": sets pinned
  victory wipe''')


class Fixed:
    """Nature: each volley removes one model; every test gives outcome ``test``."""

    def __init__(self, test: int) -> None:
        self.test = test

    def outcome(self, battle: Battle, law: object, what: str) -> int:
        values = getattr(law, "values")
        return values.index(1) if what == "volley" else self.test


def test_a_test_at_the_end_of_a_turn_does_everything_after_it_then_its_case() -> None:
    """Each side loses a model, so at the end of the turn each unit takes its test: it is shaken
    whatever the result, and pinned too when it fails."""
    result = compile_text(TESTED, "tested.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    held = set()
    for test in (0, 1):
        battle = Battle(Rules(model), model.get("line"), [GreedyPolicy(), GreedyPolicy()], seed=0, nature=Fixed(test))
        battle.run()
        assert [u.models for u in battle.state.units] == [4, 4]
        [statuses] = {frozenset(u.statuses) for u in battle.state.units}
        held.add(statuses)
    assert held == {frozenset({"shaken"}), frozenset({"shaken", "pinned"})}


PINS = '''
ruleset pins "Pins":
  version 1.0.0
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
situation pins "Pins" 0..20
test blow(Ld) = roll d6 >= Ld
status locked "Locked": "In combat."
attack brawl(attacker, defender) "Brawl":
  hits = attacker.models each blow(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  Ld 4  W 1
game g "A game":
  turns 1
  activation whole_army
  counter pins: rises by hits when shot, falls by 1 at end of game turn
  phase assault "Assault":
    must action charge "Charge": engage within 6" as locked
  phase fire "Fire":
    must action shoot "Shoot": attack brawl
  phase fight "Fight":
    combat brawl in order of Ld
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  game g
  distance 4"
  first red
  side red "Red":
    8 trooper
  side blue "Blue":
    8 trooper
'''


def test_a_volley_shot_reports_the_hits_its_counter_reads_and_a_blow_in_a_combat_none() -> None:
    """``pins`` rises by the hits of each volley a unit is shot with: a volley of the fire phase is
    drawn with its hits, which its event reports; the blows of the fight phase are no shots, drawn
    and reported without a count."""
    result = compile_text(PINS, "pins.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("clash"), [GreedyPolicy(), GreedyPolicy()], seed=5)
    battle.run()
    volleys = [e for e in battle.events if e["event"] == "volley"]
    fired = [e for e in volleys if e["phase"] == "fire"]
    blows = [e for e in volleys if e["phase"] == "fight"]
    assert fired and blows
    assert all(e["counted"]["hits"] >= e["removed"] for e in fired) and not any("counted" in e for e in blows)
