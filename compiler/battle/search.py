"""Players that search: ``lookahead`` (expectimax to a depth) and ``mcts`` (UCT with greedy rollouts).

Both play on the one game model (:mod:`compiler.battle.tree`): a searching policy, seated at a
battle (:meth:`Battle.__init__ <compiler.battle.engine.Battle>` calls its ``seat``), keeps the
battle's answers so far — every choice either side took and every roll's outcome, in order
(its *trail*) — and at each of its decisions plays the battle again from the first state with
those answers, then explores what each option leads to.  The dice of the battle itself are
untouched: they still come from its seeded stream, so the same seed gives the same dice
whatever the players think.

* :class:`LookaheadPolicy` — **expectimax** over the side's next ``depth`` choices (default
  :data:`LOOKAHEAD_DEPTH`): the side's own choices take the best option, chance nodes the
  expectation under their exact laws (the same laws the sampler draws from and the exact solver
  sums), the other side's choices the greedy policy's pick (the model of the opponent).  Past the
  side's ``depth``-th choice the position is scored at the next question by :func:`evaluate`.
  Depth 1 weighs an option by what its own dice bring — what the greedy policy's estimates
  approximate.  Ties go to the greedy pick.
* :class:`MctsPolicy` — **Monte Carlo tree search** (UCT, open loop): :data:`MCTS_ITERATIONS`
  iterations per decision by default; each plays the battle from the decision to its end — the
  side's choices in the tree by UCB1 (untried options first, in the greedy policy's order),
  everything else (the opponent throughout, and the side past the tree) by the greedy policy,
  the dice from the policy's own stream (an option's k-th playout rolls the k-th stream, so
  options are compared on the same dice) — and scores the end by :func:`reward`.  The greedy
  pick stands unless another option did better on the same dice by more than twice the standard error
  of the difference (:func:`surely_better`).  A reaction (overwatch fire) and a status that allows one are
  weighed by what they lead to, not by a rule of thumb.

**A function of the position.**  Each decision's search is seeded by the policy's seed and a
digest of the position (the table and the question asked), never by the game: two games that
reach the same position get the same answer, so each answer is kept per position (the exact
solver's key: the whole state and the engine's place in its turn structure) and the policies
are deterministic — ``simulate --exact --policy lookahead`` (or ``mcts``) works, and a run's
answer does not depend on how its games are spread over processes.

>>> from pathlib import Path
>>> import compiler
>>> from compiler.battle import Battle, Rules
>>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
>>> out = Battle(Rules(model), model.get("sample_battle"), [MctsPolicy(iterations=8), LookaheadPolicy()], seed=7).run()
>>> out.turns <= 4
True
"""
from __future__ import annotations

import hashlib
import math
import os
import random
import sys
from types import FrameType
from typing import Any, Callable

from compiler import ast as A
from compiler.battle.engine import Battle, Nature, Outcome
from compiler.battle.exact import DETERMINISTIC, Keys
from compiler.battle.policies import POLICIES, Choice, GreedyPolicy, Policy
from compiler.battle.rules import Law, Rules
from compiler.battle.state import State, state_key
from compiler.battle.tree import Node

#: The lookahead policy's default depth: the side's next choice and what its dice bring.
LOOKAHEAD_DEPTH = 1
#: The mcts policy's default iterations per decision (see bench/README.md for the cost).
MCTS_ITERATIONS = 64
#: The side's choices in the mcts's tree (past them, greedy rollouts): with a few dozen playouts a
#: decision, a deeper tree spends them on poor later moves and misjudges the first.
MCTS_DEPTH = 1
#: UCB1's exploration constant (rewards lie in [0, 1]).
EXPLORATION = 0.5
#: Answers kept per process before the store is emptied (a bound on memory).
KEPT = 200_000

_GREEDY = GreedyPolicy()


# -- the trail: the battle's answers so far ------------------------------------------------------

class _Dice:
    """The battle's nature while a searching policy sits at it: the same outcome as before (the
    battle's seeded stream, or the nature it had), written down."""

    __slots__ = ("inner", "trail")

    def __init__(self, inner: Nature | None, trail: list[int]) -> None:
        self.inner, self.trail = inner, trail

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        i = law.index(battle.rng.random()) if self.inner is None else self.inner.outcome(battle, law, what)
        self.trail.append(i)
        return i


