"""``warscribe export``: the rules model as JSON, keyed by the stable ids.

Every declaration appears once, with its ``id`` (its anchor on the site and
its key here; changing it is a breaking change), its ``kind``, ``title``,
one-line definition (``short``), prose (``text``), where it lives on the site
(``page`` and ``anchor``), the sections that hold it, what an overlay did to
it (``origin``), its source location, the declaration as written
(``source``), and the fields of its kind: a profile's stats, a table's cells
worked out with their chances, a modifier's effects, an attack's steps…

The output is deterministic: keys in a fixed order, declarations in
document order.

>>> from compiler.driver import compile_text
>>> c = compile_text('ruleset d "D":\\n  version 1.0.0\\nstat BS "Ballistic Skill" 1..10: "Aim."\\n')
>>> data = export(c)
>>> [(d["id"], d["kind"], d["page"], d["short"]) for d in data["rulesets"][0]["declarations"]]
[('BS', 'stat', 'd/lexicon.md', 'Aim.')]
"""
from __future__ import annotations

import textwrap
from typing import Any, Mapping

from compiler import __version__
from compiler import ast as A
from compiler.driver import Compilation
from compiler.model.ruleset import Ruleset, kind_of
from compiler.resolve.report import evaluate_table
from compiler.resolve.evaluator import Evaluator, ResolveError
from compiler.site.sitemap import SiteMap
from compiler.site.tools import expression_text, source_text

FORMAT = 1


def export(compilation: Compilation) -> dict[str, Any]:
    """The JSON-ready model of every ruleset of a (clean) compilation."""
    rulesets = tuple(sorted(compilation.rulesets, key=lambda r: r.id))
    sitemap = SiteMap(rulesets)
    return {"warscribe": __version__, "format": FORMAT,
            "rulesets": [_ruleset(rs, sitemap, compilation.sources) for rs in rulesets]}


def _ruleset(rs: Ruleset, sitemap: SiteMap, sources: Mapping[str, str]) -> dict[str, Any]:
    h = rs.header
    out: dict[str, Any] = {
        "id": rs.id, "title": rs.title, "version": h.version, "authors": list(h.authors),
        "source": h.source, "licence": h.licence, "summary": h.summary,
        "extends": {"id": h.extends, "version": h.extends_version} if h.extends else None,
        "removed": list(rs.removed),
        "history": [{"version": e.version, "date": e.date, "text": e.text} for e in h.history],
        "text": _prose(h.prose),
        "files": list(rs.files),
        "declarations": [],
    }
    ev = Evaluator(rs)
    decls = out["declarations"]
    for d in rs.walk():
        if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)) or not d.id:
            continue
        decls.append(_decl(rs, d, sitemap, sources, ev))
        if isinstance(d, A.Game):
            for ph in d.phases:
                decls.append(_part(rs, ph, sitemap, d.id, {"text": ph.text, "steps": [s.id for s in ph.steps]}))
                for st in ph.steps:
                    decls.append(_part(rs, st, sitemap, ph.id, {"text": st.text}))
            for sc in d.scores:
                decls.append(_part(rs, sc, sitemap, d.id, {"value": expression_text(sc.value, sources), "per": sc.per}))
            for v in d.victories:
                decls.append(_part(rs, v, sitemap, d.id, {"text": v.text}))
    return out


def _prose(prose: tuple[A.Prose, ...]) -> str | None:
    texts = [textwrap.dedent(p.text).strip("\n") for p in prose if p.text.strip()]
    return "\n\n".join(texts) if texts else None


def _where(rs: Ruleset, sitemap: SiteMap, id_: str) -> dict[str, Any]:
    place = sitemap.get(rs.id, id_)
    return {"page": place.page if place else None, "anchor": place.anchor if place else None}


def _part(rs: Ruleset, part: Any, sitemap: SiteMap, parent: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"id": part.id, "kind": kind_of(part), "title": part.title, **_where(rs, sitemap, part.id),
            "parent": parent, "origin": rs.origin.get(part.id, "own"), "text": _prose(getattr(part, "prose", ())),
            **fields}


