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

Both are pure functions of the two models and return frozen dataclasses; the
renderers (text, Markdown, JSON) are in :mod:`compiler.review.report`, reading
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
import difflib
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Iterator, Mapping, Sequence

from compiler import ast as A
from compiler.model.ruleset import Ruleset, kind_of
from compiler.syntax.unparse import (ability_use_text, binding_text, canonical_text, case_row_text, effect_text, expect_text,
                      expr_text, grid_lines, history_text, hook_text, is_position_field, let_text, params_text,
                      phase_step_text, phase_text, requirement_text, reroll_text, roll_text, score_text, step_text,
                      victory_text)

#: Tables and tests with more cells than this are not worked out cell by cell.
MAX_CELLS = 2_000
#: Nor formulas with more than this (a formula's cell may be a whole distribution: slow).
MAX_FORMULA_CELLS = 300

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
class FieldChange:
    """One field or clause of a declaration, as the language writes it, before and after.

    ``old`` is None when the clause was added, ``new`` when it was removed.  A
    multi-line value (table rows, attack steps, expectations) holds one line per
    row; :meth:`lines` gives the line-by-line diff.
    """

    field: str
    old: str | None
    new: str | None

    @property
    def multiline(self) -> bool:
        return "\n" in (self.old or "") or "\n" in (self.new or "")

    def lines(self) -> list[str]:
        """The change line by line: ``"- old line"``, ``"+ new line"``, ``"  same line"``.

        >>> FieldChange("rows", "a -> 1\\nb -> 2", "a -> 1\\nb -> 3").lines()
        ['  a -> 1', '- b -> 2', '+ b -> 3']
        """
        old = (self.old or "").splitlines()
        new = (self.new or "").splitlines()
        out = []
        for line in difflib.ndiff(old, new):
            if line.startswith("? "):
                continue
            out.append(line)
        return out


@dataclass(frozen=True)
class StatChange:
    """One stat of a profile: ``BS 4 → 3``; old or new is None when the stat was added or dropped."""

    stat: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class Cell:
    """One worked-out cell of a table, formula or test.

    ``result`` is what the table gives (``4+``, ``3``, ``never``); ``p`` the chance
    to pass it as an exact fraction in text (``1/2``) when there is one — for a
    test, the chance that the test passes; ``mean`` the average when the cell is
    random (a formula that rolls dice).
    """

    result: str | None
    p: str | None = None
    mean: str | None = None

    def text(self) -> str:
        """``"4+ (1/2)"``, ``"P 1/3"`` or ``"mean 7/2"``."""
        parts = []
        if self.result is not None:
            parts.append(self.result)
        if self.mean is not None:
            parts.append(f"mean {self.mean}")
        if self.p is not None:
            parts.append(f"({self.p})" if parts else f"P {self.p}")
        return " ".join(parts) or "?"


@dataclass(frozen=True)
class CellChange:
    """A cell whose result or chance changed; ``old``/``new`` is None where the cell does not exist."""

    at: tuple[tuple[str, Any], ...]  # (parameter, value) pairs, e.g. (("S", 3), ("T", 6))
    old: Cell | None
    new: Cell | None

    def where(self) -> str:
        """``"S = 3, T = 6"``."""
        return ", ".join(f"{k} = {_show_value(v)}" for k, v in self.at) or "(no parameters)"


@dataclass(frozen=True)
class ProseChange:
    """A Markdown text before and after; ``where`` names the part it belongs to ("" for the main text)."""

    where: str
    old: str
    new: str

    def unified(self, context: int = 2) -> list[str]:
        """The change as unified-diff lines (without the ``---``/``+++`` file header).

        >>> ProseChange("", "Roll a die.\\nAdd one.", "Roll two dice.\\nAdd one.").unified()
        ['@@ -1,2 +1,2 @@', '-Roll a die.', '+Roll two dice.', ' Add one.']
        """
        lines = list(difflib.unified_diff(self.old.splitlines(), self.new.splitlines(), lineterm="", n=context))
        return lines[2:]


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


