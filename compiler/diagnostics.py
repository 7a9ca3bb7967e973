"""Diagnostics: every problem a user can cause, as data first and text second.

A :class:`Diagnostic` carries a code, a severity, a message, the :class:`Span`
it points at, an optional hint and related spans.  :func:`render` turns one
into compiler-style text with the source line and a caret underline::

    rules/x/core.rules:12:7: error[W101]: unknown name 'Sv' — did you mean 'SV'?
       |
    12 |   roll d6 >= Sv + AP
       |              ^^
       = hint: names are case-sensitive

Checks never raise: they add diagnostics to a :class:`Sink`; only the driver
decides whether the run failed.  Every code is registered, with its severity,
in :mod:`compiler.codes`; a diagnostic with an unregistered code is a bug and
fails loudly when it is created.

"""
from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from compiler import codes
from compiler.terminal import shown
from compiler.codes import Code, Severity

__all__ = ["Diagnostic", "Severity", "Sink", "Span", "closest", "did_you_mean", "render", "suggestion", "to_json"]


class UsageError(Exception):
    """A problem with how warscribe was called (exit status 2), not with the rules."""


def display_path(path: Path) -> str:
    """A path as a user should see it: relative to the working directory when inside it.

    >>> display_path(Path("rules/x.rules")), display_path(Path("/"))
    ('rules/x.rules', '/')
    """
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A region of a source file: 1-based lines and columns, end exclusive."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    @classmethod
    def point(cls, file: str, line: int = 1, column: int = 1) -> Span:
        """A one-character span: a whole file (line 1) or one place in it."""
        return cls(file, line, column, line, column + 1)

    def to_json(self) -> dict[str, object]:
        """The span as a JSON object (the key order is part of ``--format json``)."""
        return {"file": self.file, "line": self.line, "column": self.column,
                "end_line": self.end_line, "end_column": self.end_column}


