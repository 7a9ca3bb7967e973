"""Army lists as the rules see them: the units of a list with their points, and the army rules they break.

A list's line ``5 space_marine with boltgun`` is a unit of five models of a unit profile (with
those weapons, else the profile's own); ``10 space_marine_squad`` is a squad of that datasheet at
that size, with its weapons and its points; ``1 captain as warlord`` names the army's warlord,
``5 scout_squad in reserve`` holds a unit back in reserve and ``… in detachment 2`` puts it in the
army's second detachment.  :func:`check_army` evaluates the
``require`` lines of an ``army`` declaration on a list — points, squads, units, models, warlords,
points in reserve — and its ``require each unit:`` lines on each unit (:func:`unit_quantities`: its
models, points, weapons, keywords, stats), and each failure keeps the requirement's line, so that whoever reports it can
cite the rule.  A requirement that reads a quantity no list file can show (:data:`UNKNOWN`) is
neither met nor broken: :func:`unchecked_requirements` names it, with the reason.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Iterator

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset
from compiler.model.static import NotStatic, StaticError, evaluate
from compiler.syntax.unparse import expr_text


#: The words of a squad out of its size range, and of a unit's name in a list of more than one:
#: :func:`check_army` fills them in, and so does the army builder's page (compiler.model.army_data).
SIZE_MESSAGE = "{label} has {models} models; a {squad} has {low} to {high}"
LABEL_MANY = "{title} {number}"
#: The words of a unit that breaks a ``require each unit:`` line: its label, then the requirement's message.
UNIT_MESSAGE = "{label}: {message}"

#: The quantities of one unit a ``require each unit:`` line may read besides its keywords (1 if the
#: unit has it, else 0), its weapons' abilities (how many of its weapons have it), each weapon (how
#: many times the unit is listed with it) and its profile's stats (a number; none for ``-``).
UNIT_NAMES = {
    "models": "the unit's models",
    "points": "the unit's points",
    "weapons": "the weapons the unit is listed with (else its profile's or squad's own)",
    "melee_weapons": "its weapons whose Range is `-`, \"melee\" or \"close combat\"",
    "ranged_weapons": "its weapons with a Range of a distance",
}

#: The roles a keyword may have (``keyword hq "HQ" role characters``), each with the quantity it gives:
#: ``characters`` counts the units that have the keyword, ``special_points`` adds up their points.
KEYWORD_ROLES = {"characters": "characters", "special": "special_points"}

#: The quantities a requirement may read that a list file cannot show unless a keyword of the ruleset
#: has their role, each with the reason in words: a requirement reading one is then reported as
#: unchecked, never met or broken on a made-up value.
UNKNOWN = {
    "characters": "no keyword of the ruleset is `role characters`, so a list cannot say which of its units "
                  "are characters",
    "special_points": "no keyword of the ruleset is `role special`, so a list cannot say which of its units' "
                      "points are special points",
}


@dataclass(frozen=True, slots=True)
class ListedUnit:
    """A unit of an army list, with what it costs."""

    label: str
    profile: str
    squad: str | None
    models: int
    weapons: tuple[str, ...]
    points: int  # the whole unit
    per_model: int
    span: Span
    warlord: bool = False  # ``as warlord``
    reserve: bool = False  # ``in reserve``
    detachment: int = 1  # ``in detachment 2``


@dataclass(frozen=True, slots=True)
class Violation:
    """A requirement of the army rules that a list breaks."""

    army: str
    army_title: str
    requirement: str
    message: str
    span: Span
    unit: Span | None = None  # the list line of the unit it is about (a rule on each unit, a squad's size)


def is_melee_range(reach: Any) -> bool:
    """Whether a weapon's Range stat, as written, makes it a melee weapon: ``-``, "melee" or
    "close combat" (a distance makes it ranged; the army rules and the unit cards read it alike)."""
    return bool(reach.kind == "none" or (reach.kind == "text"
                                         and str(reach.value).strip().casefold() in ("melee", "close combat")))


def weapon_quantities(model: Ruleset, weapon: str) -> dict[str, int]:
    """What one weapon a unit is listed with adds to the unit's quantities (:data:`UNIT_NAMES`): one
    weapon, one of its kind (melee or ranged, by its Range; neither without one), one of itself and one
    for each ability it has."""
    profile = model.profiles.get(weapon)
    out = {"weapons": 1, weapon: 1}
    reach = profile.stat("Range") if profile is not None else None
    if reach is not None:
        out["melee_weapons" if is_melee_range(reach) else "ranged_weapons"] = 1
    for a in (profile.abilities if profile is not None else ()):
        out[a.ability] = out.get(a.ability, 0) + 1
    return out


def unit_quantities(model: Ruleset, unit: ListedUnit) -> dict[str, Any]:
    """The numbers a ``require each unit:`` line may name, for one unit of a list (:data:`UNIT_NAMES`;
    a stat the profile gives as ``-`` or as dice is absent: a requirement reading it is neither met nor
    broken by that unit)."""
    squad = next((q for q in model.of_type(A.Squad) if q.id == unit.squad), None)
    profile = model.profiles.get(unit.profile)
    have = {k for k, _ in (squad.keywords if squad else ())} | {k for k, _ in (profile.keywords if profile else ())}
    env: dict[str, Any] = {k.id: int(k.id in have) for k in model.of_type(A.Entry) if k.kind == "keyword"}
    env |= {a.id: 0 for a in model.of_type(A.Ability)}
    env |= {w.id: 0 for w in model.profiles.values() if w.kind == "weapon"}
    for s in (profile.stats if profile is not None else ()):
        if s.kind in ("int", "high", "low", "inches") and isinstance(s.value, int) and s.dice is None:
            env[s.stat] = s.value
    env |= {"models": unit.models, "points": unit.points, "weapons": 0, "melee_weapons": 0, "ranged_weapons": 0}
    for w in unit.weapons:
        for k, n in weapon_quantities(model, w).items():
            env[k] = env.get(k, 0) + n
    return env


def listed_units(model: Ruleset, side: A.Side) -> list[ListedUnit]:
    """A side's army list, unit by unit, with the points of each (its names must be defined)."""
    squads = {q.id: q for q in model.of_type(A.Squad)}
    out: list[ListedUnit] = []
    for i, entry in enumerate(side.units, 1):
        squad = squads.get(entry.name)
        if squad is not None and squad.unit is not None:
            profile = model.profiles[squad.unit]
            base, extra = squad_points(squad)
            low = squad.min_models if squad.min_models is not None else entry.count
            points = base + extra * max(0, entry.count - low)
            weapons = entry.weapons or tuple(w for w, _ in squad.weapons) or tuple(w for w, _ in profile.weapons)
            per_model = profile.points if profile.points is not None else round(points / max(entry.count, 1))
            title = squad.title
        else:
            profile = model.profiles[entry.name]
            per_model = profile.points or 0
            points = per_model * entry.count
            weapons = entry.weapons or tuple(w for w, _ in profile.weapons)
            title = profile.title
        label = LABEL_MANY.format(title=title, number=i) if len(side.units) > 1 else title
        out.append(ListedUnit(label, profile.id, squad.id if squad else None, entry.count, weapons, points,
                              per_model, entry.span, entry.warlord, entry.reserve, entry.detachment))
    return out


