"""Which effects apply (:mod:`compiler.resolve.effects`): the cases mutation testing found
untested, each against the law of the dice written here.

An ability's plain effect under a ``when`` that does not hold, an ability's ``when`` that reads
its own value, a condition about a role asked outside an attack, the ``when attacked:`` effect
of the one role of an attack that has no attacker.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from test_hook_effects import BASE, ask, enumerate_attacks

RULES = '''
keyword vehicle "Vehicle": "A machine."
situation cover "In cover"
situation range "Range" 0..24

modifier big_target "Big target": +1 to hit when target has vehicle

ability steady "Steady": "Aims better from cover."
  +1 to hit
  when cover
ability close(N: 6..24) "Close": "Aims better within N."
  +1 to hit
  when range <= N

weapon pistol "Pistol":
  A 1  S 4  AP 0  D 1

unit steady_one "Steady one":
  Q 4
  abilities steady
unit close8 "Close 8":
  Q 4
  abilities close(8)
'''

LONE = '''
ability thick_skin "Thick skin": "Saves more easily."
  when attacked: +1 to save

unit skin "Skin":
  T 4  W 1  Sv 4+
  abilities thick_skin

attack fall(target) "Everyone saves":
  rolls = target.models each save(target.Sv, 0)
'''


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(BASE + RULES)
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def hits(n: int, need: int) -> dict[int, Fraction]:
    """Hits of ``n`` attacks on a d6 needing ``need`` or more."""
    p = Fraction(7 - need, 6)
    return {k: comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)}


@pytest.mark.parametrize("situation, need", [("", 4), (" with cover", 3)])
def test_an_abilitys_plain_effect_counts_only_when_its_condition_holds(model: Any, situation: str, need: int) -> None:
    assert ask(model, f"shoot(2 steady_one, pistol, 3 victim).hits{situation}") == hits(2, need)


@pytest.mark.parametrize("at, need", [(6, 3), (8, 3), (9, 4), (12, 4)])
def test_an_abilitys_condition_reads_its_own_value(model: Any, at: int, need: int) -> None:
    assert ask(model, f"shoot(2 close8, pistol, 3 victim).hits with range = {at}") == hits(2, need)


def test_a_condition_about_a_role_does_not_hold_outside_an_attack(model: Any) -> None:
    # ``hit(4)`` asked on its own has no target: the big-target modifier does not apply.
    rolls = Evaluator(model).evaluate(parse_expression("hit(4)")).probabilities()
    assert {r.natural for r, _ in rolls.items() if r.success} == {4, 5, 6}
    assert sum(p for r, p in rolls.items() if r.success) == Fraction(1, 2)


def test_the_when_attacked_effect_of_an_attacks_only_role() -> None:
    # ``fall`` has no attacker: its one role is the target, whose thick skin makes 4+ a 3+
    # (in a ruleset with no modifier: only the ability can change the roll).
    result = compile_text(BASE + LONE)
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    assert ask(model, "fall(3 skin).rolls") == hits(3, 3)
    assert ask(model, "fall(3 victim).rolls") == hits(3, 3)  # the victim's own 3+, no ability


def test_a_stat_modifier_of_a_role_changes_only_that_roles_stat() -> None:
    result = compile_text(BASE + '''
modifier hardened "Hardened": +1 T of target

attack trade(shooter, weapon, target) "Each side's toughness":
  attacks = shooter.models * weapon.A
  own     = attacks each wound(weapon.S, shooter.T)
  theirs  = attacks each wound(weapon.S, target.T)

unit guard "Guard":
  Q 4  T 4  W 1  Sv 4+
weapon pistol "Pistol":
  A 1  S 4  AP 0  D 1
''')
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    # S4 against the guard's own T4 wounds on 4+; against the victim's T4 made T5, on 5+.
    assert ask(model, "trade(2 guard, pistol, 3 victim).own") == hits(2, 4)
    assert ask(model, "trade(2 guard, pistol, 3 victim).theirs") == hits(2, 5)


CAPS = '''
situation cover "In cover"
situation ground "Ground" one of open, rough
modifier m "M": save never better than VALUE
'''


@pytest.mark.parametrize("value", ["cover", "ground"])
def test_a_cap_that_names_a_yes_no_or_choice_situation_is_refused_by_check(value: str) -> None:
    text = BASE + CAPS.replace("VALUE", value)
    errs = [d for d in compile_text(text).diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errs] == ["W201"] and f"situation '{value}'" in errs[0].message
    last = text.splitlines()[-1]
    assert (errs[0].span.line, errs[0].span.column) == (text.count("\n"), last.index(value) + 1)


def test_a_cap_that_works_out_to_no_target_is_refused_where_it_is_written() -> None:
    text = BASE + CAPS.replace("VALUE", "(if cover then 4+ else true)")
    model = compile_text(text).rulesets[0]
    with pytest.raises(ResolveError, match="a cap on a roll is a target") as refused:
        Evaluator(model).evaluate(parse_expression("save(3+, 0) with cover = false"))
    assert refused.value.span is not None and refused.value.span.line == text.count("\n")


def test_the_when_attacked_effect_counts_when_every_role_has_abilities() -> None:
    result = compile_text(BASE + LONE + '''
ability keen "Keen": "Aims well."
  +1 to hit
ability sharp "Sharp": "Wounds well."
  +1 to wound
ability veiled "Veiled": "Hard to hit."
  when attacked: -1 to hit

unit keen_eye "Keen eye":
  Q 4
  abilities keen
weapon sharp_gun "Sharp gun":
  A 1  S 4  AP 0  D 1
  abilities sharp
unit veiled_one "Veiled one":
  T 4  W 1  Sv 4+
  abilities veiled
''')
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    # Q4, +1 from the shooter, -1 against the veiled target: 4+ to hit; then 3+ to wound.
    assert ask(model, "shoot(2 keen_eye, sharp_gun, 3 veiled_one).hits") == hits(2, 4)
    assert ask(model, "shoot(2 keen_eye, sharp_gun, 3 victim).hits") == hits(2, 3)


def test_summed_values_of_one_ability_start_from_the_first_even_when_it_is_0() -> None:
    result = compile_text(BASE + '''
ability volley(N: 0..3) "Volley": "A natural 6 to hit scores N more hits, from every source."
  stacking sum
  on natural 6 to hit: N extra hits

unit volley0 "Volley 0":
  Q 4
  abilities volley(0)
weapon volley2 "Volley 2":
  A 1  S 4  AP 0  D 1
  abilities volley(2)
''')
    assert not result.diagnostics, [f"{d.code} {d.message}" for d in result.diagnostics]
    # 0 + 2: a natural 6 to hit scores two more hits.
    assert ask(result.rulesets[0], "shoot(2 volley0, volley2, 3 victim).hits") == \
        enumerate_attacks(2, 1, lambda atts: sum((h >= 4) + 2 * (h == 6) for (h,) in atts))
