"""The builder's part for the document: the file itself, prose, the ruleset header with its
history, includes, overlays (replace, remove, extend), sections, rules and notes.
"""
from __future__ import annotations

from typing import Any, Iterable

from lark import Token

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import BuilderBase, Item, Text, text_of, unquote, with_meta


class DocumentBuilder(BuilderBase):
    """Builds the header, includes, overlays, sections, rules, notes and prose."""

    # -- the file and its prose ---------------------------------------------------

    def start(self, children: list[Any]) -> list[Any]:
        return self._flat(children)

    def eval_input(self, children: list[Any]) -> A.Expr:
        expr: A.Expr = self._flat(children)[0]
        return expr

    @with_meta
    def prose(self, meta: Any, children: list[Any]) -> A.Prose:
        return self._prose_node(self.span(meta), children[0])

    @with_meta
    def text(self, meta: Any, children: list[Any]) -> Text:
        span = self.span(meta)
        return Text(text_of(children[0]), span, self._prose_node(span, children[0]))

    # -- the header -----------------------------------------------------------------

    @with_meta
    def header(self, meta: Any, children: list[Any]) -> A.Header:
        rid, title = children[0], children[1]
        fields: dict[str, Any] = {}
        prose = []
        for item in children[2:]:
            if isinstance(item, A.Prose):
                prose.append(item)
                continue
            if item.tag in fields:
                self.sink.error(codes.BAD_INCLUDE, f"the header gives '{item.tag}' twice", item.span,
                                "keep one of them")
            fields[item.tag] = item
        ext = fields.get("extends")
        return A.Header(
            span=self.span(meta),
            id=str(rid),
            title=unquote(str(title)),
            version=fields["version"].data if "version" in fields else None,
            authors=fields["authors"].data if "authors" in fields else (),
            source=fields["source"].data if "source" in fields else None,
            licence=fields["licence"].data if "licence" in fields else None,
            extends=ext.data[0] if ext else None,
            extends_version=ext.data[1] if ext else None,
            extends_span=ext.span if ext else None,
            summary=fields["summary"].data if "summary" in fields else None,
            history=fields["history"].data if "history" in fields else (),
            prose=tuple(prose),
        )

    @with_meta
    def h_version(self, meta: Any, c: list[Any]) -> Item:
        return Item("version", self.span(meta), str(c[0]))

    @with_meta
    def h_authors(self, meta: Any, c: list[Any]) -> Item:
        return Item("authors", self.span(meta), tuple(unquote(str(t)) for t in c))

    @with_meta
    def h_source(self, meta: Any, c: list[Any]) -> Item:
        return Item("source", self.span(meta), unquote(str(c[0])))

    @with_meta
    def h_licence(self, meta: Any, c: list[Any]) -> Item:
        return Item("licence", self.span(meta), unquote(str(c[0])))

    @with_meta
    def h_extends(self, meta: Any, c: list[Any]) -> Item:
        version = str(c[1]) if len(c) > 1 and c[1] is not None else None
        return Item("extends", self.span(meta), (str(c[0]), version))

    @with_meta
    def h_summary(self, meta: Any, c: list[Any]) -> Item:
        return Item("summary", self.span(meta), c[0].text)

    @with_meta
    def h_history(self, meta: Any, c: list[Any]) -> Item:
        return Item("history", self.span(meta), tuple(c))

    @with_meta
    def history_entry(self, meta: Any, c: list[Any]) -> A.HistoryEntry:
        version = str(c[0])
        date = str(c[1]) if isinstance(c[1], Token) else None
        return A.HistoryEntry(self.span(meta), version, date, c[-1].text)

    # -- includes and overlays ------------------------------------------------------

    @with_meta
    def include(self, meta: Any, c: list[Any]) -> A.Include:
        path = unquote(str(c[0]))
        return A.Include(self.span(meta), path, path)

    @with_meta
    def replace(self, meta: Any, c: list[Any]) -> A.Replace:
        decl = c[0]
        return A.Replace(self.span(meta), decl.id, decl)

    @with_meta
    def remove(self, meta: Any, c: list[Any]) -> A.Remove:
        return A.Remove(self.span(meta), str(c[0]))

    @with_meta
    def extend(self, meta: Any, c: list[Any]) -> A.Extend:
        return A.Extend(self.span(meta), str(c[0]), tuple(self._flat(c[1:])))

    # -- sections, rules, notes -----------------------------------------------------

    def _body(self, children: Iterable[Any]) -> tuple[A.Decl, ...]:
        out: list[A.Decl] = []
        for c in self._flat(children):
            if isinstance(c, A.Prose):
                out.append(A.ProseBlock(c.span, "", c.text, c))
            elif isinstance(c, A.Decl):
                out.append(c)
        return tuple(out)

    @with_meta
    def section(self, meta: Any, c: list[Any]) -> A.Section:
        return A.Section(self.span(meta), str(c[0]), unquote(str(c[1])), self._body(c[2:]))

    @with_meta
    def rule(self, meta: Any, c: list[Any]) -> A.Rule:
        return A.Rule(self.span(meta), str(c[0]), unquote(str(c[1])), self._body(c[2:]))

    @with_meta
    def rule_line(self, meta: Any, c: list[Any]) -> A.Rule:
        t: Text = c[2]
        body = (A.ProseBlock(t.span, "", t.text, t.prose),)
        return A.Rule(self.span(meta), str(c[0]), unquote(str(c[1])), body)

    def note_kind(self, c: list[Any]) -> str:
        return " ".join(str(t) for t in c)

    def _note(self, meta: Any, c: list[Any], items: list[Any]) -> A.Note:
        kind = c[0]
        rest = c[1:]
        if rest and isinstance(rest[0], Token) and rest[0].type == "NAME":
            nid, title = str(rest[0]), unquote(str(rest[1]))
        else:
            title = unquote(str(rest[0]))
            nid = ""
        prose = tuple(i for i in items if isinstance(i, A.Prose))
        pinned = tuple(x for i in items if isinstance(i, Item) and i.tag == "pinned" for x in i.data)
        see = tuple(x for i in items if isinstance(i, Item) and i.tag == "see" for x in i.data)
        return A.Note(self.span(meta), nid, kind, title, prose, pinned, see)

    @with_meta
    def note(self, meta: Any, c: list[Any]) -> A.Note:
        head = [x for x in c if isinstance(x, (str, Token)) and not isinstance(x, Item)]
        items = [x for x in c if isinstance(x, (A.Prose, Item))]
        return self._note(meta, head, items)

    @with_meta
    def note_line(self, meta: Any, c: list[Any]) -> A.Note:
        t: Text = c[-1]
        return self._note(meta, c[:-1], [t.prose or A.Prose(t.span, t.text)])

    @with_meta
    def pinned_by(self, meta: Any, c: list[Any]) -> Item:
        return Item("pinned", self.span(meta), self._names(c))

    @with_meta
    def see_also(self, meta: Any, c: list[Any]) -> Item:
        return Item("see", self.span(meta), self._names(c))

    @with_meta
    def aka(self, meta: Any, c: list[Any]) -> Item:
        return Item("aka", self.span(meta), tuple(unquote(str(t)) for t in c))
