"""The battle's view of the rules model: volleys and tests worked out by the resolver, cached.

A volley (one attack sequence, one attacking unit, one weapon, one target) is never rolled die
by die: the resolver works out the exact law of its last step (the models removed) for the
state's numbers — models on each side, the acting unit's statuses as situations, the distance —
and the engine samples one outcome from it.  The laws are cached per state, so a simulation
pays for each distinct state once per process.

Statuses and situations meet here: a status the unit holds that is also a declared situation
(``locked``, ``ran``, ``charging``) is set to yes while the resolver works for that unit (in a
volley, a status the rules read for the side attacked — ``+1 to save when gone_to_ground`` — is
set when the unit shot at holds it, not the shooter: :mod:`compiler.model.sides`), and the
situation ``distance``, when the ruleset declares it, is the distance to the unit's opponent.
"""
from __future__ import annotations

import bisect
from itertools import accumulate
from math import comb
from fractions import Fraction
from dataclasses import dataclass
from typing import Any

from compiler import ast as A
from compiler.battle.joint import CountError, joint_with_count
from compiler.battle.state import Unit
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset
from compiler.model.sides import status_sides
from compiler.model.values import ProfileRef
from compiler.model.static import int_range, stat_value
from compiler.resolve import Evaluator, ResolveError
from compiler.resolve.core import ProfileLacks, is_dist, unwrap
from compiler.resolve.steps import LazySteps
from compiler.trace import active, note_held

_SPAN = Span("<battle>", 0, 0, 0, 0)
# the two units of a volley, bound by names no ruleset can write (a profile with its damage is a value)
_ACTOR = A.Name(_SPAN, "@actor")
_TARGET = A.Name(_SPAN, "@target")
_MISSING = object()
#: The expressions that are a number written out: their value is the same for every unit and distance.
_WRITTEN = (A.Int, A.Decimal, A.Inches)


@dataclass(frozen=True, slots=True)
class Law:
    """A chance node's exact law: its outcomes, their chances (exact fractions when the rules are
    worked out exactly), their cumulative chances for sampling, the mean of its values (0 for a law
    of labels — who goes first, a case taken — whose mean nothing reads).

    A volley's outcome is the models removed (``values``) and the wounds then on the target's
    damaged model (``damaged``, 0 when none is): wounds that do not kill a model stay on it.
    """

    values: tuple[int, ...]
    cumulative: tuple[float, ...]
    mean: float
    probabilities: tuple[Any, ...]
    damaged: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()  # drawn with a step's count (:mod:`compiler.battle.joint`): that count

    def index(self, u: float) -> int:
        """The outcome at uniform draw ``u`` in [0, 1)."""
        i = bisect.bisect_right(self.cumulative, u * self.cumulative[-1])
        return min(i, len(self.values) - 1)

    def sample(self, u: float) -> int:
        """The value at uniform draw ``u`` in [0, 1)."""
        return self.values[self.index(u)]

    def outcomes(self) -> list[tuple[tuple[int, int], Any]]:
        """Each outcome (models removed, wounds on the damaged model) with its exact chance."""
        damaged = self.damaged or (0,) * len(self.values)
        return [((k, d), p) for k, d, p in zip(self.values, damaged, self.probabilities)]


def law_of(value: Any) -> Law:
    """The :class:`Law` of a resolver value (a distribution of whole numbers, or one number)."""
    if not is_dist(value):
        n = int(unwrap(value))
        return Law((n,), (1.0,), float(n), (1.0,))
    probs = value.probabilities()
    items = sorted((int(unwrap(k)), p) for k, p in probs.items() if p > 0)
    return law_over(tuple(k for k, _ in items), tuple(p for _, p in items))


def law_over(values: tuple[int, ...], ps: tuple[Any, ...], mean: float | None = None) -> Law:
    """The :class:`Law` of ``values`` with chances ``ps`` (exact fractions when the resolver gives
    them): their cumulative chances, and the mean of the values unless ``mean`` is given."""
    cum = tuple(accumulate(float(p) for p in ps))
    if mean is None:
        mean = sum(k * float(p) for k, p in zip(values, ps)) / ((cum[-1] if cum else 0.0) or 1.0)
    return Law(values, cum, mean, ps)


