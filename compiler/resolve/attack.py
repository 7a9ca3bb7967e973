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
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import partial
from typing import Any, Callable, TypeAlias

from compiler import ast as A
from compiler.model.values import ProfileRef
from compiler.resolve import pure
from compiler.resolve.budget import refuse_attack_sum
from compiler.resolve.casualties import casualties, casualties_per_attack, feel_no_pain, has_stat, wounds_stat
from compiler.resolve.closed import MAX_KEPT, closed_outcomes, closed_step_key
from compiler.resolve.core import (AttackResult, ProfileMix, ResolveError, Roll, as_count, fast_to_exact, hashable,
                                   is_dist, num_int, plain_ints, unwrap)
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, declaration
from compiler.resolve.expressions import each, stat_of
from compiler.resolve.plain import plain_args, plain_count, read_stat
from compiler.resolve.pure import pass_chance
from compiler.resolve.shape import State, flag_kinds, joins, names_in, reads_models
from compiler.resolve.steps import LazySteps
from compiler.trace import active as tracing
from compiler.trace import note

# One attack's tokens, each kind with its flags (a State: see compiler.resolve.shape) and count.
Bag: TypeAlias = tuple[tuple[State, int], ...]  # sorted ((state, count), ...)

MAX_TOKENS_PER_ATTACK = 64
ONE_TOKEN = Dist.const(((frozenset(), 1),))  # each attack, before its first step: one plain token


@declaration(A.Attack, pointwise=False)
def resolve_attack(ev: Evaluator, decl: A.Attack, args: list[Any], span: Any) -> AttackResult:
    """Resolve attack sequence ``decl`` with profile arguments; each step's distribution of counts."""
    for i, a in enumerate(args):
        if isinstance(a, ProfileMix):
            return _mixed_attack(ev, decl, args, i, span)
    # A call asked again (the same arguments, situation and caller) is dispatched once: the
    # evaluator it runs in, its plan and its numbers of attacks are kept; the sums over all
    # attacks, the answers, are worked out at each call.
    key = ("attack-call", decl.id, _call_args_key(args), ev.memo_key(), ev.exact, ev.depth)
    memo = ev.memo
    call = memo.get(key)
    totals = LazySteps()
    if call is None:
        call = _dispatch(ev, decl, args, span, totals)
        memo[key] = call
    else:
        _steps(call, totals, known=True)
    return AttackResult(decl.id, totals)


def _dispatch(ev: Evaluator, decl: A.Attack, args: list[Any], span: Any, totals: LazySteps) -> Call:
    """Bind the arguments, plan the per-attack work (or find the plan) and count the attacks."""
    env: dict[str, Any] = {}
    roles: dict[str, ProfileRef] = {}
    defender = _defender(decl)
    attacking = []
    for p, a in zip(decl.params, args):
        if is_dist(a):
            raise ResolveError(f"'{p.name}' of attack '{decl.id}' must be a profile or a number, not a roll",
                               span)
        env[p.name] = a
        if isinstance(a, ProfileRef):
            roles[p.name] = a
            if p.name != defender:
                attacking.append(a)
    sub = ev.child(attackers=tuple(attacking), roles=roles)
    # Per-attack work is tiny and stays exact; only the sum over all attacks uses fast mode.
    exact_sub = sub.exact_twin()
    for let in decl.lets:
        sub.bind_let(let, env)

    # The per-attack work depends on the profiles and the situation, not on how many models
    # attack: it is planned once per model and reused (10 or 200 attacks share it).
    key = ("attack-plan", decl.id, _plan_args(args, decl), sub.memo_key(), sub.exact)
    memo = sub.memo
    plan = memo.get(key)
    planned = plan is None
    if plan is None:
        plan = _plan(sub, exact_sub, decl, env, totals)
        memo[key] = plan
    call: Call = (sub, decl, env, defender, plan, {})
    _steps(call, totals, known=False, planned=planned)
    return call


