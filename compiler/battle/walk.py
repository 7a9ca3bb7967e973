"""Many battles of deterministic players as a walk over the engine's kept transitions.

With players whose every answer depends only on the position (greedy: :data:`WALKABLE`), a
battle is a function of its dice.  (``lookahead`` and ``mcts`` answer per position too, but they
search by playing the battle again from its first state with its answers so far, which a battle
taken up from a kept state does not have: their games are played by the engine alone.)  A :class:`Walk` keeps, for each *position* — the battle at the
start of a game turn: the whole :class:`~compiler.battle.state.State` by value
(:func:`~compiler.battle.exact.state_key`, as the exact solver merges positions) and the side
that went first the turn before — the chance nodes the engine met from there, each with its
exact :class:`~compiler.battle.rules.Law` and, per outcome, what followed it: the next chance
node, the next position, or the end of the battle.

A game is then a walk: at each chance node one draw from the battle's own seeded stream, the
outcome's index found in the law's cumulative chances exactly as
:meth:`~compiler.battle.engine.Battle.chance` finds it, and the kept successor followed.  Where
nothing is kept yet (an outcome never drawn there before), the engine itself plays on: from the
kept state of the last position (:meth:`~compiler.battle.engine.Battle.resume`), the outcomes
already drawn since it replayed, later rolls drawn from the same stream, until it reaches a
position already kept (the walk goes on from there) or the end; what it meets is kept.  So the
game walked with a seed is the game the engine plays with that seed — the same rolls, the same
answers, the same outcome — and a transition is kept only under the position it left.
A simulation walks its games many at once (:meth:`Walk.play_many`): the kept transitions are
mirrored in flat arrays as they are kept (:mod:`compiler.battle.flat`), every game draws its
next number from its own stream and finds its outcome exactly as above, round after round, and
a game that meets an outcome with nothing kept after it is walked on its own, as above.

Kept transitions are checked as they are met again: a chance node whose law is not the one the
engine now rolls, or a successor other than the one it now reaches, is an error, never a silent
answer.  A walk keeps at most :data:`LIMIT` positions and :data:`STEPS` chance nodes (then
starts again); in a battle whose positions hardly ever recur (many units on a table) it stops
keeping any after :data:`TRIAL` games and lets the engine play each game as it would alone.
``games`` and ``played`` count the games walked and those the engine had to play some of.
"""
from __future__ import annotations

import threading
import weakref
from bisect import bisect_right
from dataclasses import replace
from functools import partial
from itertools import chain
from typing import Any, Callable, Iterator, Sequence, Union

import numpy as np

from compiler import ast as A
from compiler.battle.engine import Battle, Outcome
from compiler.battle.exact import state_key
from compiler.battle.flat import Flat
from compiler.battle.policies import GreedyPolicy
from compiler.battle.rules import Law, Rules
from compiler.battle.state import State
from compiler.battle.streams import Stream

#: The policies whose answers depend only on the position: their battles can be walked.
WALKABLE = frozenset({"greedy"})
#: Positions, and chance nodes, a walk keeps before it starts again (a bound on memory).
LIMIT = 50_000
STEPS = 200_000
#: Games after which a walk that kept more than :data:`GIVE_UP` new positions a game stops keeping
#: any: its battle's positions do not recur (a few hundred positions in all is what a small
#: battle has; many units on a table make new ones every game turn).
TRIAL = 200
GIVE_UP = 1.0
#: Games between two looks at the positions kept (their bound, and whether they recur).
REVIEW = 50
#: Games walked at once, at most (:meth:`Walk.play_many`).
BATCH = 4096


class Position:
    """The battle at the start of a game turn (or, with no state, before its first roll)."""

    __slots__ = ("turn", "first", "state", "next", "row")

    def __init__(self, turn: int, first: int, state: State | None, row: int = -1) -> None:
        self.turn, self.first, self.state = turn, first, state
        self.next: Node = None  # the first chance node met from here (or the next position, or the end)
        self.row = row  # its row in the walk's flat arrays (:class:`~compiler.battle.flat.Flat`)


