"""A semantic diff and its impact as text, Markdown and JSON.

The data comes from :mod:`compiler.review.diff`; these functions only present it.

* :func:`diff_text` — for a terminal (``warscribe diff``), coloured when asked;
* :func:`diff_markdown` — for a pull-request comment or a "Changes" page;
* :func:`diff_json` — for tools; the shape is documented in the README
  ("Reviewing changes") and in ``warscribe diff --help``::

    {"old": {"id", "version", "title", "label"}, "new": {…},
     "summary": {"added", "removed", "changed", "moved", "identical"},
     "changes": [{"id", "kind", "title", "change", "section", "moved_from", "indirect",
                  "details": {"fields": [{"field", "old", "new"}],
                              "stats": [{"stat", "old", "new"}],
                              "cells": [{"at": {param: value}, "old": {"result", "p", "mean"} | null, "new": …}],
                              "prose": [{"where", "old", "new", "diff": [unified-diff lines]}]}}],
     "impact": {"examples": [{"id", "title", "changed",
                              "values": [{"subject", "old", "new", "old_exact", "new_exact", "changed",
                                         "expected", "old_holds", "new_holds"}]}],
                "matchups": [{"expression", "label", "step", "old", "new", "old_float", "new_float",
                              "change", "change_text", "old_error", "new_error", "explicit", "changed",
                              "sources"}]} | null}
"""
from __future__ import annotations

import html
import re
from fractions import Fraction
from typing import Any

from compiler.review.diff import (ADDED, CHANGED, MOVED, REMOVED, Cell, Change, Impact, MatchupImpact, RulesetDiff, Side,
                   percent)
from compiler.terminal import shown

# How many cells and example values the text form lists before "… and N more".
TEXT_CELL_LIMIT = 24

_MARK = {ADDED: "+", REMOVED: "-", CHANGED: "~", MOVED: ">"}
_ANSI = {"red": "31", "green": "32", "yellow": "33", "cyan": "36", "bold": "1", "dim": "2"}


def _paint(text: str, style: str, color: bool) -> str:
    if not color or not text:
        return text
    return f"\x1b[{_ANSI[style]}m{text}\x1b[0m"


def _frac(v: Fraction | float | None) -> str | None:
    if v is None:
        return None
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return repr(float(v))


def _side_text(s: Side) -> str:
    return f"{s.id} {s.version or '(no version)'}"


def _heading(c: Change) -> str:
    title = f' "{c.title}"' if c.title else ""
    return f"{c.kind} {c.id}{title}"


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------


def diff_text(diff: RulesetDiff, impact: Impact | None = None, *, color: bool = False,
              cell_limit: int = TEXT_CELL_LIMIT) -> list[str]:
    """The diff for a terminal, one line per item: ``~`` changed, ``+`` added, ``-`` removed, ``>`` moved.

    Author text (titles, source lines, results) is :func:`~compiler.terminal.shown`: its control
    characters escaped, never obeyed by the terminal, the colours being the report's own."""
    def p(text: str, style: str) -> str:
        return _paint(shown(text), style, color)
    out = [p(f"{_side_text(diff.old)} ({diff.old.label}) → {_side_text(diff.new)} ({diff.new.label})", "bold")]
    counts = diff.counts()
    if diff.empty:
        out.append("no differences in the rules")
    else:
        out.append(", ".join(f"{n} {k}" for k, n in counts.items() if n) or "the header changed")
    for c in diff.changes:
        out.append("")
        style = {ADDED: "green", REMOVED: "red", CHANGED: "yellow", MOVED: "cyan"}[c.change]
        where = ""
        if c.moved_from is not None or c.change == MOVED:
            where = shown(f"  (moved from {c.moved_from or 'the top level'} to {c.section or 'the top level'})")
        elif c.section and c.change in (ADDED, REMOVED):
            where = shown(f"  (in {c.section})")
        out.append(p(f"{_MARK[c.change]} {_heading(c)}", style) + where)
        if c.indirect:
            out.append("    (its text is the same; what it uses changed)")
        for f in c.fields:
            if f.multiline:
                out.append(f"    {f.field}:")
                for line in f.lines():
                    style = "red" if line.startswith("-") else "green" if line.startswith("+") else "dim"
                    out.append("      " + p(line, style))
            else:
                out.append(f"    {f.field}: {p(f.old if f.old is not None else '(none)', 'red')} → "
                           f"{p(f.new if f.new is not None else '(none)', 'green')}")
        for s in c.stats:
            out.append(f"    {s.stat}: {p(s.old or '(none)', 'red')} → {p(s.new or '(none)', 'green')}")
        if c.cells:
            out.append(f"    cells ({len(c.cells)} changed):")
            for cell in c.cells[:cell_limit]:
                out.append(f"      {shown(cell.where())}: {p(_cell(cell.old), 'red')} → {p(_cell(cell.new), 'green')}")
            if len(c.cells) > cell_limit:
                out.append(f"      … and {len(c.cells) - cell_limit} more (--json lists them all)")
        for pr in c.prose:
            out.append(shown(f"    {'text' if not pr.where else pr.where + ' text'}:"))
            for line in pr.unified():
                style = "cyan" if line.startswith("@@") else "red" if line.startswith("-") else \
                    "green" if line.startswith("+") else "dim"
                out.append("      " + p(line, style))
    if impact is not None:
        out.extend(_impact_text(impact, p))
    return out


