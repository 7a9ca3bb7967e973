"""Where a value that is none travels before it reaches arithmetic (W414).

A stat written ``-`` (``AP -``), or the value of an ability a profile lacks (``weapon.blast``),
is *none*; arithmetic on it is refused.  :mod:`compiler.check.semantics` finds it where a step
reads ``role.Stat`` into arithmetic or hands it to a callable that does arithmetic on that
parameter.  This pass follows it further, for an attack called with known profiles: through
the attack's ``let`` names and its number parameters, into tests, tables and formulas that
take a profile (``psave(target, weapon)`` reading ``weapon.AP``) or a value worked out from one
(``ap_of(weapon)``), with the branches that rule it out (``if AP is none then … else …``)
left alone.

>>> from compiler.driver import compile_text
>>> text = '''ruleset d "D":
...   version 1.0.0
... stat AP "AP" 0..6: "a"
... weapon gun "Gun":
...   AP -
... formula ap_of(weapon) = weapon.AP + 1
... attack a(shooter, weapon):
...   hits = ap_of(weapon)
... example e "E":
...   expect a(gun, gun).hits = 1
... '''
>>> [d.code for d in compile_text(text).diagnostics]
['W414']
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compiler import ast as A
from compiler.model.ruleset import Ruleset

ARITHMETIC = ("+", "-", "*", "/")
MAX_DEPTH = 12

Source = tuple[str, str]  # (profile id, stat or ability id): where a none came from
Fact = tuple[str, str, bool]  # (name, field or "", whether the value is there): what a branch knows


@dataclass(frozen=True)
class Found:
    """A none reaching arithmetic: where it came from, the arithmetic, the callable it is in."""

    source: Source
    span: A.Span
    inside: str | None


def reads_none(rs: Ruleset, prof: A.Profile, name: str) -> bool:
    """Whether ``role.name`` on ``prof`` is none: a stat written ``-``, or an ability with a
    value (``weapon.blast``) that the profile does not have."""
    sv = prof.stat(name)
    if sv is not None:
        return sv.kind == "none"
    ability = rs.get(name)
    return isinstance(ability, A.Ability) and bool(ability.params) and \
        not any(use.ability == name for use in prof.abilities)


def facts(cond: A.Expr, holds: bool) -> frozenset[Fact]:
    """What ``cond`` holding (or not, ``holds``) says about values being there: ``weapon has
    blast`` (there), ``weapon.blast is none``, ``AP is none`` (not there), ``not``, ``and``, ``or``."""
    if isinstance(cond, A.Has) and isinstance(cond.operand, A.Name):
        return frozenset({(cond.operand.id, cond.keyword, holds)})
    if isinstance(cond, A.IsNone):
        o = cond.operand
        if isinstance(o, A.Attr) and isinstance(o.obj, A.Name):
            return frozenset({(o.obj.id, o.name, not holds)})
        if isinstance(o, A.Name):
            return frozenset({(o.id, "", not holds)})
    if isinstance(cond, A.Unary) and cond.op == "not":
        return facts(cond.operand, not holds)
    if isinstance(cond, A.Binary) and cond.op in ("and", "or") and holds == (cond.op == "and"):
        return facts(cond.left, holds) | facts(cond.right, holds)  # both sides are known
    return frozenset()


# What a name stands for while following: a profile (by id), or a value that may be none
# (its source) or is not (None).
Bound = tuple[str, Any]


class _Follow:
    def __init__(self, rs: Ruleset) -> None:
        self.rs = rs
        self.found: Found | None = None
        self.inside: str | None = None
        # (callable, what its parameters stand for) → what its result may be: each followed once
        # (a formula that calls another many times, many levels deep, is no hang).
        self.known: dict[tuple[str, tuple[tuple[str, Bound], ...]], Source | None] = {}

    def value(self, e: A.Expr, env: dict[str, Bound], known: frozenset[Fact], depth: int) -> Source | None:
        """Follow ``e``: the source of the none it may be, recording the first none that
        reaches arithmetic."""
        if self.found is not None:
            return None
        if isinstance(e, A.Name):
            bound = env.get(e.id)
            if bound is not None and bound[0] == "value" and bound[1] is not None and (e.id, "", True) not in known:
                return bound[1]  # type: ignore[no-any-return]
            return None
        if isinstance(e, A.Attr) and isinstance(e.obj, A.Name):
            prof = self.profile(e.obj.id, env)
            if prof is not None and reads_none(self.rs, prof, e.name) and (e.obj.id, e.name, True) not in known:
                return (prof.id, e.name)
            return None
        if isinstance(e, A.Binary) and e.op in ARITHMETIC or isinstance(e, A.Unary) and e.op == "-":
            for operand in A.children(e):
                source = self.value(operand, env, known, depth)
                if source is not None and self.found is None:
                    self.found = Found(source, e.span, self.inside)
            return None
        if isinstance(e, A.IfElse):
            self.value(e.cond, env, known, depth)
            then = self.value(e.then, env, known | facts(e.cond, True), depth)
            other = self.value(e.otherwise, env, known | facts(e.cond, False), depth)
            return then or other
        if isinstance(e, A.Call):
            return self.call(e, env, known, depth)
        for child in A.children(e):
            self.value(child, env, known, depth)
        return None

    def profile(self, name: str, env: dict[str, Bound]) -> A.Profile | None:
        bound = env.get(name)
        if bound is not None:
            return self.rs.profiles.get(bound[1]) if bound[0] == "profile" else None
        return self.rs.profiles.get(name)

    def bind(self, arg: A.Expr, env: dict[str, Bound], known: frozenset[Fact], depth: int) -> Bound:
        """What a parameter stands for, given the argument written for it."""
        if isinstance(arg, A.Name):
            prof = self.profile(arg.id, env)
            if prof is not None:
                return ("profile", prof.id)
        if isinstance(arg, A.Group):
            return ("profile", arg.profile)
        return ("value", self.value(arg, env, known, depth))

    def call(self, e: A.Call, env: dict[str, Bound], known: frozenset[Fact], depth: int) -> Source | None:
        decl = self.rs.callables.get(e.func)
        if not isinstance(decl, (A.Test, A.Table, A.Formula)) or depth >= MAX_DEPTH:
            for child in A.children(e):
                self.value(child, env, known, depth)
            return None
        inner = {p.name: self.bind(a, env, known, depth) for p, a in zip(decl.params, e.args)}
        key = (decl.id, tuple(sorted(inner.items())))
        if key in self.known:
            return self.known[key]
        self.known[key] = None  # while it is followed (a cycle, refused elsewhere, ends here)
        outer, self.inside = self.inside, self.inside or decl.id
        try:
            for let in getattr(decl, "lets", ()):
                inner[let.name] = ("value", self.value(let.value, inner, frozenset(), depth + 1))
            result: Source | None = None
            for part in _parts(decl):
                source = self.value(part, inner, frozenset(), depth + 1)
                if isinstance(decl, A.Formula) and part is decl.result:
                    result = source
            self.known[key] = result
            return result
        finally:
            self.inside = outer


def _parts(decl: A.Test | A.Table | A.Formula) -> list[A.Expr]:
    """The expressions a callable works out (its ``let`` values apart)."""
    if isinstance(decl, A.Formula):
        return [decl.result] if decl.result is not None else []
    if isinstance(decl, A.Test):
        parts = [decl.never_better, decl.never_worse]
        if decl.roll is not None:
            parts += [decl.roll.dice, decl.roll.target]
        return [p for p in parts if isinstance(p, A.Expr)]
    out: list[A.Expr] = [decl.formula] if decl.formula is not None else []
    for row in decl.rows:
        if isinstance(row.pattern, A.Expr):
            out.append(row.pattern)
        out.append(row.result)
    if decl.grid is not None:
        out.extend(cell for _, cells in decl.grid.rows for cell in cells)
    return out


def none_in_attack(rs: Ruleset, attack: A.Attack, call: A.Call) -> tuple[A.Step | None, Found] | None:
    """The first none that reaches arithmetic in ``attack`` called as ``call``: the step (None
    for one of its ``let`` lines) and where."""
    follow = _Follow(rs)
    env: dict[str, Bound] = {}
    for p, a in zip(attack.params, call.args):
        env[p.name] = follow.bind(a, {}, frozenset(), 0)
    follow.found = None  # an argument's own arithmetic is checked where it is written
    for let in attack.lets:
        env[let.name] = ("value", follow.value(let.value, env, frozenset(), 0))
        if follow.found is not None:
            return None, follow.found
    for step in attack.steps:
        for part in (step.value, step.removes_target, step.damage):
            if part is not None:
                follow.value(part, env, frozenset(), 0)
                if follow.found is not None:
                    return step, follow.found
        env[step.name] = ("value", None)
    return None
