"""Stage 3: checks over the rules model, each a small pass in :data:`CHECKS`.

Every pass takes a :class:`Context` (the ruleset and the diagnostic sink) and
adds diagnostics; none of them raises or stops the others.  The driver runs
them all, in order, and decides what fails.

Codes: W1xx names, W2xx types and values, W3xx tables, W4xx structure,
W5xx notes, W6xx overlays.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import islice, product
from typing import Any, Callable, Iterable, Iterator

from compiler import ast as A
from compiler.diagnostics import Sink, Span, did_you_mean
from compiler.limits import (MAX_COUNT, MAX_DICE, MAX_GRID_CELLS, MAX_OUTCOMES, MAX_SIDES, MAX_TABLE_POINTS,
                     MAX_TABLE_ROWS, MAX_TABLE_WORK, LongRange, dice_outcomes)
from compiler.model.ruleset import Ruleset, game_parts, kind_of
from compiler.model.static import NotStatic, StaticError, evaluate, int_range, row_matches
from compiler.model.values import TargetValue

# Functions every ruleset can call, with how many values they take.
BUILTINS: dict[str, tuple[int, int]] = {
    "min": (1, 99), "max": (1, 99), "abs": (1, 1), "ceil": (1, 1), "floor": (1, 1),
    "clamp": (3, 3), "even": (1, 1), "odd": (1, 1),
    "P": (1, 1), "mean": (1, 1), "natural": (1, 1),
    "reroll": (2, 2), "explode": (2, 3), "highest": (2, 2), "lowest": (2, 2),
}
BUILTIN_WORDS = {
    "P": "the probability that a condition holds",
    "mean": "the average value",
    "natural": "the unmodified face of a die or test",
    "reroll": "re-roll a die once when it shows one of the given faces: reroll(d6, 1)",
    "explode": "roll again and add on the given face: explode(d6, 6[, times])",
    "highest": "the highest of k dice: highest(2, d6)",
    "lowest": "the lowest of k dice: lowest(2, d6)",
}
# Names that belong to values rather than to the ruleset.
BUILTIN_ATTRS = {"models", "successes", "failures", "natural", "points", "title"}
# Quantities an army requirement can talk about.
ARMY_NAMES = {"points", "limit", "squads", "units", "models", "reserve_points", "special_points",
              "detachments", "characters", "warlords"}

PROSE_REF = re.compile(r"\[\[([^\]|]+)(?:\|([^\]]*))?\]\]")


@dataclass
class Context:
    ruleset: Ruleset
    sink: Sink
    # id -> set of ids it calls (filled by the names pass, read by the cycle pass)
    calls: dict[str, list[tuple[str, Span]]] = field(default_factory=dict)


# ---------------------------------------------------------------------------
# Pass: duplicate ids
# ---------------------------------------------------------------------------


def check_duplicates(ctx: Context) -> None:
    seen: dict[str, A.Decl] = {}
    everything: list = []  # type: ignore[type-arg]
    for d in ctx.ruleset.walk():
        everything.append(d)
        if isinstance(d, A.Game):
            everything.extend(game_parts(d))
    for d in everything:
        if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)) or not d.id:
            continue
        if d.id in seen:
            first = seen[d.id]
            kind = kind_of(first)
            article = "an" if kind[0] in "aeiou" else "a"
            ctx.sink.error("W102", f"'{d.id}' is already defined (as {article} {kind})", d.span,
                           "every rule, table, term, unit and weapon needs its own id",
                           related=[(first.span, "first defined here")])
        else:
            seen[d.id] = d
    dice: dict[str, A.Die] = {}
    for die in ctx.ruleset.of_type(A.Die):
        if die.id in dice:
            ctx.sink.error("W102", f"die {die.id} is already defined", die.span,
                           related=[(dice[die.id].span, "first defined here")])
        dice[die.id] = die


# ---------------------------------------------------------------------------
# Pass: names and arity inside expressions
# ---------------------------------------------------------------------------


class Scope:
    """Names visible at one place: locals over the ruleset's globals."""

    def __init__(self, ctx: Context, owner: str, locals_: Iterable[str] = (), kind: str = "",
                 param_types: dict[str, str] | None = None) -> None:
        self.ctx = ctx
        self.owner = owner
        self.locals: set[str] = set(locals_)
        self.kind = kind  # "army" lets requirements use army quantities
        self.param_types = param_types or {}  # parameter → the situation or stat it is typed by

    def child(self, names: Iterable[str]) -> "Scope":
        s = Scope(self.ctx, self.owner, self.locals | set(names), self.kind, self.param_types)
        return s

    @classmethod
    def of(cls, ctx: Context, owner: str, params: tuple[A.Param, ...]) -> "Scope":
        types = {p.name: p.type for p in params if isinstance(p.type, str)}
        return cls(ctx, owner, [p.name for p in params], param_types=types)

    def visible(self) -> set[str]:
        rs = self.ctx.ruleset
        names = set(self.locals) | set(rs.situations) | set(rs.profiles)
        for s in rs.situations.values():
            names |= set(s.choices)
        if self.kind == "army":
            names |= ARMY_NAMES
        return names


def removed_by(rs: Ruleset, name: str) -> tuple[Ruleset, Span] | None:
    """The overlay (this one or one of its bases) that removed ``name``, and the removal's line."""
    layer: Ruleset | None = rs
    while layer is not None:
        if name in layer.removed and name in layer.changed_at:
            return layer, layer.changed_at[name]
        layer = layer.base
    return None


def _dangling(ctx: Context, name: str, span: Span, used: str = "is still used here") -> bool:
    """W605 for a use of a declaration that an overlay removed; True when reported."""
    found = removed_by(ctx.ruleset, name)
    if found is None:
        return False
    layer, where = found
    by = "this overlay" if layer is ctx.ruleset else f"the overlay '{layer.id}'"
    ctx.sink.error("W605", f"'{name}' was removed by {by} (line {where.line}) but {used}", span,
                   "replace or remove what uses it as well, or keep the declaration",
                   related=[(where, "removed here")])
    return True