class _Told:
    """A side's policy, its answers written down."""

    __slots__ = ("policy", "trail")

    def __init__(self, policy: Policy, trail: list[int]) -> None:
        self.policy, self.trail = policy, trail

    def choose(self, choice: Choice) -> int:
        i = self.policy.choose(choice)
        self.trail.append(i)
        return i


def _seat(battle: Battle) -> list[int]:
    """Make ``battle`` write down its answers (once, whoever asks) and return the trail."""
    if isinstance(battle.nature, _Dice):
        return battle.nature.trail
    trail: list[int] = []
    battle.nature = _Dice(battle.nature, trail)
    battle.policies = [_Told(p, trail) for p in battle.policies]
    battle.greedy_sides = [False] * len(battle.policies)  # every choice through its policy, so written down
    return trail


# -- positions ------------------------------------------------------------------------------------

_FOLDER = os.path.dirname(__file__)
_HERE = __file__
_RUN = Battle.run.__code__


class _Store:
    """The answers of one kind of player for one scenario, kept per position."""

    def __init__(self) -> None:
        self.keys = Keys()
        self.answers: dict[tuple[Any, ...], int] = {}

    def key(self, battle: Battle, choice: Choice) -> tuple[Any, ...]:
        """The position at ``choice``: the state and the engine's frames down to the question."""
        names: dict[int, str] = {id(battle): "battle", id(battle.state): "state", id(battle.estimates): "estimates",
                                 id(battle.referee): "referee", id(battle.nature): "nature",
                                 id(battle.policies): "policies", id(battle.events): "events",
                                 id(battle.choices): "choices", id(choice): "choice"}
        for k, p in enumerate(battle.policies):
            names.setdefault(id(p), f"policy{k}")
        frames = []
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:  # up to the battle's run (not the caller's frames: a game's seed)
            code = frame.f_code
            if code.co_filename.startswith(_FOLDER) and code.co_filename != _HERE:
                frames.append((code.co_filename, code.co_name, frame.f_lineno,
                               tuple((k, self.keys.freeze(v, names)) for k, v in frame.f_locals.items())))
            if code is _RUN and frame.f_locals.get("self") is battle:
                break
            frame = frame.f_back
        sig = battle.estimates.sig
        return (state_key(battle.state), tuple(frames), choice.kind, choice.side, choice.prompt,
                tuple(o.label for o in choice.options),
                None if sig is None else (sig[0].uid, self.keys.freeze(sig[1], names)))


_STORES: dict[tuple[Any, ...], tuple[Rules, _Store]] = {}


def _store(kind: tuple[Any, ...], rules: Rules, scenario: A.Scenario) -> _Store:
    key = (kind, id(rules), id(scenario))
    found = _STORES.get(key)
    if found is None or found[0] is not rules:
        found = _STORES[key] = (rules, _Store())
    if len(found[1].answers) > KEPT:
        found[1].answers.clear()
    return found[1]


def answers_kept() -> int:
    """How many answers the searching players keep in this process (one per position decided)."""
    return sum(len(store.answers) for _, store in _STORES.values())


def digest(state: State, choice: Choice, seed: int) -> int:
    """A seed from the position (the table and the question) and ``seed``, the same in every
    process."""
    text = repr((seed, state_key(state), choice.kind, choice.side, choice.prompt,
                 tuple(o.label for o in choice.options)))
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=8).digest(), "big")


# -- what a position is worth ------------------------------------------------------------------

def material(state: State, side: int) -> float:
    """The share of ``side``'s starting force still on the table (models weighed by their points,
    a model without points as one; a wounded model counts whole)."""
    left = start = 0.0
    for u in state.units:
        if u.side == side:
            worth = u.points or 1
            left += u.models * worth
            start += u.started * worth
    return left / start if start else 0.0


def evaluate(state: State, side: int, outcome: Outcome | None = None) -> float:
    """What the position is worth to ``side`` (the lookahead's evaluation): its material share
    less the best enemy's, plus its score less the best enemy's over the scores' total; at the
    end, 2 for a win and -2 for a loss on top."""
    n = len(state.sides)
    enemies = [s for s in range(n) if s != side]
    value = material(state, side) - max((material(state, s) for s in enemies), default=0.0)
    if state.scores and any(state.scores):
        total = sum(abs(x) for x in state.scores)
        value += (state.scores[side] - max(state.scores[s] for s in enemies)) / total
    if outcome is not None and outcome.winner is not None:
        value += 2.0 if outcome.winner == side else -2.0
    return value


