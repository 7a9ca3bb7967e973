"""Army data written as a BattleScribe game system and catalogue, in the published schema (2.03).

The game system holds what every army shares: the points cost type (its default limit the
army rules' points), a profile type for units and one for weapons (their characteristics
the stats the profiles use), a category per keyword, a force entry per army rule (a category
link per keyword limit, with ``min``/``max`` constraints) and a shared rule per ability, with
its text.  The catalogue holds the units: a squad is a ``unit`` entry linking to its model (a
shared ``model`` entry with the model's profile, weapons, keywords and cost, the link carrying
the squad's size as ``min``/``max`` constraints); a unit outside any squad is a root ``model``
entry; each weapon is a shared ``upgrade`` entry with its profile, linked from the models that
carry it.  When the army rules read the warlord, each unit links to a shared ``Warlord`` upgrade
(at most one a unit): a roster that selects it names that unit the warlord.  Ids are the
language's ids, prefixed, so that exporting again gives the same ids.
"""
from __future__ import annotations

import re

from lxml import etree

from compiler.battlescribe.data import ArmyData, UnitData
from compiler.battlescribe.xmlfile import DataError

GAME_NS = "http://www.battlescribe.net/schema/gameSystemSchema"
CATALOGUE_NS = "http://www.battlescribe.net/schema/catalogueSchema"
VERSION = "2.03"
MARK = "Written by warscribe export, in the BattleScribe format"
#: The selection that makes a unit its roster's warlord (compiler.battlescribe.roster reads it back).
WARLORD = "Warlord"


#: What an XML 1.0 document cannot hold: control characters but tab and line breaks, lone surrogates.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml(text: str) -> str:
    """``text``, or :class:`DataError` when XML cannot hold it (a title with an escape sequence)."""
    bad = _NOT_XML.search(text)
    if bad is not None:
        raise DataError(f"'{text[:60]}' holds the control character U+{ord(bad.group()):04X}, which BattleScribe "
                        f"data (XML) cannot hold: take it out of the rules to export them")
    return text


def _el(parent: etree._Element, tag: str, **attrs: str) -> etree._Element:
    ns = etree.QName(parent).namespace
    el = etree.SubElement(parent, f"{{{ns}}}{tag}" if ns else tag)
    for k, v in attrs.items():
        el.set(k.rstrip("_"), _xml(v))
    return el


def _constraint(parent: etree._Element, cid: str, kind: str, value: int) -> None:
    _el(parent, "constraint", field="selections", scope="parent", value=str(value), percentValue="false",
        shared="true", includeChildSelections="false", includeChildForces="false", id=cid, type=kind)


def _profile(parent: etree._Element, pid: str, u: UnitData, type_id: str, type_name: str,
             char_ids: dict[str, tuple[str, str]]) -> None:
    prof = _el(parent, "profile", id=pid, name=u.title, hidden="false", typeId=type_id, typeName=type_name)
    chars = _el(prof, "characteristics")
    for sid, value in u.stats:
        name, cid = char_ids[sid]
        c = _el(chars, "characteristic", name=name, typeId=cid)
        c.text = _xml(value)


def _links(entry: etree._Element, prefix: str, abilities: tuple[str, ...], keywords: tuple[str, ...],
           titles: dict[str, str]) -> None:
    if abilities:
        box = _el(entry, "infoLinks")
        for a in abilities:
            _el(box, "infoLink", id=f"{prefix}-rule-{a}", name=titles.get(a, a), hidden="false",
                targetId=f"ws-rule-{a}", type="rule")
    if keywords:
        box = _el(entry, "categoryLinks")
        for k in keywords:
            _el(box, "categoryLink", id=f"{prefix}-cat-{k}", name=titles.get(k, k), hidden="false",
                targetId=f"ws-cat-{k}", primary="false")


def _cost(entry: etree._Element, points: int) -> None:
    box = _el(entry, "costs")
    _el(box, "cost", name="pts", typeId="ws-pts", value=str(points))


def _root(tag: str, ns: str, **attrs: str) -> etree._Element:
    root = etree.Element(f"{{{ns}}}{tag}", nsmap={None: ns})
    for k, v in attrs.items():
        root.set(k, _xml(v))
    return root


