"""Where every declaration lives on the site: its page and its anchor.

Each declaration has exactly one home, and its stable id is its anchor there:

* lexicon entries (stats, keywords, statuses, terms, abilities, situations,
  dice) on ``<ruleset>/lexicon.md``;
* units, weapons and squads on ``<ruleset>/datasheets.md``;
* examples and properties on ``<ruleset>/examples.md``;
* everything else (sections, rules, notes, tables, tests, formulas,
  modifiers, attacks, armies, games and their phases) on the rulebook page of
  the top-level section it stands in, ``<ruleset>/rulebook/<section>.md``, or
  on the overview ``<ruleset>/index.md`` when it stands outside any section.

>>> ruleset_pages("console-40k")["lexicon"], section_page("console-40k", "shooting_phase")
('console-40k/lexicon.md', 'console-40k/rulebook/shooting_phase.md')
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from compiler import ast as A
from compiler.model.ruleset import GamePart, Ruleset, game_parts, kind_of
from compiler.site.markup import attribute, plain, strip_links

LEXICON_TYPES = (A.Stat, A.Entry, A.Ability, A.Situation, A.Die)
DATASHEET_TYPES = (A.Profile, A.Squad)
EXAMPLE_TYPES = (A.Example, A.Property)

LEXICON_KINDS = ("stat", "keyword", "ability", "status", "term", "situation", "die")


def ruleset_pages(rs_id: str) -> dict[str, str]:
    """The fixed pages of one ruleset, by role."""
    return {
        "overview": f"{rs_id}/index.md",
        "lexicon": f"{rs_id}/lexicon.md",
        "quickref": f"{rs_id}/quick-reference.md",
        "datasheets": f"{rs_id}/datasheets.md",
        "examples": f"{rs_id}/examples.md",
        "notes": f"{rs_id}/notes.md",
        "changes": f"{rs_id}/changes.md",
        "house_rules": f"{rs_id}/house-rules.md",  # only an overlay (a ruleset that extends another) has it
        "battles": f"{rs_id}/battles.md",  # only a ruleset with scenarios has it
        "army": f"{rs_id}/army.md",  # only a ruleset with army rules has it (compiler.site.army)
        "calculator": f"{rs_id}/calculator.md",  # only a ruleset the site gives a calculator (compiler.site.calculator)
    }


#: The generated pages of every ruleset in the order the navigation lists them after its rulebook:
#: (role in :func:`ruleset_pages`, title, the title used when a rulebook chapter has the same one).
#: A new kind of page is one more line here (and its role in :func:`ruleset_pages`).
REFERENCE_PAGES: tuple[tuple[str, str, str], ...] = (
    ("lexicon", "Lexicon", "Lexicon A–Z"),
    ("quickref", "Quick reference", "Quick-reference tables"),
    ("datasheets", "Datasheets", "All datasheets"),
    ("examples", "Worked examples", "All worked examples"),
    ("notes", "Notes", "All notes"),
    ("changes", "Changes", "Change history"),
)


def navigation(rulesets: tuple[Ruleset, ...], comparison: bool, names: Mapping[str, str] | None = None,
               hidden: frozenset[str] = frozenset(), calculators: frozenset[str] = frozenset(),
               builders: frozenset[str] = frozenset()) -> tuple[Any, ...]:
    """The site's navigation, MkDocs-style: Home, a tab per ruleset (by its short title, or the name
    ``names`` gives it), Comparison.  Chapters whose paths are in ``hidden`` (stubs that only point
    elsewhere) are left out; their pages are still built.

    Inside a ruleset: its overview, what an overlay changes, the rulebook's chapters, then the
    :data:`REFERENCE_PAGES` under "Reference"; a page whose title a chapter already has gets its
    other title, so no two entries of one sidebar read the same.

    >>> from compiler.driver import compile_text
    >>> rs = compile_text('ruleset demo "Demo: a game":\\n  version 1.0.0\\nsection lexicon "Lexicon":\\n  term turn "Turn": "A round."\\n').rulesets
    >>> nav = navigation(rs, False)
    >>> list(nav[1]), [list(e)[0] for e in nav[1]["Demo"]]
    (['Demo'], ['Overview', 'Rulebook', 'Reference'])
    >>> [list(e)[0] for e in nav[1]["Demo"][2]["Reference"]][:3]
    ['Lexicon A–Z', 'Quick reference', 'Datasheets']
    """
    nav: list[Any] = [{"Home": "index.md"}]
    names = short_titles(rulesets, names)
    for rs in rulesets:
        pages = ruleset_pages(rs.id)
        chapters = [{s.title: section_page(rs.id, s.id)} for s in rs.items
                    if isinstance(s, A.Section) and section_page(rs.id, s.id) not in hidden]
        taken = {s.title.casefold() for s in rs.items if isinstance(s, A.Section)}  # hidden ones too: titles stay apart
        entry: list[Any] = [{"Overview": pages["overview"]}]
        if rs.base is not None:
            entry.append({"What these house rules change": pages["house_rules"]})
        if chapters:
            entry.append({"Rulebook": chapters})
        if rs.of_type(A.Scenario):
            entry.append({"Simulated battles" if "battles" in taken else "Battles": pages["battles"]})
        if rs.id in calculators:
            entry.append({"Matchup calculator": f"{rs.id}/calculator.md"})
        if rs.id in builders:
            entry.append({"Army builder": pages["army"]})
        entry.append({"Reference": [{other if title.casefold() in taken else title: pages[role]}
                                    for role, title, other in REFERENCE_PAGES]})
        nav.append({names[rs.id]: entry})
    if comparison:
        nav.append({"Compare rulesets": "comparison.md"})
    return tuple(nav)


# What makes a rulebook chapter worth a place in the navigation: a rule, a note, a table… of its
# own.  A chapter of nothing but a short introduction and declarations shown on other pages (units,
# lexicon entries, examples, scenarios) is a stub: its page is built, but the navigation leads to
# the pages that hold its declarations instead.
_CHAPTER_CONTENT = (A.Rule, A.Note, A.Table, A.Test, A.Formula, A.Modifier, A.Attack, A.Army, A.Game)
_STUB_WORDS = 60  # an introduction this long or longer (a few sentences of rules) is reading in its own right


def _prose_words(section: A.Section) -> int:
    texts = [p.text for d in (section, *A.walk_decls(section.body)) if isinstance(d, A.Section)
             for p in (getattr(d, "prose", ()) or ())]
    texts += [d.text for d in A.walk_decls(section.body) if isinstance(d, A.ProseBlock)]
    return sum(len(t.split()) for t in texts)


def stub_chapters(rulesets: tuple[Ruleset, ...]) -> frozenset[str]:
    """The paths of the rulebook chapters that hold nothing of their own (see above).

    >>> from compiler.driver import compile_text
    >>> rs = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nsection words "Words":\\n  term turn "Turn": "A round."\\n'
    ...                   'section play "Play":\\n  rule r "R":\\n    \"\"\"Play.\"\"\"\\n').rulesets
    >>> sorted(stub_chapters(rs))
    ['demo/rulebook/words.md']
    """
    return frozenset(section_page(rs.id, s.id) for rs in rulesets for s in rs.items
                     if isinstance(s, A.Section) and _prose_words(s) < _STUB_WORDS
                     and not any(isinstance(d, _CHAPTER_CONTENT) for d in A.walk_decls(s.body)))


def short_title(title: str) -> str:
    """A ruleset's title cut to its name, for tabs and table headings: the words before a colon or a bracket.

    >>> short_title("Classic 40K: the cover-save game"), short_title("40K-S (Beta Test 2)"), short_title("Dark Millennia")
    ('Classic 40K', '40K-S', 'Dark Millennia')
    """
    for mark in (":", " (", " — "):
        head = title.split(mark, 1)[0].strip()
        if len(head) >= 3 and head != title:
            title = head
    return title


def short_titles(rulesets: tuple[Ruleset, ...], chosen: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each ruleset's :func:`short_title` (or the name ``chosen`` gives it: the site's ``tabs``
    setting), or its full title where two short ones would be the same."""
    chosen = chosen or {}
    shorts = {rs.id: chosen.get(rs.id) or short_title(rs.title) for rs in rulesets}
    taken = [v for v in shorts.values()]
    return {rs.id: shorts[rs.id] if taken.count(shorts[rs.id]) == 1 else rs.title for rs in rulesets}


