"""An overlay in plain words: the odds first, a sentence per change, and text changes word by word.

The "What these house rules change" page answers a player's question — *what
does this do to my game?* — before a rules lawyer's.  This module turns the
semantic diff and the impact (:mod:`compiler.review.diff`) into the views its
template reads:

* :func:`odds_view` — the standard matchups as rows a reader can scan: the
  attack in words, the situations it is worked out under by their titles
  (``Cover the target is in: soft``), the mean before and after to two decimals
  and the change; a matchup that only one side can work out goes in a table of
  its own with the reason (the base has no such situation), never a bare "n/a";
* :func:`change_lines` — one plain sentence per change (kind, title, what changed);
* :func:`word_diff` — a text before and after as escaped HTML with ``<ins>`` and
  ``<del>`` around the words that changed.

>>> print(word_diff("Roll a die for each model.", "Roll two dice for each model <3 here>."))
Roll <del>a die</del><ins>two dice</ins> for each <del>model.</del><ins>model &lt;3 here&gt;.</ins>
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Sequence

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.review.diff import MatchupImpact, matchup_label, percent, standard_matchups
from compiler.site.markup import plain
from compiler.site.sitemap import short_title
from compiler.syntax.unparse import expr_text
from compiler.words import decimal

__all__ = ["OddsRow", "OddsView", "ChangeLine", "odds_view", "change_lines", "word_diff", "plain_prose",
           "situation_words", "version_words", "FIELD_WORDS", "KIND_PLAIN"]

#: How a changed field is named in a sentence ("its title and its roll changed").
FIELD_WORDS = {
    "title": "title", "roll": "roll", "steps": "steps", "result": "result", "rows": "rows",
    "lets": "set-up", "expects": "expected results", "params": "parameters", "short": "definition",
    "natural fails": "natural fails", "natural succeeds": "natural successes", "target": "target",
}

#: A reader's word for each kind of declaration (no "declaration", no "situation").
KIND_PLAIN = {
    "stat": "characteristic", "keyword": "keyword", "ability": "ability", "status": "status",
    "term": "term", "situation": "battlefield condition", "die": "die", "unit": "unit", "weapon": "weapon",
    "squad": "squad", "example": "worked example", "property": "checked property", "table": "table",
    "test": "roll", "formula": "formula", "modifier": "modifier", "attack": "attack sequence",
    "army": "army list", "game": "game", "rule": "rule", "section": "section", "assumption": "reading of the rules",
    "open question": "open question", "designer note": "designer's note", "phase": "phase",
    "step": "step", "score": "score", "victory condition": "victory condition",
}


@dataclass(frozen=True)
class OddsRow:
    """One matchup under one set of situations, before and after."""

    attack: str  # "10 Imperial Guardsman, Lasgun, 10 Ork Boy"
    situation: str  # "Cover the target is in: soft", or "" when none is set
    old: str | None  # the mean to two decimals, None when that side cannot work it out
    new: str | None
    change: str | None  # "-33%"; None when a side is missing or the old mean is 0
    relative: float | None
    why: str | None = None  # why a side has no number


@dataclass(frozen=True)
class OddsView:
    base_name: str  # the base's short title, for column headings ("Classic 40K")
    name: str  # the overlay's
    attack_title: str | None  # the one attack sequence every row runs, when they share one
    step: str | None  # the step whose mean is shown ("killed"), when the rows share one
    both: tuple[OddsRow, ...]  # worked out on both sides
    one_sided: tuple[OddsRow, ...]  # worked out on one side only, each with its reason
    summary: str  # one sentence: how many go down, how many up, the range


@dataclass(frozen=True)
class ChangeLine:
    """One change as a sentence: "Replaced rule *Alternate cover* (was *Cover saves*): its title and text changed"."""

    change: str  # added, changed, removed, moved
    kind: str  # in a reader's words
    id: str
    title: str
    old_title: str | None  # the base's title when it differs
    what: str  # "its title and its text changed", or the definition of a new entry, or ""


def version_words(spec: str | None) -> str:
    """The base versions an overlay is written for, in words.

    >>> version_words("^1.1.0"), version_words("~1.0.2"), version_words(">=2.0.0"), version_words("1.0.0")
    ('version 1.1.0 or a later 1.x', 'version 1.0.2 or a later 1.0.x', 'version 2.0.0 or later', 'version 1.0.0')
    """
    if not spec:
        return ""
    spec = spec.strip()
    if spec.startswith("^"):
        major = spec[1:].split(".")[0]
        return f"version {spec[1:]} or a later {major}.x"
    if spec.startswith("~"):
        minor = ".".join(spec[1:].split(".")[:2])
        return f"version {spec[1:]} or a later {minor}.x"
    if spec.startswith(">="):
        return f"version {spec[2:].strip()} or later"
    return f"version {spec}"


def _mean(v: Fraction | float | None) -> str | None:
    return None if v is None else decimal(v, ".2f")


def situation_words(expr: A.Expr, *models: Ruleset) -> str:
    """The situations a matchup is worked out under, by their titles: ``"Cover the target is in: soft"``."""
    if not isinstance(expr, A.With):
        return ""
    parts = []
    for s in expr.settings:
        title = _situation_title(s.name, *models)
        if s.value is None:
            parts.append(f"not {title[:1].lower()}{title[1:]}" if s.negated else title)
        else:
            value = s.value.id if isinstance(s.value, A.Name) else expr_text(s.value)
            parts.append(f"{title}: {value.replace('_', ' ')}")
    return "; ".join(parts)


def _situation_title(name: str, *models: Ruleset) -> str:
    sit = next((m.situations[name] for m in models if name in m.situations), None)
    return sit.title if sit is not None else name.replace("_", " ")


def _missing_situations(expr: A.Expr, model: Ruleset) -> list[str]:
    if not isinstance(expr, A.With):
        return []
    return [s.name for s in expr.settings if s.name not in model.situations]


def odds_view(base: Ruleset, rs: Ruleset, matchups: Sequence[MatchupImpact]) -> OddsView:
    """The standard matchups of an overlay as rows with situation titles; one-sided rows say why."""
    exprs = {expr_text(e): e for e, _ in standard_matchups(base, rs)}
    both: list[OddsRow] = []
    one_sided: list[OddsRow] = []
    titles: set[str] = set()
    for mu in matchups:
        expr = exprs.get(mu.expression)
        if expr is None:
            from compiler.resolve.evaluator import parse_expression
            expr = parse_expression(mu.expression)
        call = expr.expr if isinstance(expr, A.With) else expr
        label = matchup_label(call, rs, base)
        head, sep, tail = label.partition(": ")
        if sep and isinstance(call, A.Call):
            titles.add(head)
            label = _who_shoots_whom(call, rs, base) or tail
        old, new = _mean(mu.old_mean), _mean(mu.new_mean)
        situation = situation_words(expr, rs, base)
        if old is not None and new is not None:
            rel = mu.relative
            both.append(OddsRow(label, situation, old, new, percent(rel) if rel is not None else None, rel))
            continue
        why = None
        for side, model, error in ((base, base, mu.old_error), (rs, rs, mu.new_error)):
            if error is None:
                continue
            missing = _missing_situations(expr, model)
            if missing:
                names = " or ".join(f"“{_situation_title(n, rs, base)}”" for n in missing)
                why = f"{short_title(side.title)} has no {names}"
            else:
                why = f"{short_title(side.title)} cannot work it out: {error}"
        one_sided.append(OddsRow(label, situation, old, new, None, None, why))
    steps = {mu.step for mu in matchups}
    step = steps.pop() if len(steps) == 1 else None
    both.sort(key=_grouped(both))
    one_sided.sort(key=_grouped(one_sided))
    return OddsView(short_title(base.title), short_title(rs.title), titles.pop() if len(titles) == 1 else None,
                    step, tuple(both), tuple(one_sided), _summary(both, rs, base, step))


def _grouped(rows: Sequence[OddsRow]) -> Callable[[OddsRow], int]:
    """A sort key that keeps the rows of one attack together, in the order each attack first appears."""
    first: dict[str, int] = {}
    for i, row in enumerate(rows):
        first.setdefault(row.attack, i)
    return lambda row: first[row.attack]


def _who_shoots_whom(call: A.Call, *models: Ruleset) -> str | None:
    """``10 Imperial Guardsman with Lasgun at 10 Ork Boy`` for an attack called as (group, weapon, group)."""
    args = call.args
    if len(args) != 3 or not isinstance(args[0], A.Group) or not isinstance(args[2], A.Group) \
            or not isinstance(args[1], A.Name):
        return None

    def title(pid: str) -> str | None:
        return next((m.profiles[pid].title for m in models if pid in m.profiles), None)
    who, what, whom = title(args[0].profile), title(args[1].id), title(args[2].profile)
    if who is None or what is None or whom is None:
        return None
    return f"{args[0].count} {who} with {what} at {args[2].count} {whom}"


def _summary(rows: Sequence[OddsRow], rs: Ruleset, base: Ruleset, step: str | None = None) -> str:
    """One sentence: how many matchups changed, which way, and by how much.

    >>> rows = [OddsRow("a", "", "1.00", "0.50", "-50%", -0.5), OddsRow("b", "", "1.00", "1.20", "+20%", 0.2)]
    >>> _summary(rows, None, None, "killed")  # type: ignore[arg-type]
    '2 standard matchups changed: these house rules lower the mean killed in 1 and raise it in 1 (from -50% to +20%).'
    """
    if not rows:
        return f"No standard matchup that both {base.title} and {rs.title} can work out changed."
    down = sum(1 for r in rows if r.relative is not None and r.relative < 0)
    up = sum(1 for r in rows if r.relative is not None and r.relative > 0)
    moved = [r.relative for r in rows if r.relative is not None]
    n = len(rows)
    what = f"the mean {step}" if step else "the mean"
    ways = []
    if down:
        ways.append(f"lower {what} in {down}")
    if up:
        ways.append(f"raise {'it' if down else what} in {up}")
    text = f"{n} standard matchup{'s' if n != 1 else ''} changed"
    if ways:
        text += ": these house rules " + " and ".join(ways)
    if moved:
        lo, hi = min(moved), max(moved)
        text += f" (from {percent(lo)} to {percent(hi)})" if lo != hi else f" ({percent(lo)})"
    return text + "."


def change_lines(changes: Sequence[object], base: Ruleset, rs: Ruleset) -> tuple[ChangeLine, ...]:
    """One sentence's worth of data per change (``changes``: :class:`~compiler.site.changes.ChangeView`)."""
    out = []
    for c in changes:
        cid, kind, title, change = (getattr(c, "id"), getattr(c, "kind"), getattr(c, "title"), getattr(c, "change"))
        old_decl = base.get(cid)
        old_title = getattr(old_decl, "title", None) if old_decl is not None else None
        what = ""
        if change == "changed":
            parts = [FIELD_WORDS.get(f.field, f.field.replace("_", " ")) for f in getattr(c, "fields")]
            if getattr(c, "text_changed"):
                parts.append("text")
            if parts:
                what = "its " + _and(parts) + " changed"
            cells = getattr(c, "cells")
            if cells:
                what += ("; " if what else "") + (f"{cells} worked-out result{'s' if cells != 1 else ''} "
                                                  f"changed" + (" through the rules it uses"
                                                                 if getattr(c, "indirect") else ""))
        elif change == "added":
            new_decl = rs.get(cid)
            what = " ".join((getattr(new_decl, "short", None) or "").split())
        out.append(ChangeLine(change, KIND_PLAIN.get(kind, kind), cid, title,
                              old_title if old_title and old_title != title else None, what))
    return tuple(out)


