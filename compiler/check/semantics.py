"""Checks that what the resolver works out is what the author meant (no silent wrong answers).

* W411 (error): inside an attack, a test that ability hooks act on (``on natural 6 to hit``,
  ``wound automatically``) is counted inside a larger expression, or over a count that is
  not an earlier step: its hooks would be lost.  Give it its own step.
* W412 (error): an attack ``removes`` models, but no stat is declared ``role wounds``.
* W413 (error): ``on each damage: ignored on 5+`` does not say which die it rolls.
"""
from __future__ import annotations

from typing import Protocol

from compiler import ast as A
from compiler.diagnostics import Sink
from compiler.model.ruleset import Ruleset


class CheckContext(Protocol):
    """What a pass reads: the ruleset and the sink (the check stage's Context)."""

    ruleset: Ruleset
    sink: Sink


def hooked_tests(rs: Ruleset) -> dict[str, str]:
    """Tests some ability's hooks act on → the ability's id."""
    out: dict[str, str] = {}
    for ab in rs.of_type(A.Ability):
        for hook in ab.hooks:
            if hook.test is not None:
                out.setdefault(hook.test, ab.id)
            for eff in hook.effects:
                if eff.kind in ("pass", "fail") and eff.test is not None:
                    out.setdefault(eff.test, ab.id)
    return out


def flag_sources(rs: Ruleset) -> dict[str, list[tuple[str, str]]]:
    """Test → the (test, ability) whose hooks pass or fail it automatically (``wound automatically``
    on a natural 6 to hit: wound → [(hit, lethal_hits)])."""
    out: dict[str, list[tuple[str, str]]] = {}
    for ab in rs.of_type(A.Ability):
        for hook in ab.hooks:
            for eff in hook.effects:
                if eff.kind in ("pass", "fail") and eff.test is not None and hook.test is not None:
                    out.setdefault(eff.test, []).append((hook.test, ab.id))
    return out


def _check_flags(ctx: CheckContext, attack: A.Attack, sources: dict[str, list[tuple[str, str]]]) -> None:
    """A flag set by a hook (``wound automatically``) travels only through steps of the form
    ``next = previous each test(…)``; a step in between that is any other expression drops it."""
    reach: dict[str, set[str]] = {}  # step → the tests its attacks have been through
    tested: set[str] = set()  # tests of earlier steps
    for step in attack.steps:
        value = step.value
        if isinstance(value, A.Each) and isinstance(value.count, A.Name) and value.count.id in reach:
            through = set(reach[value.count.id])
            if isinstance(value.item, A.Call):
                for test, ability in sources.get(value.item.func, []):
                    if test in tested and test not in through:
                        ctx.sink.error("W411", f"'{value.count.id}' starts fresh attacks, so what '{ability}' "
                                       f"does on '{test}' cannot reach this '{value.item.func}'", value.span,
                                       f"count '{value.item.func}' straight after the step that rolls "
                                       f"'{test}', and work with the totals after it")
                through.add(value.item.func)
                tested.add(value.item.func)
            reach[step.name] = through
        else:
            reach[step.name] = set()


def _check_attack(ctx: CheckContext, attack: A.Attack, hooked: dict[str, str]) -> None:
    earlier: set[str] = set()
    for step in attack.steps:
        exprs = [e for e in (step.value, step.removes_target, step.damage) if e is not None]
        for expr in exprs:
            for sub in A.sub_expressions(expr):
                if not (isinstance(sub, A.Each) and isinstance(sub.item, A.Call) and sub.item.func in hooked):
                    continue
                whole = sub is step.value
                counted = isinstance(sub.count, A.Name) and sub.count.id in earlier
                if whole and counted:
                    continue
                ability = hooked[sub.item.func]
                where = "inside a larger expression" if not whole else "over a count that is not an earlier step"
                hint = (f"give it its own step, e.g. {step.name} = attacks each {sub.item.func}(…), "
                        f"then use {step.name} in the next step" if not whole
                        else "give the count its own step first, e.g. attacks = shooter.models * weapon.A")
                ctx.sink.error("W411", f"'{sub.item.func}' is counted {where}: the hooks of '{ability}' on it "
                               "would not apply here", sub.span, hint)
        earlier.add(step.name)


def _wounds_role(rs: Ruleset) -> bool:
    return any(getattr(s, "role", None) == "wounds" for s in rs.stats.values())


def check_semantics(ctx: CheckContext) -> None:
    """Attack sequences and damage hooks the resolver would otherwise answer wrongly."""
    rs = ctx.ruleset
    hooked = hooked_tests(rs)
    sources = flag_sources(rs)
    has_wounds = _wounds_role(rs)
    for attack in rs.of_type(A.Attack):
        _check_attack(ctx, attack, hooked)
        _check_flags(ctx, attack, sources)
        for step in attack.steps:
            if step.removes_from is not None and not has_wounds:
                ctx.sink.error("W412", "'removes' takes wounds off models, but no stat is declared 'role wounds'",
                               step.span, 'declare the wounds stat: stat W "Wounds" 1..10 role wounds')
    for ab in rs.of_type(A.Ability):
        for hook in ab.hooks:
            if hook.ignore_damage_on is not None and hook.damage_die is None:
                ctx.sink.error("W413", "say which die this rolls", hook.span,
                               "on each damage: roll d6, ignored on 5+")


class _Context:
    def __init__(self, ruleset: Ruleset, sink: Sink) -> None:
        self.ruleset = ruleset
        self.sink = sink


def run_semantics(ruleset: Ruleset, sink: Sink) -> None:
    """Run :func:`check_semantics` on its own (until it is one of the check stage's passes)."""
    check_semantics(_Context(ruleset, sink))