def _steps(call: Call, totals: LazySteps, known: bool, planned: bool = False) -> None:
    """Fill ``totals`` with the steps of one call: sums and removals to work out when read, the
    numbers of attacks (counted now, unless ``known``), the other values.  When the plan was
    just made (``planned``), ``totals`` holds the sums, the counts and the values already."""
    sub, decl, env, defender, plan, counts = call
    for kind, step, per_attack, src, bags in plan:
        if kind == "removal":
            totals.later(step.name, partial(_removal, sub, decl, step, env, defender, bags, src))
        elif kind == "pipe":
            assert src is not None
            if not planned:
                totals.later(step.name, partial(_aggregate_step, sub, per_attack, src, step.span))
            totals.sums[step.name] = (sub, per_attack, src, step.span)
        elif kind == "count":
            if planned:
                counts[step.name] = totals[step.name]
                continue
            if not known:  # counted while planning, if the plan was made for this call
                counts[step.name] = totals[step.name] if step.name in totals else \
                    _value_step(sub, step, env, totals, True)
            totals[step.name] = counts[step.name]
        elif step.name not in totals:
            totals[step.name] = _value_step(sub, step, env, totals, False)


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


def _aggregate_step(sub: Evaluator, per_attack: Any, src: str, span: Any, totals: LazySteps) -> Any:
    return aggregate(sub, per_attack, totals[src], span)


def _call_args_key(args: list[Any]) -> tuple[Any, ...]:
    """The arguments as a key: profiles and whole numbers as they are, anything else made hashable."""
    return tuple(a if type(a) is ProfileRef or type(a) is int else hashable(a) for a in args)


def _plan_args(args: list[Any], decl: A.Attack) -> tuple[Any, ...]:
    """The arguments as the plan sees them: a profile without its model count (its id), unless
    the attack reads ``.models`` beyond counting its attacks."""
    if reads_models(decl):
        return tuple(hashable(a) for a in args)
    return tuple((ProfileRef, a.id) if type(a) is ProfileRef else hashable(a) for a in args)


def _value_step(sub: Evaluator, step: A.Step, env: dict[str, Any], totals: LazySteps, count: bool) -> Any:
    assert step.value is not None
    reads = [name for name in names_in(step.value) if name in totals]
    if not reads:  # read from the profiles alone (``shooter.models each weapon.A``): no evaluator
        plain = plain_count(sub, step.value, env)
        if plain is not None:
            return as_count(plain, step.span) if count else plain
    random = [n for n in reads if is_dist(totals[n]) and len(totals[n]) > 1]
    if len(random) > 1:
        # Each step's total is a distribution of its own: two of them (or one twice) would be
        # combined as independent rolls, which steps of one attack are not.
        raise ResolveError(f"step '{step.name}' combines the totals of {' and '.join(repr(n) for n in random)}, "
                           "which depend on each other; each is worked out on its own", step.span,
                           "count what you need as a step of its own, e.g. misses = attacks each not hit(…)")
    value = sub.eval(step.value, totals.env(env, step.value, sub))
    if isinstance(value, AttackResult):
        raise ResolveError("a step of an attack cannot be another attack", step.span)
    if count:
        value = sub.lift1(value, lambda c: as_count(unwrap(c), step.span))
    return value


def _is_count(value: Any) -> bool:
    if is_dist(value):
        return plain_ints(value) or all(isinstance(unwrap(o), int) and not isinstance(unwrap(o), bool) for o in value.outcomes())
    return isinstance(unwrap(value), int) and not isinstance(unwrap(value), bool)


PlanEntry: TypeAlias = tuple[str, A.Step, Any, str | None, Any]  # kind, step, per-attack counts, source, bags
# A call dispatched: the evaluator it runs in, the attack, its parameters bound, the defender's
# role, the plan, and the number of attacks of each counting step.
Call: TypeAlias = tuple[Evaluator, A.Attack, dict[str, Any], str | None, tuple[PlanEntry, ...], dict[str, Any]]