def _unknown(ctx: Context, name: str, span: Span, pool: Iterable[str], what: str = "name") -> None:
    if what not in ("parameter", "step", "role (a parameter of an attack)") and _dangling(ctx, name, span):
        return
    close = did_you_mean(name, pool)
    hint = f"did you mean '{close}'?" if close else None
    ctx.sink.error("W101", f"unknown {what} '{name}'", span, hint)


def check_expr(expr: A.Expr | None, scope: Scope) -> None:
    if expr is None:
        return
    ctx = scope.ctx
    rs = ctx.ruleset
    if isinstance(expr, A.Name):
        if expr.id in scope.locals or expr.id in rs.situations or expr.id in rs.profiles:
            return
        if any(expr.id in s.choices for s in rs.situations.values()):
            return
        if scope.kind == "army" and expr.id in ARMY_NAMES:
            return
        decl = rs.get(expr.id)
        if decl is not None:
            if isinstance(decl, A.Stat):
                ctx.sink.error("W101", f"'{expr.id}' is a stat, but nothing here gives its value", expr.span,
                               f"take it as a parameter, e.g. ({expr.id}), or read it from a profile: unit.{expr.id}")
            elif isinstance(decl, (A.Test, A.Table, A.Formula, A.Attack)):
                ctx.sink.error("W201", f"'{expr.id}' is a {kind_of(decl)}: call it with its values, "
                               f"e.g. {expr.id}(…)", expr.span)
            else:
                ctx.sink.error("W201", f"'{expr.id}' is a {kind_of(decl)}, not a value", expr.span)
            return
        _unknown(ctx, expr.id, expr.span, scope.visible() | set(rs.callables))
        return
    if isinstance(expr, A.Group):
        prof = rs.profiles.get(expr.profile)
        if prof is None:
            _unknown(ctx, expr.profile, expr.span, rs.profiles, "unit")
        elif prof.kind != "unit":
            ctx.sink.error("W201", f"'{expr.profile}' is a weapon; a number of models needs a unit", expr.span)
        if expr.count < 0:
            ctx.sink.error("W202", "a number of models cannot be negative", expr.span)
        elif expr.count > MAX_COUNT:
            ctx.sink.error("W903", f"{expr.count:,} models is more than warscribe will count ({MAX_COUNT:,})",
                           expr.span)
        return
    if isinstance(expr, A.Dice):
        if expr.sides < 1:
            ctx.sink.error("W202", f"a die needs at least one side, not {expr.sides}", expr.span)
        if expr.count > MAX_DICE:
            ctx.sink.error("W903", f"{expr.count:,} dice at once is more than warscribe will roll ({MAX_DICE:,})",
                           expr.span)
        if expr.sides > MAX_SIDES and expr.name not in rs.dice:
            ctx.sink.error("W903", f"a die of {expr.sides:,} sides is more than warscribe will roll ({MAX_SIDES:,})",
                           expr.span)
        elif expr.count <= MAX_DICE and expr.name not in rs.dice and \
                dice_outcomes(expr.count, expr.sides) > MAX_OUTCOMES:
            ctx.sink.error("W903", f"{expr.count}{expr.name} has {dice_outcomes(expr.count, expr.sides):,} "
                           f"possible totals; warscribe works with at most {MAX_OUTCOMES:,}", expr.span,
                           "roll fewer dice, or fewer sides")
        return
    if isinstance(expr, A.Call):
        for a in expr.args:
            check_expr(a, scope)
        for _, v in expr.kwargs:
            check_expr(v, scope)
        if expr.func in scope.locals:
            ctx.sink.error("W201", f"'{expr.func}' is a value here, not something to call", expr.func_span)
            return
        decl = rs.callables.get(expr.func)
        if decl is not None:
            params = decl.params  # type: ignore[attr-defined]
            if len(expr.args) + len(expr.kwargs) != len(params):
                ctx.sink.error("W203", f"{kind_of(decl)} '{expr.func}' takes {len(params)} "
                               f"value{'s' if len(params) != 1 else ''} ({', '.join(p.name for p in params)}), "
                               f"but {len(expr.args) + len(expr.kwargs)} {'are' if len(expr.args) + len(expr.kwargs) != 1 else 'is'} given",
                               expr.span, related=[(decl.span, "defined here")])
            names = {p.name for p in params}
            for k, v in expr.kwargs:
                if k not in names:
                    _unknown(ctx, k, v.span, names, "parameter")
            ctx.calls.setdefault(scope.owner, []).append((expr.func, expr.func_span))
            return
        if expr.func in BUILTINS:
            lo, hi = BUILTINS[expr.func]
            n = len(expr.args)
            if not lo <= n <= hi:
                want = str(lo) if lo == hi else f"{lo} to {hi}"
                ctx.sink.error("W203", f"{expr.func} takes {want} value{'s' if hi != 1 else ''}, but {n} "
                               f"{'are' if n != 1 else 'is'} given", expr.span, BUILTIN_WORDS.get(expr.func))
            return
        other = rs.get(expr.func)
        if other is not None:
            ctx.sink.error("W201", f"'{expr.func}' is a {kind_of(other)}, which cannot be called", expr.func_span)
            return
        _unknown(ctx, expr.func, expr.func_span, set(rs.callables) | set(BUILTINS), "test, table or formula")
        return
    if isinstance(expr, A.Attr):
        check_expr(expr.obj, scope)
        known = set(rs.stats) | BUILTIN_ATTRS
        for att in rs.of_type(A.Attack):
            known |= {s.name for s in att.steps}
        if expr.name not in known:
            _unknown(ctx, expr.name, expr.span, known, "stat")
        return
    if isinstance(expr, A.IsChoice):
        check_expr(expr.operand, scope)
        sit = None
        if isinstance(expr.operand, A.Name):
            sit = rs.situations.get(scope.param_types.get(expr.operand.id, expr.operand.id))
        if sit is not None:
            if not sit.choices:
                ctx.sink.error("W201", f"situation '{sit.id}' is yes/no or a number; "
                               f"'is' compares with one of a list of choices", expr.span,
                               f"write just '{sit.id}' (or 'not {sit.id}')" if sit.kind == "flag" else None)
            elif expr.choice not in sit.choices:
                close = did_you_mean(expr.choice, sit.choices)
                ctx.sink.error("W101", f"'{expr.choice}' is not a choice of '{sit.id}'", expr.span,
                               f"did you mean '{close}'?" if close else "choices: " + ", ".join(sit.choices))
        elif not any(expr.choice in s.choices for s in rs.situations.values()):
            allc = {c for s in rs.situations.values() for c in s.choices}
            _unknown(ctx, expr.choice, expr.span, allc, "choice")
        return
    if isinstance(expr, A.Has):
        check_expr(expr.operand, scope)
        known = {e.id for e in rs.of_type(A.Entry)} | {a.id for a in rs.of_type(A.Ability)} | \
            {p.klass for p in rs.profiles.values() if p.klass}
        if expr.keyword not in known:
            _unknown(ctx, expr.keyword, expr.span, known, "keyword or ability")
        return
    if isinstance(expr, A.With):
        check_expr(expr.expr, scope)
        for s in expr.settings:
            check_setting(s, scope)
        return
    for child in A.children(expr):
        check_expr(child, scope)