@dataclass(frozen=True)
class ValueChange:
    """One ``expect`` subject of an example, worked out under each version.

    ``old``/``new`` are the values in words (``25/18 (≈ 1.38889)``), None where
    the side has no such expectation; ``old_exact``/``new_exact`` the exact values
    (``25/18``, ``4+``, ``yes``), or ``error: …`` when the value cannot be worked out.
    """

    subject: str
    old: str | None
    new: str | None
    old_exact: str | None
    new_exact: str | None
    expected: str | None = None  # the new side's expectation, e.g. "= 25/18" or "~ 0.35 ± 0.01"
    old_holds: bool | None = None  # did the expectation hold (each side's own)?
    new_holds: bool | None = None

    @property
    def changed(self) -> bool:
        return self.old_exact != self.new_exact


@dataclass(frozen=True)
class ExampleImpact:
    id: str
    title: str
    values: tuple[ValueChange, ...]

    @property
    def changed(self) -> bool:
        return any(v.changed for v in self.values)


@dataclass(frozen=True)
class MatchupImpact:
    """A matchup worked out under both versions: the mean of its result before and after.

    For an attack sequence the reported value is the mean of its last step
    (``step``, usually the casualties); for any other expression its mean (a
    yes/no expression: its probability).  ``sources`` says which example lets
    the matchup comes from (``example_id.let``); ``explicit`` marks one the
    caller asked for.
    """

    expression: str
    label: str
    step: str | None
    old_mean: Fraction | float | None
    new_mean: Fraction | float | None
    old_error: str | None = None
    new_error: str | None = None
    explicit: bool = False
    sources: tuple[str, ...] = ()

    @property
    def relative(self) -> float | None:
        """``(new - old) / old``; None when either is missing or old is 0."""
        if self.old_mean is None or self.new_mean is None or self.old_mean == 0:
            return None
        return float((self.new_mean - self.old_mean) / self.old_mean)

    @property
    def changed(self) -> bool:
        return (self.old_mean != self.new_mean or (self.old_error is None) != (self.new_error is None))

    def summary(self) -> str:
        """``"mean killed 1.39 → 1.11, -20%"``."""
        what = f"mean {self.step}" if self.step else "mean"
        old = _dec(self.old_mean) if self.old_mean is not None else "n/a"
        new = _dec(self.new_mean) if self.new_mean is not None else "n/a"
        rel = self.relative
        tail = f", {percent(rel)}" if rel is not None else ""
        return f"{what} {old} → {new}{tail}"


@dataclass(frozen=True)
class Impact:
    """What a change did to the odds: examples whose results changed, and the matchups."""

    examples: tuple[ExampleImpact, ...]
    matchups: tuple[MatchupImpact, ...]

    @property
    def changed(self) -> bool:
        return any(e.changed for e in self.examples) or any(m.changed for m in self.matchups)


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


def percent(rel: float) -> str:
    """A relative change as a reader likes it.

    >>> percent(-0.2), percent(0.004), percent(0.0), percent(1.5)
    ('-20%', '+0.4%', '0%', '+150%')
    """
    pct = rel * 100
    if pct == 0:
        return "0%"
    if abs(pct) < 1:
        return f"{pct:+.1f}%"
    return f"{pct:+.0f}%"


def _dec(v: Fraction | float) -> str:
    return f"{float(v):.2f}"


def _show_value(v: Any) -> str:
    if v is None:
        return "none"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return str(v)


def side_of(model: Ruleset, label: str | None = None) -> Side:
    return Side(model.id, model.version, model.title, label if label is not None else model.folder)


# ---------------------------------------------------------------------------
# Declarations: index, fields, prose
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


def _names(pairs: tuple[tuple[str, Any], ...]) -> str | None:
    return ", ".join(n for n, _ in pairs) or None


def _lines(items: Iterable[str]) -> str | None:
    return "\n".join(items) or None


def _natural(faces: tuple[int, ...], word: str) -> str | None:
    return f"natural {' or '.join(str(f) for f in faces)} {word}" if faces else None


