"""The dice a volley shows (``play``): each step's count drawn given the volley's outcome, from
the exact law of the steps, on a stream of its own.

The joint law of (hits, unsaved, models removed, wounds left) of a small volley is written out
here by enumeration (binomial steps, then each unsaved hit's damage die dealt to the models in
turn: ``take`` of the wounds test); the outcome drawn from the engine's law and the counts drawn
given it must follow that joint law (chi-square, p > 0.001), every face must agree with its count,
and the game must be the same with or without the dice.
"""
from __future__ import annotations

import random
from fractions import Fraction
from math import comb

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules, chi_square, chi_square_critical
from compiler.battle.dice import VolleyDice
from compiler.battle.state import Unit
from compiler.driver import compile_text
from test_battle_wounds import DUEL, take

D3 = {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}


@pytest.fixture(scope="module")
def duel() -> Rules:
    return Rules(compile_text(DUEL).rulesets[0])


def exact(shots: dict[int, Fraction], p_hit: Fraction, p_unsaved: Fraction, models: int, damaged: int,
          wounds: int) -> dict[tuple[int, int, int, int, int], Fraction]:
    """(shots, hits, unsaved, removed, wounds left) → chance, by enumeration."""
    law: dict[tuple[int, int, int, int, int], Fraction] = {}
    for n, pn in shots.items():
        for h in range(n + 1):
            ph = comb(n, h) * p_hit ** h * (1 - p_hit) ** (n - h)
            for u in range(h + 1):
                pu = comb(h, u) * p_unsaved ** u * (1 - p_unsaved) ** (h - u)
                for (m, w), pk in take((models, damaged), u, D3, wounds, True).items():
                    key = (n, h, u, models - m, w)
                    law[key] = law.get(key, Fraction(0)) + pn * ph * pu * pk
    return law


# a brute's maul: one attack, or D3 attacks (the number of shots then a roll of its own)
MAULS = {"1": ('  A 1  D d3', {3: Fraction(1)}),
         "d3": ('  A d3  D d3', {n: Fraction(c, 27) for n, c in {3: 1, 4: 3, 5: 6, 6: 7, 7: 6, 8: 3, 9: 1}.items()})}


@pytest.mark.parametrize("damaged, attacks", [(0, "1"), (2, "1"), (1, "d3")])
def test_the_counts_follow_the_exact_joint_law_given_the_outcome(damaged: int, attacks: str) -> None:
    # three brutes (BS 3: hit on 3+, maul D3) at two ogres (W 3, Sv 5+: unsaved on 1 to 4)
    text = DUEL.replace('stat A "Attacks" 1..10', 'stat A "Attacks" dice') \
        .replace('weapon maul "Maul":\n  A 1  D d3', 'weapon maul "Maul":\n' + MAULS[attacks][0])
    duel = Rules(compile_text(text).rulesets[0])
    attack = duel.model.get("shooting")
    brutes = Unit(0, 0, "Brutes", "brute", ("maul",), 3, 3, 0, 0.0)
    ogres = Unit(1, 1, "Ogres", "ogre", ("cleaver",), 2, 2, 0, 12.0, wounds=damaged)
    law = duel.volley(attack, brutes, "maul", ogres, ())
    dice = VolleyDice(duel, 1)
    draw = random.Random(2)
    want = exact(MAULS[attacks][1], Fraction(4, 6), Fraction(4, 6), 2, damaged, 3)
    cells = sorted(want)
    seen = dict.fromkeys(cells, 0)
    for _ in range(3000):
        i = law.index(draw.random())
        shown = dice.volley(attack, brutes, "maul", ogres, (), law, i)
        steps = {d["step"]: d for d in shown["dice"]}
        shots = steps["shots"]["passed"]
        hits, unsaved = steps["hits"], steps["unsaved"]
        assert (hits["rule"], hits["rolled"], unsaved["rule"], unsaved["rolled"]) == ("hit", shots, "save", hits["passed"])
        # the faces agree with the counts: hits on 3+, saves failed on 1 to 4
        assert len(hits["faces"]) == shots and sum(f >= 3 for f in hits["faces"]) == hits["passed"]
        assert len(unsaved["faces"]) == unsaved["rolled"] and sum(f < 5 for f in unsaved["faces"]) == unsaved["passed"]
        assert all(1 <= f <= 6 for f in hits["faces"] + unsaved["faces"])
        seen[(shots, hits["passed"], unsaved["passed"], law.values[i], law.damaged[i])] += 1
    stat, df = chi_square([seen[c] for c in cells], [float(want[c]) * 3000 for c in cells])
    assert stat < chi_square_critical(df), (stat, df)
    # the counts are not the unconditional ones: given no model removed and no wound added, no hit got through
    nothing = law.values.index(0) if damaged == 0 else None
    if nothing is not None and law.damaged[nothing] == 0:
        shown = dice.volley(attack, brutes, "maul", ogres, (), law, nothing)
        assert shown["dice"][2]["passed"] == 0
    assert shots_seen(seen) == set(MAULS[attacks][1])  # every number of shots came up


def shots_seen(seen: dict[tuple[int, int, int, int, int], int]) -> set[int]:
    return {cell[0] for cell, k in seen.items() if k}


def test_the_game_is_the_same_with_or_without_the_dice(duel: Rules) -> None:
    scenario = duel.model.get("brutes")

    def played(dice: bool) -> list[dict[str, object]]:
        battle = Battle(duel, scenario, [GreedyPolicy(), GreedyPolicy()], seed=5, dice=dice)
        battle.run()
        return battle.events

    with_dice, again, without = played(True), played(True), played(False)
    volleys = [e for e in with_dice if e["event"] == "volley"]
    assert volleys and all(e["dice"] for e in volleys)
    assert with_dice == again  # the dice come from the seed too
    assert [{k: v for k, v in e.items() if k != "dice"} for e in with_dice] == without


def test_an_attack_whose_steps_depend_on_each_other_shows_no_counts() -> None:
    model = compile_text(DUEL.replace('weapon maul "Maul":\n  A 1  D d3',
                                      'weapon maul "Maul":\n  A 1  D d3\n  abilities rending') +
                         'ability rending "Rending": "A natural 6 to hit is not saved."\n'
                         '  on natural 6 to hit: no save\n').rulesets[0]
    rules = Rules(model)
    attack = model.get("shooting")
    brutes = Unit(0, 0, "Brutes", "brute", ("maul",), 3, 3, 0, 0.0)
    ogres = Unit(1, 1, "Ogres", "ogre", ("cleaver",), 2, 2, 0, 12.0)
    law = rules.volley(attack, brutes, "maul", ogres, ())
    shown = VolleyDice(rules, 1).volley(attack, brutes, "maul", ogres, (), law, 0)
    assert "dice" not in shown and "hit" in shown["dice_note"]