class Step:
    """A chance node: its law, what followed each outcome (None: not met yet), and where it was
    met: the position it follows and the outcomes drawn from there to it."""

    __slots__ = ("law", "cumulative", "total", "last", "children", "position", "path", "row")

    def __init__(self, law: Law, position: Position, path: tuple[int, ...], row: int = -1) -> None:
        self.law = law
        self.cumulative, self.total = law.cumulative, law.cumulative[-1]
        self.last = len(law.values) - 1
        self.children: list[Node] = [None] * len(law.values)
        self.position, self.path = position, path
        self.row = row  # its row in the walk's flat arrays


Node = Union[Position, Step, Outcome, None]


class WalkError(RuntimeError):
    """A kept transition disagrees with what the engine does: a bug, never to be answered past."""


class _Reached(Exception):
    """The engine reached a position that is kept: the walk goes on from it."""

    def __init__(self, position: Position) -> None:
        super().__init__("kept position")
        self.position = position


class _Keeper:
    """The nature of a battle the engine plays for a walk: it replays the outcomes drawn since the
    last position, draws the later ones from the walk's stream, and keeps what the engine meets."""

    __slots__ = ("walk", "parent", "index", "replay", "at", "draw", "resumed", "position", "path")

    def __init__(self, walk: Walk, position: Position, replay: list[int], draw: Any, resumed: bool) -> None:
        self.walk, self.index = walk, -1  # -1: the position's own successor
        self.parent: Position | Step = position
        self.replay, self.at, self.draw, self.resumed = replay, 0, draw, resumed
        self.position = position  # the last position, and the outcomes drawn since
        self.path: tuple[int, ...] = ()

    def _slot(self) -> Node:
        parent = self.parent
        return parent.next if isinstance(parent, Position) else parent.children[self.index]

    def _attach(self, node: Node) -> None:
        found = self._slot()
        if found is None:
            parent = self.parent
            if isinstance(parent, Position):
                parent.next = node
            else:
                parent.children[self.index] = node
            flat = self.walk.flat
            code = flat.end(node) if isinstance(node, Outcome) else node.row  # type: ignore[union-attr]
            flat.link(parent.row, max(self.index, 0), code)
        elif found is not node:
            raise WalkError(f"a kept transition leads to {found!r}; the engine now reaches {node!r}")

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        """A chance node (the :class:`~compiler.battle.engine.Nature` of the battle)."""
        node = self._slot()
        if node is None:
            node = Step(law, self.position, self.path, self.walk.flat.node(law.cumulative))
            self._attach(node)
            self.walk.steps += 1
        elif not isinstance(node, Step) or node.law != law:
            raise WalkError(f"a kept chance node rolls {getattr(node, 'law', node)!r}; the engine now rolls {law!r}")
        if self.at < len(self.replay):
            i = self.replay[self.at]
            self.at += 1
        else:
            i = law.index(self.draw())
        self.parent, self.index = node, i
        self.path += (i,)
        return i

    def turn(self, battle: Battle, turn: int, first: int) -> None:
        """A game turn begins: a position (kept, or the walk goes on from the kept one)."""
        if self.resumed:  # the position the battle was resumed at
            self.resumed = False
            return
        if self.at < len(self.replay):
            raise WalkError("the engine reached a new game turn before the kept rolls of the last one")
        key = (state_key(battle.state), turn, first)
        walk = self.walk
        position = walk.positions.get(key)
        if position is not None:
            self._attach(position)
            raise _Reached(position)
        position = walk.positions[key] = Position(turn, first, battle.state.copy(), walk.flat.node(None))
        self._attach(position)
        self.parent, self.index = position, -1
        self.position, self.path = position, ()

    def end(self, outcome: Outcome) -> None:
        self._attach(outcome)