def joint_law(weights: dict[tuple[int, int], Any]) -> Law:
    """The :class:`Law` of a volley from its joint law (models removed, wounds on the damaged
    model) → chance, outcomes in order."""
    items = sorted((k, p) for k, p in weights.items() if p)
    cum: list[float] = []
    acc = 0.0
    for _, p in items:
        acc += float(p)
        cum.append(acc)
    mean = sum(k * float(p) for (k, _), p in items) / (acc or 1.0)
    return Law(tuple(k for (k, _), _ in items), tuple(cum), mean, tuple(p for _, p in items),
               tuple(d for (_, d), _ in items))


def counted_law(weights: dict[tuple[int, int, int], Any]) -> Law:
    """The :class:`Law` of a volley drawn with the count of one of its steps, from the joint law
    (count, models removed, wounds on the damaged model) → chance."""
    items = sorted(((r, d, h), p) for (h, r, d), p in weights.items() if p)
    cum: list[float] = []
    acc = 0.0
    for _, p in items:
        acc += float(p)
        cum.append(acc)
    mean = sum(r * float(p) for (r, _, _), p in items) / (acc or 1.0)
    return Law(tuple(r for (r, _, _), _ in items), tuple(cum), mean, tuple(p for _, p in items),
               tuple(d for (_, d, _), _ in items), tuple(h for (_, _, h), _ in items))


def bernoulli(p: Any) -> Law:
    """The law of a test passed with chance ``p``: outcome 1 (passed) first, then 0."""
    q = 1 - p
    return Law((1, 0), (float(p), 1.0), float(p), (p, q))


def uniform(n: int) -> Law:
    """The law of a die of ``n`` sides read as 0 … n-1 (who goes first, among ``n`` sides)."""
    return Law(tuple(range(n)), tuple((k + 1) / n for k in range(n)), (n - 1) / 2, (Fraction(1, n),) * n)


def binomial(n: int, p: Any) -> Law:
    """The law of the successes among ``n`` dice that each succeed with chance ``p`` (exact if it is)."""
    ps = tuple(comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1))
    cum: list[float] = []
    acc = 0.0
    for x in ps:
        acc += float(x)
        cum.append(acc)
    return Law(tuple(range(n + 1)), tuple(cum), float(n * p), ps)


def unanswered(err: ResolveError, attack: A.Attack, weapon: str | None, target: Unit) -> ResolveError:
    """What the rules leave unanswered in a volley, located where it is written and naming the
    attack, the weapon and the target."""
    where = f" with {weapon}" if weapon else ""
    return ResolveError(f"attack '{attack.id}'{where} at {target.profile}: {err.message}",
                        err.span or attack.span, err.hint)


