"""One immutable snapshot of a ruleset as an editor sees it: compiled, and indexed by name.

:func:`snapshot` compiles the ruleset folder of a document (with the editor's unsaved
buffers standing in for the files on disk) and tokenises every file it read — the
ruleset's own and its base's — with the Pygments lexer.  Each word that names a
declaration of the model is an :class:`Occurrence`; the one inside the declaration's
span, right after its keyword, is the definition.  Positions are 0-based (line,
character), as the Language Server Protocol counts them.

>>> from pathlib import Path
>>> import compiler
>>> snap = snapshot(str(Path(compiler.__file__).parent.parent / "rules" / "console-40k"))
>>> snap.definition("BS").line, len(snap.references("BS")) > 3
(15, True)
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from pygments.token import Keyword, Name, Number, Text

from compiler import ast as A
from compiler.driver import Compilation, compile_paths
from compiler.model.load import UsageError
from compiler.model.ruleset import Ruleset
from compiler.syntax.lexer import WarscribeLexer

__all__ = ["Occurrence", "Snapshot", "Token", "real", "snapshot"]

_LABEL = re.compile(r"\[\[([^\]|]+)")
# Declaration keywords that name an existing declaration instead of declaring one.
_CHANGES = ("remove", "extend")


def real(path: str) -> str:
    """The canonical form of a path, the key of every file in a snapshot."""
    return os.path.realpath(path)


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a file: where it stands (0-based) and its Pygments type."""

    line: int
    start: int
    end: int
    type: Any  # a Pygments token type (Name.Function, Keyword…)
    text: str


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A word that names a declaration (``name``) in file ``path``."""

    path: str
    line: int
    start: int
    end: int
    name: str
    defines: bool = False


def tokenize(text: str) -> tuple[Token, ...]:
    """The file's tokens with 0-based positions (multi-line tokens are split at line ends)."""
    out: list[Token] = []
    line, col = 0, 0
    for _, ttype, value in WarscribeLexer().get_tokens_unprocessed(text):
        parts = value.split("\n")
        for i, part in enumerate(parts):
            if i:
                line, col = line + 1, 0
            if part:
                out.append(Token(line, col, col + len(part), ttype, part))
                col += len(part)
    return tuple(out)


def _occurrences(path: str, tokens: tuple[Token, ...], known: Mapping[str, str]) -> Iterator[Occurrence]:
    """The words of a file that name a declaration; ``known`` maps each word (an id or an alias) to an id."""
    previous: Token | None = None
    for tok in tokens:
        if tok.type in Name.Label:
            m = _LABEL.match(tok.text)
            if m:
                word = m.group(1).strip()
                begin = tok.start + m.start(1) + (len(m.group(1)) - len(m.group(1).lstrip()))
                if word in known:
                    yield Occurrence(path, tok.line, begin, begin + len(word), known[word])
        elif tok.type in Name and tok.type is not Name.Builtin and tok.text in known:
            defines = (previous is not None and previous.line == tok.line and previous.type in Keyword.Declaration
                       and previous.text not in _CHANGES)
            yield Occurrence(path, tok.line, tok.start, tok.end, known[tok.text], defines)
        if tok.type not in Text:  # whitespace is Text.Whitespace
            previous = tok


