"""The pages of one ruleset, and of the site, each from one template and its context.

A page is a template name plus the values it is given.  The rulebook pages
walk the author's sections in order and render each declaration with the
template of its kind (``item/<kind>.md.j2``), so a project can override how
one kind looks without copying the rest.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import jinja2
from markupsafe import Markup

from compiler import ast as A
from compiler.model.ruleset import Ruleset, kind_of
from compiler.resolve.evaluator import Evaluator
from compiler.site.changes import HouseRulesView, ReleaseDiffView, house_rules, release_diffs
from compiler.site.examples import ExampleView, example_views
from compiler.site.sitemap import (DATASHEET_TYPES, EXAMPLE_TYPES, LEXICON_KINDS, LEXICON_TYPES, SiteMap,
                      ruleset_pages, section_page)
from compiler.site.tables import TableView, legend, table_view
from compiler.site.tools import PageTools
from compiler.resolve.coverage import pins
from compiler.site.usage import uses
from compiler.trace import recording

# Which template renders each kind of declaration inside a rulebook page.
ITEM_TEMPLATES: dict[type, str] = {
    A.Section: "item/section.md.j2",
    A.Rule: "item/rule.md.j2",
    A.ProseBlock: "item/prose.md.j2",
    A.Note: "item/note.md.j2",
    A.Table: "item/table.md.j2",
    A.Test: "item/test.md.j2",
    A.Formula: "item/formula.md.j2",
    A.Modifier: "item/modifier.md.j2",
    A.Attack: "item/attack.md.j2",
    A.Army: "item/army.md.j2",
    A.Game: "item/game.md.j2",
}
REFERENCES_TEMPLATE = "item/references.md.j2"  # lexicon entries, datasheets and examples met in the rulebook

# The names each template is given (every page template also gets ``page``: path and title).
# Documented on the site's "Templates and overrides" page; the renderer gives each template exactly
# these (:func:`checked_context`), and a test checks the templates use no others.
_RULESET = ("site", "rs", "r")
TEMPLATE_CONTEXT: dict[str, tuple[str, ...]] = {
    "home.md.j2": ("site", "r", "summaries"),
    "comparison.md.j2": ("site", "r", "matchups"),
    "overview.md.j2": _RULESET + ("counts", "contents", "loose", "notes", "base", "fidelity", "words",
                                    "not_played"),
    "rulebook.md.j2": _RULESET + ("section", "body", "previous", "next"),
    "lexicon.md.j2": _RULESET + ("groups", "entries"),
    "quick-reference.md.j2": _RULESET + ("legend", "tables", "records", "tests", "modifiers", "abilities", "games", "attacks"),
    "datasheets.md.j2": _RULESET + ("units", "weapons", "squads", "unit_stats", "weapon_stats", "armies",
                                    "unit_blocks", "samples"),
    "examples.md.j2": _RULESET + ("groups", "views"),
    "notes.md.j2": _RULESET + ("groups",),
    "house-rules.md.j2": _RULESET + ("base", "view"),
    "changes.md.j2": _RULESET + ("history", "releases"),
    "battles.md.j2": _RULESET + ("views", "games", "seed", "left_out", "words", "not_played"),
    REFERENCES_TEMPLATE: ("refs", "level", "r", "rs", "extra"),
    **{name: ("d", "level", "r", "rs", "extra") for name in ITEM_TEMPLATES.values()},
}



def checked_context(template: str, context: Mapping[str, Any]) -> Mapping[str, Any]:
    """``context``, once it is known to hold exactly the names :data:`TEMPLATE_CONTEXT` declares for ``template``.

    The declared names are the contract an override template is written against;
    a context that gives more or fewer is a bug in the renderer, and fails the build.

    >>> checked_context("home.md.j2", {"site": {}, "r": None, "summaries": []})["summaries"]
    []
    >>> checked_context("home.md.j2", {"site": {}})
    Traceback (most recent call last):
    ...
    TypeError: home.md.j2 is declared to get r, site, summaries but was given site
    """
    declared = TEMPLATE_CONTEXT.get(template)
    if declared is None or set(context) != set(declared):
        wanted = ", ".join(sorted(declared)) if declared is not None else "nothing (it is not declared)"
        raise TypeError(f"{template} is declared to get {wanted} but was given {', '.join(sorted(context))}")
    return context


LEXICON_GROUPS = (
    ("stat", "Characteristics"), ("keyword", "Keywords"), ("ability", "Abilities"),
    ("status", "Statuses"), ("term", "Terms"), ("situation", "Situations"), ("die", "Dice"),
)
NOTE_GROUPS = (("open question", "Open questions"), ("assumption", "Assumptions"),
               ("designer note", "Designer's notes"), ("prose only", "Rules left to the players"))


@dataclass
class Page:
    path: str
    title: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class RulesetData:
    """What the pages of one ruleset share: its model, tools' inputs, computed tables and examples."""

    rs: Ruleset
    sitemap: SiteMap
    sources: Mapping[str, str]
    uses: Mapping[str, tuple[str, ...]]
    tables: Mapping[str, TableView]
    examples: Mapping[str, ExampleView]
    house_rules: HouseRulesView | None = None
    releases: tuple[ReleaseDiffView, ...] = ()
    pins: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def tools(self, page: str) -> PageTools:
        return PageTools(page, self.rs, self.sitemap, self.sources, self.uses, self.pins)


