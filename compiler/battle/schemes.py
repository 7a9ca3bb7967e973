"""Activation schemes where one unit acts at a time: the others of :data:`~compiler.battle.engine.ACTIVATIONS`.

* ``alternating_activations`` — the players take turns to activate one unit of their choice,
  any unit, even the one that acted last; a game turn is one activation each.  The activated
  unit goes through every phase of the game, taking one action in each that offers some;
* ``activation_rolls`` — in their turn a player tries their units one at a time: the unit rolls
  the number of dice its player chooses against the game's ``activate`` test; each success is an
  action point (one action each), and a roll with as many failures as the game's bust count is a
  bust that ends the player's activations; the phase's combats follow.

Each is registered in :data:`~compiler.battle.engine.ACTIVATIONS` when this module is imported
(the package imports it), and named in ``compiler.ast.ACTIVATIONS`` so that ``check`` accepts it.
"""
from __future__ import annotations

from typing import Sequence

from compiler import ast as A
from compiler.battle.engine import ACTIVATIONS, Battle
from compiler.battle.policies import Choice, Option
from compiler.battle.state import Unit


def unit_worth(battle: Battle, unit: Unit, phases: Sequence[A.Phase]) -> float:
    """The best an activation of ``unit`` could do: its best action in any of ``phases``."""
    return max([0.0] + [battle.estimate_action(unit, a) for p in phases for a in p.actions
                        if not any(unit.has(s) for s in a.unless)])


def pick(battle: Battle, side: int, units: list[Unit], prompt: str, phases: Sequence[A.Phase]) -> Unit:
    """The side's choice of one of ``units``, each weighed by :func:`unit_worth`."""
    if len(units) == 1:
        return units[0]
    i = battle.choose(Choice("unit", side, battle.state.side_titles[side], prompt,
                             tuple(Option(u.label, u.uid) for u in units),
                             lambda: [unit_worth(battle, u, phases) for u in units]))
    return units[i]


def activate(battle: Battle, unit: Unit, phases: Sequence[A.Phase]) -> None:
    """``unit`` takes one action in each of ``phases`` that offers some; then the phase's combats."""
    st = battle.state
    for phase in phases:
        st.phase = phase.id
        if phase.actions and unit.alive and not st.over:
            battle.act(unit, phase)
        for c in phase.combats:
            if not st.over:
                battle.combat(c)
        st.expire("phase")
        if st.over:
            return


def alternating_activations(battle: Battle, order: Sequence[int]) -> None:
    """One activation per player, in turn order: any of the player's units, even the last one."""
    st = battle.state
    for side in order:
        units = st.side_units(side)
        if not units:
            continue
        st.active = side
        st.phase = ""
        unit = pick(battle, side, units, "Which unit do you activate?", battle.game.phases)
        battle.emit("activation", unit=unit.label, title=st.side_titles[side])
        activate(battle, unit, battle.game.phases)
        st.expire("turn")
        if st.over:
            return


ACTIVATIONS["alternating_activations"] = alternating_activations
