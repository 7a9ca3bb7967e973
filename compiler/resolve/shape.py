"""What an attack's declaration says about its steps, worked out once per declaration.

* :func:`reads_models` — whether a step after the first reads ``.models`` (a plan made for 10
  models then is not one for 200);
* :func:`models_read_in_plan` — whether anything an attack's plan may evaluate reads ``.models``
  (then a plan made for 10 models is not one for 200, whichever profile it belongs to);
* :func:`joins` — the steps that follow a step attack by attack: those an extra token (``1
  extra wounds``) may join, skipping the steps in between;
* :func:`names_in` — every name a step's expression reads (to find the steps it combines);
* :func:`flag_kinds` — the kinds of flag the tokens of a distribution over bags carry.

Both are read at every cold question; declarations are immutable, so each answer is kept
(keyed by the declaration's identity, checked on reading).

>>> from compiler.driver import compile_text
>>> model = compile_text('''ruleset d "D":
...   version 1.0.0
... stat Q "Quality" 1..6: "q"
... test hit(Q) = roll d6 >= Q
... test wound(Q) = roll d6 >= Q
... attack volley(shooter) "Volley":
...   attacks = shooter.models
...   hits = attacks each hit(shooter.Q)
...   wounds = hits each wound(shooter.Q)
... ''').rulesets[0]
>>> decl = model.callables["volley"]
>>> reads_models(decl), joins(decl, "attacks")
(False, ('hits', 'wounds'))
"""
from __future__ import annotations

import dataclasses
from typing import Any, TypeAlias

from compiler import ast as A

# A token's flags: ("pass", "wound") or ("fail", "save") from `wound automatically` and `no save`;
# ("mods", effects) from `+1 D`, `-1 AP`… (the modifiers hooks put on this one attack);
# ("mortal", "spill"|"keep") from `mortal wounds`; ("joins", step) on a token of `1 extra wounds`
# until it joins the step it names (it skips the steps in between, and is not counted there).
State: TypeAlias = frozenset[tuple[Any, ...]]


_READS_MODELS: dict[int, tuple[A.Attack, bool]] = {}


def reads_models(decl: A.Attack) -> bool:
    """Whether a step after the first reads ``.models`` (then a plan depends on the model count)."""
    hit = _READS_MODELS.get(id(decl))
    if hit is not None and hit[0] is decl:
        return hit[1]
    answer = _reads_models_uncached(decl)
    _READS_MODELS[id(decl)] = (decl, answer)
    return answer


def _reads_models_uncached(decl: A.Attack) -> bool:
    for step in decl.steps[1:]:
        for expr in (step.value, step.removes_target, step.damage):
            if expr is None:
                continue
            for sub in A.sub_expressions(expr):
                if isinstance(sub, A.Attr) and sub.name == "models":
                    return True
    return False


def models_read_in_plan(model: Any, decl: A.Attack) -> bool:
    """Whether a plan of ``decl`` may read a model count: a step after the first reads ``.models``
    (:func:`reads_models`), or any declaration the attack may call reads it (a test, a table, an
    ability, a let of another attack…; worked examples and properties aside, which no attack
    calls).  Conservative: every ``.models`` anywhere else counts, at any depth.  Kept per model."""
    if reads_models(decl):
        return True
    memo: dict[str, Any] = model.__dict__.setdefault("_models_read", {})
    found = memo.get("elsewhere")
    if found is None:
        found = memo["elsewhere"] = any(_reads_count(d, d) for d in model.walk()
                                        if not isinstance(d, (A.Example, A.Property)))
    return bool(found) or any(_reads_count(let, let) for let in decl.lets)


def _reads_count(obj: Any, top: Any) -> bool:
    """Whether ``obj`` (inside declaration ``top``) holds a ``.models``; an attack's first step aside
    (its count of attacks, worked out at each call)."""
    if isinstance(obj, A.Attr) and obj.name == "models":
        return True
    if isinstance(obj, (str, int, float, bool)) or obj is None or isinstance(obj, A.Span):
        return False
    if isinstance(obj, (tuple, list, frozenset)):
        return any(_reads_count(x, top) for x in obj)
    if isinstance(obj, A.Decl) and obj is not top:
        return False  # visited on its own by the model's walk
    if isinstance(obj, A.Attack):
        return any(_reads_count(getattr(obj, f.name), top) if f.name != "steps" else
                   any(_reads_count(step, top) for step in obj.steps[1:])
                   for f in dataclasses.fields(obj))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return any(_reads_count(getattr(obj, f.name), top) for f in dataclasses.fields(obj))
    if isinstance(obj, dict):
        return any(_reads_count(v, top) for v in obj.values())
    return False


