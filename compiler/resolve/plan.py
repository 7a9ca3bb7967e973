"""The plan of an attack: what one attack does, step by step, before the attacks are summed.

:func:`plan_attack` classifies each step of an attack sequence and works out, for the
steps that follow tokens (:mod:`compiler.resolve.tokens`), each attack's distribution:

- a *count* (``attacks = shooter.models each weapon.A``): how many attacks there are, each
  starting as one plain token;
- a *pipe* step (``hits = attacks each hit(shooter.BS)``): the tokens through a test, and how
  many each attack has after it; an *amount* (``damage = unsaved each weapon.D``) is summed
  over each attack's tokens, a pipe step too;
- a *removal* (``killed = damage removes target``): casualties, worked out when read;
- any other *value*, worked out once.

The plan depends on the profiles and the situation, not on how many models attack, so the
caller keeps it for the profiles (10 or 200 attacks share it); the sums over all attacks
(:func:`aggregate`) are worked out when a step is read.

Most attacks of most rulesets read their profiles' stats by name, pass tokens through
closed tests (:mod:`compiler.resolve.closed`) and have no modifier or ability in play.
For those, :func:`plan_plainly` follows a program made once per attack (:func:`shape_of`)
and gives the plan :func:`plan_attack` would, without asking at each step what it might
have to do otherwise; anything else it leaves to :func:`plan_attack`.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Iterator, TypeAlias

from compiler import ast as A
from compiler.model.values import ProfileRef
from compiler.resolve.budget import refuse_attack_sum
from compiler.resolve.casualties import feel_no_pain
from compiler.resolve.closed import closed_key, closed_outcomes, is_closed
from compiler.resolve.core import AttackResult, LetVar, ResolveError, truth, as_count, is_dist, num_int, plain_ints, unwrap
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.effects import profiles_with_abilities
from compiler.resolve.evaluator import Evaluator
from compiler.resolve.expressions import stat_of
from compiler.resolve.plain import plain_count, read_stat, stat_reads
from compiler.resolve.shape import State, damage_dealt, joins, names_in
from compiler.resolve.steps import LazySteps
from compiler.resolve.expressions import becomes_amount
from compiler.resolve.tokens import (ONE_TOKEN, TestCall, advance, as_exact, bag_amount, hooked_tests, multiply,
                                     per_attack_sum, sizes, special_tokens)
from compiler.trace import active as tracing

PlanEntry: TypeAlias = tuple[str, A.Step, Any, str | None, Any]  # kind, step, per-attack counts, source, bags
# A plan: its entries laid end to end, five items each.  The resolver's memo keeps a plan for every
# profiles asked about: one tuple each, not one per step, for the garbage collector to follow.
Plan: TypeAlias = tuple[Any, ...]
StepShape: TypeAlias = "tuple[A.Step, TestCall | None, str | None, tuple[str, ...]]"
# What a plain program reads for an amount: (role, stat, span), a stat of the profile bound to a
# parameter, by its name (``weapon.D``).
Read: TypeAlias = tuple[str, str, Any]
# A plain program's steps: ("value", step) (a number of attacks, as the general way works it out),
# ("pipe", step, step followed, test call, steps joined), ("amount", step, step followed, the stat
# read), ("removal", step).
Op: TypeAlias = tuple[Any, ...]


def plan_entries(plan: Plan) -> Iterator[PlanEntry]:
    """The entries of a plan, in the order of the attack's steps."""
    return zip(*[iter(plan)] * 5)


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


def aggregate_step(sub: Evaluator, per_attack: Any, src: str, span: Any, totals: LazySteps) -> Any:
    return aggregate(sub, per_attack, totals[src], span)


def value_step(sub: Evaluator, step: A.Step, env: dict[str, Any], totals: LazySteps, count: bool) -> Any:
    assert step.value is not None
    reads = [name for name in names_in(step.value) if name in totals]
    if not reads:  # read from the profiles alone (``shooter.models each weapon.A``): no evaluator
        plain = plain_count(sub, step.value, env)
        if plain is not None:
            return as_count(plain, step.span) if count else plain
    random = list(dict.fromkeys(n for n in reads if is_dist(totals[n]) and len(totals[n]) > 1))
    if len(random) > 1:
        # Each step's total is a distribution of its own: two of them would be combined as
        # independent rolls, which steps of one attack are not.
        raise ResolveError(f"step '{step.name}' combines the totals of {' and '.join(repr(n) for n in random)}, "
                           "which depend on each other; each is worked out on its own", step.span,
                           "count what you need as a step of its own, e.g. misses = attacks each not hit(…)")
    step_env = totals.env(env, step.value, sub)
    if random and reads.count(random[0]) > 1:  # one total read twice (``if … then hits * 2 else hits``): one roll
        step_env[random[0]] = LetVar(random[0], A.Name(step.span, random[0]), step_env[random[0]])
    value = sub.eval(step.value, step_env)
    if isinstance(value, AttackResult):
        raise ResolveError("a step of an attack cannot be another attack", step.span)
    if count:
        value = sub.lift1(value, lambda c: as_count(unwrap(c), step.span))
    return value


