"""``warscribe eval``, ``table`` and ``test``: answers and examples from one ruleset or many."""
from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

import click

from compiler.cli.config import default_rules
from compiler.cli.common import (Arg, Exit, app, compile_one, is_verbose, print_diagnostics, report_resolve_error,
                                 rules_have_errors, say, unknown_name, usage_error)

if TYPE_CHECKING:
    from compiler.model.ruleset import Ruleset
    from compiler.resolve.coverage import Coverage
    from compiler.resolve.expect import Result


@app.command("eval")
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("expression", cls=Arg,
                help='What to work out, e.g. "P(hit(4))" or "shooting(5 space_marine, boltgun, 10 ork_boy)".')
@click.option("--with", "-w", "with_", multiple=True,
              help="A situation of the ruleset, e.g. --with 'target_cover = soft' (classic-40k) or --with charged.")
@click.option("--exact/--fast", default=True, help="Exact fractions (default) or fast floating point.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: expression, mean, distribution.")
def eval_(path: str, expression: str, with_: tuple[str, ...], exact: bool, as_json: bool) -> None:
    """The exact distribution of any expression in a ruleset's context."""
    from compiler.check.passes import Context, Scope, check_expr
    from compiler.diagnostics import Sink
    from fractions import Fraction

    from compiler.resolve.evaluator import Evaluator, ResolveError, is_dist, parse_expression
    from compiler.resolve.report import value_json, value_lines
    from compiler.words import fraction_json, number_words

    result, model = compile_one(path)
    text = expression + (" with " + ", ".join(with_) if with_ else "")
    sources = {**dict(result.sources), "<expression>": text}
    try:
        expr = parse_expression(text)
    except ResolveError as err:
        report_resolve_error(err, sources)
        raise Exit(1)
    sink = Sink()
    check_expr(expr, Scope(Context(model, sink), "<expression>"))
    if sink.has_errors:
        print_diagnostics(tuple(d for d in sink.items if d.is_error), sources)
        raise Exit(1)
    try:
        ev = Evaluator(model, exact=exact)
        value = ev.evaluate(expr)
        # An attack's steps are worked out when read: printing them may still be refused.
        answer, lines = value_json(expression, value), value_lines(value)
        cut = ev.cut_off if not (is_dist(value) and value.truncated) else 0
        if cut:  # P(…) or mean(…) of a roll cut off at its bound: the number cannot say it, the answer does
            answer["truncated"] = fraction_json(cut) if isinstance(cut, Fraction) else cut
            lines.append(f"  cut off (not counted): {number_words(cut) if isinstance(cut, Fraction) else cut}")
        out = json.dumps(answer, indent=2, ensure_ascii=False) if as_json else "\n".join([text, *lines])
    except ResolveError as err:
        report_resolve_error(err, sources)
        raise Exit(1)
    say(out)  # one write: a long distribution prints at once


