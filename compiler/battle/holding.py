"""What holding a status for a reaction is worth to the greedy player (``sets on_overwatch``):
the reactions it allows against the nearest enemy that could reach the unit, less the best later
action it bars (read by :class:`~compiler.battle.estimates.Estimates`)."""
from __future__ import annotations

from typing import Protocol

from compiler import ast as A
from compiler.battle.rules import Rules
from compiler.battle.state import State, Unit


class Estimates(Protocol):
    """What of the estimates a held status's worth reads."""

    state: State
    game: A.Game
    rules: Rules

    def expected(self, attack: A.Attack, unit: Unit, target: Unit, distance: float | None = None,
                 extra: tuple[str, ...] = (), reach: str | None = None,
                 cover: tuple[str, ...] | None = None) -> float: ...

    def action(self, unit: Unit, action: A.Action, distance: float | None = None) -> float: ...


def reaction_value(est: Estimates, unit: Unit, status: str) -> float:
    """What holding ``status`` is worth: the reactions it allows, against the nearest enemy that
    could reach the unit in its next turn (its moves and engagement reaches added up)."""
    foe = est.state.nearest_enemy(unit)
    if foe is None:
        return 0.0
    reach = charge = 0.0
    gap = est.state.distance(unit, foe)
    way = est.state.travel(foe, unit)  # the inches of move it takes the enemy to come
    for p in est.game.phases:
        for a in p.actions:
            for e in a.effects:
                if e.kind in ("move", "engage") and e.value is not None and e.goal != "away":
                    inches = max(0.0, est.rules.number(e.value, foe, gap))
                    reach += inches
                    if e.kind == "engage":
                        charge = max(charge, inches)
    if way > reach:
        return 0.0
    gap = min(gap, charge)  # the reaction fires at a charger, which stands within its charge reach
    value = 0.0
    for r in est.game.reactions:
        if r.requires == status:
            for e in r.effects:
                attack = est.rules.attacks.get(e.name or "") if e.kind == "attack" else None
                if isinstance(attack, A.Attack):
                    value += est.expected(attack, unit, foe, gap, reach=e.reach)
    return value


def forgone(est: Estimates, unit: Unit, action: A.Action, status: str) -> float:
    """What holding ``status`` costs ``unit`` this turn: the best action of a later phase that the
    status bars (``unless STATUS``) and nothing else does."""
    later = False
    best = 0.0
    for p in est.game.phases:
        if later:
            for a in p.actions:
                if status in a.unless and not any(unit.has(s) for s in a.unless):
                    best = max(best, est.action(unit, a))
        later = later or any(a is action for a in p.actions)
    return best