class Walk:
    """The kept transitions of one scenario's battles between deterministic players."""

    def __init__(self, rules: Rules, scenario: A.Scenario, policies: Sequence[str]) -> None:
        for name in policies:
            if name not in WALKABLE:
                raise ValueError(f"a walk needs players that always answer alike; '{name}' does not")
        self.rules, self.scenario, self.sides = rules, scenario, len(policies)
        self.positions: dict[tuple[Any, ...], Position] = {}
        self.flat = Flat()
        self.root = Position(0, 0, None, self.flat.node(None))
        self.games = self.played = self.steps = 0  # games walked; those the engine had to play some of; chance nodes kept
        self.keeping = True
        self.review = REVIEW  # the game at which to look at the positions kept again
        self._explorer: tuple[Battle, _Forward, State] | None = None  # the exploring battle, its nature, its start

    def play(self, seed: int, first: list[float] | None = None) -> Outcome:
        """The outcome of the game the engine plays with ``seed`` (see the module's docstring);
        ``first``: the first draws of the seed's stream, made ahead (the rest are drawn from it)."""
        if self.keeping and self.games + 1 >= self.review:
            self._review(self.games + 1)
        if not self.keeping:
            return self._battle(seed).run()
        self.games += 1
        return self._walk_one(seed, first)

    def play_many(self, seeds: np.ndarray) -> list[tuple[Outcome, int]]:
        """The outcomes of the games the engine plays with ``seeds`` (unsigned 64-bit), each with
        how many of them ended so: walked many at once over the kept transitions' flat arrays
        (:meth:`~compiler.battle.flat.Flat.walk`), each game that meets an outcome with nothing
        kept after it walked on its own (:meth:`play`)."""
        ends: dict[int, list[Any]] = {}  # id of an outcome → [the outcome, games]

        def tally(out: Outcome, games: int) -> None:
            seen = ends.get(id(out))
            if seen is None:
                ends[id(out)] = [out, games]
            else:
                seen[1] += games
        start = 0
        while start < len(seeds):
            if self.keeping and self.games + 1 >= self.review:
                self._review(self.games + 1)
            if not self.keeping:
                for seed in seeds[start:].tolist():
                    tally(self._battle(seed).run(), 1)
                break
            stop = min(len(seeds), start + self.review - 1 - self.games, start + BATCH)
            block = seeds[start:stop]
            self.games += stop - start
            flat = self.flat
            counts, back = flat.walk(block, self.root.row)
            for k in np.flatnonzero(counts).tolist():
                tally(flat.ends[k], int(counts[k]))
            for seed in block[back].tolist():
                tally(self._walk_one(seed), 1)
            start = stop
        return [(out, games) for out, games in ends.values()]

    def _walk_one(self, seed: int, first: list[float] | None = None) -> Outcome:
        """The game of ``seed`` walked (and where nothing is kept, played by the engine)."""
        ahead = iter(first or ())
        draw = ahead.__next__  # the draws made ahead; past them, the seed's stream (see _tail)
        node: Node = self.root
        explored = tailed = False
        while True:
            kind = type(node)
            if kind is Step:
                try:
                    u = draw()
                except StopIteration:
                    draw, tailed = _tail(ahead, seed, len(first or ())), True
                    u = draw()
                # as Law.index draws: the insertion point, at most the last outcome's index
                i = bisect_right(node.cumulative, u * node.total, 0, node.last)  # type: ignore[union-attr]
                following = node.children[i]  # type: ignore[union-attr]
                if following is None:  # the engine plays on from the step's position
                    if not tailed:  # the engine may draw past those made ahead
                        draw, tailed = _tail(ahead, seed, len(first or ())), True
                    following = self._explore(node.position, list(node.path) + [i], draw)  # type: ignore[union-attr]
                    explored = True
                node = following
            elif kind is Position:
                following = node.next  # type: ignore[union-attr]
                if following is None:  # nothing kept after it yet (the first game)
                    if not tailed:
                        draw, tailed = _tail(ahead, seed, len(first or ())), True
                    following = self._explore(node, [], draw)  # type: ignore[arg-type]
                    explored = True
                node = following
            else:
                if explored:
                    self.played += 1
                return node  # type: ignore[return-value]

    def _review(self, games: int) -> None:
        """Every so many games (``games``: with the one about to be played): start again past
        :data:`LIMIT` positions or :data:`STEPS` chance nodes; give up keeping any after
        :data:`TRIAL` games that made more than :data:`GIVE_UP` new positions a game."""
        if len(self.positions) >= LIMIT or self.steps >= STEPS:
            self._start_again()
        if games >= TRIAL and len(self.positions) > GIVE_UP * games:
            self.keeping = False
            self._start_again()
        self.review = games + REVIEW if games < TRIAL else games + 64 * REVIEW

    def _start_again(self) -> None:
        self.positions.clear()
        self.flat = Flat()
        self.root = Position(0, 0, None, self.flat.node(None))
        self.steps = 0

    def _battle(self, seed: int, nature: _Keeper | None = None) -> Battle:
        battle = Battle(self.rules, self.scenario, [GreedyPolicy() for _ in range(self.sides)], seed,
                        record=False, nature=nature)
        battle.greedy_sides = [True] * self.sides  # the greedy picks kept per state, as without a nature
        return battle

    def _explore(self, position: Position, drawn: list[int], draw: Any) -> Position | Outcome:
        """The engine plays on from ``position`` (the outcomes ``drawn`` since it replayed); what it
        meets is kept.  The end of the battle, or the kept position it reached."""
        keeper = _Keeper(self, position, drawn, draw, position.state is not None)
        if self._explorer is None:  # one battle set up for every exploration: its state taken up each time
            forward = _Forward()
            battle = self._battle(0, forward)  # type: ignore[arg-type]
            battle.at_turn = partial(forward.turn, battle)
            self._explorer = (battle, forward, battle.state.copy())
        battle, forward, start = self._explorer
        forward.keeper = keeper
        battle.choices.clear()
        try:
            if position.state is None:
                battle.resume(start)
                out = battle.run()
            else:
                battle.resume(position.state)
                out = battle.play_from(position.turn, position.first)
        except _Reached as reached:
            return reached.position
        out = replace(out, final=battle.state.copy())  # the battle's own state is taken up again
        keeper.end(out)
        return out