def reward(state: State, side: int, outcome: Outcome) -> float:
    """What a finished battle is worth to ``side`` (the mcts's reward, in [0, 1]): 0.9 for a win,
    0.45 for a draw, 0 for a loss, and 0.1 times its material share over both sides' (a close
    loss better than a rout)."""
    won = 0.45 if outcome.winner is None else 0.9 if outcome.winner == side else 0.0
    mine = material(state, side)
    theirs = max((material(state, s) for s in range(len(state.sides)) if s != side), default=0.0)
    return won + 0.1 * (mine / (mine + theirs) if mine or theirs else 0.5)


def greedy_order(choice: Choice) -> list[int]:
    """The options best first by the greedy policy's estimates (the first of equals first)."""
    if choice.estimates is None:
        return list(range(len(choice.options)))
    values = list(choice.estimates())
    return sorted(range(len(choice.options)), key=lambda i: (-values[i], i))


# -- the players ------------------------------------------------------------------------------------

class _Searcher:
    """What both players share: the seat at a battle, the trail, the answers kept per position."""

    kind: tuple[Any, ...] = ()

    def __init__(self) -> None:
        self.battle: Battle | None = None
        self.trail: list[int] = []

    def seat(self, battle: Battle) -> None:
        """Sit at ``battle``: from now on its answers are written down."""
        self.battle = battle
        self.trail = _seat(battle)

    def choose(self, choice: Choice) -> int:
        battle = self.battle
        if battle is None:  # not seated: no battle to search; the greedy pick
            return _GREEDY.choose(choice)
        store = _store(self.kind, battle.rules, battle.scenario)
        key = store.key(battle, choice)
        found = store.answers.get(key)
        if found is None:
            found = store.answers[key] = self.search(battle, tuple(self.trail), choice)
        return found

    def search(self, battle: Battle, trail: tuple[int, ...], choice: Choice) -> int:
        raise NotImplementedError


class LookaheadPolicy(_Searcher):
    """Expectimax over the side's next ``depth`` choices, exact laws at chance nodes, the opponent
    greedy; ties to the greedy pick."""

    def __init__(self, depth: int = LOOKAHEAD_DEPTH) -> None:
        super().__init__()
        if depth < 1:
            raise ValueError("a lookahead looks at least one choice ahead")
        self.depth = depth
        self.kind = ("lookahead", depth)

    def search(self, battle: Battle, trail: tuple[int, ...], choice: Choice) -> int:
        root = Node(battle.rules, battle.scenario, trail)
        values = [self.value(root.child(a), choice.side, self.depth - 1) for a in range(len(choice.options))]
        order = greedy_order(choice)
        return max(order, key=lambda a: (values[a], -order.index(a)))

    def value(self, node: Node, side: int, left: int) -> float:
        """The position's worth to ``side`` when it has ``left`` more choices to weigh."""
        if node.is_terminal():
            return evaluate(node.state(), side, node.outcome())
        if node.is_chance_node():
            return sum(float(p) * self.value(node.child(i), side, left) for i, p in node.chance_outcomes())
        if left == 0:
            return evaluate(node.state(), side)
        choice = node.choice()
        assert choice is not None
        if choice.side != side:
            return self.value(node.child(_GREEDY.choose(choice)), side, left)
        return max(self.value(node.child(a), side, left - 1) for a in range(len(choice.options)))


class _Arm:
    """One node of the mcts's tree: per option, the times played and the rewards summed."""

    __slots__ = ("order", "visits", "total", "rewards")

    def __init__(self, order: list[int]) -> None:
        self.order = order
        self.visits = [0] * len(order)
        self.total = [0.0] * len(order)
        self.rewards: list[list[float]] = [[] for _ in order]  # each playout's, in the order of its stream


