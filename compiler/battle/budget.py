"""Which player a judgement can afford: the strongest whose estimated work fits a budget.

A house-rule judgement (``simulate --against`` without ``--policy``, the site's Battles pages) is
made under the strongest player the work allows.  The players from the strongest down are
:data:`STRONGEST_FIRST` (``mcts``, then ``greedy``: the order bench/README.md measures; the
lookahead of depth 1 is left out, since its exact law on console-40k's sample battle is worse than
greedy's as the Orks, 6.9% of wins against 13.0%: it does not see a charge pay before combat).
Each player's work is estimated all the same.  The work of each is estimated, before any game is played, from
:data:`PROBES` greedy games of the scenario (fixed seeds, so the estimate and the choice are the
same on every run):

* ``q`` — the questions the engine answers in a game (rolls, and choices with more than one
  option), on average;
* ``positions`` — the searches a run of ``games`` games needs: a searching player decides once
  per distinct position (its answers are kept per position), so the distinct decision positions
  a run meets: estimated from those met in the probes by Chao's estimator of the classes not yet
  seen (``S + f1 (f1 - 1) / (2 (f2 + 1))``, with ``f1`` positions met once and ``f2`` twice), and
  never more than the probes' count extrapolated at the rate new ones still appeared in their
  last half (the rate only falls).

Then, in questions: greedy ``games × q``; lookahead ``games × q + positions × LOOKAHEAD_NODES × q``
(a search costs about as much as that many plays of the battle); mcts ``games × q + positions ×
MCTS_ITERATIONS × q`` (each iteration plays it once).  Questions become CPU seconds at
:data:`QUESTIONS_PER_CPU_SECOND` (measured: bench/README.md).  The first player whose estimate
fits the budget is chosen; greedy always fits.  When after a quarter of the probes the
positions already met put even a lookahead past the budget, the probes stop there (greedy).

>>> from pathlib import Path
>>> import compiler
>>> from compiler.battle import Rules
>>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
>>> pick = strongest(Rules(model), model.get("sample_battle"), games=10, budget=60.0)
>>> pick.policy, sorted(pick.estimates)
('mcts', ['greedy', 'lookahead', 'mcts'])
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from compiler import ast as A
from compiler.battle.engine import Battle
from compiler.battle.state import state_key
from compiler.battle.policies import Choice, GreedyPolicy
from compiler.battle.rules import Law, Rules
from compiler.battle.search import MCTS_ITERATIONS
from compiler.battle.simulate import game_seed

#: The players a judgement may be made under, the strongest first.
STRONGEST_FIRST = ("mcts", "greedy")
#: Greedy games played to estimate the work.
PROBES = 32
#: What a lookahead search costs, in plays of the battle (measured: 1.5 ms a search on dark-millennia's
#: firefight, where a play takes about 0.2 ms).
LOOKAHEAD_NODES = 8
#: Questions the engine answers per CPU second when a battle is played again (measured).
QUESTIONS_PER_CPU_SECOND = 100_000
#: CPU seconds ``simulate --against`` may spend when no policy is named: a minute on two cores.
AGAINST_BUDGET = 120.0


@dataclass(frozen=True)
class Pick:
    """The player chosen, and each player's estimated CPU seconds."""

    policy: str
    budget: float
    estimates: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "rule": "the strongest player whose estimated work fits the budget",
                "budget_cpu_s": self.budget, "estimated_cpu_s": {k: round(v, 3) for k, v in self.estimates.items()}}


class _Counting(GreedyPolicy):
    """The greedy policy, and a nature drawing from the battle's stream, counting what they answer."""

    def __init__(self, seen: Counter[tuple[Any, ...]]) -> None:
        self.seen = seen
        self.questions = 0
        self.battle: Battle | None = None

    def choose(self, choice: Choice) -> int:
        self.questions += 1
        assert self.battle is not None
        self.seen[(state_key(self.battle.state), choice.kind, choice.side, choice.prompt,
                   tuple(o.label for o in choice.options))] += 1
        return super().choose(choice)

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        self.questions += 1
        return law.index(battle.rng.random())


def strongest(rules: Rules, scenario: A.Scenario, games: int, budget: float, sides: int = 2,
              workers: int = 1) -> Pick:
    """The strongest player whose estimated work for ``games`` games of ``scenario`` (under each of
    ``sides`` rulesets, e.g. 2 for an overlay and its base) fits ``budget`` CPU seconds, the games
    spread over ``workers`` processes (each searches the positions it meets itself)."""
    seen: Counter[tuple[Any, ...]] = Counter()
    marks: list[int] = []  # distinct positions after each probe
    questions = 0
    for i in range(PROBES):
        counter = _Counting(seen)
        battle = counter.battle = Battle(rules, scenario, [counter] * len(scenario.sides), game_seed(0, i),
                                         record=False, nature=counter)
        battle.run()
        questions += counter.questions
        marks.append(len(seen))
        if i + 1 == PROBES // 4 and _cost(sides, games, questions / (i + 1), workers * len(seen),
                                          LOOKAHEAD_NODES) > budget:
            break  # even the positions met so far put the cheapest search past the budget
    played = len(marks)
    q = questions / played
    rate = (marks[-1] - marks[played // 2 - 1]) / (played - played // 2)
    once = sum(1 for k in seen.values() if k == 1)
    twice = sum(1 for k in seen.values() if k == 2)
    unseen = once * (once - 1) / (2 * (twice + 1))
    positions = workers * (len(seen) + min(unseen, max(0, games - played) * rate))
    estimates = {"mcts": _cost(sides, games, q, positions, MCTS_ITERATIONS),
                 "lookahead": _cost(sides, games, q, positions, LOOKAHEAD_NODES),
                 "greedy": _cost(sides, games, q, positions, 0)}  # no plays: greedy searches nothing
    chosen = next((k for k in STRONGEST_FIRST if estimates[k] <= budget), "greedy")
    return Pick(chosen, budget, estimates)


def _cost(sides: int, games: int, q: float, positions: float, plays: int) -> float:
    """CPU seconds of ``games`` games asking ``q`` questions each, and ``positions`` searches of
    ``plays`` plays of the battle each, under each of ``sides`` rulesets."""
    return sides * (games * q + positions * plays * q) / QUESTIONS_PER_CPU_SECOND
