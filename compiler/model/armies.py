"""Army lists as the rules see them: the units of a list with their points, and the army rules they break.

A list's line ``5 space_marine with boltgun`` is a unit of five models of a unit profile (with
those weapons, else the profile's own); ``10 space_marine_squad`` is a squad of that datasheet at
that size, with its weapons and its points.  :func:`check_army` evaluates the ``require`` lines of
an ``army`` declaration on a list — points, squads, units, models — and each failure keeps the
requirement's line, so that whoever reports it can cite the rule.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset
from compiler.model.static import NotStatic, StaticError, evaluate
from compiler.syntax.unparse import expr_text


#: The words of a squad out of its size range, and of a unit's name in a list of more than one:
#: :func:`check_army` fills them in, and so does the army builder's page (compiler.model.army_data).
SIZE_MESSAGE = "{label} has {models} models; a {squad} has {low} to {high}"
LABEL_MANY = "{title} {number}"


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


@dataclass(frozen=True, slots=True)
class Violation:
    """A requirement of the army rules that a list breaks."""

    army: str
    army_title: str
    requirement: str
    message: str
    span: Span


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
                              per_model, entry.span))
    return out


def squad_points(squad: A.Squad) -> tuple[int, int]:
    """A squad's cost at its smallest size and per extra model."""
    return (squad.points or 0, squad.points_per_extra or 0)


def army_quantities(model: Ruleset, units: list[ListedUnit], limit: int) -> dict[str, Any]:
    """The numbers a ``require`` line may name, for one army list; a keyword counts the units that have it."""
    counts: dict[str, Any] = {k.id: 0 for k in model.of_type(A.Entry) if k.kind == "keyword"}
    squads = {q.id: q for q in model.of_type(A.Squad)}
    for u in units:
        squad = squads.get(u.squad or "")
        profile = model.profiles.get(u.profile)
        have = {k for k, _ in (squad.keywords if squad else ())} | {k for k, _ in (profile.keywords if profile else ())}
        for k in have:
            if k in counts:
                counts[k] += 1
    return {
        **counts,
        "points": sum(u.points for u in units), "limit": limit, "squads": len(units), "units": len(units),
        "models": sum(u.models for u in units), "reserve_points": 0, "special_points": 0, "detachments": 1,
        "characters": 0, "warlords": 0,
    }


def check_army(model: Ruleset, army: A.Army, units: list[ListedUnit], limit: int | None = None) -> list[Violation]:
    """Every requirement of ``army`` that the list ``units`` breaks, and every squad out of its size range
    (``limit`` is the game's size among the army's ``points``, by default the first)."""
    out: list[Violation] = []
    if limit is None:
        limit = army.points[0] if army.points else 0
    env = army_quantities(model, units, limit)
    for req in army.requires:
        try:
            ok = evaluate(req.expr, env, model)
        except (NotStatic, StaticError):
            continue  # a requirement on quantities lists do not carry yet (reserves, warlords…)
        if ok is False:
            text = requirement_text(req)
            detail = ", ".join(f"{k} = {env[k]}" for k in shown_quantities(text, env))
            out.append(Violation(army.id, army.title, text, (req.message or text) + (f" ({detail})" if detail else ""),
                                 req.span))
    squads = {q.id: q for q in model.of_type(A.Squad)}
    for u in units:
        squad = squads.get(u.squad or "")
        if squad is None or squad.min_models is None or squad.max_models is None:
            continue
        lo, hi = squad.min_models, squad.max_models
        if not lo <= u.models <= hi:
            out.append(Violation(squad.id, squad.title, f"models {lo}..{hi}",
                                 SIZE_MESSAGE.format(label=u.label, models=u.models, squad=squad.title, low=lo, high=hi),
                                 squad.span))
    return out


def requirement_text(req: A.Requirement) -> str:
    """A requirement as written (``points <= limit``): the message of one that has none."""
    return str(expr_text(req.expr))


def shown_quantities(text: str, quantities: Any) -> list[str]:
    """The quantities a violation of the requirement ``text`` shows with their values: those named in it."""
    return [k for k in sorted(quantities) if k in text]
