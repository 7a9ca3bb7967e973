"""Activation schemes where one unit acts at a time: the others of :data:`~compiler.battle.engine.ACTIVATIONS`.

* ``alternating_activations`` — the players take turns to activate one unit of their choice,
  any unit, even the one that acted last; a game turn is one activation each.  The activated
  unit goes through every phase of the game, taking one action in each that offers some;
* ``activation_rolls`` — in their turn a player tries their units one at a time: the unit rolls
  the number of dice its player chooses against the game's ``activate`` test; each success is an
  action point (one action each), and a roll with as many failures as the game's bust count is a
  bust that ends the player's activations; the phase's combats follow;
* ``alternating_detachments`` — phase by phase the players take turns to activate one
  detachment (each unit is one); in a phase with orders (``on advance "Advance orders": move and
  shoot``) the unit is given one, which the game's ``orders set SITUATION`` keeps as that
  situation's value for the turn, and carries out the actions it grants.

Each is registered in :data:`~compiler.battle.engine.ACTIVATIONS` when this module is imported
(the package imports it), and named in ``compiler.ast.ACTIVATIONS`` so that ``check`` accepts it.
"""
from __future__ import annotations

from math import comb
from typing import Sequence

from compiler import ast as A
from compiler.battle.engine import ACTIVATIONS, EFFECTS, Battle
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
    battle.emit("turn", title="one activation each")
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


def activation_rolls(battle: Battle, order: Sequence[int]) -> None:
    """Each player in turn: phase by phase, units tried one at a time by the game's ``activate``
    roll until every unit has been tried, the player stops, or a bust; then the combats."""
    st = battle.state
    roll = battle.game.activate
    if roll is None:
        raise ValueError(f"game '{battle.game.id}' activates by rolls but has no `activate` line")
    for side in order:
        st.active = side
        st.phase = ""
        battle.emit("turn", title=st.side_titles[side])
        bust = False
        for phase in battle.game.phases:
            st.phase = phase.id
            if phase.actions and not bust and not st.over:
                bust = try_units(battle, side, phase, roll)
            for c in phase.combats:
                if not st.over:
                    battle.combat(c)
            st.expire("phase")
            if st.over:
                return
        st.expire("turn")


def try_units(battle: Battle, side: int, phase: A.Phase, roll: A.ActivationRoll) -> bool:
    """The side's units try to activate in ``phase``, one at a time; True when one goes bust."""
    st = battle.state
    untried = list(st.side_units(side))
    while untried and not st.over:
        options = tuple(Option(u.label, u.uid) for u in untried) + (Option("Stop activating", None),)
        i = battle.choose(Choice("unit", side, st.side_titles[side], f"{phase.title}: which unit tries to activate?",
                                 options, lambda: [unit_worth(battle, u, (phase,)) for u in untried] + [0.0]))
        if i == len(untried):
            return False
        unit = untried.pop(i)
        if not unit.alive:
            continue
        foe = st.nearest_enemy(unit)
        p = battle.rules.chance(roll.test, unit, st.distance(unit, foe) if foe else None)
        counts = list(range(roll.least, roll.most + 1))
        rest = sum(unit_worth(battle, u, (phase,)) for u in untried)
        k = counts[battle.choose(Choice(
            "dice", side, unit.label, f"How many dice does {unit.label} roll to activate?",
            tuple(Option(f"{n} {'die' if n == 1 else 'dice'}", n) for n in counts),
            lambda: [dice_worth(n, p, roll.bust, unit_worth(battle, unit, (phase,)), rest) for n in counts]))]
        successes = sum(1 for _ in range(k) if battle.rng.random() < p)
        failures = k - successes
        bust = failures >= roll.bust
        battle.emit("roll", unit=unit.label, dice=k, successes=0 if bust else successes, failures=failures,
                    bust=bust, chance=round(p, 6), rule=roll.test.func if isinstance(roll.test, A.Call) else "")
        if bust:
            return True
        for _ in range(successes):
            if not unit.alive or st.over or not battle.act(unit, phase):
                break
    return False


def dice_worth(n: int, p: float, bust: int, worth: float, rest: float) -> float:
    """What rolling ``n`` dice (each a success with chance ``p``) is worth: the expected action
    points, each worth ``worth``, unless the roll goes bust and the units still to try (``rest``)
    lose their chance."""
    points = gone = 0.0
    for s in range(n + 1):
        chance = comb(n, s) * p ** s * (1 - p) ** (n - s)
        if n - s >= bust:
            gone += chance
        else:
            points += s * chance
    return points * worth - gone * rest


def alternating_detachments(battle: Battle, order: Sequence[int]) -> None:
    """Phase by phase, the players take turns to activate one detachment each (here each unit is
    one); in a phase with orders each activated unit is given one, which it keeps for the turn."""
    st = battle.state
    battle.emit("turn", title="detachments in turn")
    for phase in battle.game.phases:
        if not phase.orders:
            battle.run_phase(phase, order)
        else:
            st.phase = phase.id
            pending = [st.side_units(s) for s in order]
            while not st.over and any(pending):
                for s, left in zip(order, pending):
                    if not left or st.over:
                        continue
                    st.active = s
                    unit = pick(battle, s, left, f"{phase.title}: which detachment do you activate?", (phase,))
                    left.remove(unit)
                    if unit.alive:
                        battle.emit("activation", unit=unit.label, title=st.side_titles[s])
                        give_order(battle, unit, phase)
            for c in phase.combats:
                if not st.over:
                    battle.combat(c)
            st.expire("phase")
        if st.over:
            return
    for u in st.units:
        u.values.clear()  # orders last the turn
    st.expire("turn")


def orders_for(unit: Unit, phase: A.Phase) -> list[A.Order]:
    """The orders ``unit`` may be given: none barred by its statuses, each with the status it needs."""
    return [o for o in phase.orders if not any(unit.has(s) for s in o.unless)
            and (o.requires is None or unit.has(o.requires))]


def give_order(battle: Battle, unit: Unit, phase: A.Phase) -> None:
    """``unit`` is given one of the orders open to it (or none) and carries out its actions."""
    allowed = orders_for(unit, phase)
    if not allowed:
        return
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
        if given.any_order and len(todo) > 1:
            k = battle.choose(Choice("action", unit.side, unit.label, f"{given.title}: which action first?",
                                     tuple(Option(a.title, a.id) for a in todo),
                                     lambda: [battle.estimate_action(unit, a) for a in todo]))
        action = todo.pop(k)
        if not any(unit.has(s) for s in action.unless):
            perform(battle, unit, action)


def order_worth(battle: Battle, unit: Unit, order: A.Order, phase: A.Phase) -> float:
    """The best ``unit`` could expect from ``order``: its actions' estimates, with the order given."""
    situation = battle.game.order_situation
    before = dict(unit.values)
    if situation is not None:
        unit.values[situation] = order.id
    actions = {a.id: a for a in phase.actions}
    worth = sum(max(0.0, battle.estimate_action(unit, actions[n])) for n in order.actions if n in actions)
    unit.values = before
    return worth


def perform(battle: Battle, unit: Unit, action: A.Action) -> None:
    """``unit`` carries out ``action``: its effects in turn, until one cannot happen."""
    battle.emit("action", unit=unit.label, action=action.id, title=action.title)
    for effect in action.effects:
        if not unit.alive or battle.state.over:
            return
        if not EFFECTS[effect.kind](battle, unit, effect, action):
            return


ACTIVATIONS["alternating_activations"] = alternating_activations
ACTIVATIONS["alternating_detachments"] = alternating_detachments
ACTIVATIONS["activation_rolls"] = activation_rolls