class _Forward:
    """The nature of the walk's one exploring battle: the keeper of the exploration at hand."""

    __slots__ = ("keeper",)

    def __init__(self) -> None:
        self.keeper: _Keeper | None = None

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        assert self.keeper is not None
        return self.keeper.outcome(battle, law, what)

    def turn(self, battle: Battle, turn: int, first: int) -> None:
        assert self.keeper is not None
        self.keeper.turn(battle, turn, first)


def _tail(ahead: Iterator[float], seed: int, made: int) -> Callable[[], float]:
    """The draws left of those made ahead (``made`` of them), then the seed's stream past them."""
    return chain(ahead, Stream(seed, made)).__next__


_WALKS: weakref.WeakKeyDictionary[Rules, dict[tuple[str, tuple[str, ...], int], Walk]] = weakref.WeakKeyDictionary()


def walk_for(rules: Rules, scenario: A.Scenario, policies: Sequence[str]) -> Walk:
    """The walk of ``scenario``'s battles between ``policies`` (made on first use; kept while
    ``rules`` lives, so that a simulation's chunks share it).  Each thread has its own: a walk
    is not to be shared by games played at once (a dask worker runs chunks on several threads)."""
    kept = _WALKS.get(rules)
    if kept is None:
        kept = _WALKS.setdefault(rules, {})
    key = (scenario.id, tuple(policies), threading.get_ident())
    found = kept.get(key)
    if found is None or found.scenario is not scenario:
        found = kept[key] = Walk(rules, scenario, policies)
    return found


def forget(rules: Rules) -> None:
    """Drop the walks kept for ``rules`` (the next games start from nothing kept; the laws stay)."""
    _WALKS.pop(rules, None)
