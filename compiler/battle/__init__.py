"""Stage: battles — the games themselves, played and simulated from the rules model.

::

    scenario ──▶ setup ──▶ State ──▶ engine (turns, phases, actions, reactions, combats, end of turn)
                                        │   ▲ choices            │ volleys, tests
                                        ▼   │                    ▼
                                     policies               rules (the resolver's exact laws, cached)
                                        │
                     log (JSON lines, replay) · simulate (many games, pool or dask) · stats (intervals)

* :mod:`~compiler.battle.state` — units, models, the wounds on each damaged model, statuses with
  durations, positions, the clock;
* :mod:`~compiler.battle.setup` — a scenario's first state (army lists: :mod:`compiler.model.armies`)
  and what its battles keep (:class:`~compiler.battle.setup.Prepared`);
* :mod:`~compiler.battle.rules` — the exact laws of volleys and tests (chance nodes), unit values;
* :mod:`~compiler.battle.engine` — :class:`Battle`: turns, phases, actions, combats, the end;
  :mod:`~compiler.battle.effects` — the action effects, each a registered function;
* :mod:`~compiler.battle.estimates` — the expected values the greedy policy reads, the battle's
  collaborator (:mod:`~compiler.battle.holding`: what holding a status for a reaction is
  worth); :mod:`~compiler.battle.memo` — the typed caches each part keeps;
  :mod:`~compiler.battle.phases` — between greedy sides, a phase in which no die is rolled taken
  up whole from the state it starts from, where such states recur (a table's first movement);
* :mod:`~compiler.battle.activation` — the activation schemes (whole army, alternating units,
  activation dice with a bust); :mod:`~compiler.battle.schemes` — alternating activations of any
  unit, and alternating detachments with orders;
* :mod:`~compiler.battle.policies` — choice points; greedy, random, scripted and human policies;
* :mod:`~compiler.battle.search` — players that search the tree: ``lookahead`` (expectimax to a
  depth) and ``mcts`` (UCT with greedy rollouts);
* :mod:`~compiler.battle.tree` — the battle as a game tree (OpenSpiel's shape): :class:`Node`,
  the side to act, legal actions, chance nodes with their exact laws, the transition;
* :mod:`~compiler.battle.dice` — for a log read by people (``play``): each volley's dice, step by
  step, drawn given its outcome from the exact laws of the steps, on a stream of their own;
* :mod:`~compiler.battle.log`, :mod:`~compiler.battle.simulate`, :mod:`~compiler.battle.stats`;
  :mod:`~compiler.battle.walk` — greedy games walked over the engine's kept transitions (per
  position at the start of a game turn, or between two players' turns: the chance nodes met and
  what follows each outcome), the same games roll for roll, the engine playing on only where
  nothing is kept yet; :mod:`~compiler.battle.flat` — those transitions as NumPy arrays, over
  which a simulation walks its games many at once.

The engine holds no rule of any game: what a phase offers, what an action does, who strikes
first and what ends the battle come from the ruleset's ``game`` and ``scenario`` declarations.

**Adding an activation scheme** (``activation NAME`` in a game): write a function
``scheme(battle, order)`` in :mod:`~compiler.battle.activation` (or
:mod:`~compiler.battle.schemes`) that plays one game turn —
calling ``battle.player_turn(side, phases)`` or ``battle.run_phase(phase, sides)`` and taking
decisions through ``battle.choose(Choice(...))`` only — decorate it with ``@activation("name")``,
and add the name to ``compiler.ast.game.ACTIVATIONS`` (so the game parses) and to
``compiler.check.battles.PLAYABLE`` (so a scenario may play it).  Dice are chance nodes:
``battle.chance(law, what)`` with the exact :class:`~compiler.battle.rules.Law` of the roll
(``bernoulli``, ``binomial``, ``uniform``, a volley's law), so a seed and the logged answers
replay it, and a :class:`Node` can stop there and list its outcomes.

**Adding an action effect** (a new word after ``action NAME "Title":``): add the grammar
alternative to ``act_effect`` (grammar/warscribe.lark), build it into an
:class:`~compiler.ast.ActionEffect` of a new ``kind`` (compiler/ast/build_game.py), check its
names in :mod:`compiler.check.battles`, and write the function in :mod:`~compiler.battle.effects`
decorated with ``@effect("kind")`` and a docstring saying what it does to the state: it changes
``battle.state`` through its methods, reports what happened with ``battle.emit(...)``, and
returns False when the rest of the action cannot happen.

>>> from pathlib import Path
>>> import compiler
>>> model = compiler.compile_paths([Path(compiler.__file__).parent.parent / "rules" / "console-40k"]).rulesets[0]
>>> battle = Battle(Rules(model), model.get("sample_battle"), [GreedyPolicy(), GreedyPolicy()], seed=7)
>>> outcome = battle.run()
>>> outcome.turns <= 4 and sum(outcome.survivors) < 15
True
"""
from compiler.battle import activation as activation  # noqa: F401  (registers the activation schemes)
from compiler.battle import effects as effects  # noqa: F401  (registers the action effects)
from compiler.battle.engine import ACTIVATIONS, EFFECTS, Battle, Nature, Outcome, effect
from compiler.battle.log import Log, LogError, ReplayMismatch, open_log, read_log, replay, write_log
from compiler.battle.policies import (POLICIES, Choice, GreedyPolicy, HumanPolicy, Option, Policy, Quit, RandomPolicy,
                                      ScriptedPolicy, ScriptError, wants_to_quit)
from compiler.battle.rules import Law, Rules, law_of
from compiler.battle import schemes as schemes  # noqa: F401  (registers more activation schemes)
from compiler.battle.search import LookaheadPolicy, MctsPolicy  # (registers the searching players)
from compiler.battle.simulate import Tally, game_seed, run, summary
from compiler.battle.state import State, Unit
from compiler.battle.tree import CHANCE, TERMINAL, Node
from compiler.battle.stats import chi_square, chi_square_critical, diff_interval, wilson

__all__ = ["ACTIVATIONS", "CHANCE", "EFFECTS", "POLICIES", "TERMINAL", "Battle", "Nature", "Node", "effect", "Choice", "GreedyPolicy", "HumanPolicy", "Law", "Log", "LookaheadPolicy", "MctsPolicy",
           "LogError", "Option", "Outcome", "Policy", "Quit", "RandomPolicy", "ReplayMismatch", "Rules", "ScriptError", "ScriptedPolicy",
           "State", "Tally", "Unit", "chi_square", "chi_square_critical", "diff_interval", "game_seed", "law_of",
           "open_log", "read_log", "replay", "run", "summary", "wants_to_quit", "wilson", "write_log"]