def squad_points(squad: A.Squad) -> tuple[int, int]:
    """A squad's cost at its smallest size and per extra model."""
    return (squad.points or 0, squad.points_per_extra or 0)


def army_quantities(model: Ruleset, units: list[ListedUnit], limit: int) -> dict[str, Any]:
    """The numbers a ``require`` line may name, for one army list: a keyword counts the units that have
    it, ``warlords`` the units marked ``as warlord`` (``reserve_warlords`` those of them ``in reserve``),
    ``reserve_points`` the points of the units ``in reserve``, ``detachments`` the detachments its
    units belong to (``in detachment 2``; a unit without the mark is in the first: an empty list has
    none); ``characters`` and ``special_points`` count the units with the keyword of that role
    (:data:`KEYWORD_ROLES`), and are not among them when no keyword has it (:data:`UNKNOWN`)."""
    counts: dict[str, Any] = {k.id: 0 for k in model.of_type(A.Entry) if k.kind == "keyword"}
    roles = {k.role: k.id for k in model.of_type(A.Entry) if k.kind == "keyword" and k.role in KEYWORD_ROLES}
    by_role: dict[str, Any] = {KEYWORD_ROLES[r]: 0 for r in roles}
    squads = {q.id: q for q in model.of_type(A.Squad)}
    for u in units:
        squad = squads.get(u.squad or "")
        profile = model.profiles.get(u.profile)
        have = {k for k, _ in (squad.keywords if squad else ())} | {k for k, _ in (profile.keywords if profile else ())}
        for k in have:
            if k in counts:
                counts[k] += 1
        if roles.get("characters") in have:
            by_role["characters"] += 1
        if roles.get("special") in have:
            by_role["special_points"] += u.points
    return {
        **counts, **by_role,
        "points": sum(u.points for u in units), "limit": limit, "squads": len(units), "units": len(units),
        "models": sum(u.models for u in units), "detachments": len({u.detachment for u in units}),
        "warlords": sum(1 for u in units if u.warlord),
        "reserve_warlords": sum(1 for u in units if u.warlord and u.reserve),
        "reserve_points": sum(u.points for u in units if u.reserve),
    }


