"""The builder's part for the lexicon: stats with their types, keywords, statuses and terms,
situations with their choices or ranges.
"""
from __future__ import annotations

from typing import Any

from lark import Token

from compiler import ast as A
from compiler.ast.build_base import BuilderBase, unquote, with_meta


class LexiconBuilder(BuilderBase):
    """Builds stats, keywords, statuses, terms and situations."""

    def entry_block(self, c: list[Any]) -> list[Any]:
        return list(c)

    def stat_type(self, c: list[Any]) -> A.RangeExpr | str:
        if isinstance(c[0], A.RangeExpr):
            return c[0]
        return str(c[0])

    @with_meta
    def stat(self, meta: Any, c: list[Any]) -> A.Stat:
        name, title = str(c[0]), unquote(str(c[1]))
        stype = None
        rest = []
        clamped = True
        role: str | None = None
        for x in c[2:]:
            if isinstance(x, Token) and x.type == "UNCLAMPED":
                clamped = False
            elif isinstance(x, tuple) and len(x) == 2 and x[0] == "role":
                role = str(x[1])
            elif isinstance(x, (A.RangeExpr, str)) and not isinstance(x, Token):
                stype = x
            else:
                rest.append(x)
        short, prose, aka, see = self._entry_parts(rest)
        return A.Stat(self.span(meta), name, title, stype, short, prose, aka, see, clamped, role)

    def stat_role(self, c: list[Any]) -> tuple[str, str]:
        return ("role", str(c[0]))

    def entry_kind(self, c: list[Any]) -> str:
        return str(c[0])

    @with_meta
    def entry(self, meta: Any, c: list[Any]) -> A.Entry:
        kind, name, title = c[0], str(c[1]), unquote(str(c[2]))
        roles = [str(x[1]) for x in c[3:] if isinstance(x, tuple) and len(x) == 2 and x[0] == "role"]
        rest = [x for x in c[3:] if not (isinstance(x, tuple) and len(x) == 2 and x[0] == "role")]
        short, prose, aka, see = self._entry_parts(rest)
        return A.Entry(self.span(meta), name, kind, title, short, prose, aka, see, roles[0] if roles else None)

    def choices(self, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    @with_meta
    def situation(self, meta: Any, c: list[Any]) -> A.Situation:
        name, title = str(c[0]), unquote(str(c[1]))
        choices: tuple[str, ...] = ()
        rng = None
        rest = []
        for x in c[2:]:
            if isinstance(x, tuple):
                choices = x
            elif isinstance(x, A.RangeExpr):
                rng = x
            else:
                rest.append(x)
        short, prose, aka, see = self._entry_parts(rest)
        return A.Situation(self.span(meta), name, title, choices, rng, short, prose, aka, see)