def check_setting(s: A.Setting, scope: Scope) -> None:
    rs = scope.ctx.ruleset
    sit = rs.situations.get(s.name)
    if sit is None:
        _unknown(scope.ctx, s.name, s.span, rs.situations, "situation")
        return
    if s.value is None:
        if sit.kind != "flag":
            scope.ctx.sink.error("W201", f"situation '{sit.id}' needs a value: {sit.id} = …", s.span,
                                 "choices: " + ", ".join(sit.choices) if sit.choices else None)
        return
    if sit.kind == "flag":
        scope.ctx.sink.error("W201", f"situation '{sit.id}' is yes/no: write '{sit.id}' or 'not {sit.id}'", s.span)
        return
    if sit.choices:
        if isinstance(s.value, A.Name) and s.value.id in sit.choices:
            return
        shown = s.value.id if isinstance(s.value, A.Name) else "this value"
        close = did_you_mean(shown, sit.choices) if isinstance(s.value, A.Name) else None
        scope.ctx.sink.error("W202", f"'{shown}' is not a choice of '{sit.id}'", s.value.span,
                             f"did you mean '{close}'?" if close else "choices: " + ", ".join(sit.choices))
        return
    check_expr(s.value, scope)


def _param_names(params: tuple[A.Param, ...]) -> list[str]:
    return [p.name for p in params]


def check_params(ctx: Context, params: tuple[A.Param, ...], owner: str) -> None:
    seen: set[str] = set()
    rs = ctx.ruleset
    for p in params:
        if p.name in seen:
            ctx.sink.error("W102", f"'{owner}' has two parameters called '{p.name}'", p.span)
        seen.add(p.name)
        if isinstance(p.type, str) and p.type not in ("unit", "weapon", "number", "target", "squad") \
                and p.type not in rs.stats and p.type not in rs.situations:
            _unknown(ctx, p.type, p.span, set(rs.stats) | {"unit", "weapon", "number", "target"}, "type")
        if isinstance(p.type, A.RangeExpr):
            check_range(ctx, p.type)


def check_range(ctx: Context, rng: A.RangeExpr) -> tuple[int, int] | None:
    ends = int_range(rng)
    if ends is None:
        ctx.sink.error("W201", "a range is written with whole numbers, such as 1..10", rng.span)
        return None
    lo, hi = ends
    if lo > hi:
        ctx.sink.error("W202", f"this range is empty: {lo} is more than {hi}", rng.span,
                       f"write {hi}..{lo}")
        return None
    return lo, hi


