"""The names pass: every declaration's expressions checked in the scope they are written in.

:func:`check_names` walks the ruleset and hands each declaration to the small function for its
kind: a test sees its parameters, a table its parameters and ``let`` names, an attack each step
named above it, a modifier or ability the roles of the attack sequences, an army the army
quantities.  Calls found on the way fill the context's call graph for the cycle pass.
"""
from __future__ import annotations

from typing import Callable

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context, Scope
from compiler.check.expressions import (check_effect, check_expect, check_expr, check_hook, check_params,
                                        check_range)
from compiler.check.names import report_unknown
from compiler.diagnostics import did_you_mean
from compiler.check.builtins import ARMY_NAMES
from compiler.model.armies import KEYWORD_ROLES, UNIT_NAMES, unchecked_requirements
from compiler.model.ruleset import Ruleset


def check_names(ctx: Context) -> None:
    """Pass: names, arity and scopes in every declaration (W101, W102, W106, W108, W201–W203…)."""
    for d in ctx.ruleset.walk():
        for kind, check in _DECL_CHECKS:
            if isinstance(d, kind):
                check(ctx, d)
                break


def roles(rs: Ruleset) -> set[str]:
    """The parameter names of the attack sequences: conditions may ask about them."""
    return {p.name for a in rs.of_type(A.Attack) for p in a.params}


def _with_lets(scope: Scope, lets: tuple[A.Let, ...]) -> Scope:
    """Check each ``let`` in order; each name is visible to the lines below it."""
    for let in lets:
        check_expr(let.value, scope)
        scope = scope.child([let.name])
    return scope


def _test(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Test)
    check_params(ctx, d.params, d.id)
    scope = Scope.of(ctx, d.id, d.params)
    if d.roll is not None:
        check_expr(d.roll.dice, scope)
        check_expr(d.roll.target, scope)
    check_expr(d.never_better, scope)
    check_expr(d.never_worse, scope)


def _table(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Table)
    check_params(ctx, d.params, d.id)
    scope = Scope.of(ctx, d.id, d.params)
    check_expr(d.formula, scope)
    scope = _with_lets(scope, d.lets)
    for row in d.rows:
        check_expr(row.pattern, scope)
        check_expr(row.result, scope)
    if d.grid is not None:
        names = [p.name for p in d.params]
        for p, span in ((d.grid.row_param, d.grid.span), (d.grid.col_param, d.grid.span)):
            if p not in names:
                report_unknown(ctx, p, span, names, "parameter")
        for _, cells in d.grid.rows:
            for cell in cells:
                check_expr(cell, scope)


def _formula(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Formula)
    check_params(ctx, d.params, d.id)
    scope = _with_lets(Scope.of(ctx, d.id, d.params), d.lets)
    check_expr(d.result, scope)


def _totals_in_test(ctx: Context, d: A.Attack, step: A.Step, steps: set[str]) -> None:
    """A test rolled for each attack of an earlier step (``hits each hit(…)``) reads the attack's
    parameters, lets and the situation, never a step's total: ``hits each hit(hits + 2)`` is
    refused where the total is read (W101), rather than resolved as something else."""
    v = step.value
    if not (isinstance(v, A.Each) and not v.becomes and isinstance(v.count, A.Name) and v.count.id in steps
            and isinstance(v.item, A.Call) and isinstance(ctx.ruleset.callables.get(v.item.func), A.Test)):
        return
    for arg in v.item.args + tuple(x for _, x in v.item.kwargs):
        for e in A.sub_expressions(arg):
            if isinstance(e, A.Name) and e.id in steps:
                ctx.sink.error(codes.UNKNOWN_NAME,
                               f"'{e.id}' is the total of a step of attack '{d.id}'; the test '{v.item.func}' "
                               f"rolled for each attack of '{v.count.id}' cannot read it", e.span,
                               "a test rolled for each attack reads the attack's parameters, its lets and the "
                               "situation; a step's total is read by a step over totals, e.g. capped = min(hits, 3)")