@dataclass(frozen=True, slots=True)
class Unchecked:
    """A requirement that no list file can meet or break: it reads a quantity of :data:`UNKNOWN`."""

    army: str
    army_title: str
    requirement: str
    message: str
    why: str
    span: Span


def names_read(expr: Any) -> Iterator[str]:
    """Every name an expression reads, through all its parts."""
    if isinstance(expr, A.Name):
        yield expr.id
    if is_dataclass(expr):
        for f in fields(expr):
            yield from names_read(getattr(expr, f.name))
    elif isinstance(expr, tuple):
        for x in expr:
            yield from names_read(x)


def unknown_reason(model: Ruleset, req: A.Requirement) -> str | None:
    """Why no list can meet or break ``req`` (the reasons of the quantities of :data:`UNKNOWN` it reads,
    unless a keyword of ``model`` has their role, or their name: then it counts the units that have it),
    or None."""
    keywords = {k.id for k in model.of_type(A.Entry) if k.kind == "keyword"} | \
        {KEYWORD_ROLES[k.role] for k in model.of_type(A.Entry) if k.kind == "keyword" and k.role in KEYWORD_ROLES}
    unknown = sorted({n for n in names_read(req.expr) if n in UNKNOWN and n not in keywords})
    return "; ".join(UNKNOWN[n] for n in unknown) or None


def unchecked_requirements(model: Ruleset, army: A.Army) -> list[Unchecked]:
    """The requirements of ``army`` that a list file cannot show to be met or broken, in their order."""
    out = []
    for req in army.requires:
        why = unknown_reason(model, req)
        if why is not None:
            text = requirement_text(req)
            out.append(Unchecked(army.id, army.title, text, req.message or text, why, req.span))
    return out


def check_army(model: Ruleset, army: A.Army, units: list[ListedUnit], limit: int | None = None) -> list[Violation]:
    """Every requirement of ``army`` that the list ``units`` breaks, and every squad out of its size range
    (``limit`` is the game's size among the army's ``points``, by default the first); a requirement of
    :func:`unchecked_requirements` is neither."""
    out: list[Violation] = []
    if limit is None:
        limit = army.points[0] if army.points else 0
    env = army_quantities(model, units, limit)
    for req in army.requires:
        if unknown_reason(model, req) is not None:
            continue  # neither met nor broken: unchecked_requirements says so
        try:
            ok = evaluate(req.expr, env, model)
        except (NotStatic, StaticError):
            continue  # it cannot be worked out on this list (a division by zero)
        if ok is False:
            text = requirement_text(req)
            detail = ", ".join(f"{k} = {env[k]}" for k in shown_quantities(text, env))
            out.append(Violation(army.id, army.title, text, (req.message or text) + (f" ({detail})" if detail else ""),
                                 req.span))
    for req in army.unit_requires:
        text = requirement_text(req)
        for u in units:
            quantities = unit_quantities(model, u)
            try:
                ok = evaluate(req.expr, quantities, model)
            except (NotStatic, StaticError):
                continue  # it cannot be worked out on this unit (a stat it gives as `-`)
            if ok is False:
                detail = ", ".join(f"{k} = {quantities[k]}" for k in shown_quantities(text, quantities))
                message = UNIT_MESSAGE.format(label=u.label, message=req.message or text)
                out.append(Violation(army.id, army.title, f"each unit: {text}",
                                     message + (f" ({detail})" if detail else ""), req.span, u.span))
    squads = {q.id: q for q in model.of_type(A.Squad)}
    for u in units:
        squad = squads.get(u.squad or "")
        if squad is None or squad.min_models is None or squad.max_models is None:
            continue
        lo, hi = squad.min_models, squad.max_models
        if not lo <= u.models <= hi:
            out.append(Violation(squad.id, squad.title, f"models {lo}..{hi}",
                                 SIZE_MESSAGE.format(label=u.label, models=u.models, squad=squad.title, low=lo, high=hi),
                                 squad.span, u.span))
    return out


def requirement_text(req: A.Requirement) -> str:
    """A requirement as written (``points <= limit``): the message of one that has none."""
    return str(expr_text(req.expr))


def shown_quantities(text: str, quantities: Any) -> list[str]:
    """The quantities a violation of the requirement ``text`` shows with their values: those named in it."""
    return [k for k in sorted(quantities) if re.search(rf"(?<![\w.]){re.escape(k)}(?!\w)", text)]
