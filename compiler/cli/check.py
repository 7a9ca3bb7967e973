"""``warscribe check``: the rules, checked like a compiler."""
from __future__ import annotations

import time

import click

from compiler.cli.config import default_rules
from compiler.cli.common import (Arg, Exit, app, is_quiet, json_option, print_diagnostics, refuse, say, summary_line,
                                 usage_error)


@app.command()
@click.argument("paths", cls=Arg, nargs=-1,
                help="Ruleset folders, .rules files, or folders of rulesets (default: the project's rules "
                     "folder, or the ruleset you are in).")
@json_option("Print the diagnostics as JSON, for tools.")
@click.option("--format", "-f", "format", type=click.Choice(["text", "json"]), default=None,
              help="text for people, json for tools (--format json is --json).")
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@click.option("--notes/--no-notes", default=True, help="List open questions as notes.")
@click.option("--versions/--no-versions", default=True,
              help="Warn when an example's result changed since the last git commit but the version did not (W607).")
@click.option("--fix", is_flag=True,
              help="Make every fix that is certain (W412, W413, a name with one close match…) in the files, "
                   "printing each change; comments and layout are kept. Then check.")
def check(paths: tuple[str, ...], as_json: bool, format: str | None, strict: bool, notes: bool, versions: bool,
          fix: bool) -> None:
    """Check rulesets like a compiler: names, types, tables, profiles, overlays.

    Input too big to handle is an error, never a hang: files over 2,000,000 bytes,
    lines over 10,000 characters, nesting over 100 levels, 1000000d1000000…
    (W901-W907; every limit is listed in the language reference, "Limits").
    """
    from compiler.diagnostics import Severity, to_json
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError

    if as_json and format == "text":
        refuse(**{"--format": format, "--json": as_json})
    as_json = as_json or format == "json"
    start = time.perf_counter()
    if fix:
        from compiler.cli.fixing import fix_rules
        try:
            made = fix_rules(list(paths) or [default_rules()], err=as_json)
        except UsageError as e:
            raise usage_error(str(e))
        if not as_json and not is_quiet():
            click.echo(f"{made} fix{'es' if made != 1 else ''} made")
    try:
        result = compile_paths(list(paths) or [default_rules()])
    except UsageError as e:
        raise usage_error(str(e))
    diagnostics = result.diagnostics
    if versions and result.ok:
        from compiler.review.versions import version_warnings
        diagnostics = diagnostics + version_warnings(result.rulesets)
    if not notes or is_quiet():  # notes are for information: --quiet leaves them out
        diagnostics = tuple(d for d in diagnostics if d.severity is not Severity.NOTE)
    elapsed = time.perf_counter() - start
    if as_json:
        say(to_json(diagnostics))
    else:
        print_diagnostics(diagnostics, dict(result.sources))
        if not is_quiet():
            click.echo(summary_line(diagnostics, len(result.rulesets), elapsed))
    failed = not result.ok or (strict and any(d.severity is Severity.WARNING for d in diagnostics))
    raise Exit(1 if failed else 0)
