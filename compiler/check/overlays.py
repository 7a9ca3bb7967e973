"""Overlay checks: a use of something an overlay removed (W605).

Merging an overlay onto its base (``replace``, ``remove``, ``extend``; W601–W603, W606) happens
while the model is built (:mod:`compiler.model.ruleset`), and the base's version is matched in
the driver (W604).  What is left for the checks is every *use* of a removed declaration: the
names pass, the prose links and the ``see`` lines ask :func:`report_removed` before they call a
name unknown, so the author reads "removed by this overlay" instead of "unknown name".
"""
from __future__ import annotations

from compiler import codes
from compiler.check.context import Context
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset


def removed_by(rs: Ruleset, name: str) -> tuple[Ruleset, Span] | None:
    """The overlay (this one or one of its bases) that removed ``name``, and the removal's line."""
    layer: Ruleset | None = rs
    while layer is not None:
        if name in layer.removed and name in layer.changed_at:
            return layer, layer.changed_at[name]
        layer = layer.base
    return None


def report_removed(ctx: Context, name: str, span: Span, used: str = "is still used here") -> bool:
    """W605 for a use of a declaration that an overlay removed; True when reported."""
    found = removed_by(ctx.ruleset, name)
    if found is None:
        return False
    layer, where = found
    by = "this overlay" if layer is ctx.ruleset else f"the overlay '{layer.id}'"
    ctx.sink.error(codes.REMOVED_BUT_USED, f"'{name}' was removed by {by} (line {where.line}) but {used}", span,
                   "replace or remove what uses it as well, or keep the declaration",
                   related=[(where, "removed here")])
    return True
