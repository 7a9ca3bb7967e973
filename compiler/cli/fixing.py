"""``warscribe check --fix``: the certain fixes of the diagnostics, made in the author's files.

Each round compiles the rules, makes every certain fix (:mod:`compiler.fixes`) in the files
the diagnostics point into, prints each change, and goes again until nothing is left to fix:
running it twice changes nothing more.  A file is written only if it is among the paths given (or inside
one of them: not a base ruleset's file elsewhere) and still holds the text that was checked
(one changed meanwhile is left alone, with a sentence), and atomically.
"""
from __future__ import annotations

from pathlib import Path

import click

from compiler import codes
from compiler.cli.common import say
from compiler.diagnostics import Diagnostic

MAX_ROUNDS = 5
# Syntax errors: while there is one, no fix is made (what it would rest on is not read right).
SYNTAX = frozenset(c.code for c in (codes.SYNTAX_ERROR, codes.UNEXPECTED_END, codes.BAD_INDENT, codes.NOT_UTF8,
                                     codes.UNREADABLE, codes.NOT_UNDERSTOOD))


def fix_rules(paths: list[str], err: bool = False) -> int:
    """Make the certain fixes in the rules at ``paths``; the number of changes made.  Each is
    printed (to stderr with ``err``: standard output is for ``--format json``)."""
    from compiler.atomic import write_atomic
    from compiler.driver import compile_paths
    from compiler.fixes import apply, edits, shown

    made = 0
    left_alone: set[str] = set()
    for _ in range(MAX_ROUNDS):
        result = compile_paths(paths)
        if any(d.code in SYNTAX for d in result.diagnostics):
            break  # what a fix would rest on is not read right: fix the syntax first
        by_file: dict[str, list[Diagnostic]] = {}
        for d in result.diagnostics:
            for f in {fix.span.file for fix in d.fixes} - left_alone:
                by_file.setdefault(f, []).append(d)
        changed = False
        for file, diagnostics in sorted(by_file.items()):
            text = result.sources.get(file)
            path = Path(file)
            if text is None or path.suffix != ".rules" or not path.is_file():
                continue
            if not _within(path, paths):  # a base ruleset's file, say: not one the author asked to fix
                if file not in left_alone:
                    click.echo(f"{file}: outside {', '.join(paths)}; not fixed (fix it with: warscribe check "
                               f"--fix {path.parent})", err=True)
                    left_alone.add(file)
                continue
            todo = edits(text, diagnostics, file)
            if not todo:
                continue
            if not _unchanged(path, text):
                click.echo(f"{file}: changed since it was read; not fixed", err=True)
                left_alone.add(file)
                continue
            new = apply(text, todo)
            if not _unchanged(path, text):  # once more, right before writing
                click.echo(f"{file}: changed since it was read; not fixed", err=True)
                left_alone.add(file)
                continue
            write_atomic(path, new)
            changed = True
            for e in todo:
                before, after = shown(text, e)
                what = e.fix.title or e.diagnostic.message
                say(f"{file}:{e.fix.span.line}:{e.fix.span.column}: fixed {e.diagnostic.code}: {what}", err=err)
                say(f"  - {before.strip()}", err=err)
                say(f"  + {after.strip()}", err=err)
                made += 1
        if not changed:
            break
    return made


def _within(path: Path, roots: list[str]) -> bool:
    """Whether ``path`` is one of ``roots`` or inside one of them."""
    here = path.resolve()
    for root in roots:
        top = Path(root).resolve()
        if here == top or top in here.parents:
            return True
    return False


def _unchanged(path: Path, text: str) -> bool:
    try:
        return path.read_bytes().decode("utf-8") == text
    except (OSError, UnicodeDecodeError):
        return False
