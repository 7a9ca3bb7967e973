"""A game system and its catalogues read as army data: units, models, weapons, keywords, points, forces.

* Stats come from the game system's profile types, one per characteristic name; a profile
  type whose profiles sit on units and models gives unit stats, one whose profiles sit on
  upgrades gives weapon stats, and one with a single characteristic gives abilities (its
  profiles' text).
* Each root entry of a catalogue (links followed) becomes a ``unit`` when it is one model, or
  a ``squad`` of its models when it holds model entries: every model kind a ``unit`` profile,
  the squad counting the most numerous one, its size the sum of the models' ``min``/``max``
  constraints, its points the unit's cost plus its models' (so many ``per extra model``).
* Weapons are the weapon profiles under an entry; a shared entry, profile or rule is read
  once, however many links lead to it.
* Keywords are categories; abilities are rules and ability profiles, with their text; force
  entries are army rules, their category links' ``min``/``max`` the number of units with that
  keyword.
* Whatever has no place in the language yet (modifiers and their conditions, repeats, limits
  on how many of a unit an army may take, costs other than points, choices between options) is
  counted and named in :attr:`ArmyData.unsupported`, never dropped silently.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from lxml import etree

from compiler.battlescribe.data import ArmyRule, Limit, Named, SquadData, StatDef, UnitData
from compiler.battlescribe.ids import Ids
from compiler.battlescribe.xmlfile import attr, child, children, local, text_of

_INDEXED = {"selectionEntry", "selectionEntryGroup", "profile", "rule", "infoGroup", "categoryEntry", "forceEntry"}


@dataclass
class Node:
    """An entry with its link followed: the target's content, the link's name and constraints."""

    el: etree._Element
    link: etree._Element | None
    kind: str  # "unit", "model", "upgrade" or "group"

    @property
    def id(self) -> str:
        return attr(self.el, "id")

    @property
    def name(self) -> str:
        return attr(self.link if self.link is not None and attr(self.link, "name") else self.el, "name")

    def parts(self) -> list[etree._Element]:
        return [self.el] if self.link is None else [self.link, self.el]


@dataclass
class Reader:
    roots: list[tuple[Path, etree._Element]]
    ids: Ids
    by_id: dict[str, etree._Element] = field(default_factory=dict)
    stat_names: dict[str, str] = field(default_factory=dict)  # characteristic name -> stat id
    type_group: dict[str, str] = field(default_factory=dict)  # profile type id -> unit/weapon/ability
    values: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    points_type: str | None = None
    notes: Counter[str] = field(default_factory=Counter)
    noted: set[tuple[str, str]] = field(default_factory=set)
    where: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    keywords: dict[str, Named] = field(default_factory=dict)
    abilities: dict[str, Named] = field(default_factory=dict)
    weapons: dict[str, UnitData] = field(default_factory=dict)
    units: dict[str, UnitData] = field(default_factory=dict)
    squads: dict[str, SquadData] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)

    # -- what is unsupported ------------------------------------------------------------------

    def unsupported(self, what: str, where: str, key: str | None = None) -> None:
        """Count one thing the language has no place for (once per ``key``, the entry it is on)."""
        if key is not None:
            if (what, key) in self.noted:
                return
            self.noted.add((what, key))
        self.notes[what] += 1
        if len(where) > 80:
            where = where[:77].rstrip(" ,;") + "…"
        if len(self.where[what]) < 3 and where not in self.where[what]:
            self.where[what].append(where)

    def scan_unsupported(self) -> None:
        """Every modifier of every file, named by the entry it sits in."""
        for _, root in self.roots:
            for mod in root.iter():
                if local(mod) != "modifier":
                    continue
                holder = next((a for a in mod.iterancestors() if a.get("name") and local(a) != "modifier"), root)
                where = attr(holder, "name")
                conditional = any(local(c) in ("conditions", "conditionGroups") for c in mod)
                self.unsupported("conditional modifiers" if conditional else "modifiers", where)
                if any(local(c) == "repeats" for c in mod):
                    self.unsupported("repeats", where)

    # -- indexing and links -------------------------------------------------------------------

    def index(self) -> None:
        for _, root in self.roots:
            for el in root.iter():
                if local(el) in _INDEXED and el.get("id"):
                    self.by_id.setdefault(attr(el, "id"), el)

    def target(self, link: etree._Element, where: str) -> etree._Element | None:
        found = self.by_id.get(attr(link, "targetId"))
        if found is None:
            self.unsupported("links to entries in no file given (add the catalogue that has them)", where,
                             attr(link, "targetId"))
        return found

    def node(self, el: etree._Element, where: str) -> Node | None:
        kind = local(el)
        if kind == "selectionEntry":
            return Node(el, None, attr(el, "type", "upgrade"))
        if kind == "selectionEntryGroup":
            return Node(el, None, "group")
        if kind == "entryLink":
            tgt = self.target(el, where)
            if tgt is None:
                return None
            return Node(tgt, el, "group" if local(tgt) == "selectionEntryGroup" else attr(tgt, "type", "upgrade"))
        return None

    def subnodes(self, node: Node) -> list[Node]:
        out: list[Node] = []
        for part in node.parts():
            for wrapper, name in (("selectionEntries", "selectionEntry"), ("selectionEntryGroups", "selectionEntryGroup"),
                                  ("entryLinks", "entryLink")):
                for el in children(part, wrapper, name):
                    sub = self.node(el, node.name)
                    if sub is not None:
                        out.append(sub)
        return out

    def info(self, el: etree._Element, where: str, depth: int = 0,
             seen: set[str] | None = None) -> tuple[list[etree._Element], list[etree._Element]]:
        """The profiles and rules of an entry or info group, info links followed (each group once: links
        may loop)."""
        seen = set() if seen is None else seen
        profiles = list(children(el, "profiles", "profile"))
        rules = list(children(el, "rules", "rule"))
        groups = list(children(el, "infoGroups", "infoGroup"))
        for link in children(el, "infoLinks", "infoLink"):
            tgt = self.target(link, where)
            if tgt is None:
                continue
            {"profile": profiles, "rule": rules, "infoGroup": groups}.get(local(tgt), []).append(tgt)
        if depth < 8:
            for g in groups:
                if _key(g) in seen:
                    continue
                seen.add(_key(g))
                p, r = self.info(g, where, depth + 1, seen)
                profiles += p
                rules += r
        return profiles, rules

    # -- stats ----------------------------------------------------------------------------------

    def read_profile_types(self, placed: dict[str, Counter[str]]) -> list[StatDef]:
        stats: list[StatDef] = []
        seen: set[str] = set()
        order = {"unit": 0, "weapon": 1}
        types = [pt for _, root in self.roots for pt in children(root, "profileTypes", "profileType")]
        for pt in types:
            names = [attr(c, "name") for c in children(pt, "characteristicTypes", "characteristicType")]
            where = placed.get(attr(pt, "id"), Counter())
            if len(names) == 1:
                group = "ability"
            else:
                group = "weapon" if where["upgrade"] > where["unit"] else "unit"
            self.type_group[attr(pt, "id")] = group
        for pt in sorted(types, key=lambda t: order.get(self.type_group[attr(t, "id")], 2)):
            group = self.type_group[attr(pt, "id")]
            if group == "ability":
                continue
            for c in children(pt, "characteristicTypes", "characteristicType"):
                name = attr(c, "name")
                if name in seen:
                    continue
                seen.add(name)
                sid = self.ids.stat(name)
                self.stat_names[name] = sid
                if all(s.id != sid for s in stats):  # two characteristics the map makes one stat: declared once
                    stats.append(StatDef(sid, name, "text", group=group))
        return stats

    def placement(self) -> dict[str, Counter[str]]:
        """Where each profile type's profiles sit: under units and models, or under upgrades (there, or
        reached by an info link from there: shared profiles count where they are used)."""
        placed: dict[str, Counter[str]] = defaultdict(Counter)

        def visit(el: etree._Element, level: str | None) -> None:
            for c in el:
                name = local(c)
                if name == "selectionEntry":
                    visit(c, "unit" if attr(c, "type") in ("unit", "model") else "upgrade")
                elif name == "profile" and level is not None:
                    placed[attr(c, "typeId")][level] += 1
                elif name == "infoLink" and level is not None and attr(c, "type") == "profile":
                    target = self.by_id.get(attr(c, "targetId"))
                    if target is not None:
                        placed[attr(target, "typeId")][level] += 1
                else:
                    visit(c, level)

        for _, root in self.roots:
            visit(root, None)
        return placed

    def stat_values(self, profile: etree._Element) -> tuple[tuple[str, str], ...]:
        out: list[tuple[str, str]] = []
        for c in children(profile, "characteristics", "characteristic"):
            sid = self.stat_names.get(attr(c, "name"))
            if sid is None or any(s == sid for s, _ in out):
                continue
            value = " ".join(text_of(c).split())
            out.append((sid, value))
            self.values[sid].append(value)
        return tuple(out)

    # -- keywords, abilities, weapons ---------------------------------------------------------

    def categories(self, node: Node) -> tuple[str, ...]:
        out: list[str] = []
        for part in node.parts():
            for link in children(part, "categoryLinks", "categoryLink"):
                kid = self.keyword(attr(link, "targetId"), attr(link, "name"))
                if kid and kid not in out:
                    out.append(kid)
        return tuple(out)

    def keyword(self, key: str, fallback: str) -> str:
        """The keyword of a category, declared on first use: categories of one name are one keyword (older
        files define an "HQ" in each force), unless warscribe wrote the file (its ids are the keywords')."""
        cat = self.by_id.get(key)
        name = attr(cat, "name") if cat is not None else fallback
        if not name:
            return ""
        kid = self.ids.get(("category", key if key.startswith("ws-cat-") else "name:" + name.strip().lower()), name)
        self.keywords.setdefault(kid, Named(kid, name))
        self.origins.setdefault(kid, key)
        return kid

    def ability(self, el: etree._Element) -> str:
        key = attr(el, "id")
        aid = self.ids.get(("ability", key), attr(el, "name"))
        if aid not in self.abilities:
            if local(el) == "rule":
                body = text_of(child(el, "description"))
            else:
                body = "\n\n".join(text_of(c) for c in children(el, "characteristics", "characteristic"))
            self.abilities[aid] = Named(aid, attr(el, "name") or aid, body)
            self.origins.setdefault(aid, key)
        return aid

    def weapon(self, profile: etree._Element, holder: Node | None = None) -> str:
        """The weapon of a profile (read once); its keywords are the categories of the upgrade holding it."""
        key = attr(profile, "id")
        wid = self.ids.get(("profile", key), attr(profile, "name"))
        if wid not in self.weapons:
            kws = self.categories(holder) if holder is not None and holder.kind == "upgrade" else ()
            self.weapons[wid] = UnitData(wid, attr(profile, "name") or wid, self.stat_values(profile), kws)
            self.origins.setdefault(wid, key)
        return wid

    def spare_weapons(self, roots: list[tuple[Path, etree._Element]]) -> None:
        """Weapons of upgrades that no unit links to (the armoury of the files given) are weapons too."""
        for _, root in roots:
            for wrapper in ("sharedSelectionEntries", "selectionEntries"):
                for el in children(root, wrapper, "selectionEntry"):
                    if attr(el, "type") != "upgrade":
                        continue
                    node = Node(el, None, "upgrade")
                    profiles, _ = self.info(el, node.name)
                    for p in profiles:
                        if self.type_group.get(attr(p, "typeId")) == "weapon":
                            self.weapon(p, node)

    def gather(self, node: Node, into: dict[str, list[str]], skip_models: bool, depth: int = 0,
               seen: set[str] | None = None, optional: bool = False) -> None:
        """Weapons and abilities in ``node``'s subtree (not inside its models when ``skip_models``); each entry
        is visited once, however many links lead to it (links may loop, or fan out exponentially).  The weapons
        of options count (a unit may carry them); the abilities of options (enhancements, honours, upgrades
        a player may buy) are not the unit's: they are counted in the summary."""
        seen = {_key(node.el)} if seen is None else seen
        for part in node.parts():
            profiles, rules = self.info(part, node.name)
            for p in profiles:
                group = self.type_group.get(attr(p, "typeId"), "unit")
                if group == "weapon":
                    _add(into["weapons"], self.weapon(p, node))
                elif group == "ability" and optional:
                    self.unsupported("abilities of options a unit may take (not given to the unit)", node.name,
                                     attr(p, "id"))
                elif group == "ability":
                    _add(into["abilities"], self.ability(p))
            for r in rules:
                if optional:
                    self.unsupported("abilities of options a unit may take (not given to the unit)", node.name,
                                     attr(r, "id"))
                else:
                    _add(into["abilities"], self.ability(r))
        if depth > 32:
            return
        for sub in self.subnodes(node):
            if skip_models and sub.kind == "model":
                continue
            if sub.kind in ("unit", "model") and depth > 0:
                continue
            if _key(sub.el) in seen:
                continue
            seen.add(_key(sub.el))
            self.cost_note(sub)
            chosen = optional or sub.kind == "group" or (sub.kind == "upgrade" and self.count_range(sub)[0] == 0)
            self.gather(sub, into, skip_models=False, depth=depth + 1, seen=seen, optional=chosen)

    def cost_note(self, node: Node) -> None:
        if node.kind == "upgrade" and self.cost(node):
            self.unsupported("costs of upgrades and options (the unit's own points are kept)", node.name, node.id)

    # -- points and composition ---------------------------------------------------------------

    def priced(self, node: Node) -> int | None:
        """A unit's points: its cost, or None when it has no points cost at all (not priced)."""
        parts = [node.link, node.el] if node.link is not None else [node.el]
        if not any(attr(c, "typeId") == self.points_type for part in parts if part is not None
                   for c in children(part, "costs", "cost")):
            return None
        return self.cost(node)

    def cost(self, node: Node) -> int:
        total = Decimal(0)
        parts = node.parts()
        if node.link is not None and child(node.link, "costs") is None:
            parts = [node.el]  # a link without costs of its own costs what its target costs
        for part in parts:
            for c in children(part, "costs", "cost"):
                try:
                    value = Decimal(attr(c, "value", "0"))
                except InvalidOperation:
                    value = Decimal(0)
                if attr(c, "typeId") == self.points_type:
                    total += value
                elif value:
                    self.unsupported(f"costs other than points ({attr(c, 'name')})", node.name, node.id)
            if part is node.link:
                break  # a link's own costs stand for the target's
        if total != total.to_integral_value():
            self.unsupported("points that are not whole numbers (rounded)", node.name, node.id)
        return int(total.to_integral_value())

    def count_range(self, node: Node) -> tuple[int, int | None]:
        low, high = 0, None
        for part in node.parts():
            for c in children(part, "constraints", "constraint"):
                if attr(c, "field") != "selections" or attr(c, "scope") != "parent":
                    self.unsupported("limits on how many of an entry a force or roster may take", node.name,
                                     attr(c, "id") or node.id)
                    continue
                try:
                    value = int(Decimal(attr(c, "value", "0")))
                except InvalidOperation:
                    continue
                if attr(c, "type") == "min":
                    low = value
                elif attr(c, "type") == "max" and value >= 0:
                    high = value
            if node.link is not None and child(node.link, "constraints") is not None:
                break  # the link's constraints stand for the target's
        return low, high

    # -- units --------------------------------------------------------------------------------

    def unit_profile(self, node: Node) -> etree._Element | None:
        for part in node.parts():
            profiles, _ = self.info(part, node.name)
            for p in profiles:
                if self.type_group.get(attr(p, "typeId")) == "unit":
                    return p
        return None

    def models_of(self, node: Node, bounds: dict[str, tuple[int, int | None]] | None = None, depth: int = 0,
                  seen: set[str] | None = None, group: str | None = None) -> list[tuple[Node, str | None]]:
        """The model entries of a unit, inside groups and upgrades too (each entry once), each with the
        innermost group that bounds how many models it holds (its bounds put in ``bounds``)."""
        seen = {_key(node.el)} if seen is None else seen
        bounds = {} if bounds is None else bounds
        out: list[tuple[Node, str | None]] = []
        for sub in self.subnodes(node):
            if _key(sub.el) in seen:
                continue
            seen.add(_key(sub.el))
            if sub.kind == "model":
                out.append((sub, group))
            elif sub.kind in ("group", "upgrade") and depth < 8:
                inner = group
                if sub.kind == "group":
                    low, high = self.count_range(sub)
                    if low or high is not None:
                        inner = _key(sub.el)
                        bounds[inner] = (low, high)
                    else:
                        self.unsupported("choices between options (every option's weapons are listed)", node.name,
                                         sub.id)
                out += self.models_of(sub, bounds, depth + 1, seen, inner)
        return out

    def root(self, node: Node) -> None:
        where = node.name
        bounds: dict[str, tuple[int, int | None]] = {}
        grouped = self.models_of(node, bounds) if node.kind == "unit" else []
        models = [m for m, _ in grouped]
        if models:
            self.ids.get(("squad", node.id), node.name)  # the unit's name before its categories'
        else:
            self.ids.get(("entry", node.id), node.name)
        kws = self.categories(node)
        if not models:
            self.count_range(node)  # a limit on how many an army may take is noted there
            profile = self.unit_profile(node)
            if profile is None:
                self.unsupported("entries without a unit profile (not imported)", where)
                return
            found: dict[str, list[str]] = defaultdict(list)
            self.gather(node, found, skip_models=False)
            uid = self.ids.get(("entry", node.id), node.name)
            if uid not in self.units:
                self.units[uid] = UnitData(uid, node.name, self.stat_values(profile), kws,
                                           tuple(found["abilities"]), tuple(found["weapons"]), self.priced(node))
                self.origins.setdefault(uid, node.id)
            return
        own: dict[str, list[str]] = defaultdict(list)
        self.gather(node, own, skip_models=True)
        shared_profile = self.unit_profile(node)
        made: list[tuple[str, int, int | None, int]] = []
        in_group: dict[str, str | None] = {}
        for m, group in grouped:
            profile = self.unit_profile(m)
            if profile is None:
                profile = shared_profile
            if profile is None:
                self.unsupported("models without a unit profile (not imported)", f"{where}: {m.name}", m.id)
                continue
            found = defaultdict(list, {k: list(v) for k, v in own.items()})
            self.gather(m, found, skip_models=False)
            uid = self.ids.get(("entry", m.id), m.name)
            if uid not in self.units:
                self.units[uid] = UnitData(uid, m.name, self.stat_values(profile), _merge(kws, self.categories(m)),
                                           tuple(found["abilities"]), tuple(found["weapons"]), self.priced(m))
                self.origins.setdefault(uid, m.id)
            low, high = self.count_range(m)
            made.append((uid, low, high, self.cost(m)))
            in_group[uid] = group
        if not made:
            return
        main = max(made, key=lambda t: (t[2] if t[2] is not None else t[1], -made.index(t)))
        low = high_sum = extra = 0
        unbounded = False
        for group in dict.fromkeys(in_group.values()):
            members = [t for t in made if in_group[t[0]] == group]
            g_low = sum(t[1] for t in members)
            g_high: int | None = None if any(t[2] is None for t in members) else sum(t[2] or 0 for t in members)
            if group is not None:  # a group of choices bounds the models it holds (10 to 20, any mix)
                b_low, b_high = bounds[group]
                usual = max(members, key=lambda t: (t[2] if t[2] is not None else t[1], -members.index(t)))
                extra += max(0, b_low - g_low) * usual[3]  # the group's minimum, of its most numerous kind
                g_low = max(g_low, b_low)
                g_high = b_high if g_high is None else (g_high if b_high is None else min(g_high, b_high))
            low += g_low
            if g_high is None:
                unbounded = True
                g_high = g_low
            high_sum += g_high
        if unbounded:
            self.unsupported("models without a maximum (the squad's size is its minimum)", where)
        low = max(low, 1)
        high = max(high_sum, low)
        if len(made) > 1:
            others = ", ".join(self.units[t[0]].title for t in made if t is not main)
            self.unsupported(f"units of several kinds of model (the squad counts its most numerous kind; "
                             f"the others are units of their own)", f"{where}: {others}")
        base = self.cost(node) + sum(t[1] * t[3] for t in made) + extra
        sid = self.ids.get(("squad", node.id), node.name)
        self.squads[sid] = SquadData(sid, node.name, main[0], low, high, base, main[3], kws, tuple(own["abilities"]))
        self.origins.setdefault(sid, node.id)

    def armies(self) -> list[ArmyRule]:
        limit = None
        for _, root in self.roots:
            for ct in children(root, "costTypes", "costType"):
                if attr(ct, "id") == self.points_type:
                    try:
                        value = int(Decimal(attr(ct, "defaultCostLimit", "-1")))
                    except InvalidOperation:
                        value = -1
                    limit = value if value > 0 else None
        out: list[ArmyRule] = []
        for _, root in self.roots:
            for fe in children(root, "forceEntries", "forceEntry"):
                if child(fe, "forceEntries") is not None:
                    self.unsupported("forces inside forces (only the outer force is read)", attr(fe, "name"))
                limits: list[Limit] = []
                for link in children(fe, "categoryLinks", "categoryLink"):
                    node = Node(link, None, "group")
                    low, high = self.count_range(node)
                    if low == 0 and high is None:
                        continue
                    kid = self.keyword(attr(link, "targetId"), attr(link, "name"))
                    if kid:
                        limits.append(Limit(kid, low or None, high))
                fid = self.ids.get(("force", attr(fe, "id")), attr(fe, "name"))
                self.origins.setdefault(fid, attr(fe, "id"))
                out.append(ArmyRule(fid, attr(fe, "name") or fid, tuple(limits), limit))
        return out


def _key(el: etree._Element) -> str:
    """What tells two entries apart: the id, else the place in the file."""
    return attr(el, "id") or el.getroottree().getpath(el)


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


def _merge(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    return a + tuple(x for x in b if x not in a)