def section_page(rs_id: str, section_id: str) -> str:
    return f"{rs_id}/rulebook/{section_id}.md"


def relative(from_page: str, to_page: str) -> str:
    """A link from one page of the Markdown tree to another (``""`` for the same page)."""
    if from_page == to_page:
        return ""
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


@dataclass(frozen=True)
class Place:
    page: str
    anchor: str
    title: str  # the declaration's title, plain text
    kind: str
    tooltip: str  # plain text: the one-line definition, or kind and title


class SiteMap:
    """The home page and anchor of every declaration of every ruleset."""

    def __init__(self, rulesets: tuple[Ruleset, ...]) -> None:
        places: dict[tuple[str, str], Place] = {}
        for rs in rulesets:
            pages = ruleset_pages(rs.id)
            for top in rs.items:
                page = section_page(rs.id, top.id) if isinstance(top, A.Section) else pages["overview"]
                for d in A.walk_decls((top,)):
                    if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)) or not d.id:
                        continue
                    home = page
                    if isinstance(d, LEXICON_TYPES):
                        home = pages["lexicon"]
                    elif isinstance(d, DATASHEET_TYPES):
                        home = pages["datasheets"]
                    elif isinstance(d, EXAMPLE_TYPES):
                        home = pages["examples"]
                    elif isinstance(d, A.Scenario):
                        home = pages["battles"]
                    places.setdefault((rs.id, d.id), self._place(rs, d, home))
                    if isinstance(d, A.Game):
                        for part in game_parts(d):
                            places.setdefault((rs.id, part.id), self._place(rs, part, home))
        self.places: Mapping[tuple[str, str], Place] = MappingProxyType(places)
        self._rulesets = {rs.id: rs for rs in rulesets}

    @staticmethod
    def _place(rs: Ruleset, d: A.Decl | GamePart, page: str) -> Place:
        title = getattr(d, "title", None) or d.id
        kind = kind_of(d)
        short = getattr(d, "short", None) or getattr(d, "text", None)
        if short:
            tip = strip_links(short, lambda ref: _title_in(rs, ref))
        else:
            tip = f"{kind[:1].upper()}{kind[1:]}: {title}"
        return Place(page, d.id, title, kind, " ".join(tip.split()))

    def get(self, rs_id: str, decl_id: str) -> Place | None:
        return self.places.get((rs_id, decl_id))

    def url(self, from_page: str, rs_id: str, decl_id: str) -> str:
        """The relative link from ``from_page`` to a declaration's anchor."""
        place = self.places[(rs_id, decl_id)]
        return f"{relative(from_page, place.page)}#{place.anchor}"

    def link(self, from_page: str, rs_id: str, decl_id: str, words: str | None = None,
             words_markdown: str | None = None) -> str:
        """A Markdown link to a declaration with its tooltip; ``words`` are plain text.

        Without words, a link reads as the name a reader meets in the rules: a stat
        or a die by its id (``BS``, ``D3``), anything else by its title.
        """
        place = self.places.get((rs_id, decl_id))
        if words_markdown is not None:
            shown = words_markdown
        elif words is not None:
            shown = plain(words)
        else:
            shown = default_words(place, decl_id)
        if place is None:
            return shown
        return f'[{shown}]({self.url(from_page, rs_id, decl_id)} "{attribute(place.tooltip)}")'


def default_words(place: Place | None, decl_id: str) -> str:
    """The words of a ``[[id]]`` link written without words, as Markdown."""
    if place is None:
        return plain(decl_id)
    if place.kind in ("stat", "die"):
        return plain(decl_id)
    return plain(place.title)


def _title_in(rs: Ruleset, ref: str) -> str:
    d = rs.symbols.get(ref)
    return getattr(d, "title", None) or ref
