"""Per-attack hook effects and ability values, each against a brute-force oracle.

The oracle enumerates every die of a small volley with ``itertools.product`` and plays the
rule as written, die by die; the resolver must give the same exact distribution, and its
fast (NumPy) path must agree with its exact one.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any, Callable

import pytest

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

BASE = '''ruleset r "R":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat AP "AP" 0..6: "ap"
stat D "Damage" dice: "d"
stat A "Attacks" 1..10: "a"
stat Sv "Save" target: "s"
stat W "Wounds" 1..10 role wounds: "w"

test hit(Q) = roll d6 >= Q
test wound(S, T) = roll d6 >= T - S + 4
test save(Sv, AP) = roll d6 >= Sv + AP

attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  wounds  = hits each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv, weapon.AP)
  damage  = unsaved each weapon.D
  killed  = unsaved removes target, damage weapon.D

unit gunner "Gunner":
  Q 4
unit victim "Victim":
  T 4  W 2  Sv 3+
unit grunt "Grunt":
  T 4  W 1  Sv 4+
'''

D6 = range(1, 7)


def compiled(extra: str) -> Any:
    result = compile_text(BASE + extra)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def ask(model: Any, question: str) -> dict[Any, Fraction]:
    """The exact answer, after checking that the fast path agrees with it."""
    exact = Evaluator(model).evaluate(parse_expression(question))
    fast = Evaluator(model, exact=False).evaluate(parse_expression(question))
    ex = dict(exact.probabilities())
    fa = {k: float(v) for k, v in fast.probabilities().items()}
    for k in set(ex) | set(fa):
        assert abs(float(ex.get(k, 0)) - fa.get(k, 0.0)) < 1e-12, (question, k)
    return ex


def enumerate_attacks(n: int, dice_per_attack: int,
                      play: Callable[[tuple[tuple[int, ...], ...]], int]) -> dict[int, Fraction]:
    """Every roll of ``n`` attacks of ``dice_per_attack`` d6 each, played by ``play``."""
    out: dict[int, Fraction] = {}
    weight = Fraction(1, 6 ** (n * dice_per_attack))
    for faces in product(D6, repeat=n * dice_per_attack):
        attacks = tuple(faces[i * dice_per_attack:(i + 1) * dice_per_attack] for i in range(n))
        k = play(attacks)
        out[k] = out.get(k, Fraction(0)) + weight
    return {k: v for k, v in out.items() if v}


def allocate(damages: list[int], wounds: int, models: int, spill: int = 0) -> int:
    """Models killed: each damage in turn, excess lost; then ``spill`` damage, going on."""
    killed, left = 0, wounds
    for d in damages:
        if killed >= models or d == 0:
            continue
        if d >= left:
            killed, left = killed + 1, wounds
        else:
            left -= d
    while spill and killed < models:
        take = min(spill, left)
        spill -= take
        left -= take
        if left == 0:
            killed, left = killed + 1, wounds
    return killed


# -- a modifier on the attack's later steps: +1 D and +2 AP on a natural 6 to wound ---------

RENDING = '''
ability rending "Rending": "A natural 6 to wound cuts deeper."
  on natural 6 to wound: +2 AP, +1 D

weapon rgun "Rending gun":
  A 1  S 4  AP 0  D 1
  abilities rending
'''


def rending_attack(h: int, w: int, s: int) -> int:
    """Damage of one attack of the rending gun at the victim (save 3+)."""
    if h < 4 or w < 4:
        return 0
    crit = w == 6
    if s >= 3 + (2 if crit else 0):
        return 0
    return 2 if crit else 1


def test_a_natural_6_to_wound_changes_that_attacks_save_and_damage() -> None:
    model = compiled(RENDING)
    damage = enumerate_attacks(2, 3, lambda atts: sum(rending_attack(*a) for a in atts))
    assert ask(model, "shoot(2 gunner, rgun, 3 victim).damage") == damage
    killed = enumerate_attacks(2, 3, lambda atts: allocate([rending_attack(*a) for a in atts if rending_attack(*a)],
                                                           2, 3))
    assert ask(model, "shoot(2 gunner, rgun, 3 victim).killed") == killed


def test_the_hooks_modifier_reaches_only_the_attack_that_rolled_the_six() -> None:
    # Two attacks: a six on one must not change the other's save (a back-computed average would).
    model = compiled(RENDING)
    unsaved = enumerate_attacks(2, 3, lambda atts: sum(1 for a in atts if rending_attack(*a)))
    assert ask(model, "shoot(2 gunner, rgun, 3 victim).unsaved") == unsaved


# -- a modifier on a later test: +1 to wound and a re-roll of the save, for that attack --------

FOCUS = '''
ability focus "Focus": "A natural 6 to hit makes that attack's wound easier, and re-rolled."
  on natural 6 to hit: +1 to wound, reroll failures to wound

weapon fgun "Focus gun":
  A 1  S 3  AP 0  D 1
  abilities focus
'''


def test_a_roll_modifier_and_a_reroll_for_one_attack() -> None:
    # S3 against T4 wounds on 5+; after a natural 6 to hit, that attack's wound roll gets +1
    # and is re-rolled once when it fails.
    model = compiled(FOCUS)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        n = 0
        for h, w1, w2, s in atts:
            if h < 4:
                continue
            crit = h == 6
            bonus = 1 if crit else 0
            wounded = w1 + bonus >= 5 or (crit and w2 + bonus >= 5)
            n += 1 if wounded and s < 3 else 0
        return n
    assert ask(model, "shoot(1 gunner, fgun, 3 victim).unsaved") == enumerate_attacks(1, 4, play)


# -- mortal wounds: skip the save; with "spill over" the damage goes on to the next model -----

MORTAL = '''
ability devastating "Devastating": "A natural 6 to wound is dealt as mortal wounds."
  on natural 6 to wound: mortal wounds spill over

ability piercing "Piercing": "A natural 6 to wound ignores the save."
  on natural 6 to wound: mortal wounds

weapon dgun "Devastator":
  A 1  S 4  AP 0  D 3
  abilities devastating

weapon pgun "Piercer":
  A 1  S 4  AP 0  D 3
  abilities piercing
'''


@pytest.mark.parametrize("weapon, spills", [("dgun", True), ("pgun", False)])
def test_mortal_wounds_skip_the_save_and_spill_over_when_said(weapon: str, spills: bool) -> None:
    model = compiled(MORTAL)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        normal: list[int] = []
        spill = 0
        for h, w, s in atts:
            if h < 4 or w < 4:
                continue
            if w == 6:
                if spills:
                    spill += 3
                else:
                    normal.append(3)
            elif s < 3:
                normal.append(3)
        return allocate(normal, 2, 3, spill)
    assert ask(model, f"shoot(2 gunner, {weapon}, 3 victim).killed") == enumerate_attacks(2, 3, play)
    unsaved = enumerate_attacks(2, 3, lambda atts: sum(1 for h, w, s in atts if h >= 4 and (w == 6 or (w >= 4 and s < 3))))
    assert ask(model, f"shoot(2 gunner, {weapon}, 3 victim).unsaved") == unsaved


# -- extra hits of a random number -------------------------------------------------------------

BURST = '''
die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3

ability burst "Burst": "A natural 6 to hit scores D3 extra hits."
  on natural 6 to hit: D3 extra hits

weapon bgun "Burst gun":
  A 1  S 4  AP 0  D 1
  abilities burst
'''


def test_a_random_number_of_extra_hits() -> None:
    model = compiled(BURST)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, extra), = atts
        if h < 4:
            return 0
        return 1 + ((extra - 1) % 3 + 1 if h == 6 else 0)
    assert ask(model, "shoot(1 gunner, bgun, 3 victim).hits") == enumerate_attacks(1, 2, play)


# -- an ability's value read by the sequence ---------------------------------------------------

BLAST = '''
ability blast(N: 1..5) "Blast": "N more attacks."
attack volley(shooter, weapon, target) "Volley":
  attacks = shooter.models * (weapon.A + (if weapon.blast is none then 0 else weapon.blast))
  hits    = attacks each hit(shooter.Q)

weapon launcher "Launcher":
  A 1  S 4  AP 0  D 1
  abilities blast(2)
weapon rifle "Rifle":
  A 1  S 4  AP 0  D 1
'''


def test_an_abilitys_value_is_read_from_the_profile() -> None:
    model = compiled(BLAST)
    three = enumerate_attacks(3, 1, lambda atts: sum(1 for (h,) in atts if h >= 4))
    assert ask(model, "volley(1 gunner, launcher, 3 victim).hits") == three
    one = enumerate_attacks(1, 1, lambda atts: sum(1 for (h,) in atts if h >= 4))
    assert ask(model, "volley(1 gunner, rifle, 3 victim).hits") == one
    assert Evaluator(model).evaluate(parse_expression("volley(1 gunner, launcher, 3 victim).attacks")) == 3


def test_an_abilitys_value_that_a_profile_lacks_is_refused_in_arithmetic() -> None:
    result = compile_text(BASE + BLAST.replace("(if weapon.blast is none then 0 else weapon.blast)", "weapon.blast")
                          + '''
example e "E":
  let r = volley(1 gunner, rifle, 3 victim)
  expect mean(r.hits) = 1
''')
    codes = [d.code for d in result.diagnostics]
    assert "W414" in codes, codes
    model = result.rulesets[0]
    with pytest.raises(ResolveError):
        Evaluator(model).evaluate(parse_expression("volley(1 gunner, rifle, 3 victim).hits"))


def test_an_ability_without_a_value_cannot_be_read_as_one() -> None:
    result = compile_text(BASE + '''
ability assault "Assault": "Fires after advancing."
formula f(weapon: weapon) "F" = weapon.assault
''')
    bad = [d for d in result.diagnostics if d.code == "W201"]
    assert bad and "has assault" in (bad[0].hint or ""), [d.message for d in result.diagnostics]


# -- what check refuses: a step that starts fresh attacks between the hook and what it changes --

def test_a_fresh_step_between_a_hook_and_the_damage_it_changes_is_refused() -> None:
    result = compile_text(BASE + '''
ability heavy "Heavy": "A natural 6 to hit deals one more damage."
  on natural 6 to hit: +1 D

attack capped_shoot(shooter, weapon, target) "Capped":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  capped  = min(hits, target.models)
  wounds  = capped each wound(weapon.S, target.T)
  killed  = wounds removes target, damage weapon.D
''')
    lost = [d for d in result.diagnostics if d.code == "W411"]
    assert lost and "heavy" in lost[0].message, [d.message for d in result.diagnostics]


def test_the_hook_forms_print_back_as_written() -> None:
    from compiler import ast as A
    from compiler.syntax.unparse import hook_text
    model = compiled(RENDING + MORTAL + FOCUS)
    texts = {hook_text(h) for ab in model.of_type(A.Ability) for h in ab.hooks}
    assert texts == {"on natural 6 to wound: +2 AP, +1 D", "on natural 6 to wound: mortal wounds spill over",
                     "on natural 6 to wound: mortal wounds",
                     "on natural 6 to hit: +1 to wound, reroll failures to wound"}


# -- a number of models worked out from an earlier result --------------------------------------

ZAP = '''
weapon pistol "Pistol":
  A 1  S 4  AP 0  D 1

attack zap(shooter, weapon, target) "Zap":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  killed  = hits removes target, damage weapon.D
'''


def test_a_model_count_worked_out_from_an_earlier_result() -> None:
    model = compiled(ZAP)
    first = ask(model, "zap(2 gunner, pistol, 3 grunt).killed")
    assert first == enumerate_attacks(2, 1, lambda atts: min(3, sum(1 for (h,) in atts if h >= 4)))

    def second_volley(atts: tuple[tuple[int, ...], ...]) -> int:
        killed = min(3, sum(1 for (h,) in atts[:2] if h >= 4))
        return min(3 - killed, sum(1 for (h,) in atts[2:] if h >= 4))
    evaluator = Evaluator(model)
    env: dict[str, Any] = {}
    from compiler import ast as A
    let = A.Let(A.Span.point("x"), "r", parse_expression("zap(2 gunner, pistol, 3 grunt)"))
    evaluator.bind_let(let, env)
    second = evaluator.eval(parse_expression("zap(2 gunner, pistol, (3 - r.killed) grunt).killed"), env)
    assert dict(second.probabilities()) == enumerate_attacks(4, 1, second_volley)
    fast = Evaluator(model, exact=False)
    fenv: dict[str, Any] = {}
    fast.bind_let(let, fenv)
    fsecond = fast.eval(parse_expression("zap(2 gunner, pistol, (3 - r.killed) grunt).killed"), fenv)
    for k, p in second.probabilities().items():
        assert abs(float(p) - float(fsecond.probabilities().get(k, 0))) < 1e-12
    # a step that does not depend on the target's number of models stays what it was
    attacks = evaluator.eval(parse_expression("zap(2 gunner, pistol, (3 - r.killed) grunt).attacks"), env)
    assert dict(attacks.probabilities()) == {2: 1}


# -- a cap on a later test, and modifiers ignored, for one attack --------------------------------

SUNDER = '''
situation cover "In cover"

modifier in_cover "Cover": +1 to save when cover

ability sunder "Sunder": "A natural 6 to wound ignores cover."
  on natural 6 to wound: ignore modifiers to save

ability crush "Crush": "A natural 5+ to hit leaves a save no better than 5+."
  on natural 5+ to hit: save never better than 5+

weapon sgun "Sunderer":
  A 1  S 4  AP 0  D 1
  abilities sunder
weapon cgun "Crusher":
  A 1  S 4  AP 0  D 1
  abilities crush
'''


def test_modifiers_ignored_for_one_attack() -> None:
    model = compiled(SUNDER)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        n = 0
        for h, w, s in atts:
            if h < 4 or w < 4:
                continue
            bonus = 0 if w == 6 else 1  # cover's +1 to save, unless the wound was a natural 6
            n += 1 if s + bonus < 3 else 0
        return n
    assert ask(model, "shoot(2 gunner, sgun, 3 victim).unsaved with cover") == enumerate_attacks(2, 3, play)


def test_a_cap_on_a_later_test_for_one_attack() -> None:
    model = compiled(SUNDER)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        n = 0
        for h, w, s in atts:
            if h < 4 or w < 4:
                continue
            need = max(3 - 1, 5) if h >= 5 else 3 - 1  # Sv 3+ with cover's +1 is 2+; capped at 5+
            n += 1 if s < need else 0
        return n
    assert ask(model, "shoot(2 gunner, cgun, 3 victim).unsaved with cover") == enumerate_attacks(2, 3, play)


def test_a_modifier_value_that_is_a_roll_is_refused_where_it_is_written() -> None:
    result = compile_text(BASE + '''
ability wild "Wild": "x"
  on natural 6 to hit: +(d3) D
''')
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["W201"] and errors[0].span.line == BASE.count("\n") + 3


# -- extra tokens that join a later step ---------------------------------------------------------

CLEAVE = '''
ability cleave "Cleave": "A natural 6 to hit scores one more wound, with no wound roll."
  on natural 6 to hit: 1 extra wounds

ability spray "Spray": "A natural 6 to hit scores one more hit."
  on natural 6 to hit: 1 extra hits

weapon cleaver "Cleaver":
  A 1  S 3  AP 0  D 1
  abilities cleave
weapon sprayer "Sprayer":
  A 1  S 3  AP 0  D 1
  abilities spray
'''


def test_extra_wounds_join_the_wounds_step_and_extra_hits_the_hits_step() -> None:
    model = compiled(CLEAVE)
    # S3 against T4: a wound needs 5+.  The cleaver's extra wound skips the wound roll and
    # still takes the save (3+); the sprayer's extra hit rolls to wound.

    def cleaver(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w, s, s2), = atts
        if h < 4:
            return 0
        return (1 if w >= 5 and s < 3 else 0) + (1 if h == 6 and s2 < 3 else 0)

    def sprayer(atts: tuple[tuple[int, ...], ...]) -> int:
        (h, w, s, w2, s2), = atts
        if h < 4:
            return 0
        return (1 if w >= 5 and s < 3 else 0) + (1 if h == 6 and w2 >= 5 and s2 < 3 else 0)
    assert ask(model, "shoot(1 gunner, cleaver, 3 victim).unsaved") == enumerate_attacks(1, 4, cleaver)
    assert ask(model, "shoot(1 gunner, sprayer, 3 victim).unsaved") == enumerate_attacks(1, 5, sprayer)
    wounds = enumerate_attacks(1, 2, lambda atts: (1 if atts[0][0] >= 4 and atts[0][1] >= 5 else 0)
                               + (1 if atts[0][0] == 6 else 0))
    assert ask(model, "shoot(1 gunner, cleaver, 3 victim).wounds") == wounds


def test_extra_tokens_cannot_join_a_step_that_does_not_follow_the_roll() -> None:
    result = compile_text(BASE + CLEAVE.replace("1 extra wounds", "1 extra attacks") + '''
attack a(shooter, weapon, target) "A":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
''')
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["W411", "W411"], [d.message for d in errors]  # in `shoot` and in `a`
    assert "extra attacks" in errors[0].message and "'attacks'" in errors[0].message


# -- several hooks on one weapon, composed -------------------------------------------------------

COMBO = '''
ability sustained "Sustained": "x"
  on natural 6 to hit: 1 extra hits
ability lethal "Lethal": "x"
  on natural 6 to hit: wound automatically
ability rend "Rend": "x"
  on natural 6 to wound: +1 D, +1 AP
ability devastate "Devastate": "x"
  on natural 6 to wound: mortal wounds spill over

weapon combo "Combo":
  A 1  S 4  AP 0  D 1
  abilities sustained, lethal, rend, devastate
'''


def combo_attack(h: int, w1: int, s1: int, w2: int, s2: int) -> tuple[list[int], int]:
    """One attack of the combo weapon at a grunt (T4, Sv 4+): normal damages, damage that spills."""
    normal: list[int] = []
    spill = 0
    if h < 4:
        return normal, spill
    # The attack itself: a natural 6 wounds automatically (no wound die, so no natural 6 to wound).
    if h == 6 or w1 >= 4:
        if h != 6 and w1 == 6:
            spill += 2  # mortal, D 1 + 1
        elif s1 < 4:
            normal.append(1)
    if h == 6:  # the extra hit rolls to wound like any other
        if w2 == 6:
            spill += 2
        elif w2 >= 4 and s2 < 4:
            normal.append(1)
    return normal, spill


def test_hooks_compose_on_one_attack() -> None:
    model = compiled(COMBO)

    def killed(atts: tuple[tuple[int, ...], ...]) -> int:
        normal, spill = combo_attack(*atts[0])
        return allocate(normal, 1, 3, spill)

    def damage(atts: tuple[tuple[int, ...], ...]) -> int:
        normal, spill = combo_attack(*atts[0])
        return sum(normal) + spill
    assert ask(model, "shoot(1 gunner, combo, 3 grunt).killed") == enumerate_attacks(1, 5, killed)
    assert ask(model, "shoot(1 gunner, combo, 3 grunt).damage") == enumerate_attacks(1, 5, damage)


@pytest.mark.parametrize("value", ['"x"', "true", "never"])
def test_a_cap_that_is_no_target_is_refused_where_it_is_written(value: str) -> None:
    result = compile_text(BASE + f'''
modifier m "M": save never better than {value}
''')
    assert [d.code for d in result.diagnostics if d.severity.name == "ERROR"] == ["W201"]


ARMOURBANE = '''
ability armourbane "Armourbane": "A natural 6 to hit finds a gap in the armour."
  on natural 6 to hit: wound needs 2+, no save

weapon bane "Bane":
  A 1  S 3  AP 0  D 1
  abilities armourbane
'''


def test_a_target_set_and_a_save_skipped_for_one_attack() -> None:
    model = compiled(ARMOURBANE)

    def play(atts: tuple[tuple[int, ...], ...]) -> int:
        n = 0
        for h, w, s in atts:
            if h < 4:
                continue
            if h == 6:
                n += 1 if w >= 2 else 0  # wound on 2+, and no save
            else:
                n += 1 if w >= 5 and s < 3 else 0
        return n
    assert ask(model, "shoot(2 gunner, bane, 3 victim).unsaved") == enumerate_attacks(2, 3, play)


def test_an_abilitys_hooks_count_only_when_its_condition_holds() -> None:
    model = compiled('''
keyword vehicle "Vehicle": "v"
ability bane "Bane": "Against vehicles, a natural 6 to hit skips the save."
  on natural 6 to hit: no save
  when target has vehicle
ability hardy "Hardy": "In cover, each point of damage is ignored on a 4+."
  on each damage: roll d6, ignored on 4+
  when cover
situation cover "In cover"
weapon bgun "Bane gun":
  A 1  S 4  AP 0  D 1
  abilities bane
unit tank "Tank":
  T 4  W 2  Sv 3+
  keywords vehicle
unit hardy_one "Hardy one":
  T 4  W 1  Sv 3+
  abilities hardy
''')

    def play(vehicle: bool) -> Callable[[tuple[tuple[int, ...], ...]], int]:
        def one(atts: tuple[tuple[int, ...], ...]) -> int:
            (h, w, s), = atts
            return 1 if h >= 4 and w >= 4 and ((vehicle and h == 6) or s < 3) else 0
        return one
    assert ask(model, "shoot(1 gunner, bgun, 3 victim).unsaved") == enumerate_attacks(1, 3, play(False))
    assert ask(model, "shoot(1 gunner, bgun, 3 tank).unsaved") == enumerate_attacks(1, 3, play(True))

    def hardy(cover: bool) -> Callable[[tuple[tuple[int, ...], ...]], int]:
        def one(atts: tuple[tuple[int, ...], ...]) -> int:
            (h, w, s, f), = atts
            return 1 if h >= 4 and w >= 4 and s < 3 and not (cover and f >= 4) else 0
        return one
    assert ask(model, "shoot(1 gunner, bgun, 3 hardy_one).killed") == enumerate_attacks(1, 4, hardy(False))
    assert ask(model, "shoot(1 gunner, bgun, 3 hardy_one).killed with cover") == enumerate_attacks(1, 4, hardy(True))


# -- an ability's value inside its hook: N read as the profile's N, not one more or less ------

VALUED = '''
ability deep(N: 1..3) "Deep": "A natural 6 to wound goes N deeper."
  on natural 6 to wound: +N D, +N AP
ability burst(N: 1..3) "Burst": "A natural 6 to hit scores N more hits."
  on natural 6 to hit: N extra hits
ability keen(N: 1..2) "Keen": "A natural 5 or 6 to hit wounds N more easily."
  on natural 5+ to hit: +N to wound

weapon deep1 "Deep 1":
  A 1  S 4  AP 0  D 1
  abilities deep(1)
weapon deep2 "Deep 2":
  A 1  S 4  AP 0  D 1
  abilities deep(2)
weapon burst2 "Burst 2":
  A 1  S 4  AP 0  D 1
  abilities burst(2)
weapon keen1 "Keen 1":
  A 1  S 4  AP 0  D 1
  abilities keen(1)
weapon keen2 "Keen 2":
  A 1  S 4  AP 0  D 1
  abilities keen(2)
'''


@pytest.mark.parametrize("n", [1, 2])
def test_a_hooks_plus_n_is_the_profiles_n(n: int) -> None:
    model = compiled(VALUED)

    def damage(h: int, w: int, s: int) -> int:  # at the victim: T 4 (4+ to wound), save 3+
        if h < 4 or w < 4:
            return 0
        crit = w == 6
        if s >= 3 + (n if crit else 0):
            return 0
        return 1 + n if crit else 1
    expected = enumerate_attacks(2, 3, lambda atts: sum(damage(*a) for a in atts))
    assert ask(model, f"shoot(2 gunner, deep{n}, 3 victim).damage") == expected


def test_n_extra_hits_are_the_profiles_n() -> None:
    model = compiled(VALUED)
    expected = enumerate_attacks(2, 1, lambda atts: sum((h >= 4) + 2 * (h == 6) for (h,) in atts))
    assert ask(model, "shoot(2 gunner, burst2, 3 victim).hits") == expected


@pytest.mark.parametrize("n", [1, 2])
def test_plus_n_to_wound_is_the_profiles_n(n: int) -> None:
    model = compiled(VALUED)
    expected = enumerate_attacks(2, 2, lambda atts: sum(h >= 4 and w + (n if h >= 5 else 0) >= 4 for h, w in atts))
    assert ask(model, f"shoot(2 gunner, keen{n}, 3 victim).wounds") == expected


# -- the limit on one attack's tokens: a step takes 64 of one attack, 65 or more is refused ---

SWARM = '''
ability swarm(N: 1..20) "Swarm": "A natural 6 to hit scores N more hits."
  on natural 6 to hit: N extra shots
ability spray(N: 1..20) "Spray": "A natural 6 on the second roll scores N more."
  on natural 6 to hit2: N extra shots

test hit2(Q) = roll d6 >= Q
test hit3(Q) = roll d6 >= Q

attack flurry(shooter, weapon, target) "Flurry":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  again   = hits each hit2(shooter.Q)
  last    = again each hit3(shooter.Q)

weapon at64 "Sixty-four":
  A 1  S 4  AP 0  D 1
  abilities swarm(7), spray(7)
weapon at65 "Sixty-five":
  A 1  S 4  AP 0  D 1
  abilities swarm(4), spray(12)
'''


def test_a_step_takes_64_tokens_of_one_attack_and_no_more() -> None:
    model = compiled(SWARM)
    ev = Evaluator(model)
    # A token through a hooked step gives 1 (a 4 or a 5), 1 + N (a six) or none: at most
    # 8 x 8 = 64 tokens reach the last step with N = 7 and 7, and 5 x 13 = 65 with 4 and 12.
    per_step = Fraction(2, 6) + Fraction(1, 6) * 8
    assert ev.mean(ev.evaluate(parse_expression("flurry(1 gunner, at64, 1 victim).last"))) == \
        per_step ** 2 * Fraction(1, 2)
    text = BASE + SWARM
    with pytest.raises(ResolveError, match="more than 64 tokens") as refused:
        ev.evaluate(parse_expression("flurry(1 gunner, at65, 1 victim).last"))
    assert refused.value.span is not None
    assert text.splitlines()[refused.value.span.line - 1].strip().startswith("last")


# -- a step remembered for the process is never one with other hooks ---------------------------

TWINS = '''
ability sustained "Sustained": "A natural 6 to hit scores one more hit."
  on natural 6 to hit: 1 extra hits
ability lethal "Lethal": "A natural 6 to hit wounds automatically."
  on natural 6 to hit: wound automatically

attack twice(shooter, weapon, target) "Twice":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  wounds  = hits each wound(weapon.S, target.T)
  again   = wounds each wound(weapon.S, target.T)

weapon plain "Plain":
  A 1  S 4  AP 0  D 1
weapon twin "Twin":
  A 1  S 4  AP 0  D 1
  abilities sustained
weapon sure "Sure":
  A 1  S 4  AP 0  D 1
  abilities lethal
'''


def test_a_hooked_step_is_not_the_same_step_without_hooks() -> None:
    """The same bags through a test that passes as often: without hooks a step is kept for the
    process; the hooked one must not be taken for it."""
    model = compiled(TWINS)
    plain = enumerate_attacks(2, 1, lambda atts: sum(h >= 4 for (h,) in atts))
    hooked = enumerate_attacks(2, 1, lambda atts: sum((h >= 4) + (h == 6) for (h,) in atts))
    assert ask(model, "shoot(2 gunner, plain, 3 victim).hits") == plain
    assert ask(model, "shoot(2 gunner, twin, 3 victim).hits") == hooked
    assert ask(model, "shoot(2 gunner, plain, 3 victim).hits") == plain


def test_wound_automatically_passes_one_wound_roll_not_every_one() -> None:
    """Lethal passes the next wound roll of that attack; a second wound roll is rolled."""
    model = compiled(TWINS)

    def again(h: int, w1: int, w2: int) -> int:  # 4+ to hit, 4+ to wound (S 4 against T 4)
        if h < 4:
            return 0
        first = h == 6 or w1 >= 4
        return int(first and w2 >= 4)
    assert ask(model, "twice(2 gunner, sure, 3 victim).again") == \
        enumerate_attacks(2, 3, lambda atts: sum(again(*a) for a in atts))


# -- abilities on two profiles, values in plain effects, and effects kept to their role -------

STACKED = '''
ability burst(N: 1..3) "Burst": "A natural 6 to hit scores N more hits."
  on natural 6 to hit: N extra hits
ability volley(N: 1..3) "Volley": "A natural 6 to hit scores N more hits, from every source."
  stacking sum
  on natural 6 to hit: N extra hits
ability pierce(X: 1..3) "Pierce": "The target's save is X worse."
  Sv of target worse by X
ability shroud(X: 1..2) "Shroud": "Attacks against it are X harder to hit."
  when attacked: -X to hit
ability gouge(N: 1..3) "Gouge": "A natural 6 to wound does more damage."
  on natural 6 to wound: +(max(N, 1)) D, +1 AP

unit burst2 "Burst 2":
  Q 4
  abilities burst(2)
unit volley2 "Volley 2":
  Q 4
  abilities volley(2)
unit veiled "Veiled":
  T 4  W 2  Sv 3+
  abilities shroud(1)
weapon burst1 "Burst 1":
  A 1  S 4  AP 0  D 1
  abilities burst(1)
weapon burst3 "Burst 3":
  A 1  S 4  AP 0  D 1
  abilities burst(3)
weapon volley1 "Volley 1":
  A 1  S 4  AP 0  D 1
  abilities volley(1)
weapon piercer "Piercer":
  A 1  S 4  AP 0  D 1
  abilities pierce(2)
weapon gouger "Gouger":
  A 1  S 4  AP 0  D 1
  abilities gouge(2)
weapon pistol "Pistol":
  A 1  S 4  AP 0  D 1
'''


def _hits_with_extra(extra: int) -> dict[int, Fraction]:
    return enumerate_attacks(2, 1, lambda atts: sum((h >= 4) + extra * (h == 6) for (h,) in atts))


@pytest.mark.parametrize("shooter, weapon, extra", [("burst2", "burst1", 2), ("burst2", "burst3", 3),
                                                    ("volley2", "volley1", 3)])
def test_one_ability_on_two_profiles_counts_once_highest_or_summed(shooter: str, weapon: str, extra: int) -> None:
    model = compiled(STACKED)
    assert ask(model, f"shoot(2 {shooter}, {weapon}, 3 victim).hits") == _hits_with_extra(extra)


def test_an_abilitys_value_in_its_plain_and_when_attacked_effects() -> None:
    model = compiled(STACKED)
    # pierce(2): the victim's 3+ save is 5+ (save(Sv, AP) rolls d6 >= Sv + AP)
    unsaved = enumerate_attacks(2, 3, lambda atts: sum(h >= 4 and w >= 4 and s < 5 for h, w, s in atts))
    assert ask(model, "shoot(2 gunner, piercer, 3 victim).unsaved") == unsaved
    # shroud(1) on the target: -1 to hit against it, so 5+
    assert ask(model, "shoot(2 gunner, pistol, 3 veiled).hits") == enumerate_attacks(
        2, 1, lambda atts: sum(h >= 5 for (h,) in atts))


def test_a_hooks_value_inside_a_call_and_a_plain_number_beside_it() -> None:
    model = compiled(STACKED)

    def damage(h: int, w: int, s: int) -> int:  # gouge(2): a 6 to wound is +2 D and +1 AP
        if h < 4 or w < 4:
            return 0
        crit = w == 6
        return 0 if s >= 3 + crit else 1 + 2 * crit
    assert ask(model, "shoot(2 gunner, gouger, 3 victim).damage") == enumerate_attacks(
        2, 3, lambda atts: sum(damage(*a) for a in atts))


def test_better_by_of_a_role_changes_only_that_roles_value() -> None:
    model = compiled('''
modifier braced "Braced": Sv of target better by 1

attack brace(shooter, weapon, target) "Brace":
  attacks = shooter.models * weapon.A
  own     = attacks each save(shooter.Sv, weapon.AP)
  theirs  = attacks each save(target.Sv, weapon.AP)

unit guard "Guard":
  Q 4  T 4  W 1  Sv 4+
weapon pistol "Pistol":
  A 1  S 4  AP 0  D 1
''')
    at = {"own": 4, "theirs": 2}  # the guard's 4+ stays; the victim's 3+ becomes 2+
    for step, need in at.items():
        assert ask(model, f"brace(2 guard, pistol, 3 victim).{step}") == enumerate_attacks(
            2, 1, lambda atts, need=need: sum(s >= need for (s,) in atts)), step
