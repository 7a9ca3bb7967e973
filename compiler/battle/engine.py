"""The turn engine: a battle played from a scenario's first state to a result.

The game's structure says who acts and what they may do; the engine only carries it out:

* :data:`ACTIVATIONS` — who acts when (``whole_army``: the active player runs every phase with
  all their units; ``alternating_units``: in each phase the players take turns, one unit each);
* each phase's actions are offered to each unit that may take them (``unless`` a status);
  their effects (:data:`EFFECTS`, registered in :mod:`compiler.battle.effects`) move units,
  resolve attack sequences, engage enemies and set statuses; a reaction (``when charged: …``)
  answers an event before it completes;
* a phase's ``combat`` makes every engaged unit strike in the order of a stat;
* ``at end of …`` tests, then the victory conditions (``by annihilation``, ``by highest_score``).

Every decision is a :class:`~compiler.battle.policies.Choice` (:meth:`Battle.choose`) and every
roll a chance node with its exact law (:meth:`Battle.chance`: a volley's law from the resolver,
a test's chance, who goes first): a policy answers the one, the battle's seeded stream or a
:class:`Nature` (a search, an exact solver: :mod:`compiler.battle.tree`) the other.  Every
happening is an event (a plain dict) that logs, terminals and pages read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence, cast

from compiler import ast as A
from compiler.battle.dice import VolleyDice
from compiler.battle.estimates import Estimates
from compiler.battle.policies import Choice, GreedyPolicy, Option, Policy
from compiler.battle.rules import Law, Rules, bernoulli, uniform
from compiler.battle.setup import Offer, prepared
from compiler.battle.signature import Signature
from compiler.battle.view import View
from compiler.battle.state import State, Unit
from compiler.battle.streams import Draws, Stream
from compiler.battle.turns import (cool_down, counter_range, counters_fall, counters_on, outcome_law, rally,
                                   refresh_engaged, remove_marked, rest, rest_turns, roll_initiative)
from compiler.battle.victory import Referee, outcome_fields
from compiler.trace import active, note_held

Listener = Callable[[dict[str, Any]], None]
#: An action effect: ``(battle, unit, effect, action) -> bool`` (False: the rest of the action cannot happen).
Effect = Callable[["Battle", Unit, A.ActionEffect, "A.Action | None"], bool]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a battle ended."""

    winner: int | None  # the side's index; None for a draw
    turns: int
    survivors: tuple[int, ...]  # models left, per side
    scores: tuple[float, ...]
    reason: str
    #: the table at the end (every unit's models and the wounds on its damaged model)
    final: State | None = field(default=None, compare=False, repr=False)


class Nature(Protocol):
    """Whatever answers a chance node instead of the battle's seeded stream."""

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        """The index of ``law``'s outcome (``what``: "volley", "test", "first", "activation")."""
        ...


