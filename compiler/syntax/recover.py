"""Error recovery: a syntax error costs only the top-level declaration it is in.

When a file does not parse, it is cut at its top-level declarations (lines that start
at the left margin, outside a prose block) and each piece is parsed on its own, at its
own line numbers.  The pieces that parse make a partial tree; each piece that does not
gives one diagnostic.  The ids of the broken declarations are returned, so that the
checks can leave alone what refers to them (no cascade of "unknown name" errors), and
so is the id and title of a header that itself has the error, so that the ruleset is
still counted.

>>> tree, diags, recovered = parse_recovering('stat BS "BS" 1..6\\ntest hit(BS) = roll d6 >=\\nstat T "T" 1..6\\n', "x.rules")
>>> [str(c.data) for c in tree.children], [(d.code, d.span.line) for d in diags], recovered.broken
(['stat', 'stat'], [('W001', 2)], ('hit',))
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from lark import Token, Tree

from compiler import codes
from compiler.diagnostics import Diagnostic
from compiler.syntax.parse import parse_text

# Codes of the diagnostics that recovery can help with (not the limits on size and depth).
SYNTAX_CODES = frozenset(c.code for c in (codes.SYNTAX_ERROR, codes.UNEXPECTED_END, codes.BAD_INDENT, codes.NOT_UTF8,
                                          codes.UNREADABLE))

_DECL_ID = re.compile(r"[ \t]*(?:replace\s+)?(?:stat|keyword|status|term|situation|die|test|table|formula|modifier|"
                      r"ability|attack|unit|weapon|squad|army|game|example|property|claim|section|rule|assumption|"
                      r"open\s+question|designer\s+note|prose\s+only|extend|remove)\s+([A-Za-z_]\w*)")
_HEADER = re.compile(r'ruleset\s+([a-z0-9]+(?:-[a-z0-9]+)*)\s+"((?:[^"\\\n]|\\.)*)"')


@dataclass(frozen=True)
class Recovered:
    """What recovery learnt about the broken pieces."""

    broken: tuple[str, ...] = ()  # ids of the declarations that did not parse
    header: tuple[str, str, int] | None = None  # (id, title, line) of a header that did not parse


def top_level_pieces(text: str) -> list[tuple[int, int]]:
    """(first line, end line) of each top-level declaration, 0-based, end exclusive."""
    lines = text.split("\n")
    starts: list[int] = []
    in_prose = False
    for i, line in enumerate(lines):
        opens_prose = line.count('"""') % 2 == 1
        if not in_prose and line[:1] not in ("", " ", "\t", "#"):
            starts.append(i)
        if opens_prose:
            in_prose = not in_prose
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    ends = starts[1:] + [len(lines)]
    return list(zip(starts, ends))


def parse_recovering(text: str, path: str) -> tuple[Tree[Token] | None, tuple[Diagnostic, ...], Recovered]:
    """Parse a file; on a syntax error, parse it piece by piece (see the module's text)."""
    tree, diags = parse_text(text, path)
    if tree is not None or not diags or any(d.code not in SYNTAX_CODES for d in diags):
        return tree, diags, Recovered()
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    children: list[Tree[Token] | Token] = []
    found: list[Diagnostic] = []
    broken: list[str] = []
    header: tuple[str, str, int] | None = None
    for start, end in top_level_pieces(text):
        piece = "\n".join(lines[start:end])
        if not piece.strip():
            continue
        part, errors = parse_text("\n" * start + piece + "\n", path)
        if part is not None:
            children.extend(part.children)
            continue
        found.extend(errors)
        first = lines[start]
        head = _HEADER.match(first)
        if head is not None:
            header = (head.group(1), head.group(2), start + 1)
        # Every declaration the piece held is lost, a section's contents too.
        broken.extend(m.group(1) for m in (_DECL_ID.match(line) for line in lines[start:end]) if m is not None)
    if not found:  # the pieces parse alone but not together (indentation across them): no recovery
        return None, diags, Recovered()
    return Tree("start", children), tuple(found), Recovered(tuple(broken), header)