@dataclass(frozen=True)
class Snapshot:
    """A compiled ruleset folder and the index of its names.  Never changed once built."""

    folder: str
    compilation: Compilation | None
    texts: Mapping[str, str]  # real path -> text, every file the compilation read
    versions: Mapping[str, int]  # real path -> the editor's version of an open document
    error: str | None = None  # why the folder could not be compiled at all

    @cached_property
    def model(self) -> Ruleset | None:
        if self.compilation is None:
            return None
        for r in self.compilation.rulesets:
            if real(r.folder) == self.folder:
                return r
        return self.compilation.rulesets[0] if self.compilation.rulesets else None

    @cached_property
    def symbols(self) -> Mapping[str, A.Decl]:
        """Every declaration by id: the ruleset's (its base merged in), then what the overlay removed."""
        table: dict[str, A.Decl] = {}
        model = self.model
        while model is not None:
            for k, v in model.symbols.items():
                table.setdefault(k, v)
            model = model.base
        return MappingProxyType(table)

    @cached_property
    def tokens(self) -> Mapping[str, tuple[Token, ...]]:
        return MappingProxyType({p: tokenize(t) for p, t in self.texts.items()})

    @cached_property
    def names(self) -> Mapping[str, str]:
        """Every word that names a declaration (its id, or an alias given with ``aka``) -> the id."""
        table: dict[str, str] = {}
        for id_, decl in self.symbols.items():
            for alias in getattr(decl, "aka", ()) or ():
                if alias.isidentifier():
                    table.setdefault(alias, id_)
        table.update({k: k for k in self.symbols})
        return MappingProxyType(table)

    @cached_property
    def occurrences(self) -> tuple[Occurrence, ...]:
        known = self.names
        return tuple(o for p in sorted(self.texts) for o in _occurrences(p, self.tokens[p], known))

    @cached_property
    def _by_name(self) -> Mapping[str, tuple[Occurrence, ...]]:
        table: dict[str, list[Occurrence]] = {}
        for o in self.occurrences:
            table.setdefault(o.name, []).append(o)
        return MappingProxyType({k: tuple(v) for k, v in table.items()})

    def file_of(self, decl: A.Decl) -> str:
        return real(decl.span.file)

    def definition(self, name: str) -> Occurrence | None:
        """Where ``name`` is declared: its word in the declaration the model uses."""
        decl = self.symbols.get(name)
        occs = self._by_name.get(name, ())
        if decl is not None:
            path, first, last = self.file_of(decl), decl.span.line - 1, decl.span.end_line - 1
            inside = [o for o in occs if o.path == path and first <= o.line <= max(first, last)]
            for o in inside:
                if o.defines:
                    return o
            if inside:
                return inside[0]
            return Occurrence(path, first, max(decl.span.column - 1, 0), max(decl.span.column - 1, 0), name, True)
        return next((o for o in occs if o.defines), None)

    def references(self, name: str, include_declaration: bool = True) -> tuple[Occurrence, ...]:
        """Every word naming ``name`` in the ruleset's files and its base's."""
        occs = self._by_name.get(name, ())
        if include_declaration:
            return occs
        home = self.definition(name)
        return tuple(o for o in occs if o != home)

    def token_at(self, path: str, line: int, character: int) -> Token | None:
        """The token under (or just before) the cursor."""
        before = None
        for tok in self.tokens.get(path, ()):
            if tok.line == line and tok.start <= character < tok.end:
                return tok
            if tok.line == line and tok.end == character:
                before = tok
        return before

    def occurrence_at(self, path: str, line: int, character: int) -> Occurrence | None:
        best = None
        for o in self.occurrences:
            if o.path == path and o.line == line and o.start <= character <= o.end:
                if best is None or o.start <= character < o.end:
                    best = o
        return best


def is_target(tok: Token) -> bool:
    """A target such as ``4+`` or ``3-``."""
    return tok.type in Number and re.fullmatch(r"\d+[+-]", tok.text) is not None


def snapshot(folder: str, overrides: Mapping[str, str] | None = None,
             versions: Mapping[str, int] | None = None) -> Snapshot:
    """Compile the ruleset in ``folder`` with ``overrides`` (real path -> text) for unsaved buffers."""
    folder = real(folder)
    overrides = dict(overrides or {})
    try:
        result = compile_paths([folder], overrides)
    except UsageError as err:
        return Snapshot(folder, None, MappingProxyType(overrides), MappingProxyType(dict(versions or {})), str(err))
    # Looking for a base reads the folders beside this one: keep only the files of this ruleset and its bases.
    folders = {folder}
    model = next((r for r in result.rulesets if real(r.folder) == folder), None)
    while model is not None:
        folders.add(real(model.folder))
        model = model.base
    texts = {real(k): v for k, v in result.sources.items() if os.path.dirname(real(k)) in folders}
    return Snapshot(folder, result, MappingProxyType(texts), MappingProxyType(dict(versions or {})))
