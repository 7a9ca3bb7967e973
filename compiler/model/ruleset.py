"""The rules model: one checked, immutable ruleset — the only thing the resolver
and the renderers read.

:func:`from_source` turns a parsed :class:`~compiler.model.load.RulesetSource` into a
:class:`Ruleset`; an overlay (a ruleset that ``extends`` another) is merged
with its base here: ``replace`` swaps a base declaration for a new one,
``remove`` drops one, ``extend`` adds items inside a base section, and new
declarations are appended.  Every declaration keeps its ``origin``
("base", "replaced", "added") so the site can mark what an overlay changed.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Iterator, Mapping, TypeVar

from compiler import ast as A
from compiler.diagnostics import Sink, Span
from compiler.model.load import RulesetSource

D = TypeVar("D", bound=A.Decl)

# Which declarations have their own page entry / id namespace.
KIND_NAMES: dict[type, str] = {
    A.Section: "section",
    A.Rule: "rule",
    A.Note: "note",
    A.Stat: "stat",
    A.Entry: "term",
    A.Situation: "situation",
    A.Die: "die",
    A.Test: "test",
    A.Table: "table",
    A.Formula: "formula",
    A.Modifier: "modifier",
    A.Ability: "ability",
    A.Attack: "attack",
    A.Profile: "profile",
    A.Squad: "squad",
    A.Army: "army",
    A.Game: "game",
    A.Example: "example",
    A.Property: "property",
}


def game_parts(game: A.Game) -> list:  # type: ignore[type-arg]
    """The phases, phase steps, scores and victory conditions of a game, each with an id."""
    parts: list = []  # type: ignore[type-arg]
    for ph in game.phases:
        parts.append(ph)
        parts.extend(ph.steps)
    parts.extend(game.scores)
    parts.extend(game.victories)
    return parts


def kind_of(decl: A.Decl) -> str:
    """A declaration's kind in words: "stat", "keyword", "unit", "table"…"""
    part_kinds = {A.Phase: "phase", A.PhaseStep: "step", A.Score: "score", A.Victory: "victory condition"}
    if type(decl) in part_kinds:
        return part_kinds[type(decl)]
    if isinstance(decl, A.Entry):
        return decl.kind
    if isinstance(decl, A.Profile):
        return decl.kind
    if isinstance(decl, A.Note):
        return decl.kind
    return KIND_NAMES.get(type(decl), type(decl).__name__.lower())


@dataclass(frozen=True)
class Ruleset:
    """A whole ruleset after parsing, overlay merging and checking."""

    id: str
    title: str
    header: A.Header
    folder: str
    files: tuple[str, ...]
    items: tuple[A.Decl, ...]
    base: "Ruleset | None" = None
    origin: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    removed: tuple[str, ...] = ()
    # Where this overlay replaces or removes each base declaration (id -> the replace/remove line).
    changed_at: Mapping[str, Span] = field(default_factory=lambda: MappingProxyType({}))

    # -- lookups ---------------------------------------------------------------

    @property
    def version(self) -> str | None:
        return self.header.version

    def walk(self) -> Iterator[A.Decl]:
        """Every declaration in document order (sections before their contents)."""
        yield from A.walk_decls(self.items)

    @cached_property
    def symbols(self) -> Mapping[str, A.Decl]:
        """Every named declaration by id (free-standing prose excluded)."""
        table: dict[str, A.Decl] = {}
        for d in self.walk():
            if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)) or not d.id:
                continue
            table.setdefault(d.id, d)
            if isinstance(d, A.Game):
                for part in game_parts(d):
                    table.setdefault(part.id, part)  # type: ignore[arg-type]
        return MappingProxyType(table)

    def get(self, id_: str) -> A.Decl | None:
        return self.symbols.get(id_)

    @cached_property
    def _all(self) -> tuple[A.Decl, ...]:
        return tuple(self.walk())

    def of_type(self, cls: type[D]) -> tuple[D, ...]:
        """Every declaration of one kind, in document order (memoised per kind)."""
        cache = self.__dict__.setdefault("_of_type", {})
        if cls not in cache:
            cache[cls] = tuple(d for d in self._all if isinstance(d, cls))
        return cache[cls]

    @cached_property
    def dice(self) -> Mapping[str, A.Die]:
        return MappingProxyType({d.id: d for d in self.of_type(A.Die)})

    @cached_property
    def stats(self) -> Mapping[str, A.Stat]:
        return MappingProxyType({d.id: d for d in self.of_type(A.Stat)})

    @cached_property
    def situations(self) -> Mapping[str, A.Situation]:
        return MappingProxyType({d.id: d for d in self.of_type(A.Situation)})

    @cached_property
    def profiles(self) -> Mapping[str, A.Profile]:
        return MappingProxyType({d.id: d for d in self.of_type(A.Profile)})

    @cached_property
    def callables(self) -> Mapping[str, A.Decl]:
        """Tests, tables, formulas and attacks: everything that can be called."""
        return MappingProxyType({d.id: d for d in self.walk()
                                 if isinstance(d, (A.Test, A.Table, A.Formula, A.Attack))})

    def section_path(self, id_: str) -> tuple[A.Section | A.Rule, ...]:
        """The sections (and rules) enclosing declaration ``id_``, outermost first."""
        def search(items: tuple[A.Decl, ...], trail: tuple) -> tuple | None:
            for d in items:
                if d.id == id_:
                    return trail
                if isinstance(d, (A.Section, A.Rule)):
                    found = search(d.body, trail + (d,))
                    if found is not None:
                        return found
            return None
        return search(self.items, ()) or ()


