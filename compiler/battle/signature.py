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
    if state.table is not None:
        return (unit.profile, unit.models, unit.doomed, unit.wounds, unit.weapons, tuple(sorted(unit.statuses)),
                tuple(unit.values.items()), (unit.position, unit.y),
                tuple([(f.profile, f.models, f.doomed, f.wounds, f.points, f.position, f.y,
                        tuple(sorted(f.statuses)) if f.statuses else (), f.uid in unit.engaged)
                       for f in state.enemies(unit)]),
                holding(state, unit))
    here = unit.position
    return (unit.profile, unit.models, unit.doomed, unit.wounds, unit.weapons,
            tuple(sorted(unit.statuses)) if unit.statuses else (),
            tuple(unit.values.items()) if unit.values else (),
            tuple([(f.profile, f.models, f.doomed, f.wounds, f.points, abs(here - f.position),
                    tuple(sorted(f.statuses)) if f.statuses else (), f.uid in unit.engaged)
                   for f in state.enemies(unit)]),
            holding(state, unit))


def holding(state: State, unit: Unit) -> tuple[Any, ...] | None:
    """With objectives on the battlefield, what a move's worth in objectives depends on besides the
    enemies: where ``unit`` stands, where its friends stand with how many models, and who holds each
    objective (sticky control keeps one with its last holder; None without objectives)."""
    return None if not state.objectives else (
        (unit.position, unit.y),
        tuple([(f.profile, f.models, f.position, f.y) for f in state.side_units(unit.side) if f is not unit]),
        tuple([m.holder for m in state.objectives]))
