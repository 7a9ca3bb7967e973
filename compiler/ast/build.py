"""Stage 2: Lark parse tree → AST, stamping a :class:`Span` on every node.

One Lark ``Transformer`` pass.  Lark wraps any exception raised in a callback
in ``VisitError``; problems found here are recorded as diagnostics instead,
so a user never sees a traceback.

>>> from compiler.syntax.parse import parse_text
>>> tree, _ = parse_text('stat BS "Ballistic Skill" 1..10: "Aim."\\n', "x.rules")
>>> file, diags = build_file(tree, "x.rules")
>>> file.items[0].id, file.items[0].title, diags
('BS', 'Ballistic Skill', ())
"""
from __future__ import annotations

import textwrap
from fractions import Fraction
from typing import Any, Iterable

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import VisitError

from compiler import ast as A
from compiler.diagnostics import Diagnostic, Severity, Sink, Span


def unquote(s: str) -> str:
    """The text of a quoted string, with backslash escapes resolved."""
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
    """The Markdown inside a triple-quoted block, dedented and trimmed."""
    body = s[3:-3]
    lines = body.split("\n")
    first, rest = lines[0], "\n".join(lines[1:])
    text = (first.strip() + "\n" + textwrap.dedent(rest)) if first.strip() else textwrap.dedent(rest)
    return text.strip("\n").rstrip()


def _indent(text: str) -> int:
    widths = [len(l) - len(l.lstrip()) for l in text.split("\n") if l.strip()]
    return min(widths) if widths else 0


def text_of(token: Token) -> str:
    if token.type == "PROSE":
        return prose_text(str(token))
    return unquote(str(token))


class _Text:
    """A ``text`` node: the string and its span."""

    __slots__ = ("text", "span", "prose")

    def __init__(self, text: str, span: Span) -> None:
        self.text = text
        self.span = span
        self.prose: A.Prose | None = None


class _Item:
    """A tagged, not-yet-placed piece of a declaration body."""

    __slots__ = ("tag", "span", "data")

    def __init__(self, tag: str, span: Span, data: Any) -> None:
        self.tag = tag
        self.span = span
        self.data = data


