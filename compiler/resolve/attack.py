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

from fractions import Fraction
from functools import partial
from typing import Any, Callable, Iterator, Mapping, TypeAlias

from compiler import ast as A
from compiler.limits import MAX_REMOVAL_WORK
from compiler.model.values import ProfileRef, TargetValue
from compiler.resolve.core import (AttackResult, ResolveError, Roll, as_count, fast_to_exact, hashable, is_dist,
                                   num_int, unwrap)
from compiler.resolve.budget import refuse_attack_sum
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import Evaluator, declaration
from compiler.resolve.expressions import each, stat_of

State: TypeAlias = frozenset[tuple[str, str | None]]  # flags such as ("pass", "wound") or ("fail", "save")
Bag: TypeAlias = tuple[tuple[State, int], ...]  # sorted ((state, count), ...)

MAX_TOKENS_PER_ATTACK = 64


@declaration(A.Attack, pointwise=False)
def resolve_attack(ev: Evaluator, decl: A.Attack, args: list[Any], span: Any) -> AttackResult:
    """Resolve attack sequence ``decl`` with profile arguments; each step's distribution of counts."""
    env: dict[str, Any] = {p.name: a for p, a in zip(decl.params, args)}
    for p, a in zip(decl.params, args):
        if is_dist(a):
            raise ResolveError(f"'{p.name}' of attack '{decl.id}' must be a profile or a number, not a roll",
                               span)
    defender = _defender(decl)
    attackers = tuple(a for p, a in zip(decl.params, args) if isinstance(a, ProfileRef) and p.name != defender)
    roles = {p.name: a for p, a in zip(decl.params, args) if isinstance(a, ProfileRef)}
    sub = ev.child(attackers=attackers, roles=roles)
    # Per-attack work is tiny and stays exact; only the sum over all attacks uses fast mode.
    exact_sub = sub if sub.exact else Evaluator(sub.model, True, sub.situation, attackers, sub.depth, roles)
    for let in decl.lets:
        sub.bind_let(let, env)

    # The per-attack work depends on the profiles and the situation, not on how many models
    # attack: it is planned once per model and reused (10 or 200 attacks share it).
    key = ("attack-plan", decl.id, tuple(hashable(_plan_arg(a, decl)) for a in args), sub.memo_key(),
           sub.exact)
    plan = sub.memo.get(key)
    totals = LazySteps()
    if plan is None:
        plan = _plan(sub, exact_sub, decl, env, totals)
        sub.memo[key] = plan
    for kind, step, per_attack, src in plan:
        if kind == "removal":
            totals.later(step.name, partial(_removal, sub, decl, step, env, totals, defender))
        elif kind == "pipe":
            assert src is not None
            totals.later(step.name, partial(_aggregate_step, sub, per_attack, totals, src, step.span))
        elif step.name not in totals or kind == "count":
            totals[step.name] = _value_step(sub, step, env, totals, kind == "count")
    return AttackResult(decl.id, totals)


def _aggregate_step(sub: Evaluator, per_attack: Any, totals: "LazySteps", src: str, span: Any) -> Any:
    return _aggregate(sub, per_attack, totals[src], span)


def _plan_arg(a: Any, decl: A.Attack) -> Any:
    """An argument as the plan sees it: a profile without its model count, unless the
    attack reads ``.models`` beyond counting its attacks."""
    if isinstance(a, ProfileRef) and not _reads_models(decl):
        return ProfileRef(a.id)
    return a


_READS_MODELS: dict[int, tuple[A.Attack, bool]] = {}


def _reads_models(decl: A.Attack) -> bool:
    hit = _READS_MODELS.get(id(decl))
    if hit is not None and hit[0] is decl:
        return hit[1]
    answer = _reads_models_uncached(decl)
    _READS_MODELS[id(decl)] = (decl, answer)
    return answer


