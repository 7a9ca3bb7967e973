"""The dice pass: a custom die lists what each face of its base die counts as (W204).

``die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3`` needs six faces, one per side of the d6.  The sizes of
dice written in expressions (how many, how many sides) are checked where they are written, by
:mod:`compiler.check.expressions`, against :mod:`compiler.limits`.
"""
from __future__ import annotations

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context


def check_dice(ctx: Context) -> None:
    """Pass: every custom die has one face per side of its base die."""
    for die in ctx.ruleset.of_type(A.Die):
        if len(die.faces) != die.base_sides:
            ctx.sink.error(codes.BAD_DIE, f"die {die.id} is made from a d{die.base_sides}, so it needs "
                           f"{die.base_sides} faces, not {len(die.faces)}", die.span,
                           "list what each face of the base die counts as, in order")
