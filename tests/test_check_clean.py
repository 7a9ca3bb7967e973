"""Check-clean means right: sentences that passed ``check --strict`` and answered wrong.

Each case now answers as its words say (the whole distribution, compared with an enumeration
of every die written here), or is refused by ``check`` with a located diagnostic.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb
from typing import Any

import pytest

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from test_hook_effects import BASE, D6, allocate, ask, compiled, enumerate_attacks


def errors(text: str) -> list[Any]:
    return [d for d in compile_text(text).diagnostics if d.severity.name == "ERROR"]


def strict_clean(text: str) -> Any:
    result = compile_text(text)
    assert not result.diagnostics, [f"{d.code} {d.span.line}: {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def binomial(n: int, p: Fraction) -> dict[int, Fraction]:
    return {k: comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)}


# -- 1. each point of damage meets each damage hook once ---------------------------------------

FNP = '''
ability fnp(X: 2..6) "Feel No Pain": "x"
  on each damage: roll d6, ignored on X+

weapon sure "Sure":
  A 1  S 10  AP 6  D 3
unit brute "Brute":
  T 1  W 3  Sv 6+
  abilities fnp(5)

attack split(shooter, weapon, target) "Damage summed, then taken off":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  damage  = hits each weapon.D
  lost    = damage removes target, damage 1
  capped  = min(damage, 4)
  lost2   = capped removes target, damage 1
  direct  = hits removes target, damage weapon.D
  again   = capped each 1
  fresh   = min(hits, 1)
  pts     = fresh each weapon.D
'''


def test_a_damage_hook_meets_each_point_once_however_the_steps_split_the_work() -> None:
    model = compiled(FNP)
    # Two gunners (Q4): each hit deals 3 points, each kept on 1-4 (2/3); a Brute has 3 wounds.
    hits = binomial(2, Fraction(1, 2))
    points: dict[int, Fraction] = {}
    for h, ph in hits.items():
        for k, pk in binomial(3 * h, Fraction(2, 3)).items():
            points[k] = points.get(k, Fraction(0)) + ph * pk
    assert ask(model, "split(2 gunner, sure, 5 brute).damage") == points
    lost: dict[int, Fraction] = {}
    lost2: dict[int, Fraction] = {}
    for k, p in points.items():
        lost[k // 3] = lost.get(k // 3, Fraction(0)) + p
        lost2[min(k, 4) // 3] = lost2.get(min(k, 4) // 3, Fraction(0)) + p
    assert ask(model, "split(2 gunner, sure, 5 brute).lost") == lost
    assert ask(model, "split(2 gunner, sure, 5 brute).lost2") == lost2
    # Taken off hit by hit, each hit's 3 kept points of 3 stay on the model it wounds: the same
    # points, allocated a hit at a time (damage beyond a model's last wound is lost).
    direct: dict[int, Fraction] = {}
    for h, ph in hits.items():
        for kept in product(*[binomial(3, Fraction(2, 3)).items()] * h):
            p = ph
            for _, q in kept:
                p *= q
            k = allocate([d for d, _ in kept], 3, 5)
            direct[k] = direct.get(k, Fraction(0)) + p
    assert ask(model, "split(2 gunner, sure, 5 brute).direct") == {k: v for k, v in direct.items() if v}


def test_an_amount_step_over_points_already_dealt_does_not_meet_the_hooks_again() -> None:
    model = compiled(FNP)
    hits = binomial(2, Fraction(1, 2))
    points: dict[int, Fraction] = {}
    for h, ph in hits.items():
        for k, pk in binomial(3 * h, Fraction(2, 3)).items():
            points[k] = points.get(k, Fraction(0)) + ph * pk
    # ``capped`` is worked out from the points the hooks left: counting it one by one keeps them.
    again: dict[int, Fraction] = {}
    for k, p in points.items():
        again[min(k, 4)] = again.get(min(k, 4), Fraction(0)) + p
    assert ask(model, "split(2 gunner, sure, 5 brute).again") == again
    # A count of hits (not damage) capped at one: its 3 points meet the hook, once.
    one_hit = 1 - hits[0]
    pts = {k: one_hit * q for k, q in binomial(3, Fraction(2, 3)).items()}
    pts[0] += hits[0]
    assert ask(model, "split(2 gunner, sure, 5 brute).pts") == pts


# -- 2. a token that joins a later step is not counted before it ------------------------------

CLEAVE = '''
ability cleave "Cleave": "A natural 6 to hit scores one more wound, with no wound roll."
  on natural 6 to hit: 1 extra wounds
ability skewer "Skewer": "A natural 6 to hit scores one unsaved wound."
  on natural 6 to hit: 1 extra unsaved

weapon cleaver "Cleaver":
  A 1  S 4  AP 0  D 1
  abilities cleave
weapon skewer_gun "Skewer gun":
  A 1  S 4  AP 0  D 2
  abilities skewer
'''


def test_an_extra_wound_is_no_hit() -> None:
    model = compiled(CLEAVE)
    # Q4: one hit in two, whatever the face; the extra wound of a 6 is not a hit.
    assert ask(model, "shoot(3 gunner, cleaver, 3 victim).hits") == binomial(3, Fraction(1, 2))
    wounds = enumerate_attacks(2, 2, lambda atts: sum((h >= 4 and w >= 4) + (h == 6) for h, w in atts))
    assert ask(model, "shoot(2 gunner, cleaver, 3 victim).wounds") == wounds

    def skewer(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w, s), = atts
        return (h >= 4 and w >= 4 and s < 3) + (h == 6)
    # An extra unsaved wound is neither a hit nor a wound; it deals its damage (D2, a W2 victim).
    assert ask(model, "shoot(1 gunner, skewer_gun, 3 victim).hits") == binomial(1, Fraction(1, 2))
    assert ask(model, "shoot(1 gunner, skewer_gun, 3 victim).wounds") == \
        enumerate_attacks(1, 2, lambda atts: int(atts[0][0] >= 4 and atts[0][1] >= 4))
    assert ask(model, "shoot(1 gunner, skewer_gun, 3 victim).unsaved") == enumerate_attacks(1, 3, skewer)
    assert ask(model, "shoot(1 gunner, skewer_gun, 3 victim).damage") == \
        {2 * k: p for k, p in enumerate_attacks(1, 3, skewer).items()}
    assert ask(model, "shoot(1 gunner, skewer_gun, 3 victim).killed") == enumerate_attacks(1, 3, skewer)


TWICE = '''
ability deep "Deep": "A natural 6 to hit scores one more wound past both wound rolls."
  on natural 6 to hit: 1 extra w2
weapon deep_gun "Deep gun":
  A 1  S 4  AP 0  D 1
  abilities deep

attack once(shooter, weapon, target) "One wound roll":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  w2      = hits each wound(weapon.S, target.T)
attack twice(shooter, weapon, target) "Two wound rolls":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  w1      = hits each wound(weapon.S, target.T)
  w2      = w1 each wound(weapon.S, target.T)
'''


def test_an_extra_token_skips_every_roll_before_the_step_it_joins() -> None:
    model = strict_clean(BASE + TWICE)
    # Q4, 4+ to wound.  ``once``: the extra token joins the only wound step; ``twice``: it skips
    # the first wound roll (not counted there) and joins the second without rolling it either.
    assert ask(model, "once(2 gunner, deep_gun, 3 victim).w2") == \
        enumerate_attacks(2, 2, lambda atts: sum((h >= 4 and w >= 4) + (h == 6) for h, w in atts))
    assert ask(model, "twice(2 gunner, deep_gun, 3 victim).w1") == \
        enumerate_attacks(2, 2, lambda atts: sum(h >= 4 and w >= 4 for h, w in atts))
    assert ask(model, "twice(1 gunner, deep_gun, 3 victim).w2") == \
        enumerate_attacks(1, 3, lambda atts: sum((h >= 4 and w1 >= 4 and w2 >= 4) + (h == 6) for h, w1, w2 in atts))


BLASTED = '''
ability splash "Splash": "A natural 6 to hit adds one hit after the blast."
  on natural 6 to hit: 1 extra blasted
ability scatter "Scatter": "A natural 6 to hit adds one wound after the blast."
  on natural 6 to hit: 1 extra wounds

weapon splasher "Splasher":
  A 1  S 4  AP 0  D 1
  abilities splash
weapon scatterer "Scatterer":
  A 1  S 4  AP 0  D 1
  abilities scatter

attack burst(shooter, weapon, target) "Each hit counts twice":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  blasted = hits each becomes 2
  wounds  = blasted each wound(weapon.S, target.T)
'''


def test_an_extra_token_joins_an_each_becomes_step_once() -> None:
    model = strict_clean(BASE + BLASTED)
    # Q4; each hit becomes two; the extra of a natural 6 joins ``blasted`` as one, not as a hit
    # (not counted at ``hits``, not doubled); an extra wound skips both and the wound roll.
    assert ask(model, "burst(2 gunner, splasher, 3 victim).hits") == binomial(2, Fraction(1, 2))
    assert ask(model, "burst(2 gunner, splasher, 3 victim).blasted") == \
        enumerate_attacks(2, 1, lambda atts: sum(2 * (h >= 4) + (h == 6) for (h,) in atts))

    def splash(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w1, w2, w3), = atts
        return (h >= 4) * ((w1 >= 4) + (w2 >= 4)) + (h == 6) * (w3 >= 4)

    def scatter(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w1, w2), = atts
        return (h >= 4) * ((w1 >= 4) + (w2 >= 4)) + (h == 6)
    assert ask(model, "burst(1 gunner, splasher, 3 victim).wounds") == enumerate_attacks(1, 4, splash)
    assert ask(model, "burst(1 gunner, scatterer, 3 victim).blasted") == \
        enumerate_attacks(1, 1, lambda atts: 2 * (atts[0][0] >= 4))
    assert ask(model, "burst(1 gunner, scatterer, 3 victim).wounds") == enumerate_attacks(1, 3, scatter)


# -- 4. a roll modifier counts on a chained target (for its second die) ----------------------

CHAIN = '''
situation dark "In the dark"
table to_pierce(S) "Pierce":
  S >= 4 -> 4+
  otherwise -> 6 then 4+
test pierce(S) = roll d6 against to_pierce(S)
modifier gloom "Gloom": +1 to pierce when dark
modifier glare "Glare": pierce never better than 5+ when not dark
'''


def chain_chance(second: int, mod: int = 0) -> Fraction:
    """A natural 6, then ``second``+ on a second die with ``mod`` added to it."""
    return Fraction(1, 6) * Fraction(sum(1 for f in D6 if f + mod >= second), 6)


def test_a_roll_modifier_counts_on_a_chained_target() -> None:
    model = strict_clean(BASE + CHAIN)
    ev = Evaluator(model)
    assert ev.evaluate(parse_expression("P(pierce(3)) with dark")) == chain_chance(4, 1)
    # Without the dark, the cap makes the second die's 4+ a 5+.
    assert ev.evaluate(parse_expression("P(pierce(3))")) == chain_chance(5)
    assert ev.evaluate(parse_expression("P(pierce(4)) with dark")) == Fraction(4, 6)


# -- 7. a value outside a stat's range handed to a table is refused ---------------------------

def test_a_table_argument_outside_its_stats_range_is_refused() -> None:
    model = strict_clean(BASE + 'table tough_chart(T) "Chart":\n  T <= 4 -> 4+\n  otherwise -> 5+\n')
    ev = Evaluator(model)
    assert ev.evaluate(parse_expression("tough_chart(10)")).number == 5
    with pytest.raises(ResolveError) as info:
        ev.evaluate(parse_expression("tough_chart(99)"))
    assert "T = 99" in info.value.message and "1..10" in info.value.message
    assert info.value.span is not None and info.value.span.column == 1


# -- 5. an ability's value in its modifier effects --------------------------------------------

AP_ABILITY = '''
ability ap(X: 1..3) "Armour piercing": "The target's save is X worse."
  Sv of target worse by X
ability stalwart(X: 1..2) "Stalwart": "Attacks against this unit are X harder to wound."
  when attacked: -X to wound

weapon ap_gun "AP gun":
  A 1  S 4  AP 0  D 1
  abilities ap(2)
unit stalwart_victim "Stalwart victim":
  T 4  W 2  Sv 3+
  abilities stalwart(1)
'''


def test_an_abilitys_value_counts_in_its_modifier_effects() -> None:
    model = compiled(AP_ABILITY)
    # Q4, S4 against T4 (4+), the 3+ save made a 5+ by ap(2).
    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w, s), = atts
        return int(h >= 4 and w >= 4 and s < 5)
    assert ask(model, "shoot(1 gunner, ap_gun, 3 victim).unsaved") == enumerate_attacks(1, 3, play)
    # Against the stalwart victim the wound roll is one worse (5+), with the save a 5+ as well.
    def play2(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w, s), = atts
        return int(h >= 4 and w - 1 >= 4 and s < 5)
    assert ask(model, "shoot(1 gunner, ap_gun, 3 stalwart_victim).unsaved") == enumerate_attacks(1, 3, play2)


# -- 3. two numbers of models of one call, worked out from one result -------------------------

def test_two_numbers_of_models_from_one_result_are_refused() -> None:
    text = BASE + '''
example e "E":
  let r = shoot(1 gunner, sure, 1 grunt)
  expect P(shoot((r.hits) gunner, sure, (1 - r.hits) grunt).killed > 0) = 0
'''.replace("sure", "rgun") + RENDING_WEAPON
    errs = errors(text)
    assert [d.code for d in errs] == ["W415"]
    assert "the number of gunner" in errs[0].message and "the number of grunt" in errs[0].message
    assert (errs[0].span.line, errs[0].span.column) == (BASE.count("\n") + 4, 41)
    # Through a let, the same.
    via_let = text.replace("  expect P(shoot((r.hits) gunner", "  let k = r.hits\n  expect P(shoot((k) gunner")
    assert [d.code for d in errors(via_let.replace("(1 - r.hits) grunt", "(1 - k) grunt"))] == ["W415"]
    # One number of models worked out from the result: exact, the attack mixed over it.
    one = BASE + RENDING_WEAPON + '''
example e "E":
  let r = shoot(1 gunner, rgun, 1 grunt)
  expect P(shoot((r.hits) gunner, rgun, 2 grunt).hits > 1) = 0
'''
    assert errors(one) == []
    from compiler.resolve import run_ruleset
    assert [r.failures for r in run_ruleset(compile_text(one).rulesets[0])] == [()]


RENDING_WEAPON = '''
weapon rgun "Gun":
  A 1  S 4  AP 0  D 1
'''


# -- 8. a guard in a step's branch, and one total in two branches -----------------------------

GUARDED = '''
ability blast(N: 1..5) "Blast": "Each hit counts N times."
weapon blaster "Blaster":
  A 1  S 4  AP 0  D 1
  abilities blast(2)

attack guarded(shooter, weapon, target) "Guarded":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  more    = if weapon has blast then hits * weapon.blast else hits
  more2   = if weapon.blast is none then hits else hits * weapon.blast
  twice   = if target.models >= 6 then hits + hits else hits - hits + 1

example guarded_plain "Guarded, without blast":
  expect mean(guarded(1 gunner, rgun, 3 victim).more) = 1/2
  expect mean(guarded(1 gunner, rgun, 3 victim).more2) = 1/2
example guarded_blast "Guarded, with blast":
  expect mean(guarded(1 gunner, blaster, 3 victim).more) = 1
'''


def test_a_guard_in_a_steps_branch_and_one_total_in_two_branches() -> None:
    text = BASE + RENDING_WEAPON + GUARDED
    model = strict_clean(text)
    hits = binomial(3, Fraction(1, 2))
    assert ask(model, "guarded(3 gunner, blaster, 3 victim).more") == {2 * k: p for k, p in hits.items()}
    assert ask(model, "guarded(3 gunner, rgun, 3 victim).more2") == hits
    assert ask(model, "guarded(3 gunner, blaster, 3 victim).more2") == {2 * k: p for k, p in hits.items()}
    # One total read twice is one roll: hits + hits is even, hits - hits + 1 is 1.
    assert ask(model, "guarded(3 gunner, rgun, 6 victim).twice") == {2 * k: p for k, p in hits.items()}
    assert ask(model, "guarded(3 gunner, rgun, 3 victim).twice") == {1: Fraction(1)}
    # Unguarded, the arithmetic on a value the weapon lacks is still refused where it is called.
    bad = text.replace("then hits * weapon.blast else hits", "then hits * 2 else hits * weapon.blast")
    assert [d.code for d in errors(bad)] == ["W414", "W414"]  # at each call with the blast-less gun
    # Two different totals of one attack in one step still are.
    dependent = text.replace("then hits + hits else", "then hits + attacks_hit else").replace(
        "  more    =", "  attacks_hit = attacks each hit(shooter.Q)\n  more    =")
    assert [d.code for d in errors(dependent)] == ["W415"]


# -- 6. a stat written - followed through lets, parameters and callables ---------------------

NONE_BASE = '''ruleset n "N":
  version 1.0.0
stat A "Attacks" 1..10: "a"
stat Def "Defence" target: "d"
stat AP "AP" 0..6: "ap"
test save(Def, AP) = roll d6 >= Def + AP
test psave(target, weapon) = roll d6 >= target.Def + weapon.AP
test safe_save(Def, AP) = roll d6 >= (if AP is none then Def else Def + AP)
formula ap_of(weapon) = weapon.AP + 0
unit trooper "Trooper":
  A 1  Def 4+
weapon gun "Gun":
  A 1  AP 1
weapon nogun "No AP gun":
  A 1  AP -
'''


@pytest.mark.parametrize("attack, extra_arg", [
    ("  let ap = weapon.AP\n  attacks = shooter.models * weapon.A\n  saved = attacks each save(target.Def, ap)\n", ""),
    ("  attacks = shooter.models * weapon.A\n  saved = attacks each psave(target, weapon)\n", ""),
    ("  attacks = shooter.models * weapon.A\n  saved = attacks each save(target.Def, ap_of(weapon))\n", ""),
    ("  attacks = shooter.models * weapon.A\n  saved = attacks each save(target.Def, ap)\n", ", WEAPON.AP"),
], ids=["let", "profile-parameter", "formula", "number-parameter"])
def test_a_none_followed_to_its_arithmetic_is_refused_where_the_attack_is_called(attack: str, extra_arg: str) -> None:
    params = "shooter, weapon, target" + (", ap" if extra_arg else "")
    decl = f"attack a({params}):\n{attack}"

    def example(weapon: str) -> str:
        return f'example e "E":\n  expect mean(a(2 trooper, {weapon}, 1 trooper{extra_arg.replace("WEAPON", weapon)}).saved) = 2/3\n'
    # With AP 1 the save is a 5+: it answers, and check is clean.
    fine = NONE_BASE + decl + example("gun")
    assert errors(fine) == []
    from compiler.resolve import run_ruleset
    assert [r.failures for r in run_ruleset(compile_text(fine).rulesets[0])] == [()]
    errs = errors(NONE_BASE + decl + example("nogun"))
    assert [d.code for d in errs] == ["W414"], [d.message for d in errs]
    assert "'nogun' has 'AP -'" in errs[0].message and "step 'saved'" in errs[0].message
    assert errs[0].span.line == (NONE_BASE + decl).count("\n") + 2
    if "ap_of" in attack:
        return  # the formula's own arithmetic has no guard
    # The guarded test is clean with either gun.
    guarded = NONE_BASE + decl.replace("each save(", "each safe_save(").replace("each psave(target, weapon)",
                                                                              "each safe_save(target.Def, weapon.AP)")
    assert errors(guarded + example("nogun")) == []


# -- 10. a model's wounds from an ability's value, with a default ------------------------------

TOUGH = '''ruleset t "T":
  version 1.0.0
stat Q "Quality" 1..6: "q"
stat A "Attacks" 1..10: "a"
ability tough(X: 1..20) "Tough": "The model takes X wounds."
  role wounds, 1 without it
test hit(Q) = roll d6 >= Q
weapon gun "Gun":
  A 1
unit shooter "Shooter":
  Q 2
unit ogre "Ogre":
  Q 4
  abilities tough(3)
unit grot "Grot":
  Q 5
attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  killed  = hits removes target, damage 2
'''


def test_a_models_wounds_may_be_an_abilitys_value() -> None:
    model = strict_clean(TOUGH)
    hits = binomial(3, Fraction(5, 6))
    for unit, wounds in (("ogre", 3), ("grot", 1)):
        killed: dict[int, Fraction] = {}
        for h, p in hits.items():
            k = allocate([2] * h, wounds, 5)
            killed[k] = killed.get(k, Fraction(0)) + p
        assert ask(model, f"shoot(3 shooter, gun, 5 {unit}).killed") == killed
    # Without a default, a profile without the ability is refused where it is attacked.
    no_default = compile_text(TOUGH.replace("role wounds, 1 without it", "role wounds")).rulesets[0]
    with pytest.raises(ResolveError) as info:
        Evaluator(no_default).evaluate(parse_expression("shoot(3 shooter, gun, 5 grot).killed"))
    assert "grot does not have" in info.value.message
    # An ability without a value cannot be the wounds; two declarations of the role cannot both be.
    assert [d.code for d in errors(TOUGH.replace("tough(X: 1..20)", "tough").replace("tough(3)", "tough"))] == ["W201"]
    twice = TOUGH.replace('stat A "Attacks" 1..10: "a"', 'stat A "Attacks" 1..10: "a"\nstat W "W" 1..9 role wounds')
    errs = errors(twice)
    assert [d.code for d in errs] == ["W102"] and errs[0].span.line == 7


# -- 9. one attack sequence for Blast-style caps and hooks on the same test ------------------

BLAST = '''
ability blast(N: 1..5) "Blast": "Each hit counts N times, never more than the target has models."
ability sharp "Sharp": "A natural 6 to hit strikes deeper."
  on natural 6 to hit: +1 D
ability lethal "Lethal": "A natural 6 to hit wounds without a roll."
  on natural 6 to hit: wound automatically
ability pierce "Pierce": "A natural 6 to hit is not saved."
  on natural 6 to hit: no save
ability rending "Rending": "A natural 6 to wound cuts deeper."
  on natural 6 to wound: +1 D, +2 AP

weapon plain_gun "Plain gun":
  A 1  S 4  AP 0  D 1
weapon blast_gun "Blast gun":
  A 1  S 4  AP 0  D 1
  abilities blast(2)
weapon sharp_gun "Sharp gun":
  A 1  S 4  AP 0  D 1
  abilities sharp
weapon sharp_blast "Sharp blast":
  A 1  S 4  AP 0  D 1
  abilities blast(2), sharp
weapon lethal_blast "Lethal blast":
  A 1  S 4  AP 0  D 1
  abilities blast(2), lethal
weapon rending_gun "Rending gun":
  A 1  S 4  AP 0  D 1
  abilities rending
weapon rending_blast "Rending blast":
  A 1  S 4  AP 0  D 1
  abilities blast(2), rending, sharp

attack volley(shooter, weapon, target) "One volley for every weapon":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  blasted = if weapon has blast then hits each becomes weapon.blast capped at target.models else hits
  wounds  = blasted each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv, weapon.AP)
  killed  = unsaved removes target, damage weapon.D

example blast_example "A blast gun at three victims":
  expect mean(volley(1 gunner, blast_gun, 3 victim).blasted) = 1
'''


def one_volley(copies: int, sharp: bool, lethal: bool, wounds: int, models: int,
               rending: bool = False) -> dict[int, Fraction]:
    """Models killed by one attack of Q4, S4 against T4 and a 3+ save, each hit becoming
    ``copies`` hits (no more than ``models``), every copy carrying what its hit roll did."""
    n = min(copies, models)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, *rest), = atts
        if h < 4:
            return 0
        damages = []
        for i in range(n):
            w, s = rest[2 * i], rest[2 * i + 1]
            rends = rending and w == 6 and not (lethal and h == 6)  # an automatic wound rolls no die
            if (w >= 4 or lethal and h == 6) and s < 3 + (2 if rends else 0):
                damages.append(1 + (sharp and h == 6) + rends)
        return allocate(damages, wounds, models)
    return enumerate_attacks(1, 1 + 2 * n, play)


def test_one_sequence_serves_a_blast_cap_and_hooks_on_the_same_test() -> None:
    model = strict_clean(BASE + BLAST)
    for weapon, copies, sharp, lethal in (("plain_gun", 1, False, False), ("blast_gun", 2, False, False),
                                          ("sharp_gun", 1, True, False), ("sharp_blast", 2, True, False),
                                          ("lethal_blast", 2, False, True), ("rending_gun", 1, False, False),
                                          ("rending_blast", 2, True, False)):
        rending = weapon.startswith("rending")
        for models in (1, 3):
            assert ask(model, f"volley(1 gunner, {weapon}, {models} victim).killed") == \
                one_volley(copies, sharp, lethal, 2, models, rending), (weapon, models)
    # The cap is each hit's: at one model each hit stays one (two hits are two, not one); at three
    # each hit becomes two.
    hits = binomial(2, Fraction(1, 2))
    assert ask(model, "volley(2 gunner, blast_gun, 1 victim).blasted") == hits
    assert ask(model, "volley(2 gunner, blast_gun, 3 victim).blasted") == {2 * k: p for k, p in hits.items()}
    # The old way — a cap over the totals — starts fresh attacks, and check names that step.
    totals = BASE + BLAST.replace(
        "then hits each becomes weapon.blast capped at target.models else hits",
        "then min(hits * weapon.blast, target.models) else hits")
    errs = errors(totals)
    assert errs and {d.code for d in errs} == {"W411"}
    assert all("'blasted' starts fresh attacks" in d.message for d in errs), [d.message for d in errs]
    assert any("'pierce' does on 'hit'" in d.message for d in errs)  # at the save, two steps later


def test_following_a_none_through_many_calls_is_no_hang() -> None:
    # Ten formulas, each calling the one below eight times: 8**10 paths, each followed once.
    lines = [NONE_BASE, "formula g0(w) = w.AP + 1"]
    lines += [f"formula g{i}(w) = " + " + ".join([f"g{i - 1}(w)"] * 8) for i in range(1, 11)]
    lines += ["attack deep(shooter, weapon):", "  hits = g10(weapon) * 0",
              'example e "E":', "  expect deep(trooper, WEAPON).hits = 0"]
    text = "\n".join(lines) + "\n"
    assert errors(text.replace("WEAPON", "gun")) == []
    assert [d.code for d in errors(text.replace("WEAPON", "nogun"))] == ["W414"]


def test_an_ability_with_two_parameters_is_refused_at_the_second() -> None:
    # A profile gives an ability one value (``two(2)``): a second parameter would stay unbound.
    text = BASE + '''
ability two(N: 1..3, M: 1..3) "Two": "x"
  +M to hit
'''
    errs = errors(text)
    assert [d.code for d in errs] == ["W203"] and "takes one value" in errs[0].message
    line = text.count("\n") - 1
    assert (errs[0].span.line, errs[0].span.column) == (line, text.splitlines()[line - 1].index("M: 1..3") + 1)
    assert errors(text.replace("N: 1..3, M: 1..3", "M: 1..3")) == []
