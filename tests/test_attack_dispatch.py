"""A call of an attack asked again is dispatched once (its evaluator, plan and numbers of
attacks are kept in the model's memo): every answer must be the one worked out from scratch.

Differential: each question is answered on an empty memo (the general path, from scratch),
asked again at once (the kept dispatch), and asked in a shuffled mix of questions on one
memo, where other model counts of the same attack share its plan.  The questions cover
re-rolls, modifiers, hooks (extra hits, mortal wounds, +1 D on a natural 6), D3, D6 and
fixed damage, a random number of attacks, and every step of the sequence.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from compiler import ast as A
from compiler.driver import compile_text
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, parse_expression

RULES = '''ruleset r "R":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat AP "AP" 0..6: "ap"
stat D "Damage" dice: "d"
stat A "Attacks" dice: "a"
stat Sv "Save" target: "s"
stat W "Wounds" 1..10 role wounds: "w"

situation cover "In cover"

modifier in_cover "Cover": +1 to save when cover

test hit(Q) = roll d6 >= Q, reroll 1s
test wound(S, T) = roll d6 >= T - S + 4
test save(Sv, AP) = roll d6 >= Sv + AP, natural 1 fails

attack shoot(shooter, weapon, target) "Shoot":
  attacks = shooter.models each weapon.A
  hits    = attacks each hit(shooter.Q)
  wounds  = hits each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv, weapon.AP)
  damage  = unsaved each weapon.D
  killed  = unsaved removes target, damage weapon.D

die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3

ability burst "Burst": "A natural 6 to hit scores D3 extra hits."
  on natural 6 to hit: D3 extra hits
ability devastating "Devastating": "A natural 6 to wound is dealt as mortal wounds."
  on natural 6 to wound: mortal wounds spill over
ability rending "Rending": "A natural 6 to wound cuts deeper."
  on natural 6 to wound: +2 AP, +1 D

unit gunner "Gunner":
  Q 4
unit victim "Victim":
  T 4  W 2  Sv 3+
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
  A 1  S 4  AP 0  D 1
  abilities rending
'''

WEAPONS = ("plain", "gun_d3", "gun_d6", "storm", "burster", "devastator", "render")
STEPS = ("attacks", "hits", "wounds", "unsaved", "damage", "killed")
QUESTIONS = [f"shoot({n} gunner, {w}, 3 victim).{s}" for w in WEAPONS for n in (1, 3) for s in STEPS] + \
    [f"shoot(2 gunner, {w}, 3 victim).{s} with cover" for w in ("plain", "render") for s in ("unsaved", "damage")]


@pytest.fixture(scope="module")
def model() -> Any:
    result = compile_text(RULES)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def answer(model: Any, question: str, exact: bool) -> Any:
    value = Evaluator(model, exact=exact).evaluate(parse_expression(question))
    if isinstance(value, Dist):
        return ("exact", value.probabilities(), value.truncated)
    if isinstance(value, FastDist):
        return ("fast", value.probabilities(), value.truncated)
    return ("value", value)


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "fast"])
def test_a_call_asked_again_gives_the_answer_worked_out_from_scratch(model: Any, exact: bool) -> None:
    scratch = {}
    for q in QUESTIONS:
        model.__dict__.pop("_resolver_memo", None)
        scratch[q] = answer(model, q, exact)
        assert answer(model, q, exact) == scratch[q], q  # asked again: the dispatch kept
    model.__dict__.pop("_resolver_memo", None)
    order = QUESTIONS * 2
    random.Random(7).shuffle(order)
    for q in order:  # one memo for all: plans shared across model counts, calls kept
        assert answer(model, q, exact) == scratch[q], q
    kept = {k[0] for k in model.__dict__["_resolver_memo"]}
    assert {"attack-call", "step-of-call"} <= kept


STATS = '''ruleset s "S":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat Sv "Save" target: "s"
stat D "Damage" dice: "d"
situation aimed "Aimed"
situation shaken "Shaken"
modifier aim "Aim": +1 Q when aimed
modifier shaken_save "Shaken": Sv worse by 1 when shaken
modifier braced "Braced": +1 D when aimed
ability tough(X: 1..5) "Tough": "Harder to hurt."

unit gunner "Gunner":
  Q 3  Sv 4+  D D3
  abilities tough(2)
  points 12
'''


def test_a_stat_read_once_still_takes_the_modifiers_of_each_question() -> None:
    """A profile's stat as written is read once per model; each question still adds what its
    situation does to it, and points and ability values stay as written."""
    questions = ["gunner.Q", "gunner.Q with aimed", "gunner.Sv", "gunner.Sv with shaken",
                 "gunner.Sv with aimed, shaken", "gunner.D", "gunner.D with aimed", "gunner.points",
                 "gunner.tough", "gunner.tough with aimed", "gunner.Q with aimed, shaken"]

    def fresh(text: str) -> Any:
        return Evaluator(compile_text(STATS).rulesets[0]).evaluate(parse_expression(text))
    expected = {q: fresh(q) for q in questions}
    assert expected["gunner.Q"] == 3 and expected["gunner.Q with aimed"] == 4
    assert str(expected["gunner.Sv with shaken"]) == "5+" and expected["gunner.points"] == 12
    assert expected["gunner.D"].outcomes() == (1, 2, 3) and expected["gunner.D with aimed"].outcomes() == (2, 3, 4)
    model = compile_text(STATS).rulesets[0]
    for q in questions + questions[::-1]:  # one model: the written stats kept from earlier questions
        assert Evaluator(model).evaluate(parse_expression(q)) == expected[q], q


COUNTS = '''ruleset c "C":
  version 1.0.0

stat A "Attacks" dice: "a"
stat N "Number" -3..20: "n"
stat Sv "Save" target: "s"
situation frenzy "Frenzy"
modifier frenzied "Frenzy": +1 A when frenzy
modifier slowed "Slowed": -4 N when frenzy

unit one "One":
  A 1  N 0  Sv 4+
unit many "Many":
  A 3  N 2  Sv 3+
unit rolled "Rolled":
  A D6  N 1  Sv 5+
'''


@pytest.mark.parametrize("situation", [{}, {"frenzy": True}])
def test_a_count_read_from_the_profiles_is_what_the_evaluator_says(situation: dict[str, Any]) -> None:
    """``plain_count`` answers only when its answer is the evaluator's, errors left to it; so
    does ``read_stat`` for one stat, a roll included."""
    from compiler.model.values import ProfileRef
    from compiler.resolve.core import ResolveError
    from compiler.resolve.plain import plain_count, read_stat
    model = compile_text(COUNTS).rulesets[0]
    texts = ["p.models each p.A", "p.models each p.N", "p.N each p.A", "3 each p.A", "p.A", "p.models",
             "p.models each not p.A", "p.models each p.Sv", "p.A + 1", "p.models each (2 each p.A)", "q.A"]
    answered = 0
    for profile in ("one", "many", "rolled"):
        for models in (0, 1, 7, 10_000, 10_001):
            env = {"p": ProfileRef(profile, models)}
            ev = Evaluator(model).child(situation)
            for text in texts:
                expr = parse_expression(text)
                plain = plain_count(ev, expr, env)
                found, stat = read_stat(ev, expr, env)
                assert found == (text.startswith("p.") and " " not in text), text  # q is bound to nothing
                try:
                    general = ev.eval(expr, dict(env))
                except ResolveError:
                    assert plain is None, (text, profile, models)
                    continue
                assert not found or stat == general, (text, profile, models)  # rolls too (``A D6``)
                if plain is not None:
                    answered += 1
                    assert type(general) is int and plain == general, (text, profile, models)
                else:
                    assert not (type(general) is int and text in texts[:4] and profile != "rolled"
                                and models <= 10_000), (text, profile, models)
    assert answered > 50


ARGS = '''ruleset g "G":
  version 1.0.0

stat Q "Quality" 1..6: "q"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat AP "AP" 0..6: "ap"
stat Sv "Save" target: "s"
situation cover "In cover"
situation shaken "Shaken"
modifier aimed "Aim": -1 Q when cover
modifier shaken_save "Shaken": Sv worse by 1 when shaken
modifier braced "Braced": +1 D when aimed
modifier tough "Dug in": +1 T when shaken

test hit(Q) = roll d6 >= Q
test wound(S, T) = roll d6 >= T - S + 4
test save(Sv, AP) = roll d6 >= Sv + AP
test quality(level: Q) = roll d6 >= level
test strength(x) = roll d6 >= x

unit gunner "Gunner":
  Q 4  S 4  T 3  AP 1  Sv 4+
unit brute "Brute":
  Q 5  S 6  T 5  AP 0  Sv -
'''


@pytest.mark.parametrize("situation", [{}, {"cover": True}, {"shaken": True}, {"cover": True, "shaken": True}])
def test_a_calls_stats_read_directly_are_what_call_args_gives(situation: dict[str, Any]) -> None:
    """``plain_args`` answers only for stats passed under their own names, with call_args's values."""
    from compiler.model.values import ProfileRef
    from compiler.resolve.core import ResolveError
    from compiler.resolve.plain import plain_args
    model = compile_text(ARGS).rulesets[0]
    calls = {"hit(a.Q)": True, "wound(a.S, b.T)": True, "save(b.Sv, a.AP)": True, "quality(a.Q)": True,
             "hit(a.S)": False, "hit(4)": False, "wound(a.S, 4)": False, "strength(a.S)": False,
             "strength(a.x)": True, "hit(Q = a.Q)": False, "wound(a.S)": False, "hit(c.Q)": False}
    for a, b in (("gunner", "brute"), ("brute", "gunner")):
        env = {"a": ProfileRef(a), "b": ProfileRef(b, 5), "c": 3}
        ev = Evaluator(model).child(situation, attackers=(ProfileRef(a),),
                                    roles={"a": ProfileRef(a), "b": ProfileRef(b, 5)})
        for text, direct in calls.items():
            call = parse_expression(text)
            assert isinstance(call, A.Call)
            decl = model.callables[call.func]
            if text == "strength(a.x)":  # no such stat: the general way's error, word for word
                with pytest.raises(ResolveError) as general:
                    ev.call_args(decl, call, env)
                with pytest.raises(ResolveError, match=str(general.value)):
                    plain_args(ev, decl, call, env)
                continue
            plain = plain_args(ev, decl, call, env)
            if not direct:
                assert plain is None, text
                continue
            assert plain is not None and plain == ev.call_args(decl, call, env), (text, a, situation)


