"""What a unit's choices depend on in a state (:func:`signature`): the key under which the greedy
player's estimates are kept (:class:`~compiler.battle.estimates.Estimates`), and with objectives
what a move's worth in objectives reads besides (:func:`holding`)."""
from __future__ import annotations

from typing import Any

from compiler.battle.state import State, Unit

Signature = tuple[Any, ...]


def signature(state: State, unit: Unit) -> Signature:
    """``unit`` and what its choices depend on: its profile, models, wounds, weapons, statuses and
    orders, and each enemy standing: its profile, models (and those marked to be removed when the
    phase ends), wounds, points, distance and whether ``unit`` is locked with it (on a table, where
    each stands too: sight and cover depend on it; with objectives, :func:`holding`)."""
    # one flat tuple, each enemy a run of the same width after the unit's own part: a signature is
    # kept as a memo's key for every new state, and a tuple of tuples is a dozen objects for the
    # cyclic collector to go over (and to hash) where one does
    side, engaged = unit.side, unit.engaged
    out: list[Any] = [unit.profile, unit.models, unit.doomed, unit.wounds, unit.weapons,
                      tuple(sorted(unit.statuses)) if unit.statuses else (),
                      tuple(unit.values.items()) if unit.values else (), holding(state, unit)]
    if state.table is not None:
        out += (unit.position, unit.y)
        for f in state.foes(side):
            if f.models > 0:
                out += (f.profile, f.models, f.doomed, f.wounds, f.points, f.position, f.y,
                        tuple(sorted(f.statuses)) if f.statuses else (), f.uid in engaged)
        return tuple(out)
    here = unit.position
    for f in state.foes(side):
        if f.models > 0:
            out += (f.profile, f.models, f.doomed, f.wounds, f.points, abs(here - f.position),
                    tuple(sorted(f.statuses)) if f.statuses else (), f.uid in engaged)
    return tuple(out)


def holding(state: State, unit: Unit) -> tuple[Any, ...] | None:
    """With objectives on the battlefield, what a move's worth in objectives depends on besides the
    enemies: where ``unit`` stands, where its friends stand with how many models, and who holds each
    objective (sticky control keeps one with its last holder; None without objectives)."""
    return None if not state.objectives else (
        (unit.position, unit.y),
        tuple([(f.profile, f.models, f.position, f.y) for f in state.side_units(unit.side) if f is not unit]),
        tuple([m.holder for m in state.objectives]))