def _plan(sub: Evaluator, exact_sub: Evaluator, decl: A.Attack, env: dict[str, Any],
          totals: LazySteps) -> tuple[PlanEntry, ...]:
    """Classify the steps and work out each pipeline step's per-attack distribution."""
    plan: list[PlanEntry] = []
    bags: dict[str, Any] = {}  # step → per-attack Dist over bags of tokens
    source: dict[str, str] = {}  # step → the counting step it descends from
    for step, test_call, prev, joined in _shape(sub, decl):
        if step.removes_from is not None:
            # Attacks that hooks made differ (``+1 D``, mortal wounds) are followed one by one.
            special = step.removes_from in bags and _special(bags[step.removes_from])
            plan.append(("removal", step, None, source.get(step.removes_from) if special else None,
                         bags[step.removes_from] if special else None))
            continue
        assert step.value is not None
        if test_call is not None and prev in bags:
            test_decl, call, negate = test_call
            bags[step.name] = _advance(sub, bags[prev], test_decl, call, negate, env, step, joined)
            source[step.name] = source[prev]
            plan.append(("pipe", step, _sizes(sub, bags[step.name]), source[step.name], None))
            # A later step may read this one's total (``capped = min(hits, target.models)``).
            totals.later(step.name, partial(_aggregate_step, sub, plan[-1][2], source[step.name], step.span))
            continue
        if isinstance(step.value, A.Each) and prev in bags and not step.value.negate:
            # An amount per attack (``damage = unsaved each weapon.D``): summed per attack, then
            # over all attacks — the polynomial power, not a mixture of big sums.
            defender_ref = sub.roles.get(_defender(decl) or "")
            item_env = totals.env(env, step.value.item, sub)

            def amount_of(ev_: Evaluator, item_expr: A.Expr = step.value.item, span: Any = step.span) -> Any:
                found, item = read_stat(ev_, item_expr, item_env)
                if not found:
                    item = ev_.eval(item_expr, item_env)
                if defender_ref is not None and _is_count(item):
                    # ``on each damage: ignored on 5+`` of the defender counts here as in ``removes``.
                    amount = _exact(item) if is_dist(item) else Dist.const(item)
                    if not plain_ints(amount, 0):
                        amount = amount.map(lambda d: max(0, num_int(unwrap(d), span)))
                    item = feel_no_pain(ev_, defender_ref, amount)
                return item
            if _special(bags[prev]):
                per_attack = bags[prev].bind(partial(_bag_amount, exact_sub, amount_of, step.span))
            else:
                per_attack = _per_attack_sum(exact_sub, _sizes(exact_sub, bags[prev]), _exact(amount_of(exact_sub)),
                                             step.span)
            plain = plain_ints(per_attack)
            if plain or _is_count(per_attack):
                plan.append(("pipe", step, per_attack if plain else per_attack.map(lambda o: int(unwrap(o))),
                             source[prev], None))
                totals.later(step.name, partial(_aggregate_step, sub, plan[-1][2], source[prev], step.span))
                continue
        value = _value_step(sub, step, env, totals, False)
        if _is_count(value):
            totals[step.name] = sub.lift1(value, lambda c: as_count(unwrap(c), step.span))
            bags[step.name] = ONE_TOKEN
            source[step.name] = step.name
            plan.append(("count", step, None, None, None))
        else:
            totals[step.name] = value
            plan.append(("value", step, None, None, None))
    return tuple(plan)


StepShape: TypeAlias = tuple[A.Step, "tuple[A.Test, A.Call, bool] | None", str | None, tuple[tuple[str, State], ...]]


