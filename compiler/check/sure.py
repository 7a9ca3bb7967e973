"""What the battle engine reads as sure must not depend on dice (W871).

A game works out a situation for each acting unit (``situation band is far when COND,
otherwise near``, ``situation wear is given by TABLE(…)``) and holds a status while engaged
(``while engaged: pinned when COND``) from one yes/no or one row: the engine evaluates the
expression and refuses a distribution there.  This pass refuses it where it is written.

An expression depends on dice when something in it rolls: dice (``d6``, ``2d6``, a custom
die), a die of a worked-out size (``d(n)``), a test or an attack called, or a table or a
formula called whose own expressions do.  ``P(…)`` and ``mean(…)`` read a whole roll and
give one number, so what is inside them does not count.  A stat whose value is a roll (``R
D6``) is refused where a battle reads it (W866).
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.model.ruleset import Ruleset
from compiler.syntax.builtins import BUILTINS

_WHOLE_ROLL = frozenset(b.name for b in BUILTINS.values() if b.aggregate)
_ROLLS = frozenset({"d"})  # builtins that roll a die of their own


def dice_in(rs: Ruleset, expr: A.Expr, seen: frozenset[str] = frozenset()) -> A.Expr | None:
    """The first part of ``expr`` that rolls (so that its value is a distribution), or None."""
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, A.Dice):
            return e
        if isinstance(e, A.Call):
            if e.func in _WHOLE_ROLL:
                continue
            if e.func in _ROLLS:
                return e
            decl = rs.callables.get(e.func)
            if isinstance(decl, (A.Test, A.Attack)):
                return e
            if isinstance(decl, (A.Table, A.Formula)) and decl.id not in seen:
                if any(dice_in(rs, inner, seen | {decl.id}) is not None for inner in rs.expressions(decl)):
                    return e
        stack.extend(reversed(A.children(e)))
    return None


def check_sure(ctx: Context, game: A.Game) -> None:
    """Refuse a worked-out situation or a status held while engaged whose expression rolls."""
    rs = ctx.ruleset
    for d in game.derived:
        rolled = dice_in(rs, d.condition)
        if rolled is not None:
            what = "its condition must be sure" if d.choice else "its table must give one value"
            ctx.sink.error(codes.SURE_ON_DICE, f"the situation '{d.situation}' depends on dice: {what}",
                           d.condition.span, "work it out from the unit's stats, its statuses or "
                           "distance_to_enemy; roll the dice in a test or an attack instead")
    for es in game.engaged_statuses:
        rolled = dice_in(rs, es.condition)
        if rolled is not None:
            ctx.sink.error(codes.SURE_ON_DICE, f"'{es.status}' held while engaged depends on dice: its condition "
                           "must be sure", es.condition.span, "work it out from the unit's stats and foe's; "
                           "roll the dice in a test or an attack instead")
