"""The plain program of an attack (compiler.resolve.plan.plan_plainly) makes the plan the general
way makes (plan_attack), entry for entry, whenever it takes an attack; it leaves to the general
way every attack something else can change: a modifier in play, an ability on a profile of the
attack, what is used being recorded.  A step it cannot read plainly (a number of attacks that is
a roll, or out of range; a role bound to a number) is taken the general way inside it.
"""
from __future__ import annotations

from typing import Any

import pytest

from compiler.driver import compile_text
from compiler.model.values import ProfileRef
from compiler.resolve.core import ResolveError
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, parse_expression
from compiler.resolve.plan import plan_attack, plan_entries, plan_plainly
from compiler.resolve.steps import LazySteps
from compiler.trace import recording

RULES = '''ruleset r "R":
  version 1.0.0

stat BS "Ballistic Skill" 1..10: "bs"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat AP "AP" 0..6: "ap"
stat D "Damage" dice: "d"
stat A "Attacks" dice: "a"
stat Sv "Save" target: "s"
stat W "Wounds" 1..10 role wounds: "w"

situation cover "In cover"
modifier in_cover "Cover": +1 to save when cover

table to_hit(BS) "To hit":
  1..2 -> 5+
  3..4 -> 4+
  otherwise -> 3+

test hit(BS) = roll d6 against to_hit(BS), natural 1 fails
test wound(S, T) = roll d6 >= T - S + 4, natural 1 fails
test save(Sv, AP) = roll d6 >= Sv + AP, natural 1 fails

attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models each weapon.A
  hits    = attacks each hit(shooter.BS)
  wounds  = hits each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv, weapon.AP)
  damage  = unsaved each weapon.D
  killed  = unsaved removes target, damage weapon.D

attack volley(shooter, weapon, target, shots) "Volley":
  attacks = shots each weapon.A
  hits    = attacks each hit(shooter.BS)
  damage  = hits each weapon.D

ability burst "Burst": "A natural 6 to hit scores an extra hit."
  on natural 6 to hit: 1 extra hits
ability stubborn "Stubborn": "Shrugs off some damage."
  on each damage: roll d6, ignored on 5+

unit gunner "Gunner":
  BS 4  S 3  T 3  W 1  Sv 5+
unit ace "Ace":
  BS 6  S 3  T 3  W 1  Sv 5+
unit victim "Victim":
  BS 3  S 4  T 4  W 2  Sv 3+
unit brute "Brute":
  BS 3  S 5  T 5  W 3  Sv 4+
  abilities stubborn
weapon plain "Plain gun":
  A 1  S 4  AP 0  D 1
weapon gun_d3 "D3 gun":
  A 2  S 5  AP 1  D D3
weapon storm "Storm gun":
  A D6  S 4  AP 0  D 2
weapon burster "Burst gun":
  A 1  S 4  AP 0  D 1
  abilities burst
'''


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(RULES)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def planned(model: Any, attack: str, args: list[Any], situation: dict[str, Any] | None = None,
            plainly: bool = True) -> tuple[Any, LazySteps]:
    """The plan of ``attack`` for ``args`` (made as the attack's dispatch makes it) and its steps."""
    decl = model.callables[attack]
    env = {p.name: a for p, a in zip(decl.params, args)}
    roles = {k: v for k, v in env.items() if isinstance(v, ProfileRef)}
    attackers = tuple(v for k, v in roles.items() if k != "target")
    sub = Evaluator(model, situation=situation).child(attackers=attackers, roles=roles)
    totals = LazySteps()
    make = plan_plainly if plainly else plan_attack
    return make(sub, sub.exact_twin(), decl, env, totals), totals


def entries(plan: Any) -> list[tuple[Any, ...]]:
    """A plan's entries as comparable values: kind, step name, per-attack counts, source, bags."""
    return [(kind, step.name, counts, src, bags) for kind, step, counts, src, bags in plan_entries(plan)]