class Battle:
    """One battle: the state, the dice, the policies, and the events so far."""

    def __init__(self, rules: Rules, scenario: A.Scenario, policies: Sequence[Policy], seed: int,
                 listener: Listener | None = None, record: bool = True, nature: Nature | None = None,
                 dice: bool = False, draws: Draws | None = None) -> None:
        prep = prepared(rules, scenario)
        game = prep.game
        self.rules, self.scenario, self.game = rules, scenario, game
        self.memos = prep.engine
        self.policies = list(policies)
        self.state: State = prep.fresh_state()
        self.estimates = Estimates(rules, game, self.state, prep.estimates)
        #: the dice: the seed's own stream (:mod:`compiler.battle.streams`), unless given
        self.rng: Draws = Stream(seed) if draws is None else draws
        self.nature = nature
        #: with ``dice`` (a log for people): each volley's dice, drawn given its outcome from a stream of their own
        self.dice = VolleyDice(rules, seed) if dice else None
        self.greedy_sides = [type(p) is GreedyPolicy and nature is None for p in self.policies]
        #: every side greedy (no choice is built, no search keys a position by the acting unit's
        #: signature): a unit acting where the answers are not kept needs no signature
        self.unsigned = all(self.greedy_sides)
        #: whether the acting unit's state is keyed: its phase's offers recur (see :meth:`offer`)
        self.keyed = True
        self.turns = scenario.turns or game.turns or 1
        self.events: list[dict[str, Any]] = []
        self.choices: list[int] = []
        self.listener = listener
        self.record = record or listener is not None  # a simulation keeps no events
        self.reactions = {r.event: r for r in game.reactions}
        #: whether a shot unit may answer (``when shot``), and whether a reaction is under way (its fire is not answered)
        self.shot_reaction = "shot" in self.reactions
        self.reacting = False
        self.referee = Referee(rules, game, self.state, self.emit)
        for counter in game.counters:  # every unit starts at the counter's lowest value
            low = counter_range(self, counter.situation)[0]
            for u in self.state.units:
                u.values.setdefault(counter.situation, low)
        #: on a line, which has no corners, the actions that move toward one are not offered
        self.cornerless = {a.id for p in game.phases for a in p.actions
                           if any(e.goal == "nearest corner" for e in a.effects)} if self.state.table is None else set()
        #: the periods whose end does something (a test, a score, a status that lapses)
        self.busy = {e.period for e in game.at_end} | {s.held_at for s in game.scores if s.held_at}
        if game.casualties_at_end or game.casualties_after is not None:
            self.busy.add("phase")  # what is still marked when the phase ends goes then
        self.busy |= {c.period for c in game.counters if c.period and c.falls}
        #: the weapons that rest after firing, and for how many of their player's turns
        self.rest = rest_turns(rules, game)
        #: the names counters read when a unit is shot (a volley's step, ``hits``, is drawn with it)
        self.shot_reads = {e.id for c in game.counters if c.event == "shot"
                           for e in A.sub_expressions(c.rises) if isinstance(e, A.Name)}
        #: told (game turn, the side that went first the turn before) as each game turn begins
        self.at_turn: Callable[[int, int], None] | None = None
        #: told the index in the game turn's order of each player whose turn begins but the first
        #: (``whole_army``: between two players' turns, where a battle can be resumed)
        self.at_player: Callable[[int], None] | None = None
        self.order: list[int] = []  # this game turn's order of the sides
        self.player = 0  # the player of the order a resumed battle begins with (see play_from)
        self.rolled = 0  # the dice drawn from the battle's own stream (see run_phase)
        for p in list(self.policies):  # a policy that searches sits at the battle (compiler.battle.search)
            seat = getattr(p, "seat", None)
            if seat is not None:
                seat(self)

    # -- the run -------------------------------------------------------------------------

    def run(self) -> Outcome:
        st = self.state
        n = len(st.sides)
        first = (self.chance(uniform(n), "first") if self.scenario.first in (None, "random")
                 else st.sides.index(self.scenario.first))
        if self.record:
            gap: float | None = self.scenario.distance
            if st.table is not None:  # on a table: how far apart the nearest enemies stand
                gap = min((st.distance(a, b) for a in st.units for b in st.units if a.side < b.side), default=None)
            self.emit("start", first=st.sides[first], first_title=st.side_titles[first], distance=gap,
                      table=None if st.table is None else [st.table.width, st.table.depth])
        st.first = first
        return self.play_from(1, first)

    def play_from(self, start: int, first: int) -> Outcome:
        """The game turns from ``start`` on, then the end (``first``: the side that went first the
        turn before).  :meth:`run` calls it after the roll for the first turn; a walk over kept
        transitions (:mod:`compiler.battle.walk`) resumes a battle here from a kept state
        (:meth:`resume`): at the start of a game turn, or (resumed before player ``player`` > 0,
        ``first`` the side that went first this turn) between two players' turns of game turn
        ``start``, where :attr:`at_player` was told."""
        st = self.state
        n = len(st.sides)
        order = [(first + i) % n for i in range(n)]
        initiative = self.game.initiative is not None and n == 2
        for turn in range(start, self.turns + 1):
            if self.player:  # resumed within this game turn: its order is set
                self.order = order
            else:
                if self.at_turn is not None:
                    self.at_turn(turn, first)
                st.turn = turn
                for u in st.units:
                    u.spent = u.acted = False
                if initiative:
                    first = roll_initiative(self, first)
                    order = [first, 1 - first]
                self.order = order
            ACTIVATIONS[self.game.activation or "whole_army"](self, order)
            self.player = 0
            if st.over:
                break
            self.period_ends("game turn")
            if st.over:
                break
        if not st.over:
            self.period_ends("game")
        scores = self.referee.scores() if st.over else self.referee.finish()
        out = Outcome(st.winner, st.turn, tuple(st.models_left(s) for s in range(n)), scores, st.reason, st)
        if self.record:
            self.emit("end", **outcome_fields(st, scores))
        return out

    def resume(self, state: State, player: int = 0) -> None:
        """Take up a kept state (a copy of it) as this battle's, at the start of a game turn or
        before the turn of player ``player`` of the game turn's order (:meth:`play_from` then
        plays on from it)."""
        self.state.load(state)
        self.estimates.sig = None
        self.player = player

    def emit(self, kind: str, **data: Any) -> None:
        if not self.record:
            return
        st = self.state
        event = {"event": kind, "turn": st.turn, "side": st.sides[st.active], "phase": st.phase, **data}
        self.events.append(event)
        if self.listener is not None:
            self.listener(event)

    def choose(self, choice: Choice) -> int:
        """A decision point: the index of the option the side's policy picks (recorded)."""
        if len(choice.options) == 1:
            return 0  # no decision to take (and none recorded)
        index = self.policies[choice.side].choose(choice)
        self.choices.append(index)
        return index

    def chance(self, law: Law, what: str) -> int:
        """A chance node: the index of ``law``'s outcome, drawn from the battle's seeded stream
        (or given by its :class:`Nature`)."""
        if self.nature is not None:
            return self.nature.outcome(self, law, what)
        self.rolled += 1
        return law.index(self.rng.random())

    def greedy(self, side: int) -> bool:
        """Whether ``side`` plays the greedy policy (whose picks the engine keeps per state, and
        makes without building the choice: the same answer, recorded the same way)."""
        return self.greedy_sides[side]

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
        self.period_ends("turn")

    def run_phase(self, phase: A.Phase, sides: Sequence[int]) -> None:
        """Every unit of ``sides`` (taking turns in that order, one unit each) may act, then combats:
        between greedy sides with no nature and no events, taken up whole where it was played
        without a die from this state before (:mod:`compiler.battle.phases`)."""
        if self.nature is None and not self.record and self.dice is None and all(self.greedy_sides):
            self.memos.phases.run(self, phase, sides)  # (no local here: a search keys a position by its frames)
        else:
            self.play_phase(phase, sides)

    def take_up(self, state: State, choices: Sequence[int]) -> None:
        """A phase kept whole (:mod:`compiler.battle.phases`): its end ``state`` and the ``choices`` made."""
        self.state.load(state)
        self.estimates.sig = None
        self.choices += choices

    def play_phase(self, phase: A.Phase, sides: Sequence[int]) -> None:
        """The phase played (see :meth:`run_phase`)."""
        st = self.state
        st.phase = phase.id
        if phase.actions and len(sides) == 1:
            side = st.active = sides[0]
            left = [u for u in st.units if u.side == side and u.models > 0]
            while left and not st.over:
                unit = left[0] if len(left) == 1 else self.pick_unit(side, left, phase)
                left.remove(unit)
                if unit.models > 0:
                    self.act(unit, phase)
        elif phase.actions:
            pending = [st.side_units(s) for s in sides]
            greedy = self.greedy_sides
            while not st.over and any(pending):
                for s, left in zip(sides, pending):
                    while left and left[0].models <= 0:  # one wiped out since the phase began is not offered
                        del left[0]
                    if not left or st.over:
                        continue
                    st.active = s
                    if greedy[s]:  # no estimates: the greedy policy takes the first (as pick_unit does)
                        unit = left.pop(0)
                        for u in left:
                            if u.models > 0:  # a choice of more than one unit: recorded
                                self.choices.append(0)
                                break
                    else:
                        left[:] = [u for u in left if u.models > 0]
                        unit = left[0] if len(left) == 1 else self.pick_unit(s, left, phase)
                        left.remove(unit)
                    self.act(unit, phase)
        for c in phase.combats:
            if not st.over:
                self.combat(c)
        if st.timed or "phase" in self.busy:
            self.period_ends("phase")

    def pick_unit(self, side: int, pending: list[Unit], phase: A.Phase) -> Unit:
        if len(pending) == 1:
            return pending[0]
        if self.greedy_sides[side]:  # no estimates: the greedy policy takes the first (recorded as a choice is)
            self.choices.append(0)
            return pending[0]
        i = self.choose(Choice("unit", side, self.state.side_titles[side], f"{phase.title}: which unit acts next?",
                               tuple(Option(u.label, u.uid) for u in pending)))
        return pending[i]

    def act(self, unit: Unit, phase: A.Phase) -> bool:
        """``unit`` may take one of the phase's actions; False when it takes none."""
        if unit.spent:
            return False  # a reaction took its action this game turn
        if unit.until:
            rally(self, unit)  # (a test taken to end a status neither removes models nor ends the battle)
        statuses = unit.statuses
        if statuses and active():  # coverage: the statuses that take an action from the unit
            note_held(statuses, [s for a in phase.actions for s in a.unless])
        if statuses and all(a.unless and any(s in statuses for s in a.unless) for a in phase.actions):
            self.estimates.sig = None
            return False  # every action of the phase is barred to the unit
        est = self.estimates
        # (est.sig set: valid until the first effect changes the state; with no signature, where its
        # answers are not kept: see offer)
        # (an attribute, not a local: the exact solver keys a position by its frames' values)
        self.keyed = self.memos.recur.worth((phase.id, self.state.turn))
        side, sig = unit.side, est.scan(unit, self.keyed or not self.unsigned)
        key = (phase.id, sig)  # (what est.actions reads: the phase and the signature)
        offer = self.offer(unit, phase, key)
        actions, options = offer[0], offer[1]
        if not actions:
            est.sig = None
            return False

        if self.greedy_sides[side]:
            i = offer[2]
            assert i is not None  # (worked out by offer() for a greedy side)
            if len(options) > 1:  # as choose() records: a choice of one option is no answer
                self.choices.append(i)
        else:
            i = self.choose(Choice("action", unit.side, unit.label, f"{phase.title}: what does {unit.label} do?",
                                   options, lambda: est.actions(key, unit, actions)[:len(options)]))
        if i == len(actions):
            est.sig = None
            return False
        action = actions[i]
        if self.record:
            self.emit("action", unit=unit.label, action=action.id, title=action.title)
        for effect in action.effects:
            if not unit.alive or self.state.over:
                break
            done = EFFECTS[effect.kind](self, unit, effect, action)
            est.sig = None
            if not done:
                break  # an effect that could not happen ends the action
        est.sig = None
        return True

    def offer(self, unit: Unit, phase: A.Phase, key: tuple[str, Signature | View]) -> Offer:
        """What ``phase`` offers ``unit`` in this state (``key``: the phase and its signature) and,
        for a greedy side, its pick: kept under the signature's number, which the estimates share
        (:meth:`~compiler.battle.estimates.Estimates.numbered`; out of :meth:`act`'s frame: the exact
        solver keys a position by its frames' values), where states recur (:attr:`keyed`: a phase
        of a game turn whose states are seldom met again is worked out afresh, see
        :class:`~compiler.battle.memo.Recurring`)."""
        est = self.estimates
        memo = self.memos.offers
        offer: Offer | None = None
        kept: tuple[str, int] | None = None
        if self.keyed:  # (where states recur: a battle's first turn, a small battle)
            kept = (phase.id, est.numbered(unit))
            offer = memo.get(kept)
            self.memos.recur.found((phase.id, self.state.turn), offer is not None)
        if offer is None:
            statuses = unit.statuses
            acts = [a for a in phase.actions if not (a.unless and any(s in statuses for s in a.unless))
                    and a.id not in self.cornerless and est.can_attack(unit, a)]
            # the actions, their options, and (once worked out) the greedy policy's pick
            offer = self.menu(phase, acts) + (None,)
            if kept is not None:
                memo.keep(kept, offer)
        if offer[2] is None and offer[0] and self.greedy_sides[unit.side]:
            values = est.actions(key, unit, offer[0])[:len(offer[1])]
            offer = (offer[0], offer[1], values.index(max(values)))
            if kept is not None:
                memo[kept] = offer
        return offer

    def menu(self, phase: A.Phase, acts: list[A.Action]) -> tuple[list[A.Action], tuple[Option, ...]]:
        """The actions ``acts`` of a phase offered to a unit, and their options: one per action,
        and doing nothing unless one is a ``must`` (kept per phase and actions, one list and one
        tuple shared by every state that offers them: states seldom recur, the phase's offers do)."""
        key = (phase.id, *[a.id for a in acts])
        found = self.memos.menus.get(key)
        if found is None:
            must = any(a.must for a in acts)  # a unit offered a `must` action may not do nothing
            found = self.memos.menus.keep(key, (acts, tuple(Option(a.title, a.id) for a in acts) +
                                                (() if must else (Option("Nothing", None),))))
        return found

    def strike(self, attack: A.Attack, unit: Unit, target: Unit, reach: str | None = None, shot: bool = True) -> None:
        """``unit`` resolves ``attack`` against ``target`` with each of its weapons in reach (or once);
        ``shot`` (not a combat's blows): the target's counters that rise when shot then rise, by
        what they read of the volleys (their counts summed over the weapons)."""
        table = self.state.table
        if table is None:
            dist, cover = abs(unit.position - target.position), cast(tuple[str, ...], ())
        else:  # what the table sets: the target in cover, fire through smoke
            found = table.pairs.get((unit.position, unit.y), {}).get((target.position, target.y))
            dist, _, cover = found if found is not None else table.pair(unit.position, unit.y, target.position, target.y)
        if self.state.defending:  # the target's statuses the volley reads of it (gone to ground)
            cover += self.state.held_against(target)
        key = (attack.id, reach, unit.profile, unit.weapons, tuple(unit.statuses),
               tuple(unit.values.items()) if unit.values else (), target.profile, dist, cover,
               (unit.models, unit.doomed, unit.lost_this_turn) if self.rules.derived else ())
        plan = self.memos.strikes.get(key)
        if plan is None:
            plan = self.memos.strikes.keep(key, (self.rules.situation(unit, dist, cover, volley=True),
                                                 self.estimates.weapons(attack, unit, target, reach)))
        situation, weapons = plan
        counted = self.counted_step(attack) if shot and self.shot_reads else None
        total, before = 0, target.models - target.doomed
        for weapon in weapons:
            if target.models <= target.doomed or not unit.alive:
                break
            law = self.rules.volley(attack, unit, weapon, target, situation) if counted is None else \
                self.rules.volley_counting(attack, unit, weapon, target, situation, counted)
            i = self.chance(law, "volley")
            if counted is not None:
                total += law.counts[i]
            shown = self.dice.volley(attack, unit, weapon, target, situation, law, i, counted) \
                if self.dice is not None else {}
            if self.game.casualties_at_end or (self.game.casualties_after is not None and not target.acted):
                # marked now, removed when the phase ends (or the unit has acted)
                removed = min(law.values[i], target.models - target.doomed)
                target.doomed += removed
                target.wounds = law.damaged[i] if target.models > target.doomed else 0
            else:
                removed = self.state.remove_models(target, law.values[i])
                if target.models:
                    target.wounds = law.damaged[i]
            if self.record:  # (``dist``: whole inches on a line, a thousandth at most on a table)
                self.emit("volley", rule=attack.id, unit=unit.label, weapon=weapon, target=target.label,
                          models=unit.models, removed=removed, mean=round(law.mean, 6), left=target.models,
                          wounds=target.wounds,
                          distance=dist, situation=[k if v is True else f"{k}={v}" for k, v in situation],
                          **shown, **({"counted": {counted: law.counts[i]}} if counted is not None else {}))
            if weapon is not None and weapon in self.rest:
                rest(self, unit, weapon, self.rest[weapon])
        if shot and self.game.counters and target.models > target.doomed:
            counters_on(self, target, "shot", {counted: total, "models": before} if counted is not None else
                        {"models": before})
        if self.game.engaged_statuses and not target.alive:
            refresh_engaged(self)  # an engagement ended with the unit wiped out
        self.referee.settle()

    def counted_step(self, attack: A.Attack) -> str | None:
        """The step of ``attack`` whose count the counters read when its target is shot (``hits``)."""
        found = self.memos.counted.get(attack.id, "")
        if found == "":
            tests = {k for k, v in self.rules.model.callables.items() if isinstance(v, A.Test)}
            found = self.memos.counted.keep(attack.id, next(
                (name for name in attack.counted_chain(tests) if name in self.shot_reads), None))
        return found

    def combat(self, c: A.Combat) -> None:
        """Every engaged unit strikes once, highest ``order`` stat first (the active side first on a tie)."""
        st = self.state
        fighters = [u for u in st.units if u.models > 0 and u.engaged]
        if not fighters:
            return
        attack = self.rules.model.get(c.attack)
        assert isinstance(attack, A.Attack)
        reach = "-" + c.without if c.without else None  # `without Range`: the close combat profiles
        fighters.sort(key=lambda u: (-self.estimates.stat(u, c.order), u.side != st.active, u.uid))
        for u in fighters:
            foes = [st.unit(i) for i in u.engaged if st.unit(i).alive]
            if not u.alive or not foes or st.over:
                continue
            target = foes[0]
            if len(foes) > 1:
                target = foes[self.choose(Choice("target", u.side, u.label, f"{attack.title}: strike which enemy unit?",
                                                 tuple(Option(f.label, f.uid) for f in foes),
                                                 lambda: [self.estimates.expected(attack, u, f, reach=reach)
                                                          for f in foes]))]
            self.strike(attack, u, target, reach, shot=False)

    # -- the end -----------------------------------------------------------------------------

    def end_of(self, period: str) -> None:
        """The game's tests at the end of ``period`` (``at end of …: each unit … tests …``)."""
        st = self.state
        for end in self.game.at_end:
            if end.period != period:
                continue
            for unit in [u for u in st.units if u.models > 0]:
                key = (id(end), unit.profile, unit.models, unit.started, tuple(unit.statuses),
                       tuple(unit.values.items()) if unit.values else (), unit.lost_this_turn)
                p = self.memos.ends.get(key)
                if p is None:
                    held = end.condition is None or self.rules.chance(end.condition, unit, None) >= 1.0
                    p = self.memos.ends.keep(key, (0 if end.takes else self.rules.odds(end.test, unit, None))
                                             if held else -1.0)
                if p < 0:
                    continue  # the condition does not hold: no test
                if end.takes:
                    self.take(end, unit)
                    if st.over:
                        return
                    continue
                passed = self.chance(bernoulli(p), "test") == 0
                if self.record:
                    rule = end.test.func if isinstance(end.test, A.Call) else ""
                    self.emit("test", rule=rule, unit=unit.label, chance=round(float(p), 6), passed=passed)
                if not passed and end.failing is not None:
                    EFFECTS[end.failing.kind](self, unit, end.failing, None)
                if st.over:
                    return
        self.referee.settle()

    def take(self, end: A.AtEnd, unit: Unit) -> None:
        """``each unit … takes casualty_test(Ld), clears s_points`` with ``on "pinned": …`` cases: the
        value is drawn from its exact law (one chance node), the effects after ``takes`` happen
        whatever it is, then those of its case."""
        labels, law = outcome_law(self, end.test, unit)
        i = self.chance(law, "test") if len(labels) > 1 else 0
        value = labels[law.values[i]]
        if self.record:
            rule = end.test.func if isinstance(end.test, A.Call) else ""
            self.emit("test", rule=rule, unit=unit.label, result=value, chance=round(float(law.probabilities[i]), 6),
                      passed=None)
        for effects in (end.effects, next((e for v, e in end.cases if v == value), ())):
            for effect in effects:
                if not unit.alive or self.state.over or not EFFECTS[effect.kind](self, unit, effect, None):
                    return

    def period_ends(self, period: str) -> None:
        """``period`` (a phase, a player's turn, a game turn) ends: its tests and scores, then its
        statuses lapse."""
        st = self.state
        if period in self.busy and not st.over:
            if period == "phase" and (self.game.casualties_at_end or self.game.casualties_after is not None):
                remove_marked(self)
            if st.over:
                return
            if self.game.counters:
                counters_fall(self, period)
            self.end_of(period)
            if not st.over:
                self.referee.period_ends(period)
        if st.timed or period != "phase":
            st.expire(period)
        if period == "turn":
            st.turn_begins()
            if self.rest:
                cool_down(st)


