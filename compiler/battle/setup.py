"""From a scenario to the first state of a battle.

Side one stands at 0", side two at the scenario's ``distance``; a unit given ``at N"`` stands
there.  The units and their points come from :func:`compiler.model.armies.listed_units`.
"""
from __future__ import annotations

from compiler import ast as A
from compiler.battle.state import State, Unit
from compiler.model.armies import listed_units
from compiler.model.ruleset import Ruleset


def initial_state(model: Ruleset, scenario: A.Scenario) -> State:
    """The table at deployment: side one at 0", side two at the scenario's distance."""
    units: list[Unit] = []
    for s, side in enumerate(scenario.sides):
        for lu in listed_units(model, side):
            entry = side.units[len([u for u in units if u.side == s])]
            position = float(entry.at) if entry.at is not None else float((scenario.distance or 0) if s else 0)
            units.append(Unit(len(units), s, lu.label, lu.profile, lu.weapons, lu.models, lu.models,
                              lu.per_model, position))
    return State(units, tuple(side.id for side in scenario.sides), tuple(side.title for side in scenario.sides))
