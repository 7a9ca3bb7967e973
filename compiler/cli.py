"""The ``warscribe`` command line.

Exit status: 0 when all is well (warnings may be printed), 1 when the rules
have errors (or tests fail), 2 when warscribe was called wrongly.
"""
from __future__ import annotations

import json
import os
import sys
import time
from enum import Enum
from typing import List, Optional

import typer

from . import __version__
from .diagnostics import Diagnostic, Severity, render, to_json
from .load import UsageError

app = typer.Typer(
    name="warscribe",
    help="Write tabletop wargame house rules in a small language: check them like a compiler, "
         "compute the exact odds of every mechanic, and publish them as a rulebook website.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Format(str, Enum):
    text = "text"
    json = "json"


def _use_color(stream) -> bool:  # type: ignore[no-untyped-def]
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def _usage_error(message: str) -> "typer.Exit":
    typer.echo(f"warscribe: error: {message}", err=True)
    return typer.Exit(2)


def print_diagnostics(diagnostics: tuple[Diagnostic, ...], sources: dict[str, str], limit: int = 200) -> None:
    color = _use_color(sys.stdout)
    shown = 0
    for d in diagnostics:
        if shown >= limit:
            typer.echo(f"… and {len(diagnostics) - shown} more")
            break
        typer.echo(render(d, sources, color=color))
        typer.echo("")
        shown += 1


def summary_line(diagnostics: tuple[Diagnostic, ...], rulesets: int, seconds: float) -> str:
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    notes = sum(1 for d in diagnostics if d.severity is Severity.NOTE)
    parts = [f"{rulesets} ruleset{'s' if rulesets != 1 else ''} checked",
             f"{errors} error{'s' if errors != 1 else ''}",
             f"{warnings} warning{'s' if warnings != 1 else ''}"]
    if notes:
        parts.append(f"{notes} note{'s' if notes != 1 else ''}")
    return ", ".join(parts) + f" ({seconds:.2f} s)"


@app.command()
def check(
    paths: Optional[List[str]] = typer.Argument(None, help="Ruleset folders, .rules files, or folders of rulesets (default: rules/)."),
    format: Format = typer.Option(Format.text, "--format", "-f", help="text for people, json for tools."),
    strict: bool = typer.Option(False, "--strict", help="Treat warnings as errors."),
    notes: bool = typer.Option(True, "--notes/--no-notes", help="List open questions as notes."),
) -> None:
    """Check rulesets like a compiler: names, types, tables, profiles, overlays."""
    from .driver import compile_paths

    start = time.perf_counter()
    try:
        result = compile_paths(paths or ["rules"])
    except UsageError as e:
        raise _usage_error(str(e))
    diagnostics = result.diagnostics
    if not notes:
        diagnostics = tuple(d for d in diagnostics if d.severity is not Severity.NOTE)
    elapsed = time.perf_counter() - start
    if format is Format.json:
        typer.echo(to_json(diagnostics))
    else:
        print_diagnostics(diagnostics, dict(result.sources))
        typer.echo(summary_line(diagnostics, len(result.rulesets), elapsed))
    failed = not result.ok or (strict and any(d.severity is Severity.WARNING for d in diagnostics))
    raise typer.Exit(1 if failed else 0)


@app.command()
def version() -> None:
    """Print warscribe's version."""
    typer.echo(f"warscribe {__version__}")


def main() -> None:
    """Entry point of the ``warscribe`` console script."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
