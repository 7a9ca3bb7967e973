"""Attack sequences: attacks → hits → wounds → saves → damage → casualties.

Each attack is followed on its own, as a bag of *tokens* that carry their
state from step to step: a critical hit with *Lethal Hits* becomes a token
that passes the wound roll without rolling; a critical wound with
*Devastating Wounds* becomes one whose save automatically fails; *Sustained
Hits* adds fresh tokens.  Only at the end are the attacks summed (a
polynomial power for a fixed number of attacks, a mixture of powers for a
random number).  Working per attack is what keeps abilities composing
correctly: back-computing "the chance of a six" from totals is the classic bug
of dice calculators.

Casualties: each unsaved token deals its damage to the target's models in
turn; damage beyond a model's last wound is lost.

This module dispatches a call of an attack (its arguments bound, its plan found or
made, its steps filled in to be worked out when read); :mod:`compiler.resolve.plan`
makes the plan of one attack, and :mod:`compiler.resolve.tokens` follows its tokens
through each test.
"""
from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import Any, TypeAlias

from compiler import ast as A
from compiler.model.values import ProfileRef
from compiler.resolve.casualties import (ability_wounds, casualties, casualties_per_attack, feel_no_pain, has_stat,
                                        wounds_ability, wounds_stat)
from compiler.resolve.core import AttackResult, ProfileLacks, ProfileMix, ResolveError, hashable, is_dist, num_int, unwrap
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, declaration
from compiler.resolve.expressions import stat_of
from compiler.resolve.plan import Plan, aggregate_step, plan_attack, plan_entries, plan_plainly, value_step
from compiler.resolve.shape import State, damage_dealt, models_read_in_plan, reads_models
from compiler.resolve.steps import LazySteps
from compiler.resolve.tokens import as_exact, hook_mods, mortal_of


@declaration(A.Attack, pointwise=False)
def resolve_attack(ev: Evaluator, decl: A.Attack, args: list[Any], span: Any) -> AttackResult:
    """Resolve attack sequence ``decl`` with profile arguments; each step's distribution of counts."""
    for i, a in enumerate(args):
        if isinstance(a, ProfileMix):
            return _mixed_attack(ev, decl, args, i, span)
    # A call asked again (the same arguments, situation and caller) is dispatched once: its
    # parameters bound, its plan and its numbers of attacks are kept; the sums over all attacks,
    # the answers, are worked out at each call.
    key = ("attack-call", decl.id, _call_args_key(args), ev.memo_key(), ev.exact, ev.depth)
    memo = ev.memo
    call = memo.get(key)
    totals = LazySteps()
    if call is None:
        call = _dispatch(ev, decl, args, span, totals)
        memo[key] = call
    else:
        _steps(_evaluator(ev, call), call, totals, known=True)
    return AttackResult(decl.id, totals)


def _evaluator(ev: Evaluator, call: Call) -> Evaluator:
    """The evaluator a call runs in: its profiles in their roles, each one but the defender's
    attacking.  Made again when the call is asked again (the memo keeps one call for every
    matchup asked about: the less it holds, the less the garbage collector walks)."""
    decl, env, defender = call[0], call[1], call[2]
    roles = {p.name: env[p.name] for p in decl.params if isinstance(env.get(p.name), ProfileRef)}
    return ev.child(attackers=tuple(ref for role, ref in roles.items() if role != defender), roles=roles)


