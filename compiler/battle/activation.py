"""The activation schemes: who acts when, by the name a game's ``activation`` line gives.

Each scheme plays one game turn of a :class:`~compiler.battle.engine.Battle` and registers itself
in :data:`~compiler.battle.engine.ACTIVATIONS`; a new one is a function here (see the package
docstring).
"""
from __future__ import annotations

from math import comb
from typing import Sequence

from compiler import ast as A
from compiler.battle.engine import Battle, activation
from compiler.battle.policies import Choice, Option
from compiler.battle.rules import binomial
from compiler.trace import active, note_held


@activation("whole_army")
def whole_army(battle: Battle, order: Sequence[int]) -> None:
    """Each player in turn runs every phase with all their units (a resumed battle from the
    player it was resumed at, :attr:`~compiler.battle.engine.Battle.player`)."""
    start, battle.player = battle.player, 0
    for k in range(start, len(order)):
        if k > start and battle.at_player is not None:
            battle.at_player(k)
        battle.player_turn(order[k], battle.game.phases)
        if battle.state.over:
            return


@activation("alternating_units")
def alternating_units(battle: Battle, order: Sequence[int]) -> None:
    """Phase by phase, the players take turns to act with one unit each, the first player first."""
    battle.emit("turn", title="units in turn", side=battle.state.sides[order[0]])  # the first to act
    for phase in battle.game.phases:
        battle.run_phase(phase, order)
        if battle.state.over:
            return
    battle.period_ends("turn")


@activation("activation_rolls")
def activation_rolls(battle: Battle, order: Sequence[int]) -> None:
    """Each player in turn tries their units one at a time: dice rolled for the unit give it one
    action per success, until the player stops, every unit has been tried, or the dice go bust."""
    st = battle.state
    for side in order:
        st.active, st.phase = side, ""
        battle.emit("turn", title=st.side_titles[side])
        for phase in battle.game.phases:
            st.phase = phase.id
            if phase.actions:
                try_units(battle, phase, side)
            for c in phase.combats:
                if not st.over:
                    battle.combat(c)
            if st.over:
                return
            battle.period_ends("phase")
        battle.period_ends("turn")


def try_units(battle: Battle, phase: A.Phase, side: int) -> None:
    """The game's activation dice, unit by unit (see :func:`activation_rolls`)."""
    dice = battle.game.activation_dice
    assert dice is not None
    st = battle.state
    if active():  # coverage: the statuses that take an action from a unit (or all: it is not tried)
        for u in st.side_units(side):
            note_held(u.statuses, [s for a in phase.actions for s in a.unless])
    # a unit every action of the phase is barred to (one in melee, which fights its round) rolls no dice
    left = [u for u in st.side_units(side)
            if not (u.statuses and all(a.unless and any(x in u.statuses for x in a.unless) for a in phase.actions))]
    greedy = battle.greedy(side)  # the same answers, without building the choices
    counts = list(range(dice.low, dice.high + 1))
    while left and not st.over:
        # every unit is worth trying (1.0), one that would get fewer actions (pinned) less (0.5): it
        # goes last, so that its bust ends no other unit's go; stopping is worth nothing (0.0)
        worth = [0.5 if dice.fewer and any(u.has(s) for _, s in dice.fewer) else 1.0 for u in left]
        if greedy:
            i = worth.index(max(worth))  # the first unit of the best
            battle.choices.append(i)
        else:
            options = tuple(Option(u.label, u.uid) for u in left) + (Option("Stop", None),)
            i = battle.choose(Choice("unit", side, st.side_titles[side],
                                     f"{phase.title}: which unit do you try next?",
                                     options, lambda: worth + [0.0]))
        if i == len(left):
            return
        unit = left.pop(i)
        p = battle.rules.odds(dice.test, unit, None)
        fewer = sum(n for n, status in dice.fewer if unit.has(status))  # ``2 fewer actions when pinned``
        if fewer:
            note_held(unit.statuses, [status for _, status in dice.fewer])
        if greedy:
            j = 0 if len(counts) == 1 else _greedy_dice(battle, counts, p, dice.bust, len(left), fewer)
        else:
            j = battle.choose(Choice("dice", side, unit.label, f"How many activation dice for {unit.label}?",
                                     tuple(Option(str(n), n) for n in counts),
                                     lambda: [_dice_value(n, p, dice.bust, len(left), fewer) for n in counts]))
        k = counts[j]
        successes = battle.chance(binomial(k, p), "activation")
        bust = k - successes >= dice.bust
        if battle.record:
            rule = dice.test.func if isinstance(dice.test, A.Call) else ""
            battle.emit("activation", rule=rule, unit=unit.label, dice=k, successes=successes, bust=bust,
                        chance=round(float(p), 6))
        if bust:
            return
        for _ in range(max(0, successes - fewer)):
            if not unit.alive or st.over or not battle.act(unit, phase):
                break


def _greedy_dice(battle: Battle, counts: list[int], p: float, bust: int, waiting: int, fewer: int = 0) -> int:
    """The greedy policy's number of activation dice (its index in ``counts``), kept per situation."""
    key = (counts[0], len(counts), p, bust, waiting, fewer)
    found = battle.memos.dice.get(key)
    if found is None:
        values = [_dice_value(n, p, bust, waiting, fewer) for n in counts]
        found = battle.memos.dice.keep(key, values.index(max(values)))
    battle.choices.append(found)
    return found


def _dice_value(n: int, p: float, bust: int, waiting: int, fewer: int = 0) -> float:
    """What rolling ``n`` activation dice is worth: the actions expected without a bust (``fewer``
    taken off them), less one action for each unit still waiting when the dice go bust (each die
    succeeds with chance ``p``)."""
    worth = 0.0
    for s in range(n + 1):
        chance = comb(n, s) * p ** s * (1 - p) ** (n - s)
        worth += chance * (-float(waiting) if n - s >= bust else float(max(0, s - fewer)))
    return worth
