"""What the greedy policy reads: the expected worth of actions, moves, charges and reactions.

:class:`Estimates` is the battle's collaborator that works out expected values from the
resolver's exact laws.  Each answer is kept per state — a unit's :meth:`Estimates.signature`
(:mod:`compiler.battle.signature`) — in the
:class:`EstimateMemos` of the scenario, which outlive one battle (a simulation meets the same
states again and again).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from compiler import ast as A
from compiler.battle import gains, holding
from compiler.battle.aims import engagement, picky, reached, target_of, targeted
from compiler.battle.bands import Bands
from compiler.battle.memo import Memo, Numbered
from compiler.battle.rules import Rules, law_of
from compiler.battle.signature import Signature, signature
from compiler.battle.state import Marker, State, Unit
from compiler.battle.view import View, look, scan
from compiler.model.static import int_range

__all__ = ["EstimateMemos", "Estimates", "engagement", "picky", "reached", "target_of", "targeted"]


@dataclass(slots=True)
class EstimateMemos:
    """The estimates' kept answers (one set per scenario and process)."""

    weapons: Memo[tuple[Any, ...], tuple[str | None, ...]] = field(default_factory=lambda: Memo("usable weapons"))
    stats: Memo[tuple[str, str], float] = field(default_factory=lambda: Memo("stats as numbers"))
    can: Memo[tuple[Any, ...], bool] = field(default_factory=lambda: Memo("actions a unit can attack with"))
    actions: Memo[tuple[Any, ...], float] = field(default_factory=lambda: Memo("action estimates"))
    moves: Memo[tuple[Any, ...], list[float]] = field(default_factory=lambda: Memo("move estimates"))
    offers: Memo[tuple[Any, ...], list[float]] = field(default_factory=lambda: Memo("a phase's action values"))
    expected: Memo[tuple[Any, ...], float] = field(default_factory=lambda: Memo("expected volleys"))
    volleys: Memo[tuple[Any, ...], dict[tuple[Any, ...], tuple[tuple[str | None, ...], float]]] = field(
        default_factory=lambda: Memo("a unit's volleys, by enemy"))
    worths: Memo[tuple[Any, ...], dict[tuple[Any, ...], float]] = field(
        default_factory=lambda: Memo("a unit's volleys at a distance, by enemy"))
    #: each signature met, numbered: the memos above key a state by its number
    ids: Numbered[tuple[Any, ...]] = field(default_factory=Numbered)
    #: the bands of distance of the scenario's volleys (made by the first battle's estimates)
    bands: Bands | None = None


#: The kinds of effect a lean key of a move's worth can weigh (see ``Estimates.lean``).
_LEAN_KINDS = frozenset({"attack", "tests", "engage", "sets", "clears"})


def volley_plan(rules: Rules, action: A.Action) -> tuple[tuple[A.Attack, str | None], ...]:
    """The attacks of ``action`` and their reaches, when each is a volley at every enemy in sight
    (no ``without``, no aim: whether the unit can take it is whether some weapon of each reaches
    an enemy it sees); none (``()``) when one is not, or none attacks."""
    if any(e.without or (e.kind == "attack" and picky(e)) for e in action.effects):
        return ()
    return tuple((attack, e.reach) for e in action.effects if e.kind == "attack"
                 for attack in [rules.attacks.get(e.name or "")] if isinstance(attack, A.Attack))


