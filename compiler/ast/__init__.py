"""The abstract syntax tree: frozen dataclasses, each with the :class:`Span` it came from.

Built from Lark's parse tree by :mod:`compiler.ast.build`.  Nodes are immutable and
hashable; sequences are tuples.  Two families:

* expressions (:class:`Expr` subclasses): numbers, dice, targets, names, calls…
* declarations (:class:`Decl` subclasses): sections, stats, tables, tests, units…

Every declaration that can be referenced has an ``id`` (its stable name: the
anchor on the site and the key in the JSON export) and usually a ``title``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

from compiler.diagnostics import Span

# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expr:
    span: Span


@dataclass(frozen=True, slots=True)
class Int(Expr):
    value: int


@dataclass(frozen=True, slots=True)
class Decimal(Expr):
    value: Fraction
    text: str


@dataclass(frozen=True, slots=True)
class Dice(Expr):
    """``NdM``: ``count`` dice of ``sides`` sides; ``name`` is the die as written (``D3``)."""

    count: int
    sides: int
    name: str


@dataclass(frozen=True, slots=True)
class Inches(Expr):
    value: Fraction


@dataclass(frozen=True, slots=True)
class Label(Expr):
    """A quoted string used as a value (an outcome such as ``"bust"``)."""

    text: str


@dataclass(frozen=True, slots=True)
class Name(Expr):
    id: str


@dataclass(frozen=True, slots=True)
class Group(Expr):
    """``5 space_marine``: a number of models of one profile."""

    count: int
    profile: str


@dataclass(frozen=True, slots=True)
class Const(Expr):
    """``never``, ``always``, ``none``, ``true`` or ``false``."""

    value: str


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: str  # + - * / and or == != >= <= > <
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class RangeExpr(Expr):
    low: Expr
    high: Expr


@dataclass(frozen=True, slots=True)
class InRange(Expr):
    operand: Expr
    range: RangeExpr


@dataclass(frozen=True, slots=True)
class IsChoice(Expr):
    operand: Expr
    choice: str


@dataclass(frozen=True, slots=True)
class IsNone(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class Has(Expr):
    """``target has vehicle``: a profile carries a keyword or an ability."""

    operand: Expr
    keyword: str


@dataclass(frozen=True, slots=True)
class Each(Expr):
    """``count each item``: count successes (item is a test) or sum amounts."""

    count: Expr
    item: Expr
    negate: bool = False


@dataclass(frozen=True, slots=True)
class Target(Expr):
    """``4+`` (direction "high") or ``3-`` (direction "low") built from a number."""

    value: Expr
    direction: str


@dataclass(frozen=True, slots=True)
class Chain(Expr):
    """``6 then 4+``: pass ``first`` on one die, then ``then`` on another."""

    first: Expr
    then: Expr


@dataclass(frozen=True, slots=True)
class IfElse(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Call(Expr):
    func: str
    func_span: Span
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Setting:
    span: Span
    name: str
    value: Expr | None  # None with ``negated`` False means true
    negated: bool = False


@dataclass(frozen=True, slots=True)
class With(Expr):
    """``expr with cover = soft, charged``: evaluate under a situation."""

    expr: Expr
    settings: tuple[Setting, ...]


# ---------------------------------------------------------------------------
# Shared pieces of declarations
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prose:
    """A Markdown paragraph (or several) written by the author."""

    span: Span
    text: str
    line0: int = 0  # where the text's first line stands in the file
    col0: int = 0  # its column there
    indent: int = 0  # columns removed from the following lines by dedenting

    def position(self, offset: int) -> tuple[int, int]:
        """The (line, column) in the file of character ``offset`` of :attr:`text`."""
        before = self.text[:offset]
        lines = before.count("\n")
        if not self.line0:
            return self.span.line, self.span.column
        if lines == 0:
            return self.line0, self.col0 + len(before)
        return self.line0 + lines, self.indent + 1 + len(before) - before.rfind("\n") - 1


@dataclass(frozen=True, slots=True)
class Param:
    span: Span
    name: str
    type: RangeExpr | str | None  # a range, a named type (stat, unit, weapon…), or inferred


@dataclass(frozen=True, slots=True)
class Let:
    span: Span
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Decl:
    span: Span
    id: str


# ---------------------------------------------------------------------------
# Header, includes, overlays
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    span: Span
    version: str
    date: str | None
    text: str


@dataclass(frozen=True, slots=True)
class Header(Decl):
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
    path: str


@dataclass(frozen=True, slots=True)
class Replace(Decl):
    decl: Decl


@dataclass(frozen=True, slots=True)
class Remove(Decl):
    pass


@dataclass(frozen=True, slots=True)
class Extend(Decl):
    body: tuple[Decl, ...]


# ---------------------------------------------------------------------------
# Rulebook structure
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProseBlock(Decl):
    """A free-standing paragraph; ``id`` is generated from its position."""

    text: str
    prose: "Prose | None" = None


@dataclass(frozen=True, slots=True)
class Section(Decl):
    title: str
    body: tuple[Decl, ...]


@dataclass(frozen=True, slots=True)
class Rule(Decl):
    title: str
    body: tuple[Decl, ...]


NOTE_KINDS = ("assumption", "open question", "designer note")


@dataclass(frozen=True, slots=True)
class Note(Decl):
    kind: str  # one of NOTE_KINDS
    title: str
    prose: tuple[Prose, ...]
    pinned_by: tuple[tuple[str, Span], ...] = ()
    see: tuple[tuple[str, Span], ...] = ()


# ---------------------------------------------------------------------------
# Lexicon
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stat(Decl):
    title: str
    type: RangeExpr | str | None  # range, "target", "distance", "dice", "number"
    short: str | None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()
    clamped: bool = True  # modified values are kept inside the range


@dataclass(frozen=True, slots=True)
class Entry(Decl):
    """A keyword, status or term of the lexicon."""

    kind: str  # "keyword", "status", "term"
    title: str
    short: str | None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()


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


# ---------------------------------------------------------------------------
# Tests, tables, formulas
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Roll:
    """What a test rolls and what it needs: ``roll d6 >= Sv + AP`` or ``roll d6 against T``."""

    span: Span
    dice: Expr
    op: str  # ">=", "<=" or "against"
    target: Expr


@dataclass(frozen=True, slots=True)
class Test(Decl):
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


@dataclass(frozen=True, slots=True)
class CaseRow:
    span: Span
    pattern: Expr | RangeExpr | None  # None means "otherwise"
    result: Expr


@dataclass(frozen=True, slots=True)
class Grid:
    span: Span
    row_param: str
    col_param: str
    columns: tuple[int, ...]
    rows: tuple[tuple[int, tuple[Expr, ...]], ...]
    row_spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class Table(Decl):
    params: tuple[Param, ...]
    title: str | None
    lets: tuple[Let, ...] = ()
    rows: tuple[CaseRow, ...] = ()
    grid: Grid | None = None
    formula: Expr | None = None  # ``table x(S, T) = expr``
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Formula(Decl):
    params: tuple[Param, ...]
    title: str | None
    lets: tuple[Let, ...]
    result: Expr | None
    prose: tuple[Prose, ...] = ()


# ---------------------------------------------------------------------------
# Modifiers, abilities
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Effect:
    """What a modifier or ability does.

    kind: "roll" (+1 to hit), "stat" (-1 BS of shooter), "needs" (hit needs 5+),
    "reroll" (reroll 1s to hit).
    """

    span: Span
    kind: str
    value: Expr | None = None
    test: str | None = None  # the test it affects (roll, needs, reroll)
    stat: str | None = None  # the stat it affects
    role: str | None = None  # whose stat: a parameter name such as "target"
    reroll: str | None = None


@dataclass(frozen=True, slots=True)
class Modifier(Decl):
    title: str
    effects: tuple[Effect, ...]
    when: Expr | None = None
    group: str | None = None
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class HookEffect:
    span: Span
    kind: str  # "extra", "pass", "fail"
    test: str | None = None
    amount: Expr | None = None
    word: str | None = None  # "hits" in "N extra hits"


@dataclass(frozen=True, slots=True)
class Hook:
    """``on natural 6 to hit: 1 extra hits``; ``on each damage: ignored on 5+``."""

    span: Span
    test: str | None  # None for damage hooks
    natural: int | None
    natural_from: bool  # ``natural 5+`` (True) or exactly ``natural 6`` (False)
    effects: tuple[HookEffect, ...] = ()
    ignore_damage_on: Expr | None = None


@dataclass(frozen=True, slots=True)
class Ability(Decl):
    params: tuple[Param, ...]
    title: str
    short: str | None
    hooks: tuple[Hook, ...] = ()
    effects: tuple[Effect, ...] = ()
    when: Expr | None = None
    stacking: str | None = None
    prose: tuple[Prose, ...] = ()
    aka: tuple[str, ...] = ()
    see: tuple[tuple[str, Span], ...] = ()


# ---------------------------------------------------------------------------
# Attack sequences
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    span: Span
    name: str
    value: Expr | None  # for ordinary steps
    removes_from: str | None = None  # for ``killed = unsaved removes target, damage weapon.D``
    removes_target: Expr | None = None
    damage: Expr | None = None


@dataclass(frozen=True, slots=True)
class Attack(Decl):
    params: tuple[Param, ...]
    title: str | None
    steps: tuple[Step, ...]
    lets: tuple[Let, ...] = ()
    prose: tuple[Prose, ...] = ()


# ---------------------------------------------------------------------------
# Profiles
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Army construction and game structure
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Requirement:
    span: Span
    expr: Expr
    message: str | None


@dataclass(frozen=True, slots=True)
class Army(Decl):
    title: str
    points: tuple[int, ...]
    requires: tuple[Requirement, ...] = ()
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class PhaseStep:
    span: Span
    id: str
    title: str
    text: str | None


@dataclass(frozen=True, slots=True)
class Phase:
    span: Span
    id: str
    title: str
    text: str | None
    steps: tuple[PhaseStep, ...] = ()
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Score:
    span: Span
    id: str
    title: str
    value: Expr
    per: str | None = None
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Victory:
    span: Span
    id: str
    title: str
    text: str | None
    prose: tuple[Prose, ...] = ()


ACTIVATIONS = ("alternating_units", "alternating_detachments", "whole_army", "activation_rolls")


@dataclass(frozen=True, slots=True)
class Game(Decl):
    title: str
    turns: int | None = None
    activation: str | None = None
    activation_span: Span | None = None
    phases: tuple[Phase, ...] = ()
    scores: tuple[Score, ...] = ()
    victories: tuple[Victory, ...] = ()
    prose: tuple[Prose, ...] = ()


# ---------------------------------------------------------------------------
# Examples and properties
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Expect:
    """``expect <subject> <op> <expected> [± tolerance]``."""

    span: Span
    subject: Expr
    op: str  # "=", "!=", ">=", "<=", ">", "<", "~"
    expected: Expr
    tolerance: Expr | None = None


@dataclass(frozen=True, slots=True)
class Binding:
    span: Span
    name: str
    range: RangeExpr


@dataclass(frozen=True, slots=True)
class Example(Decl):
    title: str
    lets: tuple[Let, ...]
    expects: tuple[Expect, ...]
    prose: tuple[Prose, ...] = ()


@dataclass(frozen=True, slots=True)
class Property(Decl):
    title: str
    bindings: tuple[Binding, ...]
    lets: tuple[Let, ...]
    expects: tuple[Expect, ...]
    prose: tuple[Prose, ...] = ()


Callable_ = Union[Test, Table, Formula, Attack]


@dataclass(frozen=True, slots=True)
class File:
    """One parsed source file."""

    path: str
    items: tuple[Decl, ...]
    header: Header | None = None
    includes: tuple[Include, ...] = field(default_factory=tuple)


def walk_decls(decls: tuple[Decl, ...]):
    """Every declaration in document order, descending into sections and rules."""
    for d in decls:
        yield d
        if isinstance(d, (Section, Rule, Extend)):
            yield from walk_decls(d.body)
        elif isinstance(d, Replace):
            yield d.decl
            if isinstance(d.decl, (Section, Rule)):
                yield from walk_decls(d.decl.body)


def sub_expressions(expr: Expr):
    """Every expression node inside ``expr`` (pre-order), including itself."""
    yield expr
    for child in _children(expr):
        yield from sub_expressions(child)


def _children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Unary):
        return (e.operand,)
    if isinstance(e, Binary):
        return (e.left, e.right)
    if isinstance(e, RangeExpr):
        return (e.low, e.high)
    if isinstance(e, InRange):
        return (e.operand, e.range)
    if isinstance(e, (IsChoice, IsNone, Has)):
        return (e.operand,)
    if isinstance(e, Each):
        return (e.count, e.item)
    if isinstance(e, Target):
        return (e.value,)
    if isinstance(e, Chain):
        return (e.first, e.then)
    if isinstance(e, IfElse):
        return (e.cond, e.then, e.otherwise)
    if isinstance(e, Attr):
        return (e.obj,)
    if isinstance(e, Call):
        return e.args + tuple(v for _, v in e.kwargs)
    if isinstance(e, With):
        return (e.expr,) + tuple(s.value for s in e.settings if s.value is not None)
    return ()
