"""A volley drawn with the count of one of its steps (:mod:`compiler.battle.joint`): the joint law of
(count, models removed, wounds on the damaged model) against one enumerated here die by die, and
the attacks it refuses to draw so.

A gunner fires D3 shots (or three) at two brutes of three wounds each: a shot hits on 4+, a hit
wounds on 4+, each wound deals 1 damage, carried from one brute to the next.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest

from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.battle.joint import CountError
from compiler.battle.state import Unit
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset

JOINT = '''
ruleset joint "Joint":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
stat D "Damage" 1..3
test hit(BS) = roll d6 >= BS
test wound() = roll d6 >= 4
die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3
ability sustained "Sustained": "Sixes hit twice."
  on natural 6 to hit: 1 extra hits
ability lethal "Lethal": "Sixes wound."
  on natural 6 to hit: wound automatically
attack shooting(shooter, weapon, target) "Shooting":
  shots = D3
  hits = shots each hit(shooter.BS)
  wounds = hits each wound()
  killed = wounds removes target, damage weapon.D
attack doubled(shooter, weapon, target) "Doubled":
  shots = D3
  pairs = shots each becomes 2
  hits = pairs each hit(shooter.BS)
  wounds = hits each wound()
  killed = wounds removes target, damage weapon.D
attack blind(shooter, weapon, target) "Blind":
  shots = D3
  hits = shots each hit(7)
  wounds = hits each wound()
  killed = wounds removes target, damage weapon.D
attack volley(shooter, weapon, target) "Volley":
  shots = 3
  hits = shots each hit(shooter.BS)
  wounds = hits each wound()
  killed = wounds removes target, damage weapon.D
weapon gun "Gun":
  D 1
weapon storm "Storm":
  D 1
  abilities sustained
weapon needle "Needle":
  D 1
  abilities lethal
unit gunner "Gunner":
  BS 4  W 1
  weapons gun, storm, needle
unit brute "Brute":
  BS 4  W 3
game g "A game":
  turns 1
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wiped_out "Wiped out" by annihilation: "A side with no models left loses."
scenario duel "A gunner against brutes":
  game g
  distance 12"
  first red
  side red "Red":
    1 gunner
  side blue "Blue":
    2 brute
'''

#: Each shot's fate: a miss, a hit that does not wound, a wound (4+ then 4+).
FATES = {"miss": Fraction(1, 2), "hit": Fraction(1, 4), "wound": Fraction(1, 4)}


@pytest.fixture(scope="module")
def duel() -> tuple[Rules, Ruleset, Unit, Unit]:
    result = compile_text(JOINT, "joint.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    rules = Rules(model, exact=True)
    sc = model.get("duel")
    assert isinstance(sc, A.Scenario)
    gunner, brutes = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], 0).state.units
    return rules, model, gunner, brutes


def by_hand(shots: dict[int, Fraction], counted: str, damage: int) -> dict[tuple[int, int, int], Fraction]:
    """(count of ``counted``, brutes removed, wounds on the damaged one) by every sequence of fates,
    the brute in front carrying ``damage`` already."""
    out: dict[tuple[int, int, int], Fraction] = {}
    for n, pn in shots.items():
        for fates in product(FATES, repeat=n):
            p = pn
            for f in fates:
                p *= FATES[f]
            hits = sum(f != "miss" for f in fates)
            wounds = fates.count("wound")
            taken = damage + wounds
            removed = min(taken // 3, 2)
            key = ({"shots": n, "hits": hits, "wounds": wounds}[counted], removed, taken % 3 if removed < 2 else 0)
            out[key] = out.get(key, Fraction(0)) + p
    return out


@pytest.mark.parametrize("counted", ["shots", "hits", "wounds"])
def test_a_volley_drawn_with_a_count_follows_the_law_of_its_dice(duel: tuple[Rules, Ruleset, Unit, Unit],
                                                                   counted: str) -> None:
    rules, model, gunner, brutes = duel
    d3 = {n: Fraction(1, 3) for n in (1, 2, 3)}
    for attack, shots in (("shooting", d3), ("volley", {3: Fraction(1)})):
        for damage in (0, 2):  # a fresh brute in front, and one two wounds down
            brutes.wounds = damage
            decl = model.get(attack)
            assert isinstance(decl, A.Attack)
            law = rules.volley_counting(decl, gunner, "gun", brutes, (), counted)
            got: dict[tuple[int, int, int], Fraction] = {}
            for key, p in zip(zip(law.counts, law.values, law.damaged), law.probabilities):
                got[key] = got.get(key, Fraction(0)) + p
            assert got == by_hand(shots, counted, damage), (attack, damage)
    brutes.wounds = 0


def fates_of_a_shot(weapon: str, pairs: bool = False) -> dict[tuple[int, int], Fraction]:
    """The (hits, wounds) one shot makes, face by face: a 4+ hits, a 4+ wounds; a natural 6 to hit
    is two hits with the storm, a wound without its roll with the needle; ``pairs``: the shot is
    two dice to hit."""
    out: dict[tuple[int, int], Fraction] = {}
    for faces in product(range(1, 7), repeat=2 if pairs else 1):
        hits = sum(0 if f < 4 else 2 if f == 6 and weapon == "storm" else 1 for f in faces)
        sure = sum(f == 6 and weapon == "needle" for f in faces)
        for rolls in product(range(1, 7), repeat=hits - sure):
            key = (hits, sure + sum(r >= 4 for r in rolls))
            out[key] = out.get(key, Fraction(0)) + Fraction(1, 6 ** len(faces)) / 6 ** (hits - sure)
    return out


@pytest.mark.parametrize("attack, weapon, counted", [
    ("shooting", "storm", "wounds"), ("volley", "storm", "wounds"), ("shooting", "needle", "wounds"),
    ("volley", "storm", "hits"), ("shooting", "storm", "hits"), ("doubled", "gun", "hits"),
])
def test_a_count_is_drawn_with_the_volley_whatever_made_it(duel: tuple[Rules, Ruleset, Unit, Unit], attack: str,
                                                          weapon: str, counted: str) -> None:
    rules, model, gunner, brutes = duel
    per_shot = fates_of_a_shot(weapon, pairs=attack == "doubled")
    shots = {3: Fraction(1)} if attack == "volley" else {n: Fraction(1, 3) for n in (1, 2, 3)}
    decl = model.get(attack)
    assert isinstance(decl, A.Attack)
    law = rules.volley_counting(decl, gunner, weapon, brutes, (), counted)
    got: dict[tuple[int, int, int], Fraction] = {}
    for key, p in zip(zip(law.counts, law.values, law.damaged), law.probabilities):
        got[key] = got.get(key, Fraction(0)) + p
    want: dict[tuple[int, int, int], Fraction] = {}
    for n, pn in shots.items():
        for outcome in product(per_shot, repeat=n):
            p = pn
            for fate in outcome:
                p *= per_shot[fate]
            hits, wounds = sum(f[0] for f in outcome), sum(f[1] for f in outcome)
            removed = min(wounds // 3, 2)
            key = (hits if counted == "hits" else wounds, removed, wounds % 3 if removed < 2 else 0)
            want[key] = want.get(key, Fraction(0)) + p
    assert got == want


@pytest.mark.parametrize("attack, weapon, counted, message", [
    ("shooting", "gun", "killed", "attack 'shooting' does not count 'killed' on its way to the models removed"),
    # a 6 to hit wounds without the wound roll: the hits do not go on to wound each with one chance
    ("shooting", "needle", "hits", "a hook on its test 'hit' \\(at 'hits'\\) changes the dice it passes"),
])
def test_a_volley_whose_count_does_not_follow_a_chain_of_dice_is_refused(
        duel: tuple[Rules, Ruleset, Unit, Unit], attack: str, weapon: str, counted: str, message: str) -> None:
    rules, model, gunner, brutes = duel
    decl = model.get(attack)
    assert isinstance(decl, A.Attack)
    with pytest.raises(CountError, match=message):
        rules.volley_counting(decl, gunner, weapon, brutes, (), counted)


def test_a_step_no_die_passes_counts_none(duel: tuple[Rules, Ruleset, Unit, Unit]) -> None:
    rules, model, gunner, brutes = duel
    decl = model.get("blind")  # hits on a 7: never
    assert isinstance(decl, A.Attack)
    for counted in ("hits", "wounds"):
        law = rules.volley_counting(decl, gunner, "gun", brutes, (), counted)
        assert set(zip(law.counts, law.values, law.damaged)) == {(0, 0, 0)} and sum(law.probabilities) == 1


def test_a_count_is_a_whole_number_of_dice_or_a_law_of_them() -> None:
    from compiler.battle.joint import _counts
    from compiler.resolve import Dist

    assert _counts(3, "shots") == {3: 1} and _counts(0, "shots") == {0: 1}  # no dice is a number of them
    assert _counts(Dist.die(2) - 1, "shots") == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert _counts(Dist.die(3), "shots") == {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    for bad in (-1, True, 2.5, Dist.die(3) - 2):
        with pytest.raises(CountError, match="its step 'shots' is not a number of dice$"):
            _counts(bad, "shots")


def test_the_law_summed_over_the_count_is_held_to_the_volleys_own(duel: tuple[Rules, Ruleset, Unit, Unit]) -> None:
    """Exactly with fractions, to 1e-9 with floats (the fast mode's rounding); an outcome of chance
    0 on one side only is no difference."""
    from compiler.battle.joint import _agrees

    _, model, _, _ = duel
    decl = model.get("shooting")
    assert isinstance(decl, A.Attack)
    half = Fraction(1, 2)
    joint = {(0, 0, 0): half, (1, 0, 1): half, (2, 1, 0): Fraction(0)}
    _agrees(joint, {(0, 0): half, (0, 1): half}, decl, "hits")
    _agrees(joint, {(0, 0): half, (0, 1): half, (2, 0): Fraction(0)}, decl, "hits")
    _agrees({k: float(p) for k, p in joint.items()}, {(0, 0): 0.5 + 1e-10, (0, 1): 0.5 - 1e-10}, decl, "hits")
    for law in ({(0, 0): half, (0, 1): half - Fraction(1, 10**12)}, {(0, 0): half, (0, 2): half},
                {(0, 0): 0.5 + 1e-8, (0, 1): 0.5 - 1e-8}):
        with pytest.raises(CountError, match=": the count of 'hits' does not decide the models attack 'shooting' removes"):
            _agrees(joint, law, decl, "hits")
