"""``warscribe fmt``: rewrite ``.rules`` files in the canonical layout, keeping every comment.

The formatter never changes what the rules say: it changes only whitespace.

- Blocks are indented two spaces per level; a comment on its own line takes the
  indentation of the block it sits in.
- Between tokens: one space, none inside brackets, before ``,`` ``:`` ``)``, around
  ``.`` and ``..`` (``1..10``, ``shooter.BS``), after a sign (``-1``), before a
  target's ``+``/``-`` (``4+``), between a name and its ``(`` (``hit(4)``) and
  in a fraction (``25/18``).
  Two spaces between a profile's stats (``WS 4  BS 4``).
- What the author lined up stays lined up: ``->`` in table rows, ``=`` in attack
  steps and expectations, profile and grid columns, titles, trailing comments.
  Where consecutive lines have such a piece and the source padded any of them
  with extra spaces, all of them are put in one column, as far right as the
  longest needs (and no further); unpadded pieces get the plain spacing.
- Prose blocks are kept byte for byte; only their indentation moves with their
  block.  Trailing spaces go (except inside prose), runs of blank lines shrink
  to two, the file ends with one newline.

Every result is checked before it is returned: the formatted text must parse
to the same declarations (spans aside) as the original, or :class:`FormatError`
is raised and nothing is written.

>>> print(format_text('stat BS "Ballistic Skill" 1 .. 10:"Aim." # BS\\ntable t(x:1..6)"T":\\n    x>=4 -> 3+\\n    otherwise->4 +\\n'), end="")
stat BS "Ballistic Skill" 1..10: "Aim."  # BS
table t(x: 1..6) "T":
  x >= 4 -> 3+
  otherwise -> 4+
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from lark import Lark, Token, Tree

from compiler.diagnostics import Diagnostic, Severity, Span

INDENT = "  "
MAX_BLANK_LINES = 2

# Tokens that carry no text of their own (the indentation post-lexer's).
_LAYOUT = {"_NL", "_INDENT", "_DEDENT"}
# A sign directly before its number: no space after it.
_UNARY_PARENTS = {"neg", "signed_int", "sign"}
# A target's or a stat value's trailing + / -: no space before it.
_POSTFIX_PARENTS = {"v_high", "v_low", "target_high", "target_low", "crit_from"}
# A "(" that opens the arguments of a call or the parameters of a declaration.
_CALL_PARENS = {"call", "params", "ability_use"}
# Lines whose columns authors line up.
_TABULAR = {"stat_line", "grid_header", "grid_row"}


class FormatError(Exception):
    """The text cannot be formatted: it does not parse (or, a bug, formatting would change it)."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "cannot format")
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class Tok:
    """A token with what the formatter needs to know about it."""

    type: str
    value: str
    line: int
    column: int  # 1-based
    end_line: int
    end_column: int  # 1-based, exclusive
    parent: str  # the rule the token belongs to
    ancestors: frozenset[str]
    tight: bool = False  # ".." between two single values (1..10), "/" between two numbers (25/18)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    """The language's parser, keeping every token (brackets, keywords, signs) in the tree."""
    from compiler.syntax.parse import RulesIndenter, grammar_text

    return Lark(grammar_text(), parser="lalr", lexer="contextual", postlex=RulesIndenter(),
                propagate_positions=True, maybe_placeholders=True, start=["start"],
                keep_all_tokens=True, cache=True)


def _tokens(tree: Tree) -> list[Tok]:
    """Every token of the tree, in source order, with its parent rule (iteratively: trees can be deep)."""
    out: list[Tok] = []
    stack: list[tuple[Any, str, frozenset[str], bool]] = [(tree, "start", frozenset(), False)]
    while stack:
        node, parent, ancestors, tight = stack.pop()
        if isinstance(node, Tree):
            here = ancestors | {node.data}
            tight_here = (node.data == "range" and _simple_range(node)) or (node.data == "div" and _fraction(node))
            for child in reversed(node.children):
                if child is not None:
                    stack.append((child, str(node.data), here, tight_here))
        elif isinstance(node, Token) and node.type not in _LAYOUT:
            out.append(Tok(node.type, str(node), node.line or 0, node.column or 0, node.end_line or 0,
                           node.end_column or 0, parent, ancestors, tight and str(node) in ("..", "/")))
    out.sort(key=lambda t: (t.line, t.column))
    return out


def _simple_range(node: Tree) -> bool:
    """Is this range written between two single values (``1..10``, ``-2..3``, ``lo..hi``)?"""
    ends = [c for c in node.children if not (isinstance(c, Token) and str(c) == "..")]

    def single(e: Any) -> bool:
        if isinstance(e, Token):
            return True
        if isinstance(e, Tree) and e.data in ("int", "name", "signed_int", "neg", "decimal", "inches"):
            return all(single(c) for c in e.children if c is not None) and \
                sum(1 for c in e.children if isinstance(c, Tree)) <= 1
        return False
    return len(ends) == 2 and all(single(e) for e in ends)


def _fraction(node: Tree) -> bool:
    """Is this division a fraction written with two whole numbers (``25/18``)?"""
    parts = [c for c in node.children if c is not None]
    return len(parts) == 3 and all(isinstance(p, Tree) and p.data == "int" for p in (parts[0], parts[2]))


# ---------------------------------------------------------------------------
# Spacing between two tokens on one line
# ---------------------------------------------------------------------------


