"""Names: "unknown name — did you mean …?" and the links written in prose.

:func:`report_unknown` is the one place a name that is not defined is reported (W101), with the
closest defined name as a hint, or as a use of something an overlay removed (W605).
:func:`check_prose` is the pass that follows every ``[[link]]`` in prose and one-line texts (W107).
"""
from __future__ import annotations

from typing import Iterable, Iterator

from compiler import ast as A
from compiler import codes
from compiler.check.context import Context
from compiler.check.overlays import report_removed
from compiler.diagnostics import Fix, Span, did_you_mean, only_match, suggestion
from compiler.model.ruleset import game_parts
from compiler.syntax.prose import PROSE_REF as PROSE_REF  # one pattern for checker, site and editor

#: A link in prose: ``[[id]]`` or ``[[id|words]]``.

# Kinds of name an overlay cannot have removed: they live inside one definition.
_LOCAL_KINDS = ("parameter", "step", "role (a parameter of an attack)")
#: How a hint names several of a kind ("the situations are: …").
_PLURALS = {"ability": "abilities", "keyword or ability": "keywords and abilities", "choice": "choices",
            "quantity of one unit": "quantities of one unit"}


def report_unknown(ctx: Context, name: str, span: Span, pool: Iterable[str], what: str = "name") -> None:
    """W101 for ``name``, which is not a ``what`` here, with the closest of ``pool`` as a hint.

    A name that an overlay removed is reported as such instead (W605).
    """
    if what not in _LOCAL_KINDS and report_removed(ctx, name, span):
        return
    pool = list(pool)
    hint = suggestion(name, pool, _PLURALS.get(what, what + "s") if what != "name" else None)
    ctx.sink.error(codes.UNKNOWN_NAME, f"unknown {what} '{name}'", span, hint, fixes=rename_fix(name, pool, span))


def prose_of(d: A.Decl) -> Iterator[A.Prose]:
    """The prose blocks of a declaration (a game's phases, scores and victories included)."""
    if isinstance(d, A.ProseBlock):
        yield d.prose or A.Prose(d.span, d.text)
        return
    yield from getattr(d, "prose", ()) or ()
    if isinstance(d, A.Game):
        for ph in d.phases:
            yield from ph.prose
        for s in d.scores:
            yield from s.prose
        for v in d.victories:
            yield from v.prose


def short_texts(d: A.Decl) -> Iterator[tuple[str, Span]]:
    """One-line texts (definitions, phase and step texts) with the span of their owner."""
    for name in ("short", "text"):
        value = getattr(d, name, None)
        if isinstance(value, str) and not isinstance(d, A.ProseBlock):
            yield value, d.span
    if isinstance(d, A.Game):
        for part in game_parts(d):
            value = getattr(part, "text", None)
            if isinstance(value, str):
                yield value, part.span


def _broken_link(ctx: Context, ref: str, known: set[str], span: Span, where: str) -> None:
    close = did_you_mean(ref, known)
    ctx.sink.error(codes.BROKEN_LINK, f"the {where} links to '{ref}', which is not defined", span,
                   f"did you mean '{close}'?" if close else "links are written [[id]] or [[id|text]]",
                   fixes=rename_fix(ref, known, span))


def rename_fix(name: str, pool: Iterable[str], span: Span) -> tuple[Fix, ...]:
    """The fix of a misspelt name when it is certain (:func:`~compiler.diagnostics.only_match`):
    within ``span``, the name becomes the one it is close to."""
    only = only_match(name, pool)
    return (Fix(span, only, name, f"rename '{name}' to '{only}'"),) if only is not None else ()


def check_prose(ctx: Context) -> None:
    """Pass: every ``[[link]]`` in prose and one-line texts names a defined declaration (W107)."""
    rs = ctx.ruleset
    known = set(rs.symbols) | set(rs.dice)
    decls: list[A.Decl] = list(rs.walk())
    if rs.header is not None:
        decls.append(rs.header)
    for d in decls:
        for text, span in short_texts(d):
            for m in PROSE_REF.finditer(text):
                ref = m.group(1).strip()
                if ref not in known and not report_removed(ctx, ref, span, "the text still links to it"):
                    _broken_link(ctx, ref, known, span, "text")
        for p in prose_of(d):
            for m in PROSE_REF.finditer(p.text):
                ref = m.group(1).strip()
                if ref not in known:
                    line, col = p.position(m.start())
                    span = Span(p.span.file, line, col, line, col + len(m.group(0)))
                    if not report_removed(ctx, ref, span, "the prose still links to it"):
                        _broken_link(ctx, ref, known, span, "prose")
