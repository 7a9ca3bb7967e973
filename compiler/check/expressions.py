"""Names, kinds and arity inside one expression, checked in its :class:`~compiler.check.context.Scope`.

:func:`check_expr` is the entry point: it walks an expression and hands each kind of node to a
small function (a name, a group of models, dice, a call, an attribute, ``is``, ``has``,
``with``).  The other functions check the parts of declarations that hold expressions:
parameters, ranges, settings, expectations, effects and hooks.  The declaration passes
(:mod:`compiler.check.declarations`) and the tools that check one expression typed by a user
(``warscribe eval``, the comparison page) call them.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

from compiler import ast as A
from compiler import codes
from compiler.check.builtins import ARMY_NAMES, BUILTIN_ATTRS, BUILTIN_WORDS, BUILTINS
from compiler.check.context import Context, Scope
from compiler.check.names import rename_fix, report_unknown
from compiler.diagnostics import did_you_mean
from compiler.limits import MAX_COUNT, MAX_DICE, MAX_OUTCOMES, MAX_SIDES, dice_outcomes
from compiler.model.ruleset import kind_of
from compiler.model.static import NotStatic, StaticError, evaluate, int_range
from compiler.words import a_or_an

#: Types a parameter may have besides a stat or a situation.
PARAM_TYPES = ("unit", "weapon", "number", "target", "squad")


def check_expr(expr: A.Expr | None, scope: Scope) -> None:
    """Check every name, call and die in ``expr`` (nothing to do for ``None``).

    >>> from compiler.diagnostics import Sink
    >>> from compiler.driver import compile_text
    >>> model = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nstat BS "BS" 1..10\\n').rulesets[0]
    >>> ctx = Context(model, Sink())
    >>> check_expr(A.Name(A.Span.point("x"), "BS"), Scope(ctx, "question", ["BS"]))
    >>> ctx.sink.items
    ()
    """
    if expr is None:
        return
    for kind, check in _NODE_CHECKS:
        if isinstance(expr, kind):
            check(expr, scope)
            return
    for child in A.children(expr):
        check_expr(child, scope)


def _name(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Name)
    ctx = scope.ctx
    rs = ctx.ruleset
    if expr.id in scope.locals or expr.id in rs.situations or expr.id in rs.profiles:
        return
    if any(expr.id in s.choices for s in rs.situations.values()):
        return
    if scope.kind == "army" and expr.id in ARMY_NAMES:
        return
    decl = rs.get(expr.id)
    if scope.kind == "army" and isinstance(decl, A.Entry) and decl.kind == "keyword":
        return  # in army rules a keyword counts the list's units that have it
    if decl is None and expr.id == "unit":
        ctx.sink.error(codes.UNKNOWN_NAME, "'unit' is the unit a battle works an expression out for, and there is "
                       "none here", expr.span, "take the profile as a parameter, e.g. (u: unit), then ask: u has KEYWORD")
        return
    if decl is None:
        report_unknown(ctx, expr.id, expr.span, scope.visible() | set(rs.callables))
    elif isinstance(decl, A.Stat):
        ctx.sink.error(codes.UNKNOWN_NAME, f"'{expr.id}' is a stat, but nothing here gives its value", expr.span,
                       f"take it as a parameter, e.g. ({expr.id}), or read it from a profile: unit.{expr.id}")
    elif isinstance(decl, (A.Test, A.Table, A.Formula, A.Attack)):
        ctx.sink.error(codes.WRONG_KIND, f"'{expr.id}' is {a_or_an(kind_of(decl))}: call it with its values, "
                       f"e.g. {expr.id}(…)", expr.span)
    else:
        ctx.sink.error(codes.WRONG_KIND, f"'{expr.id}' is {a_or_an(kind_of(decl))}, not a value", expr.span)


def _group(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Group)
    ctx = scope.ctx
    prof = ctx.ruleset.profiles.get(expr.profile)
    if prof is None:
        report_unknown(ctx, expr.profile, expr.span, ctx.ruleset.profiles, "unit")
    elif prof.kind != "unit":
        ctx.sink.error(codes.WRONG_KIND, f"'{expr.profile}' is a weapon; a number of models needs a unit", expr.span)
    if expr.computed is not None:
        check_expr(expr.computed, scope)
        if isinstance(expr.computed, (A.Label, A.Const, A.Target, A.Chain)):
            ctx.sink.error(codes.COMPUTED_COUNT, f"the number of models before '{expr.profile}' must be a whole "
                           "number", expr.computed.span, f"work it out from results, e.g. (10 - r.killed) {expr.profile}")
    elif expr.count < 0:
        ctx.sink.error(codes.OUT_OF_RANGE, "a number of models cannot be negative", expr.span)
    elif expr.count > MAX_COUNT:
        ctx.sink.error(codes.TOO_MANY_DICE, f"{expr.count:,} models is more than warscribe will count "
                       f"({MAX_COUNT:,})", expr.span)


def _dice(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Dice)
    sink = scope.ctx.sink
    custom = expr.name in scope.ctx.ruleset.dice
    if expr.sides < 1:
        sink.error(codes.OUT_OF_RANGE, f"a die needs at least one side, not {expr.sides}", expr.span)
    if expr.count > MAX_DICE:
        sink.error(codes.TOO_MANY_DICE, f"{expr.count:,} dice at once is more than warscribe will roll "
                   f"({MAX_DICE:,})", expr.span)
    if expr.sides > MAX_SIDES and not custom:
        sink.error(codes.TOO_MANY_DICE, f"a die of {expr.sides:,} sides is more than warscribe will roll "
                   f"({MAX_SIDES:,})", expr.span)
    elif expr.count <= MAX_DICE and not custom and dice_outcomes(expr.count, expr.sides) > MAX_OUTCOMES:
        sink.error(codes.TOO_MANY_DICE, f"{expr.count}{expr.name} has {dice_outcomes(expr.count, expr.sides):,} "
                   f"possible totals; warscribe works with at most {MAX_OUTCOMES:,}", expr.span,
                   "roll fewer dice, or fewer sides")


def _values(n: int) -> str:
    return f"value{'s' if n != 1 else ''}"


def _are(n: int) -> str:
    return "are" if n != 1 else "is"


def _call(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Call)
    ctx = scope.ctx
    rs = ctx.ruleset
    for a in expr.args:
        check_expr(a, scope)
    for _, v in expr.kwargs:
        check_expr(v, scope)
    if expr.func in scope.locals:
        ctx.sink.error(codes.WRONG_KIND, f"'{expr.func}' is a value here, not something to call", expr.func_span)
        return
    decl = rs.callables.get(expr.func)
    if isinstance(decl, (A.Test, A.Table, A.Formula, A.Attack)):
        _call_definition(expr, decl, scope)
    elif expr.func in BUILTINS:
        lo, hi = BUILTINS[expr.func]
        n = len(expr.args)
        if not lo <= n <= hi:
            want = str(lo) if lo == hi else f"{lo} to {hi}"
            ctx.sink.error(codes.WRONG_ARITY, f"{expr.func} takes {want} value{'s' if hi != 1 else ''}, but {n} "
                           f"{_are(n)} given", expr.span, BUILTIN_WORDS.get(expr.func))
    elif (other := rs.get(expr.func)) is not None:
        ctx.sink.error(codes.WRONG_KIND, f"'{expr.func}' is {a_or_an(kind_of(other))}, which cannot be called",
                       expr.func_span)
    else:
        report_unknown(ctx, expr.func, expr.func_span, set(rs.callables) | set(BUILTINS), "test, table or formula")


def _call_definition(expr: A.Call, decl: A.Test | A.Table | A.Formula | A.Attack, scope: Scope) -> None:
    """A call of a test, table, formula or attack: its arity and keywords; an edge of the call graph."""
    ctx = scope.ctx
    params = decl.params
    given = len(expr.args) + len(expr.kwargs)
    if given != len(params):
        ctx.sink.error(codes.WRONG_ARITY, f"{kind_of(decl)} '{expr.func}' takes {len(params)} "
                       f"{_values(len(params))} ({', '.join(p.name for p in params)}), "
                       f"but {given} {_are(given)} given",
                       expr.span, related=[(decl.span, "defined here")])
    names = {p.name for p in params}
    for k, v in expr.kwargs:
        if k not in names:
            report_unknown(ctx, k, v.span, names, "parameter")
    ctx.calls.setdefault(scope.owner, []).append((expr.func, expr.func_span))
    if isinstance(decl, (A.Test, A.Formula)):
        given_to = list(zip(params, expr.args)) + [(p, v) for k, v in expr.kwargs for p in params if p.name == k]
        for p, arg in given_to:
            _arg_in_range(expr.func, decl, p, arg, scope)


def _arg_in_range(func: str, decl: A.Test | A.Formula, p: A.Param, arg: A.Expr, scope: Scope) -> None:
    """A number written for a test's or a formula's parameter that declares a range (``aim: 1..9``, or
    a clamped stat's) lies in it: unlike a table, which refuses it when asked, a test or a formula
    takes it as it is, so ``shoot(12)`` would be worked out as written, past what the rules cover."""
    rs = scope.ctx.ruleset
    stat = rs.stats.get(p.type if isinstance(p.type, str) else p.name)
    rng = p.type if isinstance(p.type, A.RangeExpr) else (
        stat.type if stat is not None and stat.clamped and isinstance(stat.type, A.RangeExpr) else None)
    ends = int_range(rng) if rng is not None else None
    if ends is None:
        return
    try:
        value = evaluate(arg, {}, rs)
    except (NotStatic, StaticError, ArithmeticError, RecursionError, ValueError, TypeError, LookupError,
            AttributeError):
        return  # not a number known before the dice are rolled
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return
    lo, hi = ends
    if not lo <= value <= hi:
        scope.ctx.sink.warning(codes.OUT_OF_RANGE, f"{kind_of(decl)} '{func}' is given {p.name} = {value}, outside "
                               f"{p.name}'s range {lo}..{hi}, and works it out as it is, past what its rules "
                               f"are written for", arg.span, f"pass a value in {lo}..{hi}, or widen the range",
                               related=[(p.span, "declared here")])


def _attr(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Attr)
    check_expr(expr.obj, scope)
    rs = scope.ctx.ruleset
    known = set(rs.stats) | BUILTIN_ATTRS
    for att in rs.of_type(A.Attack):
        known |= {s.name for s in att.steps}
    abilities = {a.id: a for a in rs.of_type(A.Ability)}
    if expr.name in abilities and expr.name not in known:
        if not abilities[expr.name].params:
            owner = expr.obj.id if isinstance(expr.obj, A.Name) else "weapon"
            scope.ctx.sink.error(codes.WRONG_KIND, f"ability '{expr.name}' takes no value, so there is none to read",
                                 expr.span, f"ask whether a profile has it: {owner} has {expr.name}")
        return
    if expr.name not in known:
        report_unknown(scope.ctx, expr.name, expr.span, known | {a for a, d in abilities.items() if d.params},
                       "stat")


def _is_choice(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.IsChoice)
    check_expr(expr.operand, scope)
    ctx = scope.ctx
    rs = ctx.ruleset
    sit = None
    if isinstance(expr.operand, A.Name):
        sit = rs.situations.get(scope.param_types.get(expr.operand.id, expr.operand.id))
    if sit is not None:
        if not sit.choices:
            ctx.sink.error(codes.WRONG_KIND, f"situation '{sit.id}' is yes/no or a number; "
                           f"'is' compares with one of a list of choices", expr.span,
                           f"write just '{sit.id}' (or 'not {sit.id}')" if sit.kind == "flag" else None)
        elif expr.choice not in sit.choices:
            close = did_you_mean(expr.choice, sit.choices)
            ctx.sink.error(codes.UNKNOWN_NAME, f"'{expr.choice}' is not a choice of '{sit.id}'", expr.span,
                           f"did you mean '{close}'?" if close else "choices: " + ", ".join(sit.choices),
                           fixes=rename_fix(expr.choice, sit.choices, expr.span))
    elif not any(expr.choice in s.choices for s in rs.situations.values()):
        every = {c for s in rs.situations.values() for c in s.choices}
        report_unknown(ctx, expr.choice, expr.span, every, "choice")


def _has(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Has)
    check_expr(expr.operand, scope)
    rs = scope.ctx.ruleset
    known = {e.id for e in rs.of_type(A.Entry)} | {a.id for a in rs.of_type(A.Ability)} | \
        {p.klass for p in rs.profiles.values() if p.klass}
    if expr.keyword not in known:
        report_unknown(scope.ctx, expr.keyword, expr.span, known, "keyword or ability")


def _unary(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.Unary)
    if expr.op == "-" and isinstance(expr.operand, A.Group):
        group = expr.operand
        scope.ctx.sink.error(codes.WRONG_KIND, f"a number of models cannot be negative: -{group.count} {group.profile}",
                             expr.span, f"write {group.count} {group.profile}")
        return
    check_expr(expr.operand, scope)


def _with(expr: A.Expr, scope: Scope) -> None:
    assert isinstance(expr, A.With)
    check_expr(expr.expr, scope)
    for s in expr.settings:
        check_setting(s, scope)


_NODE_CHECKS: tuple[tuple[type[A.Expr], Callable[[A.Expr, Scope], None]], ...] = (
    (A.Name, _name), (A.Group, _group), (A.Dice, _dice), (A.Call, _call), (A.Attr, _attr),
    (A.IsChoice, _is_choice), (A.Has, _has), (A.With, _with), (A.Unary, _unary),
)


def check_setting(s: A.Setting, scope: Scope) -> None:
    """A situation set for one question (``with cover = heavy``): a known situation, a fitting value."""
    rs = scope.ctx.ruleset
    sink = scope.ctx.sink
    sit = rs.situations.get(s.name)
    if sit is None:
        report_unknown(scope.ctx, s.name, s.span, rs.situations, "situation")
        return
    if s.value is None:
        if sit.kind != "flag":
            sink.error(codes.WRONG_KIND, f"situation '{sit.id}' needs a value: {sit.id} = …", s.span,
                       "choices: " + ", ".join(sit.choices) if sit.choices else None)
        return
    if sit.kind == "flag":
        sink.error(codes.WRONG_KIND, f"situation '{sit.id}' is yes/no: write '{sit.id}' or 'not {sit.id}'", s.span)
        return
    if sit.choices:
        if isinstance(s.value, A.Name) and s.value.id in sit.choices:
            return
        shown = s.value.id if isinstance(s.value, A.Name) else "this value"
        close = did_you_mean(shown, sit.choices) if isinstance(s.value, A.Name) else None
        sink.error(codes.OUT_OF_RANGE, f"'{shown}' is not a choice of '{sit.id}'", s.value.span,
                   f"did you mean '{close}'?" if close else "choices: " + ", ".join(sit.choices),
                   fixes=rename_fix(shown, sit.choices, s.value.span) if isinstance(s.value, A.Name) else ())
        return
    check_expr(s.value, scope)
    if sit.range is not None:
        _check_in_range(s, sit, scope)


def _check_in_range(s: A.Setting, sit: A.Situation, scope: Scope) -> None:
    """A number given to a situation with a range (``with distance = 1000`` for 0..48) lies in it."""
    assert s.value is not None and sit.range is not None
    ends = int_range(sit.range)
    if ends is None:
        return
    try:
        value = evaluate(s.value, {}, scope.ctx.ruleset)
    except (NotStatic, StaticError, ArithmeticError, RecursionError, ValueError, TypeError, LookupError,
            AttributeError):
        return  # worked out, and any mistake in it reported, when the question is resolved
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return
    lo, hi = ends
    if not lo <= value <= hi:
        scope.ctx.sink.error(codes.OUT_OF_RANGE, f"situation '{sit.id}' is {value}, outside its range {lo}..{hi}",
                             s.value.span, f"give '{sit.id}' a value from {lo} to {hi}",
                             related=[(sit.span, "declared here")])


def check_params(ctx: Context, params: tuple[A.Param, ...], owner: str) -> None:
    """A definition's parameters: no name twice, each type a known stat, situation or kind."""
    seen: set[str] = set()
    rs = ctx.ruleset
    for p in params:
        if p.name in seen:
            ctx.sink.error(codes.DUPLICATE, f"'{owner}' has two parameters called '{p.name}'", p.span)
        seen.add(p.name)
        if isinstance(p.type, str) and p.type not in PARAM_TYPES \
                and p.type not in rs.stats and p.type not in rs.situations:
            report_unknown(ctx, p.type, p.span, set(rs.stats) | {"unit", "weapon", "number", "target"}, "type")
        if isinstance(p.type, A.RangeExpr):
            check_range(ctx, p.type)


def check_range(ctx: Context, rng: A.RangeExpr) -> tuple[int, int] | None:
    """A range of whole numbers, not empty: its ends, or None after reporting why not."""
    ends = int_range(rng)
    if ends is None:
        ctx.sink.error(codes.WRONG_KIND, "a range is written with whole numbers, such as 1..10", rng.span)
        return None
    lo, hi = ends
    if lo > hi:
        ctx.sink.error(codes.OUT_OF_RANGE, f"this range is empty: {lo} is more than {hi}", rng.span,
                       f"write {hi}..{lo}")
        return None
    return lo, hi


def check_expect(e: A.Expect, scope: Scope) -> None:
    """An example's expectation: its expressions, and a tolerance only on an approximate one."""
    check_expr(e.subject, scope)
    check_expr(e.expected, scope)
    check_expr(e.tolerance, scope)
    if e.tolerance is not None and e.op != "~":
        scope.ctx.sink.error(codes.WRONG_KIND, "a tolerance (± …) goes with an approximate expectation (~)",
                             e.tolerance.span, "write: expect P(x) ~ 0.69 ± 0.01")


def check_effect(ctx: Context, e: A.Effect, scope: Scope) -> None:
    """A modifier's or ability's effect: the test, stat and role it names, and its value."""
    rs = ctx.ruleset
    tests = {t.id for t in rs.of_type(A.Test)}
    if e.test is not None and e.test not in tests:
        report_unknown(ctx, e.test, e.span, tests, "test")
    if e.stat is not None and e.stat not in rs.stats:
        report_unknown(ctx, e.stat, e.span, rs.stats, "stat")
    stat = rs.stats.get(e.stat or "")
    if e.kind in ("better", "worse") and stat is not None and stat.type != "target":
        ctx.sink.error(codes.WRONG_KIND, f"'{e.stat} {e.kind} by …' is for a target value such as 3+, and "
                       f"{e.stat} is not one", e.span, f"for a number, write {'+' if e.kind == 'better' else '-'}1 {e.stat}")
    if e.role is not None:
        roles = {p.name for a in rs.of_type(A.Attack) for p in a.params} | \
                {p.name for t in rs.of_type(A.Test) for p in t.params}
        if roles and e.role not in roles:
            report_unknown(ctx, e.role, e.span, roles, "role (a parameter of an attack)")
    if e.value is not None:
        check_expr(e.value, scope)
        if e.kind in ("never_better", "never_worse", "needs") and isinstance(e.value, (A.Label, A.Const)) \
                and not (e.kind == "needs" and isinstance(e.value, A.Const) and e.value.value in ("never", "always")):
            ctx.sink.error(codes.WRONG_KIND, "this needs a target such as 4+ or a number", e.value.span)
        elif e.kind in ("never_better", "never_worse", "needs") and isinstance(e.value, A.Name) \
                and e.value.id in rs.situations and rs.situations[e.value.id].kind != "number":
            sit = rs.situations[e.value.id]
            ctx.sink.error(codes.WRONG_KIND, f"this needs a target such as 4+ or a number; situation '{sit.id}' is "
                           f"{'yes or no' if sit.kind == 'flag' else 'one of ' + ', '.join(sit.choices)}",
                           e.value.span, f"say the target, and when: … never better than 4+ when {sit.id}")
        rolled = next((x for x in A.sub_expressions(e.value) if isinstance(x, A.Dice)), None)
        if rolled is not None:
            ctx.sink.error(codes.WRONG_KIND, "a modifier's value is a fixed number, not a roll", rolled.span,
                           "roll it where it counts instead, e.g. as a stat of the profile (D D3)")


def check_hook(ctx: Context, h: A.Hook, scope: Scope) -> None:
    """An ability's hook on a test (``on a natural 6 to hit: …``): the tests it names, its face."""
    tests = {t.id for t in ctx.ruleset.of_type(A.Test)}
    if h.test is not None and h.test not in tests:
        report_unknown(ctx, h.test, h.span, tests, "test")
    if h.natural is not None and not 1 <= h.natural <= 1000:
        ctx.sink.error(codes.OUT_OF_RANGE, f"no die shows a natural {h.natural}", h.span)
    for eff in h.effects:
        if eff.effect is not None:
            check_effect(ctx, eff.effect, scope)
            continue
        if eff.test is not None and eff.test not in tests:
            report_unknown(ctx, eff.test, eff.span, tests, "test")
        check_expr(eff.amount, scope)
    check_expr(h.ignore_damage_on, scope)
