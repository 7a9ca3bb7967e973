"""Many battles of deterministic players as a walk over the engine's kept transitions.

With players whose every answer depends only on the position (greedy: :data:`WALKABLE`), a
battle is a function of its dice.  (``lookahead`` and ``mcts`` answer per position too, but they
search by playing the battle again from its first state with its answers so far, which a battle
taken up from a kept state does not have: their games are played by the engine alone.)  A
:class:`Walk` keeps, for each *position* — the battle at the start of a game turn, or (when
each player plays their whole army in turn) between two players' turns: the whole
:class:`~compiler.battle.state.State` by value (:func:`position_key`, as the exact solver merges
positions), the side that went first, and whose turn begins — the chance nodes the engine met
from there, each with its exact :class:`~compiler.battle.rules.Law` and, per outcome, what
followed it: the next chance node, the next position, or the end of the battle.

A game is then a walk: at each chance node one draw from the battle's own seeded stream, the
outcome's index found in the law's cumulative chances exactly as
:meth:`~compiler.battle.engine.Battle.chance` finds it, and the kept successor followed.  Where
nothing is kept yet (an outcome never drawn there before), the engine itself plays on: from the
kept state of the last position (:meth:`~compiler.battle.engine.Battle.resume`), the outcomes
already drawn since it replayed, later rolls drawn from the same stream, until it reaches a
position already kept whose next roll is kept too (the walk goes on from there) or the end; what
it meets is kept.  So the
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
keeping any after :data:`TRIAL` games (:data:`EARLY` games when they come thick) and lets the
engine play each game as it would alone.
``games`` and ``played`` count the games walked and those the engine had to play some of.
"""
from __future__ import annotations

import threading
import weakref
from bisect import bisect_right
from typing import Any, Callable, Sequence, Union

import numpy as np

from compiler import ast as A
from compiler.battle.engine import Battle, Outcome
from compiler.battle.flat import UNKNOWN, Flat
from compiler.battle.policies import GreedyPolicy
from compiler.battle.rules import Law, Rules
from compiler.battle.state import State, state_key
from compiler.battle.streams import Stream

#: The policies whose answers depend only on the position: their battles can be walked.
WALKABLE = frozenset({"greedy"})
#: Positions, and chance nodes, a walk keeps before it starts again (a bound on memory).
LIMIT = 50_000
STEPS = 200_000
#: Games after which a walk that kept more than :data:`GIVE_UP` new positions at the start of a
#: game turn a game stops keeping any: its battle's positions do not recur (a few hundred positions in all is what a small
#: battle has; many units on a table make new ones every game turn).
TRIAL = 200
GIVE_UP = 1.0
#: Games after which a walk that kept more than :data:`EARLY_GIVE_UP` new positions a game stops
#: keeping any at once (ten units a side on a table: three a game, every game turn but the first
#: new; of the bundled battles that keep theirs, none makes more than 2.7 a game by then, and
#: those that give up at the fiftieth game or later make 3.0 or more).  The first look is then,
#: the later ones every :data:`REVIEW` games.
EARLY = 20
EARLY_GIVE_UP = 2.8
#: Games between two looks at the positions kept (their bound, and whether they recur), after
#: the first at :data:`EARLY`.
REVIEW = 50
#: Games walked at once, at most (:meth:`Walk.play_many`), and at least (fewer are walked one
#: by one); of those handed back, how many are worth walking at once again.
BATCH = 4096
FEW = 64
AGAIN = 16


