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
    versions: bool = typer.Option(True, "--versions/--no-versions", help="Warn when an example's result changed since the last git commit but the version did not (W607)."),
) -> None:
    """Check rulesets like a compiler: names, types, tables, profiles, overlays.

    Input too big to handle is an error, never a hang: files over 2,000,000 bytes,
    lines over 10,000 characters, nesting over 100 levels, 1000000d1000000…
    (W901-W907; every limit is listed in the language reference, "Limits").
    """
    from .driver import compile_paths

    start = time.perf_counter()
    try:
        result = compile_paths(paths or ["rules"])
    except UsageError as e:
        raise _usage_error(str(e))
    diagnostics = result.diagnostics
    if versions and result.ok:
        from .versioncheck import version_warnings
        diagnostics = diagnostics + version_warnings(result.rulesets)
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


def _compile_one(path: str):  # type: ignore[no-untyped-def]
    """Compile the one ruleset at ``path``; on errors print them and exit 1."""
    from .driver import compile_paths

    try:
        result = compile_paths([path])
    except UsageError as e:
        raise _usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        typer.echo(f"{path}: the rules have errors; fix them first")
        raise typer.Exit(1)
    if len(result.rulesets) != 1:
        raise _usage_error(f"{path} holds {len(result.rulesets)} rulesets; name one folder, e.g. rules/{result.rulesets[0].id}")
    return result, result.rulesets[0]


def _report_resolve_error(err, sources: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    from .diagnostics import Diagnostic, Severity, Span

    span = err.span or Span("<expression>", 0, 0, 0, 0)
    typer.echo(render(Diagnostic("W800", Severity.ERROR, err.message, span, err.hint), sources,
                      color=_use_color(sys.stdout)))


@app.command("eval")
def eval_(
    path: str = typer.Argument(..., help="The ruleset folder."),
    expression: str = typer.Argument(..., help='What to work out, e.g. "P(hit(4))" or "shooting(5 space_marine, boltgun, 10 ork_boy)".'),
    with_: Optional[List[str]] = typer.Option(None, "--with", "-w", help="A situation, e.g. --with 'cover = soft' or --with charged."),
    exact: bool = typer.Option(True, "--exact/--fast", help="Exact fractions (default) or fast floating point."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: expression, mean, distribution."),
) -> None:
    """The exact distribution of any expression in a ruleset's context."""
    from .checks import Context, Scope, check_expr
    from .diagnostics import Sink
    from .report import value_json, value_lines
    from .resolve import Evaluator, ResolveError, parse_expression

    result, model = _compile_one(path)
    text = expression + (" with " + ", ".join(with_) if with_ else "")
    sources = {**dict(result.sources), "<expression>": text}
    try:
        expr = parse_expression(text)
    except ResolveError as err:
        _report_resolve_error(err, sources)
        raise typer.Exit(1)
    sink = Sink()
    check_expr(expr, Scope(Context(model, sink), "<expression>"))
    if sink.has_errors:
        print_diagnostics(tuple(d for d in sink.items if d.is_error), sources)
        raise typer.Exit(1)
    try:
        value = Evaluator(model, exact=exact).evaluate(expr)
    except ResolveError as err:
        _report_resolve_error(err, sources)
        raise typer.Exit(1)
    if as_json:
        typer.echo(json.dumps(value_json(expression, value), indent=2, ensure_ascii=False))
    else:
        typer.echo(f"{text}")
        for line in value_lines(value):
            typer.echo(line)


@app.command()
def table(
    path: str = typer.Argument(..., help="The ruleset folder."),
    name: str = typer.Argument(..., help="The table (or formula) id, e.g. to_wound."),
    with_: Optional[List[str]] = typer.Option(None, "--with", "-w", help="A situation, e.g. --with 'cover = soft'."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: table, axes, cells."),
) -> None:
    """A table worked out over its axes: the target of every cell and the chance to pass it."""
    from .diagnostics import did_you_mean
    from .report import evaluate_table, table_text
    from .resolve import Evaluator, ResolveError, parse_expression

    result, model = _compile_one(path)
    decl = model.callables.get(name)
    if decl is None or type(decl).__name__ not in ("Table", "Formula"):
        close = did_you_mean(name, [k for k, v in model.callables.items() if type(v).__name__ in ("Table", "Formula")])
        raise _usage_error(f"ruleset '{model.id}' has no table '{name}'" + (f"; did you mean '{close}'?" if close else ""))
    situation = {}
    if with_:
        try:
            probe = parse_expression("0 with " + ", ".join(with_))
        except ResolveError as err:
            raise _usage_error(f"cannot read --with: {err.message}")
        ev = Evaluator(model)
        for s in probe.settings:  # type: ignore[attr-defined]
            situation[s.name] = (not s.negated) if s.value is None else (
                s.value.id if hasattr(s.value, "id") else ev.evaluate(s.value))
    try:
        data = evaluate_table(Evaluator(model, situation=situation), decl)
    except ResolveError as err:
        _report_resolve_error(err, dict(result.sources))
        raise typer.Exit(1)
    if as_json:
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for line in table_text(data):
            typer.echo(line)


@app.command("test")
def test_(
    paths: Optional[List[str]] = typer.Argument(None, help="Ruleset folders (default: rules/)."),
    exact: bool = typer.Option(True, "--exact/--fast", help="Exact fractions (default) or fast floating point."),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every example and property."),
) -> None:
    """Run every example and property; exit 1 if any fails."""
    from .driver import compile_paths
    from .report import failure_lines, results_json
    from .runner import run_ruleset

    try:
        result = compile_paths(paths or ["rules"])
    except UsageError as e:
        raise _usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        typer.echo("the rules have errors; fix them first")
        raise typer.Exit(1)
    start = time.perf_counter()
    pairs = []
    for model in result.rulesets:
        for r in run_ruleset(model, exact=exact):
            pairs.append((model, r))
    elapsed = time.perf_counter() - start
    failed = [r for _, r in pairs if not r.passed]
    if as_json:
        typer.echo(json.dumps(results_json(pairs), indent=2, ensure_ascii=False))
    else:
        sources = dict(result.sources)
        for model, r in pairs:
            if verbose:
                mark = "ok  " if r.passed else "FAIL"
                typer.echo(f"{mark} {model.id} {r.kind} {r.id} ({r.checked} checked, {r.seconds * 1000:.0f} ms)")
            if not r.passed:
                typer.echo("\n".join(failure_lines(r, sources)))
                typer.echo("")
        typer.echo(f"{len(pairs) - len(failed)} passed, {len(failed)} failed")
        n = len(result.rulesets)
        typer.echo(f"({n} ruleset{'s' if n != 1 else ''}, {elapsed:.2f} s)")
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


from . import cli_diff  # noqa: E402,F401  (registers `warscribe diff`)

from . import cli_site  # noqa: E402,F401  (registers `warscribe render`, `build`, `serve`, `export`)

from . import cli_tools  # noqa: E402,F401  (registers `warscribe fmt`, `new`)

if __name__ == "__main__":
    main()
