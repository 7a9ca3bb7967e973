"""The dice a volley shows, at their edges: a test that re-rolls, rolls a custom die, several dice
or a chained roll shows its counts with a note and no faces; a step that makes several of one shows
no dice; a volley at a unit with casualties marked this phase shows the dice of a volley at the
models left; a volley drawn with a step's count shows that count; an outcome whose chance the steps
do not give shows no dice; the faces agree with the counts, highest first; an attack of two parties
(no weapon) and a weapon of no shots show theirs."""
from __future__ import annotations

from typing import Any

import pytest

from compiler.battle import Rules
from compiler.battle.dice import VolleyDice
from compiler.battle.state import Unit
from compiler.driver import compile_text
from test_battle_wounds import DUEL


def rules_of(text: str) -> Rules:
    result = compile_text(text)
    assert result.ok, [d.message for d in result.diagnostics]
    return Rules(result.rulesets[0])


def gunners() -> Unit:
    return Unit(0, 0, "Gunners", "gunner", ("pistol",), 3, 3, 0, 0.0)


def troopers(models: int, doomed: int = 0, profile: str = "trooper") -> Unit:
    unit = Unit(1, 1, "Troopers", profile, ("lance",), models, 3, 0, 12.0)
    unit.doomed = doomed
    return unit


def shown(rules: Rules, target: Unit, outcome: int, seed: int = 1) -> dict[str, Any]:
    attack = rules.model.get("shooting")
    law = rules.volley(attack, gunners(), "pistol", target, ())
    return VolleyDice(rules, seed).volley(attack, gunners(), "pistol", target, (), law, outcome)


