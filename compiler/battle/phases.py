"""Phases played without a die, kept whole where the states they start from recur.

Between greedy sides whose picks the engine makes itself (no :class:`~compiler.battle.engine.Nature`,
no events written), a phase in which no die is rolled is a function of the state it starts from:
the state it ends in and the answers the battle records on the way
(:attr:`~compiler.battle.engine.Battle.choices`).  A battle of many units on a table whose first
roll comes after the first game turn's movement plays that movement alike in every game (twenty
decisions of some hundred and forty).  So :class:`KeptPhases` keeps, under the state a phase
starts from (:func:`phase_key`: the whole state by value, as the walk keys a position, with what
each unit spent), the state it ended in and the choices made, and the engine takes them up
instead of playing the phase again (:meth:`~compiler.battle.engine.Battle.run_phase`).  A phase
that rolled a die from that state is kept as such (:data:`ROLLED`) and played again: from the
same state, the same greedy picks reach the same first roll.

A state is keyed only where states recur: per phase and game turn
(:class:`~compiler.battle.memo.Recurring`), past :data:`TRIAL` look-ups a group found less than
:data:`RECUR` of the time is played with no key (a later game turn of a battle of many units:
its dice made every state new).  The games are the same either way; only the time depends on it.
"""
from __future__ import annotations

from typing import Any, Protocol, Sequence

from compiler import ast as A
from compiler.battle.memo import Recurring
from compiler.battle.state import State, state_key

#: Look-ups of a phase in a game turn before :class:`Recurring` judges whether its states recur,
#: and the share of them that must be found to go on keying them.
TRIAL = 40
RECUR = 0.15
#: Phases kept before the memo starts again (each holds a whole state: a bound on memory; the
#: states that recur are few, two for ten units a side).
LIMIT = 2_000

#: What a phase that rolled a die from a state is kept as (it is played again, not taken up).
ROLLED: tuple[None, tuple[int, ...]] = (None, ())

Kept = tuple[State | None, tuple[int, ...]]


def phase_key(state: State, phase: str, sides: Sequence[int]) -> tuple[Any, ...]:
    """What a phase played from ``state`` by ``sides`` is kept under: the phase, the sides, the
    whole state by value and whether each unit spent its action this game turn."""
    return (phase, tuple(sides), state_key(state), tuple([u.spent for u in state.units]))


class Phased(Protocol):
    """What of a :class:`~compiler.battle.engine.Battle` a kept phase reads and sets."""

    state: State
    rolled: int  # the dice drawn from the battle's own stream so far
    choices: list[int]

    def play_phase(self, phase: A.Phase, sides: Sequence[int]) -> None: ...

    def take_up(self, state: State, choices: Sequence[int]) -> None: ...


class PhaseGroups(Recurring):
    """:class:`~compiler.battle.memo.Recurring` with this module's :data:`TRIAL` and :data:`RECUR`
    (a phase is looked up once a game turn, not once a decision)."""

    __slots__ = ()

    def worth(self, group: object) -> bool:
        kept = self.groups.get(group)  # (a group counted was looked up at least once)
        return TRIAL > 0 if kept is None else kept[0] < TRIAL or kept[1] >= RECUR * kept[0]


class KeptPhases:
    """The phases played without a die, by the state they started from (one per scenario and
    process, with the engine's other memos)."""

    __slots__ = ("ends", "recur")

    def __init__(self) -> None:
        #: phase key → the state at the phase's end (a copy) and the choices made; :data:`ROLLED`
        self.ends: dict[tuple[Any, ...], Kept] = {}
        #: per (phase, game turn): whether its states recur
        self.recur = PhaseGroups()

    def find(self, group: tuple[str, int], key: tuple[Any, ...]) -> Kept | None:
        """What was kept under ``key`` (None: nothing), counted for its ``group``."""
        found = self.ends.get(key)
        self.recur.found(group, found is not None and found[0] is not None)
        return found

    def keep(self, key: tuple[Any, ...], state: State | None, choices: Sequence[int]) -> None:
        """Keep the state a phase ended in (None: it rolled a die) and the choices it recorded."""
        if len(self.ends) >= LIMIT:
            self.ends.clear()
        self.ends[key] = ROLLED if state is None else (state.copy(), tuple(choices))

    def run(self, battle: Phased, phase: A.Phase, sides: Sequence[int]) -> None:
        """``phase`` taken up whole where it was played without a die from this state before, else
        played (and kept, where its states recur)."""
        st = battle.state
        group = (phase.id, st.turn)
        if not self.recur.worth(group):
            battle.play_phase(phase, sides)
            return
        key = phase_key(st, phase.id, sides)
        found = self.find(group, key)
        if found is not None and found[0] is not None:
            battle.take_up(found[0], found[1])
            return
        rolled, start = battle.rolled, len(battle.choices)
        battle.play_phase(phase, sides)
        if found is None:
            self.keep(key, battle.state if battle.rolled == rolled else None, battle.choices[start:])
