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

from compiler.ast.common import Decl, Let, Param, Prose
from compiler.ast.document import (NOTE_KINDS, Extend, File, Header, HistoryEntry, Include, Note, ProseBlock, Remove,
                                   Replace, Rule, Section, walk_decls)
from compiler.ast.examples import Binding, Claim, Example, Expect, Property
from compiler.ast.expr import (Attr, Binary, Call, Chain, Const, Decimal, Dice, Each, Expr, Group, Has, IfElse, Inches,
                               InRange, Int, IsChoice, IsNone, Label, Name, RangeExpr, Setting, Target, Unary, With,
                               children, sub_expressions)
from compiler.ast.game import (ACTIVATIONS, VICTORY_KINDS, Action, ActionEffect, ActivationDice, AtEnd, Combat,
                               DerivedSituation, Game, Order, Phase, PhaseStep, Reaction, Scenario, Score, Side,
                               SideUnit, Victory)
from compiler.ast.lexicon import Die, Entry, Situation, Stat
from compiler.ast.profiles import AbilityUse, Army, Profile, Requirement, Squad, StatValue
from compiler.ast.rolls import Roll, Test
from compiler.ast.sequences import Ability, Attack, Effect, Hook, HookEffect, Modifier, Step
from compiler.ast.tables import CaseRow, Formula, Grid, Table
from compiler.diagnostics import Span

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
    "Decl", "Let", "Param", "Prose", "Span",
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
    "Reaction", "Scenario", "Side", "SideUnit",
    "Binding", "Claim", "Example", "Expect", "Property",
]
