"""A ruleset's army rules as data, for a page to check army lists with exactly as ``warscribe army check`` does.

:func:`army_rules_data` exports, from the model and from :mod:`compiler.model.armies` itself:

* each unit and squad a list may name: its title, its size range, its points law (``cost``:
  ``[base, per extra model, smallest size]``, ``points = base + extra * max(0, models - smallest)``,
  the smallest size ``None`` when a squad has none: then ``points = base``) and what one unit of it
  adds to the quantities a requirement reads (``adds``: the squads, units and keyword counts, worked
  out by :func:`~compiler.model.armies.army_quantities` on a list of that one unit; the quantities
  of :data:`LISTED` are the list's own, counted by the page from its length, its units' marks and,
  for a unit with the keyword of ``role special``, its points: ``special``);
* the marks a unit of a list may carry that the army rules read (``marks``: ``warlord``, ``reserve``,
  ``detachment``);
* each army: its game sizes (``sizes``, its ``points``; ``army check --points N`` picks one, by
  default the first, else 0), the quantities of an empty list (``base``), and each ``require``
  line as an expression tree with its message, the quantities its message shows (``shown``) and
  the rule it cites, at the first size (``requires``) and at each other one (``sized``); a quantity
  no list changes (``limit``, a keyword no unit or squad has) keeps its value in every list, so the
  parts of a requirement that read only such quantities are worked out here (a requirement that
  every list breaks that way has ``never``: those quantities, with the values ``army check`` gives
  them, for a page to explain);
* the message templates of :func:`~compiler.model.armies.check_army` (a squad out of its size range).

An expression tree is a small JSON array: ``["n", numerator, denominator]`` (a number, exact),
``["b", true]``, ``["q", "points"]`` (a quantity of the list), ``["not", t]``, ``["neg", t]``,
``[op, a, b]`` for ``+ - * / min max == != < <= > >= and or``, ``["in", t, low, high]`` and
``["if", condition, then, otherwise]``.  Parts that name no quantity are worked out here by the
model's own evaluator (a table or formula call becomes its number).  A requirement the trees cannot
mirror exactly (a quantity inside a call, a yes/no used as a number, decimals…) is exported with
``tree: None`` and the reason: a page must say that it checks it only on the command line, never
pass it silently.  One that no list can show met or broken (it reads a quantity of
:data:`~compiler.model.armies.UNKNOWN`) has ``unknown: true`` and the reason ``army check`` gives.

>>> from compiler.driver import compile_text
>>> rs = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\narmy std "Choosing":\\n  points 100\\n'
...                   '  require points <= limit: "Too dear."\\n').rulesets[0]
>>> data = army_rules_data(rs)
>>> data["armies"][0]["requires"][0]["tree"], data["armies"][0]["requires"][0]["shown"]
(['<=', ['q', 'points'], ['n', 100, 1]], ['limit', 'points'])
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.limits import MAX_COUNT
from compiler.model.armies import (LABEL_MANY, SIZE_MESSAGE, UNIT_MESSAGE, army_quantities, listed_units,
                                   names_read, requirement_text, shown_quantities, squad_points, unit_quantities,
                                   unknown_reason, weapon_quantities)
from compiler.model.ruleset import Ruleset
from compiler.model.static import NotStatic, StaticError, evaluate

#: Numbers a page computes with exactly (JavaScript's safe integers; the page uses BigInt past them).
_SAFE = 2 ** 53 - 1
#: Nesting past which the model's evaluator gives up (``static.MAX_DEPTH`` is 64), kept clear of.
_DEPTH = 60
_ARITH = frozenset({"+", "-", "*", "/", "min", "max"})
_ORDER = frozenset({"<", "<=", ">", ">="})
_SAME = frozenset({"==", "=", "!="})
_LOGIC = frozenset({"and", "or"})
#: The quantities a list's marks, its length and its units' points give, which a page counts itself
#: exactly as :func:`~compiler.model.armies.army_quantities` does (not per unit, as ``adds``):
#: ``special_points`` adds up the points of the units whose entry is ``special``.
LISTED = ("detachments", "reserve_points", "reserve_warlords", "special_points", "warlords")
#: The marks a list line may carry, and the quantities that read each.
_MARKS = {"warlord": ("warlords", "reserve_warlords"), "reserve": ("reserve_points", "reserve_warlords"),
          "detachment": ("detachments",)}


class Unsupported(Exception):
    """A requirement the page's trees cannot mirror exactly (the reason, in words)."""


