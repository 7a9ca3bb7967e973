"""``warscribe balance``: the points that make a matchup fair, swept and measured."""
from __future__ import annotations

import json

import click

from compiler.cli.common import (Arg, Exit, app, compile_one, json_option, report_resolve_error, ruleset_path, say,
                                 unknown_name, usage_error)
from compiler.limits import MAX_GAMES, MAX_JOBS


@app.command()
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("scenario", cls=Arg, required=False, help="The scenario id (default: the ruleset's first).")
@click.option("--vary", required=True, metavar="PROFILE.points=LO..HI[:STEP]",
              help="The profile whose points are swept, and the values (e.g. space_marine.points=10..20).")
@click.option("--games", type=click.IntRange(min=1, max=MAX_GAMES), default=1000, help="Battles at each value.")
@click.option("--seed", type=int, default=1, help="The run's seed; every value plays the same games.")
@click.option("--policy", default="greedy", metavar="A[:B]",
              help="How the sides decide: one policy for both, or one per side in the scenario's order.")
@click.option("--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=1,
              help=f"Worker processes (the answer does not depend on it), at most {MAX_JOBS}.")
@click.option("--jobs-force", is_flag=True, help="Start more workers than the machine has cores.")
@click.option("--scheduler", help="A dask.distributed scheduler address (the `cluster` extra).")
@json_option('Print JSON: {"vary", "points": [{"value", "win_rate", "ci95"}], "fair": {"value", "ci95"}}.')
def balance(path: str, scenario: str | None, vary: str, games: int, seed: int, policy: str, jobs: int,
            jobs_force: bool, scheduler: str | None, as_json: bool) -> None:
    """The points that make a matchup fair: a profile's points swept over a range.

    At each value the armies are rebuilt within the scenario's points (the varied units field as
    many models as their points buy), each side's win rate is measured with its 95% interval, and
    the fair value is where the win rate of the side fielding the profile crosses 50%.
    """
    from compiler.battle import POLICIES
    from compiler.battle.balance import parse_vary, sweep
    from compiler.battle.simulate import side_policies
    from compiler.cli.battle import pick_scenario, workers
    from compiler.cli.progress import progress
    from compiler.resolve.core import ResolveError

    jobs = workers(jobs, games, jobs_force)
    path = ruleset_path(path)  # handed on to the workers
    compiled, model = compile_one(path)
    sc = pick_scenario(model, scenario)
    for name in policy.split(":"):
        if name not in POLICIES:
            raise unknown_name(f"unknown policy '{name}'", name, list(POLICIES), "policies")
    try:
        side_policies(policy, len(sc.sides))
        plan = parse_vary(vary, model)
        with progress("balance", games * len(plan.values), "game") as advance:
            out = sweep(path, model, sc, plan, games, seed, jobs, policy, scheduler, advance)
    except ResolveError as err:
        report_resolve_error(err, dict(compiled.sources))
        raise Exit(1)
    except ValueError as e:
        raise usage_error(str(e))
    if as_json:
        say(json.dumps(out, indent=2, ensure_ascii=False))
        return
    title = next(s.title for s in sc.sides if s.id == out["side"])
    say(f"{model.title}: {sc.title} — {plan.profile} at {plan.values[0]}..{plan.values[-1]} points, "
        f"{games} games a value, seed {seed}, policy {policy}")
    say(f"  {'points':>6}  {'models':>6}  {title} wins (95% CI)")
    for p in out["points"]:
        lo, hi = p["ci95"]
        bar = "█" * round(p["win_rate"] * 30)
        say(f"  {p['value']:>6}  {p['models']:>6}  {p['win_rate']:6.1%} ({lo:.1%}–{hi:.1%})  {bar.ljust(30)}|")
    fair = out["fair"]
    if fair is None:
        say(f"  the win rate of {title} does not cross 50% between {plan.values[0]} and {plan.values[-1]} points: "
            f"widen the range")
    else:
        lo, hi = fair["ci95"]
        say(f"  fair value: {fair['value']:g} points a model (95% CI {lo:g}–{hi:g}), where {title} win half the games")