def test_a_test_that_rerolls_shows_its_count_with_a_note_and_no_faces() -> None:
    rules = rules_of(DUEL.replace("test hit(BS) = roll d6 >= BS", "test hit(BS) = roll d6 >= BS, reroll 1s"))
    steps = {s["step"]: s for s in shown(rules, troopers(3), 1)["dice"]}
    assert steps["hits"]["note"] == "the test re-rolls" and "faces" not in steps["hits"]
    assert "note" not in steps["unsaved"] and len(steps["unsaved"]["faces"]) == steps["unsaved"]["rolled"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_volley_at_a_unit_with_casualties_marked_shows_the_dice_at_the_models_left(seed: int) -> None:
    """Three shots at gunners (one wound each), one of three marked: at most the two left can fall,
    so the dice given two removed are those of a volley at two (every shot that got through, two or
    three), not at three."""
    rules = rules_of(DUEL)
    law = rules.volley(rules.model.get("shooting"), gunners(), "pistol", troopers(3, 1, "gunner"), ())
    assert law.values == (0, 1, 2)
    for outcome in range(3):
        assert shown(rules, troopers(3, 1, "gunner"), outcome, seed) == shown(rules, troopers(2, 0, "gunner"), outcome, seed)


@pytest.mark.parametrize("counted", ["hits", "unsaved"])
def test_a_volley_drawn_with_a_steps_count_shows_dice_that_agree_with_that_count(counted: str) -> None:
    """A volley whose law comes with the count of one of its steps (what a counter reads when the
    target is shot): for every outcome, the dice shown pass exactly that many at that step, and
    wound as the outcome says (three pistols, a wound each, at troopers of two wounds).  A step the chain does not count dice at gets a note, no dice."""
    rules = rules_of(DUEL)
    attack = rules.model.get("shooting")
    law = rules.volley_counting(attack, gunners(), "pistol", troopers(3), (), counted)
    if counted == "hits":  # outcomes told apart by the count alone (of unsaved dice, the wounds tell it)
        assert len(set(zip(law.values, law.damaged))) < len(law.values)
    dice = VolleyDice(rules, 1)
    for i in range(len(law.values)):
        for _ in range(3):
            steps = {s["step"]: s for s in dice.volley(attack, gunners(), "pistol", troopers(3), (), law, i, counted)["dice"]}
            assert steps[counted]["passed"] == law.counts[i]
            assert steps["unsaved"]["passed"] == 2 * law.values[i] + law.damaged[i]  # a wound each, W2
    assert dice.volley(attack, gunners(), "pistol", troopers(3), (), law, 0, "killed") == \
        {"dice_note": "its steps do not account for this outcome"}


@pytest.mark.parametrize("test,note", [
    ("roll highest(2, d6) >= BS", "a custom die"),
    ("roll 2d6 >= BS + 3", "several dice a test"),
    ("roll d6 against 6 then 4+", "a chained roll"),
])
def test_a_test_whose_faces_are_not_one_die_shows_its_count_with_a_note_and_no_faces(test: str, note: str) -> None:
    rules = rules_of(DUEL.replace("test hit(BS) = roll d6 >= BS", f"test hit(BS) = {test}"))
    steps = {s["step"]: s for s in shown(rules, troopers(3), 1)["dice"]}
    assert steps["hits"]["note"] == note and "faces" not in steps["hits"]
    assert len(steps["unsaved"]["faces"]) == steps["unsaved"]["rolled"] == steps["hits"]["passed"]


def test_an_outcome_whose_chance_the_steps_do_not_give_shows_no_dice() -> None:
    """The dice are drawn only for an outcome the steps give the volley's chance: asked with the law
    of three gunners for two (no wound: (2/3)^3 against (2/3)^2), a note and no dice."""
    rules = rules_of(DUEL)
    attack = rules.model.get("shooting")
    law = rules.volley(attack, gunners(), "pistol", troopers(3), ())
    assert (law.values[0], law.damaged[0], law.probabilities[0]) == (0, 0, pytest.approx(8 / 27))
    two = Unit(0, 0, "Gunners", "gunner", ("pistol",), 2, 3, 0, 0.0)
    assert VolleyDice(rules, 1).volley(attack, two, "pistol", troopers(3), (), law, 0) == \
        {"dice_note": "its steps do not account for this outcome"}


def test_a_step_no_die_reaches_shows_its_dice_all_the_same() -> None:
    """Gunners who cannot hit (BS 7 on a d6): three shots, no hit, no save to roll — shown as such,
    not refused as steps that depend on each other (the step after the hits, reached by no die,
    passes a die with its own test's chance)."""
    rules = rules_of(DUEL.replace("  BS 4  W 1  Sv 6+\n", "  BS 7  W 1  Sv 6+\n"))
    dice = shown(rules, troopers(3), 0)["dice"]
    assert [(s["step"], s.get("rolled"), s["passed"]) for s in dice] == [("shots", None, 3), ("hits", 3, 0),
                                                                          ("unsaved", 0, 0)]
    assert all(face < 7 for face in dice[1]["faces"]) and len(dice[1]["faces"]) == 3 and dice[2]["faces"] == []


@pytest.mark.parametrize("outcome", [0, 1, 2])
def test_the_faces_shown_agree_with_the_counts_highest_first(outcome: int) -> None:
    """A step's faces: one a die rolled, as many at or above the target (hit on 4+) as passed, and
    of the saves (5+ fails to save: a die goes on below 5), as many below 5 as go on; highest first."""
    rules = rules_of(DUEL)
    for seed in (1, 2, 3):
        steps = {s["step"]: s for s in shown(rules, troopers(3), outcome, seed)["dice"]}
        hits, unsaved = steps["hits"], steps["unsaved"]
        assert len(hits["faces"]) == hits["rolled"] and sum(f >= 4 for f in hits["faces"]) == hits["passed"]
        assert len(unsaved["faces"]) == unsaved["rolled"] == hits["passed"]
        assert sum(f < 5 for f in unsaved["faces"]) == unsaved["passed"]
        assert hits["faces"] == sorted(hits["faces"], reverse=True)
        assert unsaved["faces"] == sorted(unsaved["faces"], reverse=True)


def test_an_attack_of_two_parties_shows_its_dice() -> None:
    """A brawl names no weapon (two parameters): its blows are shown all the same — one blow that
    got through, for one wound left on a two-wound trooper."""
    rules = rules_of(DUEL + '''attack brawl(attacker, defender) "Brawl":
  blows = attacker.models each hit(attacker.BS)
  killed = blows removes defender
''')
    attack = rules.model.get("brawl")
    law = rules.volley(attack, gunners(), None, troopers(3), ())
    assert (law.values[1], law.damaged[1]) == (0, 1)
    assert VolleyDice(rules, 1).volley(attack, gunners(), None, troopers(3), (), law, 1) == \
        {"dice": [{"step": "blows", "passed": 1}]}


def test_a_step_that_makes_several_of_one_shows_no_dice() -> None:
    rules = rules_of(DUEL.replace("  unsaved = hits each not save(target.Sv)\n",
                                  "  blasted = hits each becomes 2\n  unsaved = blasted each not save(target.Sv)\n"))
    assert shown(rules, troopers(3), 0) == {"dice_note": "its step 'blasted' is not one test a die"}


def test_a_weapon_of_no_shots_shows_no_die_rolled() -> None:
    rules = rules_of(DUEL.replace("  shots = shooter.models each weapon.A\n", "  shots = shooter.models each weapon.A - 1\n"))
    assert shown(rules, troopers(3), 0) == {"dice": [{"step": "shots", "passed": 0},
                                                     {"step": "hits", "rule": "hit", "rolled": 0, "passed": 0, "faces": []},
                                                     {"step": "unsaved", "rule": "save", "rolled": 0, "passed": 0, "faces": []}]}