#: Who acts when, by the name a game's ``activation`` line gives (filled by
#: :mod:`compiler.battle.activation`, which the package imports).
ACTIVATIONS: dict[str, Callable[[Battle, Sequence[int]], None]] = {}


def activation(name: str) -> Callable[[Callable[[Battle, Sequence[int]], None]], Callable[[Battle, Sequence[int]], None]]:
    """Register an activation scheme under the name a game's ``activation`` line gives."""
    def register(fn: Callable[[Battle, Sequence[int]], None]) -> Callable[[Battle, Sequence[int]], None]:
        ACTIVATIONS[name] = fn
        return fn
    return register


#: What each kind of action effect does, by the ``kind`` of an :class:`~compiler.ast.ActionEffect`
#: (filled by :mod:`compiler.battle.effects`, which the package imports).
EFFECTS: dict[str, Effect] = {}


def effect(*kinds: str) -> Callable[[Effect], Effect]:
    """Register an action effect under the kinds of :class:`~compiler.ast.ActionEffect` it carries out.

    The function changes ``battle.state`` through its methods, reports what happened with
    ``battle.emit(...)``, and returns False when the rest of the action cannot happen.
    """
    def register(fn: Effect) -> Effect:
        if not fn.__doc__:
            raise TypeError(f"action effect {fn.__name__} needs a docstring: what it does to the state")
        for kind in kinds:
            EFFECTS[kind] = fn
        return fn
    return register
