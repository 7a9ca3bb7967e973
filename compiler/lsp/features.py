"""The language features, as pure functions of a :class:`~compiler.lsp.index.Snapshot`.

Each takes the snapshot, a file's real path and a 0-based position, and returns
lsprotocol values; the server only routes requests to them.  Nothing here changes
the snapshot.
"""
from __future__ import annotations

import functools
import re
from typing import Iterable, Sequence

from lsprotocol import types as T
from pygls.uris import from_fs_path
from pygments.token import Comment, Keyword, Literal, Name, Number, Operator, String

from compiler import ast as A
from compiler.diagnostics import Diagnostic, Severity
from compiler.lsp.index import Occurrence, Snapshot, Token, real
from compiler.model.ruleset import kind_of
from compiler.syntax.fmt import FormatError, format_text

__all__ = [
    "SEMANTIC_LEGEND", "code_actions", "completions", "document_symbols", "formatting", "location",
    "lsp_diagnostics", "prepare_rename", "rename", "RenameRefused", "semantic_tokens", "symbol_kind",
]

_SEVERITY = {Severity.ERROR: T.DiagnosticSeverity.Error, Severity.WARNING: T.DiagnosticSeverity.Warning,
             Severity.NOTE: T.DiagnosticSeverity.Information}
_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'")
_QUOTED = re.compile(r"'([^']+)'")


# -- diagnostics -------------------------------------------------------------


def _range(line: int, column: int, end_line: int, end_column: int) -> T.Range:
    """An LSP range from a 1-based, end-exclusive span."""
    start = T.Position(max(line - 1, 0), max(column - 1, 0))
    end = T.Position(max(end_line - 1, 0), max(end_column - 1, 0))
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return T.Range(start, end)


def lsp_diagnostics(snap: Snapshot) -> dict[str, list[T.Diagnostic]]:
    """The compilation's diagnostics by real path: the same codes, messages, spans and hints as ``check``."""
    out: dict[str, list[T.Diagnostic]] = {p: [] for p in snap.texts}
    if snap.compilation is None:
        return out
    for d in snap.compilation.diagnostics:
        path = real(d.span.file)
        if path not in out:
            continue
        out[path].append(_diagnostic(d))
    return out


def _diagnostic(d: Diagnostic) -> T.Diagnostic:
    s = d.span
    related = [T.DiagnosticRelatedInformation(
        T.Location(_uri(real(span.file)), _range(span.line, span.column, span.end_line, span.end_column)), message)
        for span, message in d.related]
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    data = {"hint": d.hint} if d.hint else None
    return T.Diagnostic(range=_range(s.line, s.column, s.end_line, s.end_column), message=message,
                        severity=_SEVERITY[d.severity], code=d.code, source="warscribe",
                        related_information=related or None, data=data)


def _uri(path: str) -> str:
    return from_fs_path(path) or path


def location(occ: Occurrence) -> T.Location:
    return T.Location(_uri(occ.path), T.Range(T.Position(occ.line, occ.start), T.Position(occ.line, occ.end)))


# -- quick fixes ---------------------------------------------------------------


def code_actions(snap: Snapshot, uri: str, path: str, diagnostics: Sequence[T.Diagnostic]) -> list[T.CodeAction]:
    """The certain fixes of the diagnostics (those ``warscribe check --fix`` makes), preferred;
    for each other diagnostic whose hint says "did you mean 'X'?", an edit that writes X instead."""
    text = snap.texts.get(path)
    actions: list[T.CodeAction] = []
    if text is None:
        return actions
    fixed = _certain_fixes(snap, path, diagnostics, actions)
    lines = text.splitlines()
    for diag in diagnostics:
        if id(diag) in fixed:
            continue
        hint = diag.data.get("hint") if isinstance(diag.data, dict) else None
        found = _DID_YOU_MEAN.search(hint or diag.message)
        wrong = _QUOTED.search(diag.message.split("\n")[0])
        if not found or not wrong:
            continue
        start, end = diag.range.start, diag.range.end
        if start.line >= len(lines):
            continue
        line = lines[start.line]
        stop = end.character if end.line == start.line and end.character > start.character else len(line)
        at = _word_in(line, wrong.group(1), start.character, stop)
        if at is None:
            continue
        edit = T.TextEdit(T.Range(T.Position(start.line, at), T.Position(start.line, at + len(wrong.group(1)))),
                          found.group(1))
        actions.append(T.CodeAction(title=f"Change to '{found.group(1)}'", kind=T.CodeActionKind.QuickFix,
                                    diagnostics=[diag], is_preferred=True,
                                    edit=T.WorkspaceEdit(changes={uri: [edit]})))
    return actions


