"""The battle's view of the rules, asked directly: the laws a chance node is made of (drawn at each
end of [0, 1)), chances exact as fractions or as floats, the situation a unit is worked out in (its
statuses, the distance held to the situation's range, a derived situation, one that depends on dice
refused), a unit's stats, a weapon's reach and whether an attack can use it."""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from compiler import ast as A
from compiler.battle import Rules
from compiler.battle.rules import Law, bernoulli, binomial, joint_law, law_of, uniform
from compiler.battle.state import Unit
from compiler.driver import compile_text

RULES = '''
ruleset view "View":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat S "Strength" 1..10
stat Range "Range" distance
stat W "Wounds" 1..10 role wounds
situation distance "Distance" 2..30
situation charging "Charging": "It charged this turn."
situation band "Range band" one of near, far
status pinned "Pinned": "It keeps its head down."
test hit(BS) = roll d6 >= BS
attack shooting(shooter, weapon, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  wounds = hits each hit(weapon.S)
  killed = wounds removes target
unit trooper "Trooper":
  BS 5  W 1
  weapons rifle, knife
  points 12
unit ace "Ace":
  BS 1  W 1
  points 12
weapon rifle "Rifle":
  Range 24"  S 4
weapon knife "Knife":
  S 3
weapon flag "Flag":
  Range 6"
game g "A game":
  turns 1
  activation whole_army
  situation band is far when distance_to_enemy > 12, otherwise near
  phase fire "Shooting":
    action shoot "Shoot": attack shooting within Range
scenario clash "A clash":
  game g
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    3 trooper
'''


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(RULES, "view.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def trooper(side: int = 0, models: int = 3) -> Unit:
    return Unit(side, side, "Trooper", "trooper", ("rifle", "knife"), models, 3, 12, 0.0)


def test_a_law_draws_each_outcome_over_its_share_of_0_to_1() -> None:
    law = binomial(2, Fraction(1, 2))
    assert law.probabilities == (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)) and law.mean == 1.0
    assert [law.sample(u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 0.999999)] == [0, 0, 1, 1, 2, 2]
    coin = bernoulli(Fraction(1, 3))
    assert (coin.values, coin.probabilities, coin.mean) == ((1, 0), (Fraction(1, 3), Fraction(2, 3)), 1 / 3)
    assert (coin.sample(0.3), coin.sample(0.34)) == (1, 0)
    three = uniform(3)
    assert three.probabilities == (Fraction(1, 3),) * 3 and [three.sample(u) for u in (0.0, 0.5, 0.99)] == [0, 1, 2]
    assert (three.mean, uniform(2).mean) == (1.0, 0.5)
    assert [uniform(2).sample(u) for u in (0.49, 0.55)] == [0, 1]  # who goes first: even odds
    assert law_of(4) == Law((4,), (1.0,), 4.0, (1.0,))
    joint = joint_law({(1, 0): Fraction(1, 4), (0, 1): Fraction(3, 4), (2, 0): Fraction(0)})
    assert (joint.values, joint.damaged, joint.probabilities) == ((0, 1), (1, 0), (Fraction(3, 4), Fraction(1, 4)))
    assert joint.mean == 0.25 and joint.outcomes() == [((0, 1), Fraction(3, 4)), ((1, 0), Fraction(1, 4))]


def test_chances_are_fractions_when_the_rules_are_worked_out_exactly(model: Any) -> None:
    hit = A.Call(model.get("hit").span, "hit", model.get("hit").span, (A.Name(model.get("hit").span, "BS"),), ())
    exact, rough = Rules(model, exact=True), Rules(model)
    unit = trooper()
    assert exact.odds(hit, unit, None) == Fraction(1, 3) and isinstance(exact.odds(hit, unit, None), Fraction)
    assert rough.odds(hit, unit, None) == pytest.approx(1 / 3) and isinstance(rough.odds(hit, unit, None), float)
    assert rough.chance(hit, unit, None) == rough.chance(hit, unit, None) == pytest.approx(1 / 3)
    # a test that cannot fail (BS 1: a d6 >= 1)
    sure = Unit(1, 1, "Trooper", "trooper", ("rifle",), 1, 1, 12, 0.0)
    sure.profile = "ace"
    assert exact.odds(hit, sure, None) == Fraction(1) and rough.chance(hit, sure, None) == 1.0
    assert exact.number(A.Name(hit.span, "BS"), unit, None) == 5.0
    # a condition with no dice in it: sure, or impossible
    for op, held in ((">=", 1), ("<", 0)):
        cond = A.Binary(hit.span, op, A.Name(hit.span, "BS"), A.Int(hit.span, 5))
        assert exact.odds(cond, unit, None) == Fraction(held) and rough.odds(cond, unit, None) == float(held)


def test_the_situation_holds_the_units_statuses_and_the_distance_within_its_range(model: Any) -> None:
    rules = Rules(model)
    unit = trooper()
    unit.statuses.update(charging="turn", pinned="turn")  # pinned is no situation
    assert rules.situation(unit, 20.4) == (("charging", True), ("distance", 20), ("band", "far"))
    assert rules.situation(unit, 40.0)[1] == ("distance", 30)
    assert rules.situation(unit, 0.6)[1:] == (("distance", 2), ("band", "near"))
    assert rules.situation(unit, None) == (("charging", True),)
    assert rules.situation(trooper(), 20.0) == (("distance", 20), ("band", "far"))
    # a situation the unit holds already (an order, a value) is not worked out again from the distance
    held = trooper()
    held.values["band"] = "near"
    assert rules.situation(held, 20.0) == (("band", "near"), ("distance", 20))