def _bytes(root: etree._Element, source: str) -> bytes:
    text = f" {MARK}, from {source} ".replace("--", "- -")
    root.addprevious(etree.Comment(_xml(text)))
    return bytes(etree.tostring(root.getroottree(), xml_declaration=True, encoding="UTF-8", standalone=True,
                                pretty_print=True))


def revision(version: str) -> str:
    """A ruleset's version as a BattleScribe revision (a whole number the apps compare to offer an update).

    >>> revision("1.2.3"), revision("10.0.12"), revision("draft")
    ('10203', '100012', '1')
    """
    parts = version.split("-", 1)[0].split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return "1"
    major, minor, patch = (int(p) for p in parts)
    return str(major * 10000 + min(minor, 99) * 100 + min(patch, 99))


def catalogue_files(data: ArmyData, ruleset_id: str) -> dict[str, bytes]:
    """``{id}.gst`` and ``{id}.cat``: the game system and catalogue of ``data`` (its ruleset's version the revision)."""
    source = ", ".join(f"{n} {r}" for n, r in data.sources)
    titles = {k.id: k.title for k in data.keywords} | {a.id: a.title for a in data.abilities}
    char_ids: dict[str, tuple[str, str]] = {s.id: (s.title, f"ws-stat-{s.id}") for s in data.stats}
    game_id = f"ws-{ruleset_id}"

    rev = revision(data.sources[0][1]) if data.sources else "1"
    gst = _root("gameSystem", GAME_NS, id=game_id, name=data.title, revision=rev, battleScribeVersion=VERSION)
    limit = next((a.points for a in data.armies if a.points is not None), None)
    cost_types = _el(gst, "costTypes")
    _el(cost_types, "costType", id="ws-pts", name="pts", defaultCostLimit=str(limit if limit is not None else -1),
        hidden="false")
    types = _el(gst, "profileTypes")
    for group, name in (("unit", "Unit"), ("weapon", "Weapon")):
        pt = _el(types, "profileType", id=f"ws-type-{group}", name=name)
        chars = _el(pt, "characteristicTypes")
        stats = [s for s in data.stats if s.group == group or (group == "weapon" and _on_weapons(data, s.id))]
        for s in stats:
            _el(chars, "characteristicType", id=f"ws-stat-{s.id}", name=s.title)
    if data.keywords:
        cats = _el(gst, "categoryEntries")
        for k in data.keywords:
            _el(cats, "categoryEntry", id=f"ws-cat-{k.id}", name=k.title, hidden="false")
    if data.armies:
        forces = _el(gst, "forceEntries")
        for a in data.armies:
            fe = _el(forces, "forceEntry", id=f"ws-force-{a.id}", name=a.title, hidden="false")
            if a.limits:
                links = _el(fe, "categoryLinks")
                for lim in a.limits:
                    link = _el(links, "categoryLink", id=f"ws-force-{a.id}-{lim.keyword}",
                               name=titles.get(lim.keyword, lim.keyword), hidden="false",
                               targetId=f"ws-cat-{lim.keyword}", primary="false")
                    box = _el(link, "constraints")
                    if lim.low is not None:
                        _constraint(box, f"ws-force-{a.id}-{lim.keyword}-min", "min", lim.low)
                    if lim.high is not None:
                        _constraint(box, f"ws-force-{a.id}-{lim.keyword}-max", "max", lim.high)
    if data.abilities:
        rules = _el(gst, "sharedRules")
        for ab in data.abilities:
            r = _el(rules, "rule", id=f"ws-rule-{ab.id}", name=ab.title, hidden="false")
            if ab.text:
                _el(r, "description").text = _xml(ab.text)

    cat = _root("catalogue", CATALOGUE_NS, id=f"{game_id}-units", name=data.title, revision=rev,
                battleScribeVersion=VERSION, library="false", gameSystemId=game_id, gameSystemRevision=rev)
    squads_of = {q.model for q in data.squads}
    units = {u.id: u for u in data.units}
    entries = _el(cat, "selectionEntries")
    for q in data.squads:
        e = _el(entries, "selectionEntry", id=f"ws-squad-{q.id}", name=q.title, hidden="false", collective="false",
                import_="true", type="unit")
        _links(e, f"ws-squad-{q.id}", q.abilities, q.keywords, titles)
        links = _el(e, "entryLinks")
        link = _el(links, "entryLink", id=f"ws-squad-{q.id}-model", name=units[q.model].title, hidden="false",
                   collective="false", import_="true", targetId=f"ws-model-{q.model}", type="selectionEntry")
        box = _el(link, "constraints")
        _constraint(box, f"ws-squad-{q.id}-min", "min", q.low)
        _constraint(box, f"ws-squad-{q.id}-max", "max", q.high)
        _cost(e, q.points - q.low * q.per_extra)
    for u in data.units:
        if u.id not in squads_of:
            _model(entries, u, f"ws-unit-{u.id}", data, titles, char_ids)
    if data.warlord:  # each unit may be the warlord (a selection a roster names, read back as `as warlord`)
        for unit_entry in entries:
            found = next(iter(unit_entry.iterchildren(f"{{{CATALOGUE_NS}}}entryLinks")), None)
            held = _el(unit_entry, "entryLinks") if found is None else found
            costs = next(iter(unit_entry.iterchildren(f"{{{CATALOGUE_NS}}}costs")), None)
            if found is None and costs is not None:  # the schema's order: entry links before costs
                costs.addprevious(held)
            link = _el(held, "entryLink", id=f"{unit_entry.get('id')}-warlord",
                       name=WARLORD, hidden="false", collective="false", import_="true", targetId="ws-warlord",
                       type="selectionEntry")
            _constraint(_el(link, "constraints"), f"{unit_entry.get('id')}-warlord-max", "max", 1)
    shared = _el(cat, "sharedSelectionEntries")
    if data.warlord:
        entry = _el(shared, "selectionEntry", id="ws-warlord", name=WARLORD, hidden="false", collective="false",
                    import_="true", type="upgrade")
        bounds = [(kind, n) for kind, n in zip(("min", "max"), data.warlords) if n is not None]
        if bounds:  # the army rules' number of warlords, over the whole roster
            box = _el(entry, "constraints")
            for kind, n in bounds:
                _el(box, "constraint", field="selections", scope="roster", value=str(n), percentValue="false",
                    shared="true", includeChildSelections="true", includeChildForces="true",
                    id=f"ws-warlord-{kind}", type=kind)
    for u in data.units:
        if u.id in squads_of:
            squad = next(q for q in data.squads if q.model == u.id)
            trimmed = UnitData(u.id, u.title, u.stats, tuple(k for k in u.keywords if k not in squad.keywords),
                               tuple(a for a in u.abilities if a not in squad.abilities), u.weapons,
                               squad.per_extra)
            _model(shared, trimmed, f"ws-model-{u.id}", data, titles, char_ids)
    for w in data.weapons:
        e = _el(shared, "selectionEntry", id=f"ws-weapon-{w.id}", name=w.title, hidden="false", collective="false",
                import_="true", type="upgrade")
        _profile(_el(e, "profiles"), f"ws-profile-{w.id}", w, "ws-type-weapon", "Weapon", char_ids)
        _links(e, f"ws-weapon-{w.id}", (), w.keywords, titles)
    if len(shared) == 0:
        cat.remove(shared)
    if len(entries) == 0:
        cat.remove(entries)
    return {f"{ruleset_id}.gst": _bytes(gst, source), f"{ruleset_id}.cat": _bytes(cat, source)}


def _on_weapons(data: ArmyData, stat: str) -> bool:
    return any(sid == stat for w in data.weapons for sid, _ in w.stats)


def _model(parent: etree._Element, u: UnitData, eid: str, data: ArmyData, titles: dict[str, str],
           char_ids: dict[str, tuple[str, str]]) -> None:
    e = _el(parent, "selectionEntry", id=eid, name=u.title, hidden="false", collective="false", import_="true",
            type="model")
    _profile(_el(e, "profiles"), f"{eid}-profile", u, "ws-type-unit", "Unit", char_ids)
    _links(e, eid, u.abilities, u.keywords, titles)
    if u.weapons:
        links = _el(e, "entryLinks")
        for w in u.weapons:
            _el(links, "entryLink", id=f"{eid}-{w}", name=next((x.title for x in data.weapons if x.id == w), w),
                hidden="false", collective="false", import_="true", targetId=f"ws-weapon-{w}", type="selectionEntry")
    if u.points is not None:
        _cost(e, u.points)