def _is_unary(t: Tok) -> bool:
    return t.value in ("-", "+") and t.parent in _UNARY_PARENTS


def _is_postfix(t: Tok) -> bool:
    return t.value in ("-", "+") and t.parent in _POSTFIX_PARENTS


def canonical_gap(a: Tok, b: Tok) -> int:
    """Spaces between ``a`` and ``b`` in the canonical layout: 0, 1, or 2 between a profile's stats."""
    if b.value in (",", ")", ":") or a.value == "(":
        return 0
    if a.value == "." or b.value == ".":
        return 0
    if _is_unary(a) or _is_postfix(b):
        return 0
    if b.value in ("+", "-") and b.parent == "sign" and "v_dice" in b.ancestors:
        return 0  # D3+1 on a profile line
    if b.value == "(" and b.parent in _CALL_PARENS:
        return 0
    if a.tight or b.tight:
        return 0
    if b.parent == "stat_pair" and b.type == "NAME" and "stat_pair" in a.ancestors:
        return 2  # WS 4  BS 4  S 4: two spaces between a profile's stats
    return 1


def align_kind(a: Tok, b: Tok) -> str | None:
    """What ``b`` may be lined up with on the lines around it (None: it keeps its canonical gap)."""
    if a.value in (",", "(", ".", "=", "->") or _is_unary(a) or canonical_gap(a, b) == 0:
        return None
    if b.value == "->":
        return "->"
    if b.value == "=" or b.parent == "expect_op":
        return "="
    if b.type == "PLUSMINUS":
        return "±"
    if b.ancestors & _TABULAR:
        return "cell"
    if b.type == "STRING" and b.parent != "label":
        return "title"
    return None


# ---------------------------------------------------------------------------
# The formatter: lines of pieces, then columns lined up, then text
# ---------------------------------------------------------------------------


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


class _Layout:
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


def _parse_for_format(text: str, path: str) -> tuple[Tree, Any]:
    from compiler.ast.build import build_file
    from compiler.syntax.parse import parse_text

    tree, diags = parse_text(text, path)
    if tree is None:
        raise FormatError(diags)
    file, diags = build_file(tree, path)
    errors = tuple(d for d in diags if d.code == "W900")
    if errors:
        raise FormatError(errors)
    return tree, file


def format_text(text: str, path: str = "<text>") -> str:
    """The canonical layout of one file's text.  Raises :class:`FormatError` when it does not parse."""
    _, before = _parse_for_format(text, path)
    crlf = "\r\n" in text and text.count("\r\n") * 2 >= text.count("\n")  # mostly Windows line endings
    source = text.replace("\r\n", "\n")
    source = source if source.endswith("\n") else source + "\n"
    tree = _parser().parse(source, start="start")
    result = _Layout(source, _tokens(tree)).run()
    try:
        _, after = _parse_for_format(result, path)
    except FormatError as err:
        raise FormatError((_bug(path, f"the formatted text does not parse: {err}"),)) from None
    if structure(before) != structure(after):
        raise FormatError((_bug(path, "formatting would change what the rules say"),))
    return result.replace("\n", "\r\n") if crlf else result


def _bug(path: str, message: str) -> Diagnostic:
    return Diagnostic("W910", Severity.ERROR, f"cannot format this file: {message}", Span.point(path),
                      "this is a bug in warscribe fmt; the file is left as it was")


def structure(node: Any) -> Any:
    """What a parsed file says, without where it says it: the AST with every span and position dropped."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(
            (f.name, structure(getattr(node, f.name))) for f in dataclasses.fields(node)
            if f.name not in ("span", "path", "line0", "col0", "indent") and not f.name.endswith("_span")
            and not f.name.endswith("_spans"))
    if isinstance(node, (list, tuple)):
        return tuple(structure(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((k, structure(v)) for k, v in node.items()))
    return node


# ---------------------------------------------------------------------------
# Files and folders
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FileResult:
    path: Path
    changed: bool
    error: FormatError | None = None
    before: str = ""
    after: str = ""


def rules_files(paths: Iterable[str]) -> Iterator[Path]:
    """The ``.rules`` files named by ``paths`` (files, or folders searched recursively), sorted, once each.

    Links that lead out of a folder being searched are not followed.
    """
    from compiler.model.load import UsageError
    from compiler.safepaths import is_inside

    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError(f"no such file or folder: {raw}")
        if p.is_file():
            if p.suffix != ".rules":
                raise UsageError(f"not a .rules file: {raw}")
            found = [p]
        else:
            found = sorted(f for f in p.rglob("*.rules")
                           if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
                           and is_inside(f, p))
        for f in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                yield f


def format_file(path: Path, write: bool = True) -> FileResult:
    """Format one file; write it back (atomically) when it changed and ``write`` is set."""
    from compiler.atomic import write_atomic
    from compiler.model.load import display_path

    shown = display_path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return FileResult(path, False, FormatError((Diagnostic("W005", Severity.ERROR, "this file is not UTF-8 text",
                                                               Span.point(shown), "save it as UTF-8"),)))
    except OSError as e:
        return FileResult(path, False, FormatError((Diagnostic("W006", Severity.ERROR,
                                                               f"cannot read this file: {e.strerror}",
                                                               Span.point(shown)),)))
    try:
        result = format_text(text, shown)
    except FormatError as err:
        return FileResult(path, False, err, text, text)
    changed = result != text
    if changed and write:
        write_atomic(path, result)
    return FileResult(path, changed, None, text, result)
