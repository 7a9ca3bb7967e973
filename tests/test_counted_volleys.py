"""A counter that rises by the count of an attack's step (``rises by gained(Ld, hits, models)``)
is drawn with the volley from their joint law: ``check`` refuses (W870), at the rise, the counts
the engine cannot draw so (an ability's hook on a test of the chain, a chain whose dice come from
an earlier step's), and the forms it draws stay accepted and play with the exact law.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest
from test_gemini_morale import COUNTING, battle_of, pick_outcome

from compiler import ast as A
from compiler.battle.joint import CountError
from compiler.driver import compile_text

BASE = COUNTING.replace("RISE", "gained(Ld, hits, models)").replace("CLEARED", "engaged") \
    .replace("  spare = shots each hit(shooter.BS)\n", "")
ON_UNIT = 'unit trooper "Trooper":\n  BS 3  Ld 7  W 1\n'


def with_ability(hook: str) -> str:
    return BASE.replace(ON_UNIT, f'ability knack "Knack": "A lucky roll."\n  {hook}\n{ON_UNIT}  abilities knack\n')


BECOMES_FIRST = BASE.replace("  hits = shots each hit(shooter.BS)\n",
                             "  two = shots each becomes 2\n  hits = two each hit(shooter.BS)\n")


@pytest.mark.parametrize("source, why", [
    (with_ability("on natural 6 to hit: 1 extra hits"),
     "an ability acts on its test 'hit' (at 'hits') (the ability 'knack' of 'trooper' has a hook on it)"),
    (BECOMES_FIRST, "its dice at 'two' are made from those of 'shots', not dice of their own"),
])
def test_check_refuses_at_the_rise_a_count_the_engine_cannot_draw(source: str, why: str) -> None:
    result = compile_text(source, "counting.rules")
    found = [d for d in result.diagnostics if d.severity == "error"]
    assert [(d.code, d.message) for d in found] == [
        ("W870", f"'pins' rises by the count of 'hits', which a volley of attack 'shooting' cannot be drawn with: {why}")]
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "counter pins" in text)
    assert (found[0].span.line, found[0].span.column) == (line, source.splitlines()[line - 1].index("gained(") + 1)
    assert found[0].hint
    # what check refuses, the engine could not draw: its own refusal is located at the step
    model = result.rulesets[0]
    battle, _ = battle_of(model, pick_outcome(0, 0, 0), "duel")
    attack = model.get("shooting")
    assert isinstance(attack, A.Attack)
    red, blue = battle.state.units
    with pytest.raises(CountError) as refused:
        battle.strike(attack, red, blue)
    hits = next(s for s in attack.steps if s.name == "hits")
    assert refused.value.span == hits.span and refused.value.hint


ONE_STEP = BASE.replace("  hits = shots each hit(shooter.BS)\n  killed = hits removes target\n",
                        "  hits = shots each becomes 2\n  killed = hits removes target\n")


@pytest.mark.parametrize("source, hit", [
    (BASE, Fraction(2, 3)),
    # a hook on a test the attack does not roll leaves its dice alone
    (with_ability("on natural 6 to steady: succeeds"), Fraction(2, 3)),
    # a chain of one step: its count is the one the removal takes, whatever made it
    (ONE_STEP, None),
])
def test_the_counts_the_engine_draws_stay_accepted_and_play_with_the_exact_law(source: str,
                                                                             hit: Fraction | None) -> None:
    result = compile_text(source, "counting.rules")
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    model = result.rulesets[0]
    battle, nature = battle_of(model, pick_outcome(3, 3, 1) if hit else pick_outcome(6, 4, 1), "duel")
    attack = model.get("shooting")
    assert isinstance(attack, A.Attack)
    red, blue = battle.state.units
    battle.strike(attack, red, blue)
    law = nature.asked[0][1]
    joint = {(h, r): p for h, r, p in zip(law.counts, law.values, law.probabilities)}
    if hit is None:  # Red's 3 shots become 6 dice, each removing one of Blue's 4 models
        assert joint == {(6, 4): Fraction(1)}
    else:  # 3 dice, each hit kills: the joint law lies on h == r, binomial
        assert joint == {(k, k): comb(3, k) * hit ** k * (1 - hit) ** (3 - k) for k in range(4)}


def test_the_reference_shows_the_refusal_check_gives() -> None:
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "site" / "language.md").read_text(encoding="utf-8")
    shown = next(line.strip() for line in text.splitlines() if line.strip().startswith("error[W870]: "))
    result = compile_text(with_ability("on natural 6 to hit: 1 extra hits"), "counting.rules")
    assert [f"error[{d.code}]: {d.message}" for d in result.diagnostics if d.code == "W870"] == [shown]