class _Playout:
    """Both sides' policy and the nature of one mcts iteration: the trail, then the tree for the
    searching side, the greedy policy for everything else, the dice from the search's stream."""

    def __init__(self, trail: tuple[int, ...], side: int, tree: dict[tuple[Any, ...], _Arm], seed: int,
                 depth: int) -> None:
        self.trail, self.side, self.tree, self.seed, self.depth = trail, side, tree, seed, depth
        self.rng = random.Random(seed)
        self.at = 0
        self.node: tuple[Any, ...] = ()
        self.in_tree = True
        self.path: list[tuple[_Arm, int]] = []
        self.battle: Battle | None = None

    def choose(self, choice: Choice) -> int:
        if self.at < len(self.trail):
            self.at += 1
            return self.trail[self.at - 1]
        battle = self.battle
        assert battle is not None
        if not self.path and self.in_tree:  # the decision searched: the others play greedy, quickly
            battle.greedy_sides = [k != self.side for k in range(len(battle.greedy_sides))]
        if choice.side != self.side or not self.in_tree:
            return _GREEDY.choose(choice)
        key = (self.node, choice.kind, choice.prompt, len(choice.options))
        arm = self.tree.get(key)
        if arm is None:
            arm = self.tree[key] = _Arm(greedy_order(choice))
        pick = next((a for a in arm.order if arm.visits[a] == 0), None)  # the first option not tried yet
        if pick is not None:
            self.in_tree = False  # expanded: the rest is a greedy rollout
        else:
            n = sum(arm.visits)
            pick = max(arm.order, key=lambda a: arm.total[a] / arm.visits[a]
                       + EXPLORATION * math.sqrt(math.log(n) / arm.visits[a]))
            self.node = key + (pick,)
        if not self.path:  # the option's k-th playout rolls the k-th stream: options compared on the same dice
            self.rng = random.Random(self.seed + arm.visits[pick])
        self.path.append((arm, pick))
        if len(self.path) >= self.depth:
            self.in_tree = False
        if not self.in_tree:
            battle.greedy_sides = [True] * len(battle.greedy_sides)
        return pick

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        if self.at < len(self.trail):
            self.at += 1
            return self.trail[self.at - 1]
        return law.index(self.rng.random())


class MctsPolicy(_Searcher):
    """UCT with greedy rollouts, ``iterations`` per decision, its own stream seeded by ``seed`` and
    the position."""

    def __init__(self, iterations: int = MCTS_ITERATIONS, seed: int = 0, depth: int = MCTS_DEPTH) -> None:
        super().__init__()
        if iterations < 1 or depth < 1:
            raise ValueError("mcts needs at least one iteration per decision and a tree one choice deep")
        self.iterations, self.seed, self.depth = iterations, seed, depth
        self.kind = ("mcts", iterations, seed, depth)

    def search(self, battle: Battle, trail: tuple[int, ...], choice: Choice) -> int:
        seed = digest(battle.state, choice, self.seed)
        tree: dict[tuple[Any, ...], _Arm] = {}
        n = len(battle.scenario.sides)
        side = choice.side
        for _ in range(self.iterations):
            play = _Playout(trail, side, tree, seed, self.depth)
            # every roll answered by the playout (its nature): the battle's own seed draws nothing
            probe = Battle(battle.rules, battle.scenario, [play] * n, seed, record=False, nature=play)
            play.battle = probe
            out = probe.run()
            r = reward(probe.state, side, out)
            for arm, a in play.path:
                arm.visits[a] += 1
                arm.total[a] += r
                arm.rewards[a].append(r)
        return surely_better(next(iter(tree.values())))


def surely_better(root: _Arm) -> int:
    """The greedy pick (the root's first option), unless another option did better on the same
    dice by more than twice the standard error of the paired differences (so that a few dozen
    playouts' noise does not replace a good pick with a worse one)."""
    greedy = root.order[0]
    best, margin = greedy, 0.0
    for a in root.order[1:]:
        pairs = list(zip(root.rewards[a], root.rewards[greedy]))
        if len(pairs) < 2:
            continue
        diffs = [x - y for x, y in pairs]
        mean = sum(diffs) / len(diffs)
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs))
        if mean > max(margin, 2 * spread):
            best, margin = a, mean
    return best


def _register() -> None:
    makers: dict[str, Callable[[int], Policy]] = {"lookahead": lambda seed: LookaheadPolicy(),
                                                  "mcts": lambda seed: MctsPolicy()}
    POLICIES.update(makers)
    DETERMINISTIC.update({"lookahead": LookaheadPolicy, "mcts": MctsPolicy})


_register()