def _reads_models_uncached(decl: A.Attack) -> bool:
    for step in decl.steps[1:]:
        for expr in (step.value, step.removes_target, step.damage):
            if expr is None:
                continue
            for sub in A.sub_expressions(expr):
                if isinstance(sub, A.Attr) and sub.name == "models":
                    return True
    return False


def _value_step(sub: Evaluator, step: A.Step, env: dict[str, Any], totals: "LazySteps", count: bool) -> Any:
    assert step.value is not None
    value = sub.eval(step.value, totals.env(env, step.value, sub))
    if isinstance(value, AttackResult):
        raise ResolveError("a step of an attack cannot be another attack", step.span)
    if count:
        value = sub.lift1(value, lambda c: as_count(unwrap(c), step.span))
    return value


def _is_count(value: Any) -> bool:
    if is_dist(value):
        return all(isinstance(unwrap(o), int) and not isinstance(unwrap(o), bool) for o in value.outcomes())
    return isinstance(unwrap(value), int) and not isinstance(unwrap(value), bool)


def _plan(sub: Evaluator, exact_sub: Evaluator, decl: A.Attack, env: dict[str, Any],
          totals: "LazySteps") -> tuple[tuple[str, A.Step, Any, str | None], ...]:
    """Classify the steps and work out each pipeline step's per-attack distribution."""
    plan: list[tuple[str, A.Step, Any, str | None]] = []
    bags: dict[str, Any] = {}  # step → per-attack Dist over bags of tokens
    source: dict[str, str] = {}  # step → the counting step it descends from
    for step in decl.steps:
        if step.removes_from is not None:
            plan.append(("removal", step, None, None))
            continue
        assert step.value is not None
        test_call = _pipeline_test(sub, step.value)
        prev = step.value.count.id if isinstance(step.value, A.Each) and isinstance(step.value.count, A.Name) else None
        if test_call is not None and prev in bags:
            test_decl, call, negate = test_call
            bags[step.name] = _advance(sub, bags[prev], test_decl, call, negate, env, step)
            source[step.name] = source[prev]
            plan.append(("pipe", step, bags[step.name].map(_bag_size), source[step.name]))
            # A later step may read this one's total (``capped = min(hits, target.models)``).
            totals.later(step.name, partial(_aggregate_step, sub, plan[-1][2], totals, source[step.name], step.span))
            continue
        if isinstance(step.value, A.Each) and prev in bags and not step.value.negate:
            # An amount per attack (``damage = unsaved each weapon.D``): summed per attack, then
            # over all attacks — the polynomial power, not a mixture of big sums.
            item = exact_sub.eval(step.value.item, totals.env(env, step.value.item, sub))
            defender_ref = sub.roles.get(_defender(decl) or "")
            if defender_ref is not None and _is_count(item):
                # ``on each damage: ignored on 5+`` of the defender counts here as in ``removes``.
                amount = _exact(item) if is_dist(item) else Dist.const(item)
                amount = amount.map(lambda d: max(0, num_int(unwrap(d), step.span)))
                item = _feel_no_pain(exact_sub, defender_ref, amount)
            per_attack = _exact(each(exact_sub, bags[prev].map(_bag_size), _exact(item), False, step.span))
            if all(isinstance(unwrap(o), int) and not isinstance(unwrap(o), bool) for o in per_attack.outcomes()):
                plan.append(("pipe", step, per_attack.map(lambda o: int(unwrap(o))), source[prev]))
                totals.later(step.name, partial(_aggregate_step, sub, plan[-1][2], totals, source[prev], step.span))
                continue
        value = _value_step(sub, step, env, totals, False)
        if _is_count(value):
            totals[step.name] = sub.lift1(value, lambda c: as_count(unwrap(c), step.span))
            bags[step.name] = Dist.const(((frozenset(), 1),))
            source[step.name] = step.name
            plan.append(("count", step, None, None))
        else:
            totals[step.name] = value
            plan.append(("value", step, None, None))
    return tuple(plan)