def _attack(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Attack)
    check_params(ctx, d.params, d.id)
    scope = _with_lets(Scope.of(ctx, d.id, d.params), d.lets)
    steps: set[str] = set()  # the earlier steps
    for step in d.steps:
        if step.removes_from is not None:
            if step.removes_from not in scope.locals:
                report_unknown(ctx, step.removes_from, step.span, scope.locals, "step")
            check_expr(step.removes_target, scope)
            check_expr(step.damage, scope)
        else:
            check_expr(step.value, scope)
            _totals_in_test(ctx, d, step, steps)
        if step.name in scope.locals:
            ctx.sink.error(codes.DUPLICATE, f"'{step.name}' is already a name in attack '{d.id}'", step.span)
        scope = scope.child([step.name])
        steps.add(step.name)
    if not d.steps:
        ctx.sink.error(codes.MISSING_PART, f"attack '{d.id}' has no steps", d.span,
                       "write steps such as: hits = attacks each hit(shooter.BS)")


def _modifier(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Modifier)
    scope = Scope(ctx, d.id, roles(ctx.ruleset))
    check_expr(d.when, scope)
    for e in d.effects:
        check_effect(ctx, e, scope)


def _ability(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Ability)
    check_params(ctx, d.params, d.id)
    scope = Scope.of(ctx, d.id, d.params).child(roles(ctx.ruleset))
    check_expr(d.when, scope)
    for e in d.effects + d.defence:
        check_effect(ctx, e, scope)
    for h in d.hooks:
        check_hook(ctx, h, scope)
        if h.natural_param is not None and h.natural_param not in {p.name for p in d.params}:
            report_unknown(ctx, h.natural_param, h.span, [p.name for p in d.params], f"parameter of '{d.id}'")


def _example(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Example)
    step_names = {s.name for a in ctx.ruleset.of_type(A.Attack) for s in a.steps}
    scope = _with_lets(Scope(ctx, d.id), d.lets)
    for ex in d.expects:
        check_expect(ex, scope.child(step_names))


def _property(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Property)
    scope = Scope(ctx, d.id, [b.name for b in d.bindings])
    for b in d.bindings:
        check_range(ctx, b.range)
    scope = _with_lets(scope, d.lets)
    for ex in d.expects:
        check_expect(ex, scope)
    if not d.bindings:
        kind = "claim" if isinstance(d, A.Claim) else "property"
        ctx.sink.error(codes.MISSING_PART, f"{kind} '{d.id}' does not say what it ranges over", d.span,
                       "add a line such as: for S in 1..10, T in 1..10")


def _army(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Army)
    scope = Scope(ctx, d.id, kind="army")
    for r in d.requires:
        check_expr(r.expr, scope)
    for u in unchecked_requirements(ctx.ruleset, d):
        ctx.sink.warning(codes.ARMY_RULE_UNCHECKED, f"no army list can show this requirement met or broken: "
                         f"{u.why}", u.span, "army check and the army builder report it as not checked")
    for r in d.unit_requires:
        _unit_requirement(ctx, d, r)


def _unit_requirement(ctx: Context, d: A.Army, r: A.Requirement) -> None:
    """``require each unit: …`` reads only one unit's own quantities: its models, points and weapons
    (UNIT_NAMES), its keywords, its weapons' abilities, a weapon's name, a stat of its profile."""
    rs = ctx.ruleset
    own = set(UNIT_NAMES) | {e.id for e in rs.of_type(A.Entry) if e.kind == "keyword"} \
        | {a.id for a in rs.of_type(A.Ability)} \
        | {p.id for p in rs.profiles.values() if p.kind == "weapon"} | {s.id for s in rs.of_type(A.Stat)}
    wrong: set[str] = set()
    for node in _names_in(r.expr):
        if node.id in own or node.id in wrong:
            continue
        wrong.add(node.id)
        if node.id in ARMY_NAMES:
            ctx.sink.error(codes.UNKNOWN_NAME, f"'{node.id}' is a quantity of the whole list, not of one unit",
                           node.span, f"write it in a `require` line of its own; `require each unit:` reads "
                           f"{', '.join(UNIT_NAMES)}, a keyword, an ability, a weapon or a stat")
        else:
            report_unknown(ctx, node.id, node.span, own, "quantity of one unit")
    check_expr(r.expr, Scope(ctx, d.id, own | wrong))