def ruleset_data(rs: Ruleset, sitemap: SiteMap, sources: Mapping[str, str]) -> RulesetData:
    ev = Evaluator(rs)
    tables = {t.id: table_view(rs, t, ev) for t in rs.of_type(A.Table)}
    pinned = pins(rs)  # every example run, recording what it exercises
    with recording():  # the examples' pages then read the memo that recording filled
        views = example_views(rs)
    return RulesetData(rs, sitemap, sources, uses(rs), tables, views, house_rules(rs),
                       release_diffs(rs), pinned)


# ---------------------------------------------------------------------------
# Rulebook bodies: the author's declarations in order, one template per kind
# ---------------------------------------------------------------------------

def _homed_elsewhere(d: A.Decl) -> bool:
    return isinstance(d, LEXICON_TYPES + DATASHEET_TYPES + EXAMPLE_TYPES)


def render_items(env: jinja2.Environment, data: RulesetData, items: tuple[A.Decl, ...], level: int,
                 r: PageTools) -> str:
    """The Markdown of some declarations, in order, with nested sections one level deeper."""
    out: list[str] = []
    batch: list[A.Decl] = []

    def flush() -> None:
        if batch:
            out.append(env.get_template(REFERENCES_TEMPLATE).render(checked_context(
                REFERENCES_TEMPLATE, dict(refs=tuple(batch), level=level, r=r, rs=data.rs, extra={}))))
            batch.clear()

    for d in items:
        if isinstance(d, (A.Replace, A.Remove, A.Extend)):
            continue
        if _homed_elsewhere(d):
            batch.append(d)
            continue
        flush()
        template = ITEM_TEMPLATES.get(type(d))
        if template is None:
            continue
        extra: dict[str, Any] = {}
        if isinstance(d, A.Table):
            extra["table"] = data.tables[d.id]
        out.append(env.get_template(template).render(checked_context(
            template, dict(d=d, level=level, r=r, rs=data.rs, extra=extra))))
        if isinstance(d, (A.Section, A.Rule)):
            out.append(render_items(env, data, d.body, level + 1, r))
    flush()
    return "\n\n".join(s.strip("\n") for s in out if s.strip())


# ---------------------------------------------------------------------------
# The pages of one ruleset
# ---------------------------------------------------------------------------

def counts(rs: Ruleset) -> list[tuple[str, int, str]]:
    """(label, how many, page role) for the overview."""
    kinds: dict[str, int] = {}
    for d in rs.walk():
        if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)):
            continue
        k = kind_of(d)
        kinds[k] = kinds.get(k, 0) + 1
    rows = [
        ("sections", kinds.get("section", 0), "overview"),
        ("rules", kinds.get("rule", 0), "overview"),
        ("lexicon entries", sum(kinds.get(k, 0) for k in LEXICON_KINDS), "lexicon"),
        ("tables", kinds.get("table", 0), "quickref"),
        ("tests", kinds.get("test", 0), "quickref"),
        ("modifiers", kinds.get("modifier", 0), "quickref"),
        ("units", kinds.get("unit", 0), "datasheets"),
        ("weapons", kinds.get("weapon", 0), "datasheets"),
        ("squads", kinds.get("squad", 0), "datasheets"),
        ("examples", kinds.get("example", 0), "examples"),
        ("properties", kinds.get("property", 0), "examples"),
        ("notes", sum(kinds.get(k, 0) for k, _ in NOTE_GROUPS), "notes"),
    ]
    return [(SINGULAR.get(label, label) if n == 1 else label, n, role) for label, n, role in rows if n]


SINGULAR = {"sections": "section", "rules": "rule", "lexicon entries": "lexicon entry", "tables": "table",
            "tests": "test", "modifiers": "modifier", "units": "unit", "weapons": "weapon", "squads": "squad",
            "examples": "example", "properties": "property", "notes": "note"}


