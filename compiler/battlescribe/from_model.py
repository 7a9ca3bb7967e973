"""A checked ruleset as army data: what a catalogue can carry of it.

Units, weapons and squads with their stats, keywords, abilities and points; the stats their
profiles use; the keywords and abilities they name (an ability's text, not its mechanics,
which BattleScribe has no place for); the army rules' points limit and their requirements of
the form ``keyword >= n`` / ``keyword <= n``.  Other requirements are listed in
:attr:`ArmyData.unsupported`.
"""
from __future__ import annotations

from compiler import ast as A
from compiler.battlescribe.data import ArmyData, ArmyRule, Limit, Named, SquadData, StatDef, UnitData, stat_id
from compiler.model.armies import names_read
from compiler.model.ruleset import Ruleset
from compiler.syntax.unparse import expr_text


def _text(decl: A.Ability | A.Entry) -> str:
    parts = [decl.short or ""] + [p.text for p in decl.prose]
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


def _use(a: A.AbilityUse) -> str:
    return a.ability if a.arg is None else f"{a.ability}({a.arg})"


def _kind(stat: A.Stat) -> tuple[str, int, int]:
    if isinstance(stat.type, str):
        return {"number": ("range", -1000, 1000)}.get(stat.type, (stat.type, 0, 0))
    if stat.type is None:
        return "text", 0, 0
    lo, hi = stat.type.low, stat.type.high
    return "range", int(lo.value) if isinstance(lo, A.Int) else 0, int(hi.value) if isinstance(hi, A.Int) else 10


def army_data(model: Ruleset) -> ArmyData:
    """The army data of ``model`` (an overlay's, merged with its base)."""
    profiles = list(model.profiles.values())
    squads = list(model.of_type(A.Squad))
    used_stats: dict[str, str] = {}
    for p in profiles:
        for sv in p.stats:
            if p.kind == "unit" or sv.stat not in used_stats:
                used_stats[sv.stat] = "unit" if p.kind == "unit" else used_stats.get(sv.stat, "weapon")
    stats: list[StatDef] = []
    for s in model.stats.values():
        if s.id not in used_stats:
            continue
        kind, bottom, top = _kind(s)
        title = s.title if stat_id(s.title) == s.id else s.id
        stats.append(StatDef(s.id, title, kind, bottom, top, group=used_stats[s.id]))
    stats.sort(key=lambda s: s.group != "unit")

    keyword_ids: list[str] = []
    ability_ids: list[str] = []
    carriers: list[A.Profile | A.Squad] = [*profiles, *squads]
    for d in carriers:
        keyword_ids += [k for k, _ in d.keywords if k not in keyword_ids]
        ability_ids += [a.ability for a in d.abilities if a.ability not in ability_ids]
    unsupported: list[str] = []
    armies: list[ArmyRule] = []
    warlords: tuple[int | None, int | None] = (None, None)
    for army in model.of_type(A.Army):
        limits: dict[str, tuple[int | None, int | None]] = {}
        for req in army.requires:
            e = req.expr
            if (isinstance(e, A.Binary) and isinstance(e.left, A.Name) and isinstance(e.right, A.Int)
                    and isinstance(model.get(e.left.id), A.Entry) and e.op in (">=", "<=", ">", "<")):
                low, high = limits.get(e.left.id, (None, None))
                n = e.right.value
                if e.op in (">=", ">"):
                    low = n + (1 if e.op == ">" else 0)
                else:
                    high = n - (1 if e.op == "<" else 0)
                limits[e.left.id] = (low, high)
                if e.left.id not in keyword_ids:
                    keyword_ids.append(e.left.id)
            elif (isinstance(e, A.Binary) and isinstance(e.left, A.Name) and e.left.id == "warlords"
                  and isinstance(e.right, A.Int) and e.op in ("==", "=", "<=", ">=")):
                low, high = warlords  # a roster-wide limit on the Warlord selection
                n = e.right.value
                warlords = (n if e.op != "<=" else low, n if e.op != ">=" else high)
            elif not (isinstance(e, A.Binary) and e.op == "<=" and isinstance(e.left, A.Name) and e.left.id == "points"
                      and isinstance(e.right, A.Name) and e.right.id == "limit"):
                unsupported.append(f"army '{army.id}': require {expr_text(e)}")
        unsupported += [f"army '{army.id}': require each unit: {expr_text(r.expr)}" for r in army.unit_requires]
        armies.append(ArmyRule(army.id, army.title, tuple(Limit(k, lo, hi) for k, (lo, hi) in limits.items()),
                               army.points[0] if army.points else None))

    keywords: list[Named] = []
    for k in keyword_ids:
        decl = model.get(k)
        if isinstance(decl, A.Entry):
            keywords.append(Named(k, decl.title, _text(decl)))
    abilities: list[Named] = []
    for a_id in ability_ids:
        decl = model.get(a_id)
        if isinstance(decl, A.Ability):
            abilities.append(Named(a_id, decl.title, _text(decl)))
            if decl.hooks or decl.effects or decl.defence:
                unsupported.append(f"ability '{a_id}': its mechanics (BattleScribe keeps its text only)")
    for d in carriers:  # the catalogue links a rule to a unit or squad, by its name alone
        kind = d.kind if isinstance(d, A.Profile) else "squad"
        if kind == "weapon" and d.abilities:
            unsupported.append(f"weapon '{d.id}': its abilities ({', '.join(_use(a) for a in d.abilities)}); "
                               f"the catalogue links abilities to units and squads only")
        elif any(a.arg is not None for a in d.abilities):
            unsupported.append(f"{kind} '{d.id}': the value of "
                               f"{', '.join(_use(a) for a in d.abilities if a.arg is not None)}")

    def unit(p: A.Profile) -> UnitData:
        return UnitData(p.id, p.title, tuple((sv.stat, sv.text) for sv in p.stats), tuple(k for k, _ in p.keywords),
                        tuple(a.ability for a in p.abilities), tuple(w for w, _ in p.weapons), p.points)

    squad_data: list[SquadData] = []
    for q in squads:
        if q.unit is None or q.unit not in model.profiles:
            continue
        low = q.min_models if q.min_models is not None else 1
        high = q.max_models if q.max_models is not None else low
        per = q.points_per_extra if q.points_per_extra is not None else (model.profiles[q.unit].points or 0)
        squad_data.append(SquadData(q.id, q.title, q.unit, low, high, q.points or 0, per,
                                    tuple(k for k, _ in q.keywords), tuple(a.ability for a in q.abilities)))
        if q.weapons:
            unsupported.append(f"squad '{q.id}': its own weapons line (each model keeps its profile's weapons)")
    return ArmyData(
        title=model.title or model.id,
        stats=tuple(stats),
        keywords=tuple(keywords),
        abilities=tuple(abilities),
        units=tuple(unit(p) for p in profiles if p.kind == "unit"),
        weapons=tuple(unit(p) for p in profiles if p.kind == "weapon"),
        squads=tuple(squad_data),
        armies=tuple(armies),
        sources=((model.id, model.version or "1.0.0"),),
        unsupported=tuple(unsupported),
        warlord=any(n in ("warlords", "reserve_warlords") for a in model.of_type(A.Army) for r in a.requires
                    for n in names_read(r.expr)),
        warlords=warlords,
    )