def _certain_fixes(snap: Snapshot, path: str, diagnostics: Sequence[T.Diagnostic],
                   actions: list[T.CodeAction]) -> set[int]:
    """A code action for each fix of a compiled diagnostic the editor asks about (the same code,
    where it starts); the ids of the diagnostics they fix."""
    from compiler.fixes import edits, position

    fixed: set[int] = set()
    if snap.compilation is None:
        return fixed
    asked = {(d.code, d.range.start.line, d.range.start.character): d for d in diagnostics}
    for d in snap.compilation.diagnostics:
        lsp = asked.get((d.code, d.span.line - 1, d.span.column - 1))
        if not d.fixes or lsp is None or real(d.span.file) != path:
            continue
        for fix in d.fixes:
            target = real(fix.span.file)
            text = snap.texts.get(target)
            if text is None:
                continue
            for e in edits(text, [d], fix.span.file):
                if e.fix is not fix:
                    continue
                (l1, c1), (l2, c2) = position(text, e.start), position(text, e.end)
                edit = T.TextEdit(T.Range(T.Position(l1, c1), T.Position(l2, c2)), e.new)
                actions.append(T.CodeAction(title=f"Fix: {fix.title or d.message}", kind=T.CodeActionKind.QuickFix,
                                            diagnostics=[lsp], is_preferred=True,
                                            edit=T.WorkspaceEdit(changes={_uri(target): [edit]})))
                fixed.add(id(lsp))
    return fixed


def _word_in(line: str, word: str, start: int, stop: int) -> int | None:
    for m in re.finditer(r"(?<![A-Za-z0-9_])" + re.escape(word) + r"(?![A-Za-z0-9_])", line):
        if start <= m.start() < max(stop, start + 1):
            return m.start()
    return None


# -- completion ------------------------------------------------------------------

_KIND = {"stat": T.CompletionItemKind.Field, "keyword": T.CompletionItemKind.EnumMember,
         "status": T.CompletionItemKind.EnumMember, "term": T.CompletionItemKind.Text,
         "situation": T.CompletionItemKind.Enum, "ability": T.CompletionItemKind.Event,
         "unit": T.CompletionItemKind.Class, "weapon": T.CompletionItemKind.Class,
         "squad": T.CompletionItemKind.Class, "table": T.CompletionItemKind.Function,
         "test": T.CompletionItemKind.Function, "formula": T.CompletionItemKind.Function,
         "attack": T.CompletionItemKind.Function, "die": T.CompletionItemKind.Constant,
         "modifier": T.CompletionItemKind.Operator, "section": T.CompletionItemKind.Module,
         "rule": T.CompletionItemKind.Module}
_LANGUAGE_WORDS = sorted(set((
    "stat keyword status term situation die test table formula modifier ability attack unit weapon squad army "
    "game example property claim section rule include replace remove extend roll against natural fails succeeds never "
    "better worse than otherwise each not and or if then else in is has with when on extra expect keywords "
    "abilities weapons points models").split()))


def _item(decl: A.Decl, sort: str = "1") -> T.CompletionItem:
    kind = kind_of(decl)
    title = getattr(decl, "title", None)
    short = getattr(decl, "short", None)
    doc = "\n\n".join(x for x in (f"**{title}**" if title else "", short or "") if x)
    return T.CompletionItem(label=decl.id, kind=_KIND.get(kind, T.CompletionItemKind.Reference),
                            detail=f"{kind}" + (f" · {title}" if title else ""),
                            documentation=T.MarkupContent(T.MarkupKind.Markdown, doc) if doc else None,
                            sort_text=f"{sort}{decl.id}")


