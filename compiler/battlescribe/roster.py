"""A BattleScribe roster (.ros, or zipped .rosz) read as an army list of a ruleset.

Each unit a force of the roster selected becomes a line of the list: the ruleset's squad or unit
of the same name (a roster names its entries as the catalogue does; a catalogue written by
``export --battlescribe`` also carries the ids), with its model count — the sum of the models
selected inside it, or the selection's own number for a single model — and the weapons selected
with it that the ruleset knows.  A unit with a category named "Warlord", or holding a selection of
that name (as the 40k data files mark the one the player picked), is the list's ``as warlord``.
A selection the ruleset has no unit for is reported by name; upgrades with no unit of their own
are part of the unit they sit in.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from lxml import etree

from compiler import ast as A
from compiler.battlescribe.data import slug
from compiler.battlescribe.versions import read_data
from compiler.battlescribe.xmlfile import DataError, attr, children, local
from compiler.model.ruleset import Ruleset


@dataclass(frozen=True, slots=True)
class RosterUnit:
    """A unit of a roster, named as the ruleset names it."""

    name: str  # the squad's or unit's id
    count: int
    weapons: tuple[str, ...]
    label: str  # as the roster shows it
    warlord: bool = False  # the roster marks it its army's warlord


@dataclass(frozen=True, slots=True)
class Roster:
    """A roster's units, the selections the ruleset has no unit for, and the points the roster itself counts."""

    title: str
    units: tuple[RosterUnit, ...]
    unknown: tuple[str, ...]
    points: int | None
    forces: tuple[str, ...] = ()  # the names of its forces (the army rules they were built with)
    limit: int | None = None  # the points limit the player set


def _lookup(model: Ruleset) -> tuple[dict[str, str], set[str]]:
    names: dict[str, str] = {}
    units = [p for p in model.profiles.values() if p.kind == "unit"]
    named: list[A.Squad | A.Profile] = [*model.of_type(A.Squad), *units]
    for d in named:
        for key in (d.id, slug(d.id), slug(d.title)):
            names.setdefault(key, d.id)
    weapons = {p.id for p in model.profiles.values() if p.kind == "weapon"}
    return names, weapons


def _id_of(sel: etree._Element, names: dict[str, str]) -> str | None:
    entry = attr(sel, "entryId").split("::")[-1]
    for prefix in ("ws-squad-", "ws-unit-", "ws-model-", "ws-weapon-"):
        if entry.startswith(prefix) and entry[len(prefix):] in names:
            return names[entry[len(prefix):]]
    return names.get(slug(attr(sel, "name")))


def _number(sel: etree._Element) -> int:
    try:
        return max(int(attr(sel, "number", "1")), 0)
    except ValueError:
        return 1


def _models_and_weapons(sel: etree._Element, names: dict[str, str], weapons: set[str],
                        depth: int = 0) -> tuple[int, list[str]]:
    models, found = 0, []
    for sub in children(sel, "selections", "selection"):
        if attr(sub, "type") == "model":
            models += _number(sub)
        sid = _id_of(sub, names) if attr(sub, "type") == "upgrade" else None
        key = slug(attr(sub, "name"))
        if sid is None and key in weapons:
            sid = key
        if sid in weapons and sid not in found:
            found.append(sid)
        if depth < 16:
            more, extra = _models_and_weapons(sub, names, weapons, depth + 1)
            if attr(sub, "type") != "model":
                models += more
            found += [w for w in extra if w not in found]
    return models, found


def _is_warlord(sel: etree._Element) -> bool:
    """Does the roster mark this unit the warlord: a category or a selection (at any depth, up to 16) named so?"""
    todo, depth = [sel], 0
    while todo and depth <= 16:
        nxt = []
        for s in todo:
            if any(slug(attr(c, "name")) == "warlord" for c in children(s, "categories", "category")):
                return True
            for sub in children(s, "selections", "selection"):
                if slug(attr(sub, "name")) == "warlord":
                    return True
                nxt.append(sub)
        todo, depth = nxt, depth + 1
    return False


def read_roster(path: Path, model: Ruleset) -> Roster:
    """The army list of the roster at ``path`` in the terms of ``model``; :class:`DataError` for a bad file."""
    root = read_data(path)
    if local(root) != "roster":
        raise DataError(f"{path} is a BattleScribe {local(root) or 'file'}, not a roster (.ros or .rosz)")
    names, weapons = _lookup(model)
    units: list[RosterUnit] = []
    unknown: list[str] = []

    def visit(sel: etree._Element) -> None:
        kind = attr(sel, "type")
        if kind not in ("unit", "model"):
            for sub in children(sel, "selections", "selection"):
                visit(sub)
            return
        label = attr(sel, "customName") or attr(sel, "name")
        found = _id_of(sel, names)
        if found is None:
            unknown.append(label)
            return
        count, picked = _models_and_weapons(sel, names, weapons)
        if kind == "model" or count == 0:
            count = _number(sel)
        units.append(RosterUnit(found, count, tuple(picked), label, _is_warlord(sel)))

    forces = list(children(root, "forces", "force"))
    force_names: list[str] = []
    while forces:
        force = forces.pop(0)
        force_names.append(attr(force, "name"))
        forces += list(children(force, "forces", "force"))
        for sel in children(force, "selections", "selection"):
            visit(sel)
    points = None
    for cost in children(root, "costs", "cost"):
        if attr(cost, "name").strip().lower() in ("pts", "points"):
            try:
                points = int(Decimal(attr(cost, "value", "0")))
            except InvalidOperation:
                points = None
    limit = None
    for cost in children(root, "costLimits", "costLimit"):
        if attr(cost, "name").strip().lower() in ("pts", "points"):
            try:
                limit = int(Decimal(attr(cost, "value", "0")))
            except InvalidOperation:
                limit = None
    return Roster(attr(root, "name"), tuple(units), tuple(unknown), points, tuple(force_names),
                  limit if limit is not None and limit > 0 else None)


def roster_army(roster: Roster, model: Ruleset) -> A.Army | None:
    """The army rules named like the roster's first force (``Patrol Detachment`` → ``patrol_detachment``)."""
    armies = {slug(a.id): a for a in model.of_type(A.Army)} | {slug(a.title): a for a in model.of_type(A.Army)}
    return next((armies[slug(f)] for f in roster.forces if slug(f) in armies), None)
