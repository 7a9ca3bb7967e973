"""The formatter's layout of one file: lines of pieces, then columns lined up, then text.

:class:`Layout` works line by line from the tokens (:mod:`compiler.syntax.spacing`):
phase 1 turns each physical line into pieces with their canonical gaps, re-indenting
statements by block level and keeping comments, blank lines and prose blocks; phase 2
lines up the columns the author lined up; phase 3 renders the text.

>>> from compiler.syntax.grammar import token_parser
>>> from compiler.syntax.spacing import tokens
>>> source = 'table t(x) "T":\\n      x == 1  -> 3+\\n      otherwise -> 4+\\n'
>>> print(Layout(source, tokens(token_parser().parse(source))).run(), end="")
table t(x) "T":
  x == 1    -> 3+
  otherwise -> 4+
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from compiler.syntax.spacing import Tok, align_kind, canonical_gap

INDENT = "  "
MAX_BLANK_LINES = 2


def _indent_width(text: str) -> int:
    """Width of a line's indentation as the parser counts it (a tab is 8)."""
    lead = text[: len(text) - len(text.lstrip(" \t"))]
    return lead.count(" ") + lead.count("\t") * 8


def _leading_spaces(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


@dataclass
class _Piece:
    text: str
    gap: int  # canonical spaces before it
    src_col: int  # 0-based column in the source
    kind: str | None = None  # what it may be lined up with
    padded: bool = False  # the source had two spaces or more before it
    column: int | None = None  # decided by lining up


@dataclass
class _Line:
    src: int  # the source line it comes from (0: none)
    indent: int = 0
    pieces: list[_Piece] = dataclasses.field(default_factory=list)
    verbatim: str | None = None  # a line kept as it is (inside prose; comments on their own)
    lead: str | None = None  # prose kept verbatim at the start of the line (its last line)
    prose: bool = False  # a line inside a prose block: kept, blank or not

    @property
    def is_code(self) -> bool:
        return self.verbatim is None and bool(self.pieces)

    def natural(self, k: int) -> int:
        """The column piece ``k`` starts at with canonical gaps (and the columns already lined up)."""
        col = len(self.lead) if self.lead is not None else self.indent
        for i, p in enumerate(self.pieces[:k + 1]):
            if i or self.lead is not None:
                col += p.gap
            if i == k:
                return col
            if p.column is not None:
                col = p.column
            col += len(p.text)
        return col

    def render(self) -> str:
        if self.verbatim is not None:
            return self.verbatim
        out = self.lead if self.lead is not None else " " * self.indent
        for i, p in enumerate(self.pieces):
            if i or self.lead is not None:
                out += " " * p.gap
            if p.column is not None and p.column > len(out):
                out += " " * (p.column - len(out))
            out += p.text
        return out.rstrip()


class Layout:
    """Works out the new layout of one file, line by line."""

    def __init__(self, text: str, tokens: list[Tok]) -> None:
        self.text = text
        self.tokens = tokens
        self.lines = text.split("\n")
        self.out: list[_Line] = []
        self._plan_levels()

    def raw(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    # -- block levels ------------------------------------------------------------

    def _plan_levels(self) -> None:
        """Which physical lines start a statement, at which block level (as the indenter sees them)."""
        self.starts: dict[int, tuple[int, int]] = {}  # line -> (level, original width)
        self.stack_at: dict[int, list[int]] = {}  # line -> the indentation stack there
        stack = [0]
        depth = 0
        prev: Tok | None = None
        for t in self.tokens:
            first_on_line = prev is None or t.line > prev.end_line
            if first_on_line and depth == 0 and not (prev is not None and self._continued(prev)):
                # The indenter never sees the indentation of the file's very first line.
                width = _indent_width(self.raw(t.line)) if t.line > 1 else 0
                if width > stack[-1]:
                    stack.append(width)
                else:
                    while len(stack) > 1 and width < stack[-1]:
                        stack.pop()
                self.starts[t.line] = (len(stack) - 1, width)
                self.stack_at[t.line] = list(stack)
            if t.type == "LPAR":
                depth += 1
            elif t.type == "RPAR":
                depth = max(0, depth - 1)
            prev = t
        self.start_lines = sorted(self.starts)

    def _continued(self, t: Tok) -> bool:
        """Does the physical line where ``t`` ends go on with a backslash?"""
        return self.raw(t.end_line)[t.end_column - 1:].strip() == "\\"

    def comment_level(self, number: int) -> int:
        """The block level of a comment on its own line: the nearest of the levels open around it."""
        width = _indent_width(self.raw(number))
        before = [n for n in self.start_lines if n < number]
        after = [n for n in self.start_lines if n > number]
        candidates: list[tuple[int, int, int]] = []  # (distance, 0 for the next statement's level, level)
        if after:
            level, w = self.starts[after[0]]
            candidates.append((abs(w - width), 0, level))
        stack = self.stack_at[before[-1]] if before else [0]
        candidates.extend((abs(w - width), 1, level) for level, w in enumerate(stack))
        return min(candidates)[2]

    # -- phase 1: lines of pieces ----------------------------------------------------

    def between(self, first: int, last: int, depth: int, shift: int) -> None:
        """Physical lines ``first``..``last`` that hold no token: blank lines and comments."""
        for number in range(first, last + 1):
            raw = self.raw(number)
            stripped = raw.strip()
            if not stripped:
                self.out.append(_Line(number, verbatim=""))
            elif stripped.startswith("#") and depth == 0:
                self.out.append(_Line(number, verbatim=INDENT * self.comment_level(number) + stripped))
            else:  # inside brackets, or a lone backslash: where it was, moved with its statement
                self.out.append(_Line(number, verbatim=" " * max(0, _indent_width(raw) + shift) + stripped))

    def build(self) -> None:
        line: _Line | None = None
        line_shift = 0  # new indentation - old indentation of the current line
        logical_shift = 0
        depth = 0
        prev: Tok | None = None
        for t in self.tokens:
            if prev is None or t.line > prev.end_line:
                if prev is not None:
                    assert line is not None
                    self._finish(line, prev)
                    self.between(prev.end_line + 1, t.line - 1, depth, logical_shift)
                else:
                    self.between(1, t.line - 1, 0, 0)
                old = _indent_width(self.raw(t.line))
                if t.line in self.starts:
                    new = len(INDENT) * self.starts[t.line][0]
                    logical_shift = new - old
                else:
                    new = max(0, old + logical_shift)
                line_shift = new - old
                line = _Line(t.line, new)
                self.out.append(line)
                piece = _Piece(t.value, 0, t.column - 1)
            else:
                assert line is not None
                gap = canonical_gap(prev, t)
                piece = _Piece(t.value, gap, t.column - 1, align_kind(prev, t), t.column - prev.end_column > gap)
            if t.end_line > t.line:  # a prose block over several lines
                assert line is not None
                line.pieces.append(dataclasses.replace(piece, text=t.value.split("\n", 1)[0].rstrip(),
                                                       kind=None))
                line, line_shift = self._prose(t, line_shift)
            else:
                assert line is not None
                line.pieces.append(piece)
            if t.type == "LPAR":
                depth += 1
            elif t.type == "RPAR":
                depth = max(0, depth - 1)
            prev = t
        if prev is not None:
            assert line is not None
            self._finish(line, prev)
            self.between(prev.end_line + 1, len(self.lines), 0, 0)
        else:
            self.between(1, len(self.lines), 0, 0)

    def _finish(self, line: _Line, last: Tok) -> None:
        """Put back the line's trailing comment (or continuation backslash)."""
        raw = self.raw(last.end_line)
        rest = raw[last.end_column - 1:]
        tail = rest.strip()
        if not tail:
            return
        gap = len(rest) - len(rest.lstrip())
        if tail == "\\":
            line.pieces.append(_Piece("\\", 1, last.end_column - 1 + gap))
            return
        line.pieces.append(_Piece(tail, 2, last.end_column - 1 + gap, "#", gap > 2))

    def _prose(self, t: Tok, line_shift: int) -> tuple[_Line, int]:
        """Lay out the rest of a prose block; return the line holding its closing quotes, and that line's shift."""
        inner = _untab(t.value).split("\n")[1:]
        last = inner[-1]  # ends with the closing quotes
        closing_alone = not last[:-3].strip()
        content = [s for s in inner[:-1] if s.strip()] + ([] if closing_alone else [last])
        shift = line_shift
        if shift < 0 and content:  # never cut into the text: move left only as far as every line can go
            shift = -min(-shift, min(_leading_spaces(s) for s in content))
        for n, s in enumerate(inner[:-1], t.line + 1):
            self.out.append(_Line(n, verbatim=_shift(s, shift) if s.strip() else "", prose=True))
        if closing_alone:  # only whitespace before the quotes: it does not count, put them in line
            shift = line_shift if line_shift >= 0 else -min(-line_shift, _leading_spaces(last))
        line = _Line(t.end_line, lead=_shift(last, shift))
        self.out.append(line)
        return line, shift

    # -- phase 2: columns the author lined up ----------------------------------------

    def align(self) -> None:
        """Line up what the author lined up.

        A *run* is a set of source lines, one after the other, that each have an alignable
        piece of one kind (the n-th ``->``, ``=``, trailing comment, profile or grid cell…).
        When the source padded any of them with extra spaces, the whole run is put in one
        column: the furthest any of them needs (gofmt's rule, applied where the author asked).
        """
        groups: list[list[tuple[_Line, int]]] = []
        padded: list[bool] = []
        open_runs: dict[tuple[str, int], int] = {}
        previous: _Line | None = None
        for line in self.out:
            if not line.is_code:
                previous, open_runs = None, {}
                continue
            adjacent = previous is not None and line.src == previous.src + 1
            counts: dict[str, int] = {}
            now_open: dict[tuple[str, int], int] = {}
            for k, p in enumerate(line.pieces):
                if p.kind is None:
                    continue
                key = (p.kind, counts.get(p.kind, 0))
                counts[p.kind] = key[1] + 1
                gid = open_runs.get(key) if adjacent else None
                if gid is None:
                    gid = len(groups)
                    groups.append([])
                    padded.append(False)
                groups[gid].append((line, k))
                padded[gid] = padded[gid] or p.padded
                now_open[key] = gid
            open_runs, previous = now_open, line
        todo = {gid for gid, members in enumerate(groups) if len(members) > 1 and padded[gid]}
        member_of = {(id(line), k): gid for gid in todo for line, k in groups[gid]}
        while todo:
            ready = [gid for gid in sorted(todo)
                     if all((id(line), i) not in member_of or member_of[(id(line), i)] not in todo
                            for line, k in groups[gid] for i in range(k))]
            if not ready:
                break  # runs that cross each other: leave them as they are
            for gid in ready:
                column = max(line.natural(k) for line, k in groups[gid])
                for line, k in groups[gid]:
                    line.pieces[k].column = column
                todo.discard(gid)

    # -- phase 3: text -----------------------------------------------------------------

    def run(self) -> str:
        self.build()
        self.align()
        out: list[str] = []
        blank = 0
        for line in self.out:
            text = line.render()
            if not text and not line.prose:
                if out:
                    blank += 1
                continue
            if blank:
                out.extend([""] * min(blank, MAX_BLANK_LINES))
                blank = 0
            out.append(text)
        return "\n".join(out) + "\n" if out else ""


def _untab(prose: str) -> str:
    """A prose block with the tabs of its indentation made spaces, when that leaves its text as it was."""
    from compiler.ast.build import prose_text

    if "\t" not in prose:
        return prose
    lines = prose.split("\n")
    spaced = "\n".join([lines[0]] + [_expand_lead(s) for s in lines[1:]])
    return spaced if prose_text(spaced) == prose_text(prose) else prose


def _expand_lead(line: str) -> str:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)].expandtabs(8) + body


def _shift(line: str, by: int) -> str:

    if by >= 0:
        return " " * by + line
    return line[-by:]