def _names_in(expr: A.Expr) -> list[A.Name]:
    """Every name an expression reads, as nodes (with their spans)."""
    if isinstance(expr, A.Name):
        return [expr]
    out: list[A.Name] = []
    for child in A.children(expr):
        out += _names_in(child)
    return out


def _game(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Game)
    rs = ctx.ruleset
    scope = Scope(ctx, d.id)
    for s in d.scores:
        if s.surviving or s.destroyed or s.held_at is not None:
            continue  # worked out by the battle (for a surviving model, a destroyed unit): the battles pass checks it
        check_expr(s.value, scope)
        if s.per is not None and s.per not in rs.symbols:
            # 'per' takes any word; a near miss of a defined name is probably a typo.
            pool = {e.id for e in rs.of_type(A.Entry)} | set(rs.profiles) | {q.id for q in rs.of_type(A.Squad)}
            close = did_you_mean(s.per, pool)
            if close:
                ctx.sink.warning(codes.NEAR_MISS, f"'{s.per}' is not defined; did you mean '{close}'?", s.span,
                                 "a defined name after 'per' links to its entry")


def _situation(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Situation)
    if d.range is not None:
        check_range(ctx, d.range)


def _entry(ctx: Context, d: A.Decl) -> None:
    """A keyword's role: one the army rules count (``role characters``, ``role special``), one keyword each."""
    assert isinstance(d, A.Entry)
    if d.role is None:
        return
    roles = ", ".join(f"role {r}" for r in KEYWORD_ROLES)
    if d.kind != "keyword":
        ctx.sink.error(codes.UNKNOWN_NAME, f"a {d.kind} has no role; a keyword may have one the army rules count",
                       d.span, f"take 'role {d.role}' off, or make it a keyword ({roles})")
    elif d.role not in KEYWORD_ROLES:
        close = did_you_mean(d.role, KEYWORD_ROLES)
        ctx.sink.error(codes.UNKNOWN_NAME, f"unknown role '{d.role}' of keyword '{d.id}'"
                       + (f"; did you mean '{close}'?" if close else ""), d.span, f"the roles of a keyword are: {roles}")
    else:
        first = next(k for k in ctx.ruleset.of_type(A.Entry) if k.kind == "keyword" and k.role == d.role)
        if first is not d:
            ctx.sink.error(codes.DUPLICATE, f"keywords '{first.id}' and '{d.id}' are both role {d.role}", d.span,
                           f"one keyword counts the army's {KEYWORD_ROLES[d.role]}; give the role to one of them",
                           related=((first.span, f"'{first.id}' is role {d.role} here"),))


def _stat(ctx: Context, d: A.Decl) -> None:
    assert isinstance(d, A.Stat)
    if isinstance(d.type, A.RangeExpr):
        check_range(ctx, d.type)


_DECL_CHECKS: tuple[tuple[type[A.Decl], Callable[[Context, A.Decl], None]], ...] = (
    (A.Test, _test), (A.Table, _table), (A.Formula, _formula), (A.Attack, _attack),
    (A.Modifier, _modifier), (A.Ability, _ability), (A.Example, _example), (A.Property, _property),
    (A.Army, _army), (A.Game, _game), (A.Situation, _situation), (A.Stat, _stat), (A.Entry, _entry),
)
