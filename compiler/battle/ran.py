"""What a ruleset's battles execute: the declarations played while its scenarios run.

``warscribe test --coverage`` counts a rule as running in battle only when something it declares
or links was used by a battle, not merely linked.  This module plays a few games of each
scenario with the default (greedy) players, keeping the events, and reads off what ran: the
scenario and its game, each phase in which something happened, every action, order, attack,
test, score and reaction the events name, and — through
:func:`compiler.trace.recording` around the games — every test, table, formula, modifier or
attack the resolver worked out for them.

A status counts only when what it does took effect, not when it was merely set: an action or
order it took from a unit that held it, a reaction it allowed or barred, an enemy it spared a
shot, an expression worked out for a unit holding it that reads it (the engine notes these,
:func:`compiler.trace.note_held`), or a modifier or ability whose condition or amount reads it
and that changed a number.  So does a counter: it counts when something read it, not when it rose.

A scenario that checks clean but that the engine cannot play (a game whose situation hangs on a
die roll, say) stops there, and :func:`not_played` names it with where it is written and why, so
that coverage and the site say so instead of quietly counting what it would have used as unplayed.

Nothing here runs unless coverage asks for it: a simulation keeps no events and records nothing.

>>> from pathlib import Path
>>> import compiler
>>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
>>> ran = ran_in_battle(model, games=1)
>>> "sample_battle" in ran
True
"""
from __future__ import annotations

from typing import Any, Iterable

from compiler import ast as A
from compiler.battle.engine import Battle
from compiler.battle.policies import GreedyPolicy
from compiler.battle.rules import Rules
from compiler.battle.simulate import game_seed
from compiler.model.ruleset import Ruleset
from compiler.trace import recording

#: The games played of each scenario: enough for each side to take the lead once.
GAMES = 4
#: The event fields that name a declaration.  Not ``status`` nor ``counter``: a status set, a
#: counter risen, has done nothing yet (what it does is noted when it takes effect).
NAMING = ("action", "order", "rule", "score", "reaction", "reason")


def ids_in(events: Iterable[dict[str, Any]]) -> set[str]:
    """The ids an event log names: the phases something happened in, and the declarations used.

    >>> sorted(ids_in([{"event": "action", "phase": "shooting", "action": "fire"}]))
    ['fire', 'shooting']
    """
    out: set[str] = set()
    for event in events:
        if event.get("phase"):
            out.add(str(event["phase"]))
        for name in NAMING:
            value = event.get(name)
            if isinstance(value, str) and value:
                out.add(value)
    return out


def conditioned(model: Ruleset, used: set[str]) -> set[str]:
    """The statuses and counters read by a modifier or ability in ``used`` — by its condition or by
    the amount of one of its effects (``-s_points Ld``); the resolver notes one only when it changed
    a number (its condition held)."""
    # a status a modifier or ability reads is a situation (one that is not is refused there: W201)
    statuses = set(model.situations)
    out: set[str] = set()
    for decl_id in used:
        decl = model.get(decl_id)
        if not isinstance(decl, (A.Modifier, A.Ability)):
            continue
        read = [decl.when] + [e.value for e in decl.effects]
        for expr in read:
            if expr is not None:
                out.update(e.id for e in A.sub_expressions(expr) if isinstance(e, A.Name) and e.id in statuses)
    return out


def ran_in_battle(model: Ruleset, games: int = GAMES, seed: int = 1) -> frozenset[str]:
    """The ids of the declarations ``games`` battles of each scenario of ``model`` used (memoised)."""
    return _played(model, games, seed)[0]


def not_played(model: Ruleset, games: int = GAMES, seed: int = 1) -> tuple[tuple[str, str], ...]:
    """Each scenario of ``model`` the engine could not play, with why, located at the scenario
    (``file:line:col: reason``): what it would have used is missing from :func:`ran_in_battle`,
    so coverage says so rather than quietly counting its rules as unplayed."""
    return _played(model, games, seed)[1]


def _played(model: Ruleset, games: int, seed: int) -> tuple[frozenset[str], tuple[tuple[str, str], ...]]:
    key = ("_ran_in_battle", games, seed)
    cached = model.__dict__.get(key[0])
    if cached is not None and cached[0] == key:
        return cached[1]  # type: ignore[no-any-return]
    out: set[str] = set()
    refused: list[tuple[str, str]] = []
    with recording() as used:
        rules = Rules(model)  # a fresh one: its caches fill while the resolver is being recorded
        for scenario in model.of_type(A.Scenario):  # each has two sides or more, and a game (W861)
            for i in range(games):
                try:
                    battle = Battle(rules, scenario, [GreedyPolicy() for _ in scenario.sides],
                                    game_seed(seed, i), record=True)
                    battle.run()
                except ValueError as err:  # rules check accepts but the engine cannot play (a dice-bound situation)
                    refused.append((scenario.id, f"{scenario.span}: {err}"))
                    break
                out |= ids_in(battle.events) | {scenario.id, battle.game.id}
    found = (frozenset(out | used | conditioned(model, used)), tuple(refused))
    model.__dict__[key[0]] = (key, found)
    return found
