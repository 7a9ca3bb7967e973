"""A battle as a game tree, in OpenSpiel's shape: nodes, the side to act, legal actions, chance
nodes with their exact laws, and the transition.

The engine plays a battle as one run of its turn structure; every decision goes through
``Battle.choose`` and every roll through ``Battle.chance``.  A :class:`Node` is the battle after a
given history of answers (choices and chance outcomes): it plays the battle again with those
answers, and stops at the first question past them — a choice for a side (the node's legal
actions are its options) or a chance node (its outcomes, with their exact chances, are the
law the engine would draw from).  So sampling, exact solving (dynamic programming over nodes,
with Fractions when the rules are worked out exactly: ``Rules(model, exact=True)``) and search
(lookahead, MCTS) all run on the one engine, and none of them knows a game's rules.

A node replays its history from the first state (a battle is short; a solver keeps what it
needs by history).  Its :meth:`Node.state` is the table at that moment.

>>> from pathlib import Path
>>> import compiler
>>> from compiler.battle import Rules
>>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
>>> root = Node.root(Rules(model), model.get("sample_battle"))
>>> root.current_player() == CHANCE, [p for _, p in root.chance_outcomes()]  # who goes first
(True, [Fraction(1, 2), Fraction(1, 2)])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compiler import ast as A
from compiler.battle.engine import Battle, Outcome
from compiler.battle.policies import Choice
from compiler.battle.rules import Law, Rules
from compiler.battle.state import State

#: :meth:`Node.current_player` of a chance node and of the end of the battle.
CHANCE = -1
TERMINAL = -4


class _Pending(Exception):
    """The replay reached a question past the history."""

    def __init__(self, choice: Choice | None, law: Law | None, what: str) -> None:
        super().__init__(what)
        self.choice, self.law, self.what = choice, law, what


class _Answers:
    """Both sides' policy and nature at once: the history's answers, in order, then a stop."""

    def __init__(self, history: tuple[int, ...]) -> None:
        self.history = history
        self.at = 0

    def _next(self, choice: Choice | None, law: Law | None, what: str) -> int:
        if self.at < len(self.history):
            self.at += 1
            return self.history[self.at - 1]
        raise _Pending(choice, law, what)

    def choose(self, choice: Choice) -> int:
        return self._next(choice, None, choice.kind)

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        return self._next(None, law, what)


@dataclass(frozen=True)
class Node:
    """The battle after ``history`` (each choice's option index, each chance node's outcome index)."""

    rules: Rules
    scenario: A.Scenario
    history: tuple[int, ...] = ()
    _played: list[Any] = field(default_factory=list, compare=False, repr=False)

    @classmethod
    def root(cls, rules: Rules, scenario: A.Scenario) -> Node:
        """The battle before its first question."""
        return cls(rules, scenario)

    def _play(self) -> tuple[Battle, _Pending | None, Outcome | None]:
        if not self._played:
            answers = _Answers(self.history)
            battle = Battle(self.rules, self.scenario, [answers] * len(self.scenario.sides), seed=0,
                            record=False, nature=answers)
            try:
                outcome: Outcome | None = battle.run()
                pending = None
            except _Pending as stop:
                outcome, pending = None, stop
            if pending is None and answers.at < len(self.history):
                raise ValueError(f"the battle ended after {answers.at} answers; the history has {len(self.history)}")
            self._played.append((battle, pending, outcome))
        found: tuple[Battle, _Pending | None, Outcome | None] = self._played[0]
        return found

    def state(self) -> State:
        """The table at this node (positions, models, wounds, statuses, the clock)."""
        return self._play()[0].state

    def is_terminal(self) -> bool:
        return self._play()[1] is None

    def is_chance_node(self) -> bool:
        pending = self._play()[1]
        return pending is not None and pending.law is not None

    def current_player(self) -> int:
        """The side to act (its index), :data:`CHANCE` or :data:`TERMINAL`."""
        pending = self._play()[1]
        if pending is None:
            return TERMINAL
        if pending.choice is None:
            return CHANCE
        return pending.choice.side

    def choice(self) -> Choice | None:
        """The decision to take here (its prompt, options and estimates), if this is a decision node."""
        pending = self._play()[1]
        return pending.choice if pending is not None else None

    def law(self) -> Law | None:
        """The exact law of this chance node's outcomes (None elsewhere)."""
        pending = self._play()[1]
        return pending.law if pending is not None else None

    def chance_kind(self) -> str:
        """What the chance node rolls for: "volley", "test", "first", "activation" ("" elsewhere)."""
        pending = self._play()[1]
        return pending.what if pending is not None and pending.law is not None else ""

    def legal_actions(self) -> list[int]:
        """The answers open here: a choice's option indices, or a chance node's outcome indices."""
        pending = self._play()[1]
        if pending is None:
            return []
        if pending.choice is not None:
            return list(range(len(pending.choice.options)))
        assert pending.law is not None
        return [i for i, p in enumerate(pending.law.probabilities) if p]

    def chance_outcomes(self) -> list[tuple[int, Any]]:
        """Each outcome index of this chance node with its exact chance."""
        law = self.law()
        if law is None:
            raise ValueError("not a chance node")
        return [(i, p) for i, p in enumerate(law.probabilities) if p]

    def child(self, action: int) -> Node:
        """The node after answering ``action`` here (the transition)."""
        if action not in self.legal_actions():
            raise ValueError(f"{action} is not a legal answer here")
        return Node(self.rules, self.scenario, self.history + (action,))

    def outcome(self) -> Outcome:
        """How the battle ended (at a terminal node)."""
        out = self._play()[2]
        if out is None:
            raise ValueError("the battle is not over at this node")
        return out

    def returns(self) -> list[float]:
        """Each side's result at a terminal node: 1 for the winner, -1 for the others, 0 in a draw."""
        winner = self.outcome().winner
        return [0.0 if winner is None else 1.0 if s == winner else -1.0 for s in range(len(self.scenario.sides))]