_JOINS: dict[tuple[int, str], tuple[A.Attack, tuple[str, ...]]] = {}


def joins(decl: A.Attack, start: str) -> tuple[str, ...]:
    """The steps that follow ``start`` attack by attack (``wounds = hits each wound(…)`` after
    ``hits``, ``blasted = hits each becomes 2``): those the extra tokens of a hook on the test
    of ``start`` may join (``1 extra wounds`` on a natural 6 to hit), skipping the steps in
    between."""
    hit = _JOINS.get((id(decl), start))
    if hit is not None and hit[0] is decl:
        return hit[1]
    if len(_JOINS) > 20_000:
        _JOINS.clear()
    answer = _joins_uncached(decl, start)
    _JOINS[id(decl), start] = (decl, answer)
    return answer


def _joins_uncached(decl: A.Attack, start: str) -> tuple[str, ...]:
    out: list[str] = []
    current = start
    for s in decl.steps:
        v = s.value
        if isinstance(v, A.Each) and isinstance(v.count, A.Name) and v.count.id == current \
                and (v.becomes or isinstance(v.item, A.Call)):
            out.append(s.name)
            current = s.name
    return tuple(out)


_DAMAGE: dict[int, tuple[A.Attack, frozenset[str]]] = {}


def damage_dealt(decl: A.Attack, callables: Any) -> frozenset[str]:
    """The steps whose totals are points of damage that met the target's damage hooks already:
    each amount step (``damage = unsaved each weapon.D``), and each step worked out from one.
    A removal from one of them takes those points as they are (``lost = damage removes
    target``): each point meets each damage hook once, however the steps split the work."""
    hit = _DAMAGE.get(id(decl))
    if hit is not None and hit[0] is decl:
        return hit[1]
    names = {s.name for s in decl.steps}
    dealt: set[str] = set()
    for s in decl.steps:
        v = s.value
        if v is None:
            continue
        if isinstance(v, A.Each) and isinstance(v.count, A.Name) and v.count.id in names \
                and not v.negate and not v.becomes and not _is_test_call(callables, v.item):
            dealt.add(s.name)
        elif any(n in dealt for n in names_in(v)):
            dealt.add(s.name)
    answer = frozenset(dealt)
    _DAMAGE[id(decl)] = (decl, answer)
    return answer


def _is_test_call(callables: Any, item: A.Expr) -> bool:
    """Whether ``item`` calls a test (``hit(shooter.BS)``): a step through it, not an amount."""
    return isinstance(item, A.Call) and isinstance(callables.get(item.func), A.Test)


_NAMES: dict[int, tuple[A.Expr, tuple[str, ...]]] = {}


def names_in(expr: A.Expr) -> tuple[str, ...]:
    """Every name read anywhere inside ``expr``, in order, repeats kept."""
    hit = _NAMES.get(id(expr))
    if hit is not None and hit[0] is expr:
        return hit[1]
    if len(_NAMES) > 20_000:
        _NAMES.clear()
    answer = tuple(e.id for e in A.sub_expressions(expr) if isinstance(e, A.Name))
    _NAMES[id(expr)] = (expr, answer)
    return answer


def flag_kinds(bags: Any) -> frozenset[str]:
    """The kinds of flag (``mods``, ``mortal``, ``pass``…) some token of some bag of the
    distribution ``bags`` carries.  A distribution is immutable: the answer is kept on it."""
    known: frozenset[str] | None = bags.__dict__.get("_flag_kinds")
    if known is None:
        known = bags.__dict__["_flag_kinds"] = frozenset(
            flag[0] for bag in bags.outcomes() for state, _ in bag for flag in state)
    return known