def _shape(ev: Evaluator, decl: A.Attack) -> tuple[StepShape, ...]:
    """Each step of ``decl`` as the plan reads it, whatever the profiles: the test it passes
    tokens through (``hits each wound(…)``), the step it follows, the steps that join it."""
    shapes: dict[str, tuple[A.Attack, tuple[StepShape, ...]]] = ev.model.__dict__.setdefault("_attack_shapes", {})
    known = shapes.get(decl.id)
    if known is not None and known[0] is decl:
        return known[1]
    out = []
    for step in decl.steps:
        value = step.value
        test_call = None if value is None else _pipeline_test(ev, value)
        prev = value.count.id if isinstance(value, A.Each) and isinstance(value.count, A.Name) else None
        out.append((step, test_call, prev, joins(decl, step.name) if test_call is not None else ()))
    shapes[decl.id] = (decl, tuple(out))
    return shapes[decl.id][1]


def _exact(v: Any) -> Any:
    return fast_to_exact(v) if isinstance(v, FastDist) else v


def _defender(decl: A.Attack) -> str | None:
    for step in decl.steps:
        if step.removes_from is not None and isinstance(step.removes_target, A.Name):
            return step.removes_target.id
    return decl.params[-1].name if decl.params else None


def _pipeline_test(ev: Evaluator, value: A.Expr) -> tuple[A.Test, A.Call, bool] | None:
    if not isinstance(value, A.Each) or not isinstance(value.item, A.Call):
        return None
    decl = ev.model.callables.get(value.item.func)
    if isinstance(decl, A.Test):
        return decl, value.item, value.negate
    return None


def _bag_size(bag: Bag) -> int:
    return sum(c for _, c in bag)


def _sizes(ev: Evaluator, bags: Any) -> Any:
    """How many tokens each attack has: a function of the bags alone, kept for the process."""
    if tracing():  # the general way, as everything while what is used is recorded
        return bags.map(_bag_size)
    return pure.kept(("sizes", bags), partial(bags.map, _bag_size))


def _merge(a: Bag, b: Bag) -> Bag:
    counts: dict[Any, int] = dict(a)
    for state, c in b:
        counts[state] = counts.get(state, 0) + c
    return tuple(sorted(counts.items(), key=lambda kv: sorted(map(repr, kv[0]))))


def _mods(state: State) -> tuple[A.Effect, ...]:
    """The modifiers hooks put on this token's attack (``+1 D``), for its later steps."""
    for flag in state:
        if flag[0] == "mods":
            return tuple(flag[1])
    return ()


def _mortal(state: State) -> str | None:
    """``spill`` or ``keep`` for a token of mortal wounds, else None."""
    for flag in state:
        if flag[0] == "mortal":
            return str(flag[1])
    return None


def _special(bags: Any) -> bool:
    """Whether some token carries modifiers or is mortal: then its damage is its own."""
    kinds = flag_kinds(bags)
    return "mods" in kinds or "mortal" in kinds


def _per_attack_sum(ev: Evaluator, sizes: Any, amount: Any, span: Any) -> Any:
    """The sum of ``amount`` over each attack's tokens: a function of the two distributions alone
    when both are over plain whole numbers, then kept for the process."""
    if tracing() or not (isinstance(sizes, Dist) and isinstance(amount, Dist) and plain_ints(sizes)
                         and plain_ints(amount)):
        return _exact(each(ev, sizes, amount, False, span))
    return pure.kept(("sum", sizes, amount), lambda: _exact(each(ev, sizes, amount, False, span)))


def _bag_amount(ev: Evaluator, amount_of: Callable[[Evaluator], Any], span: Any, bag: Bag) -> Any:
    """The amount one attack's tokens add up to, each read with its own modifiers."""
    total: Any = Dist.const(0)
    for state, count in bag:
        mods = _mods(state)
        one = amount_of(ev.with_hook_effects(mods) if mods else ev)
        one = _exact(one) if is_dist(one) else Dist.const(num_int(unwrap(one), span))
        total = total.binary("+", one.map(lambda o: num_int(unwrap(o), span)).convolve_power(count))
    return total