# How a field is shown: (declaration type or None for any, field name) -> (label, text function).
_FIELD_TEXT: dict[tuple[type | None, str], tuple[str, Any]] = {
    (None, "params"): ("parameters", lambda v: params_text(v) if v else None),
    (None, "short"): ("definition", lambda v: v),
    (None, "lets"): ("lets", lambda v: _lines(let_text(x) for x in v)),
    (None, "see"): ("see", _names),
    (None, "keywords"): ("keywords", _names),
    (None, "weapons"): ("weapons", _names),
    (None, "abilities"): ("abilities", lambda v: ", ".join(ability_use_text(u) for u in v) or None),
    (None, "aka"): ("aka", lambda v: ", ".join(f'"{a}"' for a in v) or None),
    (None, "effects"): ("effects", lambda v: _lines(effect_text(e) for e in v)),
    (None, "when"): ("when", lambda v: expr_text(v) or None),
    (None, "expects"): ("expects", lambda v: _lines(expect_text(e) for e in v)),
    (A.Test, "roll"): ("roll", lambda v: roll_text(v) if v else None),
    (A.Test, "natural_fails"): ("natural fails", lambda v: _natural(v, "fails")),
    (A.Test, "natural_succeeds"): ("natural succeeds", lambda v: _natural(v, "succeeds")),
    (A.Test, "never_better"): ("never better than", lambda v: expr_text(v) or None),
    (A.Test, "never_worse"): ("never worse than", lambda v: expr_text(v) or None),
    (A.Test, "modifier_cap"): ("modifiers between", lambda v: f"{v[0]} and {v[1]}" if v else None),
    (A.Test, "rerolls"): ("rerolls", lambda v: _lines(f"reroll {reroll_text(k)}" for k in v)),
    (A.Table, "rows"): ("rows", lambda v: _lines(case_row_text(r) for r in v)),
    (A.Table, "grid"): ("grid", lambda v: _lines(grid_lines(v)) if v else None),
    (A.Table, "formula"): ("formula", lambda v: expr_text(v) or None),
    (A.Formula, "result"): ("result", lambda v: expr_text(v) or None),
    (A.Ability, "hooks"): ("hooks", lambda v: _lines(hook_text(h) for h in v)),
    (A.Attack, "steps"): ("steps", lambda v: _lines(step_text(s) for s in v)),
    (A.Stat, "type"): ("type", lambda v: expr_text(v) if isinstance(v, A.RangeExpr) else v),
    (A.Stat, "clamped"): ("unclamped", lambda v: None if v else "unclamped"),
    (A.Situation, "choices"): ("choices", lambda v: ", ".join(v) or None),
    (A.Situation, "range"): ("range", lambda v: expr_text(v) or None),
    (A.Die, "base_sides"): ("rolled on", lambda v: f"d{v}"),
    (A.Die, "faces"): ("faces", lambda v: ", ".join(str(f) for f in v)),
    (A.Army, "points"): ("points", lambda v: " or ".join(str(p) for p in v) or None),
    (A.Army, "requires"): ("requires", lambda v: _lines(requirement_text(r) for r in v)),
    (A.Property, "bindings"): ("for", lambda v: ", ".join(binding_text(b) for b in v) or None),
    (A.Note, "pinned_by"): ("pinned by", _names),
    (A.Squad, "special"): ("special", lambda v: "special" if v else None),
}
# Fields shown elsewhere (or not at all): the id, positions, contents, texts and profile stats.
_SKIP = {"id", "prose", "body", "stats", "phases", "scores", "victories"}


def _generic_text(value: Any) -> str | None:
    if value is None or value is False or value == ():
        return None
    if value is True:
        return "yes"
    if isinstance(value, (int, str, Fraction)):
        return str(value)
    if isinstance(value, (A.Expr, A.RangeExpr)):
        return expr_text(value)
    if isinstance(value, tuple):
        if all(isinstance(v, (str, int)) for v in value):
            return ", ".join(str(v) for v in value)
        return _lines(canonical_text(v) for v in value)
    return canonical_text(value)


def decl_fields(d: A.Decl) -> dict[str, str | None]:
    """A declaration's fields and clauses as the language writes them, by label, in a stable order.

    >>> from compiler.resolve.evaluator import parse_expression
    >>> t = A.Test(A.Span.point("x"), "hit", (A.Param(A.Span.point("x"), "BS", None),), "Roll to hit",
    ...            A.Roll(A.Span.point("x"), parse_expression("d6"), ">=", parse_expression("BS")), (1,))
    >>> {k: v for k, v in decl_fields(t).items() if v}
    {'kind': 'test', 'parameters': '(BS)', 'title': 'Roll to hit', 'roll': 'roll d6 >= BS', 'natural fails': 'natural 1 fails'}
    """
    out: dict[str, str | None] = {"kind": kind_of(d)}
    for f in dataclasses.fields(d):
        if f.name in _SKIP or is_position_field(f.name):
            continue
        value = getattr(d, f.name)
        spec = _FIELD_TEXT.get((type(d), f.name)) or _FIELD_TEXT.get((None, f.name))
        if spec is not None:
            label, fn = spec
            out[label] = fn(value)
        else:
            out[f.name.replace("_", " ")] = _generic_text(value)
    if isinstance(d, A.Profile):
        out.pop("kind", None)
        out["kind"] = d.kind
    if isinstance(d, A.Game):
        for ph in d.phases:
            out[f"phase {ph.id}"] = phase_text(ph)
            for st in ph.steps:
                out[f"step {st.id}"] = phase_step_text(st)
        for sc in d.scores:
            out[f"score {sc.id}"] = score_text(sc)
        for v in d.victories:
            out[f"victory {v.id}"] = victory_text(v)
    return out


