"""The document: the ruleset header, includes and overlays, sections, rules, prose, notes, files.

A :class:`File` is one parsed source file; :func:`walk_decls` goes through its declarations
in document order, into sections, rules and overlays.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from compiler.ast.common import Decl, Prose
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One version in the header's history: version, date, what changed."""

    span: Span
    version: str
    date: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Header(Decl):
    """The ruleset header: id, title, version, authors, source, licence, ``extends``."""

    title: str
    version: str | None = None
    authors: tuple[str, ...] = ()
    source: str | None = None
    licence: str | None = None
    extends: str | None = None
    extends_version: str | None = None
    extends_span: Span | None = None
    summary: str | None = None
    history: tuple[HistoryEntry, ...] = ()
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Include(Decl):
    """``include "file.rules"``: another file of the same ruleset."""

    path: str


@dataclass(frozen=True, slots=True)
class Replace(Decl):
    """An overlay's ``replace``: a new version of a declaration of the base ruleset."""

    decl: Decl


@dataclass(frozen=True, slots=True)
class Remove(Decl):
    """An overlay's ``remove``: a declaration of the base ruleset left out."""


@dataclass(frozen=True, slots=True)
class Extend(Decl):
    """An overlay's ``extend``: declarations added inside a section of the base ruleset."""

    body: tuple[Decl, ...]


@dataclass(frozen=True, slots=True)
class ProseBlock(Decl):
    """A free-standing paragraph; ``id`` is generated from its position."""

    text: str
    prose: Prose | None = None


@dataclass(frozen=True, slots=True)
class Section(Decl):
    """A section of the rulebook: a title and a body of declarations and prose."""

    title: str
    body: tuple[Decl, ...]


@dataclass(frozen=True, slots=True)
class Rule(Decl):
    """A named rule: a title and a body of declarations and prose."""

    title: str
    body: tuple[Decl, ...]


NOTE_KINDS = ("assumption", "open question", "designer note", "prose only")


@dataclass(frozen=True, slots=True)
class Note(Decl):
    """An assumption, an open question, a designer's note, or why a rule is prose only
    (``prose only "…": …`` inside a rule: nothing in it is for the resolver to run)."""

    kind: str  # one of NOTE_KINDS
    title: str
    prose: tuple[Prose, ...]
    pinned_by: tuple[tuple[str, Span], ...] = ()
    see: tuple[tuple[str, Span], ...] = ()


@dataclass(frozen=True, slots=True)
class File:
    """One parsed source file."""

    path: str
    items: tuple[Decl, ...]
    header: Header | None = None
    includes: tuple[Include, ...] = ()
    broken: tuple[str, ...] = ()  # ids of declarations lost to syntax errors (see syntax.recover)
    header_guessed: bool = False  # the header had a syntax error: only its id and title were read


def walk_decls(decls: tuple[Decl, ...]) -> Iterator[Decl]:
    """Every declaration in document order, descending into sections and rules."""
    for d in decls:
        yield d
        if isinstance(d, (Section, Rule, Extend)):
            yield from walk_decls(d.body)
        elif isinstance(d, Replace):
            yield d.decl
            if isinstance(d.decl, (Section, Rule)):
                yield from walk_decls(d.decl.body)
