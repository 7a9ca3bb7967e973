"""The semantic diff of two rules models, and what the change did to the odds.

Two questions a reviewer asks about a new version of a ruleset (or about an
overlay against its base):

* **What changed?** :func:`diff_models` compares two :class:`~compiler.model.ruleset.Ruleset`
  declaration by declaration (matched by id) and returns a :class:`RulesetDiff`:
  every declaration added, removed, changed or moved to another section, and for a
  changed one the details — its clauses and fields as the language writes them
  (:class:`FieldChange`), stat by stat for a profile (:class:`StatChange`), cell by
  cell for a table, formula or test worked out over its parameters
  (:class:`CellChange`), and its prose as a unified diff (:class:`ProseChange`).
* **What did it do to the game?** :func:`impact` evaluates both versions: every
  example present in both, each ``expect`` subject's value before and after
  (:class:`ExampleImpact`), and the *standard matchups* (:class:`MatchupImpact`):
  every attack sequence that an example ``let`` calls with profiles
  (``let r = shooting(5 space_marine, boltgun, 10 ork_boy) with cover = soft``),
  worked out under both versions, with the mean of its last step (the
  casualties) before and after and the relative change; plus any expressions the
  caller names (``warscribe diff --matchup EXPR``).

Both are pure functions of the two models and return frozen dataclasses.  This
module holds the declaration-level diff; how a declaration is read (its clauses,
stats and prose) is :mod:`compiler.review.fields`, the cell-by-cell working of
tables, formulas and tests :mod:`compiler.review.cells`, and :func:`impact` lives in
:mod:`compiler.review.odds` — their public names are importable from here too.
The renderers (text, Markdown, JSON) are in :mod:`compiler.review.report`, reading
git revisions is :mod:`compiler.review.gitsource`.  ``diff_models(overlay.base, overlay)``
is "what these house rules change".

>>> from compiler.driver import compile_text
>>> def model(body):
...     head = 'ruleset demo "Demo":\\n  version 1.0.0\\nstat BS "Ballistic Skill" 1..6\\n'
...     return compile_text(head + body).rulesets[0]
>>> old = model('table to_hit(BS) "To hit":\\n  BS >= 4 -> 3+\\n  otherwise -> 4+\\n')
>>> new = model('table to_hit(BS) "To hit":\\n  BS >= 5 -> 3+\\n  otherwise -> 4+\\n')
>>> d = diff_models(old, new)
>>> [(c.id, c.change) for c in d.changes]
[('to_hit', 'changed')]
>>> [(f.field, f.old, f.new) for f in d.changes[0].fields]
[('rows', 'BS >= 4 -> 3+\\notherwise -> 4+', 'BS >= 5 -> 3+\\notherwise -> 4+')]
>>> [(dict(c.at), c.old.result, c.new.result) for c in d.changes[0].cells]
[({'BS': 4}, '3+', '4+')]
>>> diff_models(old, old).empty
True
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Any, Mapping

from compiler import ast as A
from compiler.model.ruleset import Ruleset, kind_of
from compiler.review.cells import (MAX_CELLS, MAX_FORMULA_CELLS, Cell, CellChange, CellKey, compare_cells, exact_text,
                                   show_value, worked_cells)
from compiler.review.fields import (FieldChange, ProseChange, StatChange, compare_fields, compare_prose, compare_stats,
                                    decl_fields, decl_prose, header_fields, model_prose)
from compiler.review.odds import (ExampleImpact, ExpectValue, Impact, MatchupImpact, ValueChange, changed_examples,
                                    example_values, impact, matchup_label, percent, standard_matchups)
from compiler.syntax.unparse import is_position_field

__all__ = ["ADDED", "CHANGED", "MOVED", "REMOVED", "MAX_CELLS", "MAX_FORMULA_CELLS",
           "Side", "Change", "RulesetDiff", "side_of", "diff_models",
           "Cell", "CellChange", "CellKey", "worked_cells", "compare_cells", "exact_text", "show_value",
           "FieldChange", "StatChange", "ProseChange", "decl_fields", "header_fields", "decl_prose", "model_prose",
           "compare_fields", "compare_prose", "compare_stats",
           "ExampleImpact", "ExpectValue", "Impact", "MatchupImpact", "ValueChange", "impact", "changed_examples",
           "example_values", "matchup_label", "percent", "standard_matchups"]

ADDED, REMOVED, CHANGED, MOVED = "added", "removed", "changed", "moved"


# ---------------------------------------------------------------------------
# The data
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One side of a comparison: which ruleset, which version, and where it was read from."""

    id: str
    version: str | None
    title: str
    label: str  # a folder ("rules/x") or a revision and folder ("HEAD~1:rules/x")