class Position:
    """The battle at the start of a game turn (or, :meth:`before_battle`, before its first roll), or
    (``player`` > 0) between two players' turns of one (``first``: the side that went first the
    turn before, or this turn between two players' turns)."""

    __slots__ = ("turn", "first", "player", "state", "next", "code", "waiting")

    def __init__(self, turn: int, first: int, state: State | None, player: int) -> None:
        self.turn, self.first, self.state, self.player = turn, first, state, player
        self.next: Node = None  # the first chance node met from here (or the next position, or the end)
        #: what follows it in the walk's flat arrays (:class:`~compiler.battle.flat.Flat`: a chance
        #: node's row, an end's code), once known; and the outcomes that lead to it until then
        self.code = UNKNOWN
        self.waiting: list[tuple[Position | Step, int]] = []

    @classmethod
    def before_battle(cls) -> Position:
        """The battle before its first roll: no state, and no game turn, side or player of its own
        (none is ever read: the engine plays it from its start)."""
        root = cls.__new__(cls)
        root.state, root.next, root.code, root.waiting = None, None, UNKNOWN, []
        return root


class Step:
    """A chance node: its law, what followed each outcome (None: not met yet), and where it was
    met: the position it follows and the outcomes drawn from there to it."""

    __slots__ = ("law", "cumulative", "total", "last", "children", "position", "path", "row")

    def __init__(self, law: Law, position: Position, path: tuple[int, ...]) -> None:
        self.law = law
        self.cumulative, self.total = law.cumulative, law.cumulative[-1]
        self.last = len(law.values) - 1
        self.children: list[Node] = [None] * len(law.values)
        self.position, self.path = position, path
        self.row = -1  # its row in the walk's flat arrays


Node = Union[Position, Step, Outcome, None]


def position_key(state: State, turn: int, first: int, player: int) -> tuple[Any, ...]:
    """What a :class:`Position` is kept under: the whole state by value (as the exact solver
    merges positions), the game turn, the side that went first, and between two players' turns,
    whose turn begins and what each unit spent."""
    if not player:
        return (state_key(state), turn, first)
    return (state_key(state), tuple([u.spent for u in state.units]), turn, first, player)


class WalkError(RuntimeError):
    """A kept transition disagrees with what the engine does: a bug, never to be answered past."""


class _Reached(Exception):
    """The engine reached a position that is kept: the walk goes on from it."""

    def __init__(self, position: Position) -> None:
        super().__init__("kept position")
        self.position = position


