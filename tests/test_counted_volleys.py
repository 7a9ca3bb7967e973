"""A counter that rises by the count of an attack's step (``rises by gained(Ld, hits, models)``)
is drawn with the volley from their joint law.  The count plays whatever made it (extra hits,
``each becomes``), with the exact law; ``check`` refuses (W870), at the rise, the counts the engine
cannot draw (a hook on a test after the step, or one that changes dice one by one before it), and
the engine's own refusal is located at the attack's step.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from test_gemini_morale import COUNTING, battle_of, pick_outcome

from compiler import ast as A
from compiler.battle.joint import CountError
from compiler.driver import compile_text

BASE = COUNTING.replace("RISE", "gained(Ld, hits, models)").replace("CLEARED", "engaged") \
    .replace("  spare = shots each hit(shooter.BS)\n", "")
ON_UNIT = 'unit trooper "Trooper":\n  BS 3  Ld 7  W 1\n'
HIT = "  hits = shots each hit(shooter.BS)\n"
BECOMES = "  two = shots each becomes 2\n  hits = two each hit(shooter.BS)\n"
#: the removal takes the wounds: the counter reads a count before it
WOUNDED = ("test wound() = roll d6 >= 4\n", "  killed = hits removes target\n",
           "  wounds = hits each wound()\n  killed = wounds removes target\n")


def with_ability(hook: str, source: str = BASE) -> str:
    return source.replace(ON_UNIT, f'ability knack "Knack": "A lucky roll."\n  {hook}\n{ON_UNIT}  abilities knack\n')


def wounded(source: str) -> str:
    test, removal, steps = WOUNDED
    return source.replace("test steady", test + "test steady").replace(removal, steps)


EXTRA = "on natural 6 to hit: 1 extra hits"


def shoot(source: str) -> tuple[dict[tuple[int, int], Fraction], A.Attack]:
    """Red's 3 troopers shoot Blue's 4: the law the volley is drawn from, (count, removed) → chance."""
    result = compile_text(source, "counting.rules")
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    model = result.rulesets[0]
    battle, nature = battle_of(model, pick_outcome(0, 0, 0), "duel")
    attack = model.get("shooting")
    assert isinstance(attack, A.Attack)
    red, blue = battle.state.units
    battle.strike(attack, red, blue)
    law = nature.asked[0][1]
    out: dict[tuple[int, int], Fraction] = {}
    for h, r, p in zip(law.counts, law.values, law.probabilities):
        out[(h, r)] = out.get((h, r), Fraction(0)) + p
    return out, attack


def by_faces(dice: int, hits_of: dict[int, int], wounding: bool = False) -> dict[tuple[int, int], Fraction]:
    """Every face of each of ``dice`` d6 to hit, a face making ``hits_of[face]`` hits; each hit
    (``wounding``: each that then wounds on a 4+) kills one of 4: (hits, removed) → chance."""
    wound = Fraction(sum(f >= 4 for f in range(1, 7)), 6)
    one: dict[tuple[int, int], Fraction] = {}  # a die's (hits, kills)
    for face in range(1, 7):
        h = hits_of[face]
        for wounds in product((True, False), repeat=h if wounding else 0):
            p = Fraction(1, 6)
            for w in wounds:
                p *= wound if w else 1 - wound
            key = (h, sum(wounds) if wounding else h)
            one[key] = one.get(key, Fraction(0)) + p
    out: dict[tuple[int, int], Fraction] = {}
    for outcome in product(one, repeat=dice):
        p = Fraction(1)
        for o in outcome:
            p *= one[o]
        h, k = sum(o[0] for o in outcome), sum(o[1] for o in outcome)
        out[(h, min(k, 4))] = out.get((h, min(k, 4)), Fraction(0)) + p
    return out


PLAIN = {1: 0, 2: 0, 3: 1, 4: 1, 5: 1, 6: 1}  # hits on 3+


@pytest.mark.parametrize("source, dice, hits_of, wounding", [
    (BASE, 3, PLAIN, False),
    # the reported cases: extra hits from a hook on the test, dice made from pairs
    (with_ability(EXTRA), 3, {**PLAIN, 6: 2}, False),
    (BASE.replace(HIT, BECOMES), 6, PLAIN, False),
    # the same, the hits then rolling to wound: the removal takes the wounds
    (wounded(with_ability(EXTRA)), 3, {**PLAIN, 6: 2}, True),
    (wounded(BASE.replace(HIT, BECOMES)), 6, PLAIN, True),
    # a hook on a test the attack does not roll leaves its dice alone
    (with_ability("on natural 6 to steady: succeeds"), 3, PLAIN, False),
])
def test_a_counted_volley_plays_with_the_exact_law(source: str, dice: int, hits_of: dict[int, int],
                                                   wounding: bool) -> None:
    law, _ = shoot(source)
    assert law == by_faces(dice, hits_of, wounding)


@pytest.mark.parametrize("source, why", [
    (wounded(with_ability("on natural 6 to wound: 1 extra wounds")),
     "an ability acts on its test 'wound' (at 'wounds') (the ability 'knack' of 'trooper' has it)"),
    (wounded(with_ability("on natural 6 to hit: wound automatically")),
     "a hook on its test 'hit' (at 'hits') changes the dice it passes one by one, so that they do not go on to "
     "the removal each with the same chance (the ability 'knack' of 'trooper' has it)"),
    (with_ability("on natural 6 to hit: mortal wounds"),
     "a hook on its test 'hit' (at 'hits') changes the dice it passes one by one, so that the models removed "
     "are not decided by their count (the ability 'knack' of 'trooper' has it)"),
])
def test_check_refuses_at_the_rise_a_count_the_engine_cannot_draw(source: str, why: str) -> None:
    result = compile_text(source, "counting.rules")
    found = [d for d in result.diagnostics if d.severity == "error"]
    assert [(d.code, d.message) for d in found] == [
        ("W870", f"'pins' rises by the count of 'hits', which a volley of attack 'shooting' cannot be drawn with: {why}")]
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "counter pins" in text)
    assert (found[0].span.line, found[0].span.column) == (line, source.splitlines()[line - 1].index("gained(") + 1)
    assert found[0].hint
    # what check refuses, the engine refuses too, located at the step
    model = result.rulesets[0]
    battle, _ = battle_of(model, pick_outcome(0, 0, 0), "duel")
    attack = model.get("shooting")
    assert isinstance(attack, A.Attack)
    red, blue = battle.state.units
    with pytest.raises(CountError) as refused:
        battle.strike(attack, red, blue)
    assert refused.value.span == next(s.span for s in attack.steps if s.name == "hits") and refused.value.hint


def test_the_reference_shows_the_refusal_check_gives() -> None:
    text = (Path(__file__).resolve().parent.parent / "site" / "language.md").read_text(encoding="utf-8")
    shown = next(line.strip() for line in text.splitlines() if line.strip().startswith("error[W870]: "))
    result = compile_text(wounded(with_ability("on natural 6 to wound: 1 extra wounds")), "counting.rules")
    assert [f"error[{d.code}]: {d.message}" for d in result.diagnostics if d.code == "W870"] == [shown]
