"""A file's AST as if it had been read at another path.

Parsing a text gives the same tree wherever the file lies, but for one thing: every span names
the file (:attr:`~compiler.diagnostics.Span.file`), and so does :attr:`A.File.path
<compiler.ast.document.File.path>`.  The Changes pages compile old releases of a ruleset from
git into a temporary folder, and most of their files have a text already parsed in the same run
(the current file's, or another release's): :func:`moved` gives their ASTs from those instead of
parsing again.  Only those two places change; anything the walk does not know (a new kind of
value in a node) makes it give up, and the caller parses.

>>> from compiler.ast.cached import parse_file
>>> here = parse_file('stat BS "Ballistic Skill" 1..10\\n', "a/x.rules")
>>> moved(here, "a/x.rules", "b/x.rules") == parse_file('stat BS "Ballistic Skill" 1..10\\n', "b/x.rules")
True
"""
from __future__ import annotations

import dataclasses
import enum
from fractions import Fraction
from typing import Any, TypeVar

from compiler.ast.document import File
from compiler.diagnostics import Span

__all__ = ["moved"]

T = TypeVar("T")

#: Values that hold no path: kept as they are.
_PLAIN: frozenset[type] = frozenset({str, int, bool, float, type(None), Fraction})
#: Per class of node: its fields, in the order its ``__init__`` takes them (None: not a node the walk can rebuild).
_FIELDS: dict[type, tuple[str, ...] | None] = {}


class _Unknown(Exception):
    """A value the walk does not know how to rebuild."""


def moved(value: T, old: str, new: str) -> T | None:
    """``value`` (an AST, diagnostics, tuples of them) with every span of file ``old`` in file
    ``new`` and every :class:`~compiler.ast.document.File` of path ``old`` at ``new``; None when
    it holds a value the walk does not know (then read the file again)."""
    try:
        out: T = _walk(value, old, new)
        return out
    except _Unknown:
        return None


def _walk(v: Any, old: str, new: str) -> Any:
    t = type(v)
    if t in _PLAIN:
        return v
    if t is tuple:
        return tuple([_walk(x, old, new) for x in v])
    if t is Span:
        return Span(new, v.line, v.column, v.end_line, v.end_column) if v.file == old else v
    if isinstance(v, enum.Enum):
        return v
    names = _FIELDS.get(t, ())
    if names == ():
        names = _FIELDS[t] = _init_fields(t)
    if names is None:
        raise _Unknown(t)
    values = [_walk(getattr(v, n), old, new) for n in names]
    if t is File and values[0] == old:
        values[0] = new
    return t(*values)


def _init_fields(t: type) -> tuple[str, ...] | None:
    """The fields of dataclass ``t`` when its ``__init__`` takes exactly them, in order."""
    if not dataclasses.is_dataclass(t):
        return None
    fields = dataclasses.fields(t)
    if any(not f.init or f.kw_only for f in fields):
        return None
    return tuple(f.name for f in fields)
