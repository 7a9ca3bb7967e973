"""The table's corners: who stands near them, where a move toward one heads, what it is worth.

``score … for units within 12" of every corner at end of own turn`` scores for a side with a unit
within that reach of each of the table's four corners (:func:`covered`; a line has no corners);
``move up to X toward the nearest corner`` heads for the nearest corner that no other unit of its
side stands within that reach of (:func:`heading`; the nearest of all when each has one), and the
greedy player weighs such a move by :func:`pull`.
"""
from __future__ import annotations

import math
from typing import Callable

from compiler import ast as A
from compiler.battle.state import Marker, State, Unit

Point = tuple[float, float]


def corners(state: State) -> tuple[Point, ...]:
    """The four corners of the table (none on the one-line battlefield)."""
    t = state.table
    return () if t is None else ((0.0, 0.0), (t.width, 0.0), (0.0, t.depth), (t.width, t.depth))


def reach(game: A.Game) -> float:
    """How near a unit must stand to a corner for the game's scores (the largest; 0 with none)."""
    return max((s.corners for s in game.scores if s.corners), default=0.0)


def near(state: State, side: int, corner: Point, within: float, but: Unit | None = None) -> bool:
    """Whether a unit of ``side`` (other than ``but``) stands within ``within`` of ``corner``."""
    return any(u is not but and u.side == side and u.models > 0 and state.distance_to(u, *corner) <= within
               for u in state.units)


def covered(state: State, side: int, within: float, but: Unit | None = None) -> int:
    """How many corners have a unit of ``side`` (other than ``but``) within ``within`` of them."""
    return sum(1 for c in corners(state) if near(state, side, c, within, but))


def heading(state: State, unit: Unit, within: float) -> Marker | None:
    """The corner a move toward the nearest corner heads for (None on a line): the nearest that no
    other unit of its side stands within ``within`` of, or the nearest of all when each has one."""
    found = sorted((state.distance_to(unit, *c), c) for c in corners(state))
    if not found:
        return None
    free = [(d, c) for d, c in found if not near(state, unit.side, c, within, but=unit)]
    _, (x, y) = (free or found)[0]
    return Marker("corner", "the nearest corner", x, y=y)


def goal(state: State, game: A.Game, unit: Unit, effect: A.ActionEffect) -> Marker | None:
    """Where a move toward an objective or a corner heads (None: there is none)."""
    if effect.goal == "nearest corner":
        return heading(state, unit, reach(game))
    return state.objective(unit, effect.name if effect.goal == "objective" else None)


def pull(state: State, game: A.Game, value: Callable[[A.Expr], float], unit: Unit, effect: A.ActionEffect,
         corner: Point) -> Callable[[Point], float]:
    """What standing at a point is worth to ``unit`` on its way to ``corner`` (nothing on a move
    toward anything else): for each corner score, while no friend stands within its reach of the
    corner, its value times the share of the four corners the side would then hold (the last one
    missing counts in full), times the reach over the distance when farther — so each inch nearer
    counts, and reaching the corner counts in full."""
    pulls = [(value(s.value) * (covered(state, unit.side, s.corners, but=unit) + 1) / 4, s.corners)
             for s in game.scores if effect.goal == "nearest corner"
             and s.corners and not near(state, unit.side, corner, s.corners, but=unit)]
    return lambda p: sum(w * min(1.0, r / max(math.dist(p, corner), 1e-9)) for w, r in pulls)