def is_count(value: Any) -> bool:
    if is_dist(value):
        return plain_ints(value) or all(isinstance(unwrap(o), int) and not isinstance(unwrap(o), bool) for o in value.outcomes())
    return isinstance(unwrap(value), int) and not isinstance(unwrap(value), bool)


class _Planning:
    """A plan being made: its entries, and each token-following step's bags and the counting
    step it descends from."""

    __slots__ = ("sub", "totals", "entries", "bags", "source")

    def __init__(self, sub: Evaluator, totals: LazySteps) -> None:
        self.sub = sub
        self.totals = totals
        self.entries: list[Any] = []  # the plan's entries laid end to end (Plan)
        self.bags: dict[str, Any] = {}  # step → per-attack Dist over bags of tokens
        self.source: dict[str, str] = {}  # step → the counting step it descends from

    def removal(self, step: A.Step) -> None:
        # Attacks that hooks made differ (``+1 D``, mortal wounds) are followed one by one.
        name = step.removes_from or ""
        special = name in self.bags and special_tokens(self.bags[name])
        self.entries.extend(("removal", step, None, self.source.get(name) if special else None,
                             self.bags[name] if special else None))

    def pipe(self, step: A.Step, prev: str, bags: Any) -> None:
        """A step through a test: its bags, and (a later step may read it: ``capped =
        min(hits, target.models)``) its total, the sum over the attacks."""
        self.bags[step.name] = bags
        src = self.source[step.name] = self.source[prev]
        counts = sizes(self.sub, bags)
        self.entries.extend(("pipe", step, counts, src, None))
        self.totals.later(step.name, partial(aggregate_step, self.sub, counts, src, step.span))

    def amount(self, step: A.Step, prev: str, per_attack: Any) -> bool:
        """An amount per attack (``damage = unsaved each weapon.D``), summed over the attacks —
        the polynomial power, not a mixture of big sums — when it is a whole number."""
        plain = plain_ints(per_attack)
        if not plain and not is_count(per_attack):
            return False
        counts = per_attack if plain else per_attack.map(lambda o: int(unwrap(o)))
        self.entries.extend(("pipe", step, counts, self.source[prev], None))
        self.totals.later(step.name, partial(aggregate_step, self.sub, counts, self.source[prev], step.span))
        return True

    def value(self, step: A.Step, value: Any) -> None:
        """A step worked out once: a number of attacks, each one plain token, or another value."""
        if type(value) is int:  # a plain number of attacks (``shooter.models each weapon.A``)
            self.totals[step.name] = as_count(value, step.span)
        elif is_count(value):
            self.totals[step.name] = self.sub.lift1(value, lambda c: as_count(unwrap(c), step.span))
        else:
            self.totals[step.name] = value
            self.entries.extend(("value", step, None, None, None))
            return
        self.bags[step.name] = ONE_TOKEN
        self.source[step.name] = step.name
        self.entries.extend(("count", step, None, None, None))


def damage_amount(ev: Evaluator, item: Any, defender: ProfileRef | None, span: Any) -> Any:
    """An amount each token adds up (``weapon.D``); a number of points of damage against a
    defender goes through its damage hooks (``on each damage: ignored on 5+``), as in ``removes``."""
    if defender is not None and is_count(item):
        amount = as_exact(item) if is_dist(item) else Dist.const(item)
        if not plain_ints(amount, 0):
            amount = amount.map(lambda d: max(0, num_int(unwrap(d), span)))
        item = feel_no_pain(ev, defender, amount)
    return item


def kept_form(sub: Evaluator, value: A.Expr, env: dict[str, Any], totals: LazySteps, bags: dict[str, Any]) -> A.Expr | None:
    """The form of a step that keeps its attacks as they are: ``hits each becomes …`` over a step
    that follows them, an earlier such step by name, or the branch of an ``if`` whose condition
    is settled (not random) that is one of these; else None."""
    while isinstance(value, A.IfElse):
        cond = sub.eval(value.cond, totals.env(env, value.cond, sub))
        if is_dist(cond):
            return None
        value = value.then if truth(unwrap(cond), value.cond.span) else value.otherwise
    if isinstance(value, A.Name) and value.id in bags:
        return value
    if isinstance(value, A.Each) and value.becomes and isinstance(value.count, A.Name) and value.count.id in bags:
        return value
    return None