def completions(snap: Snapshot, path: str, line: int, character: int) -> list[T.CompletionItem]:
    """What may be written here: stats after a dot or in a profile, keywords and abilities in
    their lists, the choices of a situation after ``=``/``is``, situations after ``with``, else every name."""
    text = snap.texts.get(path, "")
    lines = text.splitlines()
    before = lines[line][:character] if line < len(lines) else ""
    symbols = snap.symbols

    def of(*types: type) -> list[T.CompletionItem]:
        return [_item(d) for d in symbols.values() if isinstance(d, types)]

    def entries(kind: str) -> list[T.CompletionItem]:
        return [_item(d) for d in symbols.values() if isinstance(d, A.Entry) and d.kind == kind]

    choice = re.search(r"([A-Za-z_]\w*)\s*(?:==|!=|=|\bis(?:\s+not)?)\s*[A-Za-z_]*$", before)
    if choice and isinstance(symbols.get(choice.group(1)), A.Situation):
        sit = symbols[choice.group(1)]
        assert isinstance(sit, A.Situation)
        return [T.CompletionItem(label=c, kind=T.CompletionItemKind.EnumMember, detail=f"choice of {sit.id}")
                for c in sit.choices]
    if re.search(r"\.\s*[A-Za-z_]*$", before) and not re.search(r"\d\.\w*$", before):
        return of(A.Stat)
    stripped = before.lstrip()
    if re.match(r"keywords\b", stripped) or re.search(r"\bhas\s+(?:not\s+)?[A-Za-z_]*$", before):
        return entries("keyword") + (of(A.Ability) if "has" in before else [])
    if re.match(r"abilities\b", stripped):
        return of(A.Ability)
    if re.match(r"weapons\b", stripped):
        return [_item(d) for d in symbols.values() if isinstance(d, A.Profile) and d.kind == "weapon"]
    if re.search(r"\b(?:with|when)\b[^:]*$", before) and not re.search(r"[-+*/(]\s*[A-Za-z_]*$", before):
        return of(A.Situation) + entries("status")
    enclosing = _enclosing(snap, path, line)
    if isinstance(enclosing, A.Profile) and re.fullmatch(r"\s+(?:[A-Za-z_]\w*\s+\S+\s+)*[A-Za-z_]*", before):
        return of(A.Stat) + [T.CompletionItem(label=w, kind=T.CompletionItemKind.Keyword, sort_text=f"3{w}")
                             for w in ("keywords", "abilities", "weapons", "points")]
    items = [_item(d, "2" if isinstance(d, (A.Section, A.Rule, A.Note, A.Example, A.Property)) else "1")
             for d in symbols.values()]
    if not stripped or re.fullmatch(r"[A-Za-z_]*", stripped):
        items += [T.CompletionItem(label=w, kind=T.CompletionItemKind.Keyword, sort_text=f"3{w}")
                  for w in _LANGUAGE_WORDS]
    return items


def _enclosing(snap: Snapshot, path: str, line: int) -> A.Decl | None:
    """The innermost declaration whose span holds the (0-based) line."""
    best: A.Decl | None = None
    model = snap.model
    if model is None:
        return None
    for d in model.walk():
        if real(d.span.file) == path and d.span.line - 1 <= line <= d.span.end_line - 1:
            best = d
    return best


# -- rename ------------------------------------------------------------------------

_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _exact(snap: Snapshot, occs: Iterable[Occurrence]) -> list[Occurrence]:
    """The occurrences written with the id itself (not an alias)."""
    return [o for o in occs if o.end - o.start == len(o.name)
            and snap.texts.get(o.path, "").splitlines()[o.line][o.start:o.end] == o.name]


def prepare_rename(snap: Snapshot, path: str, line: int, character: int) -> T.Range | None:
    occ = snap.occurrence_at(path, line, character)
    if occ is None or not _exact(snap, [occ]):
        return None
    return T.Range(T.Position(occ.line, occ.start), T.Position(occ.line, occ.end))


_DIE = re.compile(r"[dD]\d+")


@functools.lru_cache(maxsize=1)
def language_words() -> frozenset[str]:
    """The words of the language (``roll``, ``table``, ``not``…): the grammar's keywords."""
    from compiler.syntax.grammar import parser

    return frozenset(str(t.pattern.value) for t in parser().terminals
                     if t.pattern.type == "str" and _ID.fullmatch(str(t.pattern.value)))


class RenameRefused(ValueError):
    """A rename that would break the rules: the new name is no name, is taken, or cannot stand there."""


