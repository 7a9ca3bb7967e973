"""Tests: what a test rolls, what it needs, natural results, caps and re-rolls.
"""
from __future__ import annotations

from dataclasses import dataclass

from compiler.ast.common import Decl, Param, Prose
from compiler.ast.expr import Expr
from compiler.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Roll:
    """What a test rolls and what it needs: ``roll d6 >= Sv + AP`` or ``roll d6 against T``."""

    span: Span
    dice: Expr
    op: str  # ">=", "<=" or "against"
    target: Expr


@dataclass(frozen=True, slots=True)
class Test(Decl):
    """A test: what it rolls, what it needs, natural results, caps and re-rolls."""

    params: tuple[Param, ...]
    title: str | None
    roll: Roll | None
    natural_fails: tuple[int, ...] = ()
    natural_succeeds: tuple[int, ...] = ()
    never_better: Expr | None = None
    never_worse: Expr | None = None
    modifier_cap: tuple[int, int] | None = None
    rerolls: tuple[str, ...] = ()  # "1s", "failures", "natural:1,2"
    prose: tuple[Prose, ...] = ()
    clause_spans: tuple[Span, ...] = ()
