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
import re
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Iterator, Mapping, TypeVar, cast

from packaging.version import Version

from compiler import ast as A
from compiler import codes
from compiler.diagnostics import Sink, Span, closest, suggestion
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
    A.Scenario: "scenario",
    A.Example: "example",
    A.Property: "property",
    A.Claim: "claim",
}


#: A part of a game's structure with its own id (and its own anchor on the site).
GamePart = A.Phase | A.PhaseStep | A.Score | A.Victory


def game_parts(game: A.Game) -> list[GamePart]:
    """The phases, phase steps, scores and victory conditions of a game, each with an id."""
    parts: list[GamePart] = []
    for ph in game.phases:
        parts.append(ph)
        parts.extend(ph.steps)
    parts.extend(game.scores)
    parts.extend(game.victories)
    return parts


def kind_of(decl: A.Decl | GamePart) -> str:
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
        return iter(self._all)

    def expressions(self, decl: A.Decl) -> tuple[A.Expr, ...]:
        """The outermost expressions of ``decl`` (:func:`compiler.ast.expressions_in`), worked out
        once per declaration: several checks read them."""
        memo: dict[int, tuple[A.Decl, tuple[A.Expr, ...]]] = self.__dict__.setdefault("_expressions", {})
        found = memo.get(id(decl))
        if found is None or found[0] is not decl:
            found = memo[id(decl)] = (decl, tuple(A.expressions_in(decl)))
        return found[1]

    def sub_expressions(self, decl: A.Decl) -> tuple[A.Expr, ...]:
        """Every expression node of ``decl``'s outermost expressions, each in pre-order (memoised
        like :meth:`expressions`)."""
        memo: dict[int, tuple[A.Decl, tuple[A.Expr, ...]]] = self.__dict__.setdefault("_sub_expressions", {})
        found = memo.get(id(decl))
        if found is None or found[0] is not decl:
            found = memo[id(decl)] = (decl, tuple(s for e in self.expressions(decl) for s in A.sub_expressions(e)))
        return found[1]

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
                    table.setdefault(part.id, part)  # type: ignore[arg-type]  # game parts share the ids of declarations
        return MappingProxyType(table)

    def get(self, id_: str) -> A.Decl | None:
        return self.symbols.get(id_)

    def param_stat(self, param: A.Param) -> str:
        """The stat a parameter stands for: its type when that names a stat (``S: Strength``…), else
        its own name (a stat or not: ``BS`` is one, ``x`` is not)."""
        return param.type if isinstance(param.type, str) and param.type in self.stats else param.name

    @cached_property
    def _all(self) -> tuple[A.Decl, ...]:
        return tuple(A.walk_decls(self.items))

    def of_type(self, cls: type[D]) -> tuple[D, ...]:
        """Every declaration of one kind, in document order (memoised per kind)."""
        cache: dict[type[A.Decl], tuple[A.Decl, ...]] = self.__dict__.setdefault("_of_type", {})
        if cls not in cache:
            cache[cls] = tuple(d for d in self._all if isinstance(d, cls))
        return cast("tuple[D, ...]", cache[cls])  # the entry of ``cls`` holds instances of ``cls`` only

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
        Trail = tuple[A.Section | A.Rule, ...]

        def search(items: tuple[A.Decl, ...], trail: Trail) -> Trail | None:
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
                sink.error(codes.NO_BASE, f"'{word}' changes a base ruleset, but this ruleset extends none", d.span,
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
        sink.warning(codes.OVERLAYS_OVERLAP, f"'{d.id}' is also changed by the overlay '{base.id}' that this one extends; "
                     f"this {word} overrides that change", d.span,
                     f"if that is intended, say why in a note of this overlay that names it, "
                     f"e.g. designer note … see {d.id}",
                     related=[(first, f"changed by '{base.id}' here")])

    def touch(id_: str, span: Span) -> None:
        if id_ in touched:
            sink.error(codes.CHANGED_TWICE, f"'{id_}' is changed twice by this overlay", span,
                       related=[(touched[id_], "first changed here")])
        touched[id_] = span

    for d in own:
        if isinstance(d, A.Replace):
            touch(d.id, d.span)
            items, found = _replace_in(items, d.id, d.decl)
            if not found:
                sink.error(codes.NOT_IN_BASE, f"'{d.id}' cannot be replaced: the base ruleset '{base.id}' has no such item",
                           d.span, _suggest(d.id, base, d.decl))
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
                sink.error(codes.NOT_IN_BASE, f"'{d.id}' cannot be removed: the base ruleset '{base.id}' has no such item",
                           d.span, _suggest(d.id, base))
                continue
            removed.append(d.id)
            changed_at[d.id] = d.span
            overlaps(d)
            origin.pop(d.id, None)
        elif isinstance(d, A.Extend):
            items, found = _extend_in(items, d.id, d.body)
            if not found:
                sink.error(codes.NOT_IN_BASE, f"'{d.id}' cannot be extended: the base ruleset '{base.id}' has no such section",
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


def _suggest(id_: str, base: Ruleset, like: A.Decl | None = None) -> str | None:
    """The base's names ``id_`` may have meant: those of the same kind as ``like`` (the
    replacement: a weapon for ``replace weapon …``) first, and the list of that kind when short."""
    if like is None:
        return suggestion(id_, base.symbols)
    same = [k for k, d in base.symbols.items() if type(d) is type(like) and getattr(d, "kind", None) == getattr(like, "kind", None)]
    close = closest(id_, base.symbols, prefer=same)
    hint = f"did you mean '{close[0]}'?" if close else ""
    noun = getattr(like, "kind", None) or type(like).__name__.lower()
    if 0 < len(same) <= 12 and same != close[:1]:
        hint += f" the {noun}s of '{base.id}' are: {', '.join(sorted(same))}"
    return hint.strip() or None


# -- versions ------------------------------------------------------------------------------------

_SEMVER = re.compile(r"(\d+)\.(\d+)\.(\d+)")


def parse_version(text: str) -> Version | None:
    """The release numbers of a semantic version (``1.2.10``), for ordering; None when it has none.

    A pre-release suffix (``-beta``) does not take part: semantic versioning and Python packaging
    order such suffixes differently (to :mod:`packaging`, ``1.0.0-1`` is a post-release).

    >>> parse_version("1.2.10") > parse_version("1.2.9"), parse_version("^1.2.0"), parse_version("next")
    (True, <Version('1.2.0')>, None)
    """
    m = _SEMVER.search(text)
    return Version(m.group(0)) if m else None


def version_requirement(requirement: str) -> tuple[Version, int] | None:
    """What a version after ``extends`` accepts, as the lowest version and how many of its leading
    numbers must stay the same: ``1.2.0`` exactly (3), ``^1.2.0`` any 1.x from 1.2.0 on (1),
    ``~1.2.0`` any 1.2.x from 1.2.0 on (2), ``>=1.2.0`` anything from 1.2.0 on (0).

    >>> version_requirement("^1.2.0"), version_requirement("~1.2.0")[1], version_requirement(">=1.2.0")[1]
    ((<Version('1.2.0')>, 1), 2, 0)
    """
    r = parse_version(requirement)
    if r is None:
        return None
    if requirement.startswith("^"):
        return r, 1
    if requirement.startswith("~"):
        return r, 2
    if requirement.startswith(">="):
        return r, 0
    return r, 3


def version_matches(actual: str | None, requirement: str) -> bool:
    """Does ``actual`` satisfy ``requirement`` (``1.2.0``, ``^1.2.0``, ``~1.2.0``, ``>=1.2.0``)?

    >>> version_matches("1.3.0", "^1.2.0"), version_matches("2.0.0", "^1.2.0"), version_matches("1.2.0", "1.2.0")
    (True, False, True)
    >>> version_matches("1.2.5", "~1.2.0"), version_matches("1.3.0", "~1.2.0"), version_matches("3.0.0", ">=1.2.0")
    (True, False, True)
    """
    if actual is None:
        return False
    a, wanted = parse_version(actual), version_requirement(requirement)
    if a is None or wanted is None:
        return actual == requirement
    low, same = wanted
    return a.release[:same] == low.release[:same] and (a == low if same == 3 else a >= low)
