"""The builder's part for examples and properties: ``expect`` lines with their comparison and
tolerance, ``for`` bindings over ranges.
"""
from __future__ import annotations

from typing import Any


from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, unquote, with_meta


class ExamplesBuilder(BuilderBase):
    """Builds examples and properties."""

    @with_meta
    def example(self, meta: Any, c: list[Any]) -> A.Example:
        items = self._flat(c[2:])
        return A.Example(self.span(meta), str(c[0]), unquote(str(c[1])),
                         tuple(x for x in items if isinstance(x, A.Let)),
                         tuple(x for x in items if isinstance(x, A.Expect)),
                         self._prose(items))

    @with_meta
    def expect(self, meta: Any, c: list[Any]) -> A.Expect:
        tol = c[3] if len(c) > 3 else None
        return A.Expect(self.span(meta), c[0], c[1], c[2], tol)

    def expect_op(self, c: list[Any]) -> str:
        op = str(c[0])
        return {"≥": ">=", "≤": "<=", "≠": "!=", "==": "=", "≈": "~"}.get(op, op)

    def tolerance(self, c: list[Any]) -> A.Expr:
        value: A.Expr = c[1]
        return value

    @with_meta
    def property(self, meta: Any, c: list[Any]) -> A.Property:
        items = self._flat(c[2:])
        bindings = tuple(b for x in items if isinstance(x, Item) and x.tag == "for" for b in x.data)
        return A.Property(self.span(meta), str(c[0]), unquote(str(c[1])), bindings,
                          tuple(x for x in items if isinstance(x, A.Let)),
                          tuple(x for x in items if isinstance(x, A.Expect)),
                          self._prose(items))

    @with_meta
    def claim(self, meta: Any, c: list[Any]) -> A.Claim:
        p = self.property(meta, c)
        return A.Claim(p.span, p.id, p.title, p.bindings, p.lets, p.expects, p.prose)

    @with_meta
    def for_all(self, meta: Any, c: list[Any]) -> Item:
        return Item("for", self.span(meta), tuple(c))

    @with_meta
    def binding(self, meta: Any, c: list[Any]) -> A.Binding:
        return A.Binding(self.span(meta), str(c[0]), c[1])