def army_rules_data(model: Ruleset) -> dict[str, Any]:
    """The army rules of ``model`` as JSON-ready data (see the module's text); ``armies`` is empty without any."""
    squads = [q for q in model.of_type(A.Squad) if q.unit is not None and q.unit in model.profiles]
    units = [p for p in model.profiles.values() if p.kind == "unit"]
    empty = army_quantities(model, [], 0)
    special = next((k.id for k in model.of_type(A.Entry) if k.kind == "keyword" and k.role == "special"), None)
    entries: list[dict[str, Any]] = []
    for q in squads:
        base, extra = squad_points(q)
        have = {k for k, _ in q.keywords} | {k for k, _ in model.profiles[q.unit or ""].keywords}
        entries.append({"id": q.id, "title": q.title, "kind": "squad", "unit": q.unit, "min": q.min_models,
                        "max": q.max_models, "cost": [base, extra, q.min_models], "adds": _adds(model, q.id, empty),
                        "special": special in have, "rule": _cited(model, q.id), **_own(model, q.id)})
    for p in units:
        entries.append({"id": p.id, "title": p.title, "kind": "unit", "unit": p.id, "min": None, "max": None,
                        "cost": [0, p.points or 0, 0], "adds": _adds(model, p.id, empty),
                        "special": special in {k for k, _ in p.keywords}, "rule": None, **_own(model, p.id)})
    weapons = sorted(p.id for p in model.profiles.values() if p.kind == "weapon")
    return {
        "ruleset": model.id,
        "title": model.title,
        "entries": entries,
        "weapons": weapons,
        "weapon_adds": {w: weapon_quantities(model, w) for w in weapons},
        "max_count": MAX_COUNT,
        "size_message": SIZE_MESSAGE,
        "unit_message": UNIT_MESSAGE,
        "label_many": LABEL_MANY,
        "armies": [_army(model, a, entries) for a in model.of_type(A.Army)],
        "marks": [m for m, reads in _MARKS.items()
                  if any(n in reads for a in model.of_type(A.Army) for r in a.requires for n in names_read(r.expr))],
    }


def _one(model: Ruleset, name: str) -> list[Any]:
    span = Span("<builder>", 1, 1, 1, 1)
    return listed_units(model, A.Side(span, "list", "List", (A.SideUnit(span, 1, name),)))


def _own(model: Ruleset, name: str) -> dict[str, Any]:
    """A unit's own quantities for ``require each unit:`` lines without its models, points and weapons
    (``own``: its keywords, stats, and a zero for each ability and weapon), and the weapons it has when
    its list line names none (``default_weapons``)."""
    unit = _one(model, name)[0]
    bare = unit_quantities(model, replace(unit, weapons=()))
    return {"own": {k: int(v) for k, v in sorted(bare.items()) if k not in ("models", "points")},
            "default_weapons": list(unit.weapons)}


def _adds(model: Ruleset, name: str, empty: dict[str, Any]) -> dict[str, int]:
    """What one unit of ``name`` adds to the quantities, besides its points and models."""
    one = army_quantities(model, _one(model, name), 0)
    return {k: int(one[k] - empty[k]) for k in sorted(one)
            if k not in ("points", "models", *LISTED) and one[k] != empty[k]}


def _cited(model: Ruleset, decl_id: str) -> dict[str, str] | None:
    """The rule a violation cites (the innermost section or rule holding ``decl_id``), as ``army check`` names it."""
    trail = model.section_path(decl_id)
    return {"id": trail[-1].id, "title": trail[-1].title} if trail else None