def _dispatch(ev: Evaluator, decl: A.Attack, args: list[Any], span: Any, totals: LazySteps) -> Call:
    """Bind the arguments, plan the per-attack work (or find the plan) and count the attacks."""
    env: dict[str, Any] = {}
    for p, a in zip(decl.params, args):
        if is_dist(a):
            raise ResolveError(f"'{p.name}' of attack '{decl.id}' must be a profile or a number, not a roll",
                               span)
        env[p.name] = a
    defender = decl.defender()
    sub = _evaluator(ev, (decl, env, defender, (), {}))
    # Per-attack work is tiny and stays exact; only the sum over all attacks uses fast mode.
    exact_sub = sub.exact_twin()
    for let in decl.lets:
        sub.bind_let(let, env)

    # The per-attack work depends on the profiles and the situation, not on how many models
    # attack: it is planned once per model and reused (10 or 200 attacks share it).
    key = ("attack-plan", decl.id, _plan_args(args, decl), _plan_memo_key(sub, decl), sub.exact)
    memo = sub.memo
    plan = memo.get(key)
    planned = plan is None
    if plan is None:
        plan = plan_plainly(sub, exact_sub, decl, env, totals)
        if plan is None:
            plan = plan_attack(sub, exact_sub, decl, env, totals)
        memo[key] = plan
    call: Call = (decl, env, defender, plan, {})
    _steps(sub, call, totals, known=False, planned=planned)
    return call


def _steps(sub: Evaluator, call: Call, totals: LazySteps, known: bool, planned: bool = False) -> None:
    """Fill ``totals`` with the steps of one call, in its evaluator ``sub``: sums and removals to
    work out when read, the numbers of attacks (counted now, unless ``known``), the other values.
    When the plan was just made (``planned``), ``totals`` holds the sums, the counts and the
    values already."""
    decl, env, defender, plan, counts = call
    for kind, step, per_attack, src, bags in plan_entries(plan):
        if kind == "removal":
            totals.later(step.name, partial(_removal, sub, decl, step, env, defender, bags, src))
            totals.wound_states[step.name] = partial(_removal, sub, decl, step, env, defender, bags, src, joint=True)
        elif kind == "pipe":
            assert src is not None
            if not planned:
                totals.later(step.name, partial(aggregate_step, sub, per_attack, src, step.span))
            totals.sums[step.name] = (sub, per_attack, src, step.span)
        elif kind == "count":
            if planned:
                counts[step.name] = totals[step.name]
                continue
            if not known:  # counted while planning, if the plan was made for this call
                counts[step.name] = totals[step.name] if step.name in totals else \
                    value_step(sub, step, env, totals, True)
            totals[step.name] = counts[step.name]
        elif step.name not in totals:
            totals[step.name] = value_step(sub, step, env, totals, False)


def _mixed_attack(ev: Evaluator, decl: A.Attack, args: list[Any], i: int, span: Any) -> AttackResult:
    """The attack with a number of models that is itself a distribution (``(10 - r.killed)
    ork_boy``): worked out for each number, and each step mixed by the number's chances."""
    mix: ProfileMix = args[i]
    parts = [(p, resolve_attack(ev, decl, args[:i] + [ProfileRef(mix.id, n)] + args[i + 1:], span))
             for n, p in mix.counts.probabilities().items()]
    steps = LazySteps()
    for name in parts[0][1].steps:
        steps.later(name, partial(_mix_step, ev, parts, name, span))
    return AttackResult(decl.id, steps)


def _mix_step(ev: Evaluator, parts: list[tuple[Any, AttackResult]], name: str, span: Any, steps: LazySteps) -> Any:
    values = [(p, r.steps[name]) for p, r in parts]
    if any(isinstance(v, FastDist) for _, v in values):
        return FastDist.mixture([(float(p), v.to_fast() if isinstance(v, Dist) else v) for p, v in values])
    if any(not is_dist(v) and not isinstance(unwrap(v), (int, Fraction)) for _, v in values):
        raise ResolveError(f"step '{name}' is not a number, so it cannot be mixed over the number of models", span)
    return Dist.mixture(values)


def _call_args_key(args: list[Any]) -> tuple[Any, ...]:
    """The arguments as a key: a profile as ("profile", id, models) (a key of strings and numbers
    is one the garbage collector stops following), whole numbers as they are, anything else made
    hashable."""
    return tuple(("profile", a.id, a.models, a.damaged) if type(a) is ProfileRef else a if type(a) is int else hashable(a)
                 for a in args)