class Estimates:
    """Expected values for a battle's choices, read from the battle's state."""

    __slots__ = ("rules", "game", "state", "memos", "combat_attack", "combat_reach", "sig", "_view", "_view_sig",
                 "lean", "lean_engage", "_sets_only", "_attacks", "_plans",
                 "banded", "bands", "_held")

    def __init__(self, rules: Rules, game: A.Game, state: State, memos: EstimateMemos) -> None:
        self.rules, self.game, self.state, self.memos = rules, game, state, memos
        # how engaged units fight: the game's combat, else an attack made only at engaged enemies
        fights: list[tuple[str | None, str | None]] = [(c.attack, "-" + c.without if c.without else None)
                                                       for p in game.phases for c in p.combats]
        fights += [(e.name, e.reach) for p in game.phases for a in p.actions
                   for e in a.effects if e.kind == "attack" and e.engaged_only and e.name]
        self.combat_attack: str | None = fights[0][0] if fights else None
        self.combat_reach: str | None = fights[0][1] if fights else None
        #: the acting unit's signature while it holds (the engine clears it when the state changes),
        #: or its view in the signature's stead (see :meth:`scan`)
        self.sig: tuple[Unit, Signature | View] | None = None
        #: what the acting unit sees (:meth:`view`), kept while its signature holds (the same object)
        self._view: View | None = None
        self._view_sig: Signature | View | None = None
        self._sets_only: dict[str, bool] = {}  # per action: whether it only sets statuses
        self._attacks: dict[str, bool] = {}  # per action: whether it makes an attack
        self._plans: dict[str, tuple[tuple[A.Attack, str | None], ...]] = {}  # per action: volley_plan
        # On a table without objectives, a move's worth reads of the enemies only what the later
        # actions weigh at a hypothetical distance (:meth:`move_key`) when those actions only
        # attack (every enemy in reach a target), test, engage, set or clear; a status held
        # for a reaction weighs the whole state (its reaction and what it bars), and so does a
        # move whose end takes objectives, an attack that picks its targets, or leaving a fight.
        later = [a for p in game.phases for a in p.actions if not any(e.kind == "move" for e in a.effects)]
        reacts = {r.requires for r in game.reactions}
        self.lean = state.table is not None and not state.objectives and all(
            e.kind in _LEAN_KINDS and not (e.kind == "attack" and picky(e)) and not (e.kind == "sets" and e.name in reacts)
            for a in later for e in a.effects)
        self.lean_engage = any(e.kind == "engage" for a in later for e in a.effects)
        # without an engagement the later actions read a hypothetical distance only through their
        # volleys: a move's worth is the same for two gaps whose steps fall in the same bands
        self.banded = self.lean and not self.lean_engage
        if memos.bands is None:
            memos.bands = Bands(rules)
        self.bands: Bands = memos.bands
        #: the acting unit's signature's number (:meth:`numbered`), and the signature it is of
        self._held: tuple[Signature, int] | None = None

    def weapons(self, attack: A.Attack, unit: Unit, target: Unit, reach: str | None = None,
                distance: float | None = None) -> tuple[str | None, ...]:
        """The weapons ``unit`` can use in ``attack`` against ``target`` (None: the attack takes no
        weapon); with ``reach``, only those whose stat of that name reaches the target (``-STAT``:
        only those with no value of that stat, such as ``Range -``, at a target in contact).  Kept per
        profiles, weapons and gap."""
        gap = None if reach is None else self.state.distance(unit, target) if distance is None else distance
        resting = unit.resting()
        key = (attack.id, unit.profile, unit.weapons, target.profile, reach, gap, resting)
        found = self.memos.weapons.get(key)
        if found is None:
            options: tuple[str | None, ...] = unit.weapons if len(attack.params) > 2 and unit.weapons else (None,)
            options = tuple(w for w in options if w not in resting)  # a weapon resting after it fired
            found = tuple(w for w in options if self.rules.usable(attack, unit, w, target))
            if reach is not None and reach.startswith("-"):  # close-combat weapons, at an enemy in contact
                assert gap is not None
                found = tuple(w for w in found if w is not None and gap <= 0 and self.rules.reach(w, reach[1:]) < 0)
            elif reach is not None:
                assert gap is not None
                found = tuple(w for w in found if w is not None and self.rules.reach(w, reach) >= gap)
            self.memos.weapons.keep(key, found)
        return found

    def stat(self, unit: Unit, name: str) -> float:
        """The unit's stat ``name`` as a number (0 when it has none, or not a number)."""
        key = (unit.profile, name)
        found = self.memos.stats.get(key)
        if found is None:
            sv = self.rules.model.profiles[unit.profile].stat(name)
            found = self.memos.stats.keep(key, float(sv.value) if sv is not None and isinstance(sv.value, (int, float))
                                          else 0.0)
        return found

    def expected(self, attack: A.Attack, unit: Unit, target: Unit, distance: float | None = None,
                 extra: tuple[str, ...] = (), reach: str | None = None,
                 cover: tuple[str, ...] | None = None) -> float:
        """The points of ``target``'s models that ``unit`` is expected to remove with ``attack``
        (a model without points counts one); ``cover``: what the table sets for the volley, when
        already known."""
        dist = self.state.distance(unit, target) if distance is None else distance
        if cover is None:
            cover = self.state.cover(unit, target)
        key = (attack.id, reach, unit.profile, unit.models, unit.doomed, unit.weapons, tuple(unit.statuses),
               tuple(unit.values.items()) if unit.values else (), target.profile, target.models, target.doomed,
               target.wounds, target.points, dist, extra, cover)
        found = self.memos.expected.get(key)
        if found is None:
            situation = self.rules.situation(unit, dist, extra + cover, volley=True)
            found = self.memos.expected.keep(key, sum(self.rules.volley(attack, unit, w, target, situation).mean
                                                      for w in self.weapons(attack, unit, target, reach, dist))
                                             * (target.points or 1))
        return found

    def volleys(self, unit: Unit, attack: A.Attack, reach: str | None) -> tuple[tuple[tuple[str | None, ...], float], ...]:
        """For each enemy ``unit`` sees (:attr:`View.seen`, in order): the weapons it can use in
        ``attack`` that reach it (:meth:`weapons`) and the volley's worth (:meth:`expected`); kept
        in the view (while the state holds)."""
        v = self.view(unit)
        key = (attack.id, reach)
        found: tuple[tuple[tuple[str | None, ...], float], ...] | None = v.answers.get(key)
        if found is None:
            # a row per attack and what of the unit weapons() and expected() read; in it, an answer
            # per what they read of the enemy (how far it stands, and the table's situations)
            head = (attack.id, reach, unit.profile, unit.models, unit.doomed, unit.weapons, tuple(unit.statuses),
                    tuple(unit.values.items()) if unit.values else ())
            row = self.memos.volleys.get(head)
            if row is None:
                row = self.memos.volleys.keep(head, {})
            out = []
            for (f, c), d in zip(v.seen, v.distances):
                fk = (f.profile, f.models, f.doomed, f.wounds, f.points, d, c)
                x = row.get(fk)
                if x is None:
                    x = row[fk] = (self.weapons(attack, unit, f, reach, d),
                                   self.expected(attack, unit, f, d, reach=reach, cover=c))
                out.append(x)
            found = v.answers[key] = tuple(out)
        return found

    def worths(self, unit: Unit, attack: A.Attack, reach: str | None, distance: float) -> list[float]:
        """The worth of a volley of ``attack`` at each kind of enemy ``unit`` sees
        (:attr:`View.distinct`), were it at ``distance`` (:meth:`expected`): a row per attack and
        what of the unit expected() reads, in it an answer per what it reads of the enemy."""
        head = (attack.id, reach, unit.profile, unit.models, unit.doomed, unit.weapons, tuple(unit.statuses),
                tuple(unit.values.items()) if unit.values else ())
        row = self.memos.worths.get(head)
        if row is None:
            row = self.memos.worths.keep(head, {})
        out = []
        for f, c in self.view(unit).distinct:
            fk = (f.profile, f.models, f.doomed, f.wounds, f.points, distance, c)
            x = row.get(fk)
            if x is None:
                x = row[fk] = self.expected(attack, unit, f, distance, reach=reach, cover=c)
            out.append(x)
        return out

    def rally(self, unit: Unit, counter: str, by: A.Expr) -> float:
        """What lowering the unit's counter (``lowers s_points by d6``: by the amount's mean) is
        worth: how much more its best attack would then remove (none when it would not change)."""
        held = unit.values.get(counter)
        if not isinstance(held, int):
            return 0.0
        sit = self.rules.model.situations.get(counter)
        ends = int_range(sit.range) if sit is not None and sit.range is not None else None
        after = unit.copy()
        after.values[counter] = max(ends[0] if ends else 0, held - int(self.rules.number(by, unit, None)))
        if after.values[counter] == held:
            return 0.0
        gain = 0.0
        for a in [a for p in self.game.phases for a in p.actions if not any(unit.has(s) for s in a.unless)]:
            for e in a.effects:
                attack = self.rules.attacks.get(e.name or "") if e.kind == "attack" else None
                if isinstance(attack, A.Attack):
                    gain = max([gain] + [self.expected(attack, after, f, reach=e.reach, cover=cover)
                                         - self.expected(attack, unit, f, reach=e.reach, cover=cover)
                                         for f, cover in self.in_sight(unit)[0] if target_of(unit, f, e)])
        return gain

    def can_attack(self, unit: Unit, action: A.Action) -> bool:
        """False when the action resolves an attack that the unit has no usable weapon for (none that
        reaches an enemy, when the attack is made ``within`` a reach)."""
        attacks = self._attacks.get(action.id)
        if attacks is None:
            attacks = self._attacks[action.id] = any(e.kind == "attack" for e in action.effects)
        if not attacks:
            return True  # nothing to attack with: nothing to miss
        if self.state.table is not None:  # a table's states seldom recur: answered from the view
            plan = self._plans.get(action.id)
            if plan is None:
                plan = self._plans[action.id] = volley_plan(self.rules, action)
            if not plan:
                return self._can_attack(unit, action)
            for attack, reach in plan:  # as _can_attack reads such an action: some weapon reaches an enemy
                if not any(w for w, _ in self.volleys(unit, attack, reach)):
                    return False
            return True
        distance = self.state.distance
        key = (action.id, unit.profile, unit.weapons, bool(unit.engaged), unit.resting(),
               tuple([(f.profile, distance(unit, f), targeted(unit, f, action.effects))
                      for f, _ in self.in_sight(unit)[0]]))
        found = self.memos.can.get(key)
        if found is None:
            found = self.memos.can.keep(key, self._can_attack(unit, action))
        return found

    def _can_attack(self, unit: Unit, action: A.Action) -> bool:
        for k, e in enumerate(action.effects):
            if e.without and any(x.kind == "engage" for x in action.effects[:k]):
                continue  # its blows follow the charge before it: the engagement decides whether they land
            if e.without and not unit.engaged:
                return False  # close-combat weapons strike only an enemy the unit is engaged with
            attack = self.rules.attacks.get(e.name or "") if e.kind == "attack" else None
            if isinstance(attack, A.Attack) and picky(e) and not any(
                    self.weapons(attack, unit, f, e.reach, d) for (f, _), d in zip(self.view(unit).seen,
                                                                                     self.view(unit).distances)
                    if target_of(unit, f, e)):
                return False
            if isinstance(attack, A.Attack) and not picky(e) and not any(w for w, _ in self.volleys(unit, attack, e.reach)):
                return False
        return True

    def charge(self, unit: Unit, target: Unit, extra: tuple[str, ...], engaged: tuple[str, ...] = ()) -> float:
        """What ``unit`` engaging ``target`` is worth: the first round of the game's combat, its
        blows (holding the statuses ``extra``) less the target's (holding ``engaged``, the statuses
        the engagement sets)."""
        attack = self.rules.model.get(self.combat_attack or "")
        if not isinstance(attack, A.Attack):
            return 0.0
        return (self.expected(attack, unit, target, 0.0, extra, reach=self.combat_reach)
                - self.expected(attack, target, unit, 0.0, engaged, reach=self.combat_reach))

    def escape(self, unit: Unit) -> float:
        """What leaving its engagements is worth to ``unit``: the blows of the game's fight it no
        longer takes, one round from each enemy it is engaged with."""
        attack = self.rules.model.get(self.combat_attack or "")
        if not isinstance(attack, A.Attack):
            return 0.0
        st = self.state
        return sum(self.expected(attack, st.unit(uid), unit, 0.0, tuple(st.unit(uid).engaged_as),
                                 reach=self.combat_reach) for uid in unit.engaged if st.unit(uid).alive)

    def blows(self, unit: Unit, target: Unit, action: A.Action | None) -> float:
        """What the close-combat attacks of ``action`` (``attack … without Range``) are expected to
        remove of ``target`` once ``unit`` is in contact with it."""
        total = 0.0
        for e in action.effects if action is not None else ():
            attack = self.rules.model.get(e.name or "") if e.kind == "attack" and e.without else None
            if isinstance(attack, A.Attack):
                total += self.expected(attack, unit, target, 0.0, reach=e.reach)
        return total

    def action(self, unit: Unit, action: A.Action, distance: float | None = None) -> float:
        """What taking ``action`` is worth to ``unit`` (at ``distance`` from the enemy, or where it is);
        kept per state but on a table, where states seldom recur (the engine keeps its pick per state)."""
        if self.state.table is not None:
            return self._action(unit, action, distance)
        key = (action.id, distance, self.numbered(unit))
        found = self.memos.actions.get(key)
        if found is None:
            found = self.memos.actions.keep(key, self._action(unit, action, distance))
        return found

    def _action(self, unit: Unit, action: A.Action, distance: float | None) -> float:
        st = self.state
        # an action that only sets statuses gains nothing the resolver can weigh: on a tie, do nothing
        sets_only = self._sets_only.get(action.id)
        if sets_only is None:
            sets_only = self._sets_only[action.id] = all(e.kind == "sets" for e in action.effects)
        best = -1e-3 if sets_only else 0.0
        chance = 1.0
        stays = False  # a move whose best step is 0": the unit would not move at all
        contact: list[tuple[Unit, float]] | None = None  # after an engage: the enemies it may reach
        for e in action.effects:
            if e.kind == "tests" and e.value is not None:
                chance *= self.rules.chance(e.value, unit, None)
            elif e.kind == "sets" and e.name is not None and any(r.requires == e.name for r in self.game.reactions):
                stays = True  # holding a status for a reaction pays only when the reaction beats what it bars
                best = max(best, chance * (self.reaction_value(unit, e.name) - holding.forgone(self, unit, action, e.name)))
            elif e.kind == "move" and e.goal != "enemy":
                worth = self.seize(unit, e) if e.goal != "away" else 0.0
                if worth <= 0:
                    stays = True  # away from the enemy, or nowhere: worth nothing the greedy player can weigh
                best = max(best, worth)
            elif e.kind == "move":
                if distance is None and e.value is not None and self.stays_put(unit, e.value):
                    stays = True
                else:
                    taken = self.taken(unit, e.value) if distance is None and e.value is not None else 0.0
                    best = max(best, 1e-3 + taken)
            elif e.kind == "attack" and e.without and contact is not None:  # the blows of a charge that lands
                attack = self.rules.model.get(e.name or "")
                if isinstance(attack, A.Attack):
                    best = max([best] + [p * self.expected(attack, unit, f, 0.0, reach=e.reach) for f, p in contact])
            elif e.kind == "attack":
                attack = self.rules.attacks.get(e.name or "")
                if isinstance(attack, A.Attack) and distance is None and not picky(e):  # every enemy in sight
                    best = max([best] + [x for _, x in self.volleys(unit, attack, e.reach)])
                elif isinstance(attack, A.Attack) and distance is not None and not picky(e):
                    best = max([best] + self.worths(unit, attack, e.reach, distance))
                elif isinstance(attack, A.Attack):  # at a distance given, equal enemies are worth the same
                    aimed = picky(e)
                    foes = self.in_sight(unit)[1 if distance is not None and not aimed else 0]
                    best = max([best] + [self.expected(attack, unit, f, distance, reach=e.reach, cover=cover)
                                         for f, cover in foes if not aimed or target_of(unit, f, e)])
            elif e.kind == "disengage":
                best = max(best, self.escape(unit))
            elif e.kind == "lowers" and e.name is not None and e.value is not None:
                best = max(best, self.rally(unit, e.name, e.value))
            elif e.kind == "engage" and e.value is not None:
                near = st.nearest_enemy(unit)
                law = law_of(self.rules.value(e.value, unit, distance if distance is not None or near is None
                                              else st.distance(unit, near)))
                engaged = engagement(e)
                extra = tuple(x.name for x in action.effects if x.kind == "sets" and x.name) + engaged
                contact = [(f, reached(law, st.travel(unit, f) if distance is None else distance))
                           for f in st.enemies(unit)]
                contact = [(f, p) for f, p in contact if p > 0]  # each enemy the charge may reach, and its chance
                if not contact:
                    return -1e-3  # nobody to engage: declaring it would do nothing
                best = max([best] + [p * self.charge(unit, f, extra, engaged) for f, p in contact])
        return -1e-3 if stays and best <= 0 else best  # on a tie, hold still and keep the unit free

    def stays_put(self, unit: Unit, value: A.Expr) -> bool:
        """Whether the greedy move of ``value`` inches toward the nearest enemy is 0": nothing it
        could do from nearer is worth more than what it can do from where it stands."""
        return self.nearest(unit)[0] is None or self.step(unit, value)[1] == 0

    def stepped(self, unit: Unit, value: A.Expr) -> tuple[int | None, int] | None:
        """:meth:`step`, when it was worked out in this state (None: it was not)."""
        found: tuple[int | None, int] | None = self.view(unit).answers.get(("step", id(value)))
        return found

    def step(self, unit: Unit, value: A.Expr) -> tuple[int | None, int]:
        """The greedy move of ``value`` inches toward the nearest enemy (there must be one): the
        index of its pick among the steps (None: no choice, 0" only) and the inches; kept in the
        view (the action's worth and the move itself both ask it while the state holds)."""
        v = self.view(unit)
        key = ("step", id(value))
        found: tuple[int | None, int] | None = v.answers.get(key)
        if found is None:
            gap = v.gap
            steps = list(range(0, max(0, int(self.rules.number(value, unit, gap))) + 1))
            if len(steps) == 1:
                found = v.answers[key] = (None, 0)
            else:
                values = self.moves(unit, gap, steps)
                i = values.index(max(values))
                found = v.answers[key] = (i, steps[i])
        return found

    def taken(self, unit: Unit, value: A.Expr) -> float:
        """What the greedy move of ``value`` inches toward the nearest enemy gains in objectives."""
        foe, gap = self.nearest(unit)
        if foe is None or not self.state.objectives:
            return 0.0
        steps = list(range(0, max(0, int(self.rules.number(value, unit, gap))) + 1))
        values = self.moves(unit, gap, steps)
        best = steps[values.index(max(values))]
        return max(0.0, gains.step_gains(self, unit, gap, [best])[0])

    def seize(self, unit: Unit, effect: A.ActionEffect) -> float:
        """What a move toward an objective is worth to ``unit``: what its best step gains in
        objectives (:meth:`goal_steps`), and a little for drawing nearer; 0 when its best step is to
        stay where it is."""
        st = self.state
        if effect.value is None:
            return 0.0
        near = st.nearest_enemy(unit)
        most = max(0, int(self.rules.number(effect.value, unit, None if near is None else st.distance(unit, near))))
        values = self.goal_steps(unit, effect, most)
        best = max(values)
        if values.index(best) == 0:
            return 0.0
        return max(0.0, round(best, 4)) + 1e-3

    def goal_steps(self, unit: Unit, effect: A.ActionEffect, most: int) -> list[float]:
        """Each step of a move toward an objective: :func:`compiler.battle.gains.goal_steps`."""
        return gains.goal_steps(self, unit, effect, most)

    def held_gain(self, unit: Unit, here: tuple[float, float], there: tuple[float, float],
                  markers: Sequence[Marker]) -> float:
        """What moving gains in objectives: :func:`compiler.battle.gains.held_gain`."""
        return gains.held_gain(self, unit, here, there, markers)

    def actions(self, key: tuple[Any, ...], unit: Unit, actions: list[A.Action]) -> list[float]:
        """Each of a phase's actions' estimates (and doing nothing's, last), kept under ``key``
        (a phase's id and the unit's signature), but on a table (see :meth:`action`)."""
        if self.state.table is not None:
            return [self._action(unit, a, None) for a in actions] + [0.0]
        held = self.sig
        key = (key[0], self.numbered(unit)) if held is not None and held[0] is unit and key[1] is held[1] else \
            (self.memos.ids.number(key),)
        found = self.memos.offers.get(key)
        if found is None:
            found = self.memos.offers.keep(key, [self.action(unit, a) for a in actions] + [0.0])
        return list(found)

    def in_sight(self, unit: Unit) -> tuple[tuple[tuple[Unit, tuple[str, ...]], ...], tuple[tuple[Unit, tuple[str, ...]], ...]]:
        """The enemies ``unit`` can see, each with the situations the table sets for a volley at
        it; then the same with one enemy of each kind (profile, models, marks, wounds, points and
        those situations), whose volleys at a given distance are worth the same (:meth:`view`)."""
        v = self.view(unit)
        return v.seen, v.distinct

    def nearest(self, unit: Unit) -> tuple[Unit | None, float]:
        """The enemy nearest ``unit`` (the first placed on a tie; None: none is left) and how far it stands."""
        v = self.view(unit)
        return v.nearest, v.gap

    def view(self, unit: Unit) -> View:
        """What ``unit`` sees of its enemies (:func:`~compiler.battle.view.look`): kept while the
        unit's signature holds (the same signature object: the state has not changed)."""
        held = self.sig
        if held is None or held[0] is not unit:
            return look(self.state, unit)
        v = self._view
        if v is None or v.unit is not unit or self._view_sig is not held[1]:
            v = self._view = look(self.state, unit)
            self._view_sig = held[1]
        return v

    def scan(self, unit: Unit, sign: bool = True) -> Signature | View:
        """``unit``'s signature as it is about to act, held as :attr:`sig` (until the state changes);
        on a table what it sees is looked at in the same pass and kept as :meth:`view` keeps it.
        Without ``sign`` (on a table, where this state's answers will not be kept under its
        signature): what it sees only, held in the signature's stead until :meth:`signature` is
        asked (the engine's :attr:`~compiler.battle.engine.Battle.unsigned` battles: nothing keys
        a position by :attr:`sig` there)."""
        st = self.state
        sig: Signature | View
        if st.table is None:
            sig = signature(st, unit)
        elif sign:
            sig, self._view = scan(st, unit)
            self._view_sig = sig
        else:
            sig = self._view = self._view_sig = look(st, unit)
        self.sig = (unit, sig)
        return sig

    def move_key(self, unit: Unit) -> tuple[Any, ...]:
        """What a move of ``unit`` toward the enemy is worth depends on, besides the gap to the
        nearest enemy (:meth:`moves`): on a table without objectives (see ``lean``), the unit
        itself (all but where it stands), the kinds of enemies it sees (with what the table sets
        for a volley at each), and with an engagement among the later actions, every enemy with
        what the table sets both ways; else the whole :meth:`signature`."""
        if not self.lean:
            return self.signature(unit)
        v = self.view(unit)
        kept: tuple[Any, ...] | None = v.answers.get("move key")  # (the view holds while the state does)
        if kept is not None:
            return kept
        st = self.state
        enemies: tuple[Any, ...] = ()
        if self.lean_engage:
            enemies = tuple([(f.profile, f.models, f.doomed, f.wounds, f.points, f.weapons, tuple(sorted(f.statuses)),
                              tuple(f.values.items()), st.cover(unit, f), st.cover(f, unit))
                             for f in st.enemies(unit)])
        kept = v.answers["move key"] = (
            "lean", unit.profile, unit.models, unit.wounds, unit.doomed, unit.weapons, unit.started, unit.points,
            tuple(sorted(unit.statuses)), tuple(unit.values.items()), tuple(unit.engaged), v.kinds, enemies)
        return kept

    def numbered(self, unit: Unit) -> int:
        """:meth:`signature`'s number (:class:`~compiler.battle.memo.Numbered`), looked up once
        while the state holds."""
        held = self.sig
        if held is None or held[0] is not unit:
            return self.memos.ids.number(signature(self.state, unit))
        sig = held[1] if type(held[1]) is tuple else self.signature(unit)
        kept = self._held
        if kept is None or kept[0] is not sig:
            kept = self._held = (sig, self.memos.ids.number(sig))
        return kept[1]

    def signature(self, unit: Unit) -> Signature:
        """What an estimate for ``unit`` depends on: it, its wounds and statuses, and the enemies
        with their wounds and distances."""
        held = self.sig
        if held is not None and held[0] is unit:
            sig = held[1]
            if type(sig) is tuple:
                return sig  # the state has not changed since it was worked out
            real = signature(self.state, unit)  # held in its stead: the view (see scan)
            self.sig = (unit, real)
            if self._view_sig is sig:
                self._view_sig = real  # (the view holds as long)
            return real
        return signature(self.state, unit)

    def reaction_value(self, unit: Unit, status: str) -> float:
        """What holding ``status`` is worth: :func:`compiler.battle.holding.reaction_value`."""
        return holding.reaction_value(self, unit, status)

    def moves(self, unit: Unit, gap: float, steps: list[int]) -> list[float]:
        """Each move's worth: the best the unit could then do; closing in when nothing is in reach."""
        if not self.lean:
            key: tuple[Any, ...] = (self.game.id, gap, len(steps), self.numbered(unit))
        else:
            # (asked once per state: the greedy move is kept in the view, see step)
            key = (self.game.id, self.bands.run(gap, len(steps)) if self.banded else gap, len(steps),
                   self.move_key(unit))
        found = self.memos.moves.get(key)
        if found is None:
            found = self.memos.moves.keep(key, self._moves(unit, gap, steps))
        return found

    def _moves(self, unit: Unit, gap: float, steps: list[int]) -> list[float]:
        later = [a for p in self.game.phases for a in p.actions
                 if not any(e.kind == "move" for e in a.effects) and not any(unit.has(s) for s in a.unless)]
        # each worked out afresh (not kept per distance: a move's values are kept whole, by moves());
        # banded, once per band of the distance left (the steps of one band are worth the same)
        values: list[float] = []
        band: Any = None
        for d in steps:
            left = max(0.0, gap - d)
            if self.banded:
                b = self.bands.of(left)
                if values and b == band:
                    values.append(values[-1])
                    continue
                band = b
            values.append(max([0.0] + [self._action(unit, a, left) for a in later]))
        if self.state.objectives:  # where the move stops may take (or give up) an objective
            values = [v + g for v, g in zip(values, gains.step_gains(self, unit, gap, steps))]
        lean = 1e-6 if max(values) <= 0 else -1e-6
        return [v + lean * d for v, d in zip(values, steps)]