def header_fields(h: A.Header) -> dict[str, str | None]:
    """The header's fields: id, title, version, authors, source, licence, extends, summary, history."""
    return {
        "id": h.id,
        "title": h.title,
        "version": h.version,
        "authors": ", ".join(h.authors) or None,
        "source": h.source,
        "licence": h.licence,
        "extends": f"{h.extends} {h.extends_version or ''}".strip() if h.extends else None,
        "summary": h.summary,
        "history": _lines(history_text(e) for e in h.history),
    }


def _prose_join(prose: Iterable[A.Prose]) -> str:
    return "\n\n".join(p.text.strip("\n") for p in prose)


def decl_prose(d: A.Decl) -> dict[str, str]:
    """A declaration's Markdown texts by where they stand ("" for its own text)."""
    out: dict[str, str] = {}
    if isinstance(d, (A.Section, A.Rule)):
        out[""] = "\n\n".join(b.text.strip("\n") for b in d.body if isinstance(b, A.ProseBlock))
    else:
        out[""] = _prose_join(getattr(d, "prose", ()) or ())
    if isinstance(d, A.Game):
        for ph in d.phases:
            out[f"phase {ph.id}"] = _prose_join(ph.prose)
        for sc in d.scores:
            out[f"score {sc.id}"] = _prose_join(sc.prose)
        for v in d.victories:
            out[f"victory {v.id}"] = _prose_join(v.prose)
    return {k: v for k, v in out.items() if v or k == ""}


def _model_prose(model: Ruleset) -> dict[str, str]:
    return {"": _prose_join(model.header.prose),
            "text outside sections": "\n\n".join(b.text.strip("\n") for b in model.items
                                                 if isinstance(b, A.ProseBlock))}


def _compare_fields(old: Mapping[str, str | None], new: Mapping[str, str | None]) -> tuple[FieldChange, ...]:
    labels = list(new) + [k for k in old if k not in new]
    return tuple(FieldChange(k, old.get(k), new.get(k)) for k in labels if old.get(k) != new.get(k))


def _compare_prose(old: Mapping[str, str], new: Mapping[str, str]) -> tuple[ProseChange, ...]:
    wheres = list(new) + [k for k in old if k not in new]
    return tuple(ProseChange(w, old.get(w, ""), new.get(w, "")) for w in wheres
                 if old.get(w, "") != new.get(w, ""))


def _compare_stats(old: A.Decl, new: A.Decl) -> tuple[StatChange, ...]:
    if not isinstance(old, A.Profile) or not isinstance(new, A.Profile):
        return ()
    o = {s.stat: s.text for s in old.stats}
    n = {s.stat: s.text for s in new.stats}
    names = list(n) + [k for k in o if k not in n]
    return tuple(StatChange(k, o.get(k), n.get(k)) for k in names if o.get(k) != n.get(k))


# ---------------------------------------------------------------------------
# Cells of tables, formulas and tests
# ---------------------------------------------------------------------------


