"""From a scenario to the first state of a battle, and what is kept for the scenario's battles.

Side one stands at 0", side two at the scenario's ``distance``; a unit given ``at N"`` stands
there.  The units and their points come from :func:`compiler.model.armies.listed_units`.

:func:`prepared` gives a scenario's :class:`Prepared`: its game, its first state, and the memos
its battles fill (made once per :class:`~compiler.battle.rules.Rules`, so that a simulation's
games share them).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from compiler import ast as A
from compiler.battle.estimates import EstimateMemos
from compiler.battle.memo import Memo, Recurring
from compiler.battle.phases import KeptPhases
from compiler.battle.policies import Option
from compiler.battle.rules import Law, Rules
from compiler.battle.state import Marker, State, Unit
from compiler.battle.table import table_of
from compiler.model.armies import listed_units
from compiler.model.ruleset import Ruleset
from compiler.model.sides import status_sides


def initial_state(model: Ruleset, scenario: A.Scenario, game: A.Game | None = None) -> State:
    """The table at deployment: on a line, side one at 0", side two at the scenario's distance; on
    a table, each unit where it is placed (else side one at the middle of its edge, side two of
    the far edge)."""
    kinds = {k.id: k for k in game.terrain} if game is not None else {}
    table = table_of(scenario, kinds)
    units: list[Unit] = []
    warlords: set[int] = set()
    for s, side in enumerate(scenario.sides):
        for lu in listed_units(model, side):
            entry = side.units[len([u for u in units if u.side == s])]
            if table is None:
                x = float(entry.at) if entry.at is not None else float((scenario.distance or 0) if s else 0)
                y = 0.0
            else:
                zx, zy = ((side.zone[0] + side.zone[2]) / 2, (side.zone[1] + side.zone[3]) / 2) if side.zone \
                    else (table.width / 2, table.depth if s else 0.0)  # a unit not placed: mid-zone, or mid-edge
                x = float(entry.at) if entry.at is not None else zx
                y = float(entry.at_y) if entry.at_y is not None else zy
            if entry.warlord:
                warlords.add(len(units))
            units.append(Unit(len(units), s, lu.label, lu.profile, lu.weapons, lu.models, lu.models,
                              lu.per_model, x, y=y))
    return State(units, tuple(side.id for side in scenario.sides), tuple(side.title for side in scenario.sides),
                 objectives=[Marker(o.id, o.title, float(o.at[0]), y=float(o.at[1]) if len(o.at) > 1 else 0.0)
                             for o in scenario.objectives], table=table, warlords=frozenset(warlords),
                 defending=status_sides(model).defending)


#: A phase's offer to a unit in a state: the actions open to it, their options (and "Nothing"),
#: and the greedy policy's pick once worked out (None before).
Offer = tuple[list[A.Action], tuple[Option, ...], int | None]


@dataclass(slots=True)
class EngineMemos:
    """The engine's kept picks and plans (one set per scenario and process)."""

    offers: Memo[tuple[Any, ...], Offer] = field(default_factory=lambda: Memo("a phase's offers"))
    #: whether the offers of a phase in a game turn recur (are worth keeping)
    recur: Recurring = field(default_factory=Recurring)
    menus: Memo[tuple[str, ...], tuple[list[A.Action], tuple[Option, ...]]] = field(
        default_factory=lambda: Memo("a phase's actions offered and their options"))
    steps: Memo[tuple[Any, ...], tuple[int | None, int]] = field(default_factory=lambda: Memo("greedy moves"))
    reached: Memo[tuple[Any, ...], tuple[int, ...]] = field(default_factory=lambda: Memo("enemies in reach"))
    targets: Memo[tuple[Any, ...], int] = field(default_factory=lambda: Memo("greedy targets"))
    strikes: Memo[tuple[Any, ...], tuple[Any, ...]] = field(default_factory=lambda: Memo("volley plans"))
    ends: Memo[tuple[Any, ...], Any] = field(default_factory=lambda: Memo("end-of-period tests"))  # exact or float
    dice: Memo[tuple[Any, ...], int] = field(default_factory=lambda: Memo("greedy activation dice"))
    move_options: Memo[int, tuple[list[int], tuple[Option, ...]]] = field(
        default_factory=lambda: Memo("the options of a move"))
    initiative: Memo[int, Law] = field(default_factory=lambda: Memo("initiative rolls"))
    reaches: Memo[tuple[Any, ...], Law] = field(default_factory=lambda: Memo("engagement reaches"))
    amounts: Memo[tuple[Any, ...], Law] = field(default_factory=lambda: Memo("what counters change by"))
    counted: Memo[str, str | None] = field(default_factory=lambda: Memo("the step counters read of an attack"))
    outcomes: Memo[tuple[Any, ...], tuple[tuple[Any, ...], Law]] = field(
        default_factory=lambda: Memo("the values an end-of-period roll takes"))
    #: the phases played without a die, by the state they started from
    phases: KeptPhases = field(default_factory=KeptPhases)


@dataclass(slots=True)
class Prepared:
    """A scenario ready to be played: its game, its first state, and its battles' memos."""

    scenario: A.Scenario
    game: A.Game
    first: State
    engine: EngineMemos = field(default_factory=EngineMemos)
    estimates: EstimateMemos = field(default_factory=EstimateMemos)

    def fresh_state(self) -> State:
        """A copy of the first state, for one battle."""
        first = self.first
        return State([Unit(u.uid, u.side, u.label, u.profile, u.weapons, u.models, u.started, u.points, u.position,
                           y=u.y) for u in first.units], first.sides, first.side_titles,
                     objectives=[Marker(o.oid, o.title, o.position, y=o.y) for o in first.objectives], table=first.table,
                     warlords=first.warlords, defending=first.defending)


_PREPARED: weakref.WeakKeyDictionary[Rules, dict[str, Prepared]] = weakref.WeakKeyDictionary()


def prepared(rules: Rules, scenario: A.Scenario) -> Prepared:
    """The scenario prepared for ``rules`` (made on first use; kept while ``rules`` lives)."""
    kept = _PREPARED.get(rules)
    if kept is None:
        kept = _PREPARED[rules] = {}
    found = kept.get(scenario.id)
    if found is None or found.scenario is not scenario:
        model = rules.model
        games = model.of_type(A.Game)
        game = model.get(scenario.game) if scenario.game else (games[0] if games else None)
        if not isinstance(game, A.Game):
            raise ValueError(f"scenario '{scenario.id}' has no game to play")
        found = kept[scenario.id] = Prepared(scenario, game, initial_state(model, scenario, game))
    return found