def _plan_memo_key(sub: Evaluator, decl: A.Attack) -> tuple[Any, ...]:
    """What besides its arguments a plan depends on: the evaluator's memo key, without the model
    counts of the attackers and the roles unless something the plan may evaluate reads a count
    (:func:`models_read_in_plan`): 10 attackers and 200 then share one plan."""
    key = sub.memo_key()
    if models_read_in_plan(sub.model, decl):
        return key
    situation, attackers, roles, hooks = key
    return (situation, tuple(a for a, _ in attackers), tuple((role, ref) for role, ref, _ in roles), hooks)


def _plan_args(args: list[Any], decl: A.Attack) -> tuple[Any, ...]:
    """The arguments as the plan sees them: a profile without its model count (its id), unless
    the attack reads ``.models`` beyond counting its attacks."""
    if reads_models(decl):
        return _call_args_key(args)
    return tuple(("profile", a.id) if type(a) is ProfileRef else hashable(a) for a in args)


# A call dispatched: the attack, its parameters bound, the defender's role, the plan, and the number
# of attacks of each counting step.
Call: TypeAlias = tuple[A.Attack, dict[str, Any], str | None, Plan, dict[str, Any]]


def _removal(ev: Evaluator, decl: A.Attack, step: A.Step, env: dict[str, Any], defender: str | None, bags: Any,
             src: str | None, totals: LazySteps, joint: bool = False) -> Any:
    """The models ``step`` removes (with ``joint``: the law of the models removed and the wounds
    left on the damaged model, as :func:`~compiler.resolve.casualties.casualties` gives it)."""
    if step.removes_from is None or step.removes_from not in totals:
        raise ResolveError(f"'{step.removes_from}' is not an earlier step", step.span)
    target = ev.eval(step.removes_target, totals.env(env, step.removes_target, ev)) if step.removes_target is not None else None
    if not isinstance(target, ProfileRef):
        raise ResolveError("'removes' needs the target profile, e.g. removes target", step.span)
    role = step.removes_target.id if isinstance(step.removes_target, A.Name) else None
    ability = wounds_ability(ev.model)
    stat = wounds_stat(ev.model)
    if ability is not None:
        wounds = ability_wounds(ev, target, ability, step.span)
    elif stat is None:
        raise ResolveError("'removes' takes wounds off, but no stat is declared 'role wounds'", step.span,
                           'declare it: stat W "Wounds" 1..10 role wounds')
    else:
        if not has_stat(ev, target, stat):
            raise ProfileLacks(f"'removes' needs the wounds of {target.id}, but its profile has no {stat}", step.span,
                               f"add {stat} to its profile line")
        wounds = stat_of(ev, target, stat, role, step.span)
        if is_dist(wounds) or wounds is None:
            raise ResolveError(f"the target's {stat} must be a fixed number", step.span)
        wounds = num_int(unwrap(wounds), step.span)
    damage_env = totals.env(env, step.damage, ev) if step.damage is not None else env
    # Points of damage counted by an amount step met the damage hooks there: not twice.
    hooked = step.removes_from not in damage_dealt(decl, ev.model.callables)

    def damage_of(evd: Evaluator) -> Any:
        damage: Any = 1
        if step.damage is not None:
            damage = evd.eval(step.damage, damage_env)
        damage = damage if is_dist(damage) else Dist.const(num_int(unwrap(damage), step.span))
        damage = as_exact(damage).map(lambda d: max(0, num_int(unwrap(d), step.span)))
        return feel_no_pain(evd, target, damage) if hooked else damage

    if bags is not None and src is not None:
        exact_ev = ev.exact_twin()

        def token_damage(state: State) -> tuple[Any, bool]:
            mods = hook_mods(state)
            return damage_of(exact_ev.with_hook_effects(mods) if mods else exact_ev), mortal_of(state) == "spill"
        return casualties_per_attack(ev, totals[src], bags, token_damage, wounds, target.models, step.span,
                                     target.damaged, joint)
    return casualties(ev, totals[step.removes_from], damage_of(ev), wounds, target.models, step.span,
                      target.damaged, joint)