def _contents(rs: Ruleset) -> list[dict[str, Any]]:
    """The rulebook's table of contents: top sections with their subsections and rules."""
    def sub(items: tuple[A.Decl, ...]) -> list[dict[str, Any]]:
        return [{"d": d, "children": sub(d.body)} for d in items if isinstance(d, (A.Section, A.Rule))]
    return [{"d": d, "path": section_page(rs.id, d.id), "children": sub(d.body)}
            for d in rs.items if isinstance(d, A.Section)]


def ruleset_pages_for(env: jinja2.Environment, data: RulesetData, site: Mapping[str, Any]) -> list[Page]:
    rs = data.rs
    roles = ruleset_pages(rs.id)
    pages: list[Page] = []
    sections = [d for d in rs.items if isinstance(d, A.Section)]
    loose = tuple(d for d in rs.items if not isinstance(d, A.Section))

    from compiler.site.fidelity import WORDS, fidelity, left_out, unplayed

    r = data.tools(roles["overview"])
    pages.append(Page(roles["overview"], rs.title, "overview.md.j2", dict(
        site=site, rs=rs, r=r, counts=counts(rs), contents=_contents(rs),
        loose=Markup(render_items(env, data, loose, 2, r)),
        notes=_notes(rs), base=rs.base, fidelity=fidelity(rs), words=WORDS, not_played=unplayed(rs),
    )))
    for i, sec in enumerate(sections):
        path = section_page(rs.id, sec.id)
        r = data.tools(path)
        pages.append(Page(path, sec.title, "rulebook.md.j2", dict(
            site=site, rs=rs, r=r, section=sec,
            body=Markup(render_items(env, data, sec.body, 2, r)),
            previous=sections[i - 1] if i > 0 else None,
            next=sections[i + 1] if i + 1 < len(sections) else None,
        )))
    r = data.tools(roles["lexicon"])
    groups = [(kind, title, [d for d in rs.walk() if isinstance(d, LEXICON_TYPES) and kind_of(d) == kind])
              for kind, title in LEXICON_GROUPS]
    entries = sorted((d for d in rs.walk() if isinstance(d, LEXICON_TYPES)),
                     key=lambda d: ((getattr(d, "title", None) or d.id).casefold(), d.id))
    pages.append(Page(roles["lexicon"], "Lexicon", "lexicon.md.j2", dict(
        site=site, rs=rs, r=r, groups=[g for g in groups if g[2]], entries=entries,
    )))
    r = data.tools(roles["quickref"])
    pages.append(Page(roles["quickref"], "Quick reference", "quick-reference.md.j2", dict(
        site=site, rs=rs, r=r, legend=legend(rs),
        tables=[data.tables[t.id] for t in rs.of_type(A.Table) if not record_table(rs, t, data.uses)],
        records=[(data.tables[t.id], [u for u in data.uses.get(t.id, ()) if isinstance(rs.get(u), A.Note)])
                 for t in rs.of_type(A.Table) if record_table(rs, t, data.uses)],
        tests=list(rs.of_type(A.Test)), modifiers=list(rs.of_type(A.Modifier)),
        abilities=[a for a in rs.of_type(A.Ability) if a.hooks or a.effects or a.defence],
        games=list(rs.of_type(A.Game)), attacks=list(rs.of_type(A.Attack)),
    )))
    r = data.tools(roles["datasheets"])
    samples = [p for p in rs.of_type(A.Profile) if p.kind == "unit" and sample_profile(rs, p)]
    units = [p for p in rs.of_type(A.Profile) if p.kind == "unit" and p not in samples]
    weapons = [p for p in rs.of_type(A.Profile) if p.kind == "weapon"]
    pages.append(Page(roles["datasheets"], "Datasheets", "datasheets.md.j2", dict(
        site=site, rs=rs, r=r, units=units, weapons=weapons, squads=list(rs.of_type(A.Squad)),
        unit_stats=_stat_columns(rs, units), weapon_stats=_stat_columns(rs, weapons),
        armies=list(rs.of_type(A.Army)), unit_blocks=unit_blocks(rs, units), samples=unit_blocks(rs, samples),
    )))
    r = data.tools(roles["examples"])
    pages.append(Page(roles["examples"], "Worked examples", "examples.md.j2", dict(
        site=site, rs=rs, r=r, groups=_example_groups(rs), views=data.examples,
    )))
    r = data.tools(roles["notes"])
    pages.append(Page(roles["notes"], "Notes", "notes.md.j2", dict(
        site=site, rs=rs, r=r, groups=[(t, ns) for t, ns in _notes(rs) if ns],
    )))
    if data.house_rules is not None:
        r = data.tools(roles["house_rules"])
        pages.append(Page(roles["house_rules"], "What these house rules change", "house-rules.md.j2", dict(
            site=site, rs=rs, r=r, base=rs.base, view=data.house_rules,
        )))
    if rs.of_type(A.Scenario):
        from compiler.site.battles import GAMES, SEED, scenario_views
        r = data.tools(roles["battles"])
        pages.append(Page(roles["battles"], "Battles", "battles.md.j2", dict(
            site=site, rs=rs, r=r, views=scenario_views(rs, site.get("balance", {}).get(rs.id)), games=GAMES, seed=SEED, left_out=left_out(rs),
            words=WORDS, not_played=unplayed(rs),
        )))
    r = data.tools(roles["changes"])
    pages.append(Page(roles["changes"], "Changes", "changes.md.j2", dict(
        site=site, rs=rs, r=r, history=tuple(rs.header.history), releases=data.releases,
    )))
    return pages


