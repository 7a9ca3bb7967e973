"""A closed test (its roll a function of its argument values alone) is worked out once per
ruleset and argument values, and so are the steps of an attack through it and the per-attack
sums of whole numbers: every answer must be the one of the general way.

Differential: the general way is the one taken while what is used is being recorded
(:func:`compiler.trace.recording`), which never uses the kept outcomes.  Compared: every test
of every bundled ruleset on a grid of argument values, and attack questions with re-rolls,
roll modifiers, natural 1s and 6s, caps, hooks, situations, D3, D6 and fixed damage and a
random number of attacks.  And the fallback: a test that reads anything but its parameters,
or that an effect names, goes the general way.
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable

import pytest

from compiler import ast as A
from compiler.driver import compile_paths, compile_text
from compiler.model.values import TargetValue
from compiler.resolve import pure
from compiler.resolve.closed import is_closed
from compiler.resolve.core import ResolveError
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, parse_expression
from compiler.trace import recording

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = sorted(p for p in (ROOT / "rules").iterdir() if p.is_dir())

RULES = '''ruleset r "R":
  version 1.0.0

stat BS "Ballistic Skill" 1..10: "bs"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat AP "AP" 0..6: "ap"
stat D "Damage" dice: "d"
stat A "Attacks" dice: "a"
stat Sv "Save" target: "sv"
stat Inv "Invulnerable" target: "inv"

situation cover "In cover"
situation range "Range" 0..24

modifier in_cover "Cover": +1 to save when cover
modifier long_range "Long range": -1 to hit when range > 12

table to_hit(BS) "To hit":
  1 -> 6+
  2 -> 5+
  3 -> 4+
  4 -> 3+
  5..10 -> 2+

table to_wound(S, T) "Wound chart":
  T - S <= -2   -> 2+
  T - S == -1   -> 3+
  T - S == 0    -> 4+
  T - S == 1    -> 5+
  T - S in 2..3 -> 6+
  otherwise     -> never

test hit(BS) = roll d6 against to_hit(BS), natural 1 fails, reroll 1s
test wound(S, T) = roll d6 against to_wound(S, T), natural 1 fails, natural 6 succeeds
test save(Sv, AP) = roll d6 >= Sv + AP, natural 1 fails, never better than 2+
test armour(Sv, AP) = roll d6 >= Sv + AP, reroll failures
test far(BS) = roll d6 >= 7 - BS + range / 6
test twice(BS) = roll 2d6 >= BS + 4
test chained(BS) = roll d6 against 6 then 4+

attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models each weapon.A
  hits    = attacks each hit(shooter.BS)
  wounds  = hits each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv, weapon.AP)
  damage  = unsaved each weapon.D

attack pierce(shooter, weapon, target) "Pierce":
  attacks = shooter.models each weapon.A
  hits    = attacks each chained(shooter.BS)
  wounds  = hits each twice(weapon.S)
  unsaved = wounds each not armour(target.Sv, weapon.AP)
  damage  = unsaved each weapon.D

die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3

ability burst "Burst": "A natural 6 to hit scores D3 extra hits."
  on natural 6 to hit: D3 extra hits
ability devastating "Devastating": "A natural 6 to wound is dealt as mortal wounds."
  on natural 6 to wound: mortal wounds spill over
ability rending "Rending": "A natural 6 to wound cuts deeper."
  on natural 6 to wound: +2 AP, +1 D
ability lethal "Lethal": "A natural 6 to hit wounds automatically."
  on natural 6 to hit: wound automatically
ability piercing "Piercing": "A natural 6 to hit allows no save."
  on natural 6 to hit: no save
ability sharp "Sharp": "A natural 6 to hit makes its wound roll easier."
  on natural 6 to hit: +1 to wound, reroll failures to wound
ability grim "Grim": "A natural 5+ to hit caps the save."
  on natural 5+ to hit: save never better than 5+

unit gunner "Gunner":
  BS 4
unit ace "Ace":
  BS 2
unit victim "Victim":
  T 4  Sv 3+
unit brute "Brute":
  T 6  Sv 5+
weapon plain "Plain gun":
  A 1  S 4  AP 0  D 1
weapon gun_d3 "D3 gun":
  A 1  S 4  AP 1  D D3
weapon gun_d6 "D6 gun":
  A 2  S 5  AP 0  D D6
weapon storm "Storm gun":
  A D6  S 4  AP 0  D D3
weapon burster "Burst gun":
  A 1  S 4  AP 0  D 1
  abilities burst
weapon devastator "Devastator":
  A 1  S 4  AP 0  D 2
  abilities devastating
weapon render "Rending gun":
  A 1  S 8  AP 0  D 1
  abilities rending
weapon lethal_gun "Lethal gun":
  A 2  S 3  AP 0  D D3
  abilities lethal
weapon piercer "Piercing gun":
  A 1  S 4  AP 1  D 1
  abilities piercing
weapon sharp_gun "Sharp gun":
  A 1  S 4  AP 0  D 2
  abilities sharp
weapon grim_gun "Grim gun":
  A D3  S 5  AP 0  D 1
  abilities grim
'''

WEAPONS = ("plain", "gun_d3", "gun_d6", "storm", "burster", "devastator", "render", "lethal_gun", "piercer",
           "sharp_gun", "grim_gun")
QUESTIONS = [f"{a}({n} {s}, {w}, 1 {t}).{step}{w_}"
             for a in ("shoot", "pierce") for n in (1, 5) for s in ("gunner", "ace") for w in WEAPONS
             for t in ("victim", "brute") for step in ("hits", "damage")
             for w_ in ("", " with cover", " with range = 18")]
VALUES: tuple[Any, ...] = (0, 1, 2, 3, 4, 5, 6, 7, 9, TargetValue.high(2), TargetValue.high(4), TargetValue.high(6),
                           TargetValue.low(3), TargetValue.never())


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(RULES)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def shown(value: Any) -> Any:
    if isinstance(value, (Dist, FastDist)):
        return (type(value).__name__, value.probabilities(), value.truncated)
    return ("value", value)


def outcome(work: Callable[[], Any]) -> Any:
    try:
        return shown(work())
    except ResolveError as err:
        return ("error", str(err))


def both_ways(model: Any, work: Callable[[], Any]) -> tuple[Any, Any]:
    """``work`` the kept way (twice: worked out, then read back) and the general way."""
    first, again = outcome(work), outcome(work)
    assert first == again
    with recording():
        general = outcome(work)
    return first, general


def test_which_tests_are_closed(model: Any) -> None:
    closed = {t.id for t in model.of_type(A.Test) if is_closed(model, t)}
    assert closed == {"hit", "wound", "save", "armour", "twice", "chained"}  # far reads a situation
    other = compile_text('''ruleset o "O":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Q "Quality" 1..10
table to_hit(BS) "To hit":
  1..3 -> 4+
  otherwise -> 3+
formula needed(q) = q + 1
test by_profile(shooter) = roll d6 >= shooter.BS
test by_formula(Q) = roll d6 >= needed(Q)
test renamed(Q) = roll d6 against to_hit(Q)
test plus_one(BS) = roll d6 against to_hit(BS + 1)
test by_name(BS) = roll d6 against to_hit(BS)
''')
    assert other.ok, [d.message for d in other.diagnostics]
    m = other.rulesets[0]
    # a table parameter that is a stat, given anything but that stat's name, takes its modifiers
    assert {t.id for t in m.of_type(A.Test) if is_closed(m, t)} == {"by_name"}


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_attack_questions_give_the_general_answer(model: Any, exact: bool) -> None:
    model.__dict__.pop("_closed_test_outcomes", None)
    pure.forget()
    order = list(QUESTIONS)
    random.Random(3).shuffle(order)
    for q in order:
        model.__dict__.pop("_resolver_memo", None)
        kept, general = both_ways(model, lambda: Evaluator(model, exact=exact).evaluate(parse_expression(q)))
        assert kept == general, q
    kept = model.__dict__["_closed_test_outcomes"]
    assert {k[1] for k in kept if k[0] == "test"} >= {"hit", "wound", "save", "armour", "twice"}
    # steps through a test without hooks are kept; those of a test with hooks are not
    stepped = {k[1][1] for k in kept if k[0] == "step"}
    assert {"hit", "wound", "save", "armour"} <= stepped
    # what depends on values alone is kept for the process: settled rolls, steps by their chance
    # to pass and per-attack sums; the bags of tokens a kept step gives keep their token counts
    assert {"roll", "step", "sum"} <= {k[0] for k in pure._store}
    steps = [bags for k, bags in pure._store.items() if k[0] == "step"]
    assert any("_sizes" in bags.__dict__ for bags in steps)
    assert {k[4] for k in pure._store if k[0] == "step"} >= {"hit", "wound", "save", "armour", "twice"}


def test_a_step_through_a_situational_test_is_kept_by_its_chance(model: Any) -> None:
    """``save`` with cover is not closed (an effect names it), but without hooks its step is a
    function of the bags and its chance to pass: kept for the process under that chance."""
    pure.forget()
    model.__dict__.pop("_resolver_memo", None)
    question = "shoot(2 gunner, plain, 1 victim).damage with cover"
    kept_answer = Evaluator(model).evaluate(parse_expression(question)).probabilities()
    chance = Evaluator(model).probability_of(parse_expression("save(3+, 0) with cover"))
    assert ("save", (chance.numerator, chance.denominator)) in {(k[4], k[2]) for k in pure._store if k[0] == "step"}
    assert chance != Evaluator(model).probability_of(parse_expression("save(3+, 0)"))
    model.__dict__.pop("_resolver_memo", None)
    with recording():
        assert Evaluator(model).evaluate(parse_expression(question)).probabilities() == kept_answer


def test_a_test_an_effect_names_goes_the_general_way(model: Any) -> None:
    model.__dict__.pop("_closed_test_outcomes", None)
    model.__dict__.pop("_resolver_memo", None)
    with_cover = parse_expression("save(4+, 0) with cover")
    covered = Evaluator(model).probability_of(with_cover)
    assert not any(k[0] == "test" for k in model.__dict__.get("_closed_test_outcomes", {}))  # cover names save
    assert Evaluator(model).probability_of(parse_expression("save(4+, 0)")) == Fraction(1, 2)
    assert covered == Fraction(2, 3)
    assert Evaluator(model).probability_of(with_cover) == covered  # not the outcome kept meanwhile
    assert Evaluator(model).probability_of(parse_expression("far(4) with range = 18")) == Fraction(1, 6)
    assert not any(k[:2] == ("test", "far") for k in model.__dict__["_closed_test_outcomes"])


def steps_kept(model: Any, question: str) -> set[str]:
    model.__dict__.pop("_closed_test_outcomes", None)
    model.__dict__.pop("_resolver_memo", None)
    Evaluator(model).evaluate(parse_expression(question))
    return {k[1][1] for k in model.__dict__["_closed_test_outcomes"] if k[0] == "step"}


def test_a_step_with_hooks_or_modified_tokens_goes_the_general_way(model: Any) -> None:
    assert steps_kept(model, "shoot(2 gunner, plain, 1 victim).damage") == {"hit", "wound", "save"}
    assert steps_kept(model, "shoot(2 gunner, burster, 1 victim).damage") == {"wound", "save"}  # hit has hooks
    # a natural 6 to hit puts +1 to wound on that attack: every later step has such tokens
    assert steps_kept(model, "shoot(2 gunner, sharp_gun, 1 victim).damage") == set()
    assert steps_kept(model, "shoot(2 gunner, plain, 1 victim).damage with cover") == {"hit", "wound"}


@pytest.mark.parametrize("path", BUNDLED, ids=[p.name for p in BUNDLED])
def test_every_bundled_test_gives_the_general_answer(path: Path) -> None:
    result = compile_paths([str(path)])
    assert result.ok
    m = result.rulesets[0]
    tests = [t for t in m.of_type(A.Test) if is_closed(m, t)]
    assert tests, path.name
    checked = 0
    for t in tests:
        for args in itertools.product(VALUES, repeat=len(t.params)):
            m.__dict__.pop("_resolver_memo", None)
            kept, general = both_ways(m, lambda: Evaluator(m).apply(t, list(args), t.span))
            assert kept == general, (t.id, args)
            checked += kept[0] != "error"
    assert checked