def worked_cells(model: Ruleset, decl: A.Decl) -> dict[tuple[tuple[str, Any], ...], Cell] | None:
    """A table, formula or test worked out over its parameters' ranges (None when it cannot be).

    A table's cell has its result and, where a test rolls against the table (or
    the result is a target), the chance to pass; a test's cell has the chance
    that it passes; a random formula's cell has its mean.
    """
    from compiler.check.passes import param_domain
    from compiler.resolve.report import evaluate_table
    from compiler.resolve.evaluator import Evaluator, ResolveError

    if not isinstance(decl, (A.Table, A.Formula, A.Test)):
        return None
    domains = [param_domain(model, p) for p in decl.params]
    if any(dom is None for dom in domains):
        return None
    size = 1
    for dom in domains:
        size *= len(dom)  # type: ignore[arg-type]
    if size > (MAX_FORMULA_CELLS if isinstance(decl, A.Formula) else MAX_CELLS):
        return None
    ev = Evaluator(model)
    out: dict[tuple[tuple[str, Any], ...], Cell] = {}
    try:
        if isinstance(decl, A.Test):
            names = [p.name for p in decl.params]
            for point in itertools.product(*domains):  # type: ignore[arg-type]
                at = tuple(zip(names, (_json_value(v) for v in point)))
                p = ev.probability(ev.apply(decl, list(point), decl.span), decl.span)
                out[at] = Cell(None, _exact_text(p))
            return out
        data = evaluate_table(ev, decl)
    except ResolveError:
        return None
    for c in data["cells"]:
        at = tuple(c["at"].items())
        if "mean" in c:  # a random result: its mean
            out[at] = Cell(None, None, None if c["mean"] is None else _exact_text(Fraction(c["mean"])))
        else:
            result = c.get("result")
            p = c.get("p")
            out[at] = Cell(result if isinstance(result, str) else _show_value(result),
                           None if p is None else _exact_text(Fraction(p)))
    return out


def _json_value(v: Any) -> Any:
    from compiler.resolve.report import json_value as jv
    return jv(v)


def _compare_cells(old: Mapping[tuple[tuple[str, Any], ...], Cell],
                   new: Mapping[tuple[tuple[str, Any], ...], Cell]) -> tuple[CellChange, ...]:
    keys = list(new) + [k for k in old if k not in new]
    return tuple(CellChange(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k))


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


def diff_models(old: Ruleset, new: Ruleset, *, cells: bool = True,
                old_label: str | None = None, new_label: str | None = None) -> RulesetDiff:
    """Compare two rules models declaration by declaration (matched by id).

    ``cells=False`` skips working tables, formulas and tests out cell by cell
    (faster; the textual changes are still found).  Identical models give an
    empty diff.  The header (title, version, history, the text at the top) is
    compared as a change of kind ``ruleset`` listed first.
    """
    changes: list[tuple[tuple[float, int], Change]] = []
    head = _compare_fields(header_fields(old.header), header_fields(new.header))
    head_prose = _compare_prose(_model_prose(old), _model_prose(new))
    if head or head_prose:
        changes.append(((-1.0, 0), Change(new.id, "ruleset", new.title, CHANGED, None, None, head,
                                          prose=head_prose)))
    o_index, n_index = _index(old), _index(new)
    compared: dict[str, tuple[tuple[FieldChange, ...], tuple[StatChange, ...], tuple[ProseChange, ...]]] = {}
    for id_, n in n_index.items():
        o = o_index.get(id_)
        if o is not None:
            compared[id_] = (_compare_fields(decl_fields(o.decl), decl_fields(n.decl)),
                             _compare_stats(o.decl, n.decl), _compare_prose(decl_prose(o.decl), decl_prose(n.decl)))
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
                cell_changes = _compare_cells(oc, nc)
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


# ---------------------------------------------------------------------------
# Impact: examples and matchups under both versions
# ---------------------------------------------------------------------------


def _exact_text(v: Any) -> str:
    from compiler.resolve.report import fraction_text
    if isinstance(v, bool) or v is None:
        return _show_value(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Fraction):
        return fraction_text(v) if v.denominator != 1 else str(v.numerator)
    if isinstance(v, float):
        return repr(v)
    return str(v)


@dataclass(frozen=True)
class ExpectValue:
    """One ``expect`` line of an example worked out under one version."""

    subject: str
    words: str  # "25/18 (≈ 1.38889)", or "error: …"
    exact: str  # "25/18", or "error: …"
    expected: str  # "= 25/18"
    holds: bool


