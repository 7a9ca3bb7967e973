"""What a unit sees of its enemies at a decision, worked out once in one pass over them.

A greedy decision reads, for each enemy, how far it stands, whether the unit can see it and what
the table sets for a volley at it (:meth:`~compiler.battle.table.Table.pair`, kept per pair of
points: positions on a table recur), which enemy is the nearest, and the kinds of enemies in sight
(equal enemies are worth the same at a given distance).  :class:`View` holds all of it for one
unit in one state; :class:`~compiler.battle.estimates.Estimates` keeps it while the unit's
signature holds (the state has not changed) and answers from it.

>>> from compiler.battle.state import State, Unit
>>> a, b, c = (Unit(0, 0, "a", "p", (), 5, 5, 0, 0.0), Unit(1, 1, "b", "p", (), 5, 5, 0, 7.0),
...            Unit(2, 1, "c", "p", (), 0, 5, 0, 1.0))
>>> v = look(State([a, b, c], ("x", "y"), ("X", "Y")), a)
>>> v.nearest.label, v.gap, [f.label for f, _ in v.seen], v.distances
('b', 7.0, ['b'], (7.0,))
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compiler.battle.signature import Signature, holding
from compiler.battle.state import State, Unit

Seen = tuple[Unit, tuple[str, ...]]


@dataclass(slots=True)
class View:
    """``unit``'s enemies as it sees them (see the module's docstring), and what the estimates
    worked out from it (:attr:`answers`, by what was asked: valid as long as the view)."""

    unit: Unit
    #: the enemies in sight, in the state's order, each with the situations the table sets for a volley at it
    seen: tuple[Seen, ...]
    #: how far each of ``seen`` stands
    distances: tuple[float, ...]
    #: the nearest enemy (the first placed on a tie; None: none is left) and how far it stands
    nearest: Unit | None
    gap: float
    answers: dict[Any, Any] = field(default_factory=dict)
    _distinct: tuple[tuple[tuple[Any, ...], ...], tuple[Seen, ...]] | None = None

    @property
    def distinct(self) -> tuple[Seen, ...]:
        """One enemy in sight of each kind (profile, models, marks, wounds, points and the
        situations the table sets for a volley at it)."""
        return self._kinds()[1]

    @property
    def kinds(self) -> tuple[tuple[Any, ...], ...]:
        """The kinds of :attr:`distinct`, in the same order."""
        return self._kinds()[0]

    def _kinds(self) -> tuple[tuple[tuple[Any, ...], ...], tuple[Seen, ...]]:
        if self._distinct is None:
            kinds: dict[tuple[Any, ...], Seen] = {}
            for seen in self.seen:
                f = seen[0]
                key = (f.profile, f.models, f.doomed, f.wounds, f.points, seen[1])
                if key not in kinds:
                    kinds[key] = seen
            self._distinct = (tuple(kinds), tuple(kinds.values()))
        return self._distinct


def look(state: State, unit: Unit) -> View:
    """What ``unit`` sees of its enemies in ``state``: on a table each pair of points is looked up
    once (:meth:`~compiler.battle.table.Table.pair`); on a line every enemy is in sight and in the open."""
    side = unit.side
    table = state.table
    seen: list[Seen] = []
    distances: list[float] = []
    nearest: Unit | None = None
    gap = 0.0
    if table is not None:
        x, y = unit.position, unit.y
        kept = (table.pairs.get((x, y)) or {}).get
        defending = state.defending
        for f in state.foes(side):
            if f.models <= 0:
                continue
            found = kept((f.position, f.y))
            if found is None:
                found = table.pair(x, y, f.position, f.y)
            d = found[0]
            if nearest is None or d < gap:
                nearest, gap = f, d
            if found[1]:  # in sight
                seen.append((f, found[2] + state.held_against(f) if defending else found[2]))
                distances.append(d)
    else:
        here = unit.position
        for f in state.foes(side):
            if f.models > 0:
                d = abs(here - f.position)
                if nearest is None or d < gap:
                    nearest, gap = f, d
                seen.append((f, state.held_against(f)))
                distances.append(d)
    return View(unit, tuple(seen), tuple(distances), nearest, gap)


def scan(state: State, unit: Unit) -> tuple[Signature, View]:
    """On a table: ``unit``'s :func:`~compiler.battle.signature.signature` and what it sees
    (:func:`look`), in one pass over its enemies (a decision reads both)."""
    side, engaged, table = unit.side, unit.engaged, state.table
    assert table is not None
    x, y = unit.position, unit.y
    out: list[Any] = [unit.profile, unit.models, unit.doomed, unit.wounds, unit.weapons,
                      tuple(sorted(unit.statuses)) if unit.statuses else (),
                      tuple(unit.values.items()) if unit.values else (), holding(state, unit), x, y]
    seen: list[Seen] = []
    distances: list[float] = []
    nearest: Unit | None = None
    gap = 0.0
    kept = (table.pairs.get((x, y)) or {}).get
    defending = state.defending
    for f in state.foes(side):
        if f.models <= 0:
            continue
        fx, fy = f.position, f.y
        out += (f.profile, f.models, f.doomed, f.wounds, f.points, fx, fy,
                tuple(sorted(f.statuses)) if f.statuses else (), f.uid in engaged)
        found = kept((fx, fy))
        if found is None:
            found = table.pair(x, y, fx, fy)
        d = found[0]
        if nearest is None or d < gap:
            nearest, gap = f, d
        if found[1]:  # in sight
            seen.append((f, found[2] + state.held_against(f) if defending else found[2]))
            distances.append(d)
    return tuple(out), View(unit, tuple(seen), tuple(distances), nearest, gap)