def check_names(ctx: Context) -> None:
    rs = ctx.ruleset
    step_names = {s.name for a in rs.of_type(A.Attack) for s in a.steps}
    for d in rs.walk():
        if isinstance(d, A.Test):
            check_params(ctx, d.params, d.id)
            scope = Scope.of(ctx, d.id, d.params)
            if d.roll is not None:
                check_expr(d.roll.dice, scope)
                check_expr(d.roll.target, scope)
            check_expr(d.never_better, scope)
            check_expr(d.never_worse, scope)
        elif isinstance(d, A.Table):
            check_params(ctx, d.params, d.id)
            scope = Scope.of(ctx, d.id, d.params)
            check_expr(d.formula, scope)
            for let in d.lets:
                check_expr(let.value, scope)
                scope = scope.child([let.name])
            for row in d.rows:
                check_expr(row.pattern, scope)
                check_expr(row.result, scope)
            if d.grid is not None:
                names = _param_names(d.params)
                for p, span in ((d.grid.row_param, d.grid.span), (d.grid.col_param, d.grid.span)):
                    if p not in names:
                        _unknown(ctx, p, span, names, "parameter")
                for _, cells in d.grid.rows:
                    for cell in cells:
                        check_expr(cell, scope)
        elif isinstance(d, A.Formula):
            check_params(ctx, d.params, d.id)
            scope = Scope.of(ctx, d.id, d.params)
            for let in d.lets:
                check_expr(let.value, scope)
                scope = scope.child([let.name])
            check_expr(d.result, scope)
        elif isinstance(d, A.Attack):
            check_params(ctx, d.params, d.id)
            scope = Scope.of(ctx, d.id, d.params)
            for let in d.lets:
                check_expr(let.value, scope)
                scope = scope.child([let.name])
            for i, step in enumerate(d.steps):
                if step.removes_from is not None:
                    if step.removes_from not in scope.locals:
                        _unknown(ctx, step.removes_from, step.span, scope.locals, "step")
                    check_expr(step.removes_target, scope)
                    check_expr(step.damage, scope)
                else:
                    check_expr(step.value, scope)
                if step.name in scope.locals:
                    ctx.sink.error("W102", f"'{step.name}' is already a name in attack '{d.id}'", step.span)
                scope = scope.child([step.name])
            if not d.steps:
                ctx.sink.error("W106", f"attack '{d.id}' has no steps", d.span,
                               "write steps such as: hits = attacks each hit(shooter.BS)")
        elif isinstance(d, A.Modifier):
            scope = Scope(ctx, d.id, _roles(rs))
            check_expr(d.when, scope)
            for e in d.effects:
                check_effect(ctx, e, scope)
        elif isinstance(d, A.Ability):
            check_params(ctx, d.params, d.id)
            scope = Scope.of(ctx, d.id, d.params).child(_roles(rs))
            check_expr(d.when, scope)
            for e in d.effects:
                check_effect(ctx, e, scope)
            for h in d.hooks:
                check_hook(ctx, h, scope)
        elif isinstance(d, A.Example):
            scope = Scope(ctx, d.id)
            for let in d.lets:
                check_expr(let.value, scope)
                scope = scope.child([let.name])
            for ex in d.expects:
                check_expect(ex, scope.child(step_names))
        elif isinstance(d, A.Property):
            scope = Scope(ctx, d.id, [b.name for b in d.bindings])
            for b in d.bindings:
                check_range(ctx, b.range)
            for let in d.lets:
                check_expr(let.value, scope)
                scope = scope.child([let.name])
            for ex in d.expects:
                check_expect(ex, scope)
            if not d.bindings:
                ctx.sink.error("W106", f"property '{d.id}' does not say what it ranges over", d.span,
                               "add a line such as: for S in 1..10, T in 1..10")
        elif isinstance(d, A.Army):
            scope = Scope(ctx, d.id, kind="army")
            for r in d.requires:
                check_expr(r.expr, scope)
        elif isinstance(d, A.Game):
            scope = Scope(ctx, d.id)
            for s in d.scores:
                check_expr(s.value, scope)
                if s.per is not None and s.per not in rs.symbols:
                    # 'per' takes any word; a near miss of a defined name is probably a typo.
                    pool = {e.id for e in rs.of_type(A.Entry)} | set(rs.profiles) | \
                        {q.id for q in rs.of_type(A.Squad)}
                    close = did_you_mean(s.per, pool)
                    if close:
                        ctx.sink.warning("W108", f"'{s.per}' is not defined; did you mean '{close}'?", s.span,
                                         "a defined name after 'per' links to its entry")
        elif isinstance(d, A.Situation) and d.range is not None:
            check_range(ctx, d.range)
        elif isinstance(d, A.Stat) and isinstance(d.type, A.RangeExpr):
            check_range(ctx, d.type)


def _roles(rs: Ruleset) -> set[str]:
    """The parameter names of the attack sequences: conditions may ask about them."""
    return {p.name for a in rs.of_type(A.Attack) for p in a.params}


def check_expect(e: A.Expect, scope: Scope) -> None:
    check_expr(e.subject, scope)
    check_expr(e.expected, scope)
    check_expr(e.tolerance, scope)
    if e.tolerance is not None and e.op != "~":
        scope.ctx.sink.error("W201", "a tolerance (± …) goes with an approximate expectation (~)", e.tolerance.span,
                             "write: expect P(x) ~ 0.69 ± 0.01")


def check_effect(ctx: Context, e: A.Effect, scope: Scope) -> None:
    rs = ctx.ruleset
    tests = {t.id for t in rs.of_type(A.Test)}
    if e.test is not None and e.test not in tests:
        _unknown(ctx, e.test, e.span, tests, "test")
    if e.stat is not None and e.stat not in rs.stats:
        _unknown(ctx, e.stat, e.span, rs.stats, "stat")
    if e.role is not None:
        roles = {p.name for a in rs.of_type(A.Attack) for p in a.params} | \
                {p.name for t in rs.of_type(A.Test) for p in t.params}
        if roles and e.role not in roles:
            _unknown(ctx, e.role, e.span, roles, "role (a parameter of an attack)")
    if e.value is not None:
        check_expr(e.value, scope)


def check_hook(ctx: Context, h: A.Hook, scope: Scope) -> None:
    tests = {t.id for t in ctx.ruleset.of_type(A.Test)}
    if h.test is not None and h.test not in tests:
        _unknown(ctx, h.test, h.span, tests, "test")
    if h.natural is not None and not 1 <= h.natural <= 1000:
        ctx.sink.error("W202", f"no die shows a natural {h.natural}", h.span)
    for eff in h.effects:
        if eff.test is not None and eff.test not in tests:
            _unknown(ctx, eff.test, eff.span, tests, "test")
        check_expr(eff.amount, scope)
    check_expr(h.ignore_damage_on, scope)


# ---------------------------------------------------------------------------
# Pass: light type checks
# ---------------------------------------------------------------------------


def _static_kind(expr: A.Expr, rs: Ruleset, params: dict[str, Any], _seen: frozenset[str] = frozenset()) -> str:
    """"target", "number", "bool", "label" or "unknown" for simple expressions."""
    if isinstance(expr, A.Target) or isinstance(expr, A.Chain):
        return "target"
    if isinstance(expr, A.Const):
        return "target" if expr.value in ("never", "always") else ("bool" if expr.value in ("true", "false") else "unknown")
    if isinstance(expr, (A.Int, A.Decimal, A.Inches)):
        return "number"
    if isinstance(expr, A.Label):
        return "label"
    if isinstance(expr, A.Call):
        decl = rs.callables.get(expr.func)
        if isinstance(decl, A.Table):
            if decl.id in _seen:  # a table that calls itself: the cycle check reports it
                return "unknown"
            seen = _seen | {decl.id}
            kinds = {_static_kind(r.result, rs, {}, seen) for r in decl.rows}
            if decl.grid is not None:
                kinds |= {_static_kind(c, rs, {}, seen) for _, cells in decl.grid.rows for c in cells}
            kinds.discard("unknown")
            return kinds.pop() if len(kinds) == 1 else "unknown"
        if isinstance(decl, A.Test):
            return "bool"
        return "unknown"
    if isinstance(expr, A.Binary):
        if expr.op in ("and", "or", "==", "!=", ">=", "<=", ">", "<"):
            return "bool"
        return "number"
    if isinstance(expr, (A.InRange, A.IsChoice, A.IsNone)):
        return "bool"
    return "unknown"


