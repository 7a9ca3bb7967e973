"""How each kind of expression is evaluated: the handlers of :data:`~compiler.resolve.evaluator.EXPRESSIONS`.

Literals and names, dice, arithmetic and comparisons (lifted over distributions),
ranges, targets and chains, ``if … else``, ``k each item`` (a count of passed tests, or a
sum of random amounts), attributes of profiles and attack results, ``with`` settings and
calls.  Each handler takes the evaluator, the node and the environment; it is registered
with :func:`~compiler.resolve.evaluator.expression` for its node class.

>>> from compiler.driver import compile_text
>>> from compiler.resolve.evaluator import Evaluator, parse_expression
>>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\n').rulesets[0]
>>> Evaluator(model).evaluate(parse_expression("4 each (d6 >= 5)")).p(Pool(0, 4))
Fraction(16, 81)
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.limits import MAX_COUNT, MAX_DICE
from compiler.model.static import StaticError, as_number, int_range, is_none, profile_has, stat_number, to_target
from compiler.model.values import ProfileRef, TargetValue
from compiler.resolve.core import (AttackResult, Pool, ProfileLacks, ProfileMix, ResolveError, all_int, as_count,
                                   exact_to_fast, fast_to_exact, is_dist, natural, num, num_int, plain_ints, show, truth, unwrap)
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.evaluator import BUILTIN_CALLS, Env, Evaluator, expression


@expression(A.Int)
def eval_int(ev: Evaluator, e: A.Int, env: Env) -> Any:
    return e.value


@expression(A.Decimal)
def eval_decimal(ev: Evaluator, e: A.Decimal, env: Env) -> Any:
    return e.value


@expression(A.Inches)
def eval_inches(ev: Evaluator, e: A.Inches, env: Env) -> Any:
    return int(e.value) if e.value.denominator == 1 else e.value


@expression(A.Label)
def eval_label(ev: Evaluator, e: A.Label, env: Env) -> Any:
    return e.text


@expression(A.Const)
def eval_const(ev: Evaluator, e: A.Const, env: Env) -> Any:
    return {"true": True, "false": False, "none": None,
            "never": TargetValue.never(), "always": TargetValue.always()}[e.value]


@expression(A.Name)
def eval_name(ev: Evaluator, e: A.Name, env: Env) -> Any:
    if e.id in env:
        return env[e.id]
    if e.id in ev.situation:
        return ev.situation[e.id]
    if e.id in ev.model.profiles:
        return profile_ref(ev, e.id, 1)
    for sit in ev.model.situations.values():
        if e.id in sit.choices:
            return e.id
    raise ResolveError(f"unknown name '{e.id}'", e.span)


@expression(A.Group)
def eval_group(ev: Evaluator, e: A.Group, env: Env) -> Any:
    if e.computed is not None:
        counts = ev.eval(e.computed, env)
        counts = fast_to_exact(counts) if isinstance(counts, FastDist) else counts
        if not is_dist(counts):
            return eval_group(ev, A.Group(e.span, as_count(unwrap(counts), e.computed.span), e.profile), env)
        low = min((unwrap(c) for c in counts.outcomes()), default=0)
        if isinstance(low, (int, Fraction)) and low < 0:
            raise ResolveError(f"the number of models before '{e.profile}' can be {low} here; it cannot be negative",
                               e.computed.span, "keep it at 0 or more, e.g. (max(0, 10 - r.killed))")
        counts = counts.map(lambda c: as_count(unwrap(c), e.computed.span if e.computed else e.span))
        if max(counts.outcomes(), default=0) > MAX_COUNT:
            raise ResolveError(f"more models than warscribe will count ({MAX_COUNT:,})", e.span)
        return ProfileMix(e.profile, counts) if len(counts) > 1 else profile_ref(ev, e.profile, counts.outcomes()[0])
    if e.count > MAX_COUNT:
        raise ResolveError(f"{e.count:,} models is more than warscribe will count ({MAX_COUNT:,})", e.span)
    return profile_ref(ev, e.profile, e.count)


def profile_ref(ev: Evaluator, profile: str, models: int) -> ProfileRef:
    """``models`` models of ``profile`` as a value: one object for each, kept per model (a
    profile is immutable, and the memo's calls hold the profiles they were asked about)."""
    refs: dict[tuple[str, int], ProfileRef] = ev.model.__dict__.setdefault("_profile_refs", {})
    ref = refs.get((profile, models))
    if ref is None:
        if len(refs) > 20_000:
            refs.clear()
        ref = refs[(profile, models)] = ProfileRef(profile, models)
    return ref


@expression(A.Dice)
def eval_dice(ev: Evaluator, e: A.Dice, env: Env) -> Any:
    if e.count > MAX_DICE:
        raise ResolveError(f"{e.count:,} dice at once is more than warscribe rolls ({MAX_DICE:,})", e.span)
    die = die_dist(ev, e.name, e.sides, e.span)
    if e.count == 0:
        return 0
    if e.count == 1:
        return die
    if not all_int(die):
        raise ResolveError(f"{e.count}{e.name} adds up faces that are not numbers", e.span)
    ev.refuse_sum(e.count, die, e.span)
    return ev.check_size(die.convolve_power(e.count), e.span)


def die_dist(ev: Evaluator, name: str, sides: int, span: Any) -> Any:
    custom = ev.model.dice.get(name)
    if custom is not None:  # the model is immutable: each custom die is built once
        built: dict[str, Dist] = ev.model.__dict__.setdefault("_custom_dice", {})
        die = built.get(name)
        if die is None:
            die = built[name] = Dist.from_faces(custom.faces)
        return die
    if sides < 1 or sides > MAX_DICE:
        raise ResolveError(f"a die of {sides} sides cannot be rolled here", span)
    return Dist.die(sides)


@expression(A.Unary)
def eval_unary(ev: Evaluator, e: A.Unary, env: Env) -> Any:
    v = ev.eval(e.operand, env)
    if e.op == "not":
        return ev.lift1(v, lambda x: not truth(x, e.span))
    return ev.lift1(v, lambda x: negative(x, e.span))


def negative(x: Any, span: Any) -> Any:
    """``-x`` of a plain value (none stays none)."""
    x = unwrap(x)
    return None if x is None else -num(x, span)


@expression(A.Binary)
def eval_binary(ev: Evaluator, e: A.Binary, env: Env) -> Any:
    left = ev.eval(e.left, env)
    if e.op in ("and", "or") and not is_dist(left):
        lv = truth(left, e.left.span)
        if e.op == "and" and not lv:
            return False
        if e.op == "or" and lv:
            return True
        return ev.lift1(ev.eval(e.right, env), lambda x: truth(x, e.right.span))
    right = ev.eval(e.right, env)
    return ev.lift2(e.op, left, right, e.span)


@expression(A.RangeExpr)
def eval_range_expr(ev: Evaluator, e: A.RangeExpr, env: Env) -> Any:
    raise ResolveError("a range is not a value; use it after 'in': x in 2..3", e.span)


@expression(A.InRange)
def eval_in_range(ev: Evaluator, e: A.InRange, env: Env) -> Any:
    lo = ev.eval(e.range.low, env)
    hi = ev.eval(e.range.high, env)
    v = ev.eval(e.operand, env)
    if is_dist(lo) or is_dist(hi):
        raise ResolveError("the ends of a range must not be random", e.range.span)

    return ev.lift1(v, lambda x: inside(lo, hi, x, e.span))


def inside(lo: Any, hi: Any, x: Any, span: Any) -> bool:
    """``x in lo..hi`` of plain values (none is in no range)."""
    x = unwrap(x)
    return x is not None and as_number(lo) <= num(x, span) <= as_number(hi)


@expression(A.IsChoice)
def eval_is_choice(ev: Evaluator, e: A.IsChoice, env: Env) -> Any:
    return ev.lift1(ev.eval(e.operand, env), lambda x: unwrap(x) == e.choice)


@expression(A.IsNone)
def eval_is_none(ev: Evaluator, e: A.IsNone, env: Env) -> Any:
    return ev.lift1(ev.eval(e.operand, env), lambda x: is_none(unwrap(x)))


@expression(A.Has)
def eval_has(ev: Evaluator, e: A.Has, env: Env) -> Any:
    def has(x: Any) -> bool:
        try:
            return profile_has(ev.model, unwrap(x), e.keyword)
        except StaticError as err:
            raise ResolveError(str(err), e.span) from None
    return ev.lift1(ev.eval(e.operand, env), has)


@expression(A.Target)
def eval_target(ev: Evaluator, e: A.Target, env: Env) -> Any:
    return ev.lift1(ev.eval(e.value, env), lambda x: target_of(x, e))


def target_of(x: Any, e: A.Target) -> TargetValue:
    """The target ``e`` makes of the plain value ``x`` (``4+`` of 4; none never passes)."""
    x = unwrap(x)
    if x is None:
        return TargetValue.never()
    try:
        return to_target(x, e.direction)
    except StaticError as err:
        raise ResolveError(str(err), e.span) from None


@expression(A.Chain)
def eval_chain(ev: Evaluator, e: A.Chain, env: Env) -> Any:
    return chain_of(ev.eval(e.first, env), ev.eval(e.then, env), e)


def chain_of(first: Any, then: Any, e: A.Chain) -> TargetValue:
    """The chained target ``first then then`` (``6 then 4+``) of two fixed values."""
    if is_dist(first) or is_dist(then):
        raise ResolveError("a chained target must not be random", e.span)
    if not isinstance(first, TargetValue):
        first = TargetValue.exactly(int(num(first, e.first.span)))
    if not isinstance(then, TargetValue):
        then = TargetValue.exactly(int(num(then, e.then.span)))
    return TargetValue.chain(first, then)


@expression(A.IfElse)
def eval_if_else(ev: Evaluator, e: A.IfElse, env: Env) -> Any:
    cond = ev.eval(e.cond, env)
    if not is_dist(cond):
        return ev.eval(e.then if truth(cond, e.cond.span) else e.otherwise, env)
    branches: dict[bool, Any] = {}

    def pick(c: Any) -> Any:
        key = truth(c, e.cond.span)
        if key not in branches:
            branches[key] = ev.eval(e.then if key else e.otherwise, env)
        value = branches[key]
        if is_dist(value) and isinstance(value, FastDist):
            return fast_to_exact(value)
        return value
    return ev.check_size(ev.to_backend(cond.bind(pick)), e.span)


@expression(A.Each)
def eval_each(ev: Evaluator, e: A.Each, env: Env) -> Any:
    count = ev.eval(e.count, env)
    if isinstance(count, AttackResult):
        raise ResolveError("count the steps of an attack by name, e.g. r.hits", e.count.span)
    count = ev.lift1(count, lambda c: as_count(unwrap(c), e.count.span))
    item = ev.eval(e.item, env)
    if e.becomes:  # as many as each one becomes, added up
        item = becomes_amount(ev, e, item, env)
    return each(ev, count, item, e.negate, e.span)


def becomes_amount(ev: Evaluator, e: A.Each, item: Any, env: Env) -> Any:
    """How many one of the count becomes (``each becomes weapon.blast capped at target.models``):
    a whole number of 0 or more, no more than the cap."""
    cap = ev.eval(e.cap, env) if e.cap is not None else None
    if is_dist(cap):
        raise ResolveError("a cap on what each one becomes must not be random", e.cap.span if e.cap else e.span)
    limit = None if cap is None else as_count(unwrap(cap), e.cap.span if e.cap else e.span)
    span = e.item.span

    def one(v: Any) -> int:
        n = as_count(unwrap(v), span)
        return n if limit is None else min(n, limit)
    return ev.lift1(item, one)


def each(ev: Evaluator, count: Any, item: Any, negate: bool, span: Any) -> Any:
    """``count each item``: successes among tests, or the sum of amounts."""
    if not is_dist(item):
        v = unwrap(item)
        if isinstance(v, bool):
            hit = v != negate
            if is_dist(count):
                return count.map(lambda n: Pool(n, 0) if hit else Pool(0, n))
            return Pool(count, 0) if hit else Pool(0, count)
        return ev.lift2("*", count, v, span)
    outcomes = [unwrap(o) for o in item.outcomes()]
    if all(isinstance(o, bool) for o in outcomes):
        p = item.p_where(lambda o: unwrap(o) is True)
        if negate:
            p = 1 - p
        return pool(ev, count, p, span)
    if negate:
        raise ResolveError("'each not' counts failed tests; this is not a test", span)
    amounts = item if plain_ints(item) else item.map(lambda o: num_int(unwrap(o), span))
    amounts = ev.to_backend(amounts)
    if is_dist(count):
        ev.refuse_sum(max(int(unwrap(c)) for c in count.outcomes()), amounts, span)
        count = ev.to_backend(count)
        amounts, count = ev.same_backend(amounts, count)
        return ev.check_size(amounts.sum_of_random(count), span)
    ev.refuse_sum(count, amounts, span)
    return ev.check_size(amounts.convolve_power(count), span)


def pool(ev: Evaluator, count: Any, p: Any, span: Any) -> Any:
    small = is_dist(count) or count <= 200
    if not ev.exact and not small:
        p_f = float(p)
        if is_dist(count):
            c = ev.to_backend(count)
            if isinstance(c, Dist):
                c = exact_to_fast(c)
            return c.bind(lambda n: FastDist.binomial(int(n), p_f) if n else 0)
        return FastDist.binomial(int(count), p_f)
    p = Fraction(p) if not isinstance(p, float) else Fraction(p).limit_denominator(10**15)
    if is_dist(count):
        if isinstance(count, FastDist):
            count = fast_to_exact(count)

        def pools(n: int) -> Dist:
            return Dist.binomial(n, p).map(lambda s: Pool(s, n - s))
        return count.bind(pools)
    return Dist.binomial(count, p).map(lambda s: Pool(s, count - s))


@expression(A.Attr)
def eval_attr(ev: Evaluator, e: A.Attr, env: Env) -> Any:
    if type(e.obj) is A.Name:
        ref = env.get(e.obj.id)
        if type(ref) is ProfileRef:  # a profile bound by name (``shooter.BS``): what eval would find
            return stat_of(ev, ref, e.name, e.obj.id, e.span)
    obj = ev.eval(e.obj, env)
    role = e.obj.id if isinstance(e.obj, A.Name) else None
    return attr(ev, obj, e.name, role, e.span)


def attr(ev: Evaluator, obj: Any, name: str, role: str | None, span: Any) -> Any:
    if isinstance(obj, AttackResult):
        if name not in obj.steps:
            raise ResolveError(f"attack '{obj.attack}' has no step '{name}'", span,
                               "its steps are: " + ", ".join(obj.steps))
        return obj.steps[name]
    if isinstance(obj, ProfileRef):
        return stat_of(ev, obj, name, role, span)
    if isinstance(obj, ProfileMix):
        return ev.to_backend(obj.counts) if name == "models" else stat_of(ev, ProfileRef(obj.id), name, role, span)
    if name in ("successes", "failures"):
        def part(o: Any) -> Any:
            if isinstance(o, Pool):
                return o.successes if name == "successes" else o.failures
            raise ResolveError(f"'.{name}' belongs to a count of tests (k each test(…))", span)
        return ev.lift1(obj, part)
    if name == "natural":
        return ev.lift1(obj, lambda o: natural(o, span))
    raise ResolveError(f"{show(obj)} has no '{name}'", span)


def stat_of(ev: Evaluator, ref: ProfileRef, name: str, role: str | None, span: Any) -> Any:
    if name == "models":
        return ref.models
    # A stat written as a plain number, a target or dice (``D3+1``) is the profile's alone: read
    # once per model.
    written: dict[tuple[str, str], Any] = ev.model.__dict__.setdefault("_plain_stats", {})
    value = written.get((ref.id, name), written)
    if value is written:
        profile = ev.model.profiles.get(ref.id)
        if profile is None:
            raise ResolveError(f"unknown profile '{ref.id}'", span)
        if name == "points":
            return profile.points
        sv = profile.stat(name)
        if sv is None:
            ability = ev.model.get(name)
            if isinstance(ability, A.Ability) and ability.params:
                return ability_value(ability, profile)
            raise ProfileLacks(f"{profile.title} has no {name}", span,
                               f"add {name} to its profile line")
        value = _written_stat(ev, sv, span)
        if type(value) is int or type(value) is TargetValue or type(value) is Dist:
            written[(ref.id, name)] = value
    effects = ev.effects
    kinds = effects.kinds()  # a kind of effect that does not apply adds nothing: not looked for
    if "stat" in kinds:
        delta = effects.stat_modifier(name, role)
        if delta and value is not None:
            value = ev.add_to_stat(value, delta, name, span)
    if "better" in kinds or "worse" in kinds:
        better = effects.stat_improvement(name, role)
        if better and value is not None:
            value = ev.improve_stat(value, better, name, span)
    return value


def _written_stat(ev: Evaluator, sv: A.StatValue, span: Any) -> Any:
    """A profile's stat as written, before the modifiers of the situation."""
    if sv.kind == "dice":
        assert sv.dice is not None
        value: Any = eval_dice(ev, sv.dice, {})
        if sv.dice_bonus:
            value = ev.lift2("+", value, sv.dice_bonus, span)
    elif sv.kind == "high":
        value = TargetValue.high(int(stat_number(sv)))
    elif sv.kind == "low":
        value = TargetValue.low(int(stat_number(sv)))
    elif sv.kind == "none":
        value = None
    elif sv.kind == "inches":
        inches = stat_number(sv)
        value = int(inches) if Fraction(inches).denominator == 1 else inches
    else:
        value = sv.value
    return value


def ability_value(ability: A.Ability, profile: A.Profile) -> Any:
    """The value a profile gives an ability (``blast(3)`` → 3), or none when it lacks it; listed
    twice, the values add up under ``stacking sum`` and the highest counts otherwise."""
    values = [use.arg for use in profile.abilities if use.ability == ability.id and use.arg is not None]
    if not values:
        return None
    return sum(values) if ability.stacking == "sum" else max(values)


@expression(A.With)
def eval_with(ev: Evaluator, e: A.With, env: Env) -> Any:
    settings: dict[str, Any] = {}
    for s in e.settings:
        sit = ev.model.situations.get(s.name)
        if sit is None:
            raise ResolveError(f"unknown situation '{s.name}'", s.span)
        if s.value is None:
            settings[s.name] = not s.negated
        elif isinstance(s.value, A.Name) and s.value.id in sit.choices:
            settings[s.name] = s.value.id
        else:
            v = ev.eval(s.value, env)
            if is_dist(v):
                raise ResolveError("a situation is set to a fixed value, not a roll", s.span)
            ends = int_range(sit.range) if sit.range is not None else None
            if ends and isinstance(v, (int, Fraction)) and not isinstance(v, bool) and not ends[0] <= v <= ends[1]:
                raise ResolveError(f"situation '{sit.id}' is {v}, outside its range {ends[0]}..{ends[1]}", s.span,
                                   f"give '{sit.id}' a value from {ends[0]} to {ends[1]}")
            settings[s.name] = v
    return ev.child(settings).eval(e.expr, env)


@expression(A.Call)
def eval_call(ev: Evaluator, e: A.Call, env: Env) -> Any:
    builtin = BUILTIN_CALLS.get(e.func)
    decl = ev.model.callables.get(e.func)
    if decl is None and builtin is not None:
        return builtin(ev, e, env)
    if decl is None:
        raise ResolveError(f"unknown test, table or formula '{e.func}'", e.func_span)
    return ev.apply(decl, ev.call_args(decl, e, env), e.span)
