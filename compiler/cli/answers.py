"""``warscribe eval``, ``table`` and ``test``: answers and examples from one ruleset or many."""
from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, List, Optional

import typer

from compiler.cli.common import app, compile_one, print_diagnostics, report_resolve_error, rules_have_errors, usage_error

if TYPE_CHECKING:
    from compiler.model.ruleset import Ruleset
    from compiler.resolve.coverage import Coverage
    from compiler.resolve.expect import Result


@app.command("eval")
def eval_(
    path: str = typer.Argument(..., help="The ruleset folder."),
    expression: str = typer.Argument(..., help='What to work out, e.g. "P(hit(4))" or "shooting(5 space_marine, boltgun, 10 ork_boy)".'),
    with_: Optional[List[str]] = typer.Option(None, "--with", "-w", help="A situation, e.g. --with 'cover = soft' or --with charged."),
    exact: bool = typer.Option(True, "--exact/--fast", help="Exact fractions (default) or fast floating point."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: expression, mean, distribution."),
) -> None:
    """The exact distribution of any expression in a ruleset's context."""
    from compiler.check.passes import Context, Scope, check_expr
    from compiler.diagnostics import Sink
    from compiler.resolve.report import value_json, value_lines
    from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

    result, model = compile_one(path)
    text = expression + (" with " + ", ".join(with_) if with_ else "")
    sources = {**dict(result.sources), "<expression>": text}
    try:
        expr = parse_expression(text)
    except ResolveError as err:
        report_resolve_error(err, sources)
        raise typer.Exit(1)
    sink = Sink()
    check_expr(expr, Scope(Context(model, sink), "<expression>"))
    if sink.has_errors:
        print_diagnostics(tuple(d for d in sink.items if d.is_error), sources)
        raise typer.Exit(1)
    try:
        value = Evaluator(model, exact=exact).evaluate(expr)
        # An attack's steps are worked out when read: printing them may still be refused.
        out = json.dumps(value_json(expression, value), indent=2, ensure_ascii=False) if as_json \
            else "\n".join([text, *value_lines(value)])
    except ResolveError as err:
        report_resolve_error(err, sources)
        raise typer.Exit(1)
    typer.echo(out)  # one write: a long distribution prints at once


@app.command()
def table(
    path: str = typer.Argument(..., help="The ruleset folder."),
    name: str = typer.Argument(..., help="The table (or formula) id, e.g. to_wound."),
    with_: Optional[List[str]] = typer.Option(None, "--with", "-w", help="A situation, e.g. --with 'cover = soft'."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON: table, axes, cells."),
) -> None:
    """A table worked out over its axes: the target of every cell and the chance to pass it."""
    from compiler import ast as A
    from compiler.check.passes import Context, Scope, check_expr
    from compiler.diagnostics import Sink, did_you_mean
    from compiler.resolve.report import evaluate_table, table_text
    from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

    result, model = compile_one(path)
    decl = model.callables.get(name)
    if decl is None or type(decl).__name__ not in ("Table", "Formula"):
        close = did_you_mean(name, [k for k, v in model.callables.items() if type(v).__name__ in ("Table", "Formula")])
        raise usage_error(f"ruleset '{model.id}' has no table '{name}'" + (f"; did you mean '{close}'?" if close else ""))
    situation = {}
    if with_:
        try:
            probe = parse_expression("0 with " + ", ".join(with_))
        except ResolveError as err:
            raise usage_error(f"cannot read --with: {err.message}")
        if not isinstance(probe, A.With):  # "0 with …" always reads as a With
            raise usage_error(f"cannot read --with: {', '.join(with_)}")
        sink = Sink()
        check_expr(probe, Scope(Context(model, sink), "<expression>"))
        if sink.has_errors:
            sources = {**dict(result.sources), "<expression>": "0 with " + ", ".join(with_)}
            print_diagnostics(tuple(d for d in sink.items if d.is_error), sources)
            raise typer.Exit(1)
        ev = Evaluator(model)
        for s in probe.settings:
            situation[s.name] = (not s.negated) if s.value is None else (
                s.value.id if hasattr(s.value, "id") else ev.evaluate(s.value))
    try:
        data = evaluate_table(Evaluator(model, situation=situation), decl)
    except ResolveError as err:
        report_resolve_error(err, dict(result.sources))
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
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every example, property and claim."),
    coverage: bool = typer.Option(False, "--coverage", help="Also report, per ruleset, which tests, tables, formulas, modifiers, attacks and abilities the examples exercise, which rules drive the resolver or the battle engine, and which are prose only or unmarked."),
    strict: bool = typer.Option(False, "--strict", help="With --coverage: exit 1 when a table, test, formula, modifier or attack is exercised by no example."),
) -> None:
    """Run every example and property, and judge every claim; exit 1 if any fails.

    A claim is judged at every point of its grid and its verdict printed ("holds in 35% of the
    grid"); it fails only when it cannot be worked out.  --coverage adds a table per ruleset:
    of its tables, tests, formulas, modifiers, attacks and abilities, how many the examples
    exercise, and which rules are prose only; --strict then also fails when a table, test,
    formula, modifier or attack is exercised by none.
    """
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError
    from compiler.resolve.report import failure_lines, results_json
    from compiler.resolve.runner import run_ruleset

    try:
        result = compile_paths(paths or ["rules"])
    except UsageError as e:
        raise usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        rules_have_errors()
        raise typer.Exit(1)
    start = time.perf_counter()
    pairs: list[tuple[Ruleset, Result]] = []
    covs: list[Coverage] = []
    for model in result.rulesets:
        if coverage:  # the coverage run is the test run: every example, recording what it uses
            from compiler.resolve.coverage import coverage as coverage_of

            covs.append(coverage_of(model))
            pairs.extend((model, r) for r in covs[-1].examples)
            continue
        for r in run_ruleset(model, exact=exact):
            pairs.append((model, r))
    elapsed = time.perf_counter() - start
    failed = [r for _, r in pairs if not r.passed]
    if coverage:
        from compiler.cli.coverage import coverage_json, missing, print_coverage
    if as_json:
        data = results_json(pairs)
        if coverage:
            data["coverage"] = [coverage_json(c) for c in covs]
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        sources = dict(result.sources)
        for model, r in pairs:
            if verbose:
                mark = "ok  " if r.passed else "FAIL"
                typer.echo(f"{mark} {model.id} {r.kind} {r.id} ({r.checked} checked, {r.seconds * 1000:.0f} ms)")
            if r.kind == "claim" and r.passed:  # a claim is judged, not enforced: say its verdict
                typer.echo(f"claim {model.id} {r.id}: {dict(r.values)['verdict']}")
            if not r.passed:
                typer.echo("\n".join(failure_lines(r, sources)))
                typer.echo("")
        typer.echo(f"{len(pairs) - len(failed)} passed, {len(failed)} failed")
        n = len(result.rulesets)
        typer.echo(f"({n} ruleset{'s' if n != 1 else ''}, {elapsed:.2f} s)")
        if coverage:
            spans = {m.id: {d.id: f"{d.span.file}:{d.span.line}" for d in m.walk() if d.id} for m in result.rulesets}
            print_coverage(covs, spans, verbose)
    uncovered = coverage and strict and any(missing(c) for c in covs)
    if uncovered and not as_json:
        typer.echo("--strict: some tables, tests, formulas, modifiers or attacks are exercised by no example")
    raise typer.Exit(1 if failed or uncovered else 0)