@dataclass(frozen=True)
class Change:
    """What happened to one declaration (matched by id) between the two sides.

    ``change`` is ``added``, ``removed``, ``changed`` or ``moved`` (only its
    section differs).  A declaration that moved *and* changed is ``changed`` with
    ``moved_from`` set.  ``indirect`` marks a table, formula or test whose text
    is the same but whose worked-out cells changed through something it uses.
    ``section`` is the id of the enclosing section (the new side's, or the old
    side's for a removal); the ruleset header is a change of kind ``ruleset``.
    """

    id: str
    kind: str
    title: str | None
    change: str
    section: str | None = None
    moved_from: str | None = None
    fields: tuple[FieldChange, ...] = ()
    stats: tuple[StatChange, ...] = ()
    cells: tuple[CellChange, ...] = ()
    prose: tuple[ProseChange, ...] = ()
    indirect: bool = False


@dataclass(frozen=True)
class RulesetDiff:
    """Every difference between two versions of a ruleset, in document order."""

    old: Side
    new: Side
    changes: tuple[Change, ...]

    @property
    def empty(self) -> bool:
        return not self.changes

    def get(self, id_: str) -> Change | None:
        return next((c for c in self.changes if c.id == id_), None)

    def counts(self) -> dict[str, int]:
        """How many declarations were added, removed, changed and moved (the header not counted)."""
        out = {ADDED: 0, REMOVED: 0, CHANGED: 0, MOVED: 0}
        for c in self.changes:
            if c.kind != "ruleset":
                out[c.change] += 1
        return out


def side_of(model: Ruleset, label: str | None = None) -> Side:
    return Side(model.id, model.version, model.title, label if label is not None else model.folder)


# ---------------------------------------------------------------------------
# Declarations by id
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Entry:
    decl: A.Decl
    section: str | None
    order: int


def _index(model: Ruleset) -> dict[str, _Entry]:
    """Every declaration with an id, with its enclosing section, in document order."""
    out: dict[str, _Entry] = {}
    counter = itertools.count()

    def visit(items: tuple[A.Decl, ...], section: str | None) -> None:
        for d in items:
            if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend)) or not d.id:
                continue
            out.setdefault(d.id, _Entry(d, section, next(counter)))
            if isinstance(d, (A.Section, A.Rule)):
                visit(d.body, d.id)
    visit(model.items, None)
    return out


# ---------------------------------------------------------------------------
# The diff
# ---------------------------------------------------------------------------


def _title(d: A.Decl) -> str | None:
    t = getattr(d, "title", None)
    return t if isinstance(t, str) else None


# Changing one of these can change any result: they act wherever their names are used, or set ranges.
_GLOBAL_KINDS = (A.Modifier, A.Ability, A.Stat, A.Situation, A.Die)
# Fields whose change cannot change a value.
_WORDS_ONLY = {"title", "definition", "aka", "see", "pinned by", "kind"}
# Fields that hold words, not names: not followed when looking for what a declaration uses.
_TEXT_FIELDS = {"prose", "title", "short", "text", "aka", "message", "summary", "see", "pinned_by"}


