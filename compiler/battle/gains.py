"""What a move gains in objectives: the greedy player's weighing of where a step ends against the
objectives held at a scoring (read by :class:`~compiler.battle.estimates.Estimates`)."""
from __future__ import annotations

import math
from typing import Protocol, Sequence

from compiler import ast as A
from compiler.battle import corners
from compiler.battle.rules import Rules
from compiler.battle.state import Marker, State, Unit


class Estimates(Protocol):
    """What of the estimates the gains read: the state, the game, the rules, a unit's stats."""

    state: State
    game: A.Game
    rules: Rules

    def stat(self, unit: Unit, name: str) -> float: ...


def goal_steps(est: Estimates, unit: Unit, effect: A.ActionEffect, most: int) -> list[float]:
    """Each step, 0 to ``most`` inches, of a move toward an objective: what it gains in
    objectives where it ends (:func:`held_gain`, over every objective: one it would leave counts
    too), and a millionth per inch it draws nearer."""
    st = est.state
    marker = corners.goal(st, est.game, unit, effect)
    if marker is None:
        return [0.0] * (most + 1)
    near = corners.pull(st, est.game, est.rules.constant, unit, effect, (marker.position, marker.y))
    here = (unit.position, unit.y)
    goal = (marker.position, marker.y)
    out = []
    for d in range(most + 1):
        if st.table is not None:
            there = st.table.move(here, goal, float(d))
        else:
            step = min(float(d), abs(goal[0] - here[0]))
            there = (here[0] + (step if goal[0] > here[0] else -step), 0.0)
        out.append(held_gain(est, unit, here, there, st.objectives) + 1e-6 * math.dist(here, there)
                   + near(there) - near(here))
    return out


def held_gain(est: Estimates, unit: Unit, here: tuple[float, float], there: tuple[float, float],
              markers: Sequence[Marker]) -> float:
    """The points ``unit``'s side gains at a scoring (every ``score … for each objective held``)
    by moving from ``here`` to ``there``: for each of ``markers`` it would then hold and did not,
    their value; for each it held and would not, less their value.  The side holds one when its
    units within the game's control reach of it (the unit where it would be, its friends where they
    stand) outweigh the enemies there (where they stand), or, with sticky control, it holds one
    already and no enemy is there."""
    st, control = est.state, est.game.control
    if control is None or not markers:
        return 0.0
    points = sum(est.rules.constant(sc.value) for sc in est.game.scores
                 if sc.held_at is not None and sc.corners is None)
    if not points:
        return 0.0
    presence = control.by == "presence"  # one side alone there holds it: what counts is being there

    def strength(u: Unit) -> float:
        return 1.0 if presence else (1.0 if control.by == "models" else est.stat(u, control.by)) * u.models
    mine = strength(unit)
    gain = 0.0
    for m in markers:
        goal = (m.position, m.y)
        near = [u for u in st.units if u.models > 0 and u is not unit
                and st.distance_to(u, *goal) <= control.reach]
        theirs = sum(strength(u) for u in near if u.side != unit.side)
        friends = sum(strength(u) for u in near if u.side == unit.side)
        if presence:
            theirs, friends = min(theirs, 1.0), min(friends, 1.0)
        kept = control.sticky and m.holder == unit.side and not theirs  # sticky: ours till they come

        def held(p: tuple[float, float]) -> bool:
            ours = max(friends, mine) if presence else friends + mine
            return kept or (ours if math.dist(p, goal) <= control.reach else friends) > theirs
        gain += points * (held(there) - held(here))
    return gain


def step_gains(est: Estimates, unit: Unit, gap: float, steps: list[int]) -> list[float]:
    """What each step of a move toward the nearest enemy gains in objectives (:func:`held_gain`)."""
    st = est.state
    foe = st.nearest_enemy(unit)
    if foe is None or not st.objectives or est.game.control is None:
        return [0.0] * len(steps)
    here = (unit.position, unit.y)
    out = []
    for d in steps:
        if st.table is not None:
            there = st.table.move(here, (foe.position, foe.y), float(d))
        else:
            there = (here[0] + (min(d, gap) if foe.position > here[0] else -min(d, gap)), 0.0)
        out.append(held_gain(est, unit, here, there, st.objectives))
    return out