@app.command()
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("name", cls=Arg, help="The table (or formula) id, e.g. to_wound.")
@click.option("--with", "-w", "with_", multiple=True, help="A situation of the ruleset, e.g. --with 'target_cover = soft' (classic-40k).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: table, axes, cells.")
def table(path: str, name: str, with_: tuple[str, ...], as_json: bool) -> None:
    """A table worked out over its axes: the target of every cell and the chance to pass it."""
    from compiler import ast as A
    from compiler.check.passes import Context, Scope, check_expr
    from compiler.diagnostics import Sink
    from compiler.resolve.report import evaluate_table, table_text
    from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

    result, model = compile_one(path)
    decl = model.callables.get(name)
    if decl is None or type(decl).__name__ not in ("Table", "Formula"):
        raise unknown_name(f"ruleset '{model.id}' has no table '{name}'", name,
                           [k for k, v in model.callables.items() if type(v).__name__ in ("Table", "Formula")],
                           "tables and formulas")
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
            raise Exit(1)
        ev = Evaluator(model)
        for s in probe.settings:
            situation[s.name] = (not s.negated) if s.value is None else (
                s.value.id if hasattr(s.value, "id") else ev.evaluate(s.value))
    try:
        data = evaluate_table(Evaluator(model, situation=situation), decl)
    except ResolveError as err:
        report_resolve_error(err, dict(result.sources))
        raise Exit(1)
    if as_json:
        say(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for line in table_text(data):
            say(line)


@app.command("test")
@click.argument("paths", cls=Arg, nargs=-1, help="Ruleset folders (default: the project's rules folder, or the ruleset you are in).")
@click.option("--exact/--fast", default=True, help="Exact fractions (default) or fast floating point.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--verbose", "-v", is_flag=True, help="List every example, property and claim.")
@click.option("--coverage", is_flag=True,
              help="Also report, per ruleset, which tests, tables, formulas, modifiers, attacks and abilities the "
                   "examples exercise; which rules run in battle (in a few games of each scenario), which run only "
                   "in the resolver, which only link declarations nothing ran, and which are prose only or unmarked; "
                   "and each scenario the engine could not play, with where and why.")
@click.option("--strict", is_flag=True,
              help="With --coverage: exit 1 when a table, test, formula, modifier or attack is exercised by no "
                   "example.")
def test_(paths: tuple[str, ...], exact: bool, as_json: bool, verbose: bool, coverage: bool, strict: bool) -> None:
    """Run every example and property, and judge every claim; exit 1 if any fails.

    A claim is judged at every point of its grid and its verdict printed ("holds in 35% of the
    grid"); it fails only when it cannot be worked out.  --coverage adds a table per ruleset:
    of its tables, tests, formulas, modifiers, attacks and abilities, how many the examples
    exercise; which rules run in battle (a few games of each scenario are played, recording
    what they use; a status or counter counts when what it does took effect, not when it was
    set), which run only in the resolver, which only link what nothing ran, and which are prose
    only; a scenario the engine could not play is named, with where and why ("not played: …").
    --strict then also fails when a table, test, formula, modifier or attack is exercised by none.
    """
    verbose = verbose or is_verbose()  # -v given before the command too
    if strict and not coverage:
        raise usage_error("--strict judges the coverage report; add --coverage")
    from compiler.driver import compile_paths
    from compiler.model.load import UsageError
    from compiler.resolve.report import failure_lines, results_json
    from compiler.resolve.runner import run_ruleset

    try:
        result = compile_paths(list(paths) or [default_rules()])
    except UsageError as e:
        raise usage_error(str(e))
    if not result.ok:
        print_diagnostics(tuple(d for d in result.diagnostics if d.is_error), dict(result.sources))
        rules_have_errors()
        raise Exit(1)
    start = time.perf_counter()
    pairs: list[tuple[Ruleset, Result]] = []
    covs: list[Coverage] = []
    from compiler.cli.progress import progress

    with progress("test", len(result.rulesets), "ruleset") as advance:
        for done, model in enumerate(result.rulesets, 1):
            if coverage:  # the coverage run is the test run: every example, recording what it uses
                from compiler.battle.ran import not_played, ran_in_battle
                from compiler.resolve.coverage import coverage as coverage_of
                from compiler.resolve import ResolveError

                try:
                    played = ran_in_battle(model)
                except ResolveError as err:  # a battle meets a question its rules leave unanswered
                    report_resolve_error(err, dict(result.sources))
                    raise Exit(1)
                covs.append(coverage_of(model, played, not_played(model)))
                pairs.extend((model, r) for r in covs[-1].examples)
            else:
                pairs.extend((model, r) for r in run_ruleset(model, exact=exact))
            advance(done)
    elapsed = time.perf_counter() - start
    failed = [r for _, r in pairs if not r.passed]
    if coverage:
        from compiler.cli.coverage import coverage_json, missing, print_coverage
    if as_json:
        data = results_json(pairs)
        if coverage:
            data["coverage"] = [coverage_json(c) for c in covs]
        say(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        sources = dict(result.sources)
        for model, r in pairs:
            if verbose:
                mark = "ok  " if r.passed else "FAIL"
                click.echo(f"{mark} {model.id} {r.kind} {r.id} ({r.checked} checked, {r.seconds * 1000:.0f} ms)")
            if r.kind == "claim" and r.passed:  # a claim is judged, not enforced: say its verdict
                say(f"claim {model.id} {r.id}: {dict(r.values)['verdict']}")
            if not r.passed:
                say("\n".join(failure_lines(r, sources)))
                click.echo("")
        click.echo(f"{len(pairs) - len(failed)} passed, {len(failed)} failed")
        n = len(result.rulesets)
        click.echo(f"({n} ruleset{'s' if n != 1 else ''}, {elapsed:.2f} s)")
        if coverage:
            spans = {m.id: {d.id: f"{d.span.file}:{d.span.line}" for d in m.walk() if d.id} for m in result.rulesets}
            print_coverage(covs, spans, verbose)
    uncovered = coverage and strict and any(missing(c) for c in covs)
    if uncovered and not as_json:
        click.echo("--strict: some tables, tests, formulas, modifiers or attacks are exercised by no example")
    raise Exit(1 if failed or uncovered else 0)