class LazySteps(Mapping[str, Any]):
    """The steps of an attack, each worked out only when it is read (an example that asks for
    ``r.killed`` does not pay for the sum of ``r.hits``)."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._later: dict[str, Callable[[], Any]] = {}

    def later(self, name: str, thunk: Callable[[], Any]) -> None:
        self._later[name] = thunk
        self._values.pop(name, None)

    def __setitem__(self, name: str, value: Any) -> None:
        self._values[name] = value
        self._later.pop(name, None)

    def __getitem__(self, name: str) -> Any:
        if name not in self._values:
            if name not in self._later:
                raise KeyError(name)
            self._values[name] = self._later[name]()  # kept until it succeeds: a failure fails again
            del self._later[name]
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._values) + [k for k in self._later if k not in self._values])

    def __len__(self) -> int:
        return len(set(self._values) | set(self._later))

    def __contains__(self, name: object) -> bool:
        return name in self._values or name in self._later

    def env(self, base: dict[str, Any], expr: A.Expr, ev: Evaluator) -> dict[str, Any]:
        """``base`` plus the steps that ``expr`` names, worked out."""
        out = dict(base)
        for name in ev.names(expr):
            if name in self:
                out[name] = self[name]
        return out


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


def _merge(a: Bag, b: Bag) -> Bag:
    counts: dict[Any, int] = dict(a)
    for state, c in b:
        counts[state] = counts.get(state, 0) + c
    return tuple(sorted(counts.items(), key=lambda kv: sorted(kv[0])))


def _hooks_for(ev: Evaluator, test_id: str) -> list[tuple[A.Hook, Any, str]]:
    """Hooks of the attacking profiles' abilities on this test: (hook, ability value, param name)."""
    out = []
    for ability, arg in ev.effects.attacker_abilities():
        for hook in ability.hooks:
            if hook.test == test_id:
                pname = ability.params[0].name if ability.params else ""
                out.append((hook, arg, pname))
    return out


def _advance(ev: Evaluator, bags: Any, test: A.Test, call: A.Call, negate: bool, env: dict[str, Any],
             step: A.Step) -> Any:
    """Pass every token of every bag through one test step (memoised per model: the same
    question asked for 10 or 200 attacks shares this work)."""
    args = ev.call_args(test, call, env)
    key = ("advance", bags, test.id, tuple(hashable(a) for a in args), negate, ev.memo_key())
    memo = ev.memo
    if key in memo:
        return memo[key]
    result = _advance_uncached(ev, bags, test, args, call, negate, env, step)
    memo[key] = result
    return result


def _advance_uncached(ev: Evaluator, bags: Any, test: A.Test, args: list[Any], call: A.Call, negate: bool,
                      env: dict[str, Any], step: A.Step) -> Any:
    outcome = ev.apply(test, args, call.span)
    if isinstance(outcome, FastDist):
        outcome = fast_to_exact(outcome)
    if not is_dist(outcome):
        outcome = Dist.const(outcome)
    hooks = _hooks_for(ev, test.id)
    cache: dict[State, Any] = {}

    def token(state: State) -> Any:
        """Dist over bags produced by one token in ``state``."""
        if state in cache:
            return cache[state]
        rest = frozenset(f for f in state if f[1] != test.id)
        if ("pass", test.id) in state or ("fail", test.id) in state:
            success = ("pass", test.id) in state
            result: Any = Dist.const(((rest, 1),) if success != negate else ())
        else:
            def after(roll: Any) -> Bag:
                r = roll if isinstance(roll, Roll) else Roll(bool(unwrap(roll)), 0)
                new_flags = set(rest)
                extra = 0
                if r.success:
                    for hook, arg, pname in hooks:
                        if hook.natural is None:
                            continue
                        hit = r.natural >= hook.natural if hook.natural_from else r.natural == hook.natural
                        if not hit:
                            continue
                        for eff in hook.effects:
                            if eff.kind == "pass":
                                new_flags.add(("pass", eff.test))
                            elif eff.kind == "fail":
                                new_flags.add(("fail", eff.test))
                            elif eff.kind == "extra" and eff.amount is not None:
                                local = {pname: arg} if pname else {}
                                amount = ev.eval(eff.amount, {**env, **local})
                                if is_dist(amount):
                                    raise ResolveError("extra hits must be a fixed number", eff.span)
                                extra += num_int(unwrap(amount), eff.span)
                if r.success == negate:
                    return ()
                bag: Bag = ((frozenset(new_flags), 1),)
                if extra:
                    bag = _merge(bag, ((frozenset(), extra),))
                return bag
            result = outcome.map(after)
        cache[state] = result
        return result

    def advance_bag(bag: Bag) -> Any:
        if sum(count for _, count in bag) > MAX_TOKENS_PER_ATTACK:  # before the work, not after it
            raise ResolveError(f"one attack makes more than {MAX_TOKENS_PER_ATTACK} tokens here", step.span)
        total: Any = Dist.const(())
        for state, count in bag:
            one = token(state)
            for _ in range(count):
                total = total.binary(_merge, one)
        return total

    return bags.bind(advance_bag)