@dataclass(frozen=True, slots=True)
class Fix:
    """A certain fix of a diagnostic, as an edit of the source text: within ``span``, the text
    ``old`` (the whole span when it is None) becomes ``new``.  A fix whose ``old`` is not found
    where it was is not applied (the file changed): ``warscribe check --fix`` and the language
    server's code actions apply it."""

    span: Span
    new: str
    old: str | None = None
    title: str = ""

    def to_json(self) -> dict[str, object]:
        return {"span": self.span.to_json(), "old": self.old, "new": self.new, "title": self.title}


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem found in a user's rules.

    ``code`` must be registered in :mod:`compiler.codes` with this severity; anything else
    raises :class:`~compiler.codes.UnregisteredCode` here, where the bug is.
    """

    code: str
    severity: Severity
    message: str
    span: Span
    hint: str | None = None
    related: tuple[tuple[Span, str], ...] = ()
    fixes: tuple[Fix, ...] = ()  # certain fixes, applied by ``warscribe check --fix``

    def __post_init__(self) -> None:
        codes.require(self.code, self.severity)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple[object, ...]:
        """Where the diagnostic points, then its code and message: the order users read them in."""
        return (self.span.file, self.span.line, self.span.column, self.code, self.message)

    def to_json(self) -> dict[str, object]:
        """The diagnostic as a JSON object (the key order is part of ``--format json``)."""
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "span": self.span.to_json(),
            "hint": self.hint,
            "related": [{"span": s.to_json(), "message": m} for s, m in self.related],
            "fixes": [f.to_json() for f in self.fixes],
        }


class Sink:
    """Collects diagnostics from every stage; the driver decides what fails."""

    def __init__(self) -> None:
        self._items: list[Diagnostic] = []

    def add(self, diagnostic: Diagnostic) -> None:
        """Collect one diagnostic."""
        self._items.append(diagnostic)

    def error(self, code: Code | str, message: str, span: Span, hint: str | None = None,
              related: Sequence[tuple[Span, str]] = (), fixes: Sequence[Fix] = ()) -> None:
        """Collect an error: ``code`` is a :class:`~compiler.codes.Code` (or its name, ``"W201"``)."""
        self.add(Diagnostic(str(code), Severity.ERROR, message, span, hint, tuple(related), tuple(fixes)))

    def warning(self, code: Code | str, message: str, span: Span, hint: str | None = None,
                related: Sequence[tuple[Span, str]] = (), fixes: Sequence[Fix] = ()) -> None:
        """Collect a warning."""
        self.add(Diagnostic(str(code), Severity.WARNING, message, span, hint, tuple(related), tuple(fixes)))

    def note(self, code: Code | str, message: str, span: Span, hint: str | None = None,
             related: Sequence[tuple[Span, str]] = ()) -> None:
        """Collect a note."""
        self.add(Diagnostic(str(code), Severity.NOTE, message, span, hint, tuple(related)))

    def extend(self, items: Iterable[Diagnostic]) -> None:
        """Collect diagnostics another stage returned."""
        self._items.extend(items)

    @property
    def items(self) -> tuple[Diagnostic, ...]:
        """Diagnostics sorted by place, with exact duplicates removed."""
        seen: set[Diagnostic] = set()
        out: list[Diagnostic] = []
        for d in sorted(self._items, key=Diagnostic.sort_key):
            if d not in seen:
                seen.add(d)
                out.append(d)
        return tuple(out)

    @property
    def has_errors(self) -> bool:
        """Whether any error was collected (warnings and notes do not count)."""
        return any(d.is_error for d in self._items)


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate to a misspelt name, if any is close enough.

    >>> did_you_mean("Sv", ["SV", "BS", "T"])
    'SV'
    >>> did_you_mean("zzz", ["SV"]) is None
    True
    """
    pool = sorted(set(candidates))
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered and lowered[name.lower()] != name:
        return lowered[name.lower()]
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if close:
        return close[0]
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def only_match(name: str, candidates: Iterable[str]) -> str | None:
    """The one candidate ``name`` is a misspelling of, when it is certain: the same name in
    other letter case, or the only candidate close to it; else None.

    >>> only_match("Sv", ["SV", "BS", "T"]), only_match("hitt", ["hit", "hits"]), only_match("hit", ["highest"])
    ('SV', None, None)
    """
    pool = sorted(set(candidates))
    same_case = [c for c in pool if c.lower() == name.lower() and c != name]
    if same_case:
        return same_case[0] if len(same_case) == 1 else None
    close = difflib.get_close_matches(name, pool, n=2, cutoff=0.6)
    if len(close) != 1:
        return None
    # One close candidate, and very close (one letter off in a word of five, say).
    return close[0] if difflib.SequenceMatcher(None, name, close[0]).ratio() >= 0.75 else None


