"""Authoring commands: ``warscribe fmt`` (the formatter) and ``warscribe new`` (a new ruleset).

Registered on the main application by an import at the end of :mod:`compiler.cli`.
"""
from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import List, Optional

import typer

from compiler.cli.common import app, print_diagnostics, usage_error


@app.command()
def fmt(
    paths: Optional[List[str]] = typer.Argument(
        None, help="Files or folders to format (folders are searched for .rules files; default: rules/). "
                   "'-' formats standard input to standard output."),
    check: bool = typer.Option(False, "--check", help="Change nothing: list the files that would change; "
                                                      "exit 1 if any would."),
    diff: bool = typer.Option(False, "--diff", help="Change nothing: print what would change as a unified diff."),
) -> None:
    """Format .rules files in the canonical layout, keeping every comment.

    Indentation becomes two spaces per block, spacing is made regular, columns
    lined up by hand (table arrows, attack steps, profile stats, grids,
    comments) stay lined up, and prose is kept as written. The result always
    says exactly what the original said. Each file is rewritten atomically.
    Exit status: 0 when done (or, with --check, when nothing would change),
    1 with --check when a file would change or when a file cannot be read
    (a syntax error: fix it first), 2 on a wrong call.
    """
    from compiler.model.load import UsageError, display_path
    from compiler.syntax.fmt import FormatError, format_file, format_text, rules_files

    if paths == ["-"]:
        text = sys.stdin.read()
        try:
            typer.echo(format_text(text, "<stdin>"), nl=False)
        except FormatError as err:
            print_diagnostics(err.diagnostics, {"<stdin>": text})  # on stderr: stdout carries the text only
            raise typer.Exit(1)
        raise typer.Exit(0)
    try:
        files = list(rules_files(paths or ["rules"]))
    except UsageError as e:
        raise usage_error(str(e))
    write = not (check or diff)
    changed: list[Path] = []
    failed = 0
    for path in files:
        shown = display_path(path)
        try:
            result = format_file(path, write=write)
        except OSError as err:  # disk full, read-only, unreadable: a sentence, the file left as it was
            failed += 1
            typer.echo(f"warscribe: error: cannot format {shown}: {err.strerror or err}", err=True)
            continue
        if result.error is not None:
            failed += 1
            print_diagnostics(result.error.diagnostics, {shown: result.before})
            typer.echo(f"error: cannot format {shown}", err=True)
            continue
        if not result.changed:
            continue
        changed.append(path)
        if diff:
            typer.echo("".join(difflib.unified_diff(result.before.splitlines(True), result.after.splitlines(True),
                                                    shown, shown)), nl=False)
        elif check:
            typer.echo(f"would reformat {shown}")
        else:
            typer.echo(f"reformatted {shown}")
    unchanged = len(files) - len(changed) - failed
    verb = "would be reformatted" if not write else "reformatted"
    parts = [f"{len(changed)} file{'s' if len(changed) != 1 else ''} {verb}",
             f"{unchanged} file{'s' if unchanged != 1 else ''} {'would be left' if not write else 'left'} unchanged"]
    if failed:
        parts.append(f"{failed} file{'s' if failed != 1 else ''} with errors")
    typer.echo(", ".join(parts), err=bool(diff))
    raise typer.Exit(1 if failed or (check and changed) else 0)


@app.command()
def new(
    name: str = typer.Argument(..., help="The ruleset's id: lower-case letters, digits and dashes, "
                                         "such as my-skirmish."),
    folder: Optional[str] = typer.Option(None, "--dir", "-d", help="Where to put the ruleset's folder "
                                                                   "(default: rules/)."),
    title: Optional[str] = typer.Option(None, "--title", "-t", help='Its title (default: from the id, '
                                                                    '"My Skirmish").'),
) -> None:
    """Start a new ruleset: a folder with a short, commented example of every part of the language.

    It is written to rules/NAME (or DIR/NAME with --dir) and passes `warscribe
    check`, `warscribe test` and `warscribe build` as it is. An existing folder
    is never overwritten (exit 2).
    """
    from compiler.model.load import display_path
    from compiler.syntax.scaffold import create, target_folder

    target = target_folder(name, folder)
    try:
        written = create(name, target, title)
    except (ValueError, FileExistsError) as e:
        raise usage_error(str(e))
    except OSError as e:
        raise usage_error(f"cannot write {display_path(target)}: {e.strerror}")
    shown = display_path(target)
    typer.echo(f"created {shown} with {len(written)} files:")
    for path in written:
        typer.echo(f"  {display_path(path)}")
    where = "" if folder is None else f" {shown}"
    typer.echo(f"next: warscribe check{where} && warscribe test{where}"
               + (" && warscribe build" if folder is None else ""))
