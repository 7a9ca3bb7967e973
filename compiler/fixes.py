"""Certain fixes, applied to the author's text by spans: comments and layout stay as written.

A diagnostic may carry :class:`~compiler.diagnostics.Fix` es (``W412``: ``role wounds`` added
to the wounds stat; ``W413``: ``roll d6,`` before ``ignored on``; ``W101``: a name replaced by
the only one it is close to).  :func:`edits` turns them into edits of one file's text — the
text a fix expects must be found where the span says, once, or the fix is left out — and
:func:`apply` makes them.  ``warscribe check --fix`` and the language server's code actions
both use them.

>>> from compiler.diagnostics import Diagnostic, Fix, Severity, Span
>>> text = "ability fnp \\"FNP\\":\\n  on each damage: ignored on 5+  # keep me\\n"
>>> span = Span("x.rules", 2, 3, 2, 33)
>>> d = Diagnostic("W413", Severity.ERROR, "say which die this rolls", span,
...                fixes=(Fix(span, "damage: roll d6, ignored", "damage: ignored"),))
>>> print(apply(text, edits(text, [d])), end="")
ability fnp "FNP":
  on each damage: roll d6, ignored on 5+  # keep me
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from compiler.diagnostics import Diagnostic, Fix


@dataclass(frozen=True, slots=True)
class Edit:
    """Characters ``start``..``end`` of a file's text become ``new``, for ``fix`` of ``diagnostic``."""

    start: int
    end: int
    new: str
    fix: Fix
    diagnostic: Diagnostic

    @property
    def line(self) -> int:
        return self.fix.span.line


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _offset(starts: list[int], line: int, column: int) -> int | None:
    if not 1 <= line <= len(starts) or column < 1:
        return None
    return starts[line - 1] + column - 1


_WORD = re.compile(r"\w")


def _edit(text: str, starts: list[int], fix: Fix, diagnostic: Diagnostic) -> Edit | None:
    """The edit ``fix`` makes in ``text``, or None when what it expects is not there once."""
    span = fix.span
    start, end = _offset(starts, span.line, span.column), _offset(starts, span.end_line, span.end_column)
    if start is None or end is None or not 0 <= start <= end <= len(text):
        return None
    if fix.old is None:
        return Edit(start, end, fix.new, fix, diagnostic)
    segment = text[start:end]
    old = re.escape(fix.old)
    if fix.old and _WORD.match(fix.old[0]):
        old = r"(?<!\w)" + old
    if fix.old and _WORD.match(fix.old[-1]):
        old = old + r"(?!\w)"
    found = [m.start() for m in re.finditer(old, segment)]
    if len(found) != 1:  # not there, or not only there: not certain
        return None
    return Edit(start + found[0], start + found[0] + len(fix.old), fix.new, fix, diagnostic)


def edits(text: str, diagnostics: Iterable[Diagnostic], file: str | None = None) -> list[Edit]:
    """The edits the diagnostics' fixes make in ``text``, the text of ``file`` (of the fixes in
    it; every fix when None), in order; the same edit asked twice is made once, and of two that
    overlap the first is kept."""
    starts = _line_starts(text)
    found: dict[tuple[int, int, str], Edit] = {}
    for d in diagnostics:
        for fix in d.fixes:
            if file is not None and fix.span.file != file:
                continue
            e = _edit(text, starts, fix, d)
            if e is not None:
                found.setdefault((e.start, e.end, e.new), e)
    kept: list[Edit] = []
    for e in sorted(found.values(), key=lambda e: (e.start, e.end)):
        if kept and (e.start < kept[-1].end or e.start == kept[-1].start):
            continue
        kept.append(e)
    return kept


def apply(text: str, todo: list[Edit]) -> str:
    """``text`` with the edits made (they do not overlap)."""
    for e in sorted(todo, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.new + text[e.end:]
    return text


def position(text: str, offset: int) -> tuple[int, int]:
    """The 0-based line and column of character ``offset`` of ``text`` (an editor's position)."""
    starts = _line_starts(text)
    line = max(i for i, s in enumerate(starts) if s <= offset)
    return line, offset - starts[line]


def shown(text: str, e: Edit) -> tuple[str, str]:
    """The line the edit is on, before and after it (for printing the change)."""
    starts = _line_starts(text)
    line = e.fix.span.line
    begin = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    before = text[begin:end].rstrip("\r\n")
    after = (text[begin:e.start] + e.new + text[e.end:end]).rstrip("\r\n")
    return before, after
