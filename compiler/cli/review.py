"""``warscribe diff``: what changed between two versions of a ruleset, and what it did to the odds.

Registered on the application of :mod:`compiler.cli.common` when this module is imported (see :mod:`compiler.cli.commands`).
"""
from __future__ import annotations

import json
import sys
import click

from compiler.cli.common import Arg, Exit, app, print_diagnostics, say, usage_error, use_color

DIFF_HELP = """
What changed between two versions of a ruleset, and what it did to the odds.

\b
  warscribe diff OLD_FOLDER NEW_FOLDER     two folders
  warscribe diff REV PATH                  PATH at a git revision against PATH now
  warscribe diff REV1 REV2 PATH            PATH at two git revisions
\b
  e.g.  warscribe diff HEAD~1 rules/classic-40k
        warscribe diff v1.0 HEAD rules/classic-40k --markdown

Lists every section, rule, table, profile and term added, removed, changed or
moved; for a change, the clauses before and after, stats one by one, table
cells whose result or chance changed, and prose as a unified diff. Then the
impact: each example's values before and after, and the standard matchups
(every attack an example runs with profiles) with the mean of their last
step before and after ("mean killed 1.39 → 1.11, -20%"). --matchup adds your
own expressions, evaluated under both versions.

\b
--json prints:
  {"old": {"id", "version", "title", "label"}, "new": {...},
   "summary": {"added", "removed", "changed", "moved", "identical"},
   "changes": [{"id", "kind", "title", "change", "section", "moved_from",
                "indirect", "details": {"fields": [{"field", "old", "new"}],
                "stats": [{"stat", "old", "new"}],
                "cells": [{"at", "old": {"result", "p", "mean"}, "new"}],
                "prose": [{"where", "old", "new", "diff"}]}}],
   "impact": {"examples": [{"id", "title", "changed", "values": [{"subject",
                "old", "new", "old_exact", "new_exact", "changed", "expected",
                "old_holds", "new_holds"}]}],
              "matchups": [{"expression", "label", "step", "old", "new",
                "old_float", "new_float", "change", "change_text",
                "old_error", "new_error", "explicit", "changed", "sources"}]}}

Exit status: 0 (with or without differences; --exit-code: 1 when there are
any), 1 when either side has errors, 2 for an unknown revision or path.
"""


@app.command("diff", help=DIFF_HELP)
@click.argument("sides", cls=Arg, nargs=-1, required=True, metavar="OLD NEW | REV1 REV2 PATH",
                help="Two folders, a revision and a path, or two revisions and a path.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (shape above).")
@click.option("--markdown", is_flag=True, help="Print Markdown, e.g. for a pull-request comment.")
@click.option("--matchup", "-m", multiple=True, metavar="EXPR",
              help='A matchup to work out under both versions, e.g. "shooting(5 space_marine, boltgun, 10 ork_boy)"; '
                   "an attack reports the mean of its last step, any other expression its mean. Repeatable.")
@click.option("--impact/--no-impact", "impact_", default=True, help="Work out the impact on examples and matchups.")
@click.option("--unchanged", is_flag=True, help="Also list matchups and examples whose results did not change.")
@click.option("--exit-code", is_flag=True, help="Exit 1 when there are differences, as git diff --exit-code.")
def diff(sides: tuple[str, ...], as_json: bool, markdown: bool, matchup: tuple[str, ...], impact_: bool,
         unchanged: bool, exit_code: bool) -> None:
    from compiler.review.diff import diff_models, impact
    from compiler.review.report import diff_json, diff_markdown, diff_text
    from compiler.review.gitsource import SourceError, load_side, parse_sides
    from compiler.model.load import UsageError
    from compiler.resolve.evaluator import ResolveError

    if as_json and markdown:
        raise usage_error("choose one of --json and --markdown")
    try:
        specs = parse_sides(list(sides))
        loaded = [load_side(s) for s in specs]
    except (SourceError, UsageError) as e:
        raise usage_error(str(e))
    failed = False
    for side in loaded:
        if not side.ok:
            errors = tuple(d for d in side.diagnostics if d.is_error)
            print_diagnostics(errors, dict(side.sources))
            click.echo(f"{side.spec.label}: the rules have errors; fix them first"
                       if errors else f"{side.spec.label}: no ruleset found", err=True)
            failed = True
    if failed:
        raise Exit(1)
    old, new = loaded[0].model, loaded[1].model
    assert old is not None and new is not None
    result = diff_models(old, new, old_label=specs[0].label, new_label=specs[1].label)
    effect = None
    if impact_:
        try:
            effect = impact(old, new, matchup or (), unchanged=unchanged)
        except ResolveError as err:
            raise usage_error(f"cannot read --matchup: {err.message}")
    if as_json:
        say(json.dumps(diff_json(result, effect), indent=2, ensure_ascii=False))
    elif markdown:
        click.echo(diff_markdown(result, effect), nl=False)
    else:
        for line in diff_text(result, effect, color=use_color(sys.stdout)):
            click.echo(line)
    different = not result.empty or (effect is not None and effect.changed)
    raise Exit(1 if (exit_code and different) else 0)
