"""The grammar, loaded once: the ``.lark`` text and the parsers built from it.

The grammar is data (``grammar/warscribe.lark``, shipped inside the package as
``compiler.grammar``).  Two parsers are built from it, each once and only when first
asked for: :func:`parser`, LALR(1) with the contextual lexer, the indentation post-lexer
(:class:`RulesIndenter`) and ``propagate_positions`` so every node has a line and
column; and :func:`token_parser`, the same parser keeping every token (brackets,
keywords, signs) in the tree, which the formatter needs.

Building the LALR tables takes Lark about 0.8 s, so a built parser is saved under a name
that holds the grammar's hash (:func:`built_parser_name`): the wheel ships both already built
(``setup.py`` calls :func:`write_built_parsers`), and anywhere else (a source checkout, a grammar
being edited) the first run saves it in the user's cache folder, where the next one finds it —
sealed with the user's key and read back as plain data only (:mod:`compiler.cachedir`), never
through Lark's own cache (a pickle it would load from any file, even one in the shared temporary
folder).
A changed grammar has another hash, so it is built again, never read from an old file.
A node's ``data`` is its rule's name: a ``str`` from a saved parser, a ``Token`` equal to that
string from one Lark has just built (the examples below print it as a ``str`` either way).

>>> str(parser().parse('stat BS "Ballistic Skill" 1..10\\n', start="start").data)
'start'
>>> 'ruleset' in grammar_text()
True
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.resources
import io
import sys
from pathlib import Path
from typing import Any, Iterator

import lark
import lark.lexer
from lark import Lark, Token
from lark.indenter import Indenter
from lark.lark import _LOAD_ALLOWED_OPTIONS

from compiler.cachedir import existing_cache_folder, find_cache_folder, loads, read_entry, write_entry
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
        return (_source_grammar_dir() / GRAMMAR_FILE).read_text("utf-8")


def _source_grammar_dir() -> Path:
    return Path(__file__).resolve().parent.parent.parent / "grammar"


# The two parsers built from the grammar (Lark's options besides the indenter).
VARIANTS: dict[str, dict[str, Any]] = {
    "parser": dict(start=["start", "eval_input"]),
    "tokens": dict(start=["start"], keep_all_tokens=True),
}
_COMMON: dict[str, Any] = dict(parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True)


def built_parser_name(variant: str, text: str) -> str:
    """The file name of ``variant``'s parser built from grammar ``text``: it holds a hash of the
    grammar, the options and Lark's and Python's versions, so a changed grammar never finds an
    old parser.

    >>> name = built_parser_name("parser", grammar_text())
    >>> name.startswith("warscribe-parser-") and name.endswith(".lark-parser")
    True
    >>> name == built_parser_name("parser", grammar_text() + "\\n")
    False
    """
    options = {**_COMMON, **VARIANTS[variant]}
    h = hashlib.sha256(f"{variant}|{sorted(options.items())}|{lark.__version__}|{sys.version_info[:2]}\0".encode())
    h.update(text.encode("utf-8"))
    return f"warscribe-{variant}-{h.hexdigest()[:24]}.lark-parser"


def _shipped_parser_file(variant: str, text: str) -> str | None:
    """The built parser shipped in the package (the wheel builds it: part of warscribe, like its code)."""
    name = built_parser_name(variant, text)
    try:
        shipped = importlib.resources.files("compiler.grammar").joinpath(name)
        if shipped.is_file():
            return str(shipped)
    except (ModuleNotFoundError, FileNotFoundError, TypeError):
        pass
    return None


def _load_or_build(variant: str) -> Lark:
    """``variant``'s parser: the package's, else the one saved in the cache folder (sealed, plain
    data), else built now (and saved there)."""
    text = grammar_text()
    shipped = _shipped_parser_file(variant, text)
    if shipped is not None:
        return _build(variant, shipped)
    folder = find_cache_folder()
    name = built_parser_name(variant, text)
    kept = folder if folder is not None else existing_cache_folder()  # caching off: read, never write
    payload = read_entry(kept, name) if kept is not None else None
    if payload is not None:
        try:
            data = loads(payload, plain=True)
            options = {k: v for k, v in {**_COMMON, **VARIANTS[variant], "postlex": RulesIndenter()}.items()
                       if k in _LOAD_ALLOWED_OPTIONS}
            return Lark.__new__(Lark)._load(data, **options)
        except Exception:  # noqa: BLE001 — a damaged entry is built again, never trusted
            pass
    if folder is None:
        return _build(variant, False)
    built = _build(variant, False)
    buf = io.BytesIO()
    built.save(buf, _LOAD_ALLOWED_OPTIONS)
    write_entry(folder, name, buf.getvalue())
    return built


def _build(variant: str, cache: str | bool, strict: bool = False) -> Lark:
    if strict:
        return Lark(grammar_text(), postlex=RulesIndenter(), cache=cache, strict=True,
                    **{**_COMMON, **VARIANTS[variant]})
    with _collisions_unchecked():
        return Lark(grammar_text(), postlex=RulesIndenter(), cache=cache, **{**_COMMON, **VARIANTS[variant]})


@contextlib.contextmanager
def _collisions_unchecked() -> Iterator[None]:
    """Lark without its check of the terminals for collisions.  With ``interegular`` installed (the
    test extra installs it) Lark looks for terminals that match the same text whenever it builds a
    lexer, which is a third of building the parser; outside strict mode it only logs what it finds
    to Lark's logger, which is silent.  The strict parser (a test builds it) still checks, and the
    parser built is the same either way."""
    before = getattr(lark.lexer, "has_interegular", False)
    lark.lexer.has_interegular = False
    try:
        yield
    finally:
        lark.lexer.has_interegular = before


def write_built_parsers(folder: Path) -> list[Path]:
    """Build every parser of the grammar and save each in ``folder`` under :func:`built_parser_name`
    (run when the wheel is built, so that an installed warscribe never builds its parser)."""
    text = grammar_text()
    written = []
    for variant in VARIANTS:
        path = folder / built_parser_name(variant, text)
        path.unlink(missing_ok=True)
        _build(variant, str(path))
        written.append(path)
    return written


def pass_single_children(built: Lark) -> Lark:
    """``built`` with the work it does for nothing skipped: most reductions in a rules file (60,000 of
    83,000 for the bundled rulesets) go up the expression grammar's precedence levels
    (``?sum: product``, ``?product: unary``…), each returning its only child, which Lark then
    passes through its position wrapper, where a child that already has its positions (every
    tree and token does) changes nothing.  Such a rule's callback becomes "the only child" itself:
    the same tree, the same positions, about a fifth less time.  A rule is left as Lark built it
    when it could do anything else: an alias (``-> name`` makes a node), a child inlined
    (``_name``) or filtered out (punctuation), or an optional part (a placeholder)."""
    callbacks = getattr(getattr(getattr(built.parser, "parser", None), "parser", None), "callbacks", None)
    if not isinstance(callbacks, dict):  # a Lark laid out otherwise: its own callbacks are right, if slower
        return built
    for rule in list(callbacks):
        if rule.alias or not rule.options.expand1 or len(rule.expansion) != 1 or rule.options.empty_indices:
            continue
        child = rule.expansion[0]
        if child.name.startswith("_") or (child.is_term and child.filter_out):
            continue
        callbacks[rule] = _only_child
    return built


def _only_child(children: list[Any]) -> Any:
    return children[0]


@functools.lru_cache(maxsize=None)
def parser(strict: bool = False) -> Lark:
    """The Lark parser (built once). ``strict=True`` makes grammar conflicts errors (and is never cached)."""
    if strict:
        return _build("parser", False, strict=True)
    return pass_single_children(_load_or_build("parser"))


@functools.lru_cache(maxsize=1)
def token_parser() -> Lark:
    """The language's parser, keeping every token (brackets, keywords, signs) in the tree."""
    return pass_single_children(_load_or_build("tokens"))