def _mentions(value: Any, out: set[str]) -> None:
    """Every name-like string inside a piece of the AST (a superset of the ids it uses)."""
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, tuple):
        for v in value:
            _mentions(v, out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if f.name not in _TEXT_FIELDS and not is_position_field(f.name):
                _mentions(getattr(value, f.name), out)


def _cells_worth_working_out(old: Ruleset, new: Ruleset, o_index: Mapping[str, _Entry],
                             n_index: Mapping[str, _Entry],
                             compared: Mapping[str, tuple[tuple[FieldChange, ...], tuple[StatChange, ...],
                                                          tuple[ProseChange, ...]]]) -> set[str]:
    """The tables, formulas and tests whose cells may differ: changed themselves, or using what changed.

    Working out every cell of every table of two versions costs seconds on a
    large ruleset; a cell can only change when the declaration or something it
    uses (directly or through other tables, formulas and tests) changed in more
    than words — or when a modifier, ability, stat, situation or die changed,
    since those act wherever their names are used.
    """
    changed = {i for i in set(o_index) ^ set(n_index)}
    for id_, (fields, stats, _prose) in compared.items():
        if stats or any(f.field not in _WORDS_ONLY for f in fields):
            changed.add(id_)
    kinds = [e.decl for i in changed for e in (o_index.get(i), n_index.get(i)) if e is not None]
    calculable = {i for i, e in n_index.items() if isinstance(e.decl, (A.Table, A.Formula, A.Test)) and i in o_index}
    if any(isinstance(d, _GLOBAL_KINDS) for d in kinds):
        return calculable
    uses: dict[str, set[str]] = {}
    for index in (o_index, n_index):
        for i, e in index.items():
            _mentions(e.decl, uses.setdefault(i, set()))
    worth: set[str] = set()
    for start in calculable:
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            if here in changed:
                worth.add(start)
                break
            for name in uses.get(here, ()):
                if name not in seen and name in uses:
                    seen.add(name)
                    todo.append(name)
    return worth


#: The header fields that belong to one ruleset, left out when an overlay is compared with its base.
OWN_FIELDS = ("id", "version", "history", "extends")


def diff_models(old: Ruleset, new: Ruleset, *, cells: bool = True,
                old_label: str | None = None, new_label: str | None = None) -> RulesetDiff:
    """Compare two rules models declaration by declaration (matched by id).

    ``cells=False`` skips working tables, formulas and tests out cell by cell
    (faster; the textual changes are still found).  Identical models give an
    empty diff.  The header (title, version, history, the text at the top) is
    compared as a change of kind ``ruleset`` listed first.

    >>> from compiler.driver import compile_text
    >>> head = 'ruleset demo "Demo":\\n  version {}\\nstat BS "Ballistic Skill" 1..6\\n'
    >>> old = compile_text(head.format("1.0.0") + 'keyword infantry "Infantry"\\n').rulesets[0]
    >>> new = compile_text(head.format("1.1.0") + 'keyword vehicle "Vehicle"\\n').rulesets[0]
    >>> d = diff_models(old, new, old_label="v1", new_label="v2")
    >>> [(c.id, c.kind, c.change) for c in d.changes]  # a removal stands where it stood
    [('demo', 'ruleset', 'changed'), ('infantry', 'keyword', 'removed'), ('vehicle', 'keyword', 'added')]
    >>> d.counts()
    {'added': 1, 'removed': 1, 'changed': 0, 'moved': 0}
    """
    changes: list[tuple[tuple[float, int], Change]] = []
    old_head, new_head = header_fields(old.header), header_fields(new.header)
    if old.id != new.id and (new.header.extends == old.id or old.header.extends == new.id):
        # An overlay against its base: two rulesets, not two versions of one. Their ids, versions,
        # histories and the `extends` line between them are what they are, not changes.
        for key in OWN_FIELDS:
            old_head.pop(key, None)
            new_head.pop(key, None)
    head = compare_fields(old_head, new_head)
    head_prose = compare_prose(model_prose(old), model_prose(new))
    if head or head_prose:
        changes.append(((-1.0, 0), Change(new.id, "ruleset", new.title, CHANGED, None, None, head,
                                          prose=head_prose)))
    o_index, n_index = _index(old), _index(new)
    compared: dict[str, tuple[tuple[FieldChange, ...], tuple[StatChange, ...], tuple[ProseChange, ...]]] = {}
    for id_, n in n_index.items():
        o = o_index.get(id_)
        if o is not None:
            compared[id_] = (compare_fields(decl_fields(o.decl), decl_fields(n.decl)),
                             compare_stats(o.decl, n.decl), compare_prose(decl_prose(o.decl), decl_prose(n.decl)))
    worth = _cells_worth_working_out(old, new, o_index, n_index, compared) if cells else set()
    for id_, n in n_index.items():
        o = o_index.get(id_)
        if o is None:
            changes.append(((float(n.order), 0), Change(id_, kind_of(n.decl), _title(n.decl), ADDED, n.section)))
            continue
        fields, stats, prose = compared[id_]
        cell_changes: tuple[CellChange, ...] = ()
        if id_ in worth and type(o.decl) is type(n.decl) and isinstance(n.decl, (A.Table, A.Formula, A.Test)):
            oc, nc = worked_cells(old, o.decl), worked_cells(new, n.decl)
            if oc is not None and nc is not None:
                cell_changes = compare_cells(oc, nc)
        moved = o.section != n.section
        textual = bool(fields or stats or prose)
        if not (textual or cell_changes or moved):
            continue
        kind = CHANGED if (textual or cell_changes) else MOVED
        changes.append(((float(n.order), 0), Change(
            id_, kind_of(n.decl), _title(n.decl), kind, n.section, o.section if moved else None,
            fields, stats, cell_changes, prose, indirect=bool(cell_changes) and not textual)))
    # Removed declarations stand after the last one before them that is still there.
    last = -1.0
    for id_, o in sorted(o_index.items(), key=lambda kv: kv[1].order):
        if id_ in n_index:
            last = float(n_index[id_].order)
            continue
        changes.append(((last + 0.5, o.order), Change(id_, kind_of(o.decl), _title(o.decl), REMOVED, o.section)))
    changes.sort(key=lambda kc: kc[0])
    return RulesetDiff(side_of(old, old_label), side_of(new, new_label), tuple(c for _, c in changes))