def record_table(rs: Ruleset, t: A.Table, used: Mapping[str, tuple[str, ...]]) -> bool:
    """A table kept for the record, not for play: nothing of the rules reads it (no test, formula,
    rule, stat…), only notes and properties that compare it with the one in play — such as a
    chart as a source printed it, beside the corrected one.  The quick reference leaves it out of
    its charts and says which one to use instead."""
    users = [rs.get(u) for u in used.get(t.id, ())]
    return bool(users) and all(isinstance(u, (A.Note, A.Property, A.Example)) for u in users) \
        and any(isinstance(u, (A.Note, A.Property)) for u in users)


def _notes(rs: Ruleset) -> list[tuple[str, list[A.Note]]]:
    return [(title, [n for n in rs.of_type(A.Note) if n.kind == kind]) for kind, title in NOTE_GROUPS]


def sample_profile(rs: Ruleset, p: A.Profile) -> bool:
    """A unit written for the worked examples, not for an army: it sits in a section that holds
    examples or properties (its own, or one around it)."""
    return any(isinstance(d, EXAMPLE_TYPES) for s in rs.section_path(p.id) for d in A.walk_decls(s.body))


@dataclass(frozen=True)
class UnitBlock:
    """Units shown together: one card for a unit with more than a stat line, or one table for a run
    of units that have only a stat line, all with the same stats (a list of move allowances)."""

    stats: tuple[str, ...]  # the table's stat columns; empty for a card
    units: tuple[A.Profile, ...]

    @property
    def card(self) -> bool:
        return not self.stats


def unit_blocks(rs: Ruleset, units: list[A.Profile]) -> list[UnitBlock]:
    """Cards in document order; the stat-line-only units of one section with the same stats join
    one table where the first of them stands."""
    blocks: list[UnitBlock] = []
    tables: dict[tuple[str, tuple[str, ...]], int] = {}
    for u in units:
        bare = u.stats and u.points is None and not (u.keywords or u.abilities or u.weapons or u.prose
                                                      or u.klass)
        if not bare:
            blocks.append(UnitBlock((), (u,)))
            continue
        path = rs.section_path(u.id)
        key = (path[-1].id if path else "", tuple(s.stat for s in u.stats))
        if key in tables:
            i = tables[key]
            blocks[i] = UnitBlock(key[1], blocks[i].units + (u,))
        else:
            tables[key] = len(blocks)
            blocks.append(UnitBlock(key[1], (u,)))
    return blocks


def _stat_columns(rs: Ruleset, profiles: list[A.Profile]) -> list[str]:
    """The stats the profiles use, in the order the lexicon declares them."""
    used = {s.stat for p in profiles for s in p.stats}
    ordered = [s for s in rs.stats if s in used]
    return ordered + sorted(used - set(ordered))


def _example_groups(rs: Ruleset) -> list[tuple[A.Decl | None, list[A.Decl]]]:
    """Examples and properties grouped under the innermost section that holds them."""
    groups: list[tuple[A.Decl | None, list[A.Decl]]] = []
    index: dict[str, int] = {}
    for d in rs.walk():
        if not isinstance(d, EXAMPLE_TYPES):
            continue
        path = rs.section_path(d.id)
        owner = path[-1] if path else None
        key = owner.id if owner is not None else ""
        if key not in index:
            index[key] = len(groups)
            groups.append((owner, []))
        groups[index[key]][1].append(d)
    return groups

