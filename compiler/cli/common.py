"""What every command of the ``warscribe`` command line shares: the application,
how usage errors and diagnostics are printed, compiling the one ruleset a command is about."""
from __future__ import annotations

import json
import os
import sys
from enum import Enum
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:  # the CLI imports the compiler only when a command runs
    from compiler.diagnostics import Diagnostic
    from compiler.driver import Compilation
    from compiler.model.ruleset import Ruleset
    from compiler.resolve.evaluator import ResolveError

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


def use_color(stream: object) -> bool:
    """Colour the output written to ``stream``: a terminal, unless ``NO_COLOR`` is set."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return isatty is not None and bool(isatty())


def usage_error(message: str) -> "typer.Exit":
    typer.echo(f"warscribe: error: {message}", err=True)
    return typer.Exit(2)


def print_diagnostics(diagnostics: tuple[Diagnostic, ...], sources: dict[str, str], limit: int = 200) -> None:
    """Print diagnostics on standard error: standard output carries only a command's answer."""
    from compiler.diagnostics import render

    color = use_color(sys.stderr)
    shown = 0
    for d in diagnostics:
        if shown >= limit:
            typer.echo(f"… and {len(diagnostics) - shown} more", err=True)
            break
        typer.echo(render(d, sources, color=color) + "\n", err=True)
        shown += 1


def rules_have_errors(where: str = "") -> None:
    """Say (on standard error) that a command stops because the rules have errors."""
    typer.echo(f"{where}: the rules have errors; fix them first" if where else "the rules have errors; fix them first",
               err=True)


def summary_line(diagnostics: tuple[Diagnostic, ...], rulesets: int, seconds: float) -> str:
    from compiler.diagnostics import Severity

    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    notes = sum(1 for d in diagnostics if d.severity is Severity.NOTE)
    parts = [f"{rulesets} ruleset{'s' if rulesets != 1 else ''} checked",
             f"{errors} error{'s' if errors != 1 else ''}",
             f"{warnings} warning{'s' if warnings != 1 else ''}"]
    if notes:
        parts.append(f"{notes} note{'s' if notes != 1 else ''}")
    return ", ".join(parts) + f" ({seconds:.2f} s)"


def compile_one(path: str) -> tuple[Compilation, Ruleset]:
    """Compile the one ruleset at ``path``; on errors print them and exit 1."""
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError

    try:
        result = compile_paths([path])
    except UsageError as e:
        raise usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        rules_have_errors(path)
        raise typer.Exit(1)
    if len(result.rulesets) != 1:
        raise usage_error(f"{path} holds {len(result.rulesets)} rulesets; name one folder, e.g. rules/{result.rulesets[0].id}")
    return result, result.rulesets[0]


def report_resolve_error(err: ResolveError, sources: dict[str, str]) -> None:
    """Print a resolver error (in an expression given on the command line, or in the rules) as a diagnostic."""
    from compiler import codes
    from compiler.diagnostics import Diagnostic, Severity, Span, render

    span = err.span or Span("<expression>", 0, 0, 0, 0)
    typer.echo(render(Diagnostic(codes.REFUSED.code, Severity.ERROR, err.message, span, err.hint), sources,
                      color=use_color(sys.stderr)), err=True)