def bind_param(expr: A.Expr, name: str, value: int) -> A.Expr:
    """``expr`` with the ability parameter ``name`` replaced by its value (``+N D`` → ``+2 D``)."""
    if isinstance(expr, A.Name) and expr.id == name:
        return A.Int(expr.span, value)
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(expr):
        v = getattr(expr, f.name)
        if isinstance(v, A.Expr):
            changes[f.name] = bind_param(v, name, value)
        elif isinstance(v, tuple) and v and all(isinstance(x, A.Expr) for x in v):
            changes[f.name] = tuple(bind_param(x, name, value) for x in v)
    return dataclasses.replace(expr, **changes) if changes else expr


def _hooks_for(ev: Evaluator, test_id: str) -> list[tuple[A.Hook, Any, str]]:
    """Hooks of the attacking profiles' abilities on this test: (hook, ability value, param name)."""
    out = []
    for ability, arg in ev.effects.attacker_abilities():
        if not ev.effects.ability_holds(ability, arg):
            continue
        for hook in ability.hooks:
            if hook.test == test_id:
                note(ability.id)
                pname = ability.params[0].name if ability.params else ""
                out.append((hook, arg, pname))
    return out


def _advance(ev: Evaluator, bags: Any, test: A.Test, call: A.Call, negate: bool, env: dict[str, Any],
             step: A.Step, later: tuple[tuple[str, State], ...] = ()) -> Any:
    """Pass every token of every bag through one test step (memoised per model: the same
    question asked for 10 or 200 attacks shares this work)."""
    args = plain_args(ev, test, call, env)
    if args is None:
        args = ev.call_args(test, call, env)
    hooked = bool(_hooks_for(ev, test.id))
    closed = closed_step_key(ev, bags, test, args, negate, hooked)
    if closed is not None:  # the same in every situation: kept once per ruleset
        kept = closed_outcomes(ev.model)
        known = kept.get(closed)
        if known is None:
            if len(kept) > MAX_KEPT:
                kept.clear()
            known = kept[closed] = _through(ev, bags, test, args, call, negate, env, step, later, hooked)
        return known
    key = ("advance", bags, test.id, tuple(hashable(a) for a in args), negate, ev.memo_key(), later)
    memo = ev.memo
    if key in memo:
        return memo[key]
    result = _through(ev, bags, test, args, call, negate, env, step, later, hooked)
    memo[key] = result
    return result


def _through(ev: Evaluator, bags: Any, test: A.Test, args: list[Any], call: A.Call, negate: bool,
             env: dict[str, Any], step: A.Step, later: tuple[tuple[str, State], ...], hooked: bool) -> Any:
    """The bags after the step.  Without hooks, and with no token carrying modifiers of its
    own, that is a function of the bags, the test's chance to pass and ``negate`` alone: kept
    for the process (compiler.resolve.pure), so a new matchup whose test passes as often as
    one met before takes its steps as they are."""
    if not hooked and not tracing() and "mods" not in flag_kinds(bags):
        chance = pass_chance(_exact(ev.apply(test, args, call.span)))
        if chance is not None:
            return pure.kept(("step", bags, chance, negate, test.id),
                             partial(_advance_uncached, ev, bags, test, args, call, negate, env, step, dict(later)))
    return _advance_uncached(ev, bags, test, args, call, negate, env, step, dict(later))