def plan_attack(sub: Evaluator, exact_sub: Evaluator, decl: A.Attack, env: dict[str, Any],
                totals: LazySteps) -> Plan:
    """Classify the steps and work out each pipeline step's per-attack distribution."""
    planning = _Planning(sub, totals)
    bags = planning.bags
    # Unless what is used is being recorded, the tests the attackers' abilities hook are found
    # once for all the steps (each step asks whether its test is among them).
    recording = tracing()
    hooked: frozenset[str] | None = None
    for step, test_call, prev, joined in shape_of(sub, decl):
        if step.removes_from is not None:
            planning.removal(step)
            continue
        assert step.value is not None
        if test_call is not None and prev in bags:
            if hooked is None and not recording:
                hooked = hooked_tests(sub)
            planning.pipe(step, prev, advance(sub, bags[prev], test_call, env, step, joined, hooked))
            continue
        kept = kept_form(sub, step.value, env, totals, bags)
        if kept is not None:
            # ``blasted = hits each becomes weapon.blast capped at target.models``: each token
            # becomes that many, each keeping its history (later hooks still apply); a branch
            # that names an earlier step (``… else hits``) passes its attacks on as they are.
            if isinstance(kept, A.Name):
                planning.pipe(step, kept.id, bags[kept.id])
                continue
            assert isinstance(kept, A.Each) and isinstance(kept.count, A.Name)
            item_env = totals.env(env, kept, sub)
            times = becomes_amount(exact_sub, kept, exact_sub.eval(kept.item, item_env), item_env)
            planning.pipe(step, kept.count.id, multiply(bags[kept.count.id], times, step.name, kept.span))
            continue
        if isinstance(step.value, A.Each) and prev in bags and not step.value.negate:
            # Points of damage the target's damage hooks met already (an amount step, or a step
            # worked out from one) do not meet them again: each point meets each hook once.
            dealt = prev in damage_dealt(decl, sub.model.callables)
            defender_ref = None if dealt else sub.roles.get(decl.defender() or "")
            item_env = totals.env(env, step.value.item, sub)

            def amount_of(ev_: Evaluator, item_expr: A.Expr = step.value.item, span: Any = step.span) -> Any:
                found, item = read_stat(ev_, item_expr, item_env)
                return damage_amount(ev_, item if found else ev_.eval(item_expr, item_env), defender_ref, span)
            if special_tokens(bags[prev]):
                per_attack = bags[prev].bind(partial(bag_amount, exact_sub, amount_of, step.span))
            else:
                per_attack = per_attack_sum(exact_sub, sizes(exact_sub, bags[prev]), as_exact(amount_of(exact_sub)),
                                            step.span)
            if planning.amount(step, prev, per_attack):
                continue
        planning.value(step, value_step(sub, step, env, totals, False))
    return tuple(planning.entries)


def plan_plainly(sub: Evaluator, exact_sub: Evaluator, decl: A.Attack, env: dict[str, Any],
                 totals: LazySteps) -> Plan | None:
    """The plan :func:`plan_attack` makes, made by the attack's plain program (:func:`shape_of`)
    when nothing but the profiles' stats can change it: no modifier in play, no ability on the
    profiles in the attack's roles (so no hook, no damage hook, no effect naming a test), and
    what is used not being recorded.  None when the attack has no plain program or one of these
    does not hold: then :func:`plan_attack` makes it, as it does when a step follows one that
    turned out not to count attacks (its value not a whole number)."""
    program = _program(sub, decl)
    if program is None or tracing() or sub.effects.active_effects():
        return None
    with_abilities = profiles_with_abilities(sub.model)
    if with_abilities and any(ref.id in with_abilities for ref in sub.roles.values()):
        return None
    planning = _Planning(sub, totals)
    bags = planning.bags
    kept = closed_outcomes(sub.model)
    defender_ref = sub.roles.get(decl.defender() or "")
    for op in program:
        kind, step = op[0], op[1]
        if kind in ("pipe", "amount") and op[2] not in bags:
            return None  # it follows a step that turned out not to count attacks
        if kind == "pipe":
            _, _, prev, test_call, joined = op
            test, _, negate, reads, _ = test_call
            args = [_read(sub, r, env) for r in reads]
            key = None if None in args else closed_key(test, args, sub.exact)
            # What closed_step_key gives when no effect names the test and it has no hooks.
            found = None if key is None else kept.get(("step", key, negate, bags[prev]))
            if found is None:  # worked out the general way, and kept there (its arguments as read)
                found = advance(sub, bags[prev], test_call, env, step, joined, frozenset(),
                                None if key is None else args)
            planning.pipe(step, prev, found)
        elif kind == "value":
            planning.value(step, value_step(sub, step, env, totals, False))
        elif kind == "amount":
            _, _, prev, read = op
            stat = _read(exact_sub, read, env)
            if stat is None or special_tokens(bags[prev]):
                return None
            per_attack = per_attack_sum(exact_sub, sizes(exact_sub, bags[prev]),
                                        as_exact(damage_amount(exact_sub, stat, defender_ref, step.span)), step.span)
            if not planning.amount(step, prev, per_attack):
                return None
        else:
            planning.removal(step)
    return tuple(planning.entries)


