"""What the editor shows on hover: the lexicon text of a name, the odds of a test, table or target.

Markdown, built from the model only: a stat, keyword, ability… shows its title, its
short definition and its long text; a table shows every cell with its target and
chance ("4+ · 50%"), as ``warscribe table`` prints it; a test shows what it rolls and,
when it needs no argument, its chance; a target such as ``4+`` its chance on a d6.

Author text is shown, never fetched or run: titles and definitions as plain text (Markdown's
characters escaped), prose as Markdown without pictures (``![alt](url)`` shows as a link, so
a hover never loads an image from anywhere), without HTML (``<img …>`` shows as text), and with
links only to web pages (``[x](command:…)``, which an editor that trusts a hover would run, shows as text).
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.lsp.index import Snapshot, Token, is_target, real
from compiler.model.ruleset import kind_of
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression
from compiler.resolve.report import evaluate_table, table_text, target_die

__all__ = ["hover_text", "target_chance"]

_MAX_SOURCE_LINES = 12


def percent(p: Fraction) -> str:
    """A chance as the site shows it: ``50%``, ``83%``, ``2.8%``."""
    value = float(p) * 100
    return f"{value:.0f}%" if value >= 10 or value == 0 else f"{value:.1f}%"


def target_chance(text: str, sides: int = 6) -> str:
    """``4+ · 50%``: a target and the chance to pass it on one die.

    >>> target_chance("4+"), target_chance("2-"), target_chance("7+")
    ('4+ · 50%', '2- · 33%', '7+ · 0%')
    """
    n = int(text[:-1])
    passing = sides - n + 1 if text.endswith("+") else n
    p = Fraction(max(0, min(sides, passing)), sides)
    return f"{text} · {percent(p)}"


#: The opening of a link's address, or a link reference's definition, that is not a web address.
_ELSEWHERE = re.compile(r"\]\((?!\s*(?:&lt;)?https?://)", re.I)
_REFERENCE = re.compile(r"^( {0,3})\[([^\]\n]+)\]:(?!\s*(?:&lt;)?https?://)", re.I | re.M)


def _prose(decl: A.Decl) -> str:
    parts = [_markdown(p.text.strip()) for p in getattr(decl, "prose", ()) or ()]
    return "\n\n".join(p for p in parts if p)


_PUNCTUATION = re.compile(r"[\\`*_\[\]{}()#+!|~<>]")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)(?<!`)\1(?!`)", re.DOTALL)


def _text(text: str) -> str:
    """Plain author text (a title, a definition) as Markdown that shows exactly that text.

    >>> _text("![x](https://t.invalid/p.gif) <img src=x> *b*")
    '\\\\!\\\\[x\\\\]\\\\(https://t.invalid/p.gif\\\\) \\\\<img src=x\\\\> \\\\*b\\\\*'
    """
    return _PUNCTUATION.sub(lambda m: "\\" + m.group(0), " ".join(text.split()))


def _markdown(text: str) -> str:
    """Author Markdown without pictures or HTML: ``![`` and ``<`` outside code shown as text.

    >>> print(_markdown("See ![map](https://t.invalid/m.png) and <img src=x>, `a <b> ![c]`.\\n```\\n<b>\\n```"))
    See \\![map](https://t.invalid/m.png) and &lt;img src=x>, `a <b> ![c]`.
    ```
    <b>
    ```
    """
    runs: list[tuple[bool, list[str]]] = []  # (inside a fence, its lines)
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        inside = fence is not None or m is not None
        if fence is None and m:
            fence = m.group(1)
        elif fence is not None and m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            fence = None
        if not runs or runs[-1][0] != inside:
            runs.append((inside, []))
        runs[-1][1].append(line)
    return "\n".join("\n".join(lines) if inside else _outside_code("\n".join(lines)) for inside, lines in runs)


def _outside_code(text: str) -> str:
    pieces, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        pieces += [_no_pictures(text[pos:m.start()]), m.group(0)]
        pos = m.end()
    return "".join(pieces) + _no_pictures(text[pos:])


def _fenced(text: str, lang: str) -> str:
    """``text`` in a code fence longer than any run of backticks in it: it cannot end the fence.

    >>> print(_fenced('1 -> "```"', "text"))
    ````text
    1 -> "```"
    ````
    """
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _no_pictures(text: str) -> str:
    """No picture, no HTML, and a link only to a web address: a link elsewhere (``command:``, which
    an editor that trusts a hover runs, ``file:``, a relative path) shows as its text.

    >>> print(_no_pictures("[go](command:x.run) [web](https://t.invalid/a) ![p](file:/p.gif)\\n[r]: command:y"))
    [go\\](command:x.run) [web](https://t.invalid/a) \\![p\\](file:/p.gif)
    \\[r]: command:y
    """
    text = text.replace("<", "&lt;").replace("![", "\\![")
    return _REFERENCE.sub(r"\1\\[\2]:", _ELSEWHERE.sub(r"\\](", text))


def _source(snap: Snapshot, decl: A.Decl) -> str:
    text = snap.texts.get(snap.file_of(decl))
    if text is None:
        return ""
    lines = text.splitlines()[decl.span.line - 1: decl.span.end_line]
    out: list[str] = []
    in_prose = False
    first_indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    for i, line in enumerate(lines):
        if i and line.strip() and not in_prose and len(line) - len(line.lstrip()) <= first_indent:
            break  # the next declaration
        quotes = line.count('"""')
        if in_prose or quotes:
            in_prose = in_prose != (quotes % 2 == 1)
            continue  # the declaration's code, not its prose
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    if len(out) > _MAX_SOURCE_LINES:
        out = out[:_MAX_SOURCE_LINES] + ["  …"]
    indent = min((len(x) - len(x.lstrip()) for x in out if x.strip()), default=0)
    return "\n".join(x[indent:] for x in out)


def _odds(snap: Snapshot, decl: A.Decl) -> str | None:
    """The cells of a table, or the chance of a test that needs no argument."""
    model = snap.model
    if model is None or not snap.compilation or not snap.compilation.ok:
        return None
    try:
        if isinstance(decl, (A.Table, A.Formula)) and model.callables.get(decl.id) is decl:
            data = evaluate_table(Evaluator(model), decl)
            return "\n".join(table_text(data))
        if isinstance(decl, A.Test) and not decl.params:
            value = Evaluator(model).evaluate(parse_expression(f"P({decl.id}())"))
            if isinstance(value, Fraction):
                return f"chance to pass: {value} · {percent(value)}"
        if isinstance(decl, A.Test) and decl.roll is not None and isinstance(decl.roll.target, A.Call):
            table = model.callables.get(decl.roll.target.func)
            if isinstance(table, A.Table):
                return "\n".join(table_text(evaluate_table(Evaluator(model), table)))
    except (ResolveError, ArithmeticError, ValueError, TypeError, RecursionError):
        return None
    return None


def describe(snap: Snapshot, decl: A.Decl) -> str:
    """The Markdown shown for one declaration."""
    kind = kind_of(decl)
    title = getattr(decl, "title", None)
    head = f"**{_text(title)}** · {kind} `{decl.id}`" if title and title != decl.id else f"{kind} `{decl.id}`"
    extra: list[str] = []
    if isinstance(decl, A.Stat) and decl.type is not None:
        extra.append(f"values: {decl.type if isinstance(decl.type, str) else _source_of(snap, decl.type)}")
    if isinstance(decl, A.Situation) and decl.choices:
        extra.append("choices: " + ", ".join(f"`{c}`" for c in decl.choices))
    aka = getattr(decl, "aka", ())
    if aka:
        extra.append("also called: " + ", ".join(_text(a) for a in aka))
    origin = snap.model.origin.get(decl.id) if snap.model is not None else None
    if origin in ("base", "replaced") and snap.model is not None and snap.model.base is not None:
        extra.append(f"{'from' if origin == 'base' else 'replaces the one in'} the base ruleset `{snap.model.base.id}`")
    parts = [head + ("  \n" + " · ".join(extra) if extra else "")]
    short = getattr(decl, "short", None)
    if short:
        parts.append(f"*{_text(short)}*")
    prose = _prose(decl)
    if prose:
        parts.append(prose)
    lexicon = isinstance(decl, (A.Stat, A.Entry, A.Situation))
    if not lexicon:
        src = _source(snap, decl)
        if src:
            parts.append(_fenced(src, "warscribe"))
    odds = _odds(snap, decl)
    if odds:
        parts.append(_fenced(odds, "text"))
    return "\n\n".join(parts)


def _source_of(snap: Snapshot, expr: Any) -> str:
    span = getattr(expr, "span", None)
    if span is None:
        return "a range"
    text = snap.texts.get(real(span.file))
    if text is None or span.line != span.end_line:
        return "a range"
    return str(text.splitlines()[span.line - 1][span.column - 1: span.end_column - 1])


def hover_text(snap: Snapshot, path: str, line: int, character: int) -> tuple[str, Token | None] | None:
    """The Markdown for the word at a position, and the token it covers."""
    occ = snap.occurrence_at(path, line, character)
    if occ is not None:
        decl = snap.symbols.get(occ.name)
        if decl is not None:
            tok = snap.token_at(path, line, character)
            return describe(snap, decl), tok
    tok = snap.token_at(path, line, character)
    if tok is not None and is_target(tok):
        sides = target_die(snap.model) if snap.model is not None else 6
        return f"`{target_chance(tok.text, sides)}` on a d{sides}", tok
    return None