def rename(snap: Snapshot, path: str, line: int, character: int, new_name: str,
           uris: dict[str, str]) -> T.WorkspaceEdit | None:
    """Every occurrence of the name under the cursor, in every file of the ruleset and its base.

    Refused (:class:`RenameRefused`, with the reason) when ``new_name`` is not a name, is already
    the name of something, or makes the rules fail to check where they checked before (a word
    of the language, such as ``roll`` or ``table``, cannot be a name there)."""
    occ = snap.occurrence_at(path, line, character)
    if occ is None:
        return None
    if not _ID.fullmatch(new_name):
        raise RenameRefused(f"'{new_name}' is not a name: use letters, digits and _, starting with a letter")
    if new_name == occ.name:
        return T.WorkspaceEdit(changes={})
    if new_name in language_words() or _DIE.fullmatch(new_name):
        raise RenameRefused(f"'{new_name}' is a word of the language"
                            f"{' (a die)' if _DIE.fullmatch(new_name) else ''}; choose another name")
    taken = snap.names.get(new_name)
    if taken is not None:
        decl = snap.symbols.get(taken)
        what = f"the {kind_of(decl)} '{taken}'" if decl is not None else f"'{taken}'"
        raise RenameRefused(f"'{new_name}' is already the name of {what}; choose another name")
    found = _exact(snap, snap.references(occ.name))
    _refuse_if_it_breaks(snap, found, new_name)
    changes: dict[str, list[T.TextEdit]] = {}
    for o in found:
        uri = uris.get(o.path) or _uri(o.path)
        changes.setdefault(uri, []).append(T.TextEdit(location(o).range, new_name))
    return T.WorkspaceEdit(changes=changes)


def _refuse_if_it_breaks(snap: Snapshot, found: list[Occurrence], new_name: str) -> None:
    """Compile the renamed texts (in memory): a rename that adds an error is refused with it."""
    from compiler.lsp.index import snapshot

    texts = {p: t.splitlines(keepends=True) for p, t in snap.texts.items()}
    for o in sorted(found, key=lambda o: (o.path, o.line, -o.start)):
        row = texts[o.path][o.line]
        texts[o.path][o.line] = row[:o.start] + new_name + row[o.end:]
    after = snapshot(snap.folder, {p: "".join(lines) for p, lines in texts.items()})
    if after.compilation is None:
        raise RenameRefused(f"'{new_name}' cannot be the name here: {after.error}")
    before = {(d.code, d.message) for d in (snap.compilation.diagnostics if snap.compilation else ()) if d.is_error}
    new = [d for d in after.compilation.diagnostics if d.is_error and (d.code, d.message) not in before]
    if new:
        raise RenameRefused(f"'{new_name}' cannot be the name here: {new[0].message}")


# -- outline -----------------------------------------------------------------------

_SYMBOL_KIND = {"stat": T.SymbolKind.Field, "keyword": T.SymbolKind.EnumMember, "status": T.SymbolKind.EnumMember,
                "term": T.SymbolKind.String, "situation": T.SymbolKind.Enum, "die": T.SymbolKind.Constant,
                "test": T.SymbolKind.Function, "table": T.SymbolKind.Function, "formula": T.SymbolKind.Function,
                "attack": T.SymbolKind.Function, "modifier": T.SymbolKind.Operator, "ability": T.SymbolKind.Event,
                "unit": T.SymbolKind.Class, "weapon": T.SymbolKind.Class, "squad": T.SymbolKind.Class,
                "army": T.SymbolKind.Struct, "game": T.SymbolKind.Module, "section": T.SymbolKind.Namespace,
                "rule": T.SymbolKind.Namespace, "example": T.SymbolKind.Method, "property": T.SymbolKind.Method,
                "claim": T.SymbolKind.Method}


def symbol_kind(decl: A.Decl) -> T.SymbolKind:
    return _SYMBOL_KIND.get(kind_of(decl), T.SymbolKind.Object)


def document_symbols(snap: Snapshot, path: str) -> list[T.DocumentSymbol]:
    """The outline of one file: its sections and rules with the declarations inside them."""
    model = snap.model
    if model is None:
        return _flat_symbols(snap, path)
    files = {real(f) for f in model.files}
    top = model.items
    if path not in files:
        base = model.base
        while base is not None and path not in {real(f) for f in base.files}:
            base = base.base
        if base is None:
            return _flat_symbols(snap, path)
        top = base.items
    return _symbols(snap, path, top)


