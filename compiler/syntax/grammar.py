"""The grammar, loaded once: the ``.lark`` text and the parsers built from it.

The grammar is data (``grammar/warscribe.lark``, shipped inside the package as
``compiler.grammar``).  Two parsers are built from it, each once and only when first
asked for: :func:`parser`, LALR(1) with the contextual lexer, the indentation post-lexer
(:class:`RulesIndenter`) and ``propagate_positions`` so every node has a line and
column; and :func:`token_parser`, the same parser keeping every token (brackets,
keywords, signs) in the tree, which the formatter needs.

>>> parser().parse('stat BS "Ballistic Skill" 1..10\\n', start="start").data
'start'
>>> 'ruleset' in grammar_text()
True
"""
from __future__ import annotations

import functools
import importlib.resources
from pathlib import Path
from typing import Iterator

from lark import Lark, Token
from lark.indenter import Indenter

from compiler.limits import count_tokens

GRAMMAR_FILE = "warscribe.lark"


class RulesIndenter(Indenter):
    """Turns indentation into ``_INDENT``/``_DEDENT`` tokens, and stops a file of too many tokens."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        tokens: Iterator[Token] = super().process(count_tokens(stream))  # type: ignore[no-untyped-call]  # lark's Indenter.process is not annotated
        return tokens  # a file of too many tokens stops in count_tokens


def grammar_text() -> str:
    """The grammar source: from the source tree this package sits in (a checkout), else from the
    installed package (an editable install may point that at another checkout)."""
    root = Path(__file__).resolve().parent.parent.parent
    if (root / "pyproject.toml").is_file() and (root / "grammar" / GRAMMAR_FILE).is_file():
        return (root / "grammar" / GRAMMAR_FILE).read_text("utf-8")
    try:
        return importlib.resources.files("compiler.grammar").joinpath(GRAMMAR_FILE).read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        here = Path(__file__).resolve().parent.parent.parent / "grammar" / GRAMMAR_FILE
        return here.read_text("utf-8")


@functools.lru_cache(maxsize=None)
def parser(strict: bool = False) -> Lark:
    """The Lark parser (built once). ``strict=True`` makes grammar conflicts errors."""
    return Lark(
        grammar_text(),
        parser="lalr",
        lexer="contextual",
        postlex=RulesIndenter(),
        propagate_positions=True,
        maybe_placeholders=True,
        start=["start", "eval_input"],
        strict=strict,
        cache=not strict,  # the built LALR tables are kept in a temp file between runs
    )


@functools.lru_cache(maxsize=1)
def token_parser() -> Lark:
    """The language's parser, keeping every token (brackets, keywords, signs) in the tree."""
    return Lark(grammar_text(), parser="lalr", lexer="contextual", postlex=RulesIndenter(),
                propagate_positions=True, maybe_placeholders=True, start=["start"],
                keep_all_tokens=True, cache=True)
