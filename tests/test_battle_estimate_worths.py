"""What the greedy player weighs an action at, worked out here from the exact law of each volley
(Fractions): a charge whose close-combat blows follow it is worth those blows at the enemy it
reaches; an attack that spares a status is worth its volley at an enemy without it, and nothing
at one that holds it; an attack within its weapons' reach is offered while one of two like enemies
stands in reach, and no longer once neither does; a fall back that gains nothing is not made."""
from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

RULES = '''
ruleset worths "Worths":
  version 1.0.0
stat Range "Range" distance
stat A "Attacks" 1..10
stat W "Wounds" 1..10 role wounds
status locked "Locked": "In close combat."
status hidden "Hidden": "Gone to ground."
test hit() = roll d6 >= 4
attack strike(attacker, weapon, target) "Strike":
  attacks = attacker.models * weapon.A
  hits = attacks each hit()
  killed = hits removes target
unit trooper "Trooper":
  W 1
  weapons rifle, blade
weapon rifle "Rifle":
  Range 12"  A 1
weapon blade "Blade":
  Range -  A 2
game g "A game":
  turns 1
  activation whole_army
  phase act "Act":
{actions}
scenario field "A field":
  game g
  distance 48"
  first red
  side red "Red":
    2 trooper at 0"
  side blue "Blue":
{blue}
'''


def removed(dice: int, models: int) -> Fraction:
    """The models a volley of ``dice`` dice hitting on 4+ removes on average (one a hit, no more
    than there are)."""
    return sum((min(k, models) * comb(dice, k) * Fraction(1, 2) ** dice for k in range(dice + 1)), Fraction(0))


def battle(actions: str, blue: str = '    3 trooper at 5"') -> tuple[Any, Any, list[Any]]:
    result = compile_text(RULES.format(actions=actions, blue=blue), "worths.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    b = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    return b, model, list(model.get("g").phases[0].actions)


def test_a_charge_is_worth_the_blows_that_follow_it() -> None:
    """Two troopers charge three 5" off (a sure 8" reach): their blades' four dice at 4+."""
    b, _, (charge,) = battle('    action charge "Charge": engage within 8" as locked, attack strike without Range')
    red = b.state.units[0]
    assert b.estimates.action(red, charge) == pytest.approx(float(removed(4, 3)), rel=1e-12)
    assert removed(4, 3) == Fraction(31, 16)


def test_an_attack_that_spares_a_status_is_worth_its_volley_at_an_enemy_without_it() -> None:
    b, _, (shoot,) = battle('    action shoot "Shoot": attack strike within Range at enemies not hidden')
    red, blue = b.state.units
    assert b.estimates.action(red, shoot) == pytest.approx(float(removed(2, 3)), rel=1e-12)  # two rifles
    blue.statuses["hidden"] = "turn"
    assert b.estimates.action(red, shoot) <= 0


def test_an_attack_within_reach_is_offered_while_one_of_two_like_enemies_stands_in_reach() -> None:
    """Blue's two like squads, the first 30" off (out of the rifles' 12"), the second 5" off: Red can
    shoot; with the second gone back to 20", it cannot."""
    b, _, (shoot,) = battle('    action shoot "Shoot": attack strike within Range',
                            blue='    3 trooper at 30"\n    3 trooper at 5"')
    red, _, near = b.state.units
    assert b.estimates.can_attack(red, shoot)
    near.position = 20.0
    assert not b.estimates.can_attack(red, shoot)
    near.position = 12.0
    assert b.estimates.can_attack(red, shoot)


def test_a_fall_back_that_gains_nothing_is_not_made() -> None:
    """Nothing to shoot and no objective: the greedy player does nothing rather than fall back."""
    b, _, _ = battle('    action back "Fall back": move up to 6" away from the enemy')
    b.run()
    assert [e for e in b.events if e["event"] in ("action", "move")] == []
    assert [u.position for u in b.state.units] == [0.0, 5.0]