def closest(name: str, candidates: Iterable[str], prefer: Iterable[str] = ()) -> list[str]:
    """The candidates a misspelt ``name`` may have meant, the likeliest first.

    Those in ``prefer`` (the names of the kind wanted: a weapon for ``replace weapon …``) come
    first; then those a few edits away (Levenshtein distance, letter case aside), then those
    that hold the name as a word or at an end (``cover`` in ``target_cover``), then those
    :func:`did_you_mean` finds alike.

    >>> closest("bolter", ["heavy_bolter", "boltgun", "lascannon"])
    ['boltgun', 'heavy_bolter']
    >>> closest("cover", ["target_cover", "charged"]), closest("SV", ["Sv", "BS"]), closest("zzz", ["SV"])
    (['target_cover'], ['Sv'], [])
    """
    from rapidfuzz.distance import Levenshtein

    wanted = set(prefer)
    low = name.lower()
    reach = max(1, len(low) // 3 + 1)
    pool = sorted(set(candidates))
    alike = set(difflib.get_close_matches(low, [c.lower() for c in pool], n=3, cutoff=0.6))
    scored = []
    for c in pool:
        cl = c.lower()
        distance = Levenshtein.distance(low, cl)
        if distance <= reach:
            tier = 0
        elif len(low) >= 3 and (low in _WORDS.split(cl) or cl.startswith(low) or cl.endswith(low)):
            tier = 1
        elif cl in alike:
            tier = 2
        else:
            continue
        scored.append((c not in wanted, tier, distance, c))
    return [c for *_, c in sorted(scored)]


def suggestion(name: str, candidates: Iterable[str], plural: str | None = None, prefer: Iterable[str] = (),
               listing: int = 12) -> str | None:
    """A hint for a wrong name: the closest candidate, and the whole list when it is short
    (``plural`` names what they are: "the situations are: …").

    >>> suggestion("cover", ["target_cover", "charged"], "situations")
    "did you mean 'target_cover'? the situations are: charged, target_cover"
    """
    pool = sorted(set(candidates))
    close = closest(name, pool, prefer)
    parts = [f"did you mean '{close[0]}'?"] if close else []
    if plural and 0 < len(pool) <= listing and pool != close[:1]:  # the list, unless it is the one suggested
        parts.append(f"the {plural} are: {', '.join(pool)}")
    return " ".join(parts) or None


_WORDS = re.compile(r"[_\s\-]+")


def render(diagnostic: Diagnostic, sources: Mapping[str, str], color: bool = False) -> str:
    r"""Render a diagnostic like a compiler: location, message, source line, caret, hint.

    >>> sink = Sink()
    >>> sink.error(codes.UNKNOWN_NAME, "unknown name 'Sv'", Span("x.rules", 2, 13, 2, 15), "did you mean 'SV'?")
    >>> print(render(sink.items[0], {"x.rules": 'stat SV "Save" target\nformula f = Sv + 1\n'}))
    x.rules:2:13: error[W101]: unknown name 'Sv'
       |
     2 | formula f = Sv + 1
       |             ^^
       = hint: did you mean 'SV'?
    """
    d = diagnostic
    sev = d.severity.value
    where, message = shown(str(d.span), lines=False), shown(d.message)  # author text: shown, never obeyed
    if color:
        tint = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}[sev]
        head = f"\x1b[1m{where}:\x1b[0m {tint}{sev}[{d.code}]\x1b[0m\x1b[1m: {message}\x1b[0m"
    else:
        head = f"{where}: {sev}[{d.code}]: {message}"
    lines = [head]
    lines.extend(_excerpt(d.span, sources))
    for span, note in d.related:
        lines.append(f"  note: {shown(str(span), lines=False)}: {shown(note)}")
        lines.extend(_excerpt(span, sources))
    if d.hint:
        lines.append(f"   = hint: {shown(d.hint)}")
    return "\n".join(lines)


def _excerpt(span: Span, sources: Mapping[str, str]) -> list[str]:
    text = sources.get(span.file)
    if text is None or span.line < 1:
        return []
    source_lines = text.splitlines()
    if span.line > len(source_lines):
        line_text = ""
    else:
        line_text = source_lines[span.line - 1].expandtabs(8)
    width = len(str(span.line))
    start = max(span.column, 1)
    if span.end_line == span.line and span.end_column > span.column:
        length = span.end_column - span.column
    else:
        length = max(len(line_text) - start + 1, 1)
    length = max(1, min(length, max(len(line_text) - start + 1, 1)))
    pad = " " * width
    # A control character in the line is shown escaped; the caret stays under the span.
    before, inside = shown(line_text[:start - 1], lines=False), shown(line_text[start - 1:start - 1 + length], lines=False)
    return [
        f" {pad} |",
        f" {span.line} | {before}{inside}{shown(line_text[start - 1 + length:], lines=False)}",
        f" {pad} | {' ' * len(before)}{'^' * max(1, len(inside))}",
    ]


def to_json(diagnostics: Sequence[Diagnostic]) -> str:
    """All diagnostics as a JSON document (stable key order)."""
    counts = {s.value: sum(1 for d in diagnostics if d.severity is s) for s in Severity}
    return json.dumps({"diagnostics": [d.to_json() for d in diagnostics],
                       "summary": counts}, indent=2, ensure_ascii=False)
