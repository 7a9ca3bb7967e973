"""An ability's ``when`` condition governs its hooks as well as its modifiers.

A hook of an ability that does not apply (the target lacks the keyword, the situation is not
set) must not fire; the answers are worked out here by enumerating the dice.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, parse_expression

RULES = '''ruleset r "R":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat HP "Hit points" 1..10 role wounds: "w"
keyword infantry "Infantry": "i"
situation moved "Moved": "The target moved this turn."

test hit(Q) = roll d6 >= Q
test save() = roll d6 >= 4

ability anti "Anti-infantry": "A 6 to hit cannot be saved, against infantry only."
  on natural 6 to hit: no save
  when target has infantry

ability steady(X: 2..6) "Steady when moving": "Ignores damage on X+ after moving."
  on each damage: roll d6, ignored on X+
  when moved

attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models * 1
  hits    = attacks each hit(shooter.Q)
  unsaved = hits each not save()
  damage  = unsaved removes target

unit gunner "Gunner":
  Q 4  HP 1
unit tank "Tank":
  Q 4  HP 2
unit trooper "Trooper":
  Q 4  HP 1
  keywords infantry
unit runner "Runner":
  Q 4  HP 1
  abilities steady(4)
weapon gun "Gun":
  Q 1
  abilities anti
'''


def mean(question: str, **situation: Any) -> Fraction:
    result = compile_text(RULES)
    assert result.ok, [str(d.message) for d in result.diagnostics]
    ev = Evaluator(result.rulesets[0], situation=situation)
    return Fraction(ev.mean(ev.evaluate(parse_expression(question))))


def brute_unsaved(anti_applies: bool) -> Fraction:
    """One attack: hit on 4+; a 6 to hit skips the save when the ability applies; save on 4+."""
    total = Fraction(0)
    for hit_die, save_die in product(range(1, 7), repeat=2):
        hit = hit_die >= 4
        saved = save_die >= 4 and not (anti_applies and hit_die == 6)
        total += Fraction(int(hit and not saved), 36)
    return total


def test_hook_fires_when_its_condition_holds() -> None:
    assert mean("shoot(1 gunner, gun, 1 trooper).unsaved") == brute_unsaved(True) == Fraction(1, 3)


def test_hook_does_not_fire_when_its_condition_fails() -> None:
    assert mean("shoot(1 gunner, gun, 1 tank).unsaved") == brute_unsaved(False) == Fraction(1, 4)


def test_damage_hook_follows_the_situation() -> None:
    # One unsaved wound (chance 1/4) kills the runner unless the d6 against damage shows 4+,
    # which only applies when it moved.
    assert mean("shoot(1 gunner, gun, 1 runner).damage", moved=True) == Fraction(1, 4) * Fraction(1, 2)
    assert mean("shoot(1 gunner, gun, 1 runner).damage", moved=False) == Fraction(1, 4)
