"""What every part of the parse tree → AST builder shares.

:class:`BuilderBase` turns a Lark parse tree into AST nodes, children first, calling the method
named after each grammar rule (as Lark's ``Transformer`` does); the per-section builders
(``build_document``, ``build_lexicon``, ``build_rolls``, ``build_tables``,
``build_sequences``, ``build_profiles``, ``build_game``, ``build_examples``,
``build_expr``) extend it and :class:`compiler.ast.build.Builder` combines them.  The helpers
here start with ``_`` to keep them apart from rule names.

Also here: the text of quoted strings and prose blocks (:func:`unquote`,
:func:`prose_text`), dice as written (:func:`dice_parts`, :func:`die_key`), and the
two not-yet-placed values a rule can hand to its parent (:class:`Text`, :class:`Item`).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any, Callable, Iterable, TypeVar

from lark import Token, Tree
from lark.exceptions import VisitError

from compiler import ast as A
from compiler.diagnostics import Sink, Span


def unquote(s: str) -> str:
    r"""The text of a quoted string, with backslash escapes resolved.

    >>> unquote('"a \\"b\\"\\n"')
    'a "b"\n'
    """
    body = s[1:-1]
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def prose_text(s: str) -> str:
    '''The Markdown inside a triple-quoted block, dedented and trimmed.

    >>> prose_text('"""\\n    One.\\n      Two.\\n    """')
    'One.\\n  Two.'
    '''
    body = s[3:-3]
    lines = body.split("\n")
    first, rest = lines[0], "\n".join(lines[1:])
    text = (first.strip() + "\n" + textwrap.dedent(rest)) if first.strip() else textwrap.dedent(rest)
    return text.strip("\n").rstrip()


def indent_of(text: str) -> int:
    """The smallest indentation of the non-blank lines of ``text``."""
    widths = [len(line) - len(line.lstrip()) for line in text.split("\n") if line.strip()]
    return min(widths) if widths else 0


def text_of(token: Token) -> str:
    """The text of a ``STRING`` or ``PROSE`` token."""
    if token.type == "PROSE":
        return prose_text(str(token))
    return unquote(str(token))


def dice_parts(s: str) -> tuple[int, int]:
    """``"2D6"`` → ``(2, 6)``; ``"d6"`` → ``(1, 6)``."""
    lower = s.lower()
    count_s, sides_s = lower.split("d", 1)
    return (int(count_s) if count_s else 1), int(sides_s)


def die_key(s: str, keep_count: bool = False) -> str:
    """The canonical name of a die as written: ``d6``, ``D3`` (custom dice keep their case).

    >>> die_key("2D6"), die_key("2D6", keep_count=True), die_key("d6")
    ('D6', '2D6', 'd6')
    """
    count, sides = dice_parts(s)
    letter = "D" if "D" in s else "d"
    body = f"{letter}{sides}"
    return f"{count}{body}" if keep_count and count != 1 else body


@dataclass(frozen=True, slots=True, eq=False)
class Text:
    """A ``text`` node: the string, its span and its prose node."""

    text: str
    span: Span
    prose: A.Prose | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Item:
    """A tagged, not-yet-placed piece of a declaration body."""

    tag: str
    span: Span
    data: Any


EntryParts = tuple[str | None, tuple[A.Prose, ...], tuple[str, ...], tuple[tuple[str, Span], ...]]


F = TypeVar("F", bound=Callable[..., Any])

# A rule method as the walk calls it: (builder, node, its children built).
RuleMethod = Callable[[Any, Tree[Token], list[Any]], Any]


def with_meta(method: F) -> F:
    """Mark a rule method that takes the node's ``meta`` (where it stands in the file) before its
    children, as Lark's ``v_args(meta=True)`` does."""
    _WITH_META.add(method)
    return method


_WITH_META: set[Callable[..., Any]] = set()
_RULES: dict[type, dict[str, RuleMethod]] = {}  # per builder class: grammar rule -> how it is built


def _rule_method(cls: type, name: str) -> RuleMethod:
    method = getattr(cls, name, None)
    if method is None or name.startswith("_"):
        return lambda builder, node, children: Tree(node.data, children, node.meta)
    if method in _WITH_META:
        return lambda builder, node, children: method(builder, node.meta, children)
    return lambda builder, node, children: method(builder, children)