def _symbols(snap: Snapshot, path: str, decls: tuple[A.Decl, ...]) -> list[T.DocumentSymbol]:
    out: list[T.DocumentSymbol] = []
    for d in decls:
        if isinstance(d, (A.ProseBlock, A.Replace, A.Remove, A.Extend, A.Include)) or not d.id:
            continue
        if real(d.span.file) != path:
            continue
        whole = _range(d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        home = snap.definition(d.id)
        sel = location(home).range if home is not None and home.path == path and _within(home, whole) else whole
        children = _symbols(snap, path, d.body) if isinstance(d, (A.Section, A.Rule)) else []
        kind = kind_of(d)
        title = getattr(d, "title", None)
        out.append(T.DocumentSymbol(name=d.id, detail=f"{kind}" + (f" · {title}" if title else ""),
                                    kind=_SYMBOL_KIND.get(kind, T.SymbolKind.Object), range=whole,
                                    selection_range=sel, children=children or None))
    return out


def _within(o: Occurrence, r: T.Range) -> bool:
    return r.start.line <= o.line <= r.end.line


def _flat_symbols(snap: Snapshot, path: str) -> list[T.DocumentSymbol]:
    """Without a model (the ruleset does not parse): the words that follow a declaration keyword."""
    out = []
    for tok_prev, tok in zip(snap.tokens.get(path, ()), snap.tokens.get(path, ())[1:]):
        if tok_prev.type in Keyword.Declaration and tok.type in Name and tok.line == tok_prev.line:
            r = T.Range(T.Position(tok.line, tok.start), T.Position(tok.line, tok.end))
            out.append(T.DocumentSymbol(name=tok.text, detail=tok_prev.text, kind=_SYMBOL_KIND.get(
                tok_prev.text, T.SymbolKind.Object), range=r, selection_range=r))
    return out


# -- formatting ----------------------------------------------------------------------


def formatting(text: str, path: str) -> list[T.TextEdit] | None:
    """``warscribe fmt`` on the buffer: one edit replacing the whole text, none if already formatted,
    ``None`` when the text does not parse."""
    try:
        result = format_text(text, path)
    except FormatError:
        return None
    if result == text:
        return []
    lines = text.split("\n")
    end = T.Position(len(lines) - 1, len(lines[-1]))
    return [T.TextEdit(T.Range(T.Position(0, 0), end), result)]


# -- semantic tokens ---------------------------------------------------------------------

SEMANTIC_LEGEND = T.SemanticTokensLegend(
    token_types=["keyword", "comment", "string", "number", "operator", "function", "class", "property",
                 "enumMember", "enum", "namespace", "variable", "macro", "event", "type"],
    token_modifiers=["declaration", "defaultLibrary", "documentation"],
)
_TYPE_INDEX = {t: i for i, t in enumerate(SEMANTIC_LEGEND.token_types)}
_BY_KIND = {"stat": "property", "keyword": "enumMember", "status": "enumMember", "term": "macro",
            "situation": "enum", "ability": "event", "unit": "class", "weapon": "class", "squad": "class",
            "army": "class", "game": "namespace", "table": "function", "test": "function", "formula": "function",
            "attack": "function", "die": "type", "section": "namespace", "rule": "namespace"}


def _token_type(snap: Snapshot, tok: Token) -> tuple[str, int] | None:
    t = tok.type
    if t in Comment:
        return "comment", 0
    if t in Name.Label:
        return "macro", 0
    if t in String.Doc:
        return "string", 4
    if t in String or t in Literal.Date:
        return "string", 0
    if t in Number:
        return "number", 0
    if t in Keyword:
        return "keyword", 0
    if t in Operator:
        return "operator", 0
    if t in Name.Builtin:
        return "function", 2
    if t in Name:
        id_ = snap.names.get(tok.text)
        decl = snap.symbols.get(id_) if id_ else None
        if decl is not None:
            return _BY_KIND.get(kind_of(decl), "variable"), 0
        if t in Name.Namespace:
            return "namespace", 0
        return "variable", 0
    return None


def semantic_tokens(snap: Snapshot, path: str) -> T.SemanticTokens:
    """Every token of the file, coloured by what its name declares (a stat, a keyword, a table…)."""
    defining = {(o.line, o.start) for o in snap.occurrences if o.path == path and o.defines}
    data: list[int] = []
    prev_line, prev_start = 0, 0
    for tok in snap.tokens.get(path, ()):
        found = _token_type(snap, tok)
        if found is None:
            continue
        name, mods = found
        if (tok.line, tok.start) in defining:
            mods |= 1
        delta_line = tok.line - prev_line
        delta_start = tok.start - prev_start if delta_line == 0 else tok.start
        data += [delta_line, delta_start, tok.end - tok.start, _TYPE_INDEX[name], mods]
        prev_line, prev_start = tok.line, tok.start
    return T.SemanticTokens(data=data)