def _advance_uncached(ev: Evaluator, bags: Any, test: A.Test, args: list[Any], call: A.Call, negate: bool,
                      env: dict[str, Any], step: A.Step, later: dict[str, State]) -> Any:
    hooks = _hooks_for(ev, test.id)
    succeed = tuple(A.Effect(h.span, "natural_succeeds", A.Int(h.span, face), test.id, role="from" if h.natural_from else None)
                    for h, arg, _ in hooks if (face := h.face(arg)) is not None
                    and any(e.kind == "succeed" for e in h.effects))
    if succeed:  # ``on natural X+ to wound: succeeds``: those faces pass the test itself
        ev = ev.with_hook_effects(succeed)
        args = ev.call_args(test, call, env)
    outcomes: dict[tuple[A.Effect, ...], Any] = {}
    cache: dict[State, Any] = {}

    def outcome_for(mods: tuple[A.Effect, ...]) -> Any:
        """The test's outcome for a token whose hooks changed it (its own arguments, modifiers)."""
        if mods not in outcomes:
            evm = ev.with_hook_effects(mods) if mods else ev
            out = evm.apply(test, evm.call_args(test, call, env) if mods else args, call.span)
            out = fast_to_exact(out) if isinstance(out, FastDist) else out
            outcomes[mods] = out if is_dist(out) else Dist.const(out)
        return outcomes[mods]

    def fire(r: Roll, rest: set[tuple[Any, ...]]) -> dict[State, Any]:
        """What this test's hooks do to a token that passed with natural ``r.natural``:
        flags added to ``rest``; returns the extra tokens it makes: state → a distribution of
        how many (``1 extra wounds`` makes tokens that join the later step ``wounds``)."""
        extra: dict[State, Any] = {}
        added: list[A.Effect] = []
        for hook, arg, pname in hooks:
            face = hook.face(arg)
            if face is None:
                continue
            if not (r.natural >= face if hook.natural_from else r.natural == face):
                continue
            for eff in hook.effects:
                if eff.kind == "pass":
                    rest.add(("pass", eff.test))
                elif eff.kind == "fail":
                    rest.add(("fail", eff.test))
                elif eff.kind == "mortal":
                    rest.add(("mortal", "spill" if eff.spill else "keep"))
                elif eff.kind == "modify" and eff.effect is not None:
                    e = eff.effect
                    if pname and arg is not None and e.value is not None:
                        e = dataclasses.replace(e, value=bind_param(e.value, pname, arg))
                    added.append(e)
                elif eff.kind == "extra" and eff.amount is not None:
                    local = {pname: arg} if pname else {}
                    amount = ev.eval(eff.amount, {**env, **local})
                    span = eff.span
                    amount = _exact(amount) if is_dist(amount) else Dist.const(amount)
                    amount = amount.map(lambda a: num_int(unwrap(a), span))
                    joined = later.get(eff.word or "", frozenset())
                    extra[joined] = amount if joined not in extra else extra[joined].binary("+", amount)
        if added:
            old = _mods(frozenset(rest))
            rest.difference_update({f for f in rest if f[0] == "mods"})
            rest.add(("mods", tuple(sorted(old + tuple(added), key=repr))))
        return extra

    def token(state: State) -> Any:
        """Dist over bags produced by one token in ``state``."""
        if state in cache:
            return cache[state]
        rest = frozenset(f for f in state if not (f[0] in ("pass", "fail") and f[1] == test.id))
        if _mortal(state) is not None:
            # Mortal wounds skip every later test: counted whether the step counts passes or failures.
            result: Any = Dist.const(((state, 1),))
        elif ("pass", test.id) in state or ("fail", test.id) in state:
            success = ("pass", test.id) in state
            result = Dist.const(((rest, 1),) if success != negate else ())
        else:
            def after(roll: Any) -> Any:
                r = roll if isinstance(roll, Roll) else Roll(bool(unwrap(roll)), 0)
                new_flags = set(rest)
                extra = fire(r, new_flags) if r.success else {}
                if r.success == negate:
                    return ()
                bag: Bag = ((frozenset(new_flags), 1),)
                if not extra:
                    return bag
                bags_: Any = Dist.const(bag)
                for state, counts in extra.items():
                    bags_ = bags_.binary(_merge, counts.map(lambda n, s=state: ((s, n),) if n else ()))
                return bags_
            # Without hooks a token never makes others: each roll gives one bag, a map suffices.
            outcome = outcome_for(_mods(rest))
            result = outcome.bind(after) if hooks else outcome.map(after)
        cache[state] = result
        return result

    def advance_bag(bag: Bag) -> Any:
        if sum(count for _, count in bag) > MAX_TOKENS_PER_ATTACK:  # before the work, not after it
            raise ResolveError(f"one attack makes more than {MAX_TOKENS_PER_ATTACK} tokens here", step.span)
        if len(bag) == 1 and bag[0][1] == 1:  # one token: its bags are the attack's
            return token(bag[0][0])
        total: Any = Dist.const(())
        for state, count in bag:
            one = token(state)
            for _ in range(count):
                total = total.binary(_merge, one)
        return total

    return bags.bind(advance_bag)


