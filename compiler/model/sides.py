"""Whose status a situation is in a volley: the attacker's or the unit attacked.

A status that is also a situation (``status gone_to_ground`` and ``situation gone_to_ground``) is
set while the resolver works for a unit that holds it.  In a volley two units meet, and the rules
say by what the situation changes whose status it is: a modifier whose ``when`` reads it and that
changes a roll or a stat of the side attacked (``+1 to save when gone_to_ground``, where the attack
calls ``save(target.Sv)``; ``+1 T of target when …``; an ability's ``when attacked:`` effects)
describes the unit attacked; one that changes the attacker's rolls or stats (``-1 to hit when
ran``, a step that reads it) describes the attacker.  A modifier on a roll or stat no attack makes
(a unit's own test) fits either.

:func:`status_sides` sorts the statuses so: those only the attacked side's rolls read are
*defending* (in a volley they come from the target's statuses, not the shooter's), and those read
by both sides are conflicts, which ``check`` refuses (W867): one situation cannot be both units'.

For instance ``+1 to save when gone_to_ground``, with an attack that calls ``save(target.Sv)``, makes
``gone_to_ground`` defending: a volley at a unit that holds it is worked out with it set.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset

ATTACKER, DEFENDER, OWN = "attacker", "defender", "own"


@dataclass(frozen=True, slots=True)
class Reader:
    """A declaration that reads a status's situation, and the side of a volley it reads it for."""

    name: str  # the modifier or ability (or attack) that reads it
    span: Span
    side: str  # ATTACKER, DEFENDER or OWN


@dataclass(frozen=True, slots=True)
class Sides:
    """The statuses read only for the side attacked, and those read for both sides."""

    defending: frozenset[str] = frozenset()
    #: status → its readers, for a status that some read for the attacked side and others for the attacker
    conflicts: dict[str, tuple[Reader, ...]] = field(default_factory=dict)


def _reads(expr: A.Expr | None, name: str) -> bool:
    return expr is not None and any(isinstance(e, A.Name) and e.id == name for e in A.sub_expressions(expr))


def _roles(expr: A.Expr, params: set[str]) -> set[str]:
    return {e.id for e in A.sub_expressions(expr) if isinstance(e, A.Name) and e.id in params}


def _test_sides(model: Ruleset) -> dict[str, set[str]]:
    """Each test an attack calls → the sides of the volley whose profiles its arguments read
    (``save(target.Sv)``: the defender; ``hit(shooter.BS)``: the attacker; ``wound(weapon.S,
    target.T)``: both); and each stat an attack reads of a profile, as ``.Sv`` → the sides whose
    profiles it is read of."""
    out: dict[str, set[str]] = {}
    for attack in model.of_type(A.Attack):
        params = {p.name for p in attack.params}
        defender = attack.defender()
        for step in attack.steps:
            for part in (step.value, step.damage):
                if part is None:
                    continue
                for e in A.sub_expressions(part):
                    if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.id in params:
                        out.setdefault("." + e.name, set()).add(DEFENDER if e.obj.id == defender else ATTACKER)
                    if isinstance(e, A.Call):
                        roles: set[str] = set()
                        for arg in e.args:
                            roles |= _roles(arg, params)
                        sides = out.setdefault(e.func, set())
                        sides |= {DEFENDER if r == defender else ATTACKER for r in roles}
    return out


def _effect_side(effect: A.Effect, tests: dict[str, set[str]], defenders: set[str]) -> str:
    if effect.role is not None:
        return DEFENDER if effect.role in defenders else ATTACKER
    if effect.test is not None:
        sides = tests.get(effect.test)
        if sides is None:
            return OWN  # a test no attack makes: the unit's own
        return DEFENDER if sides == {DEFENDER} else ATTACKER
    if effect.stat is not None:  # ``+1 Sv``: wherever the attacks read it
        sides = tests.get("." + effect.stat)
        if sides is None:
            return OWN
        return DEFENDER if sides == {DEFENDER} else ATTACKER
    return OWN


def held_statuses(model: Ruleset) -> set[str]:
    """The names a unit may hold as statuses in a battle: the declared statuses, and whatever the
    games' effects set (``sets ran``, ``engage … as locked``)."""
    out = {e.id for e in model.of_type(A.Entry) if e.kind == "status"}
    stack: list[Any] = list(model.of_type(A.Game))
    while stack:
        x = stack.pop()
        if isinstance(x, A.ActionEffect) and x.kind in ("sets", "engage") and x.name:
            out.add(x.name)
            out |= set(getattr(x, "also", ()) or ())
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif is_dataclass(x) and not isinstance(x, (A.Expr, Span)):
            stack.extend(getattr(x, f.name) for f in fields(x))
    return out


def status_sides(model: Ruleset) -> Sides:
    """Sort the statuses that are situations by the side of a volley the rules read them for."""
    statuses = held_statuses(model) & set(model.situations)
    if not statuses:
        return Sides()
    tests = _test_sides(model)
    defenders = {d for a in model.of_type(A.Attack) if (d := a.defender()) is not None}
    readers: dict[str, list[Reader]] = {s: [] for s in statuses}
    for status in sorted(statuses):
        for mod in model.of_type(A.Modifier):
            if _reads(mod.when, status):
                for eff in mod.effects:
                    readers[status].append(Reader(mod.id, mod.span, _effect_side(eff, tests, defenders)))
        for ab in model.of_type(A.Ability):
            if _reads(ab.when, status):
                readers[status] += [Reader(ab.id, ab.span, _effect_side(eff, tests, defenders)) for eff in ab.effects]
                readers[status] += [Reader(ab.id, ab.span, DEFENDER) for _ in ab.defence]
        for attack in model.of_type(A.Attack):
            if any(_reads(part, status) for s in attack.steps for part in (s.value, s.damage)) or \
                    any(_reads(let.value, status) for let in attack.lets):
                readers[status].append(Reader(attack.id, attack.span, ATTACKER))
    defending, conflicts = set(), {}
    for status, found in readers.items():
        sides = {r.side for r in found} - {OWN}
        if sides == {DEFENDER}:
            defending.add(status)
        elif sides == {DEFENDER, ATTACKER}:
            conflicts[status] = tuple(found)
    return Sides(frozenset(defending), conflicts)