def _decl(rs: Ruleset, d: A.Decl, sitemap: SiteMap, sources: Mapping[str, str], ev: Evaluator) -> dict[str, Any]:
    def expr(e: Any) -> str | None:
        return None if e is None else expression_text(e, sources)

    out: dict[str, Any] = {
        "id": d.id, "kind": kind_of(d), "title": getattr(d, "title", None),
        **_where(rs, sitemap, d.id),
        "sections": [s.id for s in rs.section_path(d.id)],
        "origin": rs.origin.get(d.id, "own"),
        "short": getattr(d, "short", None),
        "text": _prose(getattr(d, "prose", ()) or ()),
        "span": {"file": d.span.file, "line": d.span.line, "column": d.span.column},
        "source": source_text(d.span, sources),
    }
    if hasattr(d, "aka"):
        out["aka"] = list(d.aka)
    if isinstance(d, A.Entry) and d.role is not None:  # a keyword the army rules count (role characters)
        out["role"] = d.role
    see = getattr(d, "see", None)
    if see:
        out["see"] = [name for name, _ in see]
    if hasattr(d, "params"):
        out["params"] = [{"name": p.name, "type": (expr(p.type) if isinstance(p.type, A.RangeExpr) else p.type)}
                         for p in d.params]
    if isinstance(d, (A.Section, A.Rule)):
        out["contains"] = [c.id for c in d.body if c.id and not isinstance(c, A.ProseBlock)]
    elif isinstance(d, A.Note):
        out["note_kind"] = d.kind
        out["pinned_by"] = [n for n, _ in d.pinned_by]
    elif isinstance(d, A.Stat):
        out["type"] = expr(d.type) if isinstance(d.type, A.RangeExpr) else d.type
        out["clamped"] = d.clamped
    elif isinstance(d, A.Situation):
        out["choices"] = list(d.choices)
        out["range"] = expr(d.range)
    elif isinstance(d, A.Die):
        out["sides"] = d.base_sides
        out["faces"] = list(d.faces)
    elif isinstance(d, A.Test):
        out["roll"] = expr(d.roll.dice) if d.roll else None
        out["against"] = {"op": d.roll.op, "target": expr(d.roll.target)} if d.roll else None
        out["natural_fails"] = list(d.natural_fails)
        out["natural_succeeds"] = list(d.natural_succeeds)
        out["never_better_than"] = expr(d.never_better)
        out["never_worse_than"] = expr(d.never_worse)
        out["rerolls"] = list(d.rerolls)
    elif isinstance(d, A.Table):
        try:
            data = evaluate_table(ev, d)
            out["axes"] = data["axes"]
            out["cells"] = data["cells"]
            out["p_is"] = data["p_is"]
        except ResolveError as err:
            out["cells"] = None
            out["cells_error"] = err.message
    elif isinstance(d, A.Formula):
        out["result"] = expr(d.result)
    elif isinstance(d, A.Modifier):
        out["effects"] = [expr(e) for e in d.effects]
        out["when"] = expr(d.when)
        out["group"] = d.group
    elif isinstance(d, A.Ability):
        out["effects"] = [expr(e) for e in d.effects]
        out["hooks"] = [expression_text(h, sources) for h in d.hooks]
        out["when_attacked"] = [expr(e) for e in d.defence]
        out["stacking"] = d.stacking
    elif isinstance(d, A.Attack):
        out["steps"] = [{"name": s.name, "value": expr(s.value), "removes_from": s.removes_from,
                         "target": expr(s.removes_target), "damage": expr(s.damage)} for s in d.steps]
    elif isinstance(d, A.Profile):
        out["profile"] = d.kind
        out["stats"] = {s.stat: s.text for s in d.stats}
        out["keywords"] = [k for k, _ in d.keywords]
        out["abilities"] = [{"id": a.ability, "value": a.arg} for a in d.abilities]
        out["weapons"] = [w for w, _ in d.weapons]
        out["points"] = d.points
        out["class"] = d.klass
    elif isinstance(d, A.Squad):
        out["unit"] = d.unit
        out["models"] = {"min": d.min_models, "max": d.max_models}
        out["points"] = d.points
        out["points_per_extra_model"] = d.points_per_extra
        out["keywords"] = [k for k, _ in d.keywords]
        out["abilities"] = [{"id": a.ability, "value": a.arg} for a in d.abilities]
        out["weapons"] = [w for w, _ in d.weapons]
        out["special"] = d.special
    elif isinstance(d, A.Army):
        out["points"] = list(d.points)
        out["requires"] = [{"rule": expr(q.expr), "message": q.message} for q in d.requires]
        out["each_unit_requires"] = [{"rule": expr(q.expr), "message": q.message} for q in d.unit_requires]
    elif isinstance(d, A.Game):
        out["turns"] = d.turns
        out["activation"] = d.activation
        out["phases"] = [p.id for p in d.phases]
        out["scores"] = [s.id for s in d.scores]
        out["victories"] = [v.id for v in d.victories]
        if d.control is not None:
            out["control"] = {"within": d.control.reach, "by": d.control.by}
            if d.control.sticky:
                out["control"]["sticky"] = True
        if d.terrain:
            out["terrain_kinds"] = [{"id": k.id, "title": k.title, "sets_in_it": k.inside, "sets_through_it": k.through,
                                     "blocks_sight": k.blocks, "move_cost": k.cost, "impassable": k.impassable}
                                    for k in d.terrain]
        out["undecided"] = d.undecided
    elif isinstance(d, A.Scenario):
        out["game"] = d.game
        out["turns"] = d.turns
        out["distance"] = d.distance
        out["first"] = d.first
        out["sides"] = [{"id": s.id, "title": s.title, "deploy": list(s.zone) if s.zone else None,
                         "units": [{"models": u.count, "unit": u.name, "weapons": list(u.weapons),
                                    "at": u.at if u.at_y is None else [u.at, u.at_y]}
                                   for u in s.units]} for s in d.sides]
        if d.objectives:
            out["objectives"] = [{"id": o.id, "title": o.title, "at": list(o.at)} for o in d.objectives]
        if d.table is not None:
            out["table"] = {"width": d.table[0], "depth": d.table[1]}
            out["terrain"] = [{"id": t.id, "title": t.title, "kind": t.kind, "from": list(t.corners[:2]),
                               "to": list(t.corners[2:])} for t in d.terrain]
    elif isinstance(d, A.Example):
        out["lets"] = [{"name": let.name, "value": expr(let.value)} for let in d.lets]
        out["expects"] = [expression_text(e, sources) for e in d.expects]
    elif isinstance(d, A.Property):
        out["for"] = [{"name": b.name, "range": expr(b.range)} for b in d.bindings]
        out["expects"] = [expression_text(e, sources) for e in d.expects]
    return out
