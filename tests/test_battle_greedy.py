"""The greedy player holds still when moving gains nothing, and holds its fire for a reaction only
when the reaction is worth more than the fire it gives up (overwatch as a defender plays it)."""
from __future__ import annotations

from fractions import Fraction

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

RULES = '''
ruleset watch "Watch":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
stat Range "Range" distance
stat M "Move" 0..12
test hit(BS) = roll d6 >= BS
test steady(Ld) = roll 2d6 <= Ld
status on_watch "On watch": "Holding fire for a charge."
status moved "Moved": "It moved this turn."
status locked "Locked": "In a fight."
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  Ld 8  W 1  M 6
unit gunner "Gun crew":
  BS 4  Ld 8  W 1  M 0
weapon rifle "Rifle":
  Range {range}"
weapon blade "Blade":
  Range 1"
game g "A game":
  turns 2
  activation whole_army
  phase move "Movement":
    action advance "Advance": move up to M toward the enemy, clears on_watch, sets moved until end of turn unless locked
  phase watch "Watch":
    action hold "Hold fire": tests steady(Ld), sets on_watch unless locked or on_watch or moved
  phase fire "Shooting":
    action shoot "Shoot": attack shooting within Range, clears on_watch unless locked or on_watch
  phase charge "Assault":
    action charge "Charge": engage within 6" as locked, clears on_watch unless locked
  when charged if on_watch: attack shooting within Range, clears on_watch
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game g
  distance {gap}"
  first red
  side red "Red":
    5 {red} with rifle
  side blue "Blue":
    5 trooper with {blue}
'''


def battle(gap: int, reach: int, red: str = "trooper", blue: str = "rifle") -> Battle:
    result = compile_text(RULES.format(range=reach, gap=gap, red=red, blue=blue), "watch.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Battle(Rules(model, exact=True), model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=3)


def first_turn(b: Battle, side: str) -> list[str]:
    b.run()
    return [e["action"] for e in b.events if e["event"] == "action" and e["turn"] == 1 and e["side"] == side]


def test_a_unit_already_in_range_holds_still_and_one_out_of_range_closes_in() -> None:
    """Red's rifles reach 24": at 20" a move gains nothing, so Red does not move (no 'moved' status
    to bar overwatch); at 30" it advances to bring its rifles to bear."""
    b = battle(20, 24)
    red, _ = b.state.units
    advance = b.game.phases[0].actions[0]
    assert b.estimates.action(red, advance) < 0 < b.estimates.action(red, b.game.phases[2].actions[0])
    assert first_turn(b, "red") == ["shoot"]
    far = battle(30, 24)
    assert first_turn(far, "red")[0] == "advance"
    assert far.state.units[0].position == 6  # all the way: closing in is what a move is for


def test_overwatch_is_chosen_only_when_the_charge_fire_beats_the_fire_given_up() -> None:
    """A gun crew that cannot move, 10" from raiders with blades: its 8" rifles cannot fire now, but
    the raiders can charge it next turn (6" + 6"), so holding fire is worth P(steady) times the
    volley at a charger 6" away; the raiders come on and charge, and a crew on watch fires first.
    At 6" the crew could fire now: a volley now beats the same volley only if the test passes."""
    b = battle(10, 8, red="gunner", blue="blade")
    red, blue = b.state.units
    hold = b.game.phases[1].actions[0]
    volley = b.estimates.expected(b.rules.model.get("shooting"), red, blue, 6.0, reach="Range")
    steady = Fraction(26, 36)  # 2d6 <= 8: 1 + 2 + 3 + 4 + 5 + 6 + 5 of the 36 throws
    assert abs(b.estimates.action(red, hold) - float(steady) * volley) < 1e-9 and volley > 0
    assert first_turn(b, "red") == ["hold"]
    test = next(e for e in b.events if e["event"] == "test")
    charge = next(i for i, e in enumerate(b.events) if e["event"] == "engage")
    fired = b.events[charge + 1]["event"] == "reaction" and b.events[charge + 2]["event"] == "volley"
    assert fired == test["passed"]  # on watch: it fired at the charger before contact; a failed test, no
    near = battle(6, 8, red="gunner", blue="blade")
    assert near.estimates.action(near.state.units[0], near.game.phases[1].actions[0]) < 0
    assert first_turn(near, "red")[:1] == ["shoot"]