def test_an_answer_is_freed_when_dropped(model: Any) -> None:
    """An attack's steps hold no reference cycle: an answer (tens of kilobytes at 100 attacks)
    goes when the question's result is dropped, not when the garbage collector next runs."""
    import gc
    import weakref

    from compiler.resolve.steps import LazySteps

    gc.disable()  # from here on only reference counts free anything
    try:
        steps: list[Any] = []
        real = LazySteps.__init__

        def tracked(self: LazySteps) -> None:
            real(self)
            steps.append(weakref.ref(self))
        LazySteps.__init__ = tracked  # type: ignore[method-assign]
        try:
            for question in QUESTIONS[:12] + [q.replace("1 gunner", "100 gunner") for q in QUESTIONS[:6]]:
                answer(model, question, True)
        finally:
            LazySteps.__init__ = real  # type: ignore[method-assign]
        assert steps and all(ref() is None for ref in steps)
    finally:
        gc.enable()


def test_what_a_new_matchup_leaves_in_the_memo_is_little_for_the_garbage_collector(model: Any) -> None:
    """The memo keeps, for every matchup asked about, the call and the plan.  A full collection of
    the garbage collector walks every object it follows, so each new matchup should add few: keys
    of strings and numbers (a profile as its id and models), which it stops following, and a plan
    that is one tuple however many steps it has."""
    import gc

    model.__dict__.pop("_resolver_memo", None)
    for n in (1, 2):  # what the first questions make once (compiled expressions, kept outcomes)
        answer(model, f"shoot({n} gunner, plain, 3 victim).damage", True)
    questions = [parse_expression(f"shoot({n} gunner, {w}, {k} victim).damage") for n in range(3, 23)
                 for w in ("plain", "gun_d3", "gun_d6") for k in (1, 2, 3)]
    gc.collect()
    before = len(gc.get_objects())
    for question in questions:
        Evaluator(model).evaluate(question)
    gc.collect()
    per_question = (len(gc.get_objects()) - before) / len(questions)
    memo = model.__dict__["_resolver_memo"]
    plans = [v for k, v in memo.items() if k[0] == "attack-plan"]
    assert plans and all(len(plan) % 5 == 0 and not any(isinstance(item, tuple) and len(item) == 5 for item in plan)
                         for plan in plans)
    assert per_question <= 13, per_question  # 36 when keys held the profiles and a plan a tuple a step
