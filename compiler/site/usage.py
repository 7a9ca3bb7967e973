"""Where each defined name is used: the lexicon's "Used in" lists.

A declaration *uses* a name when its expressions read it (``shooter.BS``,
``to_wound(S, T)``, ``cover is soft``), when its profile lists it (stats,
keywords, abilities, weapons), or when its prose links to it (``[[BS]]``).
Uses are credited to the nearest enclosing declaration that has its own
anchor on the site (a free paragraph's links count for its section).

>>> from compiler.driver import compile_text
>>> rs = compile_text('ruleset d "D":\\n  version 1.0.0\\nstat BS "BS" 1..10: "Aim."\\n'
...                   'test hit(BS) "Hit" = roll d6 <= BS\\n').rulesets[0]
>>> uses(rs)["BS"]
('hit',)
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator

from compiler import ast as A
from compiler.diagnostics import Span
from compiler.model.ruleset import Ruleset, game_parts
from compiler.site.markup import PROSE_REF


def _names_in(node: Any) -> Iterator[str]:
    """Every name a piece of AST mentions (not descending into nested declarations)."""
    if node is None or isinstance(node, (str, int, bool, Span)):
        return
    if isinstance(node, tuple):
        for item in node:
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], Span):
                yield item[0]  # (name, span) references: keywords, weapons, see, pinned by
            else:
                yield from _names_in(item)
        return
    if isinstance(node, A.Prose):
        for m in PROSE_REF.finditer(node.text):
            yield m.group(1).strip()
        return
    if not dataclasses.is_dataclass(node):
        return
    if isinstance(node, A.Name):
        yield node.id
    elif isinstance(node, A.Call):
        yield node.func
    elif isinstance(node, A.Attr):
        yield node.name
    elif isinstance(node, A.Group):
        yield node.profile
    elif isinstance(node, A.Setting):
        yield node.name
    elif isinstance(node, A.Effect):
        for n in (node.test, node.stat):
            if n:
                yield n
    elif isinstance(node, (A.Hook, A.HookEffect)):
        if node.test:
            yield node.test
    elif isinstance(node, A.StatValue):
        yield node.stat
    elif isinstance(node, A.AbilityUse):
        yield node.ability
    elif isinstance(node, A.Squad) and node.unit:
        yield node.unit
    elif isinstance(node, A.Param) and isinstance(node.type, str):
        yield node.type
    elif isinstance(node, A.ProseBlock):
        for m in PROSE_REF.finditer(node.text):
            yield m.group(1).strip()
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, A.Decl) and not isinstance(node, A.Replace):
            continue
        if isinstance(value, tuple) and value and all(isinstance(v, A.Decl) for v in value) \
                and isinstance(node, (A.Section, A.Rule, A.Extend)):
            continue  # nested declarations are walked on their own
        yield from _names_in(value)


def uses(rs: Ruleset) -> dict[str, tuple[str, ...]]:
    """For each defined id, the ids of the anchored declarations that use it, in document order."""
    found: dict[str, list[str]] = {}

    def credit(owner: str, node: Any, own_id: str) -> None:
        for name in _names_in(node):
            if name != own_id and name in rs.symbols:
                lst = found.setdefault(name, [])
                if owner not in lst:
                    lst.append(owner)

    def visit(items: tuple[A.Decl, ...], owner: str | None) -> None:
        for d in items:
            if isinstance(d, A.ProseBlock):
                if owner is not None:
                    credit(owner, d, owner)
                continue
            if not d.id:
                continue
            if isinstance(d, A.Game):
                credit(d.id, dataclasses.replace(d, phases=(), scores=(), victories=()), d.id)
                for part in game_parts(d):
                    credit(part.id, part, part.id)
                continue
            credit(d.id, d, d.id)
            if isinstance(d, (A.Section, A.Rule)):
                visit(d.body, d.id)

    visit(rs.items, None)
    return {k: tuple(v) for k, v in sorted(found.items())}