def _cell(c: Cell | None) -> str:
    return "(none)" if c is None else c.text()


def _impact_text(impact: Impact, p: Any) -> list[str]:
    out: list[str] = []
    examples = list(impact.examples)
    out.append("")
    out.append(p("Impact on the examples", "bold"))
    if not examples:
        out.append("  no example's result changed")
    for e in examples:
        out.append(shown(f"  {e.id} \"{e.title}\""))
        for v in e.values:
            if not v.changed:
                continue
            fails = f"  (expects {v.expected}: it now fails)" if v.new_holds is False and v.old_holds else ""
            out.append(f"    {shown(v.subject)}: {p(v.old if v.old is not None else '(not in the old version)', 'red')}"
                       f" → {p(v.new if v.new is not None else '(not in the new version)', 'green')}"
                       + p(fails, "red"))
    out.append("")
    out.append(p("Impact on the matchups (mean of the last step of each attack)", "bold"))
    if not impact.matchups:
        out.append("  no matchup changed")
    for m in impact.matchups:
        out.append(shown(f"  {m.label}: {_matchup_summary(m)}"))
    return out


def _matchup_summary(m: MatchupImpact) -> str:
    text = m.summary()
    if m.old_error:
        text += f"  (old: {m.old_error})"
    if m.new_error:
        text += f"  (new: {m.new_error})"
    return text


# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------


# Characters that start Markdown's inline constructs: links and images (both need `[`), emphasis,
# code, strikethrough, table cells (HTML is escaped as HTML).
_MD_PUNCTUATION = re.compile(r"[\\`*_\[\]~|]")
# What a forge turns into a notification, a cross-reference or a link by itself: @mentions,
# #123 and owner/repo#123 references, bare URLs and www. addresses (GitHub's autolinks).
_FORGE_TRIGGERS = re.compile(r"(?<=[@#])(?=\w)|(?<=[A-Za-z]:)(?=//)|(?<=www)(?=\.)", re.IGNORECASE)
_WORD_JOINER = "\u2060"


def _md(text: str | None) -> str:
    """Author text inside Markdown (a pull-request comment): shown as written, and inert — no
    link, image, emphasis or HTML (each such character escaped), no @mention, issue reference or
    bare link (an invisible word joiner after ``@`` or ``#``, inside ``://`` and ``www.``), table
    pipes and line breaks made safe.

    >>> print(_md("[x](https://a.invalid) ![i](p.gif) <img src=x> @team #12 www.a.invalid *b*").replace(_WORD_JOINER, "(WJ)"))
    \\[x\\](https:(WJ)//a.invalid) !\\[i\\](p.gif) &lt;img src=x&gt; @(WJ)team #(WJ)12 www(WJ).a.invalid \\*b\\*
    """
    if text is None:
        return "—"
    text = _MD_PUNCTUATION.sub(lambda m: "\\" + m.group(0), text)
    text = html.escape(text, quote=False)
    return _FORGE_TRIGGERS.sub(_WORD_JOINER, text).replace("\n", "<br>")


