"""Stage 4: the resolver — what the rules model means, as exact distributions.

:class:`Evaluator` turns any expression of a ruleset into a value: a plain
value (a number, yes/no, a target such as ``4+``, a label) or a distribution
over such values (:mod:`compiler.resolve.dist`).  Every die written is an independent
roll; a name bound with ``let`` is *one* roll wherever it is used (the
evaluator enumerates the joint outcomes of the ``let`` variables an
expression mentions).  Tests keep their natural roll, so abilities and
``natural(…)`` can read it.

Exact mode (the default) uses :class:`~compiler.resolve.dist.Dist` (Fractions); fast
mode aggregates with :class:`~compiler.resolve.dist.FastDist` (float64).

>>> from compiler.driver import compile_text
>>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\ntest hit(BS) = roll d6 >= BS, natural 1 fails\\n').rulesets[0]
>>> Evaluator(model).probability_of(parse_expression("hit(4)"))
Fraction(1, 2)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

from compiler import ast as A
from compiler.resolve.dist import Dist, FastDist
from compiler.limits import (MAX_CALL_DEPTH, MAX_COUNT, MAX_DICE, MAX_EXACT_BITS, MAX_EXPLODE, MAX_KEEP, MAX_OUTCOMES,
                     MAX_PAIRS, sum_outcomes)
from compiler.model.ruleset import Ruleset
from compiler.model.static import NotStatic, StaticError, as_number, int_range, to_target
from compiler.model.static import binary as static_binary
from compiler.model.static import evaluate as static_evaluate
from compiler.model.values import ProfileRef, TargetValue

AGGREGATES = {"P", "mean"}  # built-ins that read a whole distribution
MAX_BRANCHES = MAX_PAIRS // 10  # random values a definition is worked out for, one by one
DEFAULT_EXPLODE_DEPTH = 10


class ResolveError(Exception):
    """A question the resolver cannot answer, located in the rules."""

    def __init__(self, message: str, span: A.Span | None = None, hint: str | None = None) -> None:  # type: ignore[name-defined]
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint


# ---------------------------------------------------------------------------
# Outcomes that carry more than a number
# ---------------------------------------------------------------------------


@dataclass(frozen=True, order=True, slots=True)
class Roll:
    """The outcome of a test: passed or not, and the natural roll (the dice total)."""

    success: bool
    natural: int

    def __str__(self) -> str:
        return f"{'pass' if self.success else 'fail'} ({self.natural})"


@dataclass(frozen=True, order=True, slots=True)
class Face:
    """A custom die's value and the natural face of the die it is rolled on."""

    value: Any
    natural: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, order=True, slots=True)
class Pool:
    """``k each test``: how many passed and how many failed."""

    successes: int
    failures: int

    def __str__(self) -> str:
        return str(self.successes)


@dataclass(frozen=True)
class AttackResult:
    """The steps of a resolved attack sequence, each a distribution of counts."""

    attack: str
    steps: Mapping[str, Any]
    truncated: Fraction = Fraction(0)

    def __hash__(self) -> int:
        return hash((self.attack, tuple(self.steps)))


@dataclass(frozen=True)
class LetVar:
    """A name bound with ``let`` to something random: one roll, enumerated where used."""

    name: str
    expr: A.Expr
    cached: Any = None  # the distribution, when it depends on no other let variable


def unwrap(v: Any) -> Any:
    """The plain value of an outcome: a test's pass/fail, a custom die's value, a pool's count."""
    if isinstance(v, Roll):
        return v.success
    if isinstance(v, Face):
        return v.value
    if isinstance(v, Pool):
        return v.successes
    return v


def is_dist(v: Any) -> bool:
    return isinstance(v, (Dist, FastDist))


def truth(v: Any, span: Any = None) -> bool:
    v = unwrap(v)
    if isinstance(v, bool):
        return v
    if v is None:
        return False
    raise ResolveError(f"{show(v)} is not a yes/no value", span)