def check_types(ctx: Context) -> None:
    rs = ctx.ruleset
    for d in rs.walk():
        if isinstance(d, A.Test) and d.roll is not None:
            kind = _static_kind(d.roll.target, rs, {})
            if d.roll.op in (">=", "<=") and kind == "target":
                ctx.sink.error("W201", "this is already a target (such as 4+), but '>=' or '<=' needs a number",
                               d.roll.target.span, f"write: roll … against {_snippet(d.roll.target)}")
            if d.roll.op == "against" and kind in ("number", "bool", "label"):
                ctx.sink.error("W201", f"'against' needs a target such as 4+ or 3-, but this is a {kind}",
                               d.roll.target.span, "write: roll d6 >= N (a high roll) or roll d6 <= N (a low roll)")
            dice_kind = _dice_expr_ok(d.roll.dice)
            if dice_kind is not None:
                ctx.sink.error("W201", dice_kind, d.roll.dice.span, "write the dice, e.g. roll d6 or roll 2d6")
            for n in d.natural_fails + d.natural_succeeds:
                if n < 1:
                    ctx.sink.error("W202", f"no die shows a natural {n}", d.span)
            clash = set(d.natural_fails) & set(d.natural_succeeds)
            if clash:
                ctx.sink.error("W202", f"natural {min(clash)} cannot both fail and succeed", d.span)
        if isinstance(d, A.Table):
            kinds = [(r.result, _static_kind(r.result, rs, {})) for r in d.rows]
            known = [k for _, k in kinds if k != "unknown"]
            if "target" in known and ("number" in known or "bool" in known):
                bad = next(e for e, k in kinds if k in ("number", "bool"))
                ctx.sink.error("W201", f"table '{d.id}' gives targets (such as 4+) in some rows and a "
                               f"{_static_kind(bad, rs, {})} here", bad.span,
                               "write a target, e.g. 4+ for 4 or more, 3- for 3 or less, or never")


def _dice_expr_ok(expr: A.Expr) -> str | None:
    for sub in A.sub_expressions(expr):
        if isinstance(sub, (A.Dice, A.Call, A.Name, A.Attr)):
            return None
    return "a test rolls dice, but this has none"


def _snippet(expr: A.Expr) -> str:
    if isinstance(expr, A.Call):
        return f"{expr.func}(…)"
    if isinstance(expr, A.Target) and isinstance(expr.value, A.Int):
        return f"{expr.value.value}{'+' if expr.direction == 'high' else '-'}"
    return "the target"


# ---------------------------------------------------------------------------
# Pass: cycles between definitions
# ---------------------------------------------------------------------------


def check_cycles(ctx: Context) -> None:
    graph = ctx.calls
    state: dict[str, int] = {}
    reported: set[frozenset[str]] = set()

    def visit(node: str, path: list[tuple[str, Span]]) -> None:
        state[node] = 1
        for callee, span in graph.get(node, []):
            if state.get(callee) == 1:
                names = [n for n, _ in path] + [node]
                start = names.index(callee) if callee in names else 0
                cycle = names[start:] + [callee]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    ctx.sink.error("W401", "these definitions call each other in a circle: " + " → ".join(cycle),
                                   span, "a table, formula or test cannot depend on itself")
            elif state.get(callee) is None:
                visit(callee, path + [(node, span)])
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node, [])


# ---------------------------------------------------------------------------
# Pass: tables — gaps, unreachable rows, repeated keys
# ---------------------------------------------------------------------------

def _values(ends: tuple[int, int]) -> Any:
    """The whole numbers of a range: a list, or a lazy range when it is too long to list."""
    lo, hi = ends
    return list(range(lo, hi + 1)) if hi - lo < MAX_TABLE_POINTS else LongRange(lo, hi)


def param_domain(rs: Ruleset, p: A.Param) -> list[Any] | None:
    """The values a parameter ranges over, when the ruleset says."""
    t = p.type
    if isinstance(t, A.RangeExpr):
        ends = int_range(t)
        return _values(ends) if ends else None
    stat = rs.stats.get(t if isinstance(t, str) else p.name)
    if stat is not None:
        if isinstance(stat.type, A.RangeExpr):
            ends = int_range(stat.type)
            return _values(ends) if ends else None
        if stat.type == "target":
            return [TargetValue.high(n) for n in range(2, 7)] + [None]
        return None
    sit = rs.situations.get(t if isinstance(t, str) else p.name)
    if sit is not None:
        return situation_domain(sit)
    return None


def situation_domain(sit: A.Situation) -> list[Any]:
    if sit.choices:
        return list(sit.choices)
    if sit.range is not None:
        ends = int_range(sit.range)
        return _values(ends) if ends else [0]
    return [False, True]


def _situations_used(exprs: Iterable[A.Expr | None], rs: Ruleset, params: set[str]) -> list[A.Situation]:
    used: dict[str, A.Situation] = {}
    for e in exprs:
        if e is None:
            continue
        for sub in A.sub_expressions(e):
            if isinstance(sub, A.Name) and sub.id not in params and sub.id in rs.situations:
                used[sub.id] = rs.situations[sub.id]
    return [used[k] for k in sorted(used)]


