"""Stage 2: Lark parse tree → AST, stamping a :class:`Span` on every node.

One Lark ``Transformer`` pass, :class:`Builder`, combined from one builder per section of
the grammar (multiple inheritance of :class:`~compiler.ast.build_base.BuilderBase`
subclasses: Lark finds the method named after each rule on the combined class):

* :mod:`~compiler.ast.build_document` — the file, prose, header, includes, overlays,
  sections, rules, notes;
* :mod:`~compiler.ast.build_lexicon` — stats, keywords, statuses, terms, situations;
* :mod:`~compiler.ast.build_rolls` — custom dice and tests;
* :mod:`~compiler.ast.build_tables` — tables, grids, formulas;
* :mod:`~compiler.ast.build_sequences` — modifiers, abilities, attack sequences;
* :mod:`~compiler.ast.build_profiles` — units, weapons, squads, armies;
* :mod:`~compiler.ast.build_game` — the game's structure;
* :mod:`~compiler.ast.build_examples` — examples and properties;
* :mod:`~compiler.ast.build_expr` — expressions.

Lark wraps any exception raised in a callback in ``VisitError``; problems found here are
recorded as diagnostics instead, so a user never sees a traceback.

>>> from compiler.syntax.parse import parse_text
>>> tree, _ = parse_text('stat BS "Ballistic Skill" 1..10: "Aim."\\n', "x.rules")
>>> file, diags = build_file(tree, "x.rules")
>>> file.items[0].id, file.items[0].title, diags
('BS', 'Ballistic Skill', ())
"""
from __future__ import annotations

import dataclasses

from lark import Token, Tree
from lark.exceptions import VisitError

from compiler import codes
from compiler import ast as A
from compiler.ast.build_base import prose_text, unquote
from compiler.ast.build_document import DocumentBuilder
from compiler.ast.build_examples import ExamplesBuilder
from compiler.ast.build_expr import ExprBuilder
from compiler.ast.build_game import GameBuilder
from compiler.ast.build_lexicon import LexiconBuilder
from compiler.ast.build_profiles import ProfilesBuilder
from compiler.ast.build_rolls import RollsBuilder
from compiler.ast.build_sequences import SequencesBuilder
from compiler.ast.build_tables import TablesBuilder
from compiler.diagnostics import Diagnostic, Sink, Span

__all__ = ["Builder", "build_expression", "build_file", "prose_text", "unquote"]


class Builder(DocumentBuilder, LexiconBuilder, RollsBuilder, TablesBuilder, SequencesBuilder, ProfilesBuilder,
              GameBuilder, ExamplesBuilder, ExprBuilder):
    """Turn the parse tree of one file into AST nodes."""


def build_file(tree: Tree[Token], path: str) -> tuple[A.File, tuple[Diagnostic, ...]]:
    """Build the AST of one parsed file; problems found on the way are diagnostics.

    >>> from compiler.syntax.parse import parse_text
    >>> tree, _ = parse_text('test hit(x) "Hit":\\n  roll d6 >= 4\\n  roll d6 >= 3\\n', "x.rules")
    >>> file, (error,) = build_file(tree, "x.rules")
    >>> file.items[0].id, file.items[0].params[0].name, error.code, error.span.line
    ('hit', 'x', 'W105', 3)
    >>> error.message
    'a test rolls once: this is its second roll line'
    """
    sink = Sink()
    try:
        items = Builder(path, sink).transform(tree)
    except VisitError as error:  # a bug or an unforeseen input: report, never crash
        orig = error.orig_exc
        meta = getattr(error.obj, "meta", None)
        line = getattr(meta, "line", 1) or 1
        col = getattr(meta, "column", 1) or 1
        sink.error(codes.NOT_UNDERSTOOD, f"cannot understand this part of the file ({type(orig).__name__}: {orig})",
                   Span(path, line, col, line, col + 1))
        return A.File(path, ()), sink.items
    headers = [i for i in items if isinstance(i, A.Header)]
    includes = tuple(i for i in items if isinstance(i, A.Include))
    for extra in headers[1:]:
        sink.error(codes.TWO_HEADERS, "a file has one ruleset header; this is a second one", extra.span,
                   related=[(headers[0].span, "the first header is here")])
    decls = tuple(i for i in items if isinstance(i, A.Decl) and not isinstance(i, (A.Header, A.Include)))
    decls = _number_prose(decls, path)
    return A.File(path, decls, headers[0] if headers else None, includes), sink.items


def build_expression(tree: Tree[Token], path: str) -> tuple[A.Expr | None, tuple[Diagnostic, ...]]:
    """Build the AST of one expression (the input of ``warscribe eval``).

    >>> from compiler.syntax.parse import parse_text
    >>> tree, _ = parse_text("2 * d6 + 1", "<eval>", start="eval_input")
    >>> expr, diags = build_expression(tree, "<eval>")
    >>> expr.op, expr.left.op, expr.left.right.name, expr.right.value, diags
    ('+', '*', 'd6', 1, ())
    """
    sink = Sink()
    try:
        expr = Builder(path, sink).transform(tree)
    except VisitError as error:
        sink.error(codes.NOT_UNDERSTOOD, f"cannot understand this expression ({error.orig_exc})", Span(path, 1, 1, 1, 2))
        return None, sink.items
    return expr, sink.items


def _number_prose(decls: tuple[A.Decl, ...], path: str) -> tuple[A.Decl, ...]:
    """Give free-standing prose blocks a stable id from their enclosing declaration."""
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
