"""Stage 4: the resolver — what the rules model means, as exact distributions.

:class:`Evaluator` turns any expression of a ruleset into a value: a plain
value (a number, yes/no, a target such as ``4+``, a label) or a distribution
over such values (:mod:`compiler.resolve.dist`).  Every die written is an independent
roll; a name bound with ``let`` is *one* roll wherever it is used (the
evaluator enumerates the joint outcomes of the ``let`` variables an
expression mentions).  Tests keep their natural roll, so abilities and
``natural(…)`` can read it.

The evaluator is a façade that dispatches through three registries, each keyed by
what it dispatches on, and filled by the modules that know the concept:

* :data:`EXPRESSIONS` — expression node class → handler
  (:mod:`~compiler.resolve.expressions`);
* :data:`DECLARATIONS` — declaration class → how a call to it is worked out
  (:mod:`~compiler.resolve.tests`, :mod:`~compiler.resolve.tables`,
  :mod:`~compiler.resolve.attack`);
* :data:`BUILTIN_CALLS` — built-in function name → its distribution implementation
  (:mod:`~compiler.resolve.builtins`).

Those modules import this one and register; the package ``__init__`` imports them all, so
importing anything from :mod:`compiler.resolve` fills the registries (no import cycle).

Exact mode (the default) uses :class:`~compiler.resolve.dist.Dist` (Fractions); fast
mode aggregates with :class:`~compiler.resolve.dist.FastDist` (float64).

>>> from compiler.driver import compile_text
>>> from compiler.resolve import Evaluator, parse_expression
>>> model = compile_text('ruleset d "D":\\n  version 1.0.0\\ntest hit(BS) = roll d6 >= BS, natural 1 fails\\n').rulesets[0]
>>> Evaluator(model).probability_of(parse_expression("hit(4)"))
Fraction(1, 2)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from compiler import ast as A
from compiler.trace import TracedMemo, note
from compiler.trace import active as tracing
from compiler.limits import MAX_CALL_DEPTH, MAX_EXACT_BITS, MAX_OUTCOMES, MAX_PAIRS, sum_outcomes
from compiler.model.ruleset import Ruleset
from compiler.model.static import int_range
from compiler.model.values import ProfileRef, TargetValue
from compiler.resolve.core import (AGGREGATES, MAX_BRANCHES, AttackResult, Face, LetVar, Pool, ResolveError, Roll,
                                   Value, all_int, binary_fn, custom_die_faces, dense_sum, exactify, fast_to_exact,
                                   hashable, is_dist, mean_value, show, truth, unwrap)
from compiler.resolve.budget import refuse_results
from compiler.resolve.dist import Dist, FastDist
from compiler.resolve.dist_base import is_int
from compiler.resolve.effects import Effects
from compiler.words import a_or_an

__all__ = ["AttackResult", "BUILTIN_CALLS", "DECLARATIONS", "EXPRESSIONS", "Evaluator", "Face", "LetVar", "Pool",
           "ResolveError", "Roll", "builtin", "declaration", "expression", "is_dist", "parse_expression", "show",
           "situation_defaults", "truth", "unwrap"]

Env = dict[str, Value]  # names bound while evaluating: parameters, let names, steps
ExpressionHandler = Callable[["Evaluator", Any, Env], Any]
CallHandler = Callable[["Evaluator", Any, list[Any], Any], Any]
BuiltinHandler = Callable[["Evaluator", A.Call, Env], Any]


@dataclass(frozen=True)
class Declaration:
    """How a call to one kind of declaration is worked out.

    ``pointwise``: the handler takes plain values, and the evaluator binds it over the
    outcomes of random arguments (tests, tables, formulas); otherwise it gets the arguments
    as they are (attack sequences).
    """

    handler: CallHandler
    pointwise: bool


EXPRESSIONS: dict[type, ExpressionHandler] = {}
DECLARATIONS: dict[type, Declaration] = {}
BUILTIN_CALLS: dict[str, BuiltinHandler] = {}


def expression(*node_classes: type) -> Callable[[ExpressionHandler], ExpressionHandler]:
    """Register the handler of one or more expression node classes."""
    def register(fn: ExpressionHandler) -> ExpressionHandler:
        for cls in node_classes:
            EXPRESSIONS[cls] = fn
        return fn
    return register


def declaration(decl_class: type, pointwise: bool = True) -> Callable[[CallHandler], CallHandler]:
    """Register how calls to a kind of declaration (test, table, formula, attack) are worked out."""
    def register(fn: CallHandler) -> CallHandler:
        DECLARATIONS[decl_class] = Declaration(fn, pointwise)
        return fn
    return register


def builtin(name: str) -> Callable[[BuiltinHandler], BuiltinHandler]:
    """Register the distribution implementation of the built-in function ``name``."""
    def register(fn: BuiltinHandler) -> BuiltinHandler:
        BUILTIN_CALLS[name] = fn
        return fn
    return register


def situation_defaults(model: Ruleset) -> dict[str, Any]:
    """Each situation's default: its first choice, the low end of its range, or no."""
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


