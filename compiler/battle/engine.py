"""The turn engine: a battle played from a scenario's first state to a result.

The game's structure says who acts and what they may do; the engine only carries it out:

* :data:`ACTIVATIONS` — who acts when (``whole_army``: the active player runs every phase with
  all their units; ``alternating_units``: in each phase the players take turns, one unit each);
* each phase's actions are offered to each unit that may take them (``unless`` a status);
  their effects (:data:`EFFECTS`) move units, resolve attack sequences, engage enemies and set
  statuses; a reaction (``when charged: …``) answers an event before it completes;
* a phase's ``combat`` makes every engaged unit strike in the order of a stat;
* ``at end of …`` tests, then the victory conditions (``by annihilation``, ``by highest_score``).

Volleys are sampled from the resolver's exact laws (:mod:`compiler.battle.rules`); every decision
is a :class:`~compiler.battle.policies.Choice`; every happening is an event (a plain dict) that
logs, terminals and pages read.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from compiler import ast as A
from compiler.battle.policies import Choice, GreedyPolicy, Option, Policy
from compiler.battle.rules import Rules
from compiler.battle.estimates import Estimates
from compiler.battle.setup import initial_state
from compiler.battle.state import State, Unit

Listener = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a battle ended."""

    winner: int | None  # the side's index; None for a draw
    turns: int
    survivors: tuple[int, ...]  # models left, per side
    scores: tuple[float, ...]
    reason: str