def totals_of(totals: LazySteps) -> dict[str, Any]:
    out = {}
    for name in totals:
        try:
            value = totals[name]
        except ResolveError as err:
            value = ("error", str(err))
        out[name] = value.probabilities() if isinstance(value, (Dist, FastDist)) else value
    return out


PLAIN = [("shoot", [ProfileRef(s, n), ProfileRef(w), ProfileRef("victim", 3)])
         for s in ("gunner", "ace") for n in (1, 5) for w in ("plain", "gun_d3", "storm")] + \
    [("volley", [ProfileRef("gunner"), ProfileRef(w), ProfileRef("victim"), shots])
     for w in ("plain", "storm") for shots in (0, 4)]


@pytest.mark.parametrize("attack,args", PLAIN, ids=[f"{a}-{'-'.join(map(str, xs))}" for a, xs in PLAIN])
def test_the_plain_program_makes_the_general_plan(model: Any, attack: str, args: list[Any]) -> None:
    plain, plain_totals = planned(model, attack, args)
    assert plain is not None  # taken: nothing but the profiles' stats can change this attack
    general, general_totals = planned(model, attack, args, plainly=False)
    assert entries(plain) == entries(general)
    assert totals_of(plain_totals) == totals_of(general_totals)


@pytest.mark.parametrize("attack,args,situation,why", [
    ("shoot", [ProfileRef("gunner"), ProfileRef("plain"), ProfileRef("victim")], {"cover": True},
     "a modifier is in play"),
    ("shoot", [ProfileRef("gunner"), ProfileRef("burster"), ProfileRef("victim")], None, "a weapon with a hook"),
    ("shoot", [ProfileRef("gunner"), ProfileRef("plain"), ProfileRef("brute")], None, "a target with a damage hook"),
])
def test_what_else_can_change_an_attack_goes_the_general_way(model: Any, attack: str, args: list[Any],
                                                             situation: Any, why: str) -> None:
    plain, _ = planned(model, attack, args, situation)
    assert plain is None, why


def test_nothing_is_taken_plainly_while_what_is_used_is_recorded(model: Any) -> None:
    args = [ProfileRef("gunner"), ProfileRef("plain"), ProfileRef("victim")]
    assert planned(model, "shoot", args)[0] is not None
    with recording():
        assert planned(model, "shoot", args)[0] is None


def test_a_count_out_of_range_is_refused_as_the_general_way_refuses_it(model: Any) -> None:
    args = [ProfileRef("gunner"), ProfileRef("plain"), ProfileRef("victim"), -1]
    with pytest.raises(ResolveError) as plain:
        planned(model, "volley", args)
    with pytest.raises(ResolveError) as general:
        planned(model, "volley", args, plainly=False)
    assert str(plain.value) == str(general.value)


QUESTIONS = [f"shoot({n} {s}, {w}, 2 {t}).{step}{when}"
             for s in ("gunner", "ace") for n in (1, 4) for w in ("plain", "gun_d3", "storm", "burster")
             for t in ("victim", "brute") for step in ("attacks", "hits", "wounds", "unsaved", "damage", "killed")
             for when in ("", " with cover")] + \
    [f"volley(gunner, {w}, victim, {k}).{step}" for w in ("plain", "storm") for k in (0, 3)
     for step in ("attacks", "hits", "damage")]


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_every_answer_is_the_general_ways(model: Any, exact: bool) -> None:
    """The whole question, through the dispatch: as the plain program answers it, and with what is
    used recorded (the general way for everything)."""
    def ask(question: str) -> Any:
        model.__dict__.pop("_resolver_memo", None)
        value = Evaluator(model, exact=exact).evaluate(parse_expression(question))
        return value.probabilities() if isinstance(value, (Dist, FastDist)) else value
    for question in QUESTIONS:
        plain = ask(question)
        with recording():
            general = ask(question)
        assert plain == general, question
