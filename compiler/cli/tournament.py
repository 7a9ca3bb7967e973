"""``warscribe simulate … --tournament``: every pair of policies, in both seatings, with intervals.

Each ordered pair (the first side's policy, the second side's) plays the same games (the same
seeds), so a row and its mirror differ only by who sits where.  A player is stronger where it wins
more in both seatings than its opponent does in the same seat.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Sequence

from compiler.cli.common import Exit, report_resolve_error, say, usage_error

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.battle.simulate import Armies
    from compiler.driver import Compilation
    from compiler.model.ruleset import Ruleset


def tournament(path: str, sc: A.Scenario, names: Sequence[str], games: int, seed: int, jobs: int = 1,
               scheduler: str | None = None, armies: Armies = (),
               begin: Callable[[int, str, str], None] | None = None,
               advance: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """Every ordered pair of ``names`` on the two sides of ``sc``: each side's wins with their
    interval, and the draws. ``begin`` is told each pairing (its index from 0 and the two
    policies) as it starts, ``advance`` the games played so far in the whole tournament."""
    from compiler.battle import run, wilson

    if len(sc.sides) != 2:
        raise ValueError(f"a tournament seats two players; scenario '{sc.id}' has {len(sc.sides)} sides")
    rows: list[dict[str, Any]] = []

    def told(done: int) -> Callable[[int], None] | None:  # the games of this pairing, after ``done`` others
        return None if advance is None else (lambda n: advance(done + n))
    for a in names:
        for b in names:
            if begin is not None:
                begin(len(rows), a, b)
            tally = run(path, sc, games, seed, jobs, f"{a}:{b}", scheduler=scheduler, armies=armies,
                        progress=told(len(rows) * games))
            sides = []
            for k, name in enumerate((a, b)):
                lo, hi = wilson(tally.wins[k], tally.games)
                sides.append({"id": sc.sides[k].id, "policy": name, "wins": tally.wins[k],
                              "win_rate": round(tally.wins[k] / tally.games, 6), "ci95": [round(lo, 6), round(hi, 6)]})
            rows.append({"policies": [a, b], "games": tally.games, "sides": sides,
                         "draw_rate": round(tally.draws / tally.games, 6)})
    return rows


def play_tournament(compiled: Compilation, model: Ruleset, path: str, sc: A.Scenario, names: Sequence[str],
                    games: int, seed: int, jobs: int, scheduler: str | None, armies: Armies, as_json: bool) -> None:
    """Play and print the tournament (a table, or JSON)."""
    from compiler.resolve.core import ResolveError

    from compiler.cli.progress import progress, step

    pairings = len(names) ** 2

    def begin(i: int, a: str, b: str) -> None:  # called once the scenario is known to seat two
        step("tournament", f"pairing {i + 1} of {pairings}: {a} ({sc.sides[0].title}) against {b} "
                           f"({sc.sides[1].title}), {games:,} game{'s' if games != 1 else ''}")
    try:
        with progress("tournament", games * pairings, "game") as advance:
            rows = tournament(path, sc, names, games, seed, jobs, scheduler, armies, begin, advance)
    except ResolveError as err:
        report_resolve_error(err, dict(compiled.sources))
        raise Exit(1)
    except ValueError as e:
        raise usage_error(str(e))
    if as_json:
        say(json.dumps({"ruleset": model.id, "scenario": sc.id, "games": games, "seed": seed, "tournament": rows},
                       indent=2, ensure_ascii=False))
        return
    first, second = sc.sides[0].title, sc.sides[1].title
    say(f"{model.title}: {sc.title} — tournament, {games} games a pairing, seed {seed}")
    say(f"  each cell: the win rate of {first} (95% CI) / of {second}")
    corner = f"{first} \\ {second}"
    width = max([len(corner)] + [len(n) for n in names]) + 2
    say("  " + corner.ljust(width) + "".join(n.ljust(34) for n in names))
    for a in names:
        cells = []
        for b in names:
            row = next(r for r in rows if r["policies"] == [a, b])
            one, two = row["sides"]
            cells.append(f"{one['win_rate']:.1%} ({one['ci95'][0]:.1%}–{one['ci95'][1]:.1%}) / {two['win_rate']:.1%}"
                         .ljust(34))
        say("  " + a.ljust(width) + "".join(cells).rstrip())
