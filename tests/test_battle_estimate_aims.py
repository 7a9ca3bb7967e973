"""What the greedy player may aim at: an attack ``at enemies not STATUS`` can be made only while
some enemy in reach does not hold the status, and ``at engaged enemies`` only while the unit is
engaged with one; the answer follows the enemy's status and the engagement from one state to the
next (the same units at the same distances)."""
from __future__ import annotations

from typing import Any

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

RULES = '''
ruleset aims "Aims":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
status hidden "Hidden": "Gone to ground."
status locked "Locked": "In close combat."
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
game g "A game":
  turns 1
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting at enemies not hidden
    action brawl "Brawl": attack shooting at engaged enemies
  phase assault "Assault":
    action charge "Charge": engage within 12" as locked
scenario field "A field":
  game g
  distance 24"
  first red
  side red "Red":
    5 trooper at 0"
  side blue "Blue":
    5 trooper at 10"
'''


def battle() -> Any:
    result = compile_text(RULES, "aims.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed=1), model


def test_an_attack_that_spares_a_status_follows_the_enemy_s_status() -> None:
    b, model = battle()
    red, blue = b.state.units
    shoot, brawl = model.get("g").phases[0].actions
    est = b.estimates
    assert est.can_attack(red, shoot) and not est.can_attack(red, brawl)
    blue.statuses["hidden"] = "turn"
    assert not est.can_attack(red, shoot)
    del blue.statuses["hidden"]
    assert est.can_attack(red, shoot)
    blue.statuses["hidden"] = "turn"
    assert not est.can_attack(red, shoot)


def test_an_attack_at_engaged_enemies_follows_the_engagement() -> None:
    b, model = battle()
    red, blue = b.state.units
    _, brawl = model.get("g").phases[0].actions
    est = b.estimates
    assert not est.can_attack(red, brawl)
    red.engaged.append(blue.uid)
    blue.engaged.append(red.uid)
    assert est.can_attack(red, brawl)
