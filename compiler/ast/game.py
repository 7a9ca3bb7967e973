"""The game's structure: phases and their steps, scoring, victory, the activation scheme.
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.ast.common import Decl, Prose
from compiler.ast.expr import Expr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class PhaseStep:
    """A step within a phase of the game."""

    span: Span
    id: str
    title: str
    text: str | None


@dataclass(frozen=True, slots=True)
class Phase:
    """A phase of a turn, with its steps."""

    span: Span
    id: str
    title: str
    text: str | None
    steps: tuple[PhaseStep, ...] = ()
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Score:
    """A way to score: a value, counted per something if given."""

    span: Span
    id: str
    title: str
    value: Expr
    per: str | None = None
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Victory:
    """A victory condition, in words."""

    span: Span
    id: str
    title: str
    text: str | None
    prose: tuple[Prose, ...] = ()


ACTIVATIONS = ("alternating_units", "alternating_detachments", "whole_army", "activation_rolls")


@dataclass(frozen=True, slots=True)
class Game(Decl):
    """The game's structure: turns, activation scheme, phases, scoring and victory."""

    title: str
    turns: int | None = None
    activation: str | None = None
    activation_span: Span | None = None
    phases: tuple[Phase, ...] = ()
    scores: tuple[Score, ...] = ()
    victories: tuple[Victory, ...] = ()
    prose: tuple[Prose, ...] = ()
