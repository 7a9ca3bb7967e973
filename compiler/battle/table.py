"""The table in two dimensions: its size, its terrain areas, sight and movement across it.

A scenario with ``table 48" by 36"`` is played on a plane: each unit stands at a point (x
across, y up from the first side's edge), distances are straight lines, and the terrain areas
(rectangles of a kind the game defines) do what their kind says:

* ``sets in_cover for units in it`` — a unit standing in the area is shot at in that situation;
* ``sets obscured for fire through it`` — a volley whose line of fire crosses the area (standing
  in neither end) is worked out in that situation;
* ``blocks sight`` — a line of fire that crosses the area (standing in neither end) is no line
  of fire: the unit beyond is no target;
* ``costs 2 inches per inch`` — moving through the area takes that many inches of move per inch;
* ``impassable`` — no unit enters it: a move goes the shortest way round it (by its corners),
  and a charge reaches an enemy only when that way is within its reach (:meth:`Table.travel`).

A scenario with only a ``distance`` is the one-line battlefield: no table, y = 0 everywhere.

>>> woods = A.TerrainKind(None, "woods", "Woods", inside="in_cover", blocks=True, cost=2)  # type: ignore[arg-type]
>>> t = Table(48, 48, (Area("w", "Wood", woods, 10, 10, 20, 20),))
>>> t.in_sight((0, 15), (30, 15)), t.in_sight((0, 5), (30, 5))
(False, True)
>>> t.situations((0, 5), (15, 15))
('in_cover',)
>>> t.move((0, 15), (30, 15), 16)  # 10" of open ground, then 6" of move is 3" of wood
(13.0, 15.0)
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import TypeVar

from compiler import ast as A

Point = tuple[float, float]
_K = TypeVar("_K")
_V = TypeVar("_V")
_EPS = 1e-9
#: how far clear of impassable ground a move stops, and a way round passes its corners (inches)
_PAD = 0.01
#: how many answers a table's kept look-ups hold before they start afresh: sight and situations,
#: and where moves stop (small, and many recur); the ways round and their lengths (fewer, larger)
_KEPT_LOOKS = 200_000
_KEPT_WAYS = 50_000


def _keep(kept: dict[_K, _V], key: _K, value: _V, most: int) -> _V:
    """``value``, kept in ``kept`` under ``key`` (``kept`` emptied first when it holds more than ``most``)."""
    if len(kept) > most:
        kept.clear()
    kept[key] = value
    return value


@dataclass(frozen=True, slots=True)
class Area:
    """A terrain area on the table: a rectangle of a kind."""

    aid: str
    title: str
    kind: A.TerrainKind
    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, p: Point) -> bool:
        """Whether ``p`` stands in the area (its edge included)."""
        return self.x0 <= p[0] <= self.x1 and self.y0 <= p[1] <= self.y1

    def crossing(self, a: Point, b: Point) -> tuple[float, float] | None:
        """The part of the segment a→b inside the area, as parameters (t0, t1) in [0, 1] (None when
        it only touches it, or misses it).  Liang–Barsky clipping."""
        t0, t1 = 0.0, 1.0
        dx, dy = b[0] - a[0], b[1] - a[1]
        for p, q in ((-dx, a[0] - self.x0), (dx, self.x1 - a[0]), (-dy, a[1] - self.y0), (dy, self.y1 - a[1])):
            if abs(p) < _EPS:
                if q < 0:
                    return None
                continue
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
            if t0 > t1:
                return None
        return (t0, t1) if t1 - t0 > _EPS else None


@dataclass(frozen=True, slots=True)
class Table:
    """The table's size and its terrain areas."""

    width: float
    depth: float
    areas: tuple[Area, ...] = ()
    #: sight and situations between two points, kept (positions are kept to a thousandth of an inch)
    _seen: dict[tuple[Point, Point], tuple[bool, tuple[str, ...]]] = field(default_factory=dict, compare=False,
                                                                           repr=False)
    _routes: dict[tuple[Point, Point], list[Point]] = field(default_factory=dict, compare=False, repr=False)
    _travels: dict[tuple[Point, Point], float] = field(default_factory=dict, compare=False, repr=False)
    _moves: dict[tuple[Point, Point, float], Point] = field(default_factory=dict, compare=False, repr=False)
    #: what :meth:`pair` worked out, by the first point, then the second
    pairs: dict[Point, dict[Point, tuple[float, bool, tuple[str, ...]]]] = field(
        default_factory=dict, compare=False, repr=False)

    def pair(self, ax: float, ay: float, bx: float, by: float) -> tuple[float, bool, tuple[str, ...]]:
        """From a unit at (ax, ay) to one at (bx, by): the distance (to a thousandth of an inch, as
        :meth:`~compiler.battle.state.State.distance` gives it), whether it is in sight
        (:meth:`in_sight`), and the situations the table sets for a volley at it (:meth:`situations`);
        kept in :attr:`pairs`."""
        seen, cover = self._look((ax, ay), (bx, by))
        found = (round(math.hypot(ax - bx, ay - by), 3), seen, cover if self.areas else ())
        row = self.pairs.get((ax, ay))
        if row is None:
            if len(self.pairs) > 2_000:
                self.pairs.clear()
            row = self.pairs[(ax, ay)] = {}
        elif len(row) > 2_000:
            row.clear()
        row[(bx, by)] = found
        return found

    def _between(self, a: Point, b: Point) -> list[Area]:
        """The areas the line a→b crosses that stand at neither end."""
        return [ar for ar in self.areas if not ar.contains(a) and not ar.contains(b) and ar.crossing(a, b) is not None]

    def in_sight(self, a: Point, b: Point) -> bool:
        """Whether a unit at ``a`` can see one at ``b``: no area that blocks sight lies between."""
        return self._look(a, b)[0]

    def situations(self, shooter: Point, target: Point) -> tuple[str, ...]:
        """The situations the table sets for a volley from ``shooter`` at ``target``: those of the
        areas the target stands in, and of those the line of fire crosses."""
        return self._look(shooter, target)[1]

    def _look(self, a: Point, b: Point) -> tuple[bool, tuple[str, ...]]:
        found = self._seen.get((a, b))
        if found is None:
            between = self._between(a, b)
            out = {ar.kind.inside for ar in self.areas if ar.kind.inside and ar.contains(b)}
            out |= {ar.kind.through for ar in between if ar.kind.through}
            found = _keep(self._seen, (a, b), (not any(ar.kind.blocks for ar in between),
                                               tuple(sorted(s for s in out if s))), _KEPT_LOOKS)
        return found

    def cost_at(self, p: Point) -> float:
        """Inches of move one inch at ``p`` takes (infinite in impassable ground)."""
        cost = 1.0
        for ar in self.areas:
            if ar.contains(p):
                if ar.kind.impassable:
                    return math.inf
                cost = max(cost, float(ar.kind.cost))
        return cost

    def move(self, start: Point, goal: Point, budget: float) -> Point:
        """Where a unit moving from ``start`` toward ``goal`` with ``budget`` inches of move stops:
        along the shortest way around impassable ground (:meth:`route`), each stretch costing what
        the ground under it costs; at ``goal`` at the most.  Kept per start, goal and budget
        (positions on a table recur)."""
        key = (start, goal, budget)
        found = self._moves.get(key)
        if found is None:
            found = _keep(self._moves, key, self._move(start, goal, budget), _KEPT_LOOKS)
        return found

    def _move(self, start: Point, goal: Point, budget: float) -> Point:
        if budget <= 0 or math.dist(start, goal) < _EPS:
            return start
        here = start
        for leg in self.route(start, goal)[1:]:
            here, budget = self._leg(here, leg, budget)
            if budget <= _EPS:
                break
        return _round(here)

    def route(self, start: Point, goal: Point) -> list[Point]:
        """The shortest way from ``start`` to ``goal`` that does not cross impassable ground: the
        straight line, or a path by the corners of the impassable areas (a visibility graph; of
        two ways alike in length, the one by the corners listed first: each area's left before
        its right, its lower before its upper); the straight line when there is no way round (the move then stops
        short of it)."""
        blocks = [ar for ar in self.areas if ar.kind.impassable]
        if not blocks or all(ar.crossing(start, goal) is None or ar.contains(start) for ar in blocks):
            return [start, goal]
        key = (start, goal)
        found = self._routes.get(key)
        if found is not None:
            return found
        pad = _PAD
        corners = [(x, y) for ar in blocks for x in (ar.x0 - pad, ar.x1 + pad) for y in (ar.y0 - pad, ar.y1 + pad)
                   if 0 <= x <= self.width and 0 <= y <= self.depth and not any(b.contains((x, y)) for b in blocks)]
        nodes = [start, goal] + corners

        def clear(a: Point, b: Point) -> bool:
            return all(ar.crossing(a, b) is None for ar in blocks)
        best = {0: 0.0}
        back: dict[int, int] = {}
        todo = [(0.0, 0)]
        done: set[int] = set()
        while todo:
            d, i = heapq.heappop(todo)
            if i in done:
                continue
            done.add(i)
            if i == 1:
                break
            for j in range(1, len(nodes)):
                if j in done or not clear(nodes[i], nodes[j]):
                    continue
                nd = d + math.dist(nodes[i], nodes[j])
                if nd < best.get(j, math.inf):
                    best[j], back[j] = nd, i
                    heapq.heappush(todo, (nd, j))
        if 1 not in back:
            path = [start, goal]
        else:
            path, i = [goal], 1
            while i != 0:
                i = back[i]
                path.append(nodes[i])
            path.reverse()
        return _keep(self._routes, key, path, _KEPT_WAYS)

    def travel(self, start: Point, goal: Point) -> float:
        """The inches of move it takes to go from ``start`` to ``goal`` (a charge's reach is
        measured so): along :meth:`route`, each stretch costing what the ground under it costs;
        infinite when impassable ground bars every way."""
        key = (start, goal)
        found = self._travels.get(key)
        if found is None:
            route = self.route(start, goal)
            found = _keep(self._travels, key, sum((t1 - t0) * math.dist(a, b) * cost
                                                  for a, b in zip(route, route[1:]) if math.dist(a, b) > _EPS
                                                  for t0, t1, cost in self._pieces(a, b)), _KEPT_WAYS)
        return found

    def _pieces(self, start: Point, goal: Point) -> list[tuple[float, float, float]]:
        """The straight line from ``start`` to ``goal`` cut where it enters or leaves an area: each
        piece as (t0, t1, the inches of move an inch of it costs)."""
        cuts = {0.0, 1.0}
        for ar in self.areas:
            span = ar.crossing(start, goal)
            if span is not None:
                cuts.update(span)
        ts = sorted(t for t in cuts if 0.0 <= t <= 1.0)
        return [(t0, t1, self.cost_at(_at(start, goal, (t0 + t1) / 2))) for t0, t1 in zip(ts, ts[1:])]

    def _leg(self, start: Point, goal: Point, budget: float) -> tuple[Point, float]:
        """Straight from ``start`` toward ``goal``: where the move stops, and the budget left.  It
        stops a hundredth of an inch short of impassable ground (as a way round passes its corners),
        never on its edge or in it."""
        length = math.dist(start, goal)
        if length < _EPS:
            return start, budget
        for t0, t1, cost in self._pieces(start, goal):
            piece = (t1 - t0) * length
            if math.isinf(cost):
                return self._short_of(start, goal, t0 - _PAD / length, length), 0.0
            if piece * cost >= budget - _EPS:
                end = t0 + budget / cost / length
                if t1 < 1.0 and math.isinf(self.cost_at(_at(start, goal, min(1.0, t1 + _EPS)))):
                    end = min(end, t1 - _PAD / length)  # impassable ground just beyond
                return self._short_of(start, goal, end, length), 0.0
            budget -= piece * cost
        return goal, budget

    def _short_of(self, start: Point, goal: Point, t: float, length: float) -> Point:
        """The point at ``t`` of the way from ``start`` to ``goal``, stepped back toward ``start``
        (a hundredth of an inch, then twice as far each time) while, kept to a thousandth of an
        inch, it would stand in impassable ground (a line that meets the ground at a slant)."""
        t, step = max(0.0, t), _PAD / length
        p = _at(start, goal, t)
        while t > 0 and math.isinf(self.cost_at(_round(p))):
            t, step = max(0.0, t - step), step * 2
            p = _at(start, goal, t)
        return p


def _at(a: Point, b: Point, t: float) -> Point:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)


def _round(p: Point) -> Point:
    """A position kept to a thousandth of an inch (so that states compare and cache)."""
    return (round(p[0], 3), round(p[1], 3))


def table_of(scenario: A.Scenario, kinds: dict[str, A.TerrainKind]) -> Table | None:
    """The scenario's table (None on the one-line battlefield)."""
    if scenario.table is None:
        return None
    areas = tuple(Area(t.id, t.title, kinds[t.kind], *map(float, t.corners)) for t in scenario.terrain
                  if t.kind in kinds)
    return Table(float(scenario.table[0]), float(scenario.table[1]), areas)