#: Plain values the fast path's native operators would mishandle: each goes through the language's rules.
_NOT_PLAIN_INT = (Fraction, TargetValue, ProfileRef, str, bool)


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
        self._memo_key: tuple[Any, ...] | None = None
        self._situation_key: tuple[Any, ...] | None = None  # the situation's part of the memo key
        self._effects: Effects | None = None
        self.hook_effects: tuple[A.Effect, ...] = ()  # inside an attack: what hooks did to this one attack
        # The largest cut-off part (explode's bound) of a roll that P(…) or mean(…) turned into one
        # number, which cannot carry it: shared with the evaluators of the calls inside, so that
        # the answer can still say it (see :attr:`cut_off`).
        self._cut: list[Any] = [0]

    # -- construction helpers ------------------------------------------------

    def child(self, situation: Mapping[str, Any] | None = None,
              attackers: tuple[ProfileRef, ...] | None = None,
              roles: Mapping[str, ProfileRef] | None = None) -> Evaluator:
        """An evaluator one call deeper, with more situation settings or other attackers."""
        merged = dict(self.situation)
        if situation:
            merged.update(situation)
        out = Evaluator(self.model, self.exact, merged,
                        self.attackers if attackers is None else attackers, self.depth + 1,
                        self.roles if roles is None else roles)
        out.hook_effects = self.hook_effects
        out._cut = self._cut
        if not situation:
            out.situation = self.situation  # the same settings: one mapping, never changed
            out._situation_key = self._situation_key
        if not situation and attackers is None and roles is None:
            # The same situation, attackers and roles: the same effects and memo key.
            out._effects = self.effects
            out._memo_key = self.memo_key()
        return out

    def with_hook_effects(self, effects: tuple[A.Effect, ...]) -> Evaluator:
        """This evaluator for one attack that hooks changed (``+1 D`` on a natural 6 to wound):
        ``effects`` count on top of the modifiers that apply."""
        out = Evaluator(self.model, self.exact, self.situation, self.attackers, self.depth, self.roles)
        out.hook_effects = self.hook_effects + effects
        out._situation_key = self._situation_key
        out._cut = self._cut
        return out

    def exact_twin(self) -> Evaluator:
        """This evaluator on the exact backend (itself, when it is): per-attack work stays exact.
        It starts with no hook effects; without any here, it shares the effects and the memo
        key, which do not depend on the backend."""
        if self.exact:
            return self
        out = Evaluator(self.model, True, self.situation, self.attackers, self.depth, self.roles)
        out._situation_key = self._situation_key
        out._cut = self._cut
        if not self.hook_effects:
            out._effects = self.effects
            out._memo_key = self.memo_key()
        return out

    @property
    def effects(self) -> Effects:
        """The modifiers and abilities that apply under this situation and these attackers."""
        if self._effects is None:
            self._effects = Effects(self.model, self.situation, self.attackers, self.roles, self.hook_effects)
        return self._effects

    def to_backend(self, d: Any) -> Any:
        """In fast mode, move an integer distribution to the float backend."""
        if self.exact or not isinstance(d, Dist):  # already float, or not random
            return d
        fast = d.__dict__.get("_on_fast_backend")  # both are immutable: moved once, however often asked
        if fast is None:
            if not all_int(d):
                return d
            fast = d.map(int).to_fast() if any(isinstance(o, bool) for o in d.outcomes()) else d.to_fast()
            d.__dict__["_on_fast_backend"] = fast
        return fast

    @staticmethod
    def refuse_sum(count: int, amounts: Any, span: Any) -> None:
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

    def check_size(self, d: Any, span: Any) -> Any:
        """``d``, unless it has more possible results than the resolver works with."""
        if is_dist(d) and len(d) > MAX_OUTCOMES:
            raise ResolveError(f"this has {len(d):,} possible results; the limit is {MAX_OUTCOMES:,}", span,
                               "ask a smaller question, or split it")
        return d

    # -- entry points ----------------------------------------------------------

    def evaluate(self, expr: A.Expr, env: Mapping[str, Any] | None = None) -> Any:
        """The value of ``expr``: a plain value or a distribution.

        >>> from pathlib import Path
        >>> import compiler
        >>> from compiler.resolve import Evaluator, parse_expression
        >>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
        >>> Evaluator(model).evaluate(parse_expression("2d6")).p(7)
        Fraction(1, 6)
        """
        return self.eval(expr, dict(env or {}))

    def probability_of(self, expr: A.Expr, env: Mapping[str, Any] | None = None) -> Any:
        """The chance that the yes/no expression ``expr`` holds."""
        return self.probability(self.evaluate(expr, env), expr.span)

    @property
    def cut_off(self) -> Any:
        """The largest part of a roll cut off by its bound (``explode(d6, 6, 3)``: four sixes, 1/1296)
        that ``P(…)`` or ``mean(…)`` left out of a number this evaluator gave; 0 when none was."""
        return self._cut[0]

    def _note_cut(self, v: Any) -> None:
        if v.truncated and v.truncated > self._cut[0]:
            self._cut[0] = v.truncated

    def probability(self, v: Any, span: Any = None) -> Any:
        """The chance that a yes/no value (or distribution of them) is yes."""
        if is_dist(v):
            self._note_cut(v)
            bad = [o for o in v.outcomes() if not isinstance(unwrap(o), bool) and unwrap(o) is not None]
            if bad:
                raise ResolveError(f"P(…) needs a yes/no condition, but this can be {show(bad[0])}", span,
                                   "compare it: P(x >= 2)")
            return v.p_where(lambda o: unwrap(o) is True)
        return Fraction(1) if truth(v, span) else Fraction(0)

    def mean(self, v: Any, span: Any = None) -> Any:
        """The mean of a number (or distribution of numbers); yes counts 1."""
        if is_dist(v):
            self._note_cut(v)
            nums = v.map(lambda o: mean_value(unwrap(o), span))
            return nums.mean()
        return mean_value(unwrap(v), span)

    # -- let variables -------------------------------------------------------

    def bind_let(self, let: A.Let, env: dict[str, Any]) -> None:
        """Bind ``let name = expr``: a plain value directly, a random one as one roll."""
        value_expr = let.value
        value = self.eval(value_expr, env)
        if is_dist(value):
            depends = bool(self.let_vars(value_expr, env))
            if isinstance(value_expr, A.Dice) and value_expr.count == 1 and value_expr.name in self.model.dice:
                value = custom_die_faces(self.model.dice[value_expr.name].faces)
            env[let.name] = LetVar(let.name, value_expr, None if depends else value)
        else:
            env[let.name] = value

    def names(self, expr: A.Expr) -> tuple[str, ...]:
        """Free names of ``expr``, not looking inside P(…) and mean(…), which see the whole roll."""
        key = id(expr)
        # A function of the expression and the model's declarations: kept per (immutable) model.
        cache: dict[int, tuple[A.Expr, tuple[str, ...]]] = self.model.__dict__.setdefault("_free_names", {})
        hit = cache.get(key)
        if hit is not None and hit[0] is expr:  # the same node, not one that took its id later
            return hit[1]
        names: list[str] = []

        def visit(e: A.Expr) -> None:
            if isinstance(e, A.Name):
                names.append(e.id)
                return
            if isinstance(e, A.Call) and e.func in AGGREGATES and e.func not in self.model.callables:
                return
            for child in A.children(e):
                visit(child)
        visit(expr)
        found = tuple(dict.fromkeys(names))
        if len(cache) > 20_000:
            cache.clear()
        cache[key] = (expr, found)
        return found

    def let_vars(self, expr: A.Expr, env: Mapping[str, Any]) -> list[str]:
        """The ``let`` variables ``expr`` depends on (directly or through others), in binding order."""
        order: list[str] = []

        def visit(e: A.Expr) -> None:
            for n in self.names(e):
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
            dist = custom_die_faces(self.model.dice[var.expr.name].faces)
        if not is_dist(dist):
            return self._enumerate(rest, expr, {**env, name: dist})
        branches = len(dist)
        for other in rest:
            cached = getattr(env.get(other), "cached", None)
            branches *= len(cached) if is_dist(cached) else 1
        if branches > MAX_BRANCHES:
            raise ResolveError(f"this is worked out for {branches:,} combinations of rolls; the limit is "
                               f"{MAX_BRANCHES:,}", expr.span, "ask a smaller question, or split it")
        if self.exact:
            result = dist.bind(lambda o: self._enumerate(rest, expr, {**env, name: o}))
        else:  # fast mode: the roll and its branches may be on different backends
            results = {o: self._enumerate(rest, expr, {**env, name: o}) for o in dist.outcomes()}
            if all(type(r) is type(dist) if is_dist(r) else isinstance(dist, Dist) or is_int(r)
                   for r in results.values()):
                result = dist.bind(results.__getitem__)
            else:  # mixed backends, or labels under floats: mix exactly, then back to floats if it can
                outer: Any = exactify(dist)
                result = self.to_backend(outer.bind(lambda o: exactify(results[o])))
        return self.check_size(result, expr.span)

    # -- expressions -----------------------------------------------------------

    def eval(self, expr: A.Expr, env: dict[str, Any]) -> Any:
        """The value of ``expr`` in ``env`` (the one dispatch point: :data:`EXPRESSIONS`)."""
        if self.depth > MAX_CALL_DEPTH:
            raise ResolveError(f"definitions call each other more than {MAX_CALL_DEPTH} deep (a cycle?)", expr.span)
        if self.depth == 0:  # the outermost evaluator turns a stack overflow into a diagnostic
            try:
                return self._eval(expr, env)
            except RecursionError:
                raise ResolveError("this nests too deeply to work out", expr.span) from None
        return self._eval(expr, env)

    def _eval(self, expr: A.Expr, env: dict[str, Any]) -> Any:
        if env and LetVar in set(map(type, env.values())):
            pending = self.let_vars(expr, env)
            if pending:
                return self._enumerate(pending, expr, env)
        handler = EXPRESSIONS.get(type(expr))
        if handler is None:
            raise ResolveError(f"cannot evaluate {a_or_an(type(expr).__name__)} here", expr.span)
        return handler(self, expr, env)

    def lift1(self, v: Any, fn: Callable[[Any], Any]) -> Any:
        """``fn`` applied to a value, or to each outcome of a distribution."""
        if is_dist(v):
            return v.map(fn)
        return fn(v)

    def lift2(self, op: str, a: Any, b: Any, span: Any) -> Any:
        """``a op b`` for values or distributions (independent rolls)."""
        fn = binary_fn(op, span)
        if not is_dist(a) and not is_dist(b):
            return fn(a, b)
        a, b = self.same_backend(a, b)
        fast_ok = op in ("+", "-", "*", ">=", "<=", ">", "<", "==", "!=") and \
            (not is_dist(a) or all_int(a)) and (not is_dist(b) or all_int(b)) and \
            not isinstance(a, _NOT_PLAIN_INT) and not isinstance(b, _NOT_PLAIN_INT) and \
            a is not None and b is not None
        if is_dist(a) and is_dist(b) and len(a) * len(b) > MAX_PAIRS and not dense_sum(op, a, b):
            raise ResolveError(f"this combines {len(a):,} × {len(b):,} possible results; the limit is "
                               f"{MAX_PAIRS:,} pairs", span, "ask a smaller question, or split it")
        refuse_results(op, a, b, span)  # counted before the work (compiler.resolve.budget)
        if is_dist(a):
            result = a.binary(op if fast_ok else fn, b)
        else:
            result = b.map(lambda y: fn(a, y))
        return self.check_size(result, span)

    def same_backend(self, a: Any, b: Any) -> tuple[Any, Any]:
        """Two values on one backend: float when both can be, else exact."""
        if isinstance(a, FastDist) and isinstance(b, Dist):
            b = b.to_fast() if all_int(b) else b
        elif isinstance(b, FastDist) and isinstance(a, Dist):
            a = a.to_fast() if all_int(a) else a
        if isinstance(a, FastDist) and isinstance(b, Dist):
            a = fast_to_exact(a)
        if isinstance(b, FastDist) and isinstance(a, Dist):
            b = fast_to_exact(b)
        return a, b

    # -- memo ------------------------------------------------------------------------

    def memo_key(self) -> tuple[Any, ...]:
        """What, besides its arguments, a result depends on: the situation and the attackers."""
        if self._memo_key is None:
            situation = self._situation_key
            if situation is None:  # the same for the evaluators an evaluator makes, unless it adds to it
                situation = self._situation_key = tuple(sorted((k, hashable(v)) for k, v in self.situation.items()))
            # Profiles as plain (id, models) pairs: a key of strings and numbers alone is one the
            # garbage collector stops following, and the memo holds a key for every call.
            self._memo_key = (situation, tuple((a.id, a.models) for a in self.attackers),
                              tuple(sorted((role, ref.id, ref.models) for role, ref in self.roles.items())),
                              self.hook_effects)
        return self._memo_key

    @property
    def memo(self) -> dict[Any, Any]:
        """Results shared by every evaluator of this (immutable) model (a :class:`TracedMemo`
        of its own while what is used is being recorded)."""
        if tracing():
            traced: dict[Any, Any] = self.model.__dict__.setdefault("_resolver_memo_traced", TracedMemo())
            return traced
        memo: dict[Any, Any] = self.model.__dict__.setdefault("_resolver_memo", {})
        return memo

    # -- calls -------------------------------------------------------------------

    def call_args(self, decl: Any, e: A.Call, env: dict[str, Any]) -> list[Any]:
        """The values of a call's arguments, in the order of ``decl``'s parameters."""
        params = decl.params
        if not e.kwargs and len(e.args) == len(params):  # every parameter given in order
            return [self._entry_value(p, a, self.eval(a, env)) for p, a in zip(params, e.args)]
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
        stat = self.model.param_stat(param)
        if stat not in self.model.stats or value is None:
            return value
        if isinstance(arg, A.Attr) and arg.name == stat:
            return value
        if isinstance(arg, A.Name) and arg.id == stat:
            return value
        delta = self.effects.stat_modifier(stat, None, roleless=True)
        if delta:
            value = self.add_to_stat(value, delta, stat, arg.span)
        better = self.effects.stat_improvement(stat, None, roleless=True)
        return self.improve_stat(value, better, stat, arg.span) if better else value

    def improve_stat(self, value: Any, steps: Any, name: str, span: Any) -> Any:
        """A target value made ``steps`` easier (``Sv better by 1``: 4+ becomes 3+, 4- becomes 5-)."""
        def improve(x: Any) -> Any:
            x = unwrap(x)
            if x is None:
                return None
            if not isinstance(x, TargetValue):
                raise ResolveError(f"'{name} better by …' needs a target value such as 3+, not {x}", span,
                                   f"for a number, write +1 {name}")
            if x.as_number is None or x.kind not in ("high", "low"):
                return x
            return TargetValue(x.kind, (x.number or 0) + (-steps if x.kind == "high" else steps))
        return self.lift1(value, improve)

    def add_to_stat(self, value: Any, delta: Any, name: str, span: Any) -> Any:
        """A stat's value plus a modifier, kept inside the stat's range when it is clamped."""
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

    def apply(self, decl: Any, args: list[Any], span: Any) -> Any:
        """Call a test, table, formula or attack with values (binding over random ones).

        The one dispatch point for declarations: :data:`DECLARATIONS`.
        """
        kind = DECLARATIONS.get(type(decl))
        if kind is None:
            raise ResolveError(f"'{decl.id}' cannot be called", span)
        note(decl.id)
        if not kind.pointwise:
            return kind.handler(self, decl, args, span)
        branches = math.prod(len(a) for a in args if is_dist(a))
        if branches > MAX_BRANCHES:
            raise ResolveError(f"'{decl.id}' would be worked out for {branches:,} combinations of random values; "
                               f"the limit is {MAX_BRANCHES:,}", span, "ask a smaller question, or split it")
        for i, a in enumerate(args):
            if is_dist(a):
                exact = fast_to_exact(a) if isinstance(a, FastDist) else a

                def at(o: Any, i: int = i) -> Any:
                    return exactify(self.apply(decl, args[:i] + [o] + args[i + 1:], span))
                return self.check_size(self.to_backend(exact.bind(at)), span)
        args = [unwrap(a) if isinstance(a, (Face, Pool)) else a for a in args]
        return kind.handler(self, decl, args, span)


def parse_expression(text: str, path: str = "<expression>") -> A.Expr:
    """Parse one expression (the input of ``warscribe eval``); raises ResolveError on a syntax error.

    >>> from compiler.resolve import parse_expression
    >>> expr = parse_expression("2d6 + 1")
    >>> type(expr).__name__, expr.op, expr.left.count, expr.left.sides
    ('Binary', '+', 2, 6)
    """
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