class _Keeper:
    """The nature of the walk's one exploring battle: it replays the outcomes drawn since the last
    position, draws the later ones from the game's stream, and keeps what the engine meets (one
    keeper serves every exploration: :meth:`start` sets it for the next)."""

    __slots__ = ("walk", "battle", "parent", "index", "replay", "at", "stream", "resumed", "position", "path")

    def __init__(self, walk: Walk, battle: Battle) -> None:
        self.walk, self.battle = walk, battle
        battle.at_turn, battle.at_player = self.turn, self.player

    def start(self, position: Position, replay: list[int], stream: Stream, resumed: bool) -> None:
        self.parent: Position | Step = position
        self.index = -1  # -1: the position's own successor
        self.replay, self.at, self.stream, self.resumed = replay, 0, stream, resumed
        self.position = position  # the last position, and the outcomes drawn since
        self.path: tuple[int, ...] = ()

    def _attach(self, node: Node) -> None:
        parent = self.parent
        if type(parent) is Position:
            found = parent.next
            if found is None:
                parent.next = node
        else:
            found = parent.children[self.index]  # type: ignore[union-attr]
            if found is None:
                parent.children[self.index] = node  # type: ignore[union-attr]
        if found is None:
            self.walk.link(parent, self.index, node)
        elif found is not node:
            raise WalkError(f"a kept transition leads to {found!r}; the engine now reaches {node!r}")

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        """A chance node (the :class:`~compiler.battle.engine.Nature` of the battle)."""
        parent = self.parent
        node = parent.next if type(parent) is Position else parent.children[self.index]  # type: ignore[union-attr]
        if node is None:
            node = Step(law, self.position, self.path)
            node.row = self.walk.flat.step(node, law.cumulative)
            self._attach(node)
            self.walk.steps += 1
        elif type(node) is not Step or (node.law is not law and node.law != law):
            raise WalkError(f"a kept chance node rolls {getattr(node, 'law', node)!r}; the engine now rolls {law!r}")
        if self.at < len(self.replay):
            i = self.replay[self.at]
            self.at += 1
        else:
            i = law.index(self.stream.random())
        self.parent, self.index = node, i
        self.path += (i,)
        return i

    def turn(self, turn: int, first: int) -> None:
        """A game turn begins: a position (kept, or the walk goes on from the kept one)."""
        if self.resumed:  # the position the battle was resumed at
            self.resumed = False
            return
        self._reach(turn, first, 0)

    def player(self, k: int) -> None:
        """Player ``k`` of the game turn's order begins their turn: a position too (what a unit
        spent counts within a game turn)."""
        self._reach(self.battle.state.turn, self.battle.order[0], k)

    def _reach(self, turn: int, first: int, k: int) -> None:
        if self.at < len(self.replay):
            raise WalkError("the engine reached a new position before the kept rolls since the last one")
        walk, state = self.walk, self.battle.state
        key = position_key(state, turn, first, k)
        position = walk.positions.get(key)
        if position is not None:
            self._attach(position)
            step = position.next
            if type(step) is not Step or step.children[
                    bisect_right(step.cumulative, self.stream.peek() * step.total, 0, step.last)] is not None:
                raise _Reached(position)
            # else the walk would have the engine play on from here at once: it plays on now
        else:
            position = walk.positions[key] = Position(turn, first, state.copy(), k)
            walk.turns += k == 0
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
        self.root = Position.before_battle()
        self.games = self.played = self.steps = 0  # games walked; those the engine had to play some of; chance nodes kept
        self.turns = 0  # positions kept at the start of a game turn
        self.keeping = True
        self.review = EARLY  # the game at which to look at the positions kept again
        self._explorer: tuple[Battle, _Keeper, State] | None = None  # the exploring battle, its nature, its start

    def play(self, seed: int) -> Outcome:
        """The outcome of the game the engine plays with ``seed`` (see the module's docstring)."""
        if self.keeping and self.games + 1 >= self.review:
            self._review(self.games + 1)
        if not self.keeping:
            return self._battle(seed).run()
        self.games += 1
        return self._walk(seed, self.root)

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
            if stop - start < FEW:  # too few to be worth walking at once
                for seed in block.tolist():
                    tally(self._walk(seed, self.root), 1)
            else:
                self._play_block(block, tally)
            start = stop
        return [(out, games) for out, games in ends.values()]

    def _play_block(self, seeds: np.ndarray, tally: Callable[[Outcome, int], None]) -> None:
        """The games of ``seeds`` walked at once; those handed back walked on alone from where
        they stopped, one per outcome with nothing kept after it — the others, once it is
        kept, walked at once again from there (or alone, when few)."""
        flat = self.flat
        games, drawn = np.arange(len(seeds)), None
        at = np.full(len(seeds), self.root.code, dtype=np.int64)
        while True:
            counts, back = flat.walk(seeds[games], at, drawn)
            for k in np.flatnonzero(counts).tolist():
                tally(flat.ends[k], int(counts[k]))
            seen: set[tuple[int, int]] = set()
            again: list[tuple[int, int, int, int]] = []
            for g, row, i, k in back:
                game = int(games[g])
                if (row, i) in seen:
                    again.append((game, row, i, k))
                else:  # the first to meet it: the engine plays on (and what it meets is kept)
                    seen.add((row, i))
                    tally(self._walk(int(seeds[game]), self.root if row < 0 else flat.nodes[row], k, i), 1)
            flat.sync()
            if len(again) < AGAIN:
                for game, row, i, k in again:
                    tally(self._walk(int(seeds[game]), self.root if row < 0 else flat.nodes[row], k, i), 1)
                return
            games = np.array([g for g, _, _, _ in again])
            at = np.array([self.root.code if row < 0 else int(flat.child[row, i]) for _, row, i, _ in again])
            drawn = np.array([k for _, _, _, k in again])

    def link(self, parent: Position | Step, index: int, node: Node) -> None:
        """Mirror in the flat arrays that ``node`` follows outcome ``index`` of ``parent`` (a
        position's successor: any index): a position is passed over, to what follows it."""
        if isinstance(node, Step):
            code = node.row
        elif isinstance(node, Position):
            code = node.code
            if code == UNKNOWN:
                node.waiting.append((parent, index))
        else:
            code = self.flat.end(node)
        if code == UNKNOWN:
            return
        if isinstance(parent, Step):
            self.flat.link(parent.row, index, code)
        else:
            parent.code = code
            waiting, parent.waiting = parent.waiting, []
            for p, i in waiting:  # the outcomes that led to it lead to what follows it
                self.link(p, i, parent)

    def _walk(self, seed: int, node: Node, drawn: int = 0, i: int = -1) -> Outcome:
        """The game of ``seed`` walked from ``node`` (and where nothing is kept, played by the
        engine): ``drawn``, the draws it made to get there; ``i``, the outcome the last of them
        gave at ``node`` (a chance node), or -1."""
        stream = Stream(seed, drawn)
        draw = stream.random
        explored = False
        while True:
            kind = type(node)
            if kind is Step:
                if i < 0:  # as Law.index draws: the insertion point, at most the last outcome's index
                    i = bisect_right(node.cumulative, draw() * node.total, 0, node.last)  # type: ignore[union-attr]
                following = node.children[i]  # type: ignore[union-attr]
                if following is None:  # the engine plays on from the step's position
                    following = self._explore(node.position, list(node.path) + [i], stream)  # type: ignore[union-attr]
                    explored = True
                node, i = following, -1
            elif kind is Position:
                following = node.next  # type: ignore[union-attr]
                if following is None:  # nothing kept after it yet (the first game)
                    following = self._explore(node, [], stream)  # type: ignore[arg-type]
                    explored = True
                node = following
            else:
                if explored:
                    self.played += 1
                return node  # type: ignore[return-value]

    def _review(self, games: int) -> None:
        """Every so many games (``games``: with the one about to be played): start again past
        :data:`LIMIT` positions or :data:`STEPS` chance nodes; give up keeping any after
        :data:`TRIAL` games that made more than :data:`GIVE_UP` new positions a game (at the
        start of a game turn), or after :data:`EARLY` games that made more than :data:`EARLY_GIVE_UP`."""
        if len(self.positions) >= LIMIT or self.steps >= STEPS:
            self._start_again()
        if (games >= TRIAL and self.turns > GIVE_UP * games) or (games >= EARLY and self.turns > EARLY_GIVE_UP * games):
            self.keeping = False
            self._start_again()
        self.review = REVIEW * (games // REVIEW + 1) if games < TRIAL else games + 64 * REVIEW

    def _start_again(self) -> None:
        self.positions.clear()
        self.flat = Flat()
        self.root = Position.before_battle()
        self.steps = self.turns = 0

    def _battle(self, seed: int) -> Battle:
        # (made with no nature, so the greedy picks are kept per state even for the exploring battle)
        return Battle(self.rules, self.scenario, [GreedyPolicy() for _ in range(self.sides)], seed, record=False)

    def _explore(self, position: Position, drawn: list[int], stream: Stream) -> Position | Outcome:
        """The engine plays on from ``position`` (the outcomes ``drawn`` since it replayed); what it
        meets is kept.  The end of the battle, or the kept position it reached."""
        if self._explorer is None:  # one battle set up for every exploration: its state taken up each time
            battle = self._battle(0)
            keeper = battle.nature = _Keeper(self, battle)
            self._explorer = (battle, keeper, battle.state.copy())
        battle, keeper, start = self._explorer
        keeper.start(position, drawn, stream, position.state is not None and not position.player)
        battle.choices.clear()
        try:
            if position.state is None:
                battle.resume(start)
                out = battle.run()
            else:
                battle.resume(position.state, position.player)
                out = battle.play_from(position.turn, position.first)
        except _Reached as reached:
            return reached.position
        out = Outcome(out.winner, out.turns, out.survivors, out.scores, out.reason,
                      battle.state.copy())  # the battle's own state is taken up again
        keeper.end(out)
        return out


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
