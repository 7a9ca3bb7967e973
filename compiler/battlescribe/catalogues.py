"""Reading a game system and its catalogues: the files checked and put in order, then read as army data.

:func:`read_files` is the entry point (``import battlescribe``): exactly one game system, any
catalogues for it; :class:`~compiler.battlescribe.from_xml.Reader` does the reading.  With a base
game (``--extends``), a characteristic spelled like a base stat whose values do not fit it is
declared apart (:func:`apart_from_base`).
"""
from __future__ import annotations

import dataclasses
import re
import zipfile
from pathlib import Path

from lxml import etree

from compiler.battlescribe.data import ArmyData, StatDef, fits, infer_kind
from compiler.battlescribe.from_xml import Reader
from compiler.battlescribe.ids import Ids
from compiler.battlescribe.versions import read_data
from compiler.battlescribe.xmlfile import DataError, attr, children, local


def apart_from_base(stats: list[StatDef], reader: Reader, ids: Ids) -> list[StatDef]:
    """Characteristics spelled like a base stat whose values do not fit it become stats of their own; a value
    that does not fit the base stat the map names is left out of its profile and kept in its text."""
    renames: dict[str, str] = {}
    out: list[StatDef] = []
    for s in stats:
        base = ids.base_kinds.get(s.id)
        values = reader.values.get(s.id, [])
        if base is not None and s.id not in ids.implicit and not fits(values, *base):
            for table in (reader.units, reader.weapons):
                for key, u in table.items():
                    bad = [(k, v) for k, v in u.stats if k == s.id and not fits([v], *base)]
                    if not bad:
                        continue
                    table[key] = dataclasses.replace(u, stats=tuple(p for p in u.stats if p not in bad),
                                                     notes=u.notes + tuple(f"{s.title} {v}" for _, v in bad))
                    reader.unsupported(f"values that do not fit the base stat the map names (left out of the "
                                       f"profile, kept in its text)", f"{u.title}: {s.title} {bad[0][1]}",
                                       f"{key}/{s.id}")
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
    roots = [(p, read_data(p)) for p in paths]
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
    linked = linked_catalogues(roots)
    return read_roots(roots, ids or Ids(), linked)


#: How many files beside the catalogues are looked at for the catalogues they link to.
MAX_SIBLINGS = 1000
_CATALOGUE_ID = re.compile(rb'<(?:\w+:)?catalogue\b[^>]*?\sid="([^"]+)"')


def _sniff_id(path: Path) -> str | None:
    """The id of the catalogue in ``path``, read from its first bytes (only to find a linked file)."""
    try:
        if path.suffix.lower() == ".catz":
            with zipfile.ZipFile(path) as archive:
                entries = [i for i in archive.infolist() if not i.is_dir()]
                if len(entries) != 1:
                    return None
                with archive.open(entries[0]) as stream:
                    head = stream.read(4096)
        else:
            with open(path, "rb") as f:
                head = f.read(4096)
    except (OSError, zipfile.BadZipFile, ValueError, NotImplementedError, EOFError):
        return None
    m = _CATALOGUE_ID.search(head)
    return m.group(1).decode("utf-8", "replace") if m else None


def linked_catalogues(roots: list[tuple[Path, etree._Element]]) -> list[tuple[Path, etree._Element]]:
    """The libraries the given catalogues link to (a ``catalogueLink`` that does not import the linked
    catalogue's units: a faction's library), found beside them and read with the same guards: their
    shared entries resolve links, their own units are not imported."""
    have = {attr(r, "id") for _, r in roots}
    wanted: dict[str, str] = {}
    for _, r in roots:
        for link in children(r, "catalogueLinks", "catalogueLink"):
            if attr(link, "targetId") not in have and attr(link, "importRootEntries") != "true":
                wanted.setdefault(attr(link, "targetId"), attr(link, "name"))
    out: list[tuple[Path, etree._Element]] = []
    looked = 0
    folders = dict.fromkeys(p.absolute().parent for p, _ in roots)
    while wanted and folders:
        folder = next(iter(folders))
        del folders[folder]
        try:
            siblings = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".cat", ".catz") and p.is_file())
        except OSError:
            continue
        for path in siblings:
            looked += 1
            if looked > MAX_SIBLINGS or not wanted:
                break
            found = _sniff_id(path)
            if found in wanted:
                root = read_data(path)
                if local(root) == "catalogue" and attr(root, "id") == found:
                    del wanted[found]
                    out.append((path, root))
                    for link in children(root, "catalogueLinks", "catalogueLink"):  # a library's libraries
                        if attr(link, "importRootEntries") == "true" or attr(link, "targetId") in have:
                            continue
                        if all(attr(r, "id") != attr(link, "targetId") for _, r in out):
                            wanted.setdefault(attr(link, "targetId"), attr(link, "name"))
    return out


def read_roots(roots: list[tuple[Path, etree._Element]], ids: Ids,
               linked: list[tuple[Path, etree._Element]] | None = None) -> ArmyData:
    """Army data from parsed files, the game system first; ``linked`` catalogues only resolve links."""
    linked = linked or []
    reader = Reader(roots + linked, ids)
    reader.index()
    for _, r in roots:
        for link in children(r, "catalogueLinks", "catalogueLink"):
            if attr(link, "importRootEntries") == "true":
                reader.unsupported("units of linked catalogues (give the catalogue to import them)",
                                   attr(link, "name"), attr(link, "targetId"))
    cost_types = [ct for _, r in roots + linked for ct in children(r, "costTypes", "costType")]
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
    reader.spare_weapons(roots)
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
    sources = tuple((p.name, attr(r, "revision", "0")) for p, r in roots + linked)
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
