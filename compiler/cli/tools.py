"""Authoring commands: ``warscribe fmt`` (the formatter) and ``warscribe new`` (a new ruleset).

Registered on the main application when this module is imported (see :mod:`compiler.cli.commands`).
"""
from __future__ import annotations

import difflib
import sys
from pathlib import Path
import click

from compiler.cli.common import Arg, Exit, app, is_quiet, json_option, print_diagnostics, refuse, usage_error
from compiler.terminal import shown as escaped


def _stdin_text() -> str:
    """Standard input as the text of a .rules file: read as bytes up to the limit of a file (``fmt -
    < /dev/zero`` stops there), and UTF-8 or refused where it is not (never changed into U+FFFD
    or a traceback, whatever the locale): a located error and exit 1."""
    from compiler import codes
    from compiler.diagnostics import Diagnostic, Severity, Span
    from compiler.limits import MAX_FILE_BYTES

    raw = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        problem = Diagnostic(codes.FILE_TOO_LARGE.code, Severity.ERROR, f"standard input runs past {MAX_FILE_BYTES:,} "
                             "bytes, the limit of a .rules file", Span.point("<stdin>"),
                             "split it into several files joined with include")
        print_diagnostics((problem,), {})
        raise Exit(1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        start = raw.rfind(b"\n", 0, e.start) + 1
        where = Span.point("<stdin>", raw.count(b"\n", 0, e.start) + 1,
                           len(raw[start:e.start].decode("utf-8", errors="replace")) + 1)
        problem = Diagnostic(codes.NOT_UTF8.code, Severity.ERROR, f"this text is not UTF-8 (byte 0x{raw[e.start]:02X})",
                             where, "save it as UTF-8")
        print_diagnostics((problem,), {"<stdin>": raw.decode("utf-8", errors="replace")})
        raise Exit(1)


@app.command()
@click.argument("paths", cls=Arg, nargs=-1,
                help="Files or folders to format (folders are searched for .rules files; default: the project's "
                     "rules folder, or the ruleset you are in). '-' formats standard input to standard output.")
@click.option("--check", is_flag=True, help="Change nothing: list the files that would change; exit 1 if any would.")
@click.option("--diff", is_flag=True, help="Change nothing: print what would change as a unified diff.")
@json_option("Print JSON: the files changed (or that would change), left unchanged, and that could not be read.")
def fmt(paths: tuple[str, ...], check: bool, diff: bool, as_json: bool) -> None:
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

    refuse(**{"--json": as_json, "--diff": diff})
    if paths == ("-",):
        refuse(**{"--json": as_json, "-": True})
        text = _stdin_text()
        try:
            click.echo(format_text(text, "<stdin>"), nl=False)
        except FormatError as err:
            print_diagnostics(err.diagnostics, {"<stdin>": text})  # on stderr: stdout carries the text only
            raise Exit(1)
        raise Exit(0)
    try:
        from compiler.cli.config import default_rules

        files = list(rules_files(list(paths) or [default_rules()]))
    except UsageError as e:
        raise usage_error(str(e))
    write = not (check or diff)
    changed: list[Path] = []
    failed = 0
    broken: list[str] = []
    say = (lambda text: None) if as_json or is_quiet() else click.echo  # the per-file lines: not the JSON, not -q
    for path in files:
        shown = escaped(display_path(path))  # a file name shown, never obeyed by the terminal
        try:
            result = format_file(path, write=write)
        except OSError as err:  # disk full, read-only, unreadable: a sentence, the file left as it was
            failed += 1
            broken.append(display_path(path))
            click.echo(f"warscribe: error: cannot format {shown}: {err.strerror or err}", err=True)
            continue
        if result.error is not None:
            failed += 1
            broken.append(display_path(path))
            print_diagnostics(result.error.diagnostics, {display_path(path): result.before})
            click.echo(f"error: cannot format {shown}", err=True)
            continue
        if not result.changed:
            continue
        changed.append(path)
        if diff:
            click.echo(escaped("".join(difflib.unified_diff(result.before.splitlines(True), result.after.splitlines(True),
                                                            shown, shown))), nl=False)
        elif check and not as_json:
            click.echo(f"would reformat {shown}")  # the answer of --check, even with -q
        else:
            say(f"reformatted {shown}")
    unchanged = len(files) - len(changed) - failed
    if as_json:
        import json

        click.echo(json.dumps({"would_reformat" if check else "reformatted": [display_path(p) for p in changed],
                               "unchanged": unchanged, "errors": broken}, indent=2))
        raise Exit(1 if failed or (check and changed) else 0)
    verb = "would be reformatted" if not write else "reformatted"
    parts = [f"{len(changed)} file{'s' if len(changed) != 1 else ''} {verb}",
             f"{unchanged} file{'s' if unchanged != 1 else ''} {'would be left' if not write else 'left'} unchanged"]
    if failed:
        parts.append(f"{failed} file{'s' if failed != 1 else ''} with errors")
    if not is_quiet():
        click.echo(", ".join(parts), err=bool(diff))
    raise Exit(1 if failed or (check and changed) else 0)


@app.command()
@click.argument("name", cls=Arg, help="The ruleset's id: lower-case letters, digits and dashes, such as my-skirmish.")
@click.option("--dir", "-d", "folder", help="Where to put the ruleset's folder (default: rules/).")
@click.option("--title", "-t", help='Its title (default: from the id, "My Skirmish").')
def new(name: str, folder: str | None, title: str | None) -> None:
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
    click.echo(f"created {shown} with {len(written)} files:")
    for path in written:
        click.echo(f"  {display_path(path)}")
    where = "" if folder is None else f" {shown}"
    click.echo(f"next: warscribe check{where} && warscribe test{where}"
               + (" && warscribe build" if folder is None else ""))


@app.command("config")
@json_option("Print the settings as JSON: each with its value and where it came from.")
def config_(as_json: bool) -> None:
    """Print the settings in effect and where each came from.

    Settings live in `[tool.warscribe]` of a pyproject.toml, or in a warscribe.toml, found by
    walking up from the current folder (as ruff and pytest find theirs); an option given on
    the command line wins over them.
    """
    import json

    from compiler.cli.config import KEYS, current

    settings = current()
    if as_json:
        click.echo(json.dumps({"root": str(settings.root), "file": str(settings.file) if settings.file else None,
                               "settings": {k: {"value": settings.get(k), "from": settings.origin(k)} for k in KEYS}},
                              indent=2))
        return
    click.echo(f"project: {settings.root}")
    click.echo(f"settings file: {settings.file if settings.file else 'none (pyproject.toml [tool.warscribe] or warscribe.toml)'}")
    width = max(len(k) for k in KEYS)
    for key, (_, _, meaning, _) in KEYS.items():
        value = settings.get(key)
        shown = "(none)" if value is None else json.dumps(value)
        click.echo(f"{key:<{width}} = {shown:<12} # {settings.origin(key)}: {meaning}")
