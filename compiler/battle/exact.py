"""The exact law of a battle's outcome, by dynamic programming over its chance nodes, with Fractions.

With deterministic players (greedy, or any policy whose answer depends only on the choice it is
given) the only branching in a battle is the dice: every chance node has an exact law
(``Rules(model, exact=True)`` makes its chances fractions).  The solver walks the tree of
chance outcomes depth first and sums, for each way the battle can end (who won, after how many
game turns, with how many models left on each side), the product of the chances on the way.

**States merged when equal.**  Different rolls often lead to the same position — one casualty
now and none next, or none now and one next.  A node is keyed by everything that decides what
happens after it: the whole :class:`~compiler.battle.state.State` (every unit's models, wounds,
position, statuses, engagements, values; the clock, scores, objectives) *and* where the engine
stands in its turn structure — the engine's frames from :meth:`Battle.run` down to the roll,
each with its line and its local variables (units by id, lists and numbers by value, the rules
model's own objects by identity).  Two nodes with equal keys play out alike, so the solver
works each out once.  (A key never merges two nodes that could differ: whatever it cannot
compare by value it compares by identity, and keeps alive so that no identity is reused.)

**Bounded.**  A battle's positions can be many; past :data:`~compiler.limits.MAX_EXACT_STATES`
distinct positions the solver stops with :class:`TooManyStates`, which says how many it had
found — then sample (``warscribe simulate`` without ``--exact``).

The policies must be deterministic: :data:`DETERMINISTIC` names those that are.  A node is
reached by playing the battle again from the start with the rolls of its history (a battle is
short, and the engine cannot be copied mid-turn), as :class:`~compiler.battle.tree.Node` does.
"""
from __future__ import annotations

import os
import types
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Sequence

from compiler import ast as A
from compiler.battle.engine import Battle, Outcome
from compiler.battle.policies import GreedyPolicy, Option, Policy
from compiler.battle.rules import Law, Rules
from compiler.battle.state import State, Unit, state_key
from compiler.limits import MAX_EXACT_STATES

#: The policies whose answer depends only on the choice put to them (what ``--exact`` accepts).
DETERMINISTIC: dict[str, Callable[[], Policy]] = {"greedy": GreedyPolicy}

#: One way a battle ends: (the winner's index or None for a draw, game turns, models left per side).
Ending = tuple[int | None, int, tuple[int, ...]]


class TooManyStates(ValueError):
    """The battle has more positions than the solver may work through."""

    def __init__(self, states: int, limit: int) -> None:
        super().__init__(f"the battle has more than {limit:,} distinct positions ({states:,} found before stopping); "
                         f"its exact law is too big to work out: sample it instead (without --exact)")
        self.states, self.limit = states, limit


class _Roll(Exception):
    """The replay reached a roll past the history."""

    def __init__(self, law: Law) -> None:
        super().__init__("roll")
        self.law = law


class _Dice:
    """Answers the rolls of a history, in order; raises :class:`_Roll` at the next one."""

    __slots__ = ("history", "at")

    def __init__(self, history: tuple[int, ...]) -> None:
        self.history, self.at = history, 0

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        if self.at < len(self.history):
            self.at += 1
            return self.history[self.at - 1]
        raise _Roll(law)


@dataclass(frozen=True)
class ExactLaw:
    """The exact law of a battle's outcome: each ending's chance, and how many positions were solved."""

    endings: dict[Ending, Fraction]
    states: int
    sides: int

    def win(self, side: int) -> Fraction:
        return sum((p for (w, _, _), p in self.endings.items() if w == side), Fraction(0))

    def draw(self) -> Fraction:
        return sum((p for (w, _, _), p in self.endings.items() if w is None), Fraction(0))

    def survivors(self, side: int) -> dict[int, Fraction]:
        """The law of the models ``side`` has left at the end."""
        out: dict[int, Fraction] = {}
        for (_, _, left), p in self.endings.items():
            out[left[side]] = out.get(left[side], Fraction(0)) + p
        return dict(sorted(out.items()))

    def turns(self) -> dict[int, Fraction]:
        """The law of the game turns the battle lasts."""
        out: dict[int, Fraction] = {}
        for (_, t, _), p in self.endings.items():
            out[t] = out.get(t, Fraction(0)) + p
        return dict(sorted(out.items()))


def mean(law: dict[int, Fraction]) -> Fraction:
    return sum((k * p for k, p in law.items()), Fraction(0))