def _army(model: Ruleset, army: A.Army, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """One army's data: its requirements at its first game size (``requires``) and at each other one
    (``sized``); without sizes the game's size is any number, and ``limit`` a quantity like ``points``."""
    varying = {"points", "models", *LISTED} | {k for e in entries for k in e["adds"]}
    if not army.points:
        varying.add("limit")
    sizes = list(army.points) or [0]
    env = army_quantities(model, [], sizes[0])
    return {"id": army.id, "title": army.title, "limit": sizes[0], "sizes": list(army.points),
            "base": {k: int(v) for k, v in sorted(env.items())},
            "requires": _requires(model, army, army_quantities(model, [], sizes[0]), varying),
            "sized": {str(n): _requires(model, army, army_quantities(model, [], n), varying) for n in sizes[1:]},
            "unit_requires": _unit_requires(model, army, entries),
            "rule": _cited(model, army.id)}


def _requires(model: Ruleset, army: A.Army, env: dict[str, Any], varying: set[str]) -> list[dict[str, Any]]:
    out = []
    for req in army.requires:
        text = requirement_text(req)
        unknown = unknown_reason(model, req)
        try:
            if unknown is not None:  # no list can show it: army check says so too
                raise Unsupported(unknown)
            tree, why = requirement_tree(req.expr, env, varying, model), None
        except Unsupported as e:
            tree, why = None, str(e)
        fixed = [k for k in shown_quantities(text, env) if k not in varying and k != "limit"]
        out.append({"text": text, "message": req.message or text, "shown": shown_quantities(text, env),
                    "tree": tree, "unsupported": why, "unknown": unknown is not None, "line": req.span.line,
                    # broken by every list: it reads quantities a list file does not carry
                    "never": {k: int(env[k]) for k in fixed} if tree == ["b", False] else None})
    return out


def _unit_requires(model: Ruleset, army: A.Army, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``require each unit:`` lines: trees over one unit's quantities (``own`` and ``weapon_adds``
    added up, its models and points), each with the quantities its message shows when the unit has them."""
    names = {"models", "points"} | {k for e in entries for k in e["own"]}
    names |= {k for w in model.profiles.values() if w.kind == "weapon" for k in weapon_quantities(model, w.id)}
    out = []
    for req in army.unit_requires:
        text = requirement_text(req)
        try:
            tree, why = requirement_tree(req.expr, {}, names, model), None
        except Unsupported as e:
            tree, why = None, str(e)
        out.append({"text": text, "message": req.message or text, "shown": shown_quantities(text, names),
                    "tree": tree, "unsupported": why, "line": req.span.line})
    return out


def requirement_tree(expr: A.Expr, env: dict[str, Any], varying: set[str], model: Ruleset) -> list[Any]:
    """A requirement as a tree over the quantities of ``env`` that a list can change (``varying``; the
    others, such as ``limit``, keep their value in ``env``): :class:`Unsupported` when it cannot be one."""
    tree, _ = _tree(expr, env, varying, model, 0)
    return tree


def _tree(expr: A.Expr, env: dict[str, Any], varying: set[str], model: Ruleset,
          depth: int) -> tuple[list[Any], str]:
    """(tree, "num" or "bool") of one expression."""
    if depth > _DEPTH:
        raise Unsupported("it is nested too deeply")
    if not any(n in varying for n in names_read(expr)):
        return _constant(expr, env, model)
    down = depth + 1
    if isinstance(expr, A.Name):
        return ["q", expr.id], "num"
    if isinstance(expr, A.Unary):
        inner, kind = _tree(expr.operand, env, varying, model, down)
        want = "bool" if expr.op == "not" else "num"
        if kind != want:
            raise Unsupported(f"'{expr.op}' is applied to a {_word(kind)}")
        return ["not" if expr.op == "not" else "neg", inner], want
    if isinstance(expr, A.Binary):
        left, lk = _tree(expr.left, env, varying, model, down)
        right, rk = _tree(expr.right, env, varying, model, down)
        op = "==" if expr.op == "=" else expr.op
        if op in _LOGIC and lk == rk == "bool":
            return [op, left, right], "bool"
        if op in _SAME and lk == rk:
            return [op, left, right], "bool"
        if (op in _ARITH or op in _ORDER) and lk == rk == "num":
            return [op, left, right], "num" if op in _ARITH else "bool"
        raise Unsupported(f"'{expr.op}' joins a {_word(lk)} and a {_word(rk)}")
    if isinstance(expr, A.InRange):
        parts = [_tree(e, env, varying, model, down) for e in (expr.operand, expr.range.low, expr.range.high)]
        if any(k != "num" for _, k in parts):
            raise Unsupported("'in' needs numbers")
        return ["in", *(t for t, _ in parts)], "bool"
    if isinstance(expr, A.IfElse):
        (cond, ck), (then, tk), (other, ok) = (_tree(e, env, varying, model, down)
                                               for e in (expr.cond, expr.then, expr.otherwise))
        if ck != "bool" or tk != ok:
            raise Unsupported("its 'if … then … else' mixes numbers and yes/no values")
        return ["if", cond, then, other], tk
    raise Unsupported(f"a quantity of the list is read inside {type(expr).__name__.lower()}")


def _constant(expr: A.Expr, env: dict[str, Any], model: Ruleset) -> tuple[list[Any], str]:
    """A part that names no quantity: worked out now, by the model's evaluator."""
    try:
        value = evaluate(expr, env, model)
    except (NotStatic, StaticError) as e:
        raise Unsupported(f"a part of it cannot be worked out ({e})") from None
    if isinstance(value, bool):
        return ["b", value], "bool"
    if isinstance(value, (int, Fraction)):
        f = Fraction(value)
        if abs(f.numerator) > _SAFE or f.denominator > _SAFE:
            raise Unsupported("a number in it is too large")
        return ["n", f.numerator, f.denominator], "num"
    raise Unsupported(f"a part of it is not a number or a yes/no value ({value!r})")


def _word(kind: str) -> str:
    return "number" if kind == "num" else "yes/no value"