def example_values(model: Ruleset, ex: A.Example) -> list[ExpectValue]:
    """Each ``expect`` of an example with its subject's value under ``model``.

    A value that cannot be worked out is ``error: …`` (both in words and exact).
    """
    from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap
    from compiler.resolve.runner import check_expect, fmt_number

    ev = Evaluator(model)
    env: dict[str, Any] = {}
    failure: str | None = None
    try:
        for let in ex.lets:
            ev.bind_let(let, env)
    except ResolveError as err:
        failure = f"error: {err.message}"
    out: list[ExpectValue] = []
    for e in ex.expects:
        subject = expr_text(e.subject)
        expected = f"{e.op} {expr_text(e.expected)}" + (f" ± {expr_text(e.tolerance)}" if e.tolerance else "")
        if failure is not None:
            out.append(ExpectValue(subject, failure, failure, expected, False))
            continue
        try:
            v = ev.eval(e.subject, dict(env))
            if isinstance(v, AttackResult) or is_dist(v):
                raise ResolveError("not a single value")
            v = unwrap(v)
            holds = check_expect(ev, e, env)[0] is None
            out.append(ExpectValue(subject, fmt_number(v), _exact_text(v), expected, holds))
        except ResolveError as err:
            out.append(ExpectValue(subject, f"error: {err.message}", f"error: {err.message}", expected, False))
    return out


def _example_impact(old: Ruleset, new: Ruleset, id_: str) -> ExampleImpact | None:
    o, n = old.get(id_), new.get(id_)
    if not isinstance(o, A.Example) or not isinstance(n, A.Example):
        return None

    def keyed(rows: list[ExpectValue]) -> dict[tuple[str, int], ExpectValue]:
        seen: dict[str, int] = {}
        out = {}
        for row in rows:
            k = seen.get(row.subject, 0)
            seen[row.subject] = k + 1
            out[(row.subject, k)] = row
        return out
    ov, nv = keyed(example_values(old, o)), keyed(example_values(new, n))
    keys = list(nv) + [k for k in ov if k not in nv]
    values = []
    for k in keys:
        a, b = ov.get(k), nv.get(k)
        ref = b or a
        values.append(ValueChange(k[0], a.words if a else None, b.words if b else None,
                                  a.exact if a else None, b.exact if b else None,
                                  ref.expected if ref else None,
                                  a.holds if a else None, b.holds if b else None))
    return ExampleImpact(id_, n.title, tuple(values))


def _attack_call(model: Ruleset, e: A.Expr) -> A.Call | None:
    inner = e.expr if isinstance(e, A.With) else e
    if isinstance(inner, A.Call) and isinstance(model.callables.get(inner.func), A.Attack):
        return inner
    return None


def standard_matchups(*models: Ruleset) -> list[tuple[A.Expr, tuple[str, ...]]]:
    """The standard matchups of some rulesets: every example ``let`` that calls an attack sequence.

    Returned once per distinct expression (as written in the language), in the
    order first met, with the ``example.let`` names it appears under.
    """
    found: dict[str, tuple[A.Expr, list[str]]] = {}
    for model in models:
        for ex in model.of_type(A.Example):
            for let in ex.lets:
                if _attack_call(model, let.value) is None:
                    continue
                key = expr_text(let.value)
                entry = found.setdefault(key, (let.value, []))
                src = f"{ex.id}.{let.name}"
                if src not in entry[1]:
                    entry[1].append(src)
    return [(e, tuple(srcs)) for e, srcs in found.values()]


def matchup_label(expr: A.Expr, *models: Ruleset) -> str:
    """A matchup in words: ``"Shooting: 10 Imperial Guardsman, Lasgun, 10 Ork Boy (target_cover = soft)"``."""
    from compiler.syntax.unparse import setting_text

    call = None
    for m in models:
        call = _attack_call(m, expr)
        if call is not None:
            break
    if call is None:
        return expr_text(expr)
    title = next((getattr(m.callables.get(call.func), "title", None) for m in models
                  if m.callables.get(call.func) is not None), None) or call.func

    def profile_title(pid: str) -> str:
        for m in models:
            p = m.profiles.get(pid)
            if p is not None:
                return p.title
        return pid
    args = []
    for a in call.args:
        if isinstance(a, A.Group):
            args.append(f"{a.count} {profile_title(a.profile)}")
        elif isinstance(a, A.Name) and any(a.id in m.profiles for m in models):
            args.append(profile_title(a.id))
        else:
            args.append(expr_text(a))
    text = f"{title}: {', '.join(args)}"
    if isinstance(expr, A.With):
        text += f" ({', '.join(setting_text(s) for s in expr.settings)})"
    return text