def _and(words: Sequence[str]) -> str:
    """``["a", "b", "c"]`` → ``"a, b and c"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


_LINK = re.compile(r"\[\[\s*([^\]|]+?)\s*(?:\|\s*([^\]]+?)\s*)?\]\]")
_EMPHASIS = re.compile(r"(\*\*|__|`)")


def plain_prose(text: str, title_of: Mapping[str, str] | None = None) -> str:
    """Author Markdown reduced to the words a reader sees: ``[[id|words]]`` to its words, no emphasis marks."""
    titles = title_of or {}
    text = _LINK.sub(lambda m: m.group(2) or titles.get(m.group(1), m.group(1)), text)
    return _EMPHASIS.sub("", text)


# A paragraph break, a line break before a list item or a table row, or a word.
_TOKEN = re.compile(r"\n[ \t]*\n\s*|\n[ \t]*(?=[*+-][ \t]|\d+[.)][ \t]|\|)|\S+")


# A Markdown table in the prose: consecutive lines that start and end with a pipe.
_TABLE_BLOCK = re.compile(r"(?:^[ \t]*\|.*\|[ \t]*(?:\n|$))+", re.MULTILINE)
_TABLE = "\x00table\x00"  # a table is one token of the diff: kept, removed or added whole
_DELIMITER_ROW = re.compile(r"^\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*$")


def _tokens(text: str) -> list[str]:
    """The words, breaks and tables of a text, in order (a table as one token)."""
    out: list[str] = []
    pos = 0
    for m in _TABLE_BLOCK.finditer(text):
        out += _TOKEN.findall(text[pos:m.start()])
        if out and out[-1].strip():
            out.append("\n\n")
        out.append(_TABLE + m.group(0).strip())
        pos = m.end()
        rest = _TOKEN.findall(text[pos:])
        if rest and rest[0].strip():
            out.append("\n\n")
        out += rest
        pos = len(text)
    out += _TOKEN.findall(text[pos:])
    return out


def _cells(line: str) -> list[str]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)]


def _table_html(block: str) -> str:
    """A Markdown table of the prose as an HTML table (its text escaped for HTML and Markdown alike), so it reads as a table."""
    lines = [line for line in block.split("\n") if line.strip()]
    rows = [line for line in lines if not _DELIMITER_ROW.match(line.strip())]
    if not rows:
        return ""
    head = "".join(f"<th>{plain(c)}</th>" for c in _cells(rows[0]))
    body = "".join("<tr>" + "".join(f"<td>{plain(c)}</td>" for c in _cells(r)) + "</tr>"
                   for r in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def word_diff(old: str, new: str) -> str:
    """``old`` → ``new`` word by word as escaped HTML: removed words in ``<del>``, added ones in ``<ins>``.

    Paragraph breaks are kept as ``<br><br>``, the line breaks before list items and table rows as
