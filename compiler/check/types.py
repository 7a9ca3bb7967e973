"""The light type check: targets where targets belong, numbers where numbers belong.

The language has few types a reader can get wrong: a *target* (``4+``, ``3-``, ``never``), a
*number*, a *yes/no* and a *label*.  :func:`static_kind` finds the kind of the simple
expressions whose kind is plain from the text; :func:`check_types` reports a test that compares
a target with ``>=``, ``against`` a number, a roll without dice, naturals that cannot be, and a
table that mixes targets with numbers.
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.model.ruleset import Ruleset
from compiler.words import a_or_an

_BOOL_OPS = ("and", "or", "==", "!=", ">=", "<=", ">", "<")


def static_kind(expr: A.Expr, rs: Ruleset, seen: frozenset[str] = frozenset()) -> str:
    """"target", "number", "bool", "label" or "unknown" for simple expressions.

    ``seen`` holds the tables being looked through, so that a table calling itself stops here
    (the cycle pass reports it).
    """
    if isinstance(expr, (A.Target, A.Chain)):
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
            return _table_kind(decl, rs, seen)
        return "bool" if isinstance(decl, A.Test) else "unknown"
    if isinstance(expr, A.Binary):
        return "bool" if expr.op in _BOOL_OPS else "number"
    if isinstance(expr, (A.InRange, A.IsChoice, A.IsNone)):
        return "bool"
    return "unknown"


def _table_kind(table: A.Table, rs: Ruleset, seen: frozenset[str]) -> str:
    """The one kind every row (and cell) of a table gives, or "unknown"."""
    if table.id in seen:  # a table that calls itself: the cycle check reports it
        return "unknown"
    inner = seen | {table.id}
    kinds = {static_kind(r.result, rs, inner) for r in table.rows}
    if table.grid is not None:
        kinds |= {static_kind(c, rs, inner) for _, cells in table.grid.rows for c in cells}
    kinds.discard("unknown")
    return kinds.pop() if len(kinds) == 1 else "unknown"


def check_types(ctx: Context) -> None:
    """Pass: the kinds of tests' rolls and targets, and of tables' results (W201, W202)."""
    for d in ctx.ruleset.walk():
        if isinstance(d, A.Test) and d.roll is not None:
            check_test_types(ctx, d, d.roll)
        if isinstance(d, A.Table):
            check_table_types(ctx, d)


#: A value's kind in words.
_KIND_WORDS = {"bool": "yes/no value", "label": "label", "number": "number"}


def check_test_types(ctx: Context, d: A.Test, roll: A.Roll) -> None:
    """A test's roll: a target ``against``, a number with ``>=``/``<=``, dice, possible naturals."""
    rs = ctx.ruleset
    kind = static_kind(roll.target, rs)
    if roll.op in (">=", "<=") and kind == "target":
        ctx.sink.error(codes.WRONG_KIND, "this is already a target (such as 4+), but '>=' or '<=' needs a number",
                       roll.target.span, f"write: roll … against {_snippet(roll.target)}")
    if roll.op == "against" and kind in ("number", "bool", "label"):
        ctx.sink.error(codes.WRONG_KIND, "'against' needs a target such as 4+ or 3-, but this is "
                       + a_or_an(_KIND_WORDS.get(kind, kind)),
                       roll.target.span, "write: roll d6 >= N (a high roll) or roll d6 <= N (a low roll)")
    if not _has_dice(roll.dice):
        ctx.sink.error(codes.WRONG_KIND, "a test rolls dice, but this has none", roll.dice.span,
                       "write the dice, e.g. roll d6 or roll 2d6")
    for n in d.natural_fails + d.natural_succeeds:
        if n < 1:
            ctx.sink.error(codes.OUT_OF_RANGE, f"no die shows a natural {n}", d.span)
    _never_natural(ctx, d, roll)
    clash = set(d.natural_fails) & set(d.natural_succeeds)
    if clash:
        ctx.sink.error(codes.OUT_OF_RANGE, f"natural {min(clash)} cannot both fail and succeed", d.span)


def _never_natural(ctx: Context, d: A.Test, roll: A.Roll) -> None:
    """W202 (a warning) for a natural rule or a re-roll whose face the test's dice never show as their
    total: ``natural 1 fails`` or ``reroll 1s`` on 2d6 (2 to 12), ``natural 11 succeeds`` on a d10."""
    dice = roll.dice
    if not isinstance(dice, A.Dice) or dice.name in ctx.ruleset.dice or dice.count < 1 or dice.sides < 1:
        return
    low, high = dice.count, dice.count * dice.sides
    rolled = f"{dice.count if dice.count > 1 else ''}d{dice.sides}"
    said = [(n, f"natural {n} fails") for n in d.natural_fails] + \
        [(n, f"natural {n} succeeds") for n in d.natural_succeeds]
    for r in d.rerolls:
        faces = [1] if r == "1s" else [int(f) for f in r.split(":", 1)[1].split(",")] if r.startswith("natural:") else []
        said += [(n, f"reroll {r if r == '1s' else 'natural ' + r.split(':', 1)[1].replace(',', ' or ')}")
                 for n in faces]
    for n, clause in said:
        if n >= 1 and not low <= n <= high:
            hint = (f"the natural roll is the dice's total, {low} to {high}"
                    + (f"; to re-roll each die that shows {n}, roll "
                       + " + ".join([f"reroll(d{dice.sides}, {n})"] * dice.count) if clause.startswith("reroll")
                       and dice.count > 1 and n <= dice.sides else ""))
            ctx.sink.warning(codes.OUT_OF_RANGE, f"no roll of {rolled} is a natural {n}: '{clause}' never applies",
                             d.span, hint)


def check_table_types(ctx: Context, d: A.Table) -> None:
    """A table gives targets in every row, or in none."""
    rs = ctx.ruleset
    kinds = [(r.result, static_kind(r.result, rs)) for r in d.rows]
    known = [k for _, k in kinds if k != "unknown"]
    if "target" in known and ("number" in known or "bool" in known):
        bad = next(e for e, k in kinds if k in ("number", "bool"))
        ctx.sink.error(codes.WRONG_KIND, f"table '{d.id}' gives targets (such as 4+) in some rows and a "
                       f"{static_kind(bad, rs)} here", bad.span,
                       "write a target, e.g. 4+ for 4 or more, 3- for 3 or less, or never")


def _has_dice(expr: A.Expr) -> bool:
    """Whether something in ``expr`` may roll: dice, a call, a name or an attribute."""
    return any(isinstance(sub, (A.Dice, A.Call, A.Name, A.Attr)) for sub in A.sub_expressions(expr))


def _snippet(expr: A.Expr) -> str:
    if isinstance(expr, A.Call):
        return f"{expr.func}(…)"
    if isinstance(expr, A.Target) and isinstance(expr.value, A.Int):
        return f"{expr.value.value}{'+' if expr.direction == 'high' else '-'}"
    return "the target"