class Builder(Transformer):
    """Turn the parse tree of one file into AST nodes."""

    def __init__(self, path: str, sink: Sink) -> None:
        super().__init__(visit_tokens=False)
        self.path = path
        self.sink = sink
        self._prose_count = 0

    # -- helpers -------------------------------------------------------------

    def span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True) is True and not hasattr(meta, "line"):
            return Span(self.path, 0, 0, 0, 0)
        return Span(self.path, meta.line, meta.column, meta.end_line, meta.end_column)

    def tspan(self, token: Token) -> Span:
        line = token.line or 0
        col = token.column or 0
        end_line = token.end_line or line
        end_col = token.end_column or col + len(str(token))
        return Span(self.path, line, col, end_line, end_col)

    @staticmethod
    def _tokens(children: Iterable[Any], type_: str | None = None) -> list[Token]:
        return [c for c in children if isinstance(c, Token) and (type_ is None or c.type == type_)]

    def _items(self, children: Iterable[Any], tag: str) -> list[Any]:
        return [c.data for c in children if isinstance(c, _Item) and c.tag == tag]

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

    # -- files ---------------------------------------------------------------

    def start(self, children: list[Any]) -> list[Any]:
        return self._flat(children)

    def eval_input(self, children: list[Any]) -> A.Expr:
        return self._flat(children)[0]

    def _prose_node(self, span: Span, token: Token) -> A.Prose:
        text = text_of(token)
        raw = str(token)
        line, col = token.line or 0, token.column or 0
        if token.type != "PROSE":
            return A.Prose(span, text, line, col + 1, 0)
        body = raw[3:-3]
        first, _, rest = body.partition("\n")
        if first.strip():
            return A.Prose(span, text, line, col + 3 + (len(first) - len(first.lstrip())), _indent(rest))
        # Text starts on the line after the opening quotes; skip blank lines.
        lines = rest.split("\n")
        skip = 0
        while skip < len(lines) and not lines[skip].strip():
            skip += 1
        indent = _indent(rest)
        return A.Prose(span, text, line + 1 + skip, indent + 1, indent)

    @v_args(meta=True)
    def prose(self, meta: Any, children: list[Any]) -> A.Prose:
        return self._prose_node(self.span(meta), children[0])

    @v_args(meta=True)
    def text(self, meta: Any, children: list[Any]) -> _Text:
        t = _Text(text_of(children[0]), self.span(meta))
        t.prose = self._prose_node(t.span, children[0])
        return t

    # -- header --------------------------------------------------------------

    @v_args(meta=True)
    def header(self, meta: Any, children: list[Any]) -> A.Header:
        rid, title = children[0], children[1]
        fields: dict[str, Any] = {}
        prose = []
        for item in children[2:]:
            if isinstance(item, A.Prose):
                prose.append(item)
                continue
            if item.tag in fields:
                self.sink.error("W104", f"the header gives '{item.tag}' twice", item.span,
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

    @v_args(meta=True)
    def h_version(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("version", self.span(meta), str(c[0]))

    @v_args(meta=True)
    def h_authors(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("authors", self.span(meta), tuple(unquote(str(t)) for t in c))

    @v_args(meta=True)
    def h_source(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("source", self.span(meta), unquote(str(c[0])))

    @v_args(meta=True)
    def h_licence(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("licence", self.span(meta), unquote(str(c[0])))

    @v_args(meta=True)
    def h_extends(self, meta: Any, c: list[Any]) -> _Item:
        version = str(c[1]) if len(c) > 1 and c[1] is not None else None
        return _Item("extends", self.span(meta), (str(c[0]), version))

    @v_args(meta=True)
    def h_summary(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("summary", self.span(meta), c[0].text)

    @v_args(meta=True)
    def h_history(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("history", self.span(meta), tuple(c))

    @v_args(meta=True)
    def history_entry(self, meta: Any, c: list[Any]) -> A.HistoryEntry:
        version = str(c[0])
        date = str(c[1]) if isinstance(c[1], Token) else None
        return A.HistoryEntry(self.span(meta), version, date, c[-1].text)

    @v_args(meta=True)
    def include(self, meta: Any, c: list[Any]) -> A.Include:
        path = unquote(str(c[0]))
        return A.Include(self.span(meta), path, path)

    @v_args(meta=True)
    def replace(self, meta: Any, c: list[Any]) -> A.Replace:
        decl = c[0]
        return A.Replace(self.span(meta), decl.id, decl)

    @v_args(meta=True)
    def remove(self, meta: Any, c: list[Any]) -> A.Remove:
        return A.Remove(self.span(meta), str(c[0]))

    @v_args(meta=True)
    def extend(self, meta: Any, c: list[Any]) -> A.Extend:
        return A.Extend(self.span(meta), str(c[0]), tuple(self._flat(c[1:])))

    # -- structure -----------------------------------------------------------

    def _body(self, children: Iterable[Any]) -> tuple[A.Decl, ...]:
        out: list[A.Decl] = []
        for c in self._flat(children):
            if isinstance(c, A.Prose):
                out.append(A.ProseBlock(c.span, "", c.text, c))
            elif isinstance(c, A.Decl):
                out.append(c)
        return tuple(out)

    @v_args(meta=True)
    def section(self, meta: Any, c: list[Any]) -> A.Section:
        return A.Section(self.span(meta), str(c[0]), unquote(str(c[1])), self._body(c[2:]))

    @v_args(meta=True)
    def rule(self, meta: Any, c: list[Any]) -> A.Rule:
        return A.Rule(self.span(meta), str(c[0]), unquote(str(c[1])), self._body(c[2:]))

    @v_args(meta=True)
    def rule_line(self, meta: Any, c: list[Any]) -> A.Rule:
        t: _Text = c[2]
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
        pinned = tuple(x for i in items if isinstance(i, _Item) and i.tag == "pinned" for x in i.data)
        see = tuple(x for i in items if isinstance(i, _Item) and i.tag == "see" for x in i.data)
        return A.Note(self.span(meta), nid, kind, title, prose, pinned, see)

    @v_args(meta=True)
    def note(self, meta: Any, c: list[Any]) -> A.Note:
        head = [x for x in c if isinstance(x, (str, Token)) and not isinstance(x, _Item)]
        items = [x for x in c if isinstance(x, (A.Prose, _Item))]
        return self._note(meta, head, items)

    @v_args(meta=True)
    def note_line(self, meta: Any, c: list[Any]) -> A.Note:
        t: _Text = c[-1]
        return self._note(meta, c[:-1], [t.prose or A.Prose(t.span, t.text)])

    @v_args(meta=True)
    def pinned_by(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("pinned", self.span(meta), self._names(c))

    @v_args(meta=True)
    def see_also(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("see", self.span(meta), self._names(c))

    @v_args(meta=True)
    def aka(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("aka", self.span(meta), tuple(unquote(str(t)) for t in c))

    # -- lexicon -------------------------------------------------------------

    def _entry_parts(self, rest: list[Any]) -> tuple[str | None, tuple[A.Prose, ...], tuple[str, ...], tuple[tuple[str, Span], ...]]:
        short = None
        prose: list[A.Prose] = []
        aka: tuple[str, ...] = ()
        see: tuple[tuple[str, Span], ...] = ()
        for r in rest:
            if isinstance(r, _Text):
                short = r.text
            elif isinstance(r, list):  # entry_block
                for i in r:
                    if isinstance(i, A.Prose):
                        prose.append(i)
                    elif isinstance(i, _Item) and i.tag == "aka":
                        aka += i.data
                    elif isinstance(i, _Item) and i.tag == "see":
                        see += i.data
        return short, tuple(prose), aka, see

    def entry_block(self, c: list[Any]) -> list[Any]:
        return list(c)

    def stat_type(self, c: list[Any]) -> A.RangeExpr | str:
        if isinstance(c[0], A.RangeExpr):
            return c[0]
        return str(c[0])

    @v_args(meta=True)
    def stat(self, meta: Any, c: list[Any]) -> A.Stat:
        name, title = str(c[0]), unquote(str(c[1]))
        stype = None
        rest = []
        clamped = True
        for x in c[2:]:
            if isinstance(x, Token) and x.type == "UNCLAMPED":
                clamped = False
            elif isinstance(x, (A.RangeExpr, str)) and not isinstance(x, Token):
                stype = x
            else:
                rest.append(x)
        short, prose, aka, see = self._entry_parts(rest)
        return A.Stat(self.span(meta), name, title, stype, short, prose, aka, see, clamped)

    def entry_kind(self, c: list[Any]) -> str:
        return str(c[0])

    @v_args(meta=True)
    def entry(self, meta: Any, c: list[Any]) -> A.Entry:
        kind, name, title = c[0], str(c[1]), unquote(str(c[2]))
        short, prose, aka, see = self._entry_parts(c[3:])
        return A.Entry(self.span(meta), name, kind, title, short, prose, aka, see)

    def choices(self, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(t) for t in c)

    @v_args(meta=True)
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

    # -- dice ----------------------------------------------------------------

    @v_args(meta=True)
    def die(self, meta: Any, c: list[Any]) -> A.Decl:
        dice_tokens = self._tokens(c, "DICE")
        name_tok, base_tok = dice_tokens[0], dice_tokens[1]
        title = None
        strings = [x for x in c if isinstance(x, Token) and x.type == "STRING"]
        if strings and (strings[0].start_pos or 0) < (base_tok.start_pos or 0):
            title = unquote(str(strings[0]))
        faces = tuple(x for x in c if isinstance(x, _Item) and x.tag == "face")
        rest = [x for x in c if isinstance(x, (_Text, list))]
        short, prose, _, _ = self._entry_parts(rest)
        count, sides = _dice_parts(str(base_tok))
        if count != 1:
            self.sink.error("W204", f"a custom die is made from one die, not {base_tok}", self.tspan(base_tok),
                            "write the base as d6 or d10")
        name_count, _ = _dice_parts(str(name_tok))
        if name_count != 1:
            self.sink.error("W204", f"a custom die's name is a single die such as D3, not {name_tok}",
                            self.tspan(name_tok))
        return A.Die(self.span(meta), _die_key(str(name_tok)), title, sides, self.tspan(base_tok),
                     tuple(f.data for f in faces), short, prose)

    @v_args(meta=True)
    def face(self, meta: Any, c: list[Any]) -> _Item:
        x = c[0]
        if isinstance(x, Token) and x.type == "STRING":
            return _Item("face", self.span(meta), unquote(str(x)))
        return _Item("face", self.span(meta), x)

    def signed_int(self, c: list[Any]) -> int:
        value = int(str(c[-1]))
        return -value if len(c) == 2 else value

    # -- tests ---------------------------------------------------------------

    def _test(self, meta: Any, c: list[Any]) -> A.Test:
        name = str(c[0])
        params = c[1] or ()
        title = None
        rest = c[2:]
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = unquote(str(rest[0]))
            rest = rest[1:]
        roll = None
        fields: dict[str, Any] = {"natural_fails": (), "natural_succeeds": (), "rerolls": ()}
        prose = []
        spans = []
        for item in rest:
            if isinstance(item, A.Prose):
                prose.append(item)
                continue
            if not isinstance(item, _Item):
                continue
            spans.append(item.span)
            if item.tag == "roll":
                if roll is not None:
                    self.sink.error("W105", "a test rolls once: this is its second roll line", item.span,
                                    "write a second test and combine them in a formula")
                roll = item.data
            elif item.tag in ("natural_fails", "natural_succeeds", "rerolls"):
                fields[item.tag] = fields[item.tag] + tuple(item.data)
            else:
                if item.tag in fields:
                    self.sink.error("W105", f"this test already says '{item.tag.replace('_', ' ')}'",
                                    item.span)
                fields[item.tag] = item.data
        if roll is None:
            self.sink.error("W106", f"test '{name}' never says what it rolls", self.span(meta),
                            "add a line such as: roll d6 >= 4")
        return A.Test(self.span(meta), name, tuple(params), title, roll,
                      tuple(fields["natural_fails"]), tuple(fields["natural_succeeds"]),
                      fields.get("never_better"), fields.get("never_worse"), fields.get("modifier_cap"),
                      tuple(fields["rerolls"]), tuple(prose), tuple(spans))

    @v_args(meta=True)
    def test(self, meta: Any, c: list[Any]) -> A.Test:
        return self._test(meta, c)

    @v_args(meta=True)
    def test_line(self, meta: Any, c: list[Any]) -> A.Test:
        return self._test(meta, c)

    def cmp_op(self, c: list[Any]) -> str:
        op = str(c[0])
        return {"≥": ">=", "≤": "<=", "≠": "!="}.get(op, op)

    def expect_op(self, c: list[Any]) -> str:
        op = str(c[0])
        return {"≥": ">=", "≤": "<=", "≠": "!=", "==": "=", "≈": "~"}.get(op, op)

    @v_args(meta=True)
    def roll_cmp(self, meta: Any, c: list[Any]) -> _Item:
        span = self.span(meta)
        if c[1] not in (">=", "<="):
            self.sink.error("W201", f"a roll is compared with >= (a high roll) or <= (a low roll), not {c[1]}",
                            span, "write: roll d6 >= 4  or  roll d6 <= BS")
        return _Item("roll", span, A.Roll(span, c[0], c[1], c[2]))

    @v_args(meta=True)
    def roll_against(self, meta: Any, c: list[Any]) -> _Item:
        span = self.span(meta)
        return _Item("roll", span, A.Roll(span, c[0], "against", c[1]))

    @v_args(meta=True)
    def natural_fails(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("natural_fails", self.span(meta), c[0])

    @v_args(meta=True)
    def natural_succeeds(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("natural_succeeds", self.span(meta), c[0])

    @v_args(meta=True)
    def never_better(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("never_better", self.span(meta), c[0])

    @v_args(meta=True)
    def never_worse(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("never_worse", self.span(meta), c[0])

    @v_args(meta=True)
    def modifier_cap(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("modifier_cap", self.span(meta), (c[0], c[1]))

    @v_args(meta=True)
    def reroll(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("rerolls", self.span(meta), (c[0],))

    def int_list(self, c: list[Any]) -> tuple[int, ...]:
        return tuple(int(str(t)) for t in c)

    def reroll_kind(self, c: list[Any]) -> str:
        first = str(c[0])
        if first == "natural":
            return "natural:" + ",".join(str(n) for n in c[1])
        return first

    # -- tables and formulas -------------------------------------------------

    def params(self, c: list[Any]) -> tuple[A.Param, ...]:
        return tuple(p for p in c if p is not None)

    @v_args(meta=True)
    def param(self, meta: Any, c: list[Any]) -> A.Param:
        ptype: A.RangeExpr | str | None = None
        if len(c) > 1 and c[1] is not None:
            ptype = c[1] if isinstance(c[1], A.RangeExpr) else str(c[1])
        return A.Param(self.span(meta), str(c[0]), ptype)

    def _head(self, c: list[Any]) -> tuple[str, tuple[A.Param, ...], str | None, list[Any]]:
        name = str(c[0])
        params = c[1] or ()
        rest = c[2:]
        title = None
        if rest and isinstance(rest[0], Token) and rest[0].type == "STRING":
            title = unquote(str(rest[0]))
            rest = rest[1:]
        return name, tuple(params), title, list(rest)

    @v_args(meta=True)
    def table(self, meta: Any, c: list[Any]) -> A.Table:
        name, params, title, rest = self._head(c)
        lets = tuple(x for x in rest if isinstance(x, A.Let))
        rows = tuple(x for x in rest if isinstance(x, A.CaseRow))
        grids = [x for x in rest if isinstance(x, A.Grid)]
        prose = self._prose(rest)
        if grids and rows:
            self.sink.error("W304", f"table '{name}' mixes a grid with case rows", grids[0].span,
                            "a table is either a grid or a list of cases")
        if len(grids) > 1:
            self.sink.error("W304", f"table '{name}' has more than one grid", grids[1].span)
        return A.Table(self.span(meta), name, params, title, lets, rows, grids[0] if grids else None, None, prose)

    @v_args(meta=True)
    def table_formula(self, meta: Any, c: list[Any]) -> A.Table:
        name, params, title, rest = self._head(c)
        return A.Table(self.span(meta), name, params, title, (), (), None, rest[0], ())

    @v_args(meta=True)
    def case_row(self, meta: Any, c: list[Any]) -> A.CaseRow:
        pattern = None if isinstance(c[0], _Item) and c[0].tag == "otherwise" else c[0]
        return A.CaseRow(self.span(meta), pattern, c[1])

    @v_args(meta=True)
    def otherwise(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("otherwise", self.span(meta), None)

    @v_args(meta=True)
    def grid(self, meta: Any, c: list[Any]) -> A.Grid:
        row_param, col_param = str(c[0]), str(c[1])
        header: _Item = c[2]
        rows = [r for r in c[3:] if isinstance(r, _Item)]
        span = self.span(meta)
        head_name, columns = header.data
        if head_name != col_param:
            self.sink.error("W304", f"the grid's first line names its columns: expected '{col_param}:', not '{head_name}:'",
                            header.span, f"start the header line with {col_param}:")
        for r in rows:
            if len(r.data[1]) != len(columns):
                self.sink.error("W304", f"this grid row has {len(r.data[1])} cells but the header has {len(columns)} columns",
                                r.span, "give one cell per column; use - for 'never'")
        return A.Grid(span, row_param, col_param, tuple(columns),
                      tuple((r.data[0], tuple(r.data[1])) for r in rows), tuple(r.span for r in rows))

    @v_args(meta=True)
    def grid_header(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("header", self.span(meta), (str(c[0]), [int(x) for x in c[1:]]))

    @v_args(meta=True)
    def grid_row(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("row", self.span(meta), (int(c[0]), list(c[1:])))

    @v_args(meta=True)
    def grid_cell(self, meta: Any, c: list[Any]) -> A.Expr:
        tok: Token = c[0]
        span = self.tspan(tok)
        s = str(tok)
        if tok.type == "CELL_TARGET":
            direction = "high" if s.endswith("+") else "low"
            return A.Target(span, A.Int(span, int(s[:-1])), direction)
        if tok.type == "INT":
            return A.Int(span, int(s))
        if tok.type == "STRING":
            return A.Label(span, unquote(s))
        if s in ("-", "never"):
            return A.Const(span, "never")
        return A.Const(span, "always")

    @v_args(meta=True)
    def formula(self, meta: Any, c: list[Any]) -> A.Formula:
        name, params, title, rest = self._head(c)
        expr = rest[0]
        _, prose, _, _ = self._entry_parts(rest[1:])
        return A.Formula(self.span(meta), name, params, title, (), expr, prose)

    @v_args(meta=True)
    def formula_block(self, meta: Any, c: list[Any]) -> A.Formula:
        name, params, title, rest = self._head(c)
        lets = tuple(x for x in rest if isinstance(x, A.Let))
        results = [x for x in rest if isinstance(x, _Item) and x.tag == "result"]
        if not results:
            self.sink.error("W106", f"formula '{name}' has no result line", self.span(meta),
                            "end it with a line such as: result a + b")
        elif len(results) > 1:
            self.sink.error("W105", f"formula '{name}' has more than one result line", results[1].span)
        result = results[-1].data if results else None
        return A.Formula(self.span(meta), name, params, title, lets, result, self._prose(rest))

    @v_args(meta=True)
    def result(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("result", self.span(meta), c[0])

    @v_args(meta=True)
    def let_line(self, meta: Any, c: list[Any]) -> A.Let:
        return A.Let(self.span(meta), str(c[0]), c[1])

    # -- modifiers and abilities ---------------------------------------------

    def sign(self, c: list[Any]) -> int:
        return -1 if str(c[0]) == "-" else 1

    def _signed(self, sign: int, value: A.Expr) -> A.Expr:
        if sign > 0:
            return value
        if isinstance(value, A.Int):
            return A.Int(value.span, -value.value)
        return A.Unary(value.span, "-", value)

    @v_args(meta=True)
    def effect_roll(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "roll", value=self._signed(c[0], c[1]), test=str(c[2]))

    @v_args(meta=True)
    def effect_stat(self, meta: Any, c: list[Any]) -> A.Effect:
        role = str(c[3]) if len(c) > 3 and c[3] is not None else None
        return A.Effect(self.span(meta), "stat", value=self._signed(c[0], c[1]), stat=str(c[2]), role=role)

    @v_args(meta=True)
    def effect_needs(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "needs", value=c[1], test=str(c[0]))

    @v_args(meta=True)
    def effect_reroll(self, meta: Any, c: list[Any]) -> A.Effect:
        return A.Effect(self.span(meta), "reroll", test=str(c[1]), reroll=c[0])

    @v_args(meta=True)
    def when(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("when", self.span(meta), c[0])

    @v_args(meta=True)
    def mod_group(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("group", self.span(meta), str(c[0]))

    def modifier_block(self, c: list[Any]) -> list[Any]:
        return list(c)

    def _modifier(self, meta: Any, name: str, title: str, items: list[Any]) -> A.Modifier:
        effects = tuple(x for x in items if isinstance(x, A.Effect))
        whens = [x for x in items if isinstance(x, _Item) and x.tag == "when"]
        groups = [x for x in items if isinstance(x, _Item) and x.tag == "group"]
        if len(whens) > 1:
            self.sink.error("W105", f"modifier '{name}' has more than one 'when'", whens[1].span,
                            "join the conditions with 'and'")
        if not effects:
            self.sink.error("W106", f"modifier '{name}' does not say what it changes", self.span(meta),
                            "add a line such as: -1 to hit")
        return A.Modifier(self.span(meta), name, title, effects, whens[0].data if whens else None,
                          groups[0].data if groups else None, self._prose(items))

    @v_args(meta=True)
    def modifier(self, meta: Any, c: list[Any]) -> A.Modifier:
        items = self._flat(c[2:])
        return self._modifier(meta, str(c[0]), unquote(str(c[1])), items)

    @v_args(meta=True)
    def modifier_block_only(self, meta: Any, c: list[Any]) -> A.Modifier:
        return self._modifier(meta, str(c[0]), unquote(str(c[1])), self._flat(c[2:]))

    def stacking_kind(self, c: list[Any]) -> str:
        return str(c[0])

    @v_args(meta=True)
    def stacking(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("stacking", self.span(meta), c[0])

    def ability_block(self, c: list[Any]) -> list[Any]:
        return list(c)

    @v_args(meta=True)
    def ability(self, meta: Any, c: list[Any]) -> A.Ability:
        name = str(c[0])
        if isinstance(c[1], Token):
            params: tuple[A.Param, ...] = ()
            title, rest = unquote(str(c[1])), self._flat(c[2:])
        else:
            params, title, rest = tuple(c[1] or ()), unquote(str(c[2])), self._flat(c[3:])
        short = next((x.text for x in rest if isinstance(x, _Text)), None)
        hooks = tuple(x for x in rest if isinstance(x, A.Hook))
        effects = tuple(x for x in rest if isinstance(x, A.Effect))
        whens = [x for x in rest if isinstance(x, _Item) and x.tag == "when"]
        stack = [x for x in rest if isinstance(x, _Item) and x.tag == "stacking"]
        aka = tuple(a for x in rest if isinstance(x, _Item) and x.tag == "aka" for a in x.data)
        see = tuple(a for x in rest if isinstance(x, _Item) and x.tag == "see" for a in x.data)
        return A.Ability(self.span(meta), name, params, title, short, hooks, effects,
                         whens[0].data if whens else None, stack[0].data if stack else None,
                         self._prose(rest), aka, see)

    @v_args(meta=True)
    def hook(self, meta: Any, c: list[Any]) -> A.Hook:
        natural, natural_from = c[0]
        test = str(c[1])
        effects = tuple(x for x in c[2:] if isinstance(x, A.HookEffect))
        return A.Hook(self.span(meta), test, natural, natural_from, effects)

    @v_args(meta=True)
    def hook_damage(self, meta: Any, c: list[Any]) -> A.Hook:
        return A.Hook(self.span(meta), None, None, False, (), c[0])

    def crit_exact(self, c: list[Any]) -> tuple[int, bool]:
        return int(str(c[0])), False

    def crit_from(self, c: list[Any]) -> tuple[int, bool]:
        return int(str(c[0])), True

    @v_args(meta=True)
    def extra(self, meta: Any, c: list[Any]) -> A.HookEffect:
        word = str(c[1]) if len(c) > 1 and c[1] is not None else None
        return A.HookEffect(self.span(meta), "extra", amount=c[0], word=word)

    @v_args(meta=True)
    def auto_pass(self, meta: Any, c: list[Any]) -> A.HookEffect:
        return A.HookEffect(self.span(meta), "pass", test=str(c[0]))

    @v_args(meta=True)
    def auto_fail(self, meta: Any, c: list[Any]) -> A.HookEffect:
        return A.HookEffect(self.span(meta), "fail", test=str(c[0]))

    # -- attacks -------------------------------------------------------------

    @v_args(meta=True)
    def attack(self, meta: Any, c: list[Any]) -> A.Attack:
        name, params, title, rest = self._head(c)
        steps = tuple(x for x in rest if isinstance(x, A.Step))
        lets = tuple(x for x in rest if isinstance(x, A.Let))
        return A.Attack(self.span(meta), name, params, title, steps, lets, self._prose(rest))

    @v_args(meta=True)
    def step(self, meta: Any, c: list[Any]) -> A.Step:
        return A.Step(self.span(meta), str(c[0]), c[1])

    @v_args(meta=True)
    def removal(self, meta: Any, c: list[Any]) -> A.Step:
        damage = c[3] if len(c) > 3 else None
        return A.Step(self.span(meta), str(c[0]), None, str(c[1]), c[2], damage)

    # -- profiles ------------------------------------------------------------

    def _profile(self, meta: Any, kind: str, c: list[Any]) -> A.Profile:
        name, title = str(c[0]), unquote(str(c[1]))
        items = self._flat(c[2:])
        stats = tuple(x for x in items if isinstance(x, A.StatValue))
        seen: dict[str, A.StatValue] = {}
        for s in stats:
            if s.stat in seen:
                self.sink.error("W102", f"{kind} '{name}' gives '{s.stat}' twice", s.stat_span,
                                "keep one value", related=[(seen[s.stat].stat_span, "first given here")])
            seen[s.stat] = s
        get = lambda tag: [x.data for x in items if isinstance(x, _Item) and x.tag == tag]  # noqa: E731
        points = get("points")
        klass = get("class")
        return A.Profile(self.span(meta), name, kind, title, stats,
                         tuple(k for g in get("keywords") for k in g),
                         tuple(a for g in get("abilities") for a in g),
                         tuple(w for g in get("weapons") for w in g),
                         points[0] if points else None, klass[0] if klass else None,
                         self._prose(items))

    @v_args(meta=True)
    def unit(self, meta: Any, c: list[Any]) -> A.Profile:
        return self._profile(meta, "unit", c)

    @v_args(meta=True)
    def weapon(self, meta: Any, c: list[Any]) -> A.Profile:
        return self._profile(meta, "weapon", c)

    def stat_line(self, c: list[Any]) -> list[A.StatValue]:
        return list(c)

    @v_args(meta=True)
    def stat_pair(self, meta: Any, c: list[Any]) -> A.StatValue:
        tok: Token = c[0]
        kind, value, dice, bonus = c[1]
        return A.StatValue(self.span(meta), str(tok), self.tspan(tok), kind, value, dice, bonus)

    def v_int(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("int", c[0], None, 0)

    def v_high(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("high", int(str(c[0])), None, 0)

    def v_low(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("low", int(str(c[0])), None, 0)

    def v_inches(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("inches", Fraction(str(c[0])[:-1]), None, 0)

    def v_dice(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        tok: Token = c[0]
        count, sides = _dice_parts(str(tok))
        dice = A.Dice(self.tspan(tok), count, sides, _die_key(str(tok), keep_count=True))
        bonus = 0
        if len(c) > 2 and c[1] is not None:
            bonus = c[1] * int(str(c[2]))
        return ("dice", None, dice, bonus)

    def v_none(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("none", None, None, 0)

    def v_text(self, c: list[Any]) -> tuple[str, Any, Any, int]:
        return ("text", unquote(str(c[0])), None, 0)

    @v_args(meta=True)
    def keywords(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("keywords", self.span(meta), self._names(c))

    @v_args(meta=True)
    def weapons(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("weapons", self.span(meta), self._names(c))

    @v_args(meta=True)
    def abilities(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("abilities", self.span(meta), tuple(c))

    @v_args(meta=True)
    def ability_use(self, meta: Any, c: list[Any]) -> A.AbilityUse:
        arg = c[1] if len(c) > 1 else None
        return A.AbilityUse(self.span(meta), str(c[0]), arg)

    @v_args(meta=True)
    def points(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("points", self.span(meta), int(str(c[0])))

    @v_args(meta=True)
    def profile_class(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("class", self.span(meta), str(c[0]))

    @v_args(meta=True)
    def squad(self, meta: Any, c: list[Any]) -> A.Squad:
        name, title = str(c[0]), unquote(str(c[1]))
        items = self._flat(c[2:])
        get = lambda tag: [x for x in items if isinstance(x, _Item) and x.tag == tag]  # noqa: E731
        models = get("models")
        unit = lo = hi = None
        unit_span = None
        if models:
            unit, unit_span, lo, hi = models[0].data
        pts = get("squad_points")
        points, per = (pts[0].data if pts else (None, None))
        return A.Squad(self.span(meta), name, title, unit, unit_span, lo, hi, points, per,
                       tuple(k for g in get("keywords") for k in g.data),
                       tuple(a for g in get("abilities") for a in g.data),
                       tuple(w for g in get("weapons") for w in g.data),
                       bool(get("special")), self._prose(items))

    @v_args(meta=True)
    def squad_models(self, meta: Any, c: list[Any]) -> _Item:
        rng: A.RangeExpr = c[1]
        lo = rng.low.value if isinstance(rng.low, A.Int) else None
        hi = rng.high.value if isinstance(rng.high, A.Int) else None
        if lo is None or hi is None:
            self.sink.error("W201", "a squad's size is a range of whole numbers such as 5..10", rng.span)
        return _Item("models", self.span(meta), (str(c[0]), self.tspan(c[0]), lo, hi))

    @v_args(meta=True)
    def squad_models_fixed(self, meta: Any, c: list[Any]) -> _Item:
        n = int(str(c[1]))
        return _Item("models", self.span(meta), (str(c[0]), self.tspan(c[0]), n, n))

    @v_args(meta=True)
    def squad_points(self, meta: Any, c: list[Any]) -> _Item:
        per = int(str(c[1])) if len(c) > 1 and c[1] is not None else None
        return _Item("squad_points", self.span(meta), (int(str(c[0])), per))

    @v_args(meta=True)
    def special(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("special", self.span(meta), True)

    # -- army and game -------------------------------------------------------

    @v_args(meta=True)
    def army(self, meta: Any, c: list[Any]) -> A.Army:
        items = self._flat(c[2:])
        points = tuple(p for x in items if isinstance(x, _Item) and x.tag == "army_points" for p in x.data)
        reqs = tuple(x for x in items if isinstance(x, A.Requirement))
        return A.Army(self.span(meta), str(c[0]), unquote(str(c[1])), points, reqs, self._prose(items))

    @v_args(meta=True)
    def army_points(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("army_points", self.span(meta), tuple(int(str(t)) for t in c))

    @v_args(meta=True)
    def require(self, meta: Any, c: list[Any]) -> A.Requirement:
        msg = unquote(str(c[1])) if len(c) > 1 and c[1] is not None else None
        return A.Requirement(self.span(meta), c[0], msg)

    @v_args(meta=True)
    def game(self, meta: Any, c: list[Any]) -> A.Game:
        items = self._flat(c[2:])
        turns = [x for x in items if isinstance(x, _Item) and x.tag == "turns"]
        act = [x for x in items if isinstance(x, _Item) and x.tag == "activation"]
        if act and act[0].data not in A.ACTIVATIONS:
            self.sink.error("W101", f"unknown activation scheme '{act[0].data}'", act[0].span,
                            "use one of: " + ", ".join(A.ACTIVATIONS))
        return A.Game(self.span(meta), str(c[0]), unquote(str(c[1])),
                      turns[0].data if turns else None,
                      act[0].data if act else None, act[0].span if act else None,
                      tuple(x for x in items if isinstance(x, A.Phase)),
                      tuple(x for x in items if isinstance(x, A.Score)),
                      tuple(x for x in items if isinstance(x, A.Victory)),
                      self._prose(items))

    @v_args(meta=True)
    def turns(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("turns", self.span(meta), int(str(c[0])))

    @v_args(meta=True)
    def activation(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("activation", self.span(meta), str(c[0]))

    @v_args(meta=True)
    def phase(self, meta: Any, c: list[Any]) -> A.Phase:
        rest = self._flat(c[2:])
        text = next((x.text for x in rest if isinstance(x, _Text)), None)
        steps = tuple(x for x in rest if isinstance(x, A.PhaseStep))
        return A.Phase(self.span(meta), str(c[0]), unquote(str(c[1])), text, steps, self._prose(rest))

    @v_args(meta=True)
    def phase_step(self, meta: Any, c: list[Any]) -> A.PhaseStep:
        text = next((x.text for x in c[2:] if isinstance(x, _Text)), None)
        return A.PhaseStep(self.span(meta), str(c[0]), unquote(str(c[1])), text)

    @v_args(meta=True)
    def score(self, meta: Any, c: list[Any]) -> A.Score:
        per = str(c[3]) if len(c) > 3 and isinstance(c[3], Token) else None
        _, prose, _, _ = self._entry_parts([x for x in c[3:] if isinstance(x, list)])
        return A.Score(self.span(meta), str(c[0]), unquote(str(c[1])), c[2], per, prose)

    @v_args(meta=True)
    def victory(self, meta: Any, c: list[Any]) -> A.Victory:
        short, prose, _, _ = self._entry_parts(c[2:])
        return A.Victory(self.span(meta), str(c[0]), unquote(str(c[1])), short, prose)

    # -- examples and properties ---------------------------------------------

    @v_args(meta=True)
    def example(self, meta: Any, c: list[Any]) -> A.Example:
        items = self._flat(c[2:])
        return A.Example(self.span(meta), str(c[0]), unquote(str(c[1])),
                         tuple(x for x in items if isinstance(x, A.Let)),
                         tuple(x for x in items if isinstance(x, A.Expect)),
                         self._prose(items))

    @v_args(meta=True)
    def expect(self, meta: Any, c: list[Any]) -> A.Expect:
        tol = c[3] if len(c) > 3 else None
        return A.Expect(self.span(meta), c[0], c[1], c[2], tol)

    def tolerance(self, c: list[Any]) -> A.Expr:
        return c[1]

    @v_args(meta=True)
    def property(self, meta: Any, c: list[Any]) -> A.Property:
        items = self._flat(c[2:])
        bindings = tuple(b for x in items if isinstance(x, _Item) and x.tag == "for" for b in x.data)
        return A.Property(self.span(meta), str(c[0]), unquote(str(c[1])), bindings,
                          tuple(x for x in items if isinstance(x, A.Let)),
                          tuple(x for x in items if isinstance(x, A.Expect)),
                          self._prose(items))

    @v_args(meta=True)
    def for_all(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("for", self.span(meta), tuple(c))

    @v_args(meta=True)
    def binding(self, meta: Any, c: list[Any]) -> A.Binding:
        return A.Binding(self.span(meta), str(c[0]), c[1])

    # -- expressions ---------------------------------------------------------

    @v_args(meta=True)
    def with_settings(self, meta: Any, c: list[Any]) -> A.With:
        return A.With(self.span(meta), c[0], tuple(c[1:]))

    @v_args(meta=True)
    def set_value(self, meta: Any, c: list[Any]) -> A.Setting:
        return A.Setting(self.span(meta), str(c[0]), c[1])

    @v_args(meta=True)
    def set_true(self, meta: Any, c: list[Any]) -> A.Setting:
        return A.Setting(self.span(meta), str(c[0]), None)

    @v_args(meta=True)
    def set_false(self, meta: Any, c: list[Any]) -> A.Setting:
        return A.Setting(self.span(meta), str(c[0]), None, negated=True)

    @v_args(meta=True)
    def chain_target(self, meta: Any, c: list[Any]) -> A.Chain:
        return A.Chain(self.span(meta), c[0], c[1])

    @v_args(meta=True)
    def target_high(self, meta: Any, c: list[Any]) -> A.Target:
        return A.Target(self.span(meta), c[0], "high")

    @v_args(meta=True)
    def target_low(self, meta: Any, c: list[Any]) -> A.Target:
        return A.Target(self.span(meta), c[0], "low")

    @v_args(meta=True)
    def if_else(self, meta: Any, c: list[Any]) -> A.IfElse:
        return A.IfElse(self.span(meta), c[0], c[1], c[2])

    @v_args(meta=True)
    def or_(self, meta: Any, c: list[Any]) -> A.Binary:
        return A.Binary(self.span(meta), "or", c[0], c[1])

    @v_args(meta=True)
    def and_(self, meta: Any, c: list[Any]) -> A.Binary:
        return A.Binary(self.span(meta), "and", c[0], c[1])

    @v_args(meta=True)
    def not_(self, meta: Any, c: list[Any]) -> A.Unary:
        return A.Unary(self.span(meta), "not", c[0])

    @v_args(meta=True)
    def compare(self, meta: Any, c: list[Any]) -> A.Binary:
        return A.Binary(self.span(meta), c[1], c[0], c[2])

    @v_args(meta=True)
    def in_range(self, meta: Any, c: list[Any]) -> A.InRange:
        return A.InRange(self.span(meta), c[0], c[1])

    @v_args(meta=True)
    def is_choice(self, meta: Any, c: list[Any]) -> A.IsChoice:
        return A.IsChoice(self.span(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def is_none(self, meta: Any, c: list[Any]) -> A.IsNone:
        return A.IsNone(self.span(meta), c[0])

    @v_args(meta=True)
    def has_keyword(self, meta: Any, c: list[Any]) -> A.Has:
        return A.Has(self.span(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def each(self, meta: Any, c: list[Any]) -> A.Each:
        return A.Each(self.span(meta), c[0], c[1])

    @v_args(meta=True)
    def each_not(self, meta: Any, c: list[Any]) -> A.Each:
        return A.Each(self.span(meta), c[0], c[1], negate=True)

    @v_args(meta=True)
    def range(self, meta: Any, c: list[Any]) -> A.RangeExpr:
        return A.RangeExpr(self.span(meta), c[0], c[1])

    def _bin(op: str):  # type: ignore[misc]
        @v_args(meta=True)
        def method(self: "Builder", meta: Any, c: list[Any]) -> A.Binary:
            return A.Binary(self.span(meta), op, c[0], c[1])
        return method

    add = _bin("+")
    sub = _bin("-")
    mul = _bin("*")
    div = _bin("/")

    @v_args(meta=True)
    def neg(self, meta: Any, c: list[Any]) -> A.Expr:
        if isinstance(c[0], A.Int):
            return A.Int(self.span(meta), -c[0].value)
        return A.Unary(self.span(meta), "-", c[0])

    @v_args(meta=True)
    def attr(self, meta: Any, c: list[Any]) -> A.Attr:
        return A.Attr(self.span(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def call(self, meta: Any, c: list[Any]) -> A.Call:
        func: Token = c[0]
        args = [x for x in c[1:] if x is not None]
        pos = tuple(a for a in args if not isinstance(a, _Item))
        kw = tuple(a.data for a in args if isinstance(a, _Item))
        return A.Call(self.span(meta), str(func), self.tspan(func), pos, kw)

    @v_args(meta=True)
    def kwarg(self, meta: Any, c: list[Any]) -> _Item:
        return _Item("kwarg", self.span(meta), (str(c[0]), c[1]))

    @v_args(meta=True)
    def int(self, meta: Any, c: list[Any]) -> A.Int:
        return A.Int(self.span(meta), int(str(c[0])))

    @v_args(meta=True)
    def decimal(self, meta: Any, c: list[Any]) -> A.Decimal:
        return A.Decimal(self.span(meta), Fraction(str(c[0])), str(c[0]))

    @v_args(meta=True)
    def dice(self, meta: Any, c: list[Any]) -> A.Dice:
        s = str(c[0])
        count, sides = _dice_parts(s)
        return A.Dice(self.span(meta), count, sides, _die_key(s))

    @v_args(meta=True)
    def inches(self, meta: Any, c: list[Any]) -> A.Inches:
        return A.Inches(self.span(meta), Fraction(str(c[0])[:-1]))

    @v_args(meta=True)
    def label(self, meta: Any, c: list[Any]) -> A.Label:
        return A.Label(self.span(meta), unquote(str(c[0])))

    @v_args(meta=True)
    def name(self, meta: Any, c: list[Any]) -> A.Name:
        return A.Name(self.span(meta), str(c[0]))

    @v_args(meta=True)
    def profile_group(self, meta: Any, c: list[Any]) -> A.Group:
        return A.Group(self.span(meta), int(str(c[0])), str(c[1]))

    def _const(value: str):  # type: ignore[misc]
        @v_args(meta=True)
        def method(self: "Builder", meta: Any, c: list[Any]) -> A.Const:
            return A.Const(self.span(meta), value)
        return method

    never = _const("never")
    always = _const("always")
    none = _const("none")
    true = _const("true")
    false = _const("false")


def _dice_parts(s: str) -> tuple[int, int]:
    """``"2D6"`` → ``(2, 6)``; ``"d6"`` → ``(1, 6)``."""
    lower = s.lower()
    count_s, sides_s = lower.split("d", 1)
    return (int(count_s) if count_s else 1), int(sides_s)


def _die_key(s: str, keep_count: bool = False) -> str:
    """The canonical name of a die as written: ``d6``, ``D3`` (custom dice keep their case)."""
    count, sides = _dice_parts(s)
    letter = "D" if "D" in s else "d"
    body = f"{letter}{sides}"
    return f"{count}{body}" if keep_count and count != 1 else body


def build_file(tree: Tree, path: str) -> tuple[A.File, tuple[Diagnostic, ...]]:
    """Build the AST of one parsed file."""
    sink = Sink()
    try:
        items = Builder(path, sink).transform(tree)
    except VisitError as error:  # a bug or an unforeseen input: report, never crash
        orig = error.orig_exc
        meta = getattr(error.obj, "meta", None)
        line = getattr(meta, "line", 1) or 1
        col = getattr(meta, "column", 1) or 1
        sink.error("W900", f"cannot understand this part of the file ({type(orig).__name__}: {orig})",
                   Span(path, line, col, line, col + 1))
        return A.File(path, ()), sink.items
    headers = [i for i in items if isinstance(i, A.Header)]
    includes = tuple(i for i in items if isinstance(i, A.Include))
    for extra in headers[1:]:
        sink.error("W403", "a file has one ruleset header; this is a second one", extra.span,
                   related=[(headers[0].span, "the first header is here")])
    decls = tuple(i for i in items if isinstance(i, A.Decl) and not isinstance(i, (A.Header, A.Include)))
    decls = _number_prose(decls, path)
    return A.File(path, decls, headers[0] if headers else None, includes), sink.items


def build_expression(tree: Tree, path: str) -> tuple[A.Expr | None, tuple[Diagnostic, ...]]:
    """Build the AST of one expression (the input of ``warscribe eval``)."""
    sink = Sink()
    try:
        expr = Builder(path, sink).transform(tree)
    except VisitError as error:
        sink.error("W900", f"cannot understand this expression ({error.orig_exc})", Span(path, 1, 1, 1, 2))
        return None, sink.items
    return expr, sink.items


def _number_prose(decls: tuple[A.Decl, ...], path: str) -> tuple[A.Decl, ...]:
    """Give free-standing prose blocks a stable id from their enclosing declaration."""
    import dataclasses

    def visit(items: tuple[A.Decl, ...], prefix: str) -> tuple[A.Decl, ...]:
        out = []
        n = 0
        for d in items:
            if isinstance(d, A.ProseBlock):
                n += 1
                d = dataclasses.replace(d, id=f"{prefix}p{n}")
            elif isinstance(d, (A.Section, A.Rule)):
                d = dataclasses.replace(d, body=visit(d.body, f"{d.id}-"))
            elif isinstance(d, A.Extend):
                d = dataclasses.replace(d, body=visit(d.body, f"{d.id}-x"))
            elif isinstance(d, A.Replace) and isinstance(d.decl, (A.Section, A.Rule)):
                inner = dataclasses.replace(d.decl, body=visit(d.decl.body, f"{d.decl.id}-"))
                d = dataclasses.replace(d, decl=inner)
            out.append(d)
        return tuple(out)

    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return visit(decls, f"{stem}-")
