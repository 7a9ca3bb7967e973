"""Profiles (units and weapons, with their stat values), squads and army construction.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from compiler.ast.common import Decl, Prose
from compiler.ast.expr import Dice, Expr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class StatValue:
    """A value on a profile line: ``4``, ``3+``, ``24"``, ``D6+1``, ``-``."""

    span: Span
    stat: str
    stat_span: Span
    kind: str  # "int", "high", "low", "inches", "dice", "none", "text"
    value: int | Fraction | str | None
    dice: Dice | None = None
    dice_bonus: int = 0

    @property
    def text(self) -> str:
        if self.kind == "int":
            return str(self.value)
        if self.kind == "high":
            return f"{self.value}+"
        if self.kind == "low":
            return f"{self.value}-"
        if self.kind == "inches":
            return f'{self.value}"'
        if self.kind == "dice":
            assert self.dice is not None
            bonus = f"{self.dice_bonus:+d}" if self.dice_bonus else ""
            return f"{self.dice.name}{bonus}"
        if self.kind == "none":
            return "-"
        return str(self.value)


@dataclass(frozen=True, slots=True)
class AbilityUse:
    """An ability named on a profile, with its argument if any (``sustained_hits(1)``)."""

    span: Span
    ability: str
    arg: int | None = None


@dataclass(frozen=True, slots=True)
class Profile(Decl):
    """A unit (model) or weapon profile."""

    kind: str  # "unit" or "weapon"
    title: str
    stats: tuple[StatValue, ...]
    keywords: tuple[tuple[str, Span], ...] = ()
    abilities: tuple[AbilityUse, ...] = ()
    weapons: tuple[tuple[str, Span], ...] = ()
    points: int | None = None
    klass: str | None = None
    prose: tuple[Prose, ...] = ()

    def stat(self, name: str) -> StatValue | None:
        for s in self.stats:
            if s.stat == name:
                return s
        return None


@dataclass(frozen=True, slots=True)
class Squad(Decl):
    """A squad: the unit it is made of, its size range, points and equipment."""

    title: str
    unit: str | None
    unit_span: Span | None
    min_models: int | None
    max_models: int | None
    points: int | None = None
    points_per_extra: int | None = None
    keywords: tuple[tuple[str, Span], ...] = ()
    abilities: tuple[AbilityUse, ...] = ()
    weapons: tuple[tuple[str, Span], ...] = ()
    special: bool = False
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Requirement:
    """``require expr: "message"``: a condition an army list must meet; ``require each unit: expr``
    (``each``) one that each unit of the list must meet, on its own quantities."""

    span: Span
    expr: Expr
    message: str | None
    each: bool = False


@dataclass(frozen=True, slots=True)
class Army(Decl):
    """Army construction: the points limits and the requirements of an army list."""

    title: str
    points: tuple[int, ...]
    requires: tuple[Requirement, ...] = ()
    prose: tuple[Prose, ...] = ()
    unit_requires: tuple[Requirement, ...] = ()  # ``require each unit: …``
