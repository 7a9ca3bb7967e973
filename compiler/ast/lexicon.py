"""The lexicon: stats, keywords, statuses and terms, situations, custom dice.
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.ast.common import Decl, Prose
from compiler.ast.expr import RangeExpr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Stat(Decl):
    """A stat (characteristic) of the lexicon, with its type."""

    title: str
    type: RangeExpr | str | None  # range, "target", "distance", "dice", "number"
    short: str | None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()
    clamped: bool = True  # modified values are kept inside the range
    role: str | None = None  # what the engine reads it for: "wounds"


@dataclass(frozen=True, slots=True)
class Entry(Decl):
    """A keyword, status or term of the lexicon."""

    kind: str  # "keyword", "status", "term"
    title: str
    short: str | None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()
    role: str | None = None  # a keyword the army rules count: "characters", "special" (``role special``)


@dataclass(frozen=True, slots=True)
class Situation(Decl):
    """A fact about the moment of play that modifiers depend on (cover, charged…)."""

    title: str
    choices: tuple[str, ...] = ()  # an enumeration; empty for yes/no or numeric
    range: RangeExpr | None = None  # a number in a range
    short: str | None = None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()

    @property
    def kind(self) -> str:
        return "choice" if self.choices else ("number" if self.range is not None else "flag")


@dataclass(frozen=True, slots=True)
class Die(Decl):
    """A custom die: ``die D3 = d6 as 1, 2, 3, 1, 2, 3`` (id is the die's name)."""

    title: str | None
    base_sides: int
    base_span: Span
    faces: tuple[int | str, ...]
    short: str | None = None
    prose: tuple[Prose, ...] = ()
