"""A declaration as the semantic diff reads it: its clauses as the language writes them, its prose, its stats.

:func:`decl_fields` turns any declaration into labelled texts (``"rows"``,
``"roll"``, ``"natural fails"``…), written with :mod:`compiler.syntax.unparse`
so a reader sees the old and the new clause as they would type it;
:func:`header_fields` does the same for a ruleset's header, :func:`decl_prose`
for its Markdown texts.  The ``compare_*`` functions turn two such readings into
the :class:`FieldChange`, :class:`StatChange` and :class:`ProseChange` records
of a :class:`~compiler.review.diff.Change`.

>>> [(c.field, c.old, c.new) for c in compare_fields({"title": "Hit", "roll": "d6"}, {"title": "Hit", "roll": "2d6"})]
[('roll', 'd6', '2d6')]
"""
from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

from compiler import ast as A
from compiler.model.ruleset import Ruleset, kind_of
from compiler.syntax.unparse import (ability_use_text, binding_text, canonical_text, case_row_text, effect_text,
                                     expect_text, expr_text, grid_lines, history_text, hook_text, is_position_field,
                                     let_text, params_text, phase_step_text, phase_text, requirement_text,
                                     reroll_text, roll_text, score_text, step_text, victory_text)


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


def _names(pairs: tuple[tuple[str, Any], ...]) -> str | None:
    return ", ".join(n for n, _ in pairs) or None


def _lines(items: Iterable[str]) -> str | None:
    return "\n".join(items) or None


def _natural(faces: tuple[int, ...], word: str) -> str | None:
    return f"natural {' or '.join(str(f) for f in faces)} {word}" if faces else None


# How a field is shown: (declaration type or None for any, field name) -> (label, text function).
_FIELD_TEXT: dict[tuple[type | None, str], tuple[str, Callable[[Any], str | None]]] = {
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
    (A.Ability, "defence"): ("when attacked", lambda v: _lines(effect_text(e) for e in v)),
    (A.Attack, "steps"): ("steps", lambda v: _lines(step_text(s) for s in v)),
    (A.Stat, "type"): ("type", lambda v: expr_text(v) if isinstance(v, A.RangeExpr) else v),
    (A.Stat, "clamped"): ("unclamped", lambda v: None if v else "unclamped"),
    (A.Stat, "role"): ("role", lambda v: v),
    (A.Situation, "choices"): ("choices", lambda v: ", ".join(v) or None),
    (A.Situation, "range"): ("range", lambda v: expr_text(v) or None),
    (A.Die, "base_sides"): ("rolled on", lambda v: f"d{v}"),
    (A.Die, "faces"): ("faces", lambda v: ", ".join(str(f) for f in v)),
    (A.Army, "points"): ("points", lambda v: " or ".join(str(p) for p in v) or None),
    (A.Army, "requires"): ("requires", lambda v: _lines(requirement_text(r) for r in v)),
    (A.Army, "unit_requires"): ("requires of each unit", lambda v: _lines(requirement_text(r) for r in v)),
    (A.Property, "bindings"): ("for", lambda v: ", ".join(binding_text(b) for b in v) or None),
    (A.Claim, "bindings"): ("for", lambda v: ", ".join(binding_text(b) for b in v) or None),
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


def model_prose(model: Ruleset) -> dict[str, str]:
    return {"": _prose_join(model.header.prose),
            "text outside sections": "\n\n".join(b.text.strip("\n") for b in model.items
                                                 if isinstance(b, A.ProseBlock))}


def compare_fields(old: Mapping[str, str | None], new: Mapping[str, str | None]) -> tuple[FieldChange, ...]:
    labels = list(new) + [k for k in old if k not in new]
    return tuple(FieldChange(k, old.get(k), new.get(k)) for k in labels if old.get(k) != new.get(k))


def compare_prose(old: Mapping[str, str], new: Mapping[str, str]) -> tuple[ProseChange, ...]:
    wheres = list(new) + [k for k in old if k not in new]
    return tuple(ProseChange(w, old.get(w, ""), new.get(w, "")) for w in wheres
                 if old.get(w, "") != new.get(w, ""))


def compare_stats(old: A.Decl, new: A.Decl) -> tuple[StatChange, ...]:
    if not isinstance(old, A.Profile) or not isinstance(new, A.Profile):
        return ()
    o = {s.stat: s.text for s in old.stats}
    n = {s.stat: s.text for s in new.stats}
    names = list(n) + [k for k in o if k not in n]
    return tuple(StatChange(k, o.get(k), n.get(k)) for k in names if o.get(k) != n.get(k))