def _code(text: str | None) -> str:
    """Author text as an inline code span inside a Markdown table cell."""
    if not text:
        return "—"
    ticks = "`"
    while ticks in text:
        ticks += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text.replace('|', chr(92) + '|').replace(chr(10), ' ')}{pad}{ticks}"


def _fence(lines: list[str], lang: str = "diff") -> list[str]:
    ticks = "```"
    while any(ticks in line for line in lines):
        ticks += "`"
    return [ticks + lang, *lines, ticks]


def diff_markdown(diff: RulesetDiff, impact: Impact | None = None, *, level: int = 2) -> str:
    """The diff as Markdown: a summary, one subsection per change, then the impact tables.

    ``level`` is the heading level of the title (2: ``##``).
    """
    h = "#" * level
    out = [f"{h} {_md(diff.old.id)} {_md(diff.old.version or '')} → {_md(diff.new.id)} {_md(diff.new.version or '')}",
           ""]
    if diff.empty:
        out.append("No differences in the rules.")
    else:
        counts = diff.counts()
        out.append(", ".join(f"{n} {k}" for k, n in counts.items() if n) or "Only the header changed.")
        out.append("")
        out.append("| | id | kind | title | change |")
        out.append("|---|---|---|---|---|")
        for c in diff.changes:
            out.append(f"| {_MARK[c.change]} | `{c.id}` | {_md(c.kind)} | {_md(c.title)} | {c.change} |")
    for c in diff.changes:
        if c.change in (ADDED, REMOVED) and not (c.fields or c.prose):
            continue
        out.append("")
        title = f" — {_md(c.title)}" if c.title else ""
        out.append(f"{h}# {c.change.capitalize()}: {_md(c.kind)} `{c.id}`{title}")
        out.append("")
        if c.change == MOVED or c.moved_from is not None:
            out.append(f"Moved from `{c.moved_from or '(top level)'}` to `{c.section or '(top level)'}`.")
            out.append("")
        if c.indirect:
            out.append("Its text is the same; something it uses changed, and with it these cells.")
            out.append("")
        simple = [f for f in c.fields if not f.multiline]
        if simple or c.stats:
            out.append("| | before | after |")
            out.append("|---|---|---|")
            for f in simple:
                out.append(f"| {_md(f.field)} | {_md(f.old)} | {_md(f.new)} |")
            for s in c.stats:
                out.append(f"| {_md(s.stat)} | {_md(s.old)} | {_md(s.new)} |")
            out.append("")
        for f in c.fields:
            if f.multiline:
                out.append(f"**{_md(f.field)}**")
                out.append("")
                out.extend(_fence(f.lines()))
                out.append("")
        if c.cells:
            names = [k for k, _ in c.cells[0].at]
            out.append("| " + " | ".join(_md(n) for n in names) + (" | " if names else "") + "before | after |")
            out.append("|" + "---|" * (len(names) + 2))
            for cell in c.cells:
                vals = " | ".join(_md(str(v)) for _, v in cell.at)
                out.append(f"| {vals}{' | ' if names else ''}{_md(_cell(cell.old))} | {_md(_cell(cell.new))} |")
            out.append("")
        for pr in c.prose:
            out.append(f"**{'Text' if not pr.where else _md(pr.where) + ' text'}**")
            out.append("")
            out.extend(_fence(pr.unified()))
            out.append("")
    if impact is not None:
        out.append("")
        out.append(f"{h}# Impact on the examples")
        out.append("")
        rows = [(e, v) for e in impact.examples for v in e.values if v.changed]
        if not rows:
            out.append("No example's result changed.")
        else:
            out.append("| example | value | before | after | expected |")
            out.append("|---|---|---|---|---|")
            for e, v in rows:
                mark = " (fails)" if v.new_holds is False else ""
                out.append(f"| `{e.id}` | {_code(v.subject)} | {_md(v.old)} | {_md(v.new)} | "
                           f"{_code(v.expected)}{mark} |")
        out.append("")
        out.append(f"{h}# Impact on the matchups")
        out.append("")
        if not impact.matchups:
            out.append("No matchup changed.")
        else:
            out.append("Mean of the last step of each attack (the casualties), before and after.")
            out.append("")
            out.append("| matchup | step | before | after | change |")
            out.append("|---|---|---|---|---|")
            for m in impact.matchups:
                rel = m.relative
                before = f"{float(m.old_mean):.2f}" if m.old_mean is not None else "n/a"
                after = f"{float(m.new_mean):.2f}" if m.new_mean is not None else "n/a"
                out.append(f"| {_md(m.label)} | {_md(m.step or '')} | {before} | {after} | "
                           f"{percent(rel) if rel is not None else '—'} |")
    text = "\n".join(out)
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return shown(text.rstrip("\n")) + "\n"  # a terminal, or a comment: control characters shown, never obeyed


