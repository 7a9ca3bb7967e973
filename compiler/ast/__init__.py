"""The abstract syntax tree: frozen dataclasses, each with the :class:`Span` it came from.

Built from Lark's parse tree by :mod:`compiler.ast.build`.  Nodes are immutable and
hashable; sequences are tuples.  Two families:

* expressions (:class:`Expr` subclasses): numbers, dice, targets, names, calls…
* declarations (:class:`Decl` subclasses): sections, stats, tables, tests, units…

Every declaration that can be referenced has an ``id`` (its stable name: the
anchor on the site and the key in the JSON export) and usually a ``title``.

The node classes live in one module per concept, all re-exported here, so that
``from compiler import ast as A; A.Table`` reads the same everywhere:

* :mod:`~compiler.ast.expr` — expressions, :func:`sub_expressions`, :func:`children`;
* :mod:`~compiler.ast.common` — :class:`Decl`, :class:`Prose`, :class:`Param`, :class:`Let`;
* :mod:`~compiler.ast.document` — header, includes, overlays, sections, rules, notes,
  :class:`File`, :func:`walk_decls`;
* :mod:`~compiler.ast.lexicon` — stats, keywords/statuses/terms, situations, custom dice;
* :mod:`~compiler.ast.rolls` — tests and their rolls;
* :mod:`~compiler.ast.tables` — tables, grids, formulas;
* :mod:`~compiler.ast.sequences` — modifiers, abilities and hooks, attack sequences;
* :mod:`~compiler.ast.profiles` — units, weapons, squads, armies;
* :mod:`~compiler.ast.game` — phases, scoring, victory;
* :mod:`~compiler.ast.examples` — examples and properties.

>>> from compiler import ast as A
>>> A.sub_expressions(A.Int(A.Span.point("x.rules"), 4)).__next__().value
4
"""
from __future__ import annotations

import dataclasses
import sys
from typing import Any, Callable

from compiler.ast.common import Decl, Let, Param, Prose, expressions_in
from compiler.ast.document import (NOTE_KINDS, Extend, File, Header, HistoryEntry, Include, Note, ProseBlock, Remove,
                                   Replace, Rule, Section, walk_decls)
from compiler.ast.examples import Binding, Claim, Example, Expect, Property
from compiler.ast.expr import (Attr, Binary, Call, Chain, Const, Decimal, Dice, Each, Expr, Group, Has, IfElse, Inches,
                               InRange, Int, IsChoice, IsNone, Label, Name, RangeExpr, Setting, Target, Unary, With,
                               children, sub_expressions)
from compiler.ast.game import (ACTIVATIONS, UNDECIDED, VICTORY_KINDS, Action, ActionEffect, ActivationDice, AtEnd,
                               Combat, Control, Counter, DerivedSituation, EngagedStatus, Game, Initiative, Objective,
                               TerrainArea, TerrainKind, Order, Phase, PhaseStep, Reaction,
                               Scenario, Score, Side, SideUnit, Victory)
from compiler.ast.lexicon import Die, Entry, Situation, Stat
from compiler.ast.profiles import AbilityUse, Army, Profile, Requirement, Squad, StatValue
from compiler.ast.rolls import Roll, Test
from compiler.ast.sequences import Ability, Attack, Effect, Hook, HookEffect, Modifier, Step
from compiler.ast.tables import CaseRow, Formula, Grid, Table
from compiler.diagnostics import Span


def _by_fields(cls: type) -> Callable[..., tuple[Any, ...]]:
    """A ``__reduce_ex__`` for the frozen dataclass ``cls``: the class and its field values, in order.

    Unpickling then calls the class's generated ``__init__``, about twice as fast as the
    ``__setstate__`` that ``dataclass(slots=True)`` writes (which looks the fields up again for
    every node), and the pickle is smaller: the AST cache reads back some 30,000 nodes for
    the bundled rulesets.
    """
    names = tuple(f.name for f in dataclasses.fields(cls))

    def reduce_ex(self: object, protocol: object = None) -> tuple[Any, ...]:
        return cls, tuple([getattr(self, n) for n in names])
    return reduce_ex


def _pickle_by_fields(*modules: str) -> None:
    """Every node class of ``modules`` (and :class:`Span`) pickles as its class and field values."""
    for name in modules:
        for cls in vars(sys.modules[name]).values():
            if (isinstance(cls, type) and cls.__module__ == name and dataclasses.is_dataclass(cls)
                    and "__post_init__" not in vars(cls) and "__slots__" in vars(cls)):
                cls.__reduce_ex__ = _by_fields(cls)  # type: ignore[method-assign]


_pickle_by_fields("compiler.diagnostics", *(f"compiler.ast.{m}" for m in (
    "common", "document", "examples", "expr", "game", "lexicon", "profiles", "rolls", "sequences", "tables")))

# The old private name of :func:`children`, still read as ``A._children`` by
# compiler/check/passes.py and compiler/resolve/evaluator.py; drop it once they read ``A.children``.
_children = children

__all__ = [
    "ACTIVATIONS", "NOTE_KINDS",
    # expressions
    "Attr", "Binary", "Call", "Chain", "Const", "Decimal", "Dice", "Each", "Expr", "Group", "Has", "IfElse",
    "Inches", "InRange", "Int", "IsChoice", "IsNone", "Label", "Name", "RangeExpr", "Setting", "Target",
    "Unary", "With", "children", "sub_expressions",
    # shared pieces of declarations
    "Decl", "Let", "Param", "Prose", "Span", "expressions_in",
    # the document
    "Extend", "File", "Header", "HistoryEntry", "Include", "Note", "ProseBlock", "Remove", "Replace", "Rule",
    "Section", "walk_decls",
    # declarations by concept
    "Die", "Entry", "Situation", "Stat",
    "Roll", "Test",
    "CaseRow", "Formula", "Grid", "Table",
    "Ability", "Attack", "Effect", "Hook", "HookEffect", "Modifier", "Step",
    "AbilityUse", "Army", "Profile", "Requirement", "Squad", "StatValue",
    "Game", "Phase", "PhaseStep", "Score", "Victory",
    "VICTORY_KINDS", "Action", "ActionEffect", "ActivationDice", "AtEnd", "Combat", "DerivedSituation", "Order",
    "Reaction", "Scenario", "Side", "SideUnit", "UNDECIDED", "Control", "Counter", "EngagedStatus", "Initiative", "Objective", "TerrainArea", "TerrainKind",
    "Binding", "Claim", "Example", "Expect", "Property",
]