class Battle(Estimates):
    """One battle: the state, the dice, the policies, and the events so far."""

    def __init__(self, rules: Rules, scenario: A.Scenario, policies: Sequence[Policy], seed: int,
                 listener: Listener | None = None, record: bool = True) -> None:
        game = rules.memo.get(("game", scenario.id))
        if game is None:
            model = rules.model
            games = model.of_type(A.Game)
            game = model.get(scenario.game) if scenario.game else (games[0] if games else None)
            rules.memo[("game", scenario.id)] = game
        if not isinstance(game, A.Game):
            raise ValueError(f"scenario '{scenario.id}' has no game to play")
        self.rules, self.scenario, self.game = rules, scenario, game
        self.policies = list(policies)
        self.state: State = fresh_state(rules, scenario)
        self.rng = random.Random(seed)
        self.turns = scenario.turns or game.turns or 1
        self.kinds = {v.kind: v for v in game.victories if v.kind}
        self.events: list[dict[str, Any]] = []
        self.choices: list[int] = []
        self.listener = listener
        self._scores: tuple[float, ...] = ()  # the final scores, once worked out
        self._sig: tuple[Unit, tuple[Any, ...]] | None = None  # the acting unit's signature, while it holds
        self.record = record or listener is not None  # a simulation keeps no events
        self.combat_attack = next((c.attack for p in game.phases for c in p.combats), None)
        self.reactions = {r.event: r for r in game.reactions}
        #: what a phase offers a unit in a state: its actions, their options, the greedy policy's pick
        self.offers: dict[tuple[Any, ...], list[Any]] = rules.memo.setdefault(("offers",), {})

    # -- the run -------------------------------------------------------------------------

    def run(self) -> Outcome:
        st = self.state
        n = len(st.sides)
        first = (self.rng.randrange(n) if self.scenario.first in (None, "random")
                 else st.sides.index(self.scenario.first))
        order = [(first + i) % n for i in range(n)]
        if self.record:
            self.emit("start", first=st.sides[first], first_title=st.side_titles[first], distance=self.scenario.distance)
        for turn in range(1, self.turns + 1):
            st.turn = turn
            ACTIVATIONS[self.game.activation or "whole_army"](self, order)
            if st.over:
                break
            self.end_of("game turn")
            st.expire("game turn")
            if st.over:
                break
        if not st.over:
            self.finish()
        scores = self._scores or tuple(self.score(s) for s in range(n))
        out = Outcome(st.winner, st.turn, tuple(st.models_left(s) for s in range(n)), scores, st.reason)
        if self.record:
            self.emit("end", winner=None if out.winner is None else st.sides[out.winner],
                      winner_title=None if out.winner is None else st.side_titles[out.winner], reason=out.reason,
                      survivors=list(out.survivors), scores=[round(x, 6) for x in scores])
        return out

    def emit(self, kind: str, **data: Any) -> None:
        if not self.record:
            return
        st = self.state
        event = {"event": kind, "turn": st.turn, "side": st.sides[st.active], "phase": st.phase, **data}
        self.events.append(event)
        if self.listener is not None:
            self.listener(event)

    def choose(self, choice: Choice) -> int:
        if len(choice.options) == 1:
            return 0  # no decision to take (and none recorded)
        index = self.policies[choice.side].choose(choice)
        self.choices.append(index)
        return index

    def player_turn(self, side: int, phases: Sequence[A.Phase]) -> None:
        st = self.state
        st.active = side
        st.phase = ""
        if self.record:
            self.emit("turn", title=st.side_titles[side])
        for phase in phases:
            self.run_phase(phase, [side])
            if st.over:
                return
        st.expire("turn")

    def run_phase(self, phase: A.Phase, sides: Sequence[int]) -> None:
        """Every unit of ``sides`` (taking turns in that order, one unit each) may act, then combats."""
        st = self.state
        st.phase = phase.id
        if phase.actions and len(sides) == 1:
            side = st.active = sides[0]
            left = [u for u in st.units if u.side == side and u.models > 0]
            if len(left) == 1 and not st.over:
                self.act(left[0], phase)
                left = []
            while left and not st.over:
                unit = left[0] if len(left) == 1 else self.pick_unit(side, left, phase)
                left.remove(unit)
                if unit.models > 0:
                    self.act(unit, phase)
        elif phase.actions:
            pending = [st.side_units(s) for s in sides]
            while not st.over and any(pending):
                for s, left in zip(sides, pending):
                    if not left or st.over:
                        continue
                    st.active = s
                    unit = left[0] if len(left) == 1 else self.pick_unit(s, left, phase)
                    left.remove(unit)
                    if unit.models > 0:
                        self.act(unit, phase)
        for c in phase.combats:
            if not st.over:
                self.combat(c)
        if st.timed:
            st.expire("phase")

    def action_values(self, key: tuple[Any, ...], unit: Unit, actions: list[A.Action]) -> list[float]:
        """Each action's estimate (and doing nothing's), kept per state under ``key``."""
        found = self.rules.memo.get(("values", key))
        if found is None:
            found = self.rules.memo[("values", key)] = [self.estimate_action(unit, a) for a in actions] + [0.0]
        return list(found)

    def pick_unit(self, side: int, pending: list[Unit], phase: A.Phase) -> Unit:
        if len(pending) == 1:
            return pending[0]
        i = self.choose(Choice("unit", side, self.state.side_titles[side], f"{phase.title}: which unit acts next?",
                               tuple(Option(u.label, u.uid) for u in pending)))
        return pending[i]

    def act(self, unit: Unit, phase: A.Phase) -> bool:
        """``unit`` may take one of the phase's actions; False when it takes none."""
        statuses = unit.statuses
        if statuses and all(a.unless and any(s in statuses for s in a.unless) for a in phase.actions):
            self._sig = None
            return False  # every action of the phase is barred to the unit
        side, here = unit.side, unit.position
        sig = (unit.profile, unit.models, unit.wounds, unit.weapons, tuple(sorted(unit.statuses)) if unit.statuses else (),
               tuple(unit.values.items()) if unit.values else (),
               tuple([(f.profile, f.models, f.wounds, f.points, abs(here - f.position))
                      for f in self.state.units if f.side != side and f.models > 0]))  # as signature() makes it
        self._sig = (unit, sig)  # valid until the first effect changes the state
        key = (phase.id, sig)
        memo = self.offers
        offer = memo.get(key)
        if offer is None:
            statuses = unit.statuses
            acts = [a for a in phase.actions
                    if not (a.unless and any(s in statuses for s in a.unless)) and self.can_attack(unit, a)]
            # the actions, their options, and (once worked out) the greedy policy's pick
            offer = memo[key] = [acts, tuple(Option(a.title, a.id) for a in acts) + (Option("Nothing", None),), None]
        actions = offer[0]
        if not actions:
            self._sig = None
            return False

        if type(self.policies[side]) is GreedyPolicy:  # the same answer, without building the choice
            i = offer[2]
            if i is None:
                values = self.action_values(key, unit, actions)
                i = offer[2] = values.index(max(values))
            self.choices.append(i)
        else:
            i = self.choose(Choice("action", unit.side, unit.label, f"{phase.title}: what does {unit.label} do?",
                                   offer[1], lambda: self.action_values(key, unit, actions)))
        if i == len(actions):
            self._sig = None
            return False
        action = actions[i]
        if self.record:
            self.emit("action", unit=unit.label, action=action.id, title=action.title)
        for effect in action.effects:
            if not unit.alive or self.state.over:
                break
            done = EFFECTS[effect.kind](self, unit, effect, action)
            self._sig = None
            if not done:
                break  # an effect that could not happen ends the action
        self._sig = None
        return True

    # -- effects ---------------------------------------------------------------------------

    def move(self, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
        foe = self.state.nearest_enemy(unit)
        if foe is None or effect.value is None:
            return False
        gap = self.state.distance(unit, foe)
        if type(self.policies[unit.side]) is GreedyPolicy:  # as above; the pick is kept per state
            key = ("step", id(effect), unit.started, self.signature(unit))
            found = self.rules.memo.get(key)
            if found is None:
                found = self.rules.memo[key] = self.greedy_step(unit, effect.value, gap)
            i, step = found
            if i is not None:
                self.choices.append(i)
        else:
            most = max(0, int(self.rules.number(effect.value, unit, gap)))
            offer = _STEPS.get(most) or _STEPS.setdefault(most, (list(range(0, most + 1)),
                                                                tuple(Option(f'{d}"', d) for d in range(0, most + 1))))
            steps = offer[0]
            step = steps[self.choose(Choice("move", unit.side, unit.label, f"How far does {unit.label} move (0-{most}\")?",
                                            offer[1], lambda: self.estimate_moves(unit, gap, steps)))]
        d = min(float(step), gap)
        unit.position += d if foe.position > unit.position else -d
        if self.record:
            self.emit("move", unit=unit.label, inches=step, distance=round(self.state.distance(unit, foe), 3))
        return True

    def attack(self, unit: Unit, effect: A.ActionEffect, action: A.Action | None, target: Unit | None = None) -> bool:
        attack = self.rules.model.get(effect.name or "")
        assert isinstance(attack, A.Attack)
        if target is None:
            foes = self.state.enemies(unit)
            if not foes:
                return False
            key = ("targets", attack.id, effect.stat, self.signature(unit))
            reached = self.rules.memo.get(key)
            if reached is None:  # the enemies some weapon reaches, kept per state
                reached = self.rules.memo[key] = tuple(k for k, f in enumerate(foes)
                                                       if self.weapons(attack, unit, f, effect.stat))
            foes = [foes[k] for k in reached]
            if not foes:
                if self.record:
                    self.emit("out_of_reach", unit=unit.label, reach=None)
                return False
            if len(foes) == 1:
                i = 0
            elif type(self.policies[unit.side]) is GreedyPolicy:  # as in act(); the pick is kept per state
                pick = ("target", attack.id, effect.stat, unit.started, unit.points, self.signature(unit))
                found = self.rules.memo.get(pick)
                if found is None:
                    values = [self.expected(attack, unit, f, reach=effect.stat) for f in foes]
                    found = self.rules.memo[pick] = values.index(max(values))
                i = found
                self.choices.append(i)
            else:
                i = self.choose(Choice("target", unit.side, unit.label, f"{attack.title}: which enemy unit?",
                                       tuple(Option(f"{f.label} ({self.state.distance(unit, f):g}\")", f.uid)
                                             for f in foes),
                                       lambda: [self.expected(attack, unit, f, reach=effect.stat) for f in foes]))
            target = foes[i]
        self.strike(attack, unit, target, effect.stat)
        return True

    def greedy_step(self, unit: Unit, value: A.Expr, gap: float) -> tuple[int | None, int]:
        """The greedy policy's move: the index of its pick among the steps (None: no choice) and the inches."""
        most = max(0, int(self.rules.number(value, unit, gap)))
        steps = list(range(0, most + 1))
        if len(steps) == 1:
            return None, 0
        values = self.estimate_moves(unit, gap, steps)
        i = values.index(max(values))
        return i, steps[i]

    def strike(self, attack: A.Attack, unit: Unit, target: Unit, reach: str | None = None) -> None:
        """``unit`` resolves ``attack`` against ``target`` with each of its weapons in reach (or once)."""
        dist = self.state.distance(unit, target)
        key = ("strike", attack.id, reach, unit.profile, unit.weapons, tuple(unit.statuses),
               tuple(unit.values.items()) if unit.values else (), target.profile, dist)
        plan = self.rules.memo.get(key)
        if plan is None:
            plan = self.rules.memo[key] = (self.rules.situation(unit, dist), self.weapons(attack, unit, target, reach))
        situation, weapons = plan
        for weapon in weapons:
            if not target.alive or not unit.alive:
                return
            law = self.rules.volley(attack, unit, weapon, target, situation)
            i = law.index(self.rng.random())
            removed = self.state.remove_models(target, law.values[i])
            if target.models:
                target.wounds = law.damaged[i]
            if self.record:
                self.emit("volley", rule=attack.id, unit=unit.label, weapon=weapon, target=target.label,
                          models=unit.models, removed=removed, mean=round(law.mean, 6), left=target.models,
                          wounds=target.wounds,
                          distance=round(dist, 3), situation=[k if v is True else f"{k}={v}" for k, v in situation])
        self.check_annihilation()

    def engage(self, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
        st = self.state
        gap = st.nearest_enemy(unit)
        reach = self.rules.number(effect.value, unit, st.distance(unit, gap) if gap else None) if effect.value else 0
        foes = [f for f in st.enemies(unit) if st.distance(unit, f) <= reach]
        if not foes:
            self.emit("out_of_reach", unit=unit.label, reach=reach)
            return False
        extra = tuple(e.name for e in (action.effects if action else ()) if e.kind == "sets" and e.name)
        i = 0 if len(foes) == 1 else self.choose(
            Choice("target", unit.side, unit.label, f"Engage which enemy unit (within {reach:g}\")?",
                   tuple(Option(f.label, f.uid) for f in foes),
                   lambda: [self.estimate_charge(unit, f, extra + (effect.name or "",)) for f in foes]))
        target = foes[i]
        self.emit("engage", unit=unit.label, target=target.label, status=effect.name)
        self.react("charged", target, unit)
        if not unit.alive or st.over:
            return False
        for a, b in ((unit, target), (target, unit)):
            if b.uid not in a.engaged:
                a.engaged.append(b.uid)
            if effect.name:
                a.statuses[effect.name] = ""
                a.engaged_as = effect.name
        unit.position = target.position
        return True

    def sets(self, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
        if effect.kind == "destroyed":
            self.emit("destroyed", unit=unit.label, models=unit.models)
            self.state.destroy(unit)
            self.check_annihilation()
            return False
        unit.statuses[effect.name or ""] = effect.period or ""
        if effect.period:
            self.state.timed = True
        if self.record:
            self.emit("status", unit=unit.label, status=effect.name, until=effect.period)
        return True

    def test(self, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
        """The unit takes the test; on a failure the rest of the action does not happen."""
        assert effect.value is not None
        foe = self.state.nearest_enemy(unit)
        p = self.rules.chance(effect.value, unit, self.state.distance(unit, foe) if foe else None)
        passed = self.rng.random() < p
        if self.record:
            rule = effect.value.func if isinstance(effect.value, A.Call) else ""
            self.emit("test", rule=rule, unit=unit.label, chance=round(p, 6), passed=passed)
        return passed

    def clears(self, unit: Unit, effect: A.ActionEffect, action: A.Action | None) -> bool:
        if unit.statuses.pop(effect.name or "", None) is not None and self.record:
            self.emit("status", unit=unit.label, status=effect.name, until="now")
        return True

    def react(self, event: str, unit: Unit, cause: Unit) -> None:
        """``unit`` may answer ``event`` (caused by ``cause``) with the game's reaction to it."""
        reaction = self.reactions.get(event)
        if reaction is None or not unit.alive or (reaction.requires is not None and not unit.has(reaction.requires)):
            return
        options = (Option("Yes", True), Option("No", False))
        attacks = [self.rules.model.get(e.name or "") for e in reaction.effects if e.kind == "attack"]
        reach = next((e.stat for e in reaction.effects if e.kind == "attack"), None)
        i = self.choose(Choice("react", unit.side, unit.label, f"{cause.label} engages {unit.label}: react ({event})?",
                               options, lambda: [sum(self.expected(a, unit, cause, reach=reach) for a in attacks
                                                     if isinstance(a, A.Attack)), 0.0]))
        if i != 0:
            return
        self.emit("reaction", unit=unit.label, event=event, cause=cause.label)
        for e in reaction.effects:
            done = self.attack(unit, e, None, target=cause) if e.kind == "attack" else EFFECTS[e.kind](self, unit, e, None)
            if not done or not cause.alive or self.state.over:
                return

    def combat(self, c: A.Combat) -> None:
        """Every engaged unit strikes once, highest ``order`` stat first (the active side first on a tie)."""
        st = self.state
        fighters = [u for u in st.units if u.models > 0 and u.engaged]
        if not fighters:
            return
        attack = self.rules.model.get(c.attack)
        assert isinstance(attack, A.Attack)
        fighters.sort(key=lambda u: (-self.stat(u, c.order), u.side != st.active, u.uid))
        for u in fighters:
            foes = [st.unit(i) for i in u.engaged if st.unit(i).alive]
            if not u.alive or not foes or st.over:
                continue
            target = foes[0]
            if len(foes) > 1:
                target = foes[self.choose(Choice("target", u.side, u.label, f"{attack.title}: strike which enemy unit?",
                                                 tuple(Option(f.label, f.uid) for f in foes),
                                                 lambda: [self.expected(attack, u, f) for f in foes]))]
            self.strike(attack, u, target)

    # -- the end -----------------------------------------------------------------------------

    def end_of(self, period: str) -> None:
        st = self.state
        for end in self.game.at_end:
            if end.period != period:
                continue
            for unit in [u for u in st.units if u.models > 0]:
                key = ("end", id(end), unit.profile, unit.models, unit.started, tuple(unit.statuses),
                       tuple(unit.values.items()) if unit.values else ())
                p = self.rules.memo.get(key)
                if p is None:
                    held = end.condition is None or self.rules.chance(end.condition, unit, None) >= 1.0
                    p = self.rules.memo[key] = self.rules.chance(end.test, unit, None) if held else -1.0
                if p < 0:
                    continue  # the condition does not hold: no test
                passed = self.rng.random() < p
                if self.record:
                    rule = end.test.func if isinstance(end.test, A.Call) else ""
                    self.emit("test", rule=rule, unit=unit.label, chance=round(p, 6), passed=passed)
                if not passed and end.failing is not None:
                    self.sets(unit, end.failing, None)
                if st.over:
                    return

    def check_annihilation(self) -> None:
        st = self.state
        victory = self.kinds.get("annihilation")
        if victory is None or st.over:
            return
        standing = sorted({u.side for u in st.units if u.models > 0})
        if len(standing) <= 1:
            st.over, st.reason = True, victory.id
            st.winner = standing[0] if standing else None

    def finish(self) -> None:
        st = self.state
        st.over = True
        victory = self.kinds.get("highest_score")
        if victory is None:
            st.reason = "turn limit"
            return
        scores = self._scores = tuple(self.score(s) for s in range(len(st.sides)))
        best = max(scores)
        st.reason = victory.id
        st.winner = scores.index(best) if scores.count(best) == 1 else None

    def score(self, side: int) -> float:
        total = 0.0
        for sc in self.game.scores:
            if sc.surviving:
                total += sum(u.models * self.rules.number(sc.value, u, None) for u in self.state.units
                             if u.side == side and u.alive)
        return total


_STEPS: dict[int, tuple[list[int], tuple[Option, ...]]] = {}  # the options of a move of up to N inches


def fresh_state(rules: Rules, scenario: A.Scenario) -> State:
    """The scenario's first state, made once per process and copied for each battle."""
    key = ("setup", scenario.id)
    first = rules.memo.get(key)
    if first is None:
        first = rules.memo[key] = initial_state(rules.model, scenario)
    return State([Unit(u.uid, u.side, u.label, u.profile, u.weapons, u.models, u.started, u.points, u.position)
                  for u in first.units], first.sides, first.side_titles)


#: Who acts when, by the name a game's ``activation`` line gives (filled by
#: :mod:`compiler.battle.activation`, which the package imports).
ACTIVATIONS: dict[str, Callable[[Battle, Sequence[int]], None]] = {}


def activation(name: str) -> Callable[[Callable[[Battle, Sequence[int]], None]], Callable[[Battle, Sequence[int]], None]]:
    """Register an activation scheme under the name a game's ``activation`` line gives."""
    def register(fn: Callable[[Battle, Sequence[int]], None]) -> Callable[[Battle, Sequence[int]], None]:
        ACTIVATIONS[name] = fn
        return fn
    return register


#: What each kind of action effect does.
EFFECTS: dict[str, Callable[[Battle, Unit, A.ActionEffect, A.Action | None], bool]] = {
    "move": Battle.move,
    "attack": Battle.attack,
    "engage": Battle.engage,
    "sets": Battle.sets,
    "tests": Battle.test,
    "clears": Battle.clears,
}