def test_a_derived_situation_that_depends_on_dice_is_refused(model: Any) -> None:
    text = RULES.replace("when distance_to_enemy > 12", "when hit(BS)")
    result = compile_text(text, "view.rules")
    rules = Rules(result.rulesets[0])
    with pytest.raises(ValueError, match="the situation 'band' depends on dice"):
        rules.situation(trooper(), 5.0)


def test_a_units_stats_a_weapons_reach_and_the_attacks_it_can_make(model: Any) -> None:
    rules = Rules(model)
    assert (rules.stat("trooper", "BS"), rules.stat("trooper", "S")) == (5.0, 0.0)
    assert (rules.reach("rifle", "Range"), rules.reach("knife", "Range")) == (24.0, -1.0)  # a blade: no Range
    shooting = model.get("shooting")
    assert rules.usable(shooting, trooper(), "rifle", trooper(1))
    env = rules.env(trooper(), 7.6)
    assert (env["BS"], env["models"], env["started"], env["points"], env["distance_to_enemy"]) == (5, 3, 3, 12, 8)
    assert "distance_to_enemy" not in rules.env(trooper(), None)


def test_a_volley_law_is_kept_per_state(model: Any) -> None:
    rules = Rules(model, exact=True)
    shooting = model.get("shooting")
    law = rules.volley(shooting, trooper(), "rifle", trooper(1), ())
    # 3 shots hitting on 5+ (1/3), then wounding on 4+ (1/2): each kills with chance 1/6
    p = Fraction(1, 6)
    assert law.probabilities == tuple(Fraction(c) * p ** k * (1 - p) ** (3 - k) for k, c in enumerate((1, 3, 3, 1)))
    assert rules.volley(shooting, trooper(), "rifle", trooper(1), ()) is law
    two = rules.volley(shooting, trooper(models=2), "rifle", trooper(1), ())
    assert two.values == (0, 1, 2)


def test_the_law_of_a_roll_is_each_value_in_order_with_its_exact_chance_and_their_mean(model: Any) -> None:
    """``d6 - 3`` (a rolled move, a charge's reach): six values in order, each 1/6, drawn over
    sixths of [0, 1); their mean 1/2.  A number is a law of one value."""
    from compiler.resolve import Evaluator, parse_expression
    law = law_of(Evaluator(model, exact=True).evaluate(parse_expression("d6 - 3")))
    assert law.values == (-2, -1, 0, 1, 2, 3) and law.probabilities == (Fraction(1, 6),) * 6
    assert law.cumulative == pytest.approx([k / 6 for k in range(1, 7)], rel=1e-12)
    assert law.mean == pytest.approx(0.5, rel=1e-12)
    assert [law.sample(u) for u in (0.0, 0.17, 0.51, 0.99)] == [-2, -1, 1, 3]
    assert law_of(Evaluator(model, exact=True).evaluate(parse_expression("2 + 1"))).values == (3,)


def test_an_attack_cannot_use_a_weapon_without_a_stat_it_reads(model: Any) -> None:
    """Shooting reads the weapon's S: a rifle or a knife can be used with it, a flag (a Range and
    no S) cannot; asked again, the same answer (kept)."""
    rules = Rules(model)
    shooting = model.get("shooting")
    assert rules.usable(shooting, trooper(), "knife", trooper(1))
    assert not rules.usable(shooting, trooper(), "flag", trooper(1))
    assert not rules.usable(shooting, trooper(), "flag", trooper(1))


def test_a_volley_removes_the_models_of_the_attacks_last_removes_step() -> None:
    """An attack with two ``removes`` steps (the hits would remove some, the wounds do): a volley
    is the law of the last one."""
    from compiler.battle.rules import removal_step
    text = RULES.replace("  killed = wounds removes target", "  grazed = hits removes target\n  killed = wounds removes target")
    result = compile_text(text, "view.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    shooting = model.get("shooting")
    assert removal_step(shooting) == "killed"
    ace = Unit(0, 0, "Ace", "ace", ("rifle",), 1, 1, 12, 0.0)  # hits on 1+: one sure hit, wounds on 4+
    law = Rules(model, exact=True).volley(shooting, ace, "rifle", trooper(1), ())
    assert (law.values, law.probabilities) == ((0, 1), (Fraction(1, 2), Fraction(1, 2)))


def test_a_volley_drawn_with_a_count_has_the_law_and_mean_of_the_volley(model: Any) -> None:
    """Drawn with its hits (a counter reads them), a volley removes models by the same law, with the
    same mean the log reports."""
    rules = Rules(model, exact=True)
    shooting = model.get("shooting")
    plain = rules.volley(shooting, trooper(), "rifle", trooper(1), ())
    counted = rules.volley_counting(shooting, trooper(), "rifle", trooper(1), (), "hits")
    law: dict[int, Any] = {}
    for k, p in zip(counted.values, counted.probabilities):
        law[k] = law.get(k, 0) + p
    assert law == dict(zip(plain.values, plain.probabilities))
    assert counted.mean == pytest.approx(plain.mean, rel=1e-12) and plain.mean == pytest.approx(
        float(sum(k * p for k, p in law.items())), rel=1e-12)