``<br>``; everything else is text, also for a Markdown reader (``<`` shows as ``&lt;``, ``[`` as ``&#91;``).

    >>> word_diff("a b c", "a x c")
    'a <del>b</del><ins>x</ins> c'
    >>> word_diff("one.\\n\\ntwo", "one.\\n\\ntwo three")
    'one.<br><br>two <ins>three</ins>'

    A Markdown table in the text is one piece, shown as a table:

    >>> word_diff("x", "x\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |")
    'x<ins><br><br><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table></ins>'
    """
    a, b = _tokens(old), _tokens(new)
    segments: list[tuple[str, list[str]]] = []  # ("", "del" or "ins", the tokens)
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            segments.append(("", a[i1:i2]))
            continue
        if i2 > i1:
            segments.append(("del", a[i1:i2]))
        if j2 > j1:
            segments.append(("ins", b[j1:j2]))
    out = ""
    previous = ""
    for tag, tokens in segments:
        body = ""
        for t in tokens:
            if t.startswith(_TABLE):
                body += _table_html(t[len(_TABLE):])
            elif not t.strip():
                body += "<br><br>" if t.count("\n") > 1 else "<br>"
            else:
                body += (" " if body and not body.endswith("<br>") else "") + plain(t)
        joined = previous == "del" and tag == "ins"  # a replacement reads as one change
        if out and not joined and not out.endswith("<br>") and not body.startswith("<br>"):
            out += " "
        out += f"<{tag}>{body}</{tag}>" if tag else body
        previous = tag
    return out
