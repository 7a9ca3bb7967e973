"""What ``warscribe test --coverage`` prints: a table per ruleset of what its examples exercise.

A helper of the ``test`` command (:mod:`compiler.cli.answers`), not a command of its own.
"""
from __future__ import annotations

import os
from typing import Any, Sequence

from compiler.resolve.coverage import Coverage
from compiler.terminal import shown

#: The kinds ``--strict`` requires every declaration of to be exercised by an example.
REQUIRED_KINDS = ("table", "test", "formula", "modifier", "attack")
KIND_ORDER = ("table", "test", "formula", "modifier", "attack", "ability")
PLURAL = {"ability": "abilities"}
#: Narrower than this (in columns), the table is stacked: one small table per ruleset.
STACK_BELOW = 100


def missing(cov: Coverage) -> list[tuple[str, str]]:
    """(id, kind) of the required declarations no example exercises."""
    return [(i, k) for i, k in cov.executable if k in REQUIRED_KINDS and not cov.pinned.get(i)]


def coverage_json(cov: Coverage) -> dict[str, Any]:
    return {
        "ruleset": cov.ruleset,
        "by_kind": {k: {"exercised": d, "executable": t} for k, (d, t) in sorted(cov.by_kind().items())},
        "pinned_by": {i: list(cov.pinned.get(i, ())) for i, _ in cov.executable},
        "unexercised": [{"id": i, "kind": k} for i, k in cov.executable if not cov.pinned.get(i)],
        "driving_rules": list(cov.driving),
        "runs_in_battle": list(cov.in_battle),
        "runs_in_resolver_only": list(cov.resolver_only),
        "links_only": list(cov.links_only),
        "prose_only": [{"id": i, "kind": k, "reason": r} for i, k, r in cov.prose_only],
        "unmarked_rules": list(cov.unmarked),
        "not_played": [{"scenario": i, "reason": r} for i, r in cov.not_played],
    }


def print_coverage(covs: Sequence[Coverage], spans: dict[str, dict[str, str]], verbose: bool = False) -> None:
    """A Rich table: per ruleset, exercised/executable for each kind, rules that drive the resolver
    or the battle engine, prose-only rules and abilities, unmarked rules; then each unexercised declaration with where
    it is written (and, with ``verbose``, each prose-only and unmarked one)."""
    from rich.table import Table

    from compiler.cli.common import console as make_console

    console = make_console()
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console.width = 160  # piped or captured: wide enough for every column
    title = ("Executable coverage: declarations exercised by examples; rules that run in battle, run only in "
             "the resolver, only link what nothing ran, are prose only (and say why) or are unmarked")
    headers = [PLURAL.get(kind, kind + "s") for kind in KIND_ORDER] + ["all", "in battle", "resolver only",
                                                                       "links only", "prose only", "unmarked"]
    rows = []
    for cov in covs:
        counts = cov.by_kind()
        cells = []
        for kind in KIND_ORDER:
            done, total = counts.get(kind, (0, 0))
            text = f"{done}/{total}" if total else "–"
            cells.append(f"[red]{text}[/red]" if done < total else text)
        done_all, total_all = len(cov.exercised), len(cov.executable)
        cells.append(f"{done_all}/{total_all}")
        cells += [str(len(cov.in_battle)), str(len(cov.resolver_only)),
                  f"[yellow]{len(cov.links_only)}[/yellow]" if cov.links_only else "0", str(len(cov.prose_only)),
                  f"[yellow]{len(cov.unmarked)}[/yellow]" if cov.unmarked else "0"]
        rows.append((cov.ruleset, cells))
    if console.width >= STACK_BELOW:
        table = Table(title=title, title_justify="left")
        table.add_column("ruleset")
        for header in headers:
            table.add_column(header, justify="right")
        for ruleset, cells in rows:
            table.add_row(ruleset, *cells)
        console.print(table)
    else:  # narrow: one small table per ruleset, each header a row of its own
        console.print(title, markup=False, soft_wrap=False)
        for ruleset, cells in rows:
            table = Table(title=ruleset, title_justify="left", show_header=False)
            table.add_column("what")
            table.add_column("count", justify="right")
            for header, cell in zip(headers, cells):
                table.add_row(header, cell)
            console.print(table)
    for cov in covs:
        for decl_id, kind in cov.executable:
            if not cov.pinned.get(decl_id):
                where = spans.get(cov.ruleset, {}).get(decl_id, "")
                console.print(shown(f"not exercised: {cov.ruleset} {kind} {decl_id}" + (f" ({where})" if where else "")),
                              markup=False)
    for cov in covs:  # a scenario the engine could not play: what it would have run is missing above
        for scenario_id, reason in cov.not_played:
            console.print(shown(f"not played: {cov.ruleset} scenario {scenario_id}: {reason}"), markup=False)
    if verbose:
        for cov in covs:
            for decl_id, kind, reason in cov.prose_only:
                console.print(shown(f"prose only: {cov.ruleset} {kind} {decl_id}: {reason}"), markup=False)
            for decl_id in cov.unmarked:
                where = spans.get(cov.ruleset, {}).get(decl_id, "")
                what = ("links declarations no example and no battle ran" if decl_id in cov.links_only
                        else "drives neither the resolver nor the battle engine")
                console.print(shown(f"unmarked: {cov.ruleset} rule {decl_id}" + (f" ({where})" if where else ""))
                              + f": {what}, nor says why (add a 'prose only' note)",
                              markup=False)
