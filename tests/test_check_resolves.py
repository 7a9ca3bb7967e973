"""Whatever ``warscribe check`` accepts, ``warscribe eval`` resolves.

Attack sequences are generated from the forms that once gave silent wrong answers — steps over earlier totals,
tests that abilities hook counted inside expressions, amount steps, Feel No Pain, ``removes``,
stats written ``-`` — and hooks that change one attack's later steps (``+1 D``, mortal wounds,
a re-roll, a cap, extra tokens that join a later step), over a small fixed lexicon.  Each generated ruleset either is refused
by ``check`` with an error, or every step of every attack, asked of every pair of profiles,
resolves without an error, and exact and fast agree.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.driver import compile_text
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

RUNS = settings(max_examples=int(os.environ.get("WARSCRIBE_FUZZ_EXAMPLES", "40")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

BASE = '''ruleset gen "Generated":
  version 1.0.0

stat Q "Quality" 2..6: "q"
stat A "Attacks" 1..3: "a"
stat T "Toughness" 2..6: "t"
stat Def "Defence" target: "d"
stat AP "AP" 0..3: "ap"
stat D "Damage" dice: "d"
stat HP "Hit points" 1..3{role}: "w"

ability sustained "Sustained": "x"
  on natural 6 to hit: 1 extra hits
ability lethal "Lethal": "x"
  on natural 6 to hit: wound automatically
ability devastating "Devastating": "x"
  on natural 6 to wound: no save
ability fnp(X: 2..6) "FNP": "x"
  on each damage: {fnp}ignored on X+
ability rend "Rend": "x"
  on natural 6 to wound: +1 D, +1 AP
ability mortal "Mortal": "x"
  on natural 6 to wound: mortal wounds{spill}
ability focus "Focus": "x"
  on natural 5+ to hit: +1 to wound, reroll failures to wound, save never better than 4+
ability cleave "Cleave": "x"
  on natural 6 to hit: 1 extra {extra}

test hit(Q) = roll d6 >= Q
test wound(T) = roll d6 >= T
test save(Def, AP) = roll d6 >= Def + AP

unit alpha "Alpha":
  Q {q}  A {a}  T {t}  HP {hp}  Def {df}
  abilities {abilities}
unit beta "Beta":
  Q 4  A 1  T 4  HP 1  Def 5+
weapon gun "Gun":
  A {wa}  AP {ap}  D {d}
'''

PAIRS = (("2 alpha", "3 beta"), ("1 beta", "2 alpha"))

STEP_FORMS = [
    "{name} = {prev} each hit(shooter.Q)",
    "{name} = {prev} each wound(target.T)",
    "{name} = {prev} each not save(target.Def, weapon.AP)",
    "{name} = {prev} each weapon.D",
    "{name} = min({prev}, target.models)",
    "{name} = {prev} + 1",
    "{name} = min({prev} each hit(shooter.Q), 5)",       # hooks lost: refused
    "{name} = shooter.models each hit(shooter.Q)",         # hooks lost: refused
    "{name} = {prev} removes target, damage weapon.D",
    "{name} = {prev} removes target",
]


@st.composite
def generated(draw: st.DrawFn) -> str:
    text = BASE.format(
        role=draw(st.sampled_from([" role wounds", " role wounds", ""])),
        fnp=draw(st.sampled_from(["roll d6, ", "roll d6, ", "roll d10, ", ""])),
        q=draw(st.integers(2, 6)), a=draw(st.integers(1, 3)), t=draw(st.integers(2, 6)),
        hp=draw(st.integers(1, 3)), df=draw(st.sampled_from(["3+", "5+", "-"])),
        abilities=", ".join(draw(st.lists(st.sampled_from(["sustained", "lethal", "devastating", "fnp(5)", "rend",
                                                            "mortal", "focus", "cleave"]),
                                          min_size=1, max_size=3, unique=True))),
        spill=draw(st.sampled_from(["", " spill over"])),
        extra=draw(st.sampled_from(["hits", "wounds", "step1", "step2"])),
        wa=draw(st.integers(1, 2)), ap=draw(st.sampled_from(["0", "1", "-"])),
        d=draw(st.sampled_from(["1", "2", "D3"])))
    steps = ["attacks = shooter.models * weapon.A"]
    names = ["attacks"]
    for i in range(draw(st.integers(1, 4))):
        form = draw(st.sampled_from(STEP_FORMS))
        count_steps = [n for n in names if not n.startswith("killed")]
        prev = draw(st.sampled_from(count_steps))
        name = f"killed{i}" if "removes" in form else f"step{i}"
        steps.append(form.format(name=name, prev=prev))
        names.append(name)
    text += "\nattack volley(shooter, weapon, target):\n" + "".join(f"  {s}\n" for s in steps)
    # The questions asked below, as an example: what check can see of them.
    text += '\nexample asked "Asked":\n'
    for i, (shooter, target) in enumerate(PAIRS):
        text += f"  let r{i} = volley({shooter}, gun, {target})\n"
        text += "".join(f"  expect mean(r{i}.{n}) >= 0\n" for n in names)
    return text


def _mean(model: Any, exact: bool, question: str) -> Any:
    ev = Evaluator(model, exact)
    return ev.mean(ev.evaluate(parse_expression(question)))


def test_what_check_accepts_eval_resolves() -> None:
    """Over the generated rulesets: each refused one is refused with a located error; each
    accepted one resolves every step.  The refusals are counted: most of the generated forms
    are meant to be accepted, so a checker that refused everything would fail here."""
    tally: Counter[str] = Counter()

    @RUNS
    @given(generated())
    def one(text: str) -> None:
        result = compile_text(text, "gen.rules")
        if not result.ok:
            assert all(d.span.line > 0 for d in result.diagnostics if d.is_error)  # refused, and located
            tally["refused"] += 1
            return
        tally["accepted"] += 1
        model = result.rulesets[0]
        attack = model.callables["volley"]
        for shooter, target in PAIRS:
            for step in attack.steps:
                question = f"volley({shooter}, gun, {target}).{step.name}"
                try:
                    exact = _mean(model, True, question)
                    fast = _mean(model, False, question)
                except ResolveError as err:
                    raise AssertionError(f"check accepted it, but eval refused {question}: {err}\n{text}") from None
                assert abs(float(exact) - float(fast)) < 1e-9, (question, exact, fast)

    one()
    tried = tally["accepted"] + tally["refused"]
    assert tried >= RUNS.max_examples // 2, tally
    assert tally["accepted"] >= tried // 3, tally  # the property is about accepted rulesets: enough of them