def _point_words(env: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        if v is None:
            return "none"
        if v is True:
            return "yes"
        if v is False:
            return "no"
        return str(v)
    return ", ".join(f"{k} = {show(v)}" for k, v in env.items())


def check_tables(ctx: Context) -> None:
    rs = ctx.ruleset
    for t in rs.of_type(A.Table):
        if t.formula is not None:
            continue
        if len(t.rows) > MAX_TABLE_ROWS:
            ctx.sink.error("W907", f"table '{t.id}' has {len(t.rows):,} rows; the limit is {MAX_TABLE_ROWS:,}",
                           t.span, "split it into several tables, or write it as a formula")
            continue
        if t.grid is not None:
            cells = sum(len(cells) for _, cells in t.grid.rows)
            if cells > MAX_GRID_CELLS:
                ctx.sink.error("W907", f"the grid of table '{t.id}' has {cells:,} cells; the limit is "
                               f"{MAX_GRID_CELLS:,}", t.span, "split it into several tables")
                continue
            _check_grid(ctx, t)
            continue
        domains = [param_domain(rs, p) for p in t.params]
        if any(d is None for d in domains) or not t.rows:
            continue
        names = [p.name for p in t.params]
        sits = _situations_used([r.pattern for r in t.rows] + [l.value for l in t.lets], rs, set(names))
        sit_domains = [situation_domain(s) for s in sits]
        total = 1
        for dom in domains + sit_domains:  # (+1: a parameter may be none)
            total *= len(dom) + 1  # type: ignore[arg-type]
        if total > MAX_TABLE_POINTS or total * len(t.rows) > MAX_TABLE_WORK:
            ctx.sink.warning("W907", f"table '{t.id}' is too large to check for gaps and unused rows "
                             f"({len(t.rows):,} rows over {total:,} combinations of values)", t.span,
                             f"the check works through at most {MAX_TABLE_POINTS:,} combinations; "
                             "give the parameters smaller ranges")
            continue
        asks_none = {sub.operand.id for r in t.rows if r.pattern is not None
                     for sub in A.sub_expressions(r.pattern)
                     if isinstance(sub, A.IsNone) and isinstance(sub.operand, A.Name)}
        domains = [list(dom) + [None] if p.name in asks_none and None not in dom else dom  # type: ignore[arg-type,operator]
                   for p, dom in zip(t.params, domains)]
        first_hits = [0] * len(t.rows)
        ever_holds = [False] * len(t.rows)
        gaps: list[dict[str, Any]] = []
        broken = False
        for values in product(*domains, *sit_domains):  # type: ignore[arg-type]
            env = dict(zip(names + [s.id for s in sits], values))
            try:
                for let in t.lets:
                    env[let.name] = evaluate(let.value, env, rs)
                matched = None
                for i, row in enumerate(t.rows):
                    if row_matches(t, row, env, rs):
                        ever_holds[i] = True
                        if matched is None:
                            matched = i
            except NotStatic:
                broken = True
                break
            except StaticError as e:
                ctx.sink.error("W201", f"table '{t.id}' cannot be worked out for {_point_words(env)}: {e}",
                               t.span)
                broken = True
                break
            if matched is None:
                gaps.append({k: env[k] for k in names + [s.id for s in sits]})
            else:
                first_hits[matched] += 1
        if broken:
            continue
        if gaps:
            shown = "; ".join(_point_words(g) for g in gaps[:3])
            more = f" … and {len(gaps) - 3} more" if len(gaps) > 3 else ""
            ctx.sink.warning("W301", f"table '{t.id}' says nothing for {shown}{more}", t.span,
                             "add a row for these values, or an 'otherwise' row")
        repeated = _repeated_keys(ctx, t)
        for i, row in enumerate(t.rows):
            if first_hits[i] == 0 and i not in repeated:
                if not ever_holds[i]:
                    ctx.sink.warning("W302", f"this row of table '{t.id}' never applies: its case is false "
                                     f"for every value of {', '.join(names)}", row.span,
                                     "check the case against the parameters' ranges and choices")
                    continue
                earlier = [r for r in t.rows[:i] if r.pattern is not None]
                ctx.sink.warning("W302", f"this row of table '{t.id}' can never be used: the rows above it "
                                 "already cover every case it matches", row.span,
                                 "rows are tried in order and the first match wins: move this row up, "
                                 "or narrow the rows above",
                                 related=[(r.span, "an earlier row") for r in earlier[-1:]])


def _repeated_keys(ctx: Context, t: A.Table) -> set[int]:
    """Keyed rows (``2 -> 5+``) that name a value an earlier row already named."""
    repeated: set[int] = set()
    if len(t.params) != 1:
        return repeated
    keyed: dict[Any, int] = {}
    for i, row in enumerate(t.rows):
        if row.pattern is None or isinstance(row.pattern, A.RangeExpr):
            continue
        try:
            key = evaluate(row.pattern, {}, ctx.ruleset)
        except (NotStatic, StaticError):
            continue
        if isinstance(key, bool):
            continue
        if key in keyed:
            repeated.add(i)
            ctx.sink.warning("W303", f"table '{t.id}' lists {key} twice", row.span,
                             related=[(t.rows[keyed[key]].span, "first listed here")])
        keyed.setdefault(key, i)
    return repeated


def _check_grid(ctx: Context, t: A.Table) -> None:
    g = t.grid
    assert g is not None
    rs = ctx.ruleset
    by_name = {p.name: p for p in t.params}
    seen_rows: dict[int, Span] = {}
    for (key, _), span in zip(g.rows, g.row_spans or (g.span,) * len(g.rows)):
        if key in seen_rows:
            ctx.sink.warning("W303", f"grid of table '{t.id}' has row {key} twice", span,
                             related=[(seen_rows[key], "first row")])
        seen_rows[key] = span
    if len(set(g.columns)) != len(g.columns):
        ctx.sink.warning("W303", f"grid of table '{t.id}' repeats a column", g.span)
    for pname, present in ((g.row_param, set(seen_rows)), (g.col_param, set(g.columns))):
        p = by_name.get(pname)
        dom = param_domain(rs, p) if p is not None else None
        if dom is None:
            continue
        missing = list(islice((v for v in dom if v not in present), 6))  # a range may be very long
        extra = sorted(v for v in present if v not in dom)
        if missing:
            ctx.sink.warning("W301", f"the grid of table '{t.id}' has no {pname} = "
                             + ", ".join(str(m) for m in missing[:5]) + (" …" if len(missing) > 5 else ""),
                             g.span, f"{pname} ranges over {dom[0]}..{dom[-1]}")
        if extra:
            ctx.sink.warning("W202", f"the grid of table '{t.id}' has {pname} = "
                             + ", ".join(str(m) for m in extra[:5]) + f", outside the range of {pname}", g.span)


# ---------------------------------------------------------------------------
# Pass: profiles — stats, values in range, keywords, abilities, weapons
# ---------------------------------------------------------------------------


def check_profiles(ctx: Context) -> None:
    rs = ctx.ruleset
    keywords = {d.id for d in rs.of_type(A.Entry) if d.kind == "keyword"}
    abilities = {d.id: d for d in rs.of_type(A.Ability)}
    for prof in rs.of_type(A.Profile):
        for sv in prof.stats:
            stat = rs.stats.get(sv.stat)
            if stat is None:
                _unknown(ctx, sv.stat, sv.stat_span, rs.stats, "stat")
                continue
            check_stat_value(ctx, stat, sv, prof)
        _check_refs(ctx, prof.keywords, keywords, "keyword")
        _check_abilities(ctx, prof.abilities, abilities)
        for w, span in prof.weapons:
            other = rs.profiles.get(w)
            if other is None:
                _unknown(ctx, w, span, {p.id for p in rs.profiles.values() if p.kind == "weapon"}, "weapon")
            elif other.kind != "weapon":
                ctx.sink.error("W201", f"'{w}' is a unit, not a weapon", span)
        if prof.points is not None and prof.points < 0:
            ctx.sink.error("W202", "points cannot be negative", prof.span)
    for sq in rs.of_type(A.Squad):
        if sq.unit is not None:
            unit = rs.profiles.get(sq.unit)
            if unit is None:
                _unknown(ctx, sq.unit, sq.unit_span or sq.span,
                         {p.id for p in rs.profiles.values() if p.kind == "unit"}, "unit")
            elif unit.kind != "unit":
                ctx.sink.error("W201", f"'{sq.unit}' is a weapon; a squad is made of units", sq.unit_span or sq.span)
        else:
            ctx.sink.error("W106", f"squad '{sq.id}' does not say which models it has", sq.span,
                           "add a line such as: models space_marine 5..10")
        if sq.min_models is not None and sq.max_models is not None:
            if sq.min_models > sq.max_models:
                ctx.sink.error("W202", f"squad '{sq.id}' has at least {sq.min_models} but at most "
                               f"{sq.max_models} models", sq.span)
            if sq.min_models < 1:
                ctx.sink.error("W202", f"squad '{sq.id}' needs at least one model", sq.span)
        _check_refs(ctx, sq.keywords, keywords, "keyword")
        _check_abilities(ctx, sq.abilities, abilities)
        for w, span in sq.weapons:
            other = rs.profiles.get(w)
            if other is None or other.kind != "weapon":
                _unknown(ctx, w, span, {p.id for p in rs.profiles.values() if p.kind == "weapon"}, "weapon")


def _check_refs(ctx: Context, refs: tuple[tuple[str, Span], ...], pool: set[str], what: str) -> None:
    for name, span in refs:
        if name not in pool:
            _unknown(ctx, name, span, pool, what)


def _check_abilities(ctx: Context, uses: tuple[A.AbilityUse, ...], abilities: dict[str, A.Ability]) -> None:
    for use in uses:
        ab = abilities.get(use.ability)
        if ab is None:
            _unknown(ctx, use.ability, use.span, abilities, "ability")
            continue
        if ab.params and use.arg is None:
            ctx.sink.error("W203", f"ability '{ab.id}' needs a value: {ab.id}({ab.params[0].name})", use.span)
        elif not ab.params and use.arg is not None:
            ctx.sink.error("W203", f"ability '{ab.id}' takes no value", use.span)
        elif ab.params and use.arg is not None and isinstance(ab.params[0].type, A.RangeExpr):
            ends = int_range(ab.params[0].type)
            if ends and not ends[0] <= use.arg <= ends[1]:
                ctx.sink.error("W202", f"{ab.title} {use.arg} is outside {ends[0]}..{ends[1]}", use.span)


def check_stat_value(ctx: Context, stat: A.Stat, sv: A.StatValue, prof: A.Profile) -> None:
    t = stat.type
    where = f"{prof.title}'s {stat.id}"
    if sv.kind == "none":
        return
    if isinstance(t, A.RangeExpr):
        if sv.kind != "int":
            ctx.sink.error("W201", f"{where} is a number from the stat's range, not {sv.text}", sv.span,
                           f"stat {stat.id} is declared as a whole number")
            return
        ends = int_range(t)
        if ends is None:
            return
        lo, hi = ends
        if not lo <= sv.value <= hi:  # type: ignore[operator]
            ctx.sink.error("W202", f"{where} is {sv.value}, outside its range {lo}..{hi}", sv.span,
                           f"stat {stat.id} is declared as {lo}..{hi}", related=[(stat.span, "declared here")])
    elif t == "target":
        if sv.kind not in ("high", "low"):
            ctx.sink.error("W201", f"{where} is a target such as 3+, not {sv.text}", sv.span,
                           f"write {sv.text}+ for a roll of {sv.text} or more" if sv.kind == "int" else None)
    elif t == "distance":
        if sv.kind not in ("inches", "int"):
            ctx.sink.error("W201", f'{where} is a distance such as 6", not {sv.text}', sv.span)
    elif t == "dice":
        if sv.kind not in ("dice", "int"):
            ctx.sink.error("W201", f"{where} is a number of dice such as D6 or 2, not {sv.text}", sv.span)
    elif t == "number":
        if sv.kind != "int":
            ctx.sink.error("W201", f"{where} is a number, not {sv.text}", sv.span)


# ---------------------------------------------------------------------------
# Pass: dice
# ---------------------------------------------------------------------------


def check_dice(ctx: Context) -> None:
    for die in ctx.ruleset.of_type(A.Die):
        if len(die.faces) != die.base_sides:
            ctx.sink.error("W204", f"die {die.id} is made from a d{die.base_sides}, so it needs "
                           f"{die.base_sides} faces, not {len(die.faces)}", die.span,
                           "list what each face of the base die counts as, in order")


# ---------------------------------------------------------------------------
# Pass: situations, modifiers, game structure
# ---------------------------------------------------------------------------


def check_situations(ctx: Context) -> None:
    rs = ctx.ruleset
    for sit in rs.of_type(A.Situation):
        if len(set(sit.choices)) != len(sit.choices):
            ctx.sink.error("W102", f"situation '{sit.id}' lists a choice twice", sit.span)
    for att in rs.of_type(A.Attack):
        if att.steps and att.steps[0].removes_from is not None:
            ctx.sink.error("W201", "an attack starts by counting its attacks, not by removing models",
                           att.steps[0].span)


# ---------------------------------------------------------------------------
# Pass: prose references and notes
# ---------------------------------------------------------------------------


def _prose_of(d: A.Decl) -> Iterator[A.Prose]:
    if isinstance(d, A.ProseBlock):
        yield d.prose or A.Prose(d.span, d.text)
        return
    yield from getattr(d, "prose", ()) or ()
    if isinstance(d, A.Game):
        for ph in d.phases:
            yield from ph.prose
        for s in d.scores:
            yield from s.prose
        for v in d.victories:
            yield from v.prose


def _short_texts(d: A.Decl) -> Iterator[tuple[str, Span]]:
    """One-line texts (definitions, phase and step texts) with the span of their owner."""
    for name in ("short", "text"):
        value = getattr(d, name, None)
        if isinstance(value, str) and not isinstance(d, A.ProseBlock):
            yield value, d.span
    if isinstance(d, A.Game):
        for part in game_parts(d):
            value = getattr(part, "text", None)
            if isinstance(value, str):
                yield value, part.span


def check_prose(ctx: Context) -> None:
    rs = ctx.ruleset
    known = set(rs.symbols) | set(rs.dice)
    decls = list(rs.walk())
    if rs.header is not None:
        decls.append(rs.header)  # type: ignore[arg-type]
    for d in decls:
        for text, span in _short_texts(d):
            for m in PROSE_REF.finditer(text):
                ref = m.group(1).strip()
                if ref not in known and not _dangling(ctx, ref, span, "the text still links to it"):
                    close = did_you_mean(ref, known)
                    ctx.sink.error("W107", f"the text links to '{ref}', which is not defined", span,
                                   f"did you mean '{close}'?" if close else "links are written [[id]] or [[id|text]]")
        for p in _prose_of(d):
            for m in PROSE_REF.finditer(p.text):
                ref = m.group(1).strip()
                if ref not in known:
                    line, col = p.position(m.start())
                    span = Span(p.span.file, line, col, line, col + len(m.group(0)))
                    if _dangling(ctx, ref, span, "the prose still links to it"):
                        continue
                    close = did_you_mean(ref, known)
                    ctx.sink.error("W107", f"the prose links to '{ref}', which is not defined", span,
                                   f"did you mean '{close}'?" if close else "links are written [[id]] or [[id|text]]")


def check_notes(ctx: Context) -> None:
    rs = ctx.ruleset
    examples = {d.id for d in rs.of_type(A.Example)} | {d.id for d in rs.of_type(A.Property)}
    for n in rs.of_type(A.Note):
        for name, span in n.pinned_by:
            if name not in examples:
                _unknown(ctx, name, span, examples, "example")
        for name, span in n.see:
            if name not in rs.symbols:
                _unknown(ctx, name, span, rs.symbols, "name")
        if n.kind == "open question":
            ctx.sink.note("W501", f"open question: {n.title}", n.span)
    for d in rs.walk():
        for name, span in getattr(d, "see", ()) or ():
            if not isinstance(d, A.Note) and name not in rs.symbols:
                _unknown(ctx, name, span, rs.symbols, "name")


def check_header(ctx: Context) -> None:
    h = ctx.ruleset.header
    if h.version is None:
        ctx.sink.warning("W405", f"ruleset '{h.id}' has no version", h.span,
                         "add a line such as: version 1.0.0")
    versions = [e.version for e in h.history]
    if h.version and versions and h.version not in versions:
        ctx.sink.warning("W406", f"the history does not mention the current version {h.version}", h.span)
    if len(set(versions)) != len(versions):
        ctx.sink.warning("W406", "the history lists a version twice", h.span)
    newest = max(versions, key=_semver, default=None)
    if h.version and newest and h.version in versions and _semver(newest) > _semver(h.version):
        entry = next(e for e in h.history if e.version == newest)
        ctx.sink.warning("W407", f"the history lists version {newest}, newer than the current version {h.version}",
                         entry.span, f"set 'version {newest}' in the header, or correct the history line")


def _semver(v: str) -> tuple[int, ...]:
    """``"1.2.10"`` → (1, 2, 10); the numbers of a version, for ordering."""
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", v)
    return tuple(int(x) for x in m.groups()) if m else ()


CHECKS: tuple[Callable[[Context], None], ...] = (
    check_header,
    check_duplicates,
    check_names,
    check_types,
    check_cycles,
    check_tables,
    check_profiles,
    check_dice,
    check_situations,
    check_prose,
    check_notes,
)


def run_checks(ruleset: Ruleset, sink: Sink) -> None:
    """Run every check on one ruleset, collecting diagnostics in ``sink``."""
    ctx = Context(ruleset, sink)
    for check in CHECKS:
        check(ctx)