class NotSure(ResolveError, ValueError):
    """What must be sure (a worked-out situation, a status held while engaged) depends on dice:
    located at its condition (``check`` refuses the dice it can see, W871)."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message, span, "work it out from the unit's stats, its statuses or the distance; "
                         "roll the dice in a test or an attack instead")


class Rules:
    """The ruleset as the engine asks it: volleys, tests and unit values, each cached."""

    def __init__(self, model: Ruleset, exact: bool = False) -> None:
        self.model = model
        self.exact = exact
        self.situations = set(model.situations)
        self.stats = {s.id for s in model.of_type(A.Stat)}
        self.statuses = tuple(e.id for e in model.of_type(A.Entry) if e.kind == "status" and e.id not in self.situations)
        sit = model.situations.get("distance")
        self.distance_range = int_range(sit.range) if sit is not None and sit.range is not None else None
        self._volleys: dict[tuple[Any, ...], Law] = {}
        self._values: dict[tuple[Any, ...], Any] = {}
        self._numbers: dict[Any, float] = {}  # what number() made of a value (a number written out: by its id)
        self._written: dict[int, Any] = {}  # the value of a number written out, by its id
        self._chances: dict[tuple[Any, ...], float] = {}
        self._evaluators: dict[tuple[Any, ...], Evaluator] = {}
        self._situations: dict[tuple[Any, ...], tuple[tuple[str, Any], ...]] = {}
        self._usable: dict[tuple[str, str, str | None, str], bool] = {}
        self.derived = tuple(d for g in model.of_type(A.Game) for d in g.derived)
        #: the attacks by id: ``model.get(id)`` when it is an attack, else nothing (read by the battle's hot paths)
        self.attacks: dict[str, A.Attack] = {k: v for k, v in model.symbols.items() if isinstance(v, A.Attack)}
        #: the statuses a volley reads of the unit it is at, not of the shooter (``+1 to save when
        #: gone_to_ground``: :func:`~compiler.model.sides.status_sides`)
        self.defending = status_sides(model).defending

    # -- situations ------------------------------------------------------------------

    def situation(self, unit: Unit, distance: float | None, extra: tuple[str, ...] = (),
                  volley: bool = False) -> tuple[tuple[str, Any], ...]:
        """The situation the resolver works in for ``unit``: its statuses (and ``extra`` ones) that
        are situations, and the distance.  For a ``volley`` of the unit's, its statuses the rules
        read for the side attacked (:attr:`defending`) are left out: those of its target come in
        ``extra``."""
        key: tuple[Any, ...] = (tuple(unit.statuses), extra, None if distance is None else int(round(distance)),
                                tuple(unit.values.items()), volley and bool(self.defending))
        if self.derived:  # the derived situations' conditions read the unit's numbers too
            key += (unit.profile, unit.models, unit.doomed, unit.started, unit.points)
        found = self._situations.get(key)
        if found is None:
            found = self._situations[key] = self._situation(unit, distance, extra, volley)
        return found

    def _situation(self, unit: Unit, distance: float | None, extra: tuple[str, ...],
                   volley: bool = False) -> tuple[tuple[str, Any], ...]:
        held = (set(unit.statuses) - self.defending if volley else set(unit.statuses)) | set(extra)
        out: list[tuple[str, Any]] = [(s, True) for s in sorted(held) if s in self.situations]
        out += sorted((k, v) for k, v in unit.values.items() if k in self.situations)
        if distance is not None and "distance" in self.situations and "distance" not in held:
            d = int(round(distance))
            if self.distance_range is not None:
                d = max(self.distance_range[0], min(self.distance_range[1], d))
            out.append(("distance", d))
        if self.derived and distance is not None:
            out += self._derived(unit, distance, tuple(out))
        return tuple(out)

    def _derived(self, unit: Unit, distance: float, base: tuple[tuple[str, Any], ...]) -> list[tuple[str, Any]]:
        """The game's derived situations for ``unit`` at ``distance`` (``situation … is … when …``)."""
        out: list[tuple[str, Any]] = []
        given = {k for k, _ in base}
        for d in self.derived:
            if d.situation in given:
                continue
            v = self.evaluator(base).evaluate(d.condition, self.env(unit, distance))
            if not d.choice:  # ``is given by TABLE(…)``: the table's row names the choice
                if is_dist(v):
                    raise NotSure(f"the situation '{d.situation}' depends on dice: its table must give one value",
                                  d.condition.span)
                out.append((d.situation, str(unwrap(v))))
                continue
            if is_dist(v):
                p = float(self.evaluator(()).probability(v))
                if p not in (0.0, 1.0):
                    raise NotSure(f"the situation '{d.situation}' depends on dice: its condition must be sure",
                                  d.condition.span)
                v = p == 1.0
            out.append((d.situation, d.choice if unwrap(v) else d.otherwise))
        return out

    def evaluator(self, situation: tuple[tuple[str, Any], ...]) -> Evaluator:
        ev = self._evaluators.get(situation)
        if ev is None:
            ev = self._evaluators[situation] = Evaluator(self.model, exact=self.exact, situation=dict(situation))
        return ev

    # -- volleys ---------------------------------------------------------------------

    def volley(self, attack: A.Attack, actor: Unit, weapon: str | None, target: Unit,
               situation: tuple[tuple[str, Any], ...]) -> Law:
        """The law of the models ``target`` loses when ``actor`` resolves ``attack`` (with ``weapon``),
        and of the wounds then left on its damaged model, from the wounds already on it."""
        left = target.models - target.doomed  # models standing (those marked this phase are gone for a volley)
        key = (attack.id, actor.profile, actor.models, weapon, target.profile, left, target.wounds, situation)
        law = self._volleys.get(key)
        if law is None:
            try:
                law = self._volleys[key] = joint_law(self._resolve(attack, actor, weapon, target, situation, left))
            except ResolveError as err:
                raise unanswered(err, attack, weapon, target) from None
        return law

    def volley_counting(self, attack: A.Attack, actor: Unit, weapon: str | None, target: Unit,
                        situation: tuple[tuple[str, Any], ...], step: str) -> Law:
        """The law of :meth:`volley` drawn together with the count of ``step`` (``hits``), which its
        :attr:`Law.counts` gives (:mod:`compiler.battle.joint`; a :class:`~compiler.battle.joint.CountError`
        when the attack is no chain of tests that counts it)."""
        left = target.models - target.doomed
        key = (attack.id, actor.profile, actor.models, weapon, target.profile, left, target.wounds, situation, step)
        law = self._volleys.get(key)
        if law is None:
            tests = {k: v for k, v in self.model.callables.items() if isinstance(v, A.Test)}
            try:
                steps = self._steps(attack, actor, weapon, target, situation, left)
                law = self._volleys[key] = counted_law(joint_with_count(steps, attack, step, removal_step(attack),
                                                                        tests))
            except CountError:
                raise
            except ResolveError as err:
                raise unanswered(err, attack, weapon, target) from None
        return law

    def usable(self, attack: A.Attack, actor: Unit, weapon: str | None, target: Unit) -> bool:
        """Whether ``attack`` can be resolved with ``weapon`` at all: not when a profile lacks a stat
        the attack reads (:class:`~compiler.resolve.core.ProfileLacks`: a close-combat blade in a
        shooting attack), nor when the attack takes a weapon and the unit has none.  Any other
        question the probe (one model each, no wounds, no situation) leaves unanswered is the
        battle's: :meth:`volley` works it out where it is fought, and reports what it cannot."""
        key = (attack.id, actor.profile, weapon, target.profile)
        ok = self._usable.get(key)
        if ok is None:
            probe_a = Unit(-1, 0, "", actor.profile, actor.weapons, 1, 1, 0, 0.0)
            probe_t = Unit(-1, 1, "", target.profile, target.weapons, 1, 1, 0, 0.0)
            try:
                self._resolve(attack, probe_a, weapon, probe_t, ())
                ok = True
            except ProfileLacks:
                ok = False
            except ResolveError as err:
                ok = err.span is not _SPAN  # at the call's weapon: the unit has none to give it
            self._usable[key] = ok
        return ok

    def reach(self, weapon: str, stat: str) -> float:
        """How far ``weapon`` reaches by its stat ``stat`` (``Range 24"``); -1 without one (``Range -``,
        or no such stat: a blade reaches nobody, not even an enemy in base contact)."""
        key = ("reach", weapon, stat)
        found = self._values.get(key)
        if found is None:
            profile = self.model.profiles.get(weapon)
            sv = profile.stat(stat) if profile is not None else None
            value = sv.value if sv is not None else None
            found = self._values[key] = float(value) if isinstance(value, (int, Fraction)) else -1.0
        return float(found)

    def _resolve(self, attack: A.Attack, actor: Unit, weapon: str | None, target: Unit,
                 situation: tuple[tuple[str, Any], ...], left: int | None = None) -> dict[tuple[int, int], Any]:
        """The joint law of the removal step: (models removed, wounds on the damaged model) → chance."""
        return self._steps(attack, actor, weapon, target, situation, left).removal_state(removal_step(attack))

    def _steps(self, attack: A.Attack, actor: Unit, weapon: str | None, target: Unit,
               situation: tuple[tuple[str, Any], ...], left: int | None = None) -> LazySteps:
        """The attack's steps, worked out for these units (``left``: the target's models standing)."""
        args: list[A.Expr] = [_ACTOR]
        if len(attack.params) > 2:
            args.append(A.Name(_SPAN, weapon or ""))
        args.append(_TARGET)
        call = A.Call(_SPAN, attack.id, _SPAN, tuple(args), ())
        env = {_ACTOR.id: ProfileRef(actor.profile, actor.models),
               _TARGET.id: ProfileRef(target.profile, target.models if left is None else left, target.wounds)}
        steps = self.evaluator(situation).evaluate(call, env).steps
        assert isinstance(steps, LazySteps)  # an attack called with fixed numbers of models
        return steps

    # -- values of one unit ----------------------------------------------------------

    def constant(self, expr: A.Expr) -> float:
        """The value of ``expr`` read for no unit (a score per objective held), as a number (a mean)."""
        key = ("constant", id(expr))
        found = self._values.get(key, _MISSING)
        if found is _MISSING:
            v = self.evaluator(()).evaluate(expr)
            found = self._values[key] = float(v.mean()) if is_dist(v) else float(unwrap(v))
        return float(found)

    def stat(self, profile: str, name: str) -> float:
        """The unit profile's stat ``name`` as a number (0 when it has none, or not a number)."""
        key = ("stat", profile, name)
        found = self._values.get(key, _MISSING)
        if found is _MISSING:
            sv = self.model.profiles[profile].stat(name)
            found = self._values[key] = float(sv.value) if sv is not None and isinstance(sv.value, (int, Fraction)) \
                else 0.0
        return float(found)

    def env(self, unit: Unit, distance: float | None) -> dict[str, Any]:
        """What an expression worked out for ``unit`` may read: its stats, models, started, points, and
        ``unit``, its profile (``unit has fearless``)."""
        profile = self.model.profiles[unit.profile]
        env: dict[str, Any] = {s.stat: stat_value(s) for s in profile.stats if s.kind != "dice"}
        env.update(models=unit.models, started=unit.started, points=unit.points, lost_this_turn=unit.lost_this_turn,
                   marked=unit.doomed, unit=ProfileRef(unit.profile, unit.models))
        for status in self.statuses:  # a status the rules name reads yes while the unit holds it
            env.setdefault(status, status in unit.statuses)
        if distance is not None:
            env["distance_to_enemy"] = int(round(distance))
        return env

    def value(self, expr: A.Expr, unit: Unit, distance: float | None) -> Any:
        """The value of ``expr`` for ``unit`` (a plain value or a distribution); a number written
        out (``6"``) is the same for every unit and distance, and kept as such."""
        if type(expr) in _WRITTEN:
            found = self._written.get(id(expr), _MISSING)
            if found is _MISSING:
                found = self._written[id(expr)] = self._value(_value_key(expr, unit, distance), expr, unit, distance)
            return found
        return self._value(_value_key(expr, unit, distance), expr, unit, distance)

    def _value(self, key: tuple[Any, ...], expr: A.Expr, unit: Unit, distance: float | None) -> Any:
        found = self._values.get(key, _MISSING)
        if found is _MISSING:
            if (unit.statuses or unit.values) and active():
                self.note_read(expr, unit)
            situation = self.situation(unit, distance)
            ev = self.evaluator(situation)
            found = self._values[key] = ev.evaluate(expr, self.env_in(ev, unit, distance))
        return found

    def note_read(self, expr: A.Expr, unit: Unit) -> None:
        """Coverage: the statuses ``unit`` holds, and its counters, that ``expr`` reads by name took effect."""
        names = [e.id for e in A.sub_expressions(expr) if isinstance(e, A.Name)]
        note_held(unit.statuses, names)
        note_held(unit.values, names)

    def env_in(self, ev: Evaluator, unit: Unit, distance: float | None) -> dict[str, Any]:
        """:meth:`env` with the unit's stats as the situation of ``ev`` modifies them (``-s_points
        Ld``): a stat passed on by its name (``morale(Ld)``) is taken as already modified."""
        env = self.env(unit, distance)
        kinds = ev.effects.kinds()
        if not kinds & {"stat", "better", "worse"}:
            return env
        for stat in self.stats & env.keys():
            value = env[stat]
            if value is None:
                continue
            delta = ev.effects.stat_modifier(stat, None, roleless=True)
            if delta:
                value = ev.add_to_stat(value, delta, stat, _SPAN)
            better = ev.effects.stat_improvement(stat, None, roleless=True)
            env[stat] = ev.improve_stat(value, better, stat, _SPAN) if better else value
        return env

    def number(self, expr: A.Expr, unit: Unit, distance: float | None) -> float:
        """The value of ``expr`` for ``unit`` as a number (a distribution's mean), kept as :meth:`value` is."""
        key: Any = id(expr) if type(expr) in _WRITTEN else _value_key(expr, unit, distance)
        found = self._numbers.get(key)
        if found is None:
            v = self.value(expr, unit, distance)
            found = self._numbers[key] = float(v.mean()) if is_dist(v) else float(unwrap(v))
        return found

    def against(self, expr: A.Expr, unit: Unit, foe: Unit) -> bool:
        """Whether the yes/no expression ``expr`` holds for ``unit`` against the enemy ``foe`` (read
        as ``foe.PC``); it must not depend on dice."""
        key = ("against", id(expr), unit.profile, unit.models, foe.profile, foe.models)
        found = self._values.get(key, _MISSING)
        if found is _MISSING:
            env = self.env(unit, None)
            env["foe"] = ProfileRef(foe.profile, foe.models)
            v = self.evaluator(self.situation(unit, None)).evaluate(expr, env)
            if is_dist(v):
                p = float(self.evaluator(()).probability(v))
                if p not in (0.0, 1.0):
                    raise NotSure("a status held while engaged depends on dice: its condition must be sure", expr.span)
                v = p == 1.0
            found = self._values[key] = bool(unwrap(v))
        return bool(found)

    def odds(self, expr: A.Expr, unit: Unit, distance: float | None) -> Any:
        """The chance that ``expr`` holds for ``unit``, exact (a fraction) when the rules are worked
        out exactly: what a chance node's law is made of."""
        if not self.exact:
            return self.chance(expr, unit, distance)
        v = self._value(_value_key(expr, unit, distance), expr, unit, distance)
        return self.evaluator(()).probability(v) if is_dist(v) else Fraction(1 if unwrap(v) else 0)

    def chance(self, expr: A.Expr, unit: Unit, distance: float | None) -> float:
        """The chance that the yes/no expression ``expr`` (a test, a condition) holds for ``unit``, kept
        as :meth:`value` is."""
        key = _value_key(expr, unit, distance)
        found = self._chances.get(key)
        if found is None:
            v = self._value(key, expr, unit, distance)
            if is_dist(v):
                found = float(self.evaluator(()).probability(v))
            else:
                found = 1.0 if unwrap(v) else 0.0
            self._chances[key] = found
        return found


def _value_key(expr: A.Expr, unit: Unit, distance: float | None) -> tuple[Any, ...]:
    """What :meth:`Rules.value` keeps a value under: the expression, the unit's numbers and statuses, the distance."""
    return (id(expr), unit.profile, unit.models, unit.doomed, unit.started, tuple(unit.statuses),
            None if distance is None else int(round(distance)), tuple(unit.values.items()) if unit.values else (),
            unit.lost_this_turn)


def removal_step(attack: A.Attack) -> str:
    """The step of an attack whose count is the models removed: its last ``removes`` step (``check``
    refuses a battle that uses an attack without one)."""
    return [s.name for s in attack.steps if s.removes_from is not None][-1]