def _matchup_value(model: Ruleset, expr: A.Expr) -> tuple[str | None, Fraction | float | None, str | None]:
    """(step, mean, error) of one matchup under one model."""
    from compiler.resolve.report import mean_of
    from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, unwrap

    try:
        v = Evaluator(model).evaluate(expr)
        step = None
        if isinstance(v, AttackResult):
            if not v.steps:
                return None, None, "the attack has no steps"
            step = list(v.steps)[-1]
            v = v.steps[step]
        if is_dist(v):
            m = mean_of(v)
        else:
            u = unwrap(v)
            m = Fraction(int(u)) if isinstance(u, bool) else u
        if isinstance(m, int) and not isinstance(m, bool):
            m = Fraction(m)
        if not isinstance(m, (Fraction, float)):
            return step, None, f"{m} is not a number"
        return step, m, None
    except ResolveError as err:
        return None, None, err.message
    except (TypeError, ValueError) as err:  # a value that has no mean
        return None, None, str(err)


def impact(old: Ruleset, new: Ruleset, matchups: Sequence[str | A.Expr] = (), *,
           standard: bool = True, examples: bool = True, unchanged: bool = False) -> Impact:
    """What going from ``old`` to ``new`` does to the results: examples and matchups.

    * ``examples``: every example present (by id) in both, each ``expect``
      subject's value under its own version; only the examples with a changed
      value are kept unless ``unchanged``.
    * ``standard``: the standard matchups (:func:`standard_matchups` of both
      sides), each worked out under both versions; ``matchups``: more
      expressions (text or parsed), always kept.  A standard matchup whose mean
      did not change is kept only with ``unchanged``.

    Raises :class:`~compiler.resolve.evaluator.ResolveError` for an explicit matchup that
    cannot be read.

    >>> from compiler.driver import compile_text
    >>> head = 'ruleset d "D":\\n  version 1.0.0\\ntest hit(BS: 1..6) = roll d6 >= BS\\n'
    >>> old = compile_text(head + 'example e "E":\\n  expect P(hit(4)) = 1/2\\n').rulesets[0]
    >>> new = compile_text(head.replace(">= BS", ">= BS + 1") + 'example e "E":\\n  expect P(hit(4)) = 1/3\\n').rulesets[0]
    >>> [(v.subject, v.old_exact, v.new_exact) for v in impact(old, new).examples[0].values]
    [('P(hit(4))', '1/2', '1/3')]
    >>> impact(old, new, ["P(hit(3))"]).matchups[0].summary()
    'mean 0.67 → 0.50, -25%'
    """
    from compiler.resolve.evaluator import parse_expression

    ex_out: list[ExampleImpact] = []
    if examples:
        for ex in new.of_type(A.Example):
            item = _example_impact(old, new, ex.id)
            if item is not None and (unchanged or item.changed):
                ex_out.append(item)
    wanted: list[tuple[A.Expr, tuple[str, ...], bool]] = []
    for m in matchups:
        expr = parse_expression(m) if isinstance(m, str) else m
        wanted.append((expr, (), True))
    if standard:
        explicit = {expr_text(e) for e, _, _ in wanted}
        wanted.extend((e, srcs, False) for e, srcs in standard_matchups(old, new) if expr_text(e) not in explicit)
    mu_out: list[MatchupImpact] = []
    for expr, srcs, is_explicit in wanted:
        os_, om, oe = _matchup_value(old, expr)
        ns_, nm, ne = _matchup_value(new, expr)
        mu = MatchupImpact(expr_text(expr), matchup_label(expr, new, old), ns_ or os_, om, nm, oe, ne,
                           is_explicit, srcs)
        if is_explicit or unchanged or mu.changed:
            mu_out.append(mu)
    # The caller's matchups first, then those worked out on both sides, then the one-sided ones.
    mu_out.sort(key=lambda m: (not m.explicit, m.old_mean is None or m.new_mean is None))
    return Impact(tuple(ex_out), tuple(mu_out))


def changed_examples(old: Ruleset, new: Ruleset) -> Iterator[ExampleImpact]:
    """The examples (present in both) whose results differ — what ``warscribe check`` warns about."""
    for ex in new.of_type(A.Example):
        item = _example_impact(old, new, ex.id)
        if item is not None and item.changed:
            yield item
