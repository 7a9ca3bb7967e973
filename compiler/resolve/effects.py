"""Modifiers and abilities in play: which effects apply, and what they add up to.

:class:`Effects` answers, for one situation and one set of attacking profiles, which
``modifier`` blocks and abilities hold (their conditions are dice-free, worked out with
:mod:`compiler.model.static`), and combines their effects by the stacking rules: plain
effects add up; effects of one named group keep only the largest.  The evaluator asks it
for stat modifiers, roll modifiers, target overrides and extra re-rolls.
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any, Mapping, cast

from compiler import ast as A
from compiler.trace import note
from compiler.model.ruleset import Ruleset
from compiler.model.static import NotStatic, StaticError, as_number
from compiler.model.static import evaluate as static_evaluate
from compiler.model.values import ProfileRef, TargetValue
from compiler.resolve.core import ResolveError, truth

ActiveEffect = tuple[A.Effect, str | None, str]  # (effect, stacking group, source id)
_NONE: frozenset[str] = frozenset()  # no kind, no test: one object for every situation with no effect


class Effects:
    """The effects that apply under one situation, for one set of attackers and roles."""

    def __init__(self, model: Ruleset, situation: Mapping[str, Any], attackers: tuple[ProfileRef, ...],
                 roles: Mapping[str, ProfileRef], hook_effects: tuple[A.Effect, ...] = ()) -> None:
        self.model = model
        self.situation = situation
        self.attackers = attackers
        self.roles = roles
        self.hook_effects = hook_effects  # what hooks did to the one attack being followed
        self._effects: tuple[ActiveEffect, ...] | None = None
        self._abilities: tuple[tuple[A.Ability, Any], ...] | None = None
        self._tests: frozenset[str] | None = None
        self._kinds: frozenset[str] | None = None

    def active_effects(self) -> tuple[ActiveEffect, ...]:
        """Effects that apply now: (effect, group, source id)."""
        if self._effects is None:
            self._effects = self._find_effects()
        return self._effects

    def _find_effects(self) -> tuple[ActiveEffect, ...]:
        out: list[ActiveEffect] = []
        modifiers = self.model.of_type(A.Modifier)
        if not modifiers and not self.hook_effects and not (
                profiles_with_abilities(self.model) and (self.attackers or self.roles)):
            return ()  # nothing in the ruleset could apply
        for m in modifiers:
            if m.when is None or self._holds(m.when):
                out.extend((e, m.group, m.id) for e in m.effects)
        for ability, arg in self.attacker_abilities():
            if ability.effects and (ability.when is None or self._holds(ability.when, ability, arg)):
                out.extend((e, None, ability.id) for e in valued_effects(self.model, ability, arg, False))
        for ability, arg in self.defender_abilities():
            if ability.defence and (ability.when is None or self._holds(ability.when, ability, arg)):
                out.extend((e, None, ability.id) for e in valued_effects(self.model, ability, arg, True))
        out.extend((e, None, "hook") for e in self.hook_effects)
        return tuple(out)

    def ability_holds(self, ability: A.Ability, arg: Any) -> bool:
        """Whether an ability's ``when`` holds now (always, without one): its effects and its
        hooks count only then."""
        return ability.when is None or self._holds(ability.when, ability, arg)

    def _holds(self, cond: A.Expr, ability: A.Ability | None = None, arg: Any = None) -> bool:
        env: dict[str, Any] = {**self.situation, **self.roles}
        if ability is not None and ability.params:
            env[ability.params[0].name] = arg
        try:
            return bool(truth(static_evaluate(cond, env, self.model), cond.span))
        except NotStatic:
            # A condition about an attack's role (``target has vehicle``) asked outside an
            # attack: there is no such profile, so the modifier does not apply.
            return False
        except StaticError as err:
            raise ResolveError(f"cannot tell whether this holds: {err}", cond.span) from None

    def _effect_value(self, e: A.Effect) -> Any:
        value = cast(A.Expr, e.value)  # the effects added up (stat, roll, better, worse) always have one
        try:
            return as_number(static_evaluate(value, dict(self.situation), self.model))
        except (NotStatic, StaticError) as err:
            raise ResolveError(f"a modifier's value must be a number: {err}", value.span) from None

    @staticmethod
    def _combine(items: list[tuple[Any, str | None]]) -> Any:
        total: Any = 0
        best: dict[str, Any] = {}
        for value, group in items:
            if group is None:
                total += value
            elif group not in best or abs(value) > abs(best[group]):
                best[group] = value
        return total + sum(best.values())

    def stat_modifier(self, stat: str, role: str | None, roleless: bool = False) -> Any:
        """What the effects add to ``stat`` (of the profile in ``role``)."""
        if "stat" not in self.kinds():
            return 0
        items = [(self._effect_value(e), g) for e, g, src in self.active_effects()
                 if e.kind == "stat" and e.stat == stat
                 and (e.role is None or (not roleless and e.role == role)) and _used(src)]
        return self._combine(items)

    def stat_improvement(self, stat: str, role: str | None, roleless: bool = False) -> Any:
        """How many steps ``Sv better by 1`` (less ``worse by``) makes the target value ``stat`` easier."""
        if not self.kinds() & {"better", "worse"}:
            return 0
        items = [(self._effect_value(e) * (1 if e.kind == "better" else -1), g) for e, g, src in self.active_effects()
                 if e.kind in ("better", "worse") and e.stat == stat
                 and (e.role is None or (not roleless and e.role == role)) and _used(src)]
        return self._combine(items)

    def roll_modifier(self, test: str) -> Any:
        """What the effects add to the roll of ``test``."""
        items = [(self._effect_value(e), g) for e, g, src in self.active_effects()
                 if e.kind == "roll" and e.test == test and _used(src)]
        return self._combine(items)

    def target_override(self, test: str) -> list[tuple[Any, A.Effect]]:
        """Targets the effects set for ``test`` (``needs 3+``), with the effect that set each."""
        out = []
        for e, _, src in self.active_effects():
            if e.kind == "needs" and e.test == test and e.value is not None and _used(src):
                try:
                    out.append((static_evaluate(e.value, dict(self.situation), self.model), e))
                except (NotStatic, StaticError) as err:
                    raise ResolveError(f"cannot work out this target: {err}", e.value.span) from None
        return out

    def caps(self, test: str) -> list[tuple[Any, bool, A.Effect]]:
        """Caps the effects put on ``test``'s target (``save never better than 4+``): (value,
        whether it is a "never better" cap, the effect)."""
        out = []
        for e, _, _ in self.active_effects():
            if e.kind in ("never_better", "never_worse") and e.test == test and e.value is not None:
                try:
                    value = static_evaluate(e.value, dict(self.situation), self.model)
                except (NotStatic, StaticError) as err:
                    raise ResolveError(f"cannot work out this cap: {err}", e.value.span) from None
                number = value.as_number if isinstance(value, TargetValue) else value
                if isinstance(number, bool) or not isinstance(number, (int, Fraction)):
                    raise ResolveError("a cap on a roll is a target such as 4+ or a number", e.value.span)
                out.append((value, e.kind == "never_better", e))
        return out

    def kinds(self) -> frozenset[str]:
        """The kinds of the effects that apply (``stat``, ``roll``, …): a kind no effect has adds nothing."""
        if self._kinds is None:
            self._kinds = frozenset(e.kind for e, _, _ in self.active_effects()) or _NONE
        return self._kinds

    def names_test(self, test: str) -> bool:
        """Whether some effect that applies names ``test`` (a roll modifier, a target, a cap, a
        re-roll, ``ignores modifiers``, a natural success): if none does, the test rolls as written."""
        if self._tests is None:
            self._tests = frozenset(e.test for e, _, _ in self.active_effects() if e.test) or _NONE
        return test in self._tests

    def ignores_modifiers(self, test: str) -> bool:
        """Whether an effect says the roll modifiers of ``test`` do not count."""
        return any(e.kind == "ignore_modifiers" and e.test == test for e, _, _ in self.active_effects())

    def natural_successes(self, test: str) -> list[tuple[int, bool]]:
        """Faces that pass ``test`` whatever it needs, from hooks that say ``succeeds``
        (``on natural X+ to wound: succeeds``): (face, whether the faces above count too)."""
        out = []
        for e, _, _ in self.active_effects():
            if e.kind == "natural_succeeds" and e.test == test and isinstance(e.value, A.Int):
                out.append((e.value.value, e.role == "from"))
        return out

    def extra_rerolls(self, test: str) -> tuple[str, ...]:
        """Re-rolls the effects grant to ``test``."""
        return tuple(e.reroll for e, _, src in self.active_effects()
                     if e.kind == "reroll" and e.test == test and e.reroll and _used(src))

    def attacker_abilities(self) -> tuple[tuple[A.Ability, Any], ...]:
        """Abilities of the attacking profiles; the same ability twice keeps its highest value."""
        if self._abilities is None:
            self._abilities = self._find_abilities()
        return self._abilities

    def defender_abilities(self) -> tuple[tuple[A.Ability, Any], ...]:
        """Abilities of the profiles an attack is made against: every role that is not an
        attacker (their ``when attacked:`` effects count)."""
        with_abilities = profiles_with_abilities(self.model)
        if not any(ref.id in with_abilities for ref in self.roles.values()):
            return ()  # none of the roles' profiles has an ability
        rest = list(self.roles.values())
        for ref in self.attackers:  # the same profile may stand on both sides: take one copy away
            if ref in rest:
                rest.remove(ref)
        return self._find_abilities(tuple(rest))

    def _find_abilities(self, refs: tuple[ProfileRef, ...] | None = None) -> tuple[tuple[A.Ability, Any], ...]:
        refs = self.attackers if refs is None else refs
        with_abilities = profiles_with_abilities(self.model)
        if not any(ref.id in with_abilities for ref in refs):
            return ()
        found: dict[str, tuple[A.Ability, Any]] = {}
        abilities = abilities_by_id(self.model)
        for ref in refs:
            prof = self.model.profiles.get(ref.id)
            if prof is None:
                continue
            for use in prof.abilities:
                ab = abilities.get(use.ability)
                if ab is None:
                    continue
                if ab.id in found and ab.stacking != "sum":
                    prev = found[ab.id][1]
                    if prev is not None and use.arg is not None and use.arg <= prev:
                        continue
                    if prev is not None and use.arg is None:
                        continue
                if ab.id in found and ab.stacking == "sum" and use.arg is not None:
                    found[ab.id] = (ab, (found[ab.id][1] or 0) + use.arg)
                else:
                    found[ab.id] = (ab, use.arg)
        return tuple(found[k] for k in sorted(found))


def valued_effects(model: Ruleset, ability: A.Ability, arg: Any, defence: bool) -> tuple[A.Effect, ...]:
    """An ability's effects (its ``when attacked:`` ones if ``defence``) with its parameter
    replaced by the value the profile gives it: ``Def of target worse by X`` on a profile
    with ``ap(2)`` is ``worse by 2`` (kept per model, which is immutable)."""
    effects = ability.defence if defence else ability.effects
    if not ability.params or type(arg) is not int:
        return effects
    kept: dict[tuple[str, int, bool], tuple[A.Effect, ...]] = model.__dict__.setdefault("_valued_effects", {})
    key = (ability.id, arg, defence)
    found = kept.get(key)
    if found is None:
        name = ability.params[0].name
        found = kept[key] = tuple(
            dataclasses.replace(e, value=bind_param(e.value, name, arg)) if e.value is not None else e
            for e in effects)
    return found


def bind_param(expr: A.Expr, name: str, value: int) -> A.Expr:
    """``expr`` with the ability parameter ``name`` replaced by its value (``+N D`` → ``+2 D``)."""
    if isinstance(expr, A.Name) and expr.id == name:
        return A.Int(expr.span, value)
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(expr):
        v = getattr(expr, f.name)
        if isinstance(v, A.Expr):
            changes[f.name] = bind_param(v, name, value)
        elif isinstance(v, tuple) and v and all(isinstance(x, A.Expr) for x in v):
            changes[f.name] = tuple(bind_param(x, name, value) for x in v)
    return dataclasses.replace(expr, **changes) if changes else expr


def profiles_with_abilities(model: Ruleset) -> frozenset[str]:
    """The ids of the model's profiles that have an ability (found once per model, which is immutable)."""
    found: frozenset[str] | None = model.__dict__.get("_profiles_with_abilities")
    if found is None:
        found = model.__dict__["_profiles_with_abilities"] = frozenset(
            pid for pid, profile in model.profiles.items() if getattr(profile, "abilities", ()))
    return found


def abilities_by_id(model: Ruleset) -> Mapping[str, A.Ability]:
    """The model's abilities by id (built once per model, which is immutable)."""
    found: dict[str, A.Ability] | None = model.__dict__.get("_abilities_by_id")
    if found is None:
        found = model.__dict__["_abilities_by_id"] = {a.id: a for a in model.of_type(A.Ability)}
    return found


def _used(source: str) -> bool:
    """Record that a modifier or ability changed a number (for ``warscribe test --coverage``)."""
    note(source)
    return True