def _aggregate(ev: Evaluator, per_attack: Any, attacks: Any, span: Any) -> Any:
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


def _removal(ev: Evaluator, decl: A.Attack, step: A.Step, env: dict[str, Any], totals: "LazySteps",
             defender: str | None) -> Any:
    if step.removes_from is None or step.removes_from not in totals:
        raise ResolveError(f"'{step.removes_from}' is not an earlier step", step.span)
    unsaved = totals[step.removes_from]
    target = ev.eval(step.removes_target, totals.env(env, step.removes_target, ev)) if step.removes_target is not None else None
    if not isinstance(target, ProfileRef):
        raise ResolveError("'removes' needs the target profile, e.g. removes target", step.span)
    role = step.removes_target.id if isinstance(step.removes_target, A.Name) else None
    stat = wounds_stat(ev.model)
    if stat is None:
        raise ResolveError("'removes' takes wounds off, but no stat is declared 'role wounds'", step.span,
                           'declare it: stat W "Wounds" 1..10 role wounds')
    if not _has_stat(ev, target, stat):
        raise ResolveError(f"'removes' needs the wounds of {target.id}, but its profile has no {stat}", step.span,
                           f"add {stat} to its profile line")
    wounds = stat_of(ev, target, stat, role, step.span)
    if is_dist(wounds) or wounds is None:
        raise ResolveError(f"the target's {stat} must be a fixed number", step.span)
    wounds = num_int(unwrap(wounds), step.span)
    models = target.models
    damage: Any = 1
    if step.damage is not None:
        damage = ev.eval(step.damage, totals.env(env, step.damage, ev))
    damage = damage if is_dist(damage) else Dist.const(num_int(unwrap(damage), step.span))
    if isinstance(damage, FastDist):
        damage = fast_to_exact(damage)
    damage = damage.map(lambda d: max(0, num_int(unwrap(d), step.span)))
    damage = _feel_no_pain(ev, target, damage)
    return _casualties(ev, unsaved, damage, wounds, models, step.span)


def wounds_stat(model: Any) -> str | None:
    """The stat declared ``role wounds``: what ``removes`` takes off a model."""
    for stat in model.stats.values():
        if stat.role == "wounds":
            return str(stat.id)
    return None


def _has_stat(ev: Evaluator, ref: ProfileRef, name: str) -> bool:
    prof = ev.model.profiles.get(ref.id)
    return prof is not None and prof.stat(name) is not None