def _replace_in(items: tuple[A.Decl, ...], id_: str, new: A.Decl | None) -> tuple[tuple[A.Decl, ...], bool]:
    out: list[A.Decl] = []
    done = False
    for d in items:
        if not done and d.id == id_ and not isinstance(d, A.ProseBlock):
            done = True
            if new is not None:
                out.append(new)
            continue
        if not done and isinstance(d, (A.Section, A.Rule)):
            body, found = _replace_in(d.body, id_, new)
            if found:
                done = True
                d = dataclasses.replace(d, body=body)
        out.append(d)
    return tuple(out), done


def _extend_in(items: tuple[A.Decl, ...], id_: str, extra: tuple[A.Decl, ...]) -> tuple[tuple[A.Decl, ...], bool]:
    out: list[A.Decl] = []
    done = False
    for d in items:
        if not done and d.id == id_ and isinstance(d, (A.Section, A.Rule)):
            d = dataclasses.replace(d, body=d.body + extra)
            done = True
        elif not done and isinstance(d, (A.Section, A.Rule)):
            body, found = _extend_in(d.body, id_, extra)
            if found:
                done = True
                d = dataclasses.replace(d, body=body)
        out.append(d)
    return tuple(out), done


def from_source(source: RulesetSource, sink: Sink, base: Ruleset | None = None) -> Ruleset | None:
    """Build the model of one ruleset (merged with ``base`` when it is an overlay)."""
    if source.header is None:
        return None
    header = source.header
    own: list[A.Decl] = []
    for f in source.files:
        own.extend(f.items)
    files = tuple(f.path for f in source.files)

    if base is None:
        for d in own:
            if isinstance(d, (A.Replace, A.Remove, A.Extend)):
                word = type(d).__name__.lower()
                sink.error("W601", f"'{word}' changes a base ruleset, but this ruleset extends none", d.span,
                           "add 'extends <base-id> <version>' to the header, or declare the item directly")
        items = tuple(d for d in own if not isinstance(d, (A.Replace, A.Remove, A.Extend)))
        own_origin = {d.id: "own" for d in A.walk_decls(items) if d.id}
        return Ruleset(header.id, header.title, header, source.folder, files, items,
                       None, MappingProxyType(own_origin))

    items = base.items
    origin: dict[str, str] = {d.id: "base" for d in A.walk_decls(items) if d.id}
    removed: list[str] = []
    touched: dict[str, Span] = {}
    changed_at: dict[str, Span] = {}
    explained = {name for n in A.walk_decls(tuple(own)) if isinstance(n, A.Note) for name, _ in n.see}

    def overlaps(d: A.Replace | A.Remove) -> None:
        """W606: this overlay changes what its base (itself an overlay) already changed."""
        assert base is not None
        first = base.changed_at.get(d.id)
        if first is None or d.id in explained:
            return
        word = "replacement" if isinstance(d, A.Replace) else "removal"
        sink.warning("W606", f"'{d.id}' is also changed by the overlay '{base.id}' that this one extends; "
                     f"this {word} overrides that change", d.span,
                     f"if that is intended, say why in a note of this overlay that names it, "
                     f"e.g. designer note … see {d.id}",
                     related=[(first, f"changed by '{base.id}' here")])

    def touch(id_: str, span: Span) -> None:
        if id_ in touched:
            sink.error("W602", f"'{id_}' is changed twice by this overlay", span,
                       related=[(touched[id_], "first changed here")])
        touched[id_] = span

    for d in own:
        if isinstance(d, A.Replace):
            touch(d.id, d.span)
            items, found = _replace_in(items, d.id, d.decl)
            if not found:
                sink.error("W603", f"'{d.id}' cannot be replaced: the base ruleset '{base.id}' has no such item",
                           d.span, _suggest(d.id, base))
                continue
            changed_at[d.id] = d.span
            overlaps(d)
            for sub in A.walk_decls((d.decl,)):
                if sub.id:
                    origin[sub.id] = "replaced" if sub.id in base.symbols else "added"
        elif isinstance(d, A.Remove):
            touch(d.id, d.span)
            items, found = _replace_in(items, d.id, None)
            if not found:
                sink.error("W603", f"'{d.id}' cannot be removed: the base ruleset '{base.id}' has no such item",
                           d.span, _suggest(d.id, base))
                continue
            removed.append(d.id)
            changed_at[d.id] = d.span
            overlaps(d)
            origin.pop(d.id, None)
        elif isinstance(d, A.Extend):
            items, found = _extend_in(items, d.id, d.body)
            if not found:
                sink.error("W603", f"'{d.id}' cannot be extended: the base ruleset '{base.id}' has no such section",
                           d.span, _suggest(d.id, base))
                continue
            for sub in A.walk_decls(d.body):
                if sub.id:
                    origin[sub.id] = "added"
        else:
            items = items + (d,)
            for sub in A.walk_decls((d,)):
                if sub.id:
                    origin[sub.id] = "added"
    return Ruleset(header.id, header.title, header, source.folder, files, items, base,
                   MappingProxyType(origin), tuple(removed), MappingProxyType(changed_at))


def _suggest(id_: str, base: Ruleset) -> str | None:
    from compiler.diagnostics import did_you_mean
    close = did_you_mean(id_, base.symbols)
    return f"did you mean '{close}'?" if close else None
