"""``warscribe fmt``: rewrite ``.rules`` files in the canonical layout, keeping every comment.

The formatter never changes what the rules say: it changes only whitespace.

- Blocks are indented two spaces per level; a comment on its own line takes the
  indentation of the block it sits in.
- Between tokens: one space, none inside brackets, before ``,`` ``:`` ``)``, around
  ``.`` and ``..`` (``1..10``, ``shooter.BS``), after a sign (``-1``), before a
  target's ``+``/``-`` (``4+``), between a name and its ``(`` (``hit(4)``) and
  in a fraction (``25/18``).
  Two spaces between a profile's stats (``WS 4  BS 4``).
- What the author lined up stays lined up: ``->`` in table rows, ``=`` in attack
  steps and expectations, profile and grid columns, titles, trailing comments.
  Where consecutive lines have such a piece and the source padded any of them
  with extra spaces, all of them are put in one column, as far right as the
  longest needs (and no further); unpadded pieces get the plain spacing.
- Prose blocks are kept byte for byte; only their indentation moves with their
  block.  Trailing spaces go (except inside prose), runs of blank lines shrink
  to two, the file ends with one newline.

The work is done in :mod:`compiler.syntax.spacing` (the tokens and the spaces between
two of them) and :mod:`compiler.syntax.layout` (lines, columns lined up, text); this
module checks the result and reads and writes files.

Every result is checked before it is returned: the formatted text must parse
to the same declarations (spans aside) as the original, or :class:`FormatError`
is raised and nothing is written.

>>> print(format_text('stat BS "Ballistic Skill" 1 .. 10:"Aim." # BS\\ntable t(x:1..6)"T":\\n    x>=4 -> 3+\\n    otherwise->4 +\\n'), end="")
stat BS "Ballistic Skill" 1..10: "Aim."  # BS
table t(x: 1..6) "T":
  x >= 4 -> 3+
  otherwise -> 4+
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from lark import Token, Tree

from compiler import codes
from compiler.diagnostics import Diagnostic, Severity, Span
from compiler.syntax.grammar import token_parser
from compiler.syntax.layout import Layout
from compiler.syntax.spacing import tokens


class FormatError(Exception):
    """The text cannot be formatted: it does not parse (or, a bug, formatting would change it)."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        super().__init__(diagnostics[0].message if diagnostics else "cannot format")
        self.diagnostics = diagnostics


def _parse_for_format(text: str, path: str) -> tuple[Tree[Token], Any]:
    from compiler.ast.build import build_file
    from compiler.syntax.parse import parse_text

    tree, diags = parse_text(text, path)
    if tree is None:
        raise FormatError(diags)
    file, diags = build_file(tree, path)
    errors = tuple(d for d in diags if d.code == codes.NOT_UNDERSTOOD.code)
    if errors:
        raise FormatError(errors)
    return tree, file


def format_text(text: str, path: str = "<text>") -> str:
    """The canonical layout of one file's text.  Raises :class:`FormatError` when it does not parse.

    >>> print(format_text('unit marine "Marine":\\n    BS 4   Sv 3+\\n'), end="")
    unit marine "Marine":
      BS 4  Sv 3+
    >>> try:
    ...     format_text('stat BS "B 1..6\\n')
    ... except FormatError as error:
    ...     print(error.diagnostics[0].code, error)
    W001 this quoted text is not closed on its line
    """
    _, before = _parse_for_format(text, path)
    crlf = "\r\n" in text and text.count("\r\n") * 2 >= text.count("\n")  # mostly Windows line endings
    source = text.replace("\r\n", "\n")
    source = source if source.endswith("\n") else source + "\n"
    tree = token_parser().parse(source, start="start")
    result = Layout(source, tokens(tree)).run()
    try:
        _, after = _parse_for_format(result, path)
    except FormatError as err:
        raise FormatError((_bug(path, f"the formatted text does not parse: {err}"),)) from None
    if structure(before) != structure(after):
        raise FormatError((_bug(path, "formatting would change what the rules say"),))
    return result.replace("\n", "\r\n") if crlf else result


def _bug(path: str, message: str) -> Diagnostic:
    return Diagnostic(codes.CANNOT_FORMAT.code, Severity.ERROR, f"cannot format this file: {message}", Span.point(path),
                      "this is a bug in warscribe fmt; the file is left as it was")


def structure(node: Any) -> Any:
    """What a parsed file says, without where it says it: the AST with every span and position dropped."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(
            (f.name, structure(getattr(node, f.name))) for f in dataclasses.fields(node)
            if f.name not in ("span", "path", "line0", "col0", "indent") and not f.name.endswith("_span")
            and not f.name.endswith("_spans"))
    if isinstance(node, (list, tuple)):
        return tuple(structure(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((k, structure(v)) for k, v in node.items()))
    return node


# ---------------------------------------------------------------------------
# Files and folders
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FileResult:
    path: Path
    changed: bool
    error: FormatError | None = None
    before: str = ""
    after: str = ""


def rules_files(paths: Iterable[str]) -> Iterator[Path]:
    """The ``.rules`` files named by ``paths`` (files, or folders searched recursively), sorted, once each.

    Links that lead out of a folder being searched are not followed.
    """
    from compiler.diagnostics import UsageError
    from compiler.safepaths import is_inside

    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError(f"no such file or folder: {raw}")
        if p.is_file():
            if p.suffix != ".rules":
                raise UsageError(f"not a .rules file: {raw}")
            found = [p]
        else:
            found = sorted(f for f in p.rglob("*.rules")
                           if f.is_file() and not any(part.startswith(".") for part in f.relative_to(p).parts)
                           and is_inside(f, p))
        for f in found:
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                yield f


def format_file(path: Path, write: bool = True) -> FileResult:
    """Format one file; write it back (atomically) when it changed and ``write`` is set — unless
    the file changed on disk since it was read (an edit saved meanwhile is never overwritten)."""
    from compiler.atomic import write_atomic
    from compiler.diagnostics import display_path
    from compiler.outputs import fingerprint, unchanged_since

    shown = display_path(path)
    try:
        seen = fingerprint(path)
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return FileResult(path, False, FormatError((Diagnostic(codes.NOT_UTF8.code, Severity.ERROR, "this file is not UTF-8 text",
                                                               Span.point(shown), "save it as UTF-8"),)))
    except OSError as e:
        return FileResult(path, False, FormatError((Diagnostic(codes.UNREADABLE.code, Severity.ERROR,
                                                               f"cannot read this file: {e.strerror}",
                                                               Span.point(shown)),)))
    try:
        result = format_text(text, shown)
    except FormatError as err:
        return FileResult(path, False, err, text, text)
    changed = result != text
    if changed and write:
        if not unchanged_since(path, seen, raw):
            return FileResult(path, False, FormatError((Diagnostic(
                codes.UNREADABLE.code, Severity.ERROR, "this file changed while it was being formatted, so it was "
                "left as it was saved", Span.point(shown), "run `warscribe fmt` on it again"),)), text, text)
        write_atomic(path, result)
    return FileResult(path, changed, None, text, result)
