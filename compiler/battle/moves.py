"""Moves toward an objective, and away from the enemy.

``move up to X toward the nearest objective`` (``toward objective ID``; ``toward the nearest
corner``, the one :func:`compiler.battle.corners.heading` picks) takes the unit toward that
objective marker (or corner), never past it; ``move up to X away from the enemy`` takes it straight away
from the nearest enemy (on a line, toward its own edge when they stand together), never off the
battlefield.  Its side chooses how far (0 to X whole inches, as for a move toward the enemy; X a
roll, ``2d6``, is drawn first, from its exact law); on
a table the way goes round impassable ground and pays for difficult ground
(:meth:`~compiler.battle.table.Table.move`).

The greedy player goes as far as gains most in objectives (held, taken, or given up), and else the
whole way (:meth:`~compiler.battle.estimates.Estimates.goal_steps`; away from the enemy, the whole
way); :meth:`~compiler.battle.estimates.Estimates.seize` weighs whether to go at all.
"""
from __future__ import annotations

import math

from compiler import ast as A
from compiler.battle import corners
from compiler.battle.engine import Battle
from compiler.battle.policies import Choice, Option
from compiler.battle.state import Marker, State, Unit
from compiler.battle.turns import amount
from compiler.resolve.core import is_dist


def goal_marker(state: State, game: A.Game, unit: Unit, effect: A.ActionEffect) -> Marker | None:
    """The objective (or corner) a move toward one heads for (None: there is none)."""
    return corners.goal(state, game, unit, effect)


def away_point(battle: Battle, unit: Unit, foe: Unit, inches: float) -> tuple[float, float]:
    """The point ``inches`` straight away from ``foe`` (toward the unit's own edge when they stand
    together), cut short at the edge of the battlefield."""
    st = battle.state
    dx, dy = unit.position - foe.position, unit.y - foe.y
    length = math.hypot(dx, dy)
    if length < 1e-9:
        dx, dy = (0.0, -1.0 if unit.side == 0 else 1.0) if st.table is not None else (-1.0 if unit.side == 0 else 1.0, 0.0)
        length = 1.0
    dx, dy = dx / length, dy / length
    width, depth = (st.table.width, st.table.depth) if st.table is not None else (float(battle.scenario.distance or 0), 0.0)
    reach = inches
    for d, here, top in ((dx, unit.position, width), (dy, unit.y, depth)):
        if d > 1e-12:
            reach = min(reach, (top - here) / d)
        elif d < -1e-12:
            reach = min(reach, (0.0 - here) / d)
    reach = max(0.0, reach)
    return unit.position + dx * reach, unit.y + dy * reach


def reach(battle: Battle, value: A.Expr, unit: Unit, distance: float | None) -> int:
    """The most whole inches a move may go: a roll (``2d6``) is drawn from its exact law, a chance
    node, each time the unit moves."""
    found = battle.rules.value(value, unit, distance)
    if is_dist(found):
        return max(0, amount(battle, value, unit, {}, "move"))
    return max(0, int(battle.rules.number(value, unit, distance)))


def move_elsewhere(battle: Battle, unit: Unit, effect: A.ActionEffect) -> bool:
    """A move toward an objective or away from the enemy (see the module's docstring).  False when
    there is nothing to move toward or away from."""
    st = battle.state
    assert effect.value is not None
    foe = st.nearest_enemy(unit) if effect.goal == "away" else None
    marker = goal_marker(st, battle.game, unit, effect) if effect.goal != "away" else None
    if foe is None and marker is None:
        return False
    near = foe if foe is not None else st.nearest_enemy(unit)
    most = reach(battle, effect.value, unit, None if near is None else st.distance(unit, near))
    est = battle.estimates

    def values() -> list[float]:
        return est.goal_steps(unit, effect, most) if marker is not None else [1e-6 * d for d in range(most + 1)]
    if most == 0:
        step = 0
    elif battle.greedy(unit.side):  # its pick, recorded as the choice would be
        found = values()
        step = found.index(max(found))
        battle.choices.append(step)
    else:
        step = battle.choose(Choice("move", unit.side, unit.label, f"How far does {unit.label} move (0-{most}\")?",
                                    tuple(Option(f'{d}"', d) for d in range(most + 1)), values))
    if marker is not None:
        goal = (marker.position, marker.y)
    else:
        assert foe is not None
        goal = away_point(battle, unit, foe, float(step))
    x0, y0 = unit.position, unit.y
    if st.table is None:
        d = min(float(step), abs(goal[0] - unit.position))
        unit.position = round(unit.position + (d if goal[0] > unit.position else -d), 3)
    else:
        unit.position, unit.y = st.table.move((unit.position, unit.y), goal, float(step))
    if battle.record:
        if marker is not None:
            battle.emit("move", unit=unit.label, inches=step, objective=marker.title,
                        distance=round(st.distance_to(unit, marker.position, marker.y), 3))
        else:
            assert foe is not None  # the inches gone: short of the step at the edge of the battlefield
            gone = round(math.hypot(unit.position - x0, unit.y - y0), 3)
            battle.emit("move", unit=unit.label, inches=int(gone) if gone == int(gone) else gone,
                        distance=round(st.distance(unit, foe), 3))
    battle.referee.watch()  # sticky control: a unit that walks onto an objective takes it
    return True