# ---------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------


def _cell_json(c: Cell | None) -> dict[str, Any] | None:
    return None if c is None else {"result": c.result, "p": c.p, "mean": c.mean}


def change_json(c: Change) -> dict[str, Any]:
    return {
        "id": c.id, "kind": c.kind, "title": c.title, "change": c.change, "section": c.section,
        "moved_from": c.moved_from, "indirect": c.indirect,
        "details": {
            "fields": [{"field": f.field, "old": f.old, "new": f.new} for f in c.fields],
            "stats": [{"stat": s.stat, "old": s.old, "new": s.new} for s in c.stats],
            "cells": [{"at": dict(cell.at), "old": _cell_json(cell.old), "new": _cell_json(cell.new)}
                      for cell in c.cells],
            "prose": [{"where": pr.where, "old": pr.old, "new": pr.new, "diff": pr.unified()} for pr in c.prose],
        },
    }


def impact_json(impact: Impact) -> dict[str, Any]:
    return {
        "examples": [{"id": e.id, "title": e.title, "changed": e.changed,
                      "values": [{"subject": v.subject, "old": v.old, "new": v.new, "old_exact": v.old_exact,
                                  "new_exact": v.new_exact, "changed": v.changed, "expected": v.expected,
                                  "old_holds": v.old_holds, "new_holds": v.new_holds} for v in e.values]}
                     for e in impact.examples],
        "matchups": [{"expression": m.expression, "label": m.label, "step": m.step,
                      "old": _frac(m.old_mean), "new": _frac(m.new_mean),
                      "old_float": None if m.old_mean is None else float(m.old_mean),
                      "new_float": None if m.new_mean is None else float(m.new_mean),
                      "change": m.relative, "change_text": percent(m.relative) if m.relative is not None else None,
                      "old_error": m.old_error, "new_error": m.new_error, "explicit": m.explicit,
                      "changed": m.changed, "sources": list(m.sources)}
                     for m in impact.matchups],
    }


def diff_json(diff: RulesetDiff, impact: Impact | None = None) -> dict[str, Any]:
    """The diff (and impact, or null) as JSON-ready data; the shape is in this module's docstring."""
    def side(s: Side) -> dict[str, Any]:
        return {"id": s.id, "version": s.version, "title": s.title, "label": s.label}
    counts = diff.counts()
    return {
        "old": side(diff.old),
        "new": side(diff.new),
        "summary": {**counts, "identical": diff.empty and not (impact is not None and impact.changed)},
        "changes": [change_json(c) for c in diff.changes],
        "impact": impact_json(impact) if impact is not None else None,
    }