def aggregate(ev: Evaluator, per_attack: Any, attacks: Any, span: Any) -> Any:
    """Sum the per-attack counts over all attacks (a fixed or a random number of them)."""
    per = ev.to_backend(per_attack)
    refuse_attack_sum(per, attacks, ev.exact, span)  # too big a sum is refused before it starts
    if is_dist(attacks):
        n = ev.to_backend(attacks)
        if isinstance(per, FastDist) and isinstance(n, Dist):
            n = n.to_fast()
        if isinstance(per, Dist) and isinstance(n, FastDist):
            per = per.to_fast()
        return per.sum_of_random(n)
    return per.convolve_power(as_count(unwrap(attacks), span))


def _removal(ev: Evaluator, decl: A.Attack, step: A.Step, env: dict[str, Any], defender: str | None, bags: Any,
             src: str | None, totals: LazySteps) -> Any:
    if step.removes_from is None or step.removes_from not in totals:
        raise ResolveError(f"'{step.removes_from}' is not an earlier step", step.span)
    target = ev.eval(step.removes_target, totals.env(env, step.removes_target, ev)) if step.removes_target is not None else None
    if not isinstance(target, ProfileRef):
        raise ResolveError("'removes' needs the target profile, e.g. removes target", step.span)
    role = step.removes_target.id if isinstance(step.removes_target, A.Name) else None
    stat = wounds_stat(ev.model)
    if stat is None:
        raise ResolveError("'removes' takes wounds off, but no stat is declared 'role wounds'", step.span,
                           'declare it: stat W "Wounds" 1..10 role wounds')
    if not has_stat(ev, target, stat):
        raise ResolveError(f"'removes' needs the wounds of {target.id}, but its profile has no {stat}", step.span,
                           f"add {stat} to its profile line")
    wounds = stat_of(ev, target, stat, role, step.span)
    if is_dist(wounds) or wounds is None:
        raise ResolveError(f"the target's {stat} must be a fixed number", step.span)
    wounds = num_int(unwrap(wounds), step.span)
    damage_env = totals.env(env, step.damage, ev) if step.damage is not None else env

    def damage_of(evd: Evaluator) -> Any:
        damage: Any = 1
        if step.damage is not None:
            damage = evd.eval(step.damage, damage_env)
        damage = damage if is_dist(damage) else Dist.const(num_int(unwrap(damage), step.span))
        damage = _exact(damage).map(lambda d: max(0, num_int(unwrap(d), step.span)))
        return feel_no_pain(evd, target, damage)

    if bags is not None and src is not None:
        exact_ev = ev.exact_twin()

        def token_damage(state: State) -> tuple[Any, bool]:
            mods = _mods(state)
            return damage_of(exact_ev.with_hook_effects(mods) if mods else exact_ev), _mortal(state) == "spill"
        return casualties_per_attack(ev, totals[src], bags, token_damage, wounds, target.models, step.span)
    return casualties(ev, totals[step.removes_from], damage_of(ev), wounds, target.models, step.span)
