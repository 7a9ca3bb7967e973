"""More activation schemes (see :mod:`~compiler.battle.activation` for the others): one unit at a time.

* ``alternating_activations`` — the players take turns to activate one unit of their choice,
  any unit, even the one that acted last; a game turn is one activation each.  The activated
  unit goes through every phase of the game, taking one action in each that offers some;
* ``alternating_detachments`` — phase by phase the players take turns to activate one
  detachment (each unit is one); in a phase with orders (``on advance "Advance orders": move and
  shoot``) the unit is given one, which the game's ``orders set SITUATION`` keeps as that
  situation's value for the turn, and carries out the actions it grants.

Each is registered in :data:`~compiler.battle.engine.ACTIVATIONS` when this module is imported
(the package imports it), and named in ``compiler.ast.ACTIVATIONS`` and
``compiler.check.battles.PLAYABLE`` so that ``check`` accepts it.
"""
from __future__ import annotations

from typing import Sequence

from compiler import ast as A
from compiler.battle.engine import EFFECTS, Battle, activation
from compiler.battle.policies import Choice, Option
from compiler.battle.state import Unit
from compiler.battle.turns import remove_marked
from compiler.trace import active, note_held


def unit_worth(battle: Battle, unit: Unit, phases: Sequence[A.Phase]) -> float:
    """The best an activation of ``unit`` could do: its best action in any of ``phases``."""
    return max([0.0] + [battle.estimates.action(unit, a) for p in phases for a in p.actions
                        if not any(unit.has(s) for s in a.unless)])


def pick(battle: Battle, side: int, units: list[Unit], prompt: str, phases: Sequence[A.Phase]) -> Unit:
    """The side's choice of one of ``units``, each weighed by :func:`unit_worth` (none asked of one)."""
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
        battle.period_ends("phase")
        if st.over:
            return


@activation("alternating_activations")
def alternating_activations(battle: Battle, order: Sequence[int]) -> None:
    """One activation per player, in turn order: any of the player's units, even the last one."""
    st = battle.state
    battle.emit("turn", title="one activation each", side=st.sides[order[0]])  # the first to act
    for side in order:
        units = st.side_units(side)
        if not units:
            continue
        st.active = side
        st.phase = ""
        unit = pick(battle, side, units, "Which unit do you activate?", battle.game.phases)
        battle.emit("activated", unit=unit.label, title=st.side_titles[side])
        activate(battle, unit, battle.game.phases)
        used(battle, unit)
        battle.period_ends("turn")
        if st.over:
            return


@activation("alternating_detachments")
def alternating_detachments(battle: Battle, order: Sequence[int]) -> None:
    """Phase by phase, the players take turns to activate one detachment each (here each unit is
    one); in a phase with orders each activated unit is given one, which it keeps for the turn."""
    st = battle.state
    battle.emit("turn", title="detachments in turn", side=st.sides[order[0]])
    for phase in battle.game.phases:
        if not phase.orders:
            battle.run_phase(phase, order)
        else:
            st.phase = phase.id
            pending = [st.side_units(s) for s in order]
            while not st.over and any(pending):
                for s, left in zip(order, pending):
                    left[:] = [u for u in left if u.alive]  # one wiped out since the phase began is not offered
                    if not left or st.over:
                        continue
                    st.active = s
                    unit = pick(battle, s, left, f"{phase.title}: which detachment do you activate?", (phase,))
                    left.remove(unit)
                    battle.emit("activated", unit=unit.label, title=st.side_titles[s])
                    give_order(battle, unit, phase)
                    used(battle, unit)
            for c in phase.combats:
                if not st.over:
                    battle.combat(c)
            battle.period_ends("phase")
        if st.over:
            return
    if battle.game.order_situation is not None:
        for u in st.units:
            u.values.pop(battle.game.order_situation, None)  # orders last the turn
    battle.period_ends("turn")


def orders_for(unit: Unit, phase: A.Phase) -> list[A.Order]:
    """The orders ``unit`` may be given: none barred by its statuses, each with the status it needs."""
    if unit.statuses and active():  # coverage: the statuses that bar or allow an order
        note_held(unit.statuses, [s for o in phase.orders for s in o.unless + ((o.requires,) if o.requires else ())])
    return [o for o in phase.orders if not any(unit.has(s) for s in o.unless)
            and (o.requires is None or unit.has(o.requires))]


def give_order(battle: Battle, unit: Unit, phase: A.Phase) -> None:
    """``unit`` is given one of the orders open to it (or none) and carries out its actions."""
    allowed = orders_for(unit, phase)  # (with none, "No order" is no choice: none asked)
    options = tuple(Option(o.title, o.id) for o in allowed) + (Option("No order", None),)
    i = battle.choose(Choice("order", unit.side, unit.label, f"{phase.title}: which order for {unit.label}?", options,
                             lambda: [order_worth(battle, unit, o, phase) for o in allowed] + [0.0]))
    if i == len(allowed):
        return
    given = allowed[i]
    situation = battle.game.order_situation
    if situation is not None:
        unit.values[situation] = given.id
    battle.emit("order", unit=unit.label, order=given.id, title=given.title)
    actions = {a.id: a for a in phase.actions}
    todo = [actions[name] for name in given.actions if name in actions]
    while todo and unit.alive and not battle.state.over:
        k = 0
        if given.any_order:  # (the last one left is no choice: none asked)
            k = battle.choose(Choice("action", unit.side, unit.label, f"{given.title}: which action first?",
                                     tuple(Option(a.title, a.id) for a in todo),
                                     lambda: [battle.estimates.action(unit, a) for a in todo]))
        action = todo.pop(k)
        if not any(unit.has(s) for s in action.unless):
            perform(battle, unit, action)
        else:
            note_held(unit.statuses, action.unless)


def used(battle: Battle, unit: Unit) -> None:
    """``unit`` has been used this game turn: under ``casualties removed after the unit acts`` the
    casualties it was dealt before are removed now, and any later ones at once."""
    if battle.game.casualties_after is not None and not unit.acted:
        unit.acted = True
        if unit.doomed:
            remove_marked(battle, unit)


def order_worth(battle: Battle, unit: Unit, order: A.Order, phase: A.Phase) -> float:
    """The best ``unit`` could expect from ``order``: its actions' estimates, with the order given."""
    situation = battle.game.order_situation
    before = dict(unit.values)
    if situation is not None:
        unit.values[situation] = order.id
    actions = {a.id: a for a in phase.actions}
    worth = sum(max(0.0, battle.estimates.action(unit, actions[n])) for n in order.actions if n in actions)
    unit.values = before
    return worth


def perform(battle: Battle, unit: Unit, action: A.Action) -> None:
    """``unit`` carries out ``action``: its effects in turn, until one cannot happen."""
    battle.estimates.sig = None
    battle.emit("action", unit=unit.label, action=action.id, title=action.title)
    for effect in action.effects:
        if not unit.alive or battle.state.over:
            return
        if not EFFECTS[effect.kind](battle, unit, effect, action):
            return
