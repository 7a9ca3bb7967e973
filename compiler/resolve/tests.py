"""Tests and re-rolls: what a test's roll gives, with its natural face kept.

A test rolls its dice, compares the (modified) roll with its target and keeps the natural
face, so abilities and ``natural(…)`` can read it: the outcome is a distribution of
:class:`~compiler.resolve.core.Roll`.  Natural results that always fail or pass beat
modifiers; caps (never better than 2+) bound the modified target; a chained target
(``6 then 4+``) rolls a second die; re-rolls (the test's own and those granted by effects)
roll again once.  Registered for :class:`~compiler.ast.Test` calls with
:func:`~compiler.resolve.evaluator.declaration`.

>>> from compiler.driver import compile_text
>>> from compiler.resolve.evaluator import Evaluator, parse_expression
>>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\ntest save(Sv) = roll d6 >= Sv, reroll 1s\\n').rulesets[0]
>>> Evaluator(model).probability_of(parse_expression("save(4)"))
Fraction(7, 12)
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import partial
from typing import Any, Callable

from compiler import ast as A
from compiler.model.values import TargetValue
from compiler.resolve import pure
from compiler.resolve.closed import MAX_KEPT, closed_key, closed_outcomes, is_closed
from compiler.resolve.compiled import Unsure, closed_value
from compiler.resolve.core import (ResolveError, Roll, fast_to_exact, hashable, is_dist, natural, num, plain_ints,
                                   show, unwrap)
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, declaration
from compiler.resolve.expressions import die_dist
from compiler.limits import MAX_DICE
from compiler.trace import active as tracing


@declaration(A.Test)
def run_test(ev: Evaluator, test: A.Test, args: list[Any], span: Any) -> Any:
    """A test's outcome for these argument values: a distribution of :class:`Roll` (memoised per
    model; a closed test that no effect names, once per ruleset and argument values)."""
    if not tracing() and is_closed(ev.model, test) and not ev.effects.names_test(test.id):
        closed = closed_key(test, args, ev.exact)
        if closed is not None:
            kept = closed_outcomes(ev.model)
            outcome = kept.get(closed)
            if outcome is None:
                outcome = _closed_roll(ev.model, test, args)
                if outcome is None:
                    outcome = _run_test(ev, test, args, span)
                if len(kept) > MAX_KEPT:
                    kept.clear()
                kept[closed] = outcome
            return outcome
    key = ("test", test.id, tuple(hashable(a) for a in args), ev.memo_key())
    memo = ev.memo
    if key in memo:
        return memo[key]
    result = _run_test(ev, test, args, span)
    if len(memo) > 20_000:
        memo.clear()
    memo[key] = result
    return result


def _closed_roll(model: Any, test: A.Test, args: list[Any]) -> Any:
    """A closed test that no effect names, for plain argument values, the short way: its roll
    as :func:`_run_test` settles it (no modifier; the same target, caps and natural faces), from
    what the test says alone, read once per model (:func:`_roll_plan`).  None when the compiled
    target or a cap is unsure, or the dice are not one plain die: then the general way."""
    plan = _roll_plan(model, test)
    if plan is None:
        return None
    names, dice, fails, succeeds, rerolls, modifier = plan
    assert test.roll is not None
    env = dict(zip(names, args))
    try:
        target = _as_target(closed_value(model, test.roll.target, env), test.roll.op, test.roll.target.span)
        target = _effective(target, modifier, test, lambda e: closed_value(model, e, env), [])
    except Unsure:
        return None
    return _settled(dice, target, fails, succeeds, rerolls)


def _roll_plan(model: Any, test: A.Test) -> tuple[Any, ...] | None:
    """What a closed test's roll is made of, whatever its arguments: its parameters' names, the
    die (one plain die only), its natural faces, re-rolls and capped modifier (none applies)."""
    plans: dict[str, tuple[A.Test, tuple[Any, ...] | None]] = model.__dict__.setdefault("_roll_plans", {})
    known = plans.get(test.id)
    if known is not None and known[0] is test:
        return known[1]
    plan: tuple[Any, ...] | None = None
    roll = test.roll.dice if test.roll is not None else None
    if type(roll) is A.Dice and roll.count == 1 and roll.name not in model.dice and 1 <= roll.sides <= MAX_DICE:
        lo, hi = test.modifier_cap if test.modifier_cap is not None else (0, 0)
        plan = (tuple(p.name for p in test.params), Dist.die(roll.sides), frozenset(test.natural_fails),
                frozenset(test.natural_succeeds), frozenset(test.rerolls), max(lo, min(hi, 0)))
    plans[test.id] = (test, plan)
    return plan


def _run_test(ev: Evaluator, test: A.Test, args: list[Any], span: Any) -> Any:
    if test.roll is None:
        raise ResolveError(f"test '{test.id}' does not say what it rolls", test.span)
    env: dict[str, Any] = {p.name: a for p, a in zip(test.params, args)}
    sub = ev.child()
    value = partial(_value, sub, env, is_closed(ev.model, test) and not tracing()
                    and all(type(a) is int or type(a) is TargetValue for a in args))
    raw_target = value(test.roll.target)
    if is_dist(raw_target):
        raise ResolveError("a test's target must not be random", test.roll.target.span)
    target = _as_target(raw_target, test.roll.op, test.roll.target.span)
    effects = ev.effects
    named = effects.names_test(test.id)  # if no effect names the test, it rolls as written
    overrides = effects.target_override(test.id) if named else None
    if overrides:
        # ``hit needs 5+`` is 5 or more even on a test rolled low (``roll d6 <= BS``): a target
        # keeps its own direction; a plain number takes the test's
        picked = [unwrap(v) if isinstance(unwrap(v), TargetValue) else
                  _as_target(v, test.roll.op if test.roll.op != "against" else ">=", e.span)
                  for v, e in overrides]
        target = max(picked, key=lambda t: hardness(t))
    roll = test.roll.dice
    if type(roll) is A.Dice and roll.count == 1:  # one die: what evaluating it gives, without the walk
        dice: Any = die_dist(sub, roll.name, roll.sides, roll.span)
    else:
        dice = sub.eval(roll, env)
    if isinstance(dice, FastDist):
        dice = fast_to_exact(dice)
    if not is_dist(dice):
        dice = Dist.const(dice)
    if not plain_ints(dice):  # a face or a roll read as its natural number
        dice = dice.map(lambda o: natural(o, test.roll.dice.span))
    modifier = effects.roll_modifier(test.id) if named and not effects.ignores_modifiers(test.id) else 0
    if test.modifier_cap is not None:
        lo, hi = test.modifier_cap
        modifier = max(lo, min(hi, modifier))
    fails, succeeds = frozenset(test.natural_fails), frozenset(test.natural_succeeds)
    rerolls = frozenset(test.rerolls)
    if named:
        for face, upwards in effects.natural_successes(test.id):
            succeeds |= {n for n in dice.outcomes() if (n >= face if upwards else n == face)}
        rerolls |= frozenset(effects.extra_rerolls(test.id))
    target = _effective(target, modifier, test, value, effects.caps(test.id) if named else [])
    return _settled(dice, target, fails, succeeds, rerolls)


def _settled(dice: Dist, target: TargetValue, fails: frozenset[int], succeeds: frozenset[int],
             rerolls: frozenset[str]) -> Any:
    """The outcome of a roll once it is settled: a function of these values alone, kept for the
    process (compiler.resolve.pure)."""
    return pure.kept(("roll", dice, target, fails, succeeds, rerolls),
                     partial(_roll, dice, target, fails, succeeds, rerolls))


def _roll(dice: Dist, target: TargetValue, fails: frozenset[int], succeeds: frozenset[int],
          rerolls: frozenset[str]) -> Dist:
    """The outcome of rolling ``dice`` against a settled ``target`` (a chain, or the effective
    target after modifiers and caps): a distribution of :class:`Roll`."""
    if target.kind == "chain":
        assert target.first is not None and target.second is not None
        first, second = target.first, target.second
        p_second = dice.p_where(lambda n: second.passes(n))

        def chained(n: int) -> Any:
            if n in fails:
                return Roll(False, n)
            if n in succeeds:
                return Roll(True, n)
            if not first.passes(n):
                return Roll(False, n)
            return Dist.from_weights({Roll(True, n): p_second, Roll(False, n): 1 - p_second}) \
                if 0 < p_second < 1 else Roll(p_second == 1, n)
        outcome = dice.bind(chained)
    else:
        def decide(n: int) -> Roll:
            if n in fails:
                return Roll(False, n)
            if n in succeeds:
                return Roll(True, n)
            return Roll(meets(n, target), n)
        outcome = dice.map(decide)
    if rerolls:
        outcome = outcome.reroll(reroll_predicate(set(rerolls)))
    return outcome


def _as_target(v: Any, op: str, span: Any) -> TargetValue:
    v = unwrap(v)
    if op == "against":
        if isinstance(v, TargetValue):
            return v
        if v is None:
            return TargetValue.never()
        raise ResolveError(f"'against' needs a target such as 4+, not {show(v)}", span)
    if v is None:
        return TargetValue.never()
    if isinstance(v, TargetValue) and v.kind in ("never", "always", "chain"):
        return v
    n = num(v.as_number if isinstance(v, TargetValue) else v, span)
    if isinstance(n, Fraction) and n.denominator != 1:
        n = math.ceil(n) if op == ">=" else math.floor(n)
    return TargetValue("high" if op == ">=" else "low", int(n))


def _value(sub: Evaluator, env: dict[str, Any], closed: bool, expr: A.Expr) -> Any:
    """An expression of the test's roll for its arguments: a closed one through its compiled
    closures (compiler.resolve.compiled) while they are sure of the answer."""
    if closed:
        try:
            return closed_value(sub.model, expr, env)
        except Unsure:
            pass
    return sub.eval(expr, env)


def _effective(target: TargetValue, modifier: Any, test: A.Test, value: Callable[[A.Expr], Any],
               extra_caps: list[tuple[Any, bool, Any]]) -> TargetValue:
    """The target after the roll modifier and the caps.  Of a chain (``6 then 4+``) the first
    die needs a natural face, which no modifier changes: the modifier and the caps count for
    the second die's roll."""
    if target.kind in ("never", "always"):
        return target
    if target.kind == "chain":
        assert target.first is not None and target.second is not None
        return TargetValue.chain(target.first, _effective(target.second, modifier, test, value, extra_caps))
    assert target.number is not None
    n = target.number - modifier if target.kind == "high" else target.number + modifier
    caps = [(unwrap(value(cap)), better) for cap, better in
            ((test.never_better, True), (test.never_worse, False)) if cap is not None]
    for c, better in caps + [(unwrap(v), better) for v, better, _ in extra_caps]:
        c_num = c.as_number if isinstance(c, TargetValue) else c
        if c_num is None:
            continue
        high = target.kind == "high"
        if better == high:  # high & never better → at least c; low & never worse → at least c
            n = max(n, c_num)
        else:
            n = min(n, c_num)
    if isinstance(n, Fraction):
        n = math.ceil(n) if target.kind == "high" else math.floor(n)
    return TargetValue(target.kind, int(n))


def meets(n: int, target: TargetValue) -> bool:
    if target.kind == "always":
        return True
    if target.kind == "never":
        return False
    return target.passes(n)


def hardness(t: TargetValue) -> float:
    if t.kind == "never":
        return math.inf
    if t.kind == "always":
        return -math.inf
    if t.kind == "high":
        return t.number or 0
    if t.kind == "low":
        return -(t.number or 0)
    return float(t.probability()) * -1


def reroll_predicate(kinds: set[str]) -> Callable[[Roll], bool]:
    faces: set[int] = set()
    failures = False
    for k in kinds:
        if k == "1s":
            faces.add(1)
        elif k == "failures":
            failures = True
        elif k.startswith("natural:"):
            faces |= {int(x) for x in k.split(":", 1)[1].split(",") if x}

    def pred(r: Roll) -> bool:
        return (failures and not r.success) or r.natural in faces
    return pred
