"""The state of a battle: units on the table, their models, statuses and positions; the clock.

The engine owns one :class:`State` per battle and changes it in place (a battle is a long chain
of small changes, and games are simulated by the thousand); nothing else writes to it.  A
:meth:`State.snapshot` is the plain, comparable picture of a moment (used by logs and tests).

On the one-line battlefield (a scenario with only a ``distance``) a unit's position is one number;
on a table (``table 48" by 48"``) it is a point (``position`` across, ``y`` up), distances are
straight lines, and the table's terrain (:mod:`compiler.battle.table`) blocks sight and sets
situations; how far a unit must move to reach another (:meth:`State.travel`) goes round impassable
ground.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from compiler.battle.table import Table

#: How long a status lasts: until the end of the phase, of the player turn, of the game turn,
#: or (``""``) until something removes it; ``"passed"``: until the unit passes a test (its ``until``);
#: ``"own turn"``: until the end of the next player turn of the unit's own side.
PERIODS: tuple[str, ...] = ("phase", "turn", "game turn", "", "passed", "own turn")


#: The prefix of a unit's value that keeps one of its weapons resting: its player's turns still to end.
REST = "rest:"


@dataclass(slots=True)
class Unit:
    """One unit (squad) on the table."""

    uid: int
    side: int
    label: str
    profile: str
    weapons: tuple[str, ...]
    models: int
    started: int
    points: int  # per model
    position: float
    statuses: dict[str, str] = field(default_factory=dict)  # status → the period it lasts
    engaged: list[int] = field(default_factory=list)  # uids of the enemy units it is locked with
    engaged_as: tuple[str, ...] = ()  # the statuses an engagement sets (held while engaged)
    wounds: int = 0  # wounds taken by the model in front (the next to be removed)
    values: dict[str, Any] = field(default_factory=dict)  # situation → its value for this unit (its order, a counter)
    until: dict[str, Any] = field(default_factory=dict)  # status → the test that ends it (``until passed``)
    doomed: int = 0  # casualties marked this phase, removed when it ends (``casualties removed at end of phase``)
    y: float = 0.0  # on a table: inches up from the first side's edge (``position`` is across); 0 on a line
    spent: bool = False  # it spent its action (a reaction) and does not act again this game turn
    turn_start: int | None = None  # its models when the player turn began (None: the first turn, ``started``)
    acted: bool = False  # it has been used this game turn (``casualties removed after the unit acts``)

    @property
    def lost_this_turn(self) -> int:
        """The models it lost since the player turn began (a unit never gains models)."""
        return (self.started if self.turn_start is None else self.turn_start) - self.models

    @property
    def alive(self) -> bool:
        return self.models > 0

    def resting(self) -> tuple[str, ...]:
        """The weapons that may not fire yet (``weapons rest after firing``): kept among its values."""
        return tuple(sorted(k[len(REST):] for k in self.values if k.startswith(REST))) if self.values else ()

    def has(self, status: str) -> bool:
        return status in self.statuses

    def copy(self) -> Unit:
        """A copy that shares nothing that changes (its statuses, engagements, values)."""
        return Unit(self.uid, self.side, self.label, self.profile, self.weapons, self.models, self.started,
                    self.points, self.position, dict(self.statuses), list(self.engaged), self.engaged_as,
                    self.wounds, dict(self.values), dict(self.until), self.doomed, self.y, self.spent, self.turn_start,
                    self.acted)

    def snapshot(self) -> dict[str, Any]:
        return {"unit": self.label, "models": self.models, "wounds": self.wounds, "position": self.position, "y": self.y,
                "statuses": sorted(self.statuses), "engaged": sorted(self.engaged)}


@dataclass(slots=True)
class Marker:
    """An objective on the table, and the side that holds it (None: nobody, or contested)."""

    oid: str
    title: str
    position: float
    holder: int | None = None
    y: float = 0.0

    def snapshot(self) -> dict[str, Any]:
        return {"objective": self.oid, "position": self.position, "holder": self.holder}


@dataclass(slots=True)
class State:
    """Everything that changes during a battle."""

    units: list[Unit]
    sides: tuple[str, ...]
    side_titles: tuple[str, ...]
    turn: int = 0
    active: int = 0
    phase: str = ""
    over: bool = False
    winner: int | None = None  # None with ``over``: a draw
    reason: str = ""
    timed: bool = False  # whether any status with a period has been set (else nothing can expire)
    objectives: list[Marker] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)  # points scored so far, per side
    fallen: list[int] = field(default_factory=list)  # units destroyed and not yet scored
    first: int = 0  # the side that took the first turn
    table: Table | None = None  # the table in two dimensions (None: the one-line battlefield)
    warlords: frozenset[int] = frozenset()  # the uids of the units named ``as warlord`` (never changes)
    #: the statuses a volley reads of the unit it is at, not of the shooter (never changes; see
    #: :mod:`compiler.model.sides`)
    defending: frozenset[str] = frozenset()
    #: each side's foes (:meth:`foes`), and the list of units they were taken from
    _foes: tuple[list[Unit], dict[int, tuple[Unit, ...]]] | None = field(default=None, init=False, compare=False,
                                                                         repr=False)

    def copy(self) -> State:
        """A copy that shares nothing that changes (the table is never changed, so it is shared)."""
        out = State(self.units, self.sides, self.side_titles, table=self.table, warlords=self.warlords,
                    defending=self.defending)
        out.load(self)
        return out

    def load(self, other: State) -> None:
        """Take every value of ``other`` that can change during a battle (copies, in place: the
        battle's collaborators keep this object)."""
        self.units = [u.copy() for u in other.units]
        self.turn, self.active, self.phase = other.turn, other.active, other.phase
        self.over, self.winner, self.reason, self.timed = other.over, other.winner, other.reason, other.timed
        self.objectives = [Marker(o.oid, o.title, o.position, o.holder, o.y) for o in other.objectives]
        self.scores, self.fallen, self.first = list(other.scores), list(other.fallen), other.first

    def foes(self, side: int) -> tuple[Unit, ...]:
        """The units of the sides other than ``side``, standing or not, in the state's order (kept
        while the state holds the same units: a side's units never change sides)."""
        kept = self._foes
        if kept is None or kept[0] is not self.units:
            kept = self._foes = (self.units, {})
        found = kept[1].get(side)
        if found is None:
            found = kept[1][side] = tuple([u for u in self.units if u.side != side])
        return found

    def side_units(self, side: int) -> list[Unit]:
        return [u for u in self.units if u.side == side and u.models > 0]

    def enemies(self, unit: Unit) -> list[Unit]:
        return [u for u in self.foes(unit.side) if u.models > 0]

    def unit(self, uid: int) -> Unit:
        return self.units[uid]

    def distance(self, a: Unit, b: Unit) -> float:
        if self.table is None:
            return abs(a.position - b.position)
        return round(math.hypot(a.position - b.position, a.y - b.y), 3)

    def travel(self, a: Unit, b: Unit) -> float:
        """The inches of move ``a`` needs to reach ``b`` (a charge's reach is measured so): on a table
        with terrain, along the way round impassable ground, paying for difficult ground (infinite
        when there is no way); else the distance."""
        if self.table is None or not self.table.areas:
            return self.distance(a, b)
        return round(self.table.travel((a.position, a.y), (b.position, b.y)), 3)

    def distance_to(self, unit: Unit, x: float, y: float) -> float:
        """How far ``unit`` stands from the point (x, y) (y is 0 on the one-line battlefield)."""
        return math.hypot(unit.position - x, unit.y - y)

    def in_sight(self, a: Unit, b: Unit) -> bool:
        """Whether ``a`` can see ``b`` (always, on the one-line battlefield)."""
        return self.table is None or self.table.in_sight((a.position, a.y), (b.position, b.y))

    def cover(self, shooter: Unit, target: Unit) -> tuple[str, ...]:
        """The situations the table sets for a volley from ``shooter`` at ``target`` (none on a
        line), then the target's statuses that such a volley reads of it (:meth:`held_against`)."""
        held = self.held_against(target)
        if self.table is None or not self.table.areas:
            return held
        return self.table.situations((shooter.position, shooter.y), (target.position, target.y)) + held

    def held_against(self, target: Unit) -> tuple[str, ...]:
        """The statuses ``target`` holds that a volley at it is worked out with (those the rules
        read for the side attacked: ``+1 to save when gone_to_ground``), in order."""
        if not self.defending or not target.statuses:
            return ()
        return tuple(sorted(s for s in target.statuses if s in self.defending))

    def nearest_enemy(self, unit: Unit) -> Unit | None:
        foes = self.enemies(unit)
        if len(foes) <= 1:
            return foes[0] if foes else None
        return min(foes, key=lambda f: (self.distance(unit, f), f.uid))

    def objective(self, unit: Unit, oid: str | None) -> Marker | None:
        """The objective ``oid``, or (None) the nearest to ``unit`` (the first placed on a tie)."""
        if oid is not None:
            return next((o for o in self.objectives if o.oid == oid), None)
        if not self.objectives:
            return None
        return min(self.objectives, key=lambda o: self.distance_to(unit, o.position, o.y))

    def models_left(self, side: int) -> int:
        return sum(u.models for u in self.units if u.side == side)

    def expire(self, period: str) -> None:
        """Statuses that last until the end of ``period`` end now (at the end of a player turn, those
        of the active side's units that last until the end of their own next turn too)."""
        for u in self.units:
            if u.statuses and period in u.statuses.values():
                u.statuses = {k: v for k, v in u.statuses.items() if v != period}
            if period == "turn" and u.side == self.active and u.statuses and "own turn" in u.statuses.values():
                u.statuses = {k: v for k, v in u.statuses.items() if v != "own turn"}

    def turn_begins(self) -> None:
        """A player turn begins: the losses of the turn are counted from here."""
        for u in self.units:
            u.turn_start = u.models

    def remove_models(self, unit: Unit, n: int) -> int:
        """Remove up to ``n`` models; a unit with none left leaves every engagement."""
        n = min(n, unit.models)
        if n and n == unit.models:
            self.destroy(unit)
        else:
            unit.models -= n
        return n

    def destroy(self, unit: Unit) -> None:
        """The unit is wiped out (and, if it stood, noted among the fallen, to be scored)."""
        if unit.models:
            self.fallen.append(unit.uid)
        unit.models = 0
        unit.wounds = 0
        unit.doomed = 0
        unit.statuses = {}
        self.disengage(unit)

    def disengage(self, unit: Unit) -> None:
        """``unit`` leaves every engagement; it, and each enemy left engaged with nobody, no longer
        holds the statuses its engagements set."""
        for uid in unit.engaged:
            other = self.units[uid]
            if unit.uid in other.engaged:
                other.engaged.remove(unit.uid)
            if not other.engaged:
                for name in other.engaged_as:
                    other.statuses.pop(name, None)
                other.engaged_as = ()
        for name in unit.engaged_as:
            unit.statuses.pop(name, None)
        unit.engaged, unit.engaged_as = [], ()

    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {"turn": self.turn, "active": self.sides[self.active],
                               "units": [u.snapshot() for u in self.units]}
        if self.objectives:
            out["objectives"] = [o.snapshot() for o in self.objectives]
        if any(self.scores):
            out["scores"] = list(self.scores)
        return out


def state_key(st: State) -> tuple[Any, ...]:
    """Everything of the state that can change during a battle, by value."""
    units = tuple([(u.side, u.profile, u.weapons, u.models, u.started, u.points, u.position, u.y, u.wounds, u.doomed,
                    tuple(u.statuses.items()) if u.statuses else (), tuple(u.engaged) if u.engaged else (),
                    u.engaged_as, tuple(u.values.items()) if u.values else (),
                    tuple([(k, repr(x)) for k, x in u.until.items()]) if u.until else (), u.turn_start, u.acted)
                   for u in st.units])
    return (units, st.turn, st.active, st.phase, st.over, st.winner, st.reason, st.timed, st.first,
            tuple([(o.oid, o.position, o.y, o.holder) for o in st.objectives]) if st.objectives else (),
            tuple(st.scores), tuple(st.fallen))