def show(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if v is None:
        return "none"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def _all_int(d: Any) -> bool:
    return all(isinstance(o, (int, bool)) for o in d.outcomes())


# ---------------------------------------------------------------------------
# The evaluator
# ---------------------------------------------------------------------------


def situation_defaults(model: Ruleset) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for sit in model.situations.values():
        if sit.choices:
            out[sit.id] = sit.choices[0]
        elif sit.range is not None:
            ends = int_range(sit.range)
            out[sit.id] = ends[0] if ends else 0
        else:
            out[sit.id] = False
    return out


class Evaluator:
    """Evaluates expressions of one ruleset under one situation."""

    def __init__(self, model: Ruleset, exact: bool = True, situation: Mapping[str, Any] | None = None,
                 attackers: tuple[ProfileRef, ...] = (), depth: int = 0,
                 roles: Mapping[str, ProfileRef] | None = None) -> None:
        self.model = model
        self.roles = dict(roles or {})  # inside an attack: its parameters bound to profiles
        self.exact = exact
        defaults = model.__dict__.get("_situation_defaults")
        if defaults is None:
            defaults = model.__dict__.setdefault("_situation_defaults", situation_defaults(model))
        base = dict(defaults)
        if situation:
            base.update(situation)
        self.situation = base
        self.attackers = attackers  # profiles whose abilities apply (inside an attack)
        self.depth = depth
        self._test_cache: dict[Any, Any] = {}
        self._effects: list[tuple[A.Effect, str | None, str]] | None = None
        self._memo_key: tuple[Any, ...] | None = None
        self._abilities: list[tuple[A.Ability, Any]] | None = None
        self._names_cache: dict[int, tuple[str, ...]] = {}

    # -- construction helpers ------------------------------------------------

    def child(self, situation: Mapping[str, Any] | None = None,
              attackers: tuple[ProfileRef, ...] | None = None,
              roles: Mapping[str, ProfileRef] | None = None) -> "Evaluator":
        merged = dict(self.situation)
        if situation:
            merged.update(situation)
        return Evaluator(self.model, self.exact, merged,
                         self.attackers if attackers is None else attackers, self.depth + 1,
                         self.roles if roles is None else roles)

    def const(self, v: Any) -> Any:
        return Dist.const(v)

    def to_backend(self, d: Any) -> Any:
        """In fast mode, move an integer distribution to the float backend."""
        if self.exact or isinstance(d, FastDist) or not is_dist(d):
            return d
        if _all_int(d):
            return d.map(int).to_fast() if any(isinstance(o, bool) for o in d.outcomes()) else d.to_fast()
        return d

    @staticmethod
    def _refuse_sum(count: int, amounts: Any, span: Any) -> None:
        """Refuse, before working it out, a sum of ``count`` rolls that would have too many totals."""
        values = [o for o in amounts.outcomes() if isinstance(o, (int, Fraction))]
        if count <= 1 or not values:
            return
        totals = sum_outcomes(count, min(values), max(values))
        if totals > MAX_OUTCOMES:
            raise ResolveError(f"this sum can reach {totals:,} totals; the limit is {MAX_OUTCOMES:,}", span,
                               "ask a smaller question, or split it")
        denominator = getattr(amounts, "_denom", None)
        if isinstance(denominator, int) and totals * count * denominator.bit_length() > MAX_EXACT_BITS:
            raise ResolveError(f"the exact chances of this sum are too large to work out ({totals:,} totals of "
                               f"{count:,} rolls)", span, "roll fewer dice, or use --fast (floating point)")

    def _check_size(self, d: Any, span: Any) -> Any:
        if is_dist(d) and len(d) > MAX_OUTCOMES:
            raise ResolveError(f"this has {len(d):,} possible results; the limit is {MAX_OUTCOMES:,}", span,
                               "ask a smaller question, or split it")
        return d

    # -- entry points ----------------------------------------------------------

    def evaluate(self, expr: A.Expr, env: Mapping[str, Any] | None = None) -> Any:
        return self.eval(expr, dict(env or {}))

    def probability_of(self, expr: A.Expr, env: Mapping[str, Any] | None = None) -> Any:
        return self.probability(self.evaluate(expr, env), expr.span)

    def probability(self, v: Any, span: Any = None) -> Any:
        if is_dist(v):
            bad = [o for o in v.outcomes() if not isinstance(unwrap(o), bool) and unwrap(o) is not None]
            if bad:
                raise ResolveError(f"P(…) needs a yes/no condition, but this can be {show(bad[0])}", span,
                                   "compare it: P(x >= 2)")
            return v.p_where(lambda o: unwrap(o) is True)
        return Fraction(1) if truth(v, span) else Fraction(0)

    def mean(self, v: Any, span: Any = None) -> Any:
        if is_dist(v):
            nums = v.map(lambda o: _mean_value(unwrap(o), span))
            return nums.mean()
        return _mean_value(unwrap(v), span)

    # -- let variables -------------------------------------------------------

    def bind_let(self, let: A.Let, env: dict[str, Any]) -> None:
        """Bind ``let name = expr``: a plain value directly, a random one as one roll."""
        value_expr = let.value
        settings = None
        if isinstance(value_expr, A.With):
            settings = value_expr
        value = self.eval(value_expr, env)
        if is_dist(value):
            depends = bool(self._let_vars(value_expr, env))
            if isinstance(value_expr, A.Dice) and value_expr.count == 1 and value_expr.name in self.model.dice:
                value = self._custom_die_faces(value_expr)
            env[let.name] = LetVar(let.name, value_expr, None if depends else value)
        else:
            env[let.name] = value
        del settings

    def _names(self, expr: A.Expr) -> tuple[str, ...]:
        """Free names of ``expr``, not looking inside P(…) and mean(…), which see the whole roll."""
        key = id(expr)
        if key not in self._names_cache:
            names: list[str] = []

            def visit(e: A.Expr) -> None:
                if isinstance(e, A.Name):
                    names.append(e.id)
                    return
                if isinstance(e, A.Call) and e.func in AGGREGATES and e.func not in self.model.callables:
                    return
                for child in A._children(e):
                    visit(child)
            visit(expr)
            self._names_cache[key] = tuple(dict.fromkeys(names))
        return self._names_cache[key]

    def _let_vars(self, expr: A.Expr, env: Mapping[str, Any]) -> list[str]:
        order: list[str] = []

        def visit(e: A.Expr) -> None:
            for n in self._names(e):
                v = env.get(n)
                if isinstance(v, LetVar) and n not in order:
                    if v.cached is None:
                        visit(v.expr)
                    order.append(n)
        visit(expr)
        return order

    def _enumerate(self, names: list[str], expr: A.Expr, env: dict[str, Any]) -> Any:
        if not names:
            return self.eval(expr, env)
        name, rest = names[0], names[1:]
        var: LetVar = env[name]
        dist = var.cached if var.cached is not None else self.eval(var.expr, env)
        if isinstance(var.expr, A.Dice) and var.cached is None and var.expr.name in self.model.dice:
            dist = self._custom_die_faces(var.expr)
        if not is_dist(dist):
            return self._enumerate(rest, expr, {**env, name: dist})
        branches = len(dist)  # type: ignore[arg-type]
        for other in rest:
            cached = getattr(env.get(other), "cached", None)
            branches *= len(cached) if is_dist(cached) else 1
        if branches > MAX_BRANCHES:
            raise ResolveError(f"this is worked out for {branches:,} combinations of rolls; the limit is "
                               f"{MAX_BRANCHES:,}", expr.span, "ask a smaller question, or split it")
        result = dist.bind(lambda o: self._enumerate(rest, expr, {**env, name: o}))
        return self._check_size(result, expr.span)

    # -- expressions -----------------------------------------------------------

    def eval(self, expr: A.Expr, env: dict[str, Any]) -> Any:
        if self.depth > MAX_CALL_DEPTH:
            raise ResolveError(f"definitions call each other more than {MAX_CALL_DEPTH} deep (a cycle?)", expr.span)
        if self.depth == 0:  # the outermost evaluator turns a stack overflow into a diagnostic
            try:
                return self._eval(expr, env)
            except RecursionError:
                raise ResolveError("this nests too deeply to work out", expr.span) from None
        return self._eval(expr, env)

    def _eval(self, expr: A.Expr, env: dict[str, Any]) -> Any:
        pending = self._let_vars(expr, env) if env and any(type(v) is LetVar for v in env.values()) else []
        if pending:
            return self._enumerate(pending, expr, env)
        method = getattr(self, "eval_" + type(expr).__name__, None)
        if method is None:
            raise ResolveError(f"cannot evaluate a {type(expr).__name__} here", expr.span)
        return method(expr, env)

    def eval_Int(self, e: A.Int, env: dict[str, Any]) -> Any:
        return e.value

    def eval_Decimal(self, e: A.Decimal, env: dict[str, Any]) -> Any:
        return e.value

    def eval_Inches(self, e: A.Inches, env: dict[str, Any]) -> Any:
        return int(e.value) if e.value.denominator == 1 else e.value

    def eval_Label(self, e: A.Label, env: dict[str, Any]) -> Any:
        return e.text

    def eval_Const(self, e: A.Const, env: dict[str, Any]) -> Any:
        return {"true": True, "false": False, "none": None,
                "never": TargetValue.never(), "always": TargetValue.always()}[e.value]

    def eval_Name(self, e: A.Name, env: dict[str, Any]) -> Any:
        if e.id in env:
            return env[e.id]
        if e.id in self.situation:
            return self.situation[e.id]
        if e.id in self.model.profiles:
            return ProfileRef(e.id)
        for sit in self.model.situations.values():
            if e.id in sit.choices:
                return e.id
        raise ResolveError(f"unknown name '{e.id}'", e.span)

    def eval_Group(self, e: A.Group, env: dict[str, Any]) -> Any:
        if e.count > MAX_COUNT:
            raise ResolveError(f"{e.count:,} models is more than warscribe will count ({MAX_COUNT:,})", e.span)
        return ProfileRef(e.profile, e.count)

    def eval_Dice(self, e: A.Dice, env: dict[str, Any]) -> Any:
        if e.count > MAX_DICE:
            raise ResolveError(f"{e.count:,} dice at once is more than warscribe rolls ({MAX_DICE:,})", e.span)
        die = self.die_dist(e.name, e.sides, e.span)
        if e.count == 0:
            return 0
        if e.count == 1:
            return die
        if not _all_int(die):
            raise ResolveError(f"{e.count}{e.name} adds up faces that are not numbers", e.span)
        self._refuse_sum(e.count, die, e.span)
        return self._check_size(die.convolve_power(e.count), e.span)

    def die_dist(self, name: str, sides: int, span: Any) -> Any:
        custom = self.model.dice.get(name)
        if custom is not None:
            return Dist.from_faces(custom.faces)
        if sides < 1 or sides > MAX_DICE:
            raise ResolveError(f"a die of {sides} sides cannot be rolled here", span)
        return Dist.die(sides)

    def _custom_die_faces(self, e: A.Dice) -> Any:
        custom = self.model.dice[e.name]
        return Dist.from_faces(Face(v, i) for i, v in enumerate(custom.faces, 1))

    def eval_Unary(self, e: A.Unary, env: dict[str, Any]) -> Any:
        v = self.eval(e.operand, env)
        if e.op == "not":
            return self.lift1(v, lambda x: not truth(x, e.span))
        return self.lift1(v, lambda x: None if unwrap(x) is None else -_num(unwrap(x), e.span))

    def eval_Binary(self, e: A.Binary, env: dict[str, Any]) -> Any:
        left = self.eval(e.left, env)
        if e.op in ("and", "or") and not is_dist(left):
            lv = truth(left, e.left.span)
            if e.op == "and" and not lv:
                return False
            if e.op == "or" and lv:
                return True
            return self.lift1(self.eval(e.right, env), lambda x: truth(x, e.right.span))
        right = self.eval(e.right, env)
        return self.lift2(e.op, left, right, e.span)

    def lift1(self, v: Any, fn: Callable[[Any], Any]) -> Any:
        if is_dist(v):
            return v.map(fn)
        return fn(v)

    def lift2(self, op: str, a: Any, b: Any, span: Any) -> Any:
        fn = _binary_fn(op, span)
        if not is_dist(a) and not is_dist(b):
            return fn(a, b)
        a, b = self._same_backend(a, b)
        fast_ok = op in ("+", "-", "*", ">=", "<=", ">", "<", "==", "!=") and \
            (not is_dist(a) or _all_int(a)) and (not is_dist(b) or _all_int(b)) and \
            not isinstance(a, (Fraction, TargetValue)) and not isinstance(b, (Fraction, TargetValue)) and \
            a is not None and b is not None
        if is_dist(a) and is_dist(b) and len(a) * len(b) > MAX_PAIRS and not _dense_sum(op, a, b):
            raise ResolveError(f"this combines {len(a):,} × {len(b):,} possible results; the limit is "
                               f"{MAX_PAIRS:,} pairs", span, "ask a smaller question, or split it")
        if is_dist(a):
            result = a.binary(op if fast_ok else fn, b)
        else:
            result = b.map(lambda y: fn(a, y))
        return self._check_size(result, span)

    def _same_backend(self, a: Any, b: Any) -> tuple[Any, Any]:
        if isinstance(a, FastDist) and isinstance(b, Dist):
            b = b.to_fast() if _all_int(b) else b
        elif isinstance(b, FastDist) and isinstance(a, Dist):
            a = a.to_fast() if _all_int(a) else a
        if isinstance(a, FastDist) and isinstance(b, Dist):
            a = _fast_to_exact(a)
        if isinstance(b, FastDist) and isinstance(a, Dist):
            b = _fast_to_exact(b)
        return a, b

    def eval_RangeExpr(self, e: A.RangeExpr, env: dict[str, Any]) -> Any:
        raise ResolveError("a range is not a value; use it after 'in': x in 2..3", e.span)

    def eval_InRange(self, e: A.InRange, env: dict[str, Any]) -> Any:
        lo = self.eval(e.range.low, env)
        hi = self.eval(e.range.high, env)
        v = self.eval(e.operand, env)
        if is_dist(lo) or is_dist(hi):
            raise ResolveError("the ends of a range must not be random", e.range.span)

        def inside(x: Any) -> bool:
            x = unwrap(x)
            return x is not None and as_number(lo) <= _num(x, e.span) <= as_number(hi)
        return self.lift1(v, inside)

    def eval_IsChoice(self, e: A.IsChoice, env: dict[str, Any]) -> Any:
        return self.lift1(self.eval(e.operand, env), lambda x: unwrap(x) == e.choice)

    def eval_IsNone(self, e: A.IsNone, env: dict[str, Any]) -> Any:
        return self.lift1(self.eval(e.operand, env), lambda x: unwrap(x) is None)

    def eval_Has(self, e: A.Has, env: dict[str, Any]) -> Any:
        from compiler.model.static import profile_has

        def has(x: Any) -> bool:
            try:
                return profile_has(self.model, unwrap(x), e.keyword)
            except StaticError as err:
                raise ResolveError(str(err), e.span) from None
        return self.lift1(self.eval(e.operand, env), has)

    def eval_Target(self, e: A.Target, env: dict[str, Any]) -> Any:
        def make(x: Any) -> Any:
            x = unwrap(x)
            if x is None:
                return TargetValue.never()
            try:
                return to_target(x, e.direction)
            except StaticError as err:
                raise ResolveError(str(err), e.span) from None
        return self.lift1(self.eval(e.value, env), make)

    def eval_Chain(self, e: A.Chain, env: dict[str, Any]) -> Any:
        first, then = self.eval(e.first, env), self.eval(e.then, env)
        if is_dist(first) or is_dist(then):
            raise ResolveError("a chained target must not be random", e.span)
        if not isinstance(first, TargetValue):
            first = TargetValue.exactly(int(_num(first, e.first.span)))
        if not isinstance(then, TargetValue):
            then = TargetValue.exactly(int(_num(then, e.then.span)))
        return TargetValue.chain(first, then)

    def eval_IfElse(self, e: A.IfElse, env: dict[str, Any]) -> Any:
        cond = self.eval(e.cond, env)
        if not is_dist(cond):
            return self.eval(e.then if truth(cond, e.cond.span) else e.otherwise, env)
        branches: dict[bool, Any] = {}

        def pick(c: Any) -> Any:
            key = truth(c, e.cond.span)
            if key not in branches:
                branches[key] = self.eval(e.then if key else e.otherwise, env)
            value = branches[key]
            if is_dist(value) and isinstance(value, FastDist):
                return _fast_to_exact(value)
            return value
        return self._check_size(self.to_backend(cond.bind(pick)), e.span)

    def eval_Each(self, e: A.Each, env: dict[str, Any]) -> Any:
        count = self.eval(e.count, env)
        if isinstance(count, AttackResult):
            raise ResolveError("count the steps of an attack by name, e.g. r.hits", e.count.span)
        count = self.lift1(count, lambda c: _count(unwrap(c), e.count.span))
        item = self.eval(e.item, env)
        return self.each(count, item, e.negate, e.span)

    def each(self, count: Any, item: Any, negate: bool, span: Any) -> Any:
        """``count each item``: successes among tests, or the sum of amounts."""
        if not is_dist(item):
            v = unwrap(item)
            if isinstance(v, bool):
                hit = v != negate
                if is_dist(count):
                    return count.map(lambda n: Pool(n, 0) if hit else Pool(0, n))
                return Pool(count, 0) if hit else Pool(0, count)
            return self.lift2("*", count, v, span)
        outcomes = [unwrap(o) for o in item.outcomes()]
        if all(isinstance(o, bool) for o in outcomes):
            p = item.p_where(lambda o: unwrap(o) is True)
            if negate:
                p = 1 - p
            return self._pool(count, p, span)
        if negate:
            raise ResolveError("'each not' counts failed tests; this is not a test", span)
        amounts = item.map(lambda o: _num_int(unwrap(o), span))
        amounts = self.to_backend(amounts)
        if is_dist(count):
            self._refuse_sum(max(int(unwrap(c)) for c in count.outcomes()), amounts, span)
            count = self.to_backend(count)
            amounts, count = self._same_backend(amounts, count)
            return self._check_size(amounts.sum_of_random(count), span)
        self._refuse_sum(count, amounts, span)
        return self._check_size(amounts.convolve_power(count), span)

    def _pool(self, count: Any, p: Any, span: Any) -> Any:
        small = is_dist(count) or count <= 200
        if not self.exact and not small:
            p_f = float(p)
            if is_dist(count):
                c = self.to_backend(count)
                if isinstance(c, Dist):
                    c = _exact_to_fast(c)
                return c.bind(lambda n: FastDist.binomial(int(n), p_f) if n else 0)
            return FastDist.binomial(int(count), p_f)
        p = Fraction(p) if not isinstance(p, float) else Fraction(p).limit_denominator(10**15)
        if is_dist(count):
            if isinstance(count, FastDist):
                count = _fast_to_exact(count)
            return count.bind(lambda n: Dist.binomial(n, p).map(lambda s, n=n: Pool(s, n - s)))
        return Dist.binomial(count, p).map(lambda s: Pool(s, count - s))

    def eval_Attr(self, e: A.Attr, env: dict[str, Any]) -> Any:
        obj = self.eval(e.obj, env)
        role = e.obj.id if isinstance(e.obj, A.Name) else None
        return self.attr(obj, e.name, role, e.span)

    def attr(self, obj: Any, name: str, role: str | None, span: Any) -> Any:
        if isinstance(obj, AttackResult):
            if name not in obj.steps:
                raise ResolveError(f"attack '{obj.attack}' has no step '{name}'", span,
                                   "its steps are: " + ", ".join(obj.steps))
            return obj.steps[name]
        if isinstance(obj, ProfileRef):
            return self.stat_of(obj, name, role, span)
        if name in ("successes", "failures"):
            def part(o: Any) -> Any:
                if isinstance(o, Pool):
                    return o.successes if name == "successes" else o.failures
                raise ResolveError(f"'.{name}' belongs to a count of tests (k each test(…))", span)
            return self.lift1(obj, part)
        if name == "natural":
            return self.lift1(obj, lambda o: _natural(o, span))
        raise ResolveError(f"{show(obj)} has no '{name}'", span)

    def stat_of(self, ref: ProfileRef, name: str, role: str | None, span: Any) -> Any:
        if name == "models":
            return ref.models
        profile = self.model.profiles.get(ref.id)
        if profile is None:
            raise ResolveError(f"unknown profile '{ref.id}'", span)
        if name == "points":
            return profile.points
        sv = profile.stat(name)
        if sv is None:
            raise ResolveError(f"{profile.title} has no {name}", span,
                               f"add {name} to its profile line, or '{name} -' for none")
        if sv.kind == "dice":
            assert sv.dice is not None
            value: Any = self.eval_Dice(sv.dice, {})
            if sv.dice_bonus:
                value = self.lift2("+", value, sv.dice_bonus, span)
        elif sv.kind == "high":
            value = TargetValue.high(int(sv.value))  # type: ignore[arg-type]
        elif sv.kind == "low":
            value = TargetValue.low(int(sv.value))  # type: ignore[arg-type]
        elif sv.kind == "none":
            value = None
        elif sv.kind == "inches":
            value = int(sv.value) if Fraction(sv.value).denominator == 1 else sv.value  # type: ignore[arg-type]
        else:
            value = sv.value
        delta = self.stat_modifier(name, role)
        if delta and value is not None:
            value = self._add_to_stat(value, delta, name, span)
        return value

    def _add_to_stat(self, value: Any, delta: Any, name: str, span: Any) -> Any:
        stat = self.model.stats.get(name)
        lo = hi = None
        if stat is not None and isinstance(stat.type, A.RangeExpr) and stat.clamped:
            lo, hi = int_range(stat.type) or (None, None)

        def add(x: Any) -> Any:
            x = unwrap(x)
            if isinstance(x, TargetValue):
                return TargetValue(x.kind, (x.number or 0) + delta) if x.as_number is not None else x
            y = x + delta
            if lo is not None and y < lo:
                y = lo
            if hi is not None and y > hi:
                y = hi
            return y
        return self.lift1(value, add)

    # -- modifiers -----------------------------------------------------------------

    def active_effects(self) -> list[tuple[A.Effect, str | None, str]]:
        """Effects that apply now: (effect, group, source id)."""
        if self._effects is None:
            self._effects = self._find_effects()
        return self._effects

    def _find_effects(self) -> list[tuple[A.Effect, str | None, str]]:
        out: list[tuple[A.Effect, str | None, str]] = []
        for m in self.model.of_type(A.Modifier):
            if m.when is None or self._holds(m.when):
                out.extend((e, m.group, m.id) for e in m.effects)
        for ability, arg in self.attacker_abilities():
            if ability.when is None or self._holds(ability.when, ability, arg):
                out.extend((e, None, ability.id) for e in ability.effects)
        return out

    def _holds(self, cond: A.Expr, ability: A.Ability | None = None, arg: Any = None) -> bool:
        env: dict[str, Any] = {**self.situation, **self.roles}
        if ability is not None and ability.params:
            env[ability.params[0].name] = arg
        try:
            return bool(truth(static_evaluate(cond, env, self.model), cond.span))
        except NotStatic:
            # A condition about an attack's role (``target has vehicle``) asked outside an
            # attack: there is no such profile, so the modifier does not apply.
            return False
        except StaticError as err:
            raise ResolveError(f"cannot tell whether this holds: {err}", cond.span) from None

    def _effect_value(self, e: A.Effect) -> Any:
        if e.value is None:
            return 0
        try:
            return as_number(static_evaluate(e.value, dict(self.situation), self.model))
        except (NotStatic, StaticError) as err:
            raise ResolveError(f"a modifier's value must be a number: {err}", e.value.span) from None

    def _combine(self, items: list[tuple[Any, str | None]]) -> Any:
        total: Any = 0
        best: dict[str, Any] = {}
        for value, group in items:
            if group is None:
                total += value
            elif group not in best or abs(value) > abs(best[group]):
                best[group] = value
        return total + sum(best.values())

    def stat_modifier(self, stat: str, role: str | None, roleless: bool = False) -> Any:
        items = [(self._effect_value(e), g) for e, g, _ in self.active_effects()
                 if e.kind == "stat" and e.stat == stat
                 and (e.role is None or (not roleless and e.role == role))]
        return self._combine(items)

    def roll_modifier(self, test: str) -> Any:
        items = [(self._effect_value(e), g) for e, g, _ in self.active_effects()
                 if e.kind == "roll" and e.test == test]
        return self._combine(items)

    def target_override(self, test: str) -> list[tuple[Any, A.Effect]]:
        out = []
        for e, _, _ in self.active_effects():
            if e.kind == "needs" and e.test == test and e.value is not None:
                try:
                    out.append((static_evaluate(e.value, dict(self.situation), self.model), e))
                except (NotStatic, StaticError) as err:
                    raise ResolveError(f"cannot work out this target: {err}", e.value.span) from None
        return out

    def extra_rerolls(self, test: str) -> tuple[str, ...]:
        return tuple(e.reroll for e, _, _ in self.active_effects()
                     if e.kind == "reroll" and e.test == test and e.reroll)

    def attacker_abilities(self) -> list[tuple[A.Ability, Any]]:
        """Abilities of the attacking profiles; the same ability twice keeps its highest value."""
        if self._abilities is None:
            self._abilities = self._find_abilities()
        return self._abilities

    def _find_abilities(self) -> list[tuple[A.Ability, Any]]:
        found: dict[str, tuple[A.Ability, Any]] = {}
        abilities = {a.id: a for a in self.model.of_type(A.Ability)}
        for ref in self.attackers:
            prof = self.model.profiles.get(ref.id)
            if prof is None:
                continue
            for use in prof.abilities:
                ab = abilities.get(use.ability)
                if ab is None:
                    continue
                if ab.id in found and ab.stacking != "sum":
                    prev = found[ab.id][1]
                    if prev is not None and use.arg is not None and use.arg <= prev:
                        continue
                    if prev is not None and use.arg is None:
                        continue
                if ab.id in found and ab.stacking == "sum" and use.arg is not None:
                    found[ab.id] = (ab, (found[ab.id][1] or 0) + use.arg)
                else:
                    found[ab.id] = (ab, use.arg)
        return [found[k] for k in sorted(found)]

    # -- calls -------------------------------------------------------------------

    def eval_With(self, e: A.With, env: dict[str, Any]) -> Any:
        settings: dict[str, Any] = {}
        for s in e.settings:
            sit = self.model.situations.get(s.name)
            if sit is None:
                raise ResolveError(f"unknown situation '{s.name}'", s.span)
            if s.value is None:
                settings[s.name] = not s.negated
            elif isinstance(s.value, A.Name) and s.value.id in sit.choices:
                settings[s.name] = s.value.id
            else:
                v = self.eval(s.value, env)
                if is_dist(v):
                    raise ResolveError("a situation is set to a fixed value, not a roll", s.span)
                settings[s.name] = v
        return self.child(settings).eval(e.expr, env)

    def eval_Call(self, e: A.Call, env: dict[str, Any]) -> Any:
        builtin = BUILTINS.get(e.func)
        decl = self.model.callables.get(e.func)
        if decl is None and builtin is not None:
            return builtin(self, e, env)
        if decl is None:
            raise ResolveError(f"unknown test, table or formula '{e.func}'", e.func_span)
        args = self.call_args(decl, e, env)
        if isinstance(decl, A.Attack):
            from compiler.resolve.attack import resolve_attack
            return resolve_attack(self, decl, args, e.span)
        return self.apply(decl, args, e.span)

    def call_args(self, decl: Any, e: A.Call, env: dict[str, Any]) -> list[Any]:
        params = decl.params
        values: dict[str, Any] = {}
        by_name = {p.name: p for p in params}
        for p, a in zip(params, e.args):
            values[p.name] = self._entry_value(p, a, self.eval(a, env))
        for k, v in e.kwargs:
            values[k] = self._entry_value(by_name[k], v, self.eval(v, env)) if k in by_name else self.eval(v, env)
        missing = [p.name for p in params if p.name not in values]
        if missing or len(e.args) > len(params):
            raise ResolveError(f"'{decl.id}' takes {len(params)} values ({', '.join(p.name for p in params)})",
                               e.span)
        return [values[p.name] for p in params]

    def _entry_value(self, param: A.Param, arg: A.Expr, value: Any) -> Any:
        """A value given for a parameter named after a stat takes that stat's modifiers (``-1 BS``),
        unless it was read from a profile (``shooter.BS``) or passed on by name, which already did."""
        stat = param.type if isinstance(param.type, str) and param.type in self.model.stats else param.name
        if stat not in self.model.stats or value is None:
            return value
        if isinstance(arg, A.Attr) and arg.name == stat:
            return value
        if isinstance(arg, A.Name) and arg.id == stat:
            return value
        delta = self.stat_modifier(stat, None, roleless=True)
        if not delta:
            return value
        return self._add_to_stat(value, delta, stat, arg.span)

    def apply(self, decl: Any, args: list[Any], span: Any) -> Any:
        """Call a test, table or formula with values (binding over random ones)."""
        branches = math.prod(len(a) for a in args if is_dist(a))
        if branches > MAX_BRANCHES:
            raise ResolveError(f"'{decl.id}' would be worked out for {branches:,} combinations of random values; "
                               f"the limit is {MAX_BRANCHES:,}", span, "ask a smaller question, or split it")
        for i, a in enumerate(args):
            if is_dist(a):
                exact = _fast_to_exact(a) if isinstance(a, FastDist) else a
                return self._check_size(self.to_backend(exact.bind(
                    lambda o, i=i: _exactify(self.apply(decl, args[:i] + [o] + args[i + 1:], span)))), span)
        args = [unwrap(a) if isinstance(a, (Face, Pool)) else a for a in args]
        if isinstance(decl, A.Test):
            return self.run_test(decl, args, span)
        if isinstance(decl, A.Table):
            return self.run_table(decl, args, span)
        if isinstance(decl, A.Formula):
            env = {p.name: a for p, a in zip(decl.params, args)}
            for let in decl.lets:
                self.bind_let(let, env)
            if decl.result is None:
                raise ResolveError(f"formula '{decl.id}' has no result", decl.span)
            return self.child().eval(decl.result, env) if self.depth <= MAX_CALL_DEPTH else self.eval(decl.result, env)
        raise ResolveError(f"'{decl.id}' cannot be called", span)

    def run_table(self, table: A.Table, args: list[Any], span: Any) -> Any:
        env: dict[str, Any] = {p.name: a for p, a in zip(table.params, args)}
        sub = self.child()
        if table.formula is not None:
            return sub.eval(table.formula, env)
        for let in table.lets:
            sub.bind_let(let, env)
        if table.grid is not None:
            g = table.grid
            r, c = env.get(g.row_param), env.get(g.col_param)
            for key, cells in g.rows:
                if _eq(r, key):
                    for col, cell in zip(g.columns, cells):
                        if _eq(c, col):
                            return sub.eval(cell, env)
            raise ResolveError(f"the grid of table '{table.id}' has no cell for "
                               f"{g.row_param} = {show(r)}, {g.col_param} = {show(c)}", span)
        for row in table.rows:
            if row.pattern is None:
                return sub.eval(row.result, env)
            if isinstance(row.pattern, A.RangeExpr):
                v = unwrap(env[table.params[0].name])
                lo, hi = sub.eval(row.pattern.low, env), sub.eval(row.pattern.high, env)
                if v is not None and as_number(lo) <= _num(v, span) <= as_number(hi):
                    return sub.eval(row.result, env)
                continue
            m = sub.eval(row.pattern, env)
            if is_dist(m):
                raise ResolveError("a table row's case must not be random", row.span)
            m = unwrap(m)
            if isinstance(m, bool):
                if m:
                    return sub.eval(row.result, env)
            elif len(table.params) == 1 and _eq(env[table.params[0].name], m):
                return sub.eval(row.result, env)
        shown = ", ".join(f"{k} = {show(unwrap(v))}" for k, v in env.items() if k in {p.name for p in table.params})
        raise ResolveError(f"no row of table '{table.id}' matches {shown}", span,
                           "add a row for these values, or an 'otherwise' row")

    # -- tests --------------------------------------------------------------------

    def memo_key(self) -> tuple[Any, ...]:
        """What, besides its arguments, a result depends on: the situation and the attackers."""
        if self._memo_key is None:
            self._memo_key = (tuple(sorted((k, _hashable(v)) for k, v in self.situation.items())),
                              self.attackers, tuple(sorted(self.roles.items())))
        return self._memo_key

    @property
    def memo(self) -> dict[Any, Any]:
        """Results shared by every evaluator of this (immutable) model."""
        return self.model.__dict__.setdefault("_resolver_memo", {})

    def run_test(self, test: A.Test, args: list[Any], span: Any) -> Any:
        key = ("test", test.id, tuple(_hashable(a) for a in args), self.memo_key())
        memo = self.memo
        if key in memo:
            return memo[key]
        result = self._run_test(test, args, span)
        if len(memo) > 20_000:
            memo.clear()
        memo[key] = result
        return result

    def _run_test(self, test: A.Test, args: list[Any], span: Any) -> Any:
        if test.roll is None:
            raise ResolveError(f"test '{test.id}' does not say what it rolls", test.span)
        env: dict[str, Any] = {p.name: a for p, a in zip(test.params, args)}
        sub = self.child()
        raw_target = sub.eval(test.roll.target, env)
        if is_dist(raw_target):
            raise ResolveError("a test's target must not be random", test.roll.target.span)
        target = self._as_target(raw_target, test.roll.op, test.roll.target.span)
        overrides = self.target_override(test.id)
        if overrides:
            picked = [self._as_target(v, test.roll.op if test.roll.op != "against" else ">=", e.span)
                      for v, e in overrides]
            target = max(picked, key=lambda t: _hardness(t))
        dice = sub.eval(test.roll.dice, env)
        if isinstance(dice, FastDist):
            dice = _fast_to_exact(dice)
        if not is_dist(dice):
            dice = Dist.const(dice)
        dice = dice.map(lambda o: _natural(o, test.roll.dice.span))
        modifier = self.roll_modifier(test.id)
        if test.modifier_cap is not None:
            lo, hi = test.modifier_cap
            modifier = max(lo, min(hi, modifier))
        fails, succeeds = set(test.natural_fails), set(test.natural_succeeds)

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
            effective = self._effective(target, modifier, test, env, sub)

            def decide(n: int) -> Roll:
                if n in fails:
                    return Roll(False, n)
                if n in succeeds:
                    return Roll(True, n)
                return Roll(_meets(n, effective), n)
            outcome = dice.map(decide)
        rerolls = set(test.rerolls) | set(self.extra_rerolls(test.id))
        if rerolls:
            pred = _reroll_predicate(rerolls)
            outcome = outcome.reroll(pred)
        return outcome

    def _as_target(self, v: Any, op: str, span: Any) -> TargetValue:
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
        n = _num(v.as_number if isinstance(v, TargetValue) else v, span)
        if isinstance(n, Fraction) and n.denominator != 1:
            n = math.ceil(n) if op == ">=" else math.floor(n)
        return TargetValue("high" if op == ">=" else "low", int(n))

    def _effective(self, target: TargetValue, modifier: Any, test: A.Test, env: dict[str, Any],
                   sub: "Evaluator") -> TargetValue:
        if target.kind in ("never", "always"):
            return target
        assert target.number is not None
        n = target.number - modifier if target.kind == "high" else target.number + modifier
        for cap, better in ((test.never_better, True), (test.never_worse, False)):
            if cap is None:
                continue
            c = unwrap(sub.eval(cap, env))
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


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def _hashable(v: Any) -> Any:
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def _meets(n: int, target: TargetValue) -> bool:
    if target.kind == "always":
        return True
    if target.kind == "never":
        return False
    return target.passes(n)


def _hardness(t: TargetValue) -> float:
    if t.kind == "never":
        return math.inf
    if t.kind == "always":
        return -math.inf
    if t.kind == "high":
        return t.number or 0
    if t.kind == "low":
        return -(t.number or 0)
    return float(t.probability()) * -1


def _reroll_predicate(kinds: set[str]) -> Callable[[Roll], bool]:
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


def _natural(o: Any, span: Any) -> int:
    if isinstance(o, Roll):
        return o.natural
    if isinstance(o, Face):
        return o.natural
    if isinstance(o, bool) or not isinstance(o, int):
        raise ResolveError(f"{show(o)} has no natural roll", span)
    return o


def _num(v: Any, span: Any) -> Any:
    if isinstance(v, TargetValue):
        if v.as_number is None:
            raise ResolveError(f"the target {v} has no number", span)
        return v.as_number
    if isinstance(v, bool) or not isinstance(v, (int, Fraction, float)):
        raise ResolveError(f"{show(v)} is not a number", span)
    return v


def _num_int(v: Any, span: Any) -> int:
    n = _num(v, span)
    if isinstance(n, Fraction):
        if n.denominator != 1:
            raise ResolveError(f"{show(n)} is not a whole number", span)
        return int(n)
    return n


def _count(v: Any, span: Any) -> int:
    n = _num_int(v, span)
    if n < 0:
        raise ResolveError(f"cannot count {n} of something", span)
    if n > MAX_COUNT:
        raise ResolveError(f"{n:,} is more than warscribe will count ({MAX_COUNT:,})", span)
    return n


def _mean_value(v: Any, span: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    return _num(v, span)


def _eq(a: Any, b: Any) -> bool:
    return static_binary("==", unwrap(a), unwrap(b))


def _binary_fn(op: str, span: Any) -> Callable[[Any, Any], Any]:
    def fn(a: Any, b: Any) -> Any:
        a, b = unwrap(a), unwrap(b)
        if op in ("and", "or"):
            x, y = truth(a, span), truth(b, span)
            return (x and y) if op == "and" else (x or y)
        try:
            return static_binary(op, a, b)
        except StaticError as err:
            raise ResolveError(str(err), span) from None
    return fn


def _dense_sum(op: str, a: Any, b: Any) -> bool:
    """Is ``a op b`` a sum or difference of dense whole numbers (worked out as a polynomial product)?"""
    if op not in ("+", "-") or not _all_int(a) or not _all_int(b):
        return False
    for d in (a, b):
        values = [int(o) for o in d.outcomes()]
        if max(values) - min(values) + 1 > 16 * len(values) + 64:
            return False
    return True


def _fast_to_exact(d: Any) -> Dist:
    """A float distribution as exact weights (limited denominators): only for mixing backends."""
    weights = {o: Fraction(p).limit_denominator(10**15) for o, p in d.probabilities().items()}
    return Dist.from_weights(weights)


def _exact_to_fast(d: Dist) -> Any:
    return d.to_fast()


def _exactify(v: Any) -> Any:
    return _fast_to_exact(v) if isinstance(v, FastDist) else v


# ---------------------------------------------------------------------------
# Built-in functions
# ---------------------------------------------------------------------------


def _b_P(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
    return ev.probability(ev.eval(e.args[0], env), e.args[0].span)


def _b_mean(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
    return ev.mean(ev.eval(e.args[0], env), e.args[0].span)


def _b_natural(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
    return ev.lift1(ev.eval(e.args[0], env), lambda o: _natural(o, e.span))


def _minmax(kind: str) -> Callable[[Evaluator, A.Call, dict[str, Any]], Any]:
    def f(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
        values = [ev.eval(a, env) for a in e.args]
        sizes = [len(v) for v in values if is_dist(v)]
        if len(sizes) > 1 and math.prod(sizes) > MAX_PAIRS:
            raise ResolveError(f"{kind}(…) of these rolls combines {math.prod(sizes):,} results; the limit is "
                               f"{MAX_PAIRS:,}", e.span, "ask a smaller question, or split it")
        result = values[0]
        for v in values[1:]:
            result = ev.lift2(kind, result, v, e.span)
        return result
    return f


def _unary_num(fn: Callable[[Any], Any]) -> Callable[[Evaluator, A.Call, dict[str, Any]], Any]:
    def f(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
        return ev.lift1(ev.eval(e.args[0], env), lambda x: None if unwrap(x) is None else fn(_num(unwrap(x), e.span)))
    return f


def _b_clamp(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
    v, lo, hi = (ev.eval(a, env) for a in e.args)
    return ev.lift2("min", ev.lift2("max", v, lo, e.span), hi, e.span)


def _b_reroll(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
    dice = ev.eval(e.args[0], env)
    faces = ev.eval(e.args[1], env)
    if not is_dist(dice):
        return dice
    face_set = {_num(unwrap(faces), e.args[1].span)}
    return dice.reroll(lambda o: unwrap(o) in face_set)


def _b_explode(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
    dice = ev.eval(e.args[0], env)
    face = _num(unwrap(ev.eval(e.args[1], env)), e.args[1].span)
    depth = DEFAULT_EXPLODE_DEPTH
    if len(e.args) > 2:
        depth = _count(unwrap(ev.eval(e.args[2], env)), e.args[2].span)
        if depth > MAX_EXPLODE:
            raise ResolveError(f"explode(…) rolls again at most {MAX_EXPLODE} times, not {depth:,}", e.args[2].span)
    if not is_dist(dice):
        raise ResolveError("explode(…) needs a die", e.args[0].span)
    if isinstance(dice, FastDist):
        dice = _fast_to_exact(dice)
    return dice.explode(lambda o: o == face, depth)


def _keep(kind: str) -> Callable[[Evaluator, A.Call, dict[str, Any]], Any]:
    def f(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
        k = _count(unwrap(ev.eval(e.args[0], env)), e.args[0].span)
        if k < 1:
            raise ResolveError(f"{e.func} of no dice", e.args[0].span)
        if k > MAX_KEEP:
            raise ResolveError(f"{e.func}(…) keeps at most {MAX_KEEP} dice, not {k:,}", e.args[0].span)
        result = ev.eval(e.args[1], env)
        if is_dist(result) and (k - 1) * len(result) ** 2 > MAX_PAIRS:
            raise ResolveError(f"{e.func}({k}, …) of a roll with {len(result):,} results is too much to work out",
                               e.span, "keep fewer dice, or roll smaller ones")
        for _ in range(k - 1):
            result = ev.lift2(kind, result, ev.eval(e.args[1], env), e.span)
        return result
    return f


def _b_even_odd(parity: int) -> Callable[[Evaluator, A.Call, dict[str, Any]], Any]:
    def f(ev: Evaluator, e: A.Call, env: dict[str, Any]) -> Any:
        return ev.lift1(ev.eval(e.args[0], env), lambda x: _num(unwrap(x), e.span) % 2 == parity)
    return f


BUILTINS: dict[str, Callable[[Evaluator, A.Call, dict[str, Any]], Any]] = {
    "P": _b_P,
    "mean": _b_mean,
    "natural": _b_natural,
    "min": _minmax("min"),
    "max": _minmax("max"),
    "abs": _unary_num(abs),
    "ceil": _unary_num(math.ceil),
    "floor": _unary_num(math.floor),
    "clamp": _b_clamp,
    "even": _b_even_odd(0),
    "odd": _b_even_odd(1),
    "reroll": _b_reroll,
    "explode": _b_explode,
    "highest": _keep("max"),
    "lowest": _keep("min"),
}


def parse_expression(text: str, path: str = "<expression>") -> A.Expr:
    """Parse one expression (the input of ``warscribe eval``); raises ResolveError on a syntax error."""
    from compiler.ast.build import build_expression
    from compiler.syntax.parse import parse_text

    tree, diags = parse_text(text, path, start="eval_input")
    if tree is None:
        d = diags[0]
        raise ResolveError(d.message, d.span, d.hint)
    expr, diags = build_expression(tree, path)
    if expr is None:
        raise ResolveError(diags[0].message if diags else "cannot read this expression")
    return expr
