"""Which side an ability helps, hooks whose face is the ability's value, target values made
better or worse, and the check warnings for sentences that read otherwise (W416-W419).

Each resolved answer is compared with an enumeration of every die (``itertools.product``)
that plays the rule as written, and the fast path must agree with the exact one.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any, Callable

import pytest

from compiler import ast as A
from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, parse_expression
from compiler.syntax.unparse import effect_text, hook_text

BASE = '''ruleset r "R":
  version 1.0.0

stat BS "Ballistic Skill" target: "b"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat A "Attacks" 1..10: "a"
stat Sv "Save" target: "s"
stat W "Wounds" 1..10 role wounds: "w"
keyword infantry "Infantry": "i"
situation moved "Moved"
situation dug_in "Dug in"

test hit(BS) "Hit":
  roll d6 against BS
  natural 1 fails
  modifiers between -1 and 1

test wound(S, T) "Wound":
  roll d6 >= T - S + 4
  natural 1 fails

test save(Sv) "Save":
  roll d6 against Sv
  natural 1 fails

modifier moving "Moving": -1 to hit when moved

attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.BS)
  wounds  = hits each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv)

unit trooper "Trooper":
  BS 3+  T 4  W 1  Sv 4+
  keywords infantry
unit tank "Tank":
  BS 4+  T 4  W 3  Sv 3+
weapon rifle "Rifle":
  A 1  S 4
'''

D6 = range(1, 7)


def compiled(extra: str) -> Any:
    result = compile_text(BASE + extra)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def codes_of(extra: str) -> list[str]:
    return [d.code for d in compile_text(BASE + extra).diagnostics]


def ask(model: Any, question: str) -> dict[Any, Fraction]:
    """The exact answer, after checking that the fast path agrees with it."""
    exact = Evaluator(model).evaluate(parse_expression(question))
    fast = Evaluator(model, exact=False).evaluate(parse_expression(question))
    ex = dict(exact.probabilities())
    fa = {k: float(v) for k, v in fast.probabilities().items()}
    for k in set(ex) | set(fa):
        assert abs(float(ex.get(k, 0)) - fa.get(k, 0.0)) < 1e-12, (question, k)
    return ex


def enumerate_attacks(n: int, dice: int, play: Callable[[tuple[int, ...]], int]) -> dict[int, Fraction]:
    """Every roll of ``n`` attacks of ``dice`` d6 each; ``play`` counts what one attack scores."""
    one: dict[int, Fraction] = {}
    for faces in product(D6, repeat=dice):
        k = play(faces)
        one[k] = one.get(k, Fraction(0)) + Fraction(1, 6 ** dice)
    total = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for a, pa in total.items():
            for b, pb in one.items():
                nxt[a + b] = nxt.get(a + b, Fraction(0)) + pa * pb
        total = nxt
    return {k: v for k, v in total.items() if v}


def hits_needing(need: int) -> Callable[[tuple[int, ...]], int]:
    return lambda f: int(f[0] != 1 and f[0] >= need)


STEALTH = '''
ability stealth "Stealth": "Attacks against this unit are harder to hit."
  when attacked: -1 to hit
unit scout "Scout":
  BS 3+  T 4  W 1  Sv 5+
  abilities stealth
'''


@pytest.mark.parametrize("question, need", [
    ("shoot(3 trooper, rifle, 5 scout).hits", 4),     # 3+ to hit, one harder
    ("shoot(3 scout, rifle, 5 trooper).hits", 3),     # the stealthy unit's own attacks are not harder
    ("shoot(3 scout, rifle, 5 scout).hits", 4),       # the same profile on both sides: only as the target
    ("shoot(3 trooper, rifle, 5 tank).hits", 3),
])
def test_an_ability_when_attacked_counts_for_attacks_against_its_carrier(question: str, need: int) -> None:
    assert ask(compiled(STEALTH), question) == enumerate_attacks(3, 1, hits_needing(need))


def test_when_attacked_effects_add_up_with_modifiers_under_the_tests_cap() -> None:
    model = compiled(STEALTH)
    # moving (-1) and stealth (-1) make -2, which the test caps at -1: 4+ to hit
    assert ask(model, "shoot(3 trooper, rifle, 5 scout).hits with moved") == enumerate_attacks(3, 1, hits_needing(4))


def test_when_attacked_follows_the_abilitys_when_line() -> None:
    model = compiled('''
ability camouflage "Camouflage": "Harder to hit when standing still."
  when not moved
  when attacked: -1 to hit, +1 to save
unit ghillie "Ghillie":
  BS 3+  T 4  W 1  Sv 5+
  abilities camouflage
''')

    def unsaved(still: bool) -> Callable[[tuple[int, ...]], int]:
        def play(f: tuple[int, ...]) -> int:
            h, w, s = f
            hit = h != 1 and h >= 4  # still: -1 from camouflage; moved: -1 from moving instead
            saved = s != 1 and s >= (4 if still else 5)
            return int(hit and w != 1 and w >= 4 and not saved)
        return play
    assert ask(model, "shoot(2 trooper, rifle, 5 ghillie).unsaved") == enumerate_attacks(2, 3, unsaved(True))
    assert ask(model, "shoot(2 trooper, rifle, 5 ghillie).unsaved with moved") == \
        enumerate_attacks(2, 3, unsaved(False))


ANTI = '''
ability anti_infantry(X: 2..6) "Anti-infantry": "Against infantry, X or more to wound always wounds."
  when target has infantry
  on natural X+ to wound: succeeds
ability deadly "Deadly": "A critical wound is not saved."
  on natural 6 to wound: no save
weapon needle "Needle":
  A 1  S 2
  abilities anti_infantry(4)
weapon stinger "Stinger":
  A 1  S 2
  abilities anti_infantry(5), deadly
weapon dart "Dart":
  A 1  S 2
  abilities anti_infantry(3), anti_infantry(5)
modifier careful "Careful": reroll failures to wound when moved
'''


def anti_play(x: int | None, s: int, t: int, sv: int, deadly_on: int | None = None,
              reroll: bool = False, hit_need: int = 3) -> Callable[[tuple[int, ...]], int]:
    """Hit on hit_need+; wound on the chart or on a natural x+; unsaved unless a natural 1 to save or sv+."""
    need = t - s + 4

    def wounds(w: int) -> bool:
        return w != 1 and (w >= need or (x is not None and w >= x))

    def play(f: tuple[int, ...]) -> int:
        h, w, w2, sv_roll = f
        if not (h != 1 and h >= hit_need):
            return 0
        if reroll and not wounds(w):
            w = w2
        if not wounds(w):
            return 0
        if deadly_on is not None and w >= deadly_on:
            return 1
        return int(sv_roll == 1 or sv_roll < sv)
    return play


@pytest.mark.parametrize("question, play", [
    # S2 against T4 needs 6+; the needle wounds infantry on a natural 4+ whatever it needs
    ("shoot(2 trooper, needle, 5 trooper).unsaved", anti_play(4, 2, 4, 4)),
    ("shoot(2 trooper, needle, 5 tank).unsaved", anti_play(None, 2, 4, 3)),
    # anti on 5+ and a 6 that is not saved, together
    ("shoot(2 trooper, stinger, 5 trooper).unsaved", anti_play(5, 2, 4, 4, deadly_on=6)),
    # the higher value of the ability counts (stacking highest): 5+
    ("shoot(2 trooper, dart, 5 trooper).unsaved", anti_play(5, 2, 4, 4)),
    # a natural 4 that the ability makes a success is not a failure to re-roll (moving: 4+ to hit)
    ("shoot(2 trooper, needle, 5 trooper).unsaved with moved", anti_play(4, 2, 4, 4, reroll=True, hit_need=4)),
])
def test_a_hook_face_from_the_abilitys_value_makes_the_roll_succeed(question: str,
                                                                   play: Callable[[tuple[int, ...]], int]) -> None:
    assert ask(compiled(ANTI), question) == enumerate_attacks(2, 4, play)


def test_without_succeeds_a_hook_from_the_value_fires_only_on_a_roll_that_passes() -> None:
    model = compiled('''
ability piercing(X: 2..6) "Piercing": "An unmodified X or more to wound is not saved."
  on natural X+ to wound: no save
weapon lance "Lance":
  A 1  S 4
  abilities piercing(5)
''')

    def play(f: tuple[int, ...]) -> int:
        h, w, s = f
        if not (h != 1 and h >= 3 and w != 1 and w >= 4):
            return 0
        return 1 if w >= 5 else int(s == 1 or s < 4)
    assert ask(model, "shoot(2 trooper, lance, 5 trooper).unsaved") == enumerate_attacks(2, 3, play)


def test_a_hook_face_that_names_no_parameter_is_refused() -> None:
    assert "W101" in codes_of('''
ability anti(X: 2..6) "Anti": "x"
  on natural Y+ to wound: succeeds
''')


@pytest.mark.parametrize("effect, save_need", [
    ("Sv of target better by 1", 3), ("Sv of target worse by 1", 5), ("Sv better by 2", 2),
])
def test_a_target_value_made_better_or_worse(effect: str, save_need: int) -> None:
    model = compiled(f'modifier cover "Cover": {effect} when dug_in\n')

    def play(f: tuple[int, ...]) -> int:
        h, w, s = f
        return int(h != 1 and h >= 3 and w != 1 and w >= 4 and (s == 1 or s < save_need))
    assert ask(model, "shoot(2 trooper, rifle, 5 trooper).unsaved with dug_in") == enumerate_attacks(2, 3, play)


def test_better_on_a_low_roll_raises_the_number() -> None:
    model = compiled('''stat Ld "Leadership" target: "l"
test nerve(Ld) = roll d6 against Ld
modifier rally "Rally": Ld better by 1 when moved
unit guard "Guard":
  BS 3+  T 4  W 1  Sv 4+  Ld 3-
''')
    ev = Evaluator(model, situation={"moved": True})
    assert ev.probability_of(parse_expression("nerve(4-)")) == Fraction(5, 6)


def test_better_by_on_a_plain_number_is_refused() -> None:
    assert "W201" in codes_of('modifier m "M": T better by 1\n')


# -- the warnings ---------------------------------------------------------------------------


def warnings_of(extra: str) -> list[tuple[str, int]]:
    return [(d.code, d.span.line) for d in compile_text(BASE + extra).diagnostics]


def line_of(extra: str, needle: str) -> int:
    return (BASE + extra).splitlines().index(next(x for x in (BASE + extra).splitlines() if needle in x)) + 1


OWN = '''
ability hidden "Hidden": "Attacks against this unit are harder to hit."
  -1 to hit
unit lurker "Lurker":
  BS 3+  T 4  W 1  Sv 5+
  abilities hidden
example e "E":
  expect mean(shoot(2 trooper, rifle, 5 lurker).hits) > 0
'''


def test_an_attacked_profiles_ability_for_its_own_attacks_is_a_warning_with_the_right_form() -> None:
    result = compile_text(BASE + OWN)
    found = [d for d in result.diagnostics if d.code == "W416"]
    assert len(found) == 1
    assert found[0].span.line == line_of(OWN, "expect mean(shoot")
    assert found[0].hint is not None and "when attacked: -1 to hit" in found[0].hint


def test_no_w416_once_the_ability_says_when_attacked() -> None:
    assert "W416" in codes_of(OWN)
    assert "W416" not in codes_of(OWN.replace("  -1 to hit", "  when attacked: -1 to hit"))


# Each trap warning, in more of the places it can be written: (the text, the code, a piece of the
# line it must point at, the same text written the way that says what is meant).
TRAPS = [
    # W416: any effect of an ability on a profile that is only ever attacked…
    ('ability thick "Thick": "t"\n  +1 to save\nunit brute "Brute":\n  BS 4+  T 5  W 2  Sv 5+\n'
     '  abilities thick\nexample e "E":\n  expect mean(shoot(1 trooper, rifle, 2 brute).unsaved) >= 0\n',
     "W416", "expect mean(shoot", "  +1 to save", "  when attacked: +1 to save"),
    ('ability heavy "Heavy": "h"\n  -1 S\nunit brute "Brute":\n  BS 4+  T 5  W 2  Sv 5+\n'
     '  abilities heavy\nexample e "E":\n  expect mean(shoot(1 trooper, rifle, 2 brute).wounds) >= 0\n',
     "W416", "expect mean(shoot", "  -1 S", "  when attacked: -1 S"),
    # … and a penalty on a roll where the profile also attacks
    ('ability clumsy "Clumsy": "c"\n  -1 to wound\nunit brute "Brute":\n  BS 4+  T 5  W 2  Sv 5+\n'
     '  abilities clumsy\nexample e "E":\n  expect mean(shoot(1 brute, rifle, 2 brute).wounds) >= 0\n',
     "W416", "expect mean(shoot", "  -1 to wound", "  when attacked: -1 to wound"),
    # W417: always, from the test's own target, a modifier, an ability or a hook
    ('test snap(BS) "Snap":\n  roll d6 against always\n  natural 1 fails\n', "W417", "roll d6 against always",
     "natural 1 fails\n", ""),
    ('ability sure "Sure": "s"\n  hit needs always\n', "W417", "hit needs always", "always", "2+"),
    ('ability sure "Sure": "s"\n  on natural 6 to hit: wound needs always\n', "W417", "wound needs always",
     "always", "2+"),
    ('modifier steady "Steady": save needs always when dug_in\n', "W417", "steady", "always", "2+"),
    # W418: each operator on the left of each, and each not
    ('formula f(skill: 0..5) "F" = skill * 2 each d6\n', "W418", "skill * 2", "skill * 2", "(skill * 2)"),
    ('formula f(skill: 0..5) "F" = skill - 1 each d6\n', "W418", "skill - 1", "skill - 1", "(skill - 1)"),
    ('formula f(skill: 0..5) "F" = skill / 2 each d6\n', "W418", "skill / 2", "skill / 2", "(skill / 2)"),
    ('formula f(skill: 0..5) "F" = skill + 1 each not hit(4+)\n', "W418", "skill + 1", "skill + 1",
     "(skill + 1)"),
    # W419: a stat modifier on a target value, wherever an effect is written
    ('modifier sure "Sure": +1 Sv of target when dug_in\n', "W419", "sure", "+1 Sv of target",
     "Sv of target worse by 1"),
    ('ability steady "Steady": "s"\n  -1 BS\n', "W419", "-1 BS", "-1 BS", "BS better by 1"),
    ('ability shaky "Shaky": "s"\n  when attacked: +1 Sv\n', "W419", "+1 Sv", "+1 Sv", "Sv worse by 1"),
    ('ability crack "Crack": "c"\n  on natural 6 to wound: +1 Sv of target\n', "W419", "+1 Sv of target",
     "+1 Sv of target", "Sv of target worse by 1"),
]


@pytest.mark.parametrize("extra, code, at, wrong, right", TRAPS, ids=[f"{t[1]}-{i}" for i, t in enumerate(TRAPS)])
def test_each_trap_warns_at_its_sentence_and_not_once_it_says_what_it_means(
        extra: str, code: str, at: str, wrong: str, right: str) -> None:
    found = [d for d in compile_text(BASE + extra).diagnostics if d.code == code]
    assert len(found) == 1, [f"{d.code} {d.message}" for d in compile_text(BASE + extra).diagnostics]
    assert found[0].span.line == line_of(extra, at)
    assert found[0].hint
    assert right.strip() in found[0].hint  # the hint shows the sentence that says what is meant
    fixed = extra.replace(wrong, right)
    assert fixed != extra
    assert code not in codes_of(fixed)


def line_is(extra: str, line: str) -> int:
    return (BASE + extra).splitlines().index(line) + 1


def w416(extra: str) -> list[Any]:
    return [d for d in compile_text(BASE + extra).diagnostics if d.code == "W416"]


LURKER = '''
ability hidden "Hidden": "h"
  +1 to save
  -1 to hit
unit lurker "Lurker":
  BS 3+  T 4  W 1  Sv 5+
  abilities hidden
'''


def test_w416_says_which_case_it_is_and_points_at_the_effect() -> None:
    only = LURKER + 'example e "E":\n  expect mean(shoot(2 trooper, rifle, 5 lurker).hits) > 0\n'
    (d,) = w416(only)
    assert "is only ever attacked" in d.message and "the effects of its ability 'hidden'" in d.message
    assert "(+1 to save, -1 to hit)" in d.message
    assert d.related and d.related[0][0].line == line_is(only, "  -1 to hit")  # the penalty first
    bonuses = only.replace("  -1 to hit", "  +1 to hit")
    (b,) = w416(bonuses)
    assert b.related and b.related[0][0].line == line_is(bonuses, "  +1 to save")  # else the first effect
    both = only + 'example f "F":\n  expect mean(shoot(2 lurker, rifle, 5 trooper).hits) > 0\n'
    (d,) = w416(both)
    assert "is attacked here" in d.message and "the penalty of its ability 'hidden'" in d.message
    assert "(-1 to hit)" in d.message and "+1 to save" not in d.message
    assert d.related and d.related[0][0].line == line_is(both, "  -1 to hit")


def test_w416_sees_a_profile_passed_by_its_bare_name() -> None:
    bonus = LURKER.replace("  -1 to hit\n", "")
    attacked = bonus + 'example e "E":\n  expect mean(shoot(2 trooper, rifle, 5 lurker).hits) > 0\n'
    assert len(w416(attacked)) == 1
    # lurker attacks too, named without a number of models: its bonus is for its own attacks
    both = attacked + 'example f "F":\n  expect mean(shoot(lurker, rifle, 5 trooper).hits) > 0\n'
    assert compile_text(BASE + both).ok
    assert w416(both) == []
    # and attacked by its bare name, it is warned about the same
    bare = bonus + 'example e "E":\n  expect mean(shoot(2 trooper, rifle, lurker).hits) > 0\n'
    assert len(w416(bare)) == 1


def test_w416_leaves_abilities_without_effects_and_unknown_names_to_others() -> None:
    hooks_only = '''
ability tough "Tough": "t"
  on each damage: roll d6, ignored on 6+
unit lurker "Lurker":
  BS 3+  T 4  W 1  Sv 5+
  abilities tough
example e "E":
  expect mean(shoot(2 trooper, rifle, 5 lurker).hits) > 0
'''
    assert compile_text(BASE + hooks_only).ok and w416(hooks_only) == []
    assert len(w416(hooks_only.replace("  on each damage: roll d6, ignored on 6+", "  +1 to save"))) == 1
    # a profile or an ability that does not exist: an error where it is named, no warning, no crash
    typo = hooks_only.replace("5 lurker", "5 lurkr")
    assert "W101" in codes_of(typo) and w416(typo) == []
    unknown = hooks_only.replace("abilities tough", "abilities tuff")
    assert any(d.is_error for d in compile_text(BASE + unknown).diagnostics) and w416(unknown) == []


@pytest.mark.parametrize("effect, penalty", [("-1 to hit", True), ("-X to hit", True), ("+1 to hit", False),
                                             ("+0 to hit", False), ("-1 T", False)])
def test_w416_a_penalty_is_a_roll_made_worse(effect: str, penalty: bool) -> None:
    text = f'''
ability shy(X: 1..2) "Shy": "s"
  {effect}
unit lurker "Lurker":
  BS 3+  T 4  W 1  Sv 5+
  abilities shy(1)
example e "E":
  expect mean(shoot(2 trooper, rifle, 5 lurker).hits) > 0
  expect mean(shoot(2 lurker, rifle, 5 trooper).hits) > 0
'''
    assert compile_text(BASE + text).ok
    assert len(w416(text)) == int(penalty)


def test_w416_for_a_penalty_even_when_the_profile_attacks_too_but_not_for_a_bonus() -> None:
    attacks_too = OWN + '''example f "F":
  expect mean(shoot(2 lurker, rifle, 5 trooper).hits) > 0
'''
    found = [d for d in compile_text(BASE + attacks_too).diagnostics if d.code == "W416"]
    assert len(found) == 1 and found[0].hint is not None and "-1 to hit when shooter has hidden" in found[0].hint
    assert "W416" not in codes_of(attacks_too.replace("  -1 to hit", "  +1 to hit"))


def test_always_on_a_test_with_a_natural_fail_is_a_warning() -> None:
    extra = 'modifier torrent "Torrent": hit needs always when moved\n'
    assert ("W417", line_of(extra, "torrent")) in warnings_of(extra)
    assert "W417" not in codes_of('modifier torrent "Torrent": wound needs 2+ when moved\n')


def test_always_still_fails_on_a_natural_one_as_the_warning_says() -> None:
    model = compiled('modifier torrent "Torrent": hit needs always when moved\n')
    ev = Evaluator(model, situation={"moved": True})
    assert ev.probability_of(parse_expression("hit(3+)")) == Fraction(5, 6)


def test_arithmetic_left_of_each_without_brackets_is_a_warning_at_the_operator() -> None:
    extra = 'formula f(skill: 0..5) "F" = skill + 4 each (d6 - 2)\n'
    found = [d for d in compile_text(BASE + extra).diagnostics if d.code == "W418"]
    assert len(found) == 1
    text = (BASE + extra).splitlines()[found[0].span.line - 1]
    assert text[found[0].span.column - 1:found[0].span.end_column - 1].strip() == "+"
    assert found[0].hint is not None and "skill + (4 each" in found[0].hint
    assert "W418" not in codes_of('formula f(skill: 0..5) "F" = (skill + 4) each (d6 - 2)\n')
    assert "W418" not in codes_of('formula f(skill: 0..5) "F" = skill + (4 each (d6 - 2))\n')


def test_each_binds_more_loosely_than_plus_as_the_warning_says() -> None:
    model = compile_text(BASE + 'formula f(skill: 0..5) "F" = skill + 1 each d6\n').rulesets[0]
    got = dict(Evaluator(model).evaluate(parse_expression("f(1)")).probabilities())
    two_dice: dict[int, Fraction] = {}
    for a, b in product(D6, repeat=2):
        two_dice[a + b] = two_dice.get(a + b, Fraction(0)) + Fraction(1, 36)
    assert got == two_dice


def test_a_stat_modifier_on_a_target_value_is_a_warning_with_both_forms() -> None:
    extra = 'modifier shaken "Shaken": -1 BS of shooter when moved\n'
    found = [d for d in compile_text(BASE + extra).diagnostics if d.code == "W419"]
    assert len(found) == 1 and found[0].span.line == line_of(extra, "shaken")
    assert found[0].hint is not None and "BS of shooter better by 1" in found[0].hint
    assert "W419" not in codes_of('modifier shaken "Shaken": BS of shooter worse by 1 when moved\n')
    # and the number moves as the warning says: 3+ becomes 2+
    model = compiled('modifier shaken "Shaken": -1 BS of shooter when dug_in\n')
    assert ask(model, "shoot(2 trooper, rifle, 5 tank).hits with dug_in") == enumerate_attacks(2, 1, hits_needing(2))


def test_a_hook_on_exactly_the_abilitys_value() -> None:
    model = compiled('''
ability lucky(X: 2..6) "Lucky": "An unmodified X to hit scores one more hit."
  on natural X to hit: 1 extra hits
weapon charm "Charm":
  A 1  S 4
  abilities lucky(5)
''')
    # trooper hits on 3+; a natural 5 (and only a 5) adds a hit
    assert ask(model, "shoot(2 trooper, charm, 5 tank).hits") == \
        enumerate_attacks(2, 1, lambda f: int(f[0] >= 3) + int(f[0] == 5))


def test_the_new_forms_print_back_as_written() -> None:
    model = compiled(ANTI + STEALTH + 'modifier cover "Cover": Sv of target better by 2 when dug_in\n'
                     'modifier shaken "Shaken": BS worse by 1 when moved\n')
    anti = next(a for a in model.of_type(A.Ability) if a.id == "anti_infantry")
    assert [hook_text(h) for h in anti.hooks] == ["on natural X+ to wound: succeeds"]
    stealth = next(a for a in model.of_type(A.Ability) if a.id == "stealth")
    assert [effect_text(e) for e in stealth.defence] == ["-1 to hit"] and stealth.effects == ()
    texts = {m.id: [effect_text(e) for e in m.effects] for m in model.of_type(A.Modifier)}
    assert texts["cover"] == ["Sv of target better by 2"] and texts["shaken"] == ["BS worse by 1"]


@pytest.mark.parametrize("effect, harder", [("+1 Sv of target", True), ("-1 Sv of target", False)])
def test_w419_says_which_way_the_number_moves(effect: str, harder: bool) -> None:
    (d,) = [d for d in compile_text(BASE + f'modifier m "M": {effect} when moved\n').diagnostics if d.code == "W419"]
    assert ("makes 4+, a harder roll" if harder else "makes 2+, an easier roll") in d.message
    assert d.hint is not None
    assert d.hint.startswith(f"say which way you mean: Sv of target {'worse' if harder else 'better'} by 1")


def test_w416_with_a_number_handed_to_the_attack() -> None:
    text = LURKER + '''
attack aimed(shooter, weapon, bonus, target) "Aimed":
  attacks = shooter.models * weapon.A + bonus
  hits    = attacks each hit(shooter.BS)
example e "E":
  expect mean(aimed(2 trooper, rifle, 1, 5 lurker).hits) > 0
'''
    (d,) = w416(text)
    assert d.span.line == line_of(text, "aimed(2 trooper")