class Keys:
    """Keys of positions: the state by value, the engine's frames by line and locals."""

    def __init__(self) -> None:
        self.keep: list[Any] = []  # objects keyed by identity, kept alive so no id is reused
        self.folder = os.path.dirname(__file__)  # the engine's frames: the battle package's modules
        self.here = __file__

    def key(self, battle: Battle, stop: _Roll) -> tuple[Any, ...]:
        names: dict[int, str] = {id(battle): "battle", id(battle.state): "state", id(battle.estimates): "estimates",
                                 id(battle.referee): "referee", id(battle.nature): "nature",
                                 id(battle.policies): "policies", id(battle.events): "events",
                                 id(battle.choices): "choices"}
        for k, p in enumerate(battle.policies):
            names.setdefault(id(p), f"policy{k}")
        frames = []
        tb: types.TracebackType | None = stop.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            code = frame.f_code
            if code.co_filename.startswith(self.folder) and code.co_filename != self.here:
                frames.append((code.co_filename, code.co_name, tb.tb_lineno,
                               tuple((k, self.freeze(v, names)) for k, v in frame.f_locals.items())))
            tb = tb.tb_next
        sig = battle.estimates.sig
        return (state_key(battle.state), tuple(frames), law_key(stop.law),
                None if sig is None else (sig[0].uid, self.freeze(sig[1], names)))

    def freeze(self, v: Any, names: dict[int, str]) -> Any:
        """``v`` as a key: plain values and the plain containers (the engine's locals hold no cycles)
        by value, the engine's own objects by name, units by id, anything else by identity (a cache,
        a dict's subclass, is one): never equal unless it is the same object."""
        kind = type(v)
        if v is None or kind in _PLAIN:
            return v
        name = names.get(id(v))
        if name is not None:
            return name
        if kind is Unit:
            return ("unit", v.uid)
        if kind is list or kind is tuple:
            return (kind.__name__,) + tuple([self.freeze(x, names) for x in v])
        if kind is dict:
            return ("dict",) + tuple([(self.freeze(k, names), self.freeze(x, names)) for k, x in v.items()])
        if kind is Law:
            return law_key(v)
        if kind is Option:  # a choice's option, made afresh each time it is offered
            return ("option", v.label, self.freeze(v.value, names))
        if kind is types.FunctionType:
            return ("fn", v.__code__.co_filename, v.__code__.co_firstlineno,
                    tuple([self.freeze(c.cell_contents, names) for c in v.__closure__ or ()]))
        self.keep.append(v)
        return ("id", id(v))


_PLAIN = frozenset({bool, int, float, str, Fraction})


def law_key(law: Law) -> tuple[Any, ...]:
    return ("law", law.values, law.probabilities, law.damaged)


def solve(rules: Rules, scenario: A.Scenario, policies: Sequence[str] | str = "greedy",
          limit: int = MAX_EXACT_STATES) -> ExactLaw:
    """The exact law of ``scenario``'s outcome with deterministic ``policies`` (one name for all
    sides, or one per side); ``rules`` should be worked out exactly (``Rules(model, exact=True)``)
    for fractions.  :class:`TooManyStates` past ``limit`` positions; ``ValueError`` for a policy
    that is not deterministic."""
    n = len(scenario.sides)
    names = [policies] * n if isinstance(policies, str) else list(policies)
    for name in names:
        if name not in DETERMINISTIC:
            raise ValueError(f"--exact needs players that always answer alike; '{name}' does not "
                             f"(use {', '.join(DETERMINISTIC)})")
    keys = Keys()
    memo: dict[tuple[Any, ...], dict[Ending, Fraction]] = {}

    def play(history: tuple[int, ...]) -> tuple[Battle, Outcome | None, _Roll | None]:
        dice = _Dice(history)
        battle = Battle(rules, scenario, [DETERMINISTIC[k]() for k in names], seed=0, record=False, nature=dice)
        # the greedy picks kept per state (the engine's shortcut, the same answers): the dice are
        # the nature's, the choices the policies' own
        battle.greedy_sides = [type(p) is GreedyPolicy for p in battle.policies]
        try:
            return battle, battle.run(), None
        except _Roll as stop:
            return battle, None, stop

    def law_at(history: tuple[int, ...]) -> dict[Ending, Fraction]:
        battle, out, stop = play(history)
        if out is not None:
            return {(out.winner, out.turns, out.survivors): Fraction(1)}
        assert stop is not None
        key = keys.key(battle, stop)
        found = memo.get(key)
        if found is not None:
            return found
        if len(memo) >= limit:
            raise TooManyStates(len(memo) + 1, limit)
        total: dict[Ending, Fraction] = {}
        for i, p in enumerate(stop.law.probabilities):
            if not p:
                continue
            p = Fraction(p)
            for ending, q in law_at(history + (i,)).items():
                total[ending] = total.get(ending, Fraction(0)) + p * q
        memo[key] = total
        return total

    return ExactLaw(law_at(()), len(memo), n)  # the endings in no order: every reader sums or sorts them


def report(model_id: str, scenario: A.Scenario, law: ExactLaw, policies: Sequence[str]) -> dict[str, Any]:
    """The JSON answer of ``warscribe simulate --exact``."""
    sides = []
    for k, side in enumerate(scenario.sides):
        win, left = law.win(k), law.survivors(k)
        sides.append({"id": side.id, "title": side.title, "policy": policies[k], "win": fraction(win),
                      "win_float": float(win), "survivors_mean": fraction(mean(left)),
                      "survivors_mean_float": float(mean(left)),
                      "survivors": {str(m): fraction(p) for m, p in left.items()}})
    draw, turns = law.draw(), law.turns()
    return {"ruleset": model_id, "scenario": scenario.id, "exact": True, "sides": sides,
            "draw": fraction(draw), "draw_float": float(draw),
            "turns_mean": fraction(mean(turns)), "turns_mean_float": float(mean(turns)),
            "turns": {str(t): fraction(p) for t, p in turns.items()}, "states": law.states}


def fraction(p: Fraction) -> str:
    """A chance as the JSON writes it: ``"num/den"`` (``"0/1"`` and ``"1/1"`` at the ends)."""
    return f"{p.numerator}/{p.denominator}"