def _feel_no_pain(ev: Evaluator, target: ProfileRef, damage: Any) -> Any:
    prof = ev.model.profiles.get(target.id)
    if prof is None:
        return damage
    abilities = {a.id: a for a in ev.model.of_type(A.Ability)}
    for use in prof.abilities:
        ab = abilities.get(use.ability)
        if ab is None:
            continue
        for hook in ab.hooks:
            if hook.ignore_damage_on is None:
                continue
            local = {ab.params[0].name: use.arg} if ab.params else {}
            t = ev.eval(hook.ignore_damage_on, local)
            t = unwrap(t)
            if not isinstance(t, TargetValue):
                t = TargetValue.high(num_int(t, hook.span))
            if hook.damage_die is None:
                raise ResolveError("say which die this rolls: on each damage: roll d6, ignored on 5+", hook.span)
            die = ev.eval(hook.damage_die, {})
            die = fast_to_exact(die) if isinstance(die, FastDist) else die
            die = die if is_dist(die) else Dist.const(die)
            need: TargetValue = t
            span = hook.span
            keep: Fraction = 1 - die.p_where(lambda face: need.passes(num_int(unwrap(face), span)))
            damage = damage.bind(partial(_kept, keep))
    return damage


def _kept(keep: Fraction, d: int) -> Any:
    """Of ``d`` points of damage, how many are kept when each is kept with chance ``keep``."""
    return Dist.binomial(d, keep) if d else 0


def _casualties(ev: Evaluator, unsaved: Any, damage: Dist, wounds: int, models: int, span: Any) -> Any:
    """Models killed by ``unsaved`` damage instances of ``damage`` each (no spill-over)."""
    if models <= 0:
        return 0
    counts = unsaved if is_dist(unsaved) else Dist.const(as_count(unwrap(unsaved), span))
    if isinstance(counts, FastDist):
        fast = True
        counts_items = [(int(o), float(p)) for o, p in counts.probabilities().items()]
    else:
        fast = not ev.exact
        counts_items = [(int(o), p) for o, p in counts.probabilities().items()]
    dmg = [(int(d), p) for d, p in damage.probabilities().items()]
    if fast:
        dmg = [(d, float(p)) for d, p in dmg]
    if wounds <= 1 and all(d >= 1 for d, _ in dmg):
        capped: dict[int, Any] = {}
        for n, p in counts_items:
            k = min(n, models)
            capped[k] = capped.get(k, 0) + p
        return _make(capped, fast)
    max_n = max((n for n, _ in counts_items), default=0)
    most = max((d for d, _ in dmg), default=1)
    work = max_n * (min(models, max_n) + 1) * min(wounds, max_n * max(most, 1) + 1) * len(dmg)
    if work > MAX_REMOVAL_WORK:  # checked before the work: huge Wounds or many models and hits
        raise ResolveError(f"removing casualties here takes {work:,} steps; the limit is {MAX_REMOVAL_WORK:,}",
                           span, "fewer attacks, fewer models or fewer Wounds per model")
    zero: Any = 0.0 if fast else Fraction(0)
    one: Any = 1.0 if fast else Fraction(1)
    state: dict[tuple[int, int], Any] = {(0, wounds): one}
    result: dict[int, Any] = {}
    weights = dict(counts_items)
    for n in range(max_n + 1):
        w = weights.get(n)
        if w:
            for (k, _), p in state.items():
                result[k] = result.get(k, zero) + w * p
        if n == max_n:
            break
        nxt: dict[tuple[int, int], Any] = {}
        for (k, r), p in state.items():
            if k >= models:
                nxt[(k, r)] = nxt.get((k, r), zero) + p
                continue
            for d, q in dmg:
                if d >= r:
                    key = (k + 1, wounds)
                else:
                    key = (k, r - d)
                nxt[key] = nxt.get(key, zero) + p * q
        state = nxt
    return _make(result, fast)


def _make(weights: dict[int, Any], fast: bool) -> Any:
    weights = {k: v for k, v in weights.items() if v}
    if fast:
        return FastDist.from_weights(weights)
    return Dist.from_weights(weights)