def _read(ev: Evaluator, read: Read, env: dict[str, Any]) -> Any:
    """The stat of the profile bound to the role (None when the role is bound to no profile)."""
    role, stat, span = read
    ref = env.get(role)
    return stat_of(ev, ref, stat, role, span) if type(ref) is ProfileRef else None


def shape_of(ev: Evaluator, decl: A.Attack) -> tuple[StepShape, ...]:
    """Each step of ``decl`` as the plan reads it, whatever the profiles: the test it passes
    tokens through (``hits each wound(…)``), the step it follows, the steps that join it."""
    return _shapes(ev, decl)[0]


def _program(ev: Evaluator, decl: A.Attack) -> tuple[Op, ...] | None:
    return _shapes(ev, decl)[1]


def _shapes(ev: Evaluator, decl: A.Attack) -> tuple[tuple[StepShape, ...], tuple[Op, ...] | None]:
    """The steps' shapes and the attack's plain program, made once per model (immutable)."""
    shapes: dict[str, tuple[A.Attack, tuple[StepShape, ...], tuple[Op, ...] | None]] = \
        ev.model.__dict__.setdefault("_attack_shapes", {})
    known = shapes.get(decl.id)
    if known is not None and known[0] is decl:
        return known[1], known[2]
    out: list[StepShape] = []
    for step in decl.steps:
        value = step.value
        found = None if value is None else _pipeline_test(ev, value)
        test_call: TestCall | None = None
        if found is not None:
            test, call, negate = found
            test_call = (test, call, negate, stat_reads(ev, test, call), is_closed(ev.model, test))
        prev = value.count.id if isinstance(value, A.Each) and isinstance(value.count, A.Name) else None
        out.append((step, test_call, prev, joins(decl, step.name) if test_call is not None else ()))
    steps = tuple(out)
    shapes[decl.id] = (decl, steps, _plain_program(decl, steps))
    return steps, shapes[decl.id][2]


def _plain_program(decl: A.Attack, steps: tuple[StepShape, ...]) -> tuple[Op, ...] | None:
    """The attack as a plain program, when every step is a value worked out once (most often a
    number of attacks: ``shooter.models each weapon.A``), a step through a closed test whose
    arguments are stats under their own names, an amount that is a stat (``unsaved each
    weapon.D``) or a removal; else None."""
    local = {s.name for s in decl.steps} | {let.name for let in decl.lets}  # not roles
    following: set[str] = set()  # the steps that follow tokens so far
    ops: list[Op] = []
    for step, test_call, prev, joined in steps:
        value = step.value
        if step.removes_from is not None:
            ops.append(("removal", step))
            continue
        if value is None:
            return None
        if test_call is not None:
            if prev not in following or test_call[3] is None or not test_call[4]:
                return None
            ops.append(("pipe", step, prev, test_call, joined))
            following.add(step.name)
            continue
        if isinstance(value, A.Each) and prev in following:
            if value.becomes:  # each token becomes several: the general way
                return None
            read = _read_of(value.item, local)
            if value.negate or read is None:  # an amount is a stat
                return None
            ops.append(("amount", step, prev, read))
            continue
        ops.append(("value", step))  # most often a number of attacks, each then one token
        following.add(step.name)
    return tuple(ops)


def _read_of(expr: A.Expr, local: set[str]) -> Read | None:
    """``expr`` as a plain program reads it: a stat of a role by name."""
    if type(expr) is A.Attr:
        assert isinstance(expr, A.Attr)
        if type(expr.obj) is A.Name and expr.obj.id not in local:
            return (expr.obj.id, expr.name, expr.span)
    return None


def _pipeline_test(ev: Evaluator, value: A.Expr) -> tuple[A.Test, A.Call, bool] | None:
    if not isinstance(value, A.Each) or not isinstance(value.item, A.Call):
        return None
    decl = ev.model.callables.get(value.item.func)
    if isinstance(decl, A.Test):
        return decl, value.item, value.negate
    return None