class BuilderBase:
    """The builder's state (the file's path, the diagnostics sink), its walk and shared helpers."""

    def __init__(self, path: str, sink: Sink) -> None:
        self.path = path
        self.sink = sink
        self._rules = _RULES.setdefault(type(self), {})

    def transform(self, tree: Tree[Token]) -> Any:
        """The value of ``tree``: its children's values first (tokens stay tokens), then the method
        named after its rule; a rule with no method leaves a tree of the values.  An exception in a
        method comes out as Lark's ``VisitError`` naming the node, as from Lark's ``Transformer``
        (whose walk this is, without the wrapper ``v_args`` makes at every call)."""
        children = [self.transform(c) if isinstance(c, Tree) else c for c in tree.children]
        try:
            rule = self._rules[tree.data]
        except KeyError:
            rule = self._rules[tree.data] = _rule_method(type(self), tree.data)
        try:
            return rule(self, tree, children)
        except Exception as error:
            raise VisitError(tree.data, tree, error) from error  # type: ignore[no-untyped-call]  # lark leaves it unannotated

    # -- spans ------------------------------------------------------------------

    def span(self, meta: Any) -> Span:
        """The span of a rule's node (from Lark's ``meta``)."""
        if getattr(meta, "empty", True) is True and not hasattr(meta, "line"):
            return Span(self.path, 0, 0, 0, 0)
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def tspan(self, token: Token) -> Span:
        """The span of one token."""
        line = token.line or 0
        col = token.column or 0
        end_line = token.end_line or line
        end_col = token.end_column or col + len(str(token))
        return Span(self.path, line, col, end_line, end_col)

    # -- picking children -------------------------------------------------------

    @staticmethod
    def _tokens(children: Iterable[Any], type_: str | None = None) -> list[Token]:
        return [c for c in children if isinstance(c, Token) and (type_ is None or c.type == type_)]

    def _items(self, children: Iterable[Any], tag: str) -> list[Any]:
        return [c.data for c in children if isinstance(c, Item) and c.tag == tag]

    def _prose(self, children: Iterable[Any]) -> tuple[A.Prose, ...]:
        return tuple(c for c in children if isinstance(c, A.Prose))

    def _names(self, children: Iterable[Any]) -> tuple[tuple[str, Span], ...]:
        return tuple((str(t), self.tspan(t)) for t in self._tokens(children, "NAME"))

    def _flat(self, children: Iterable[Any]) -> list[Any]:
        out: list[Any] = []
        for c in children:
            if isinstance(c, list):
                out.extend(self._flat(c))
            elif c is not None:
                out.append(c)
        return out

    # -- pieces several sections share --------------------------------------------

    def _prose_node(self, span: Span, token: Token) -> A.Prose:
        """A prose node that knows where its text stands in the file."""
        text = text_of(token)
        raw = str(token)
        line, col = token.line or 0, token.column or 0
        if token.type != "PROSE":
            return A.Prose(span, text, line, col + 1, 0)
        body = raw[3:-3]
        first, _, rest = body.partition("\n")
        if first.strip():
            return A.Prose(span, text, line, col + 3 + (len(first) - len(first.lstrip())), indent_of(rest))
        # Text starts on the line after the opening quotes; skip blank lines.
        lines = rest.split("\n")
        skip = 0
        while skip < len(lines) and not lines[skip].strip():
            skip += 1
        indent = indent_of(rest)
        return A.Prose(span, text, line + 1 + skip, indent + 1, indent)

    def _entry_parts(self, rest: list[Any]) -> EntryParts:
        """The short text, prose, ``aka`` and ``see`` lines of a lexicon-like entry."""
        short = None
        prose: list[A.Prose] = []
        aka: tuple[str, ...] = ()
        see: tuple[tuple[str, Span], ...] = ()
        for r in rest:
            if isinstance(r, Text):
                short = r.text
            elif isinstance(r, list):  # entry_block
                for i in r:
                    if isinstance(i, A.Prose):
                        prose.append(i)
                    elif isinstance(i, Item) and i.tag == "aka":
                        aka += i.data
                    elif isinstance(i, Item) and i.tag == "see":
                        see += i.data
        return short, tuple(prose), aka, see

    def _head(self, c: list[Any]) -> tuple[str, tuple[A.Param, ...], str | None, list[Any]]:
        """The id, parameters and title of a table, formula or attack, and the rest of it."""
        name = str(c[0])
        params = c[1] or ()
        rest = c[2:]
        title = None
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = unquote(str(rest[0]))
            rest = rest[1:]
        return name, tuple(params), title, list(rest)
