"""Reading a game system and its catalogues: the files checked and put in order, then read as army data.

:func:`read_files` is the entry point (``import battlescribe``): exactly one game system, any
catalogues for it; :class:`~compiler.battlescribe.from_xml.Reader` does the reading.  With a base
game (``--extends``), a characteristic spelled like a base stat whose values do not fit it is
declared apart (:func:`apart_from_base`).
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

from lxml import etree

from compiler.battlescribe.data import ArmyData, StatDef, fits, infer_kind
from compiler.battlescribe.from_xml import Reader
from compiler.battlescribe.ids import Ids
from compiler.battlescribe.xmlfile import DataError, attr, children, local, read_xml


def apart_from_base(stats: list[StatDef], reader: Reader, ids: Ids) -> list[StatDef]:
    """Characteristics spelled like a base stat whose values do not fit it become stats of their own."""
    renames: dict[str, str] = {}
    out: list[StatDef] = []
    for s in stats:
        base = ids.base_kinds.get(s.id)
        values = reader.values.get(s.id, [])
        if base is not None and s.id not in ids.implicit and not fits(values, *base):
            odd = next(v for v in values if not fits([v], *base))
            raise DataError(f"the map makes {s.title} the base's {s.id}, but its value {odd!r} does not fit "
                            f"{s.id} ({base[0]}{f' {base[1][0]}..{base[1][1]}' if base[1] else ''}); map it to "
                            f"another stat, or leave it out of the map to import it as a stat of its own")
        if s.id in ids.implicit and base is not None and not fits(values, *base):
            new = ids.own_stat(s.title)
            ids.reused.discard(s.id)
            renames[s.id] = new
            shown = f"{base[1][0]}..{base[1][1]}" if base[0] == "range" and base[1] else (base[0] or "text")
            reader.unsupported(f"characteristics spelled like a base stat but not fitting it (declared apart; "
                               f"--map them if they are the base's)", f"{s.title} → {new} (the base's is {shown})")
            s = StatDef(new, s.title, s.kind, s.low, s.high, s.note, s.group)
        out.append(s)
    if renames:
        for table in (reader.units, reader.weapons):
            for key, u in table.items():
                table[key] = dataclasses.replace(u, stats=tuple((renames.get(k, k), v) for k, v in u.stats))
    return out


def read_files(paths: list[Path], ids: Ids | None = None) -> ArmyData:
    """Read a game system (first) and its catalogues into army data; :class:`DataError` for a bad file."""
    roots = [(p, read_xml(p)) for p in paths]
    kinds = [local(r) for _, r in roots]
    if kinds.count("gameSystem") != 1:
        raise DataError(f"give exactly one game system (.gst); got {kinds.count('gameSystem')} among "
                        f"{', '.join(str(p) for p in paths)}")
    for (p, r), k in zip(roots, kinds):
        if k not in ("gameSystem", "catalogue"):
            raise DataError(f"{p} is a BattleScribe {k or 'file'}, not a game system or catalogue")
    roots.sort(key=lambda pr: local(pr[1]) != "gameSystem")
    game = roots[0][1]
    for p, r in roots[1:]:
        if attr(r, "gameSystemId") and attr(r, "gameSystemId") != attr(game, "id"):
            raise DataError(f"{p} is a catalogue for another game system ({attr(r, 'gameSystemId')}), not "
                            f"{attr(game, 'name')}")
    return read_roots(roots, ids or Ids())


def read_roots(roots: list[tuple[Path, etree._Element]], ids: Ids) -> ArmyData:
    """Army data from parsed files, the game system first."""
    reader = Reader(roots, ids)
    reader.index()
    cost_types = [ct for _, r in roots for ct in children(r, "costTypes", "costType")]
    named = [ct for ct in cost_types if attr(ct, "name").strip().lower() in ("pts", "points", "pt", "point")]
    if named or cost_types:
        reader.points_type = attr((named or cost_types)[0], "id")
    stats = reader.read_profile_types(reader.placement())
    reader.scan_unsupported()
    for _, root in roots[1:] or roots:
        entries = list(children(root, "selectionEntries", "selectionEntry")) + \
            list(children(root, "entryLinks", "entryLink"))
        for el in entries:
            node = reader.node(el, attr(root, "name"))
            if node is not None and node.kind in ("unit", "model"):
                reader.root(node)
    reader.spare_weapons()
    armies = reader.armies()
    typed: list[StatDef] = []
    for s in stats:
        kind, note = infer_kind(reader.values.get(s.id, []))
        low = high = 0
        if kind == "range":
            numbers = [int(v) for v in reader.values[s.id] if v.strip().lstrip("-").isdigit()]
            low, high = min(min(numbers), 0 if min(numbers) <= 0 else 1), max(max(numbers), 10)
        typed.append(StatDef(s.id, s.title, kind, low, high, note, s.group))
    typed = apart_from_base(typed, reader, ids)
    sources = tuple((p.name, attr(r, "revision", "0")) for p, r in roots)
    unsupported = tuple(f"{n} × {what} (e.g. {'; '.join(reader.where[what])})" for what, n in reader.notes.items())
    return ArmyData(
        title=attr(roots[0][1], "name") or "Imported army",
        stats=tuple(typed),
        keywords=tuple(sorted(reader.keywords.values(), key=lambda k: k.id)),
        abilities=tuple(sorted(reader.abilities.values(), key=lambda k: k.id)),
        units=tuple(sorted(reader.units.values(), key=lambda u: u.id)),
        weapons=tuple(sorted(reader.weapons.values(), key=lambda u: u.id)),
        squads=tuple(sorted(reader.squads.values(), key=lambda u: u.id)),
        armies=tuple(armies),
        sources=sources,
        unsupported=unsupported,
        origins=dict(reader.origins),
    )
