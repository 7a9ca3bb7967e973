"""``warscribe play``, ``simulate`` and ``army check``: battles played, simulated, and army lists checked."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from compiler.cli.common import Arg, Exit, app, compile_one, say, usage_error

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.model.ruleset import Ruleset


def pick_scenario(model: Ruleset, name: str | None) -> A.Scenario:
    """The scenario called ``name``, or the ruleset's first; a usage error when there is none."""
    from compiler import ast as A
    from compiler.diagnostics import did_you_mean

    scenarios = model.of_type(A.Scenario)
    if not scenarios:
        raise usage_error(f"ruleset '{model.id}' has no scenario to play; add a `scenario` declaration")
    if name is None:
        return scenarios[0]
    found = model.get(name)
    if not isinstance(found, A.Scenario):
        close = did_you_mean(name, [s.id for s in scenarios])
        raise usage_error(f"ruleset '{model.id}' has no scenario '{name}'" + (f"; did you mean '{close}'?" if close else ""))
    return found


def describe(model: Ruleset, event: dict[str, Any]) -> str | None:
    """One event of a battle in words, with the rule behind it (its title and site anchor), as Rich
    markup: the event's texts (titles, names: author text) are escaped, shown as written."""
    from compiler.terminal import rich_text

    event = {k: rich_text(v) if isinstance(v, str) else v for k, v in event.items()}
    kind = event["event"]

    def rule(rule_id: str) -> str:
        decl = model.get(rule_id)
        title = rich_text(getattr(decl, "title", None) or rule_id)
        return f"[dim]({title}, #{rule_id})[/dim]"

    if kind == "start":
        return f"[bold]{event.get('first_title') or event['first']}[/bold] goes first; the forces stand {event['distance']}\" apart."
    if kind == "turn":
        return f"\n[bold cyan]— Game turn {event['turn']}: {event.get('title', event['side'])} —[/bold cyan]"
    if kind == "move":
        return f"{event['unit']} moves {event['inches']}\": {event['distance']:g}\" from the enemy."
    if kind == "volley":
        weapon = f" with {event['weapon']}" if event.get("weapon") else ""
        return (f"{event['unit']} ({event['models']}) → {event['target']}{weapon} {rule(event['rule'])}: "
                f"[bold]{event['removed']}[/bold] removed (expected {event['mean']:.2f}); {event['left']} left.")
    if kind == "test":
        verdict = "[green]passed[/green]" if event["passed"] else "[red]failed[/red]"
        return f"{event['unit']} takes a test {rule(event['rule'])}: chance {event['chance']:.1%}, {verdict}."
    if kind == "activation":
        verdict = "[red]bust[/red]: the turn passes" if event["bust"] else f"{event['successes']} action(s)"
        return (f"{event['unit']} rolls {event['dice']} activation dice {rule(event['rule'])} "
                f"(each {event['chance']:.0%}): {verdict}.")
    if kind == "engage":
        return f"{event['unit']} engages {event['target']} ({event['status']})."
    if kind == "out_of_reach" and event.get("reach") is None:
        return f"{event['unit']}: no enemy in reach of its weapons."
    if kind == "out_of_reach":
        return f"{event['unit']}: no enemy within {event['reach']:g}\"."
    if kind == "reaction":
        return f"{event['unit']} reacts ({event['event']}) to {event['cause']}."
    if kind == "status" and event.get("until") == "now":
        return f"{event['unit']} is no longer {event['status']}."
    if kind == "status":
        until = f" until the end of the {event['until']}" if event.get("until") else ""
        return f"{event['unit']} is now {event['status']}{until}."
    if kind == "destroyed":
        return f"[red]{event['unit']} is destroyed[/red] ({event['models']} models)."
    if kind == "activated":
        return f"[bold]{event['title']} activates {event['unit']}.[/bold]"
    if kind == "order":
        return f"{event['unit']} gets [bold]{event['title']}[/bold]."
    if kind == "end":
        winner = (f"[bold]{event.get('winner_title') or event['winner']} win[/bold]" if event["winner"]
                  else "[bold]a draw[/bold]")
        return (f"\n{winner} {rule(event['reason']) if model.get(event['reason']) else '(' + event['reason'] + ')'}; "
                f"models left {event['survivors']}, scores {event['scores']}.")
    return None


@app.command()
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("scenario", cls=Arg, required=False, help="The scenario id (default: the ruleset's first).")
@click.option("--seed", type=int, help="Seed of the dice (default: a new one, printed).")
@click.option("--auto", is_flag=True, help="Let the policies play both sides.")
@click.option("--side", help="The side you command (default: asked).")
@click.option("--policy", default="greedy", help="The policy of the sides you do not command: greedy or random.")
@click.option("--log", type=click.Path(path_type=Path), help="Write the battle log (JSON lines) to this file.")
@click.option("--replay", "replay_log", type=click.Path(path_type=Path), help="Play back a battle log instead.")
def play(path: str, scenario: str | None, seed: int | None, auto: bool, side: str | None, policy: str,
         log: Path | None, replay_log: Path | None) -> None:
    """A battle turn by turn in the terminal, each roll shown with the rule behind it."""
    from rich.console import Console
    from rich.text import Text

    from compiler.battle import POLICIES, Battle, HumanPolicy, LogError, Policy, Rules, read_log, replay, write_log
    from compiler.terminal import shown

    _, model = compile_one(path)
    # No Rich markup or emoji codes but the events' own: author text (`[link=…]`, `[bold]`,
    # `:skull:`) prints as written.
    console = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)
    rules = Rules(model)

    def show(event: dict[str, Any]) -> None:
        text = describe(model, event)
        if text is not None:
            console.print(text, markup=True)

    if replay_log is not None:
        try:
            replay(rules, read_log(replay_log.read_text("utf-8").splitlines()), listener=show)
        except (OSError, ValueError, LogError) as e:
            raise usage_error(f"cannot replay {replay_log}: {e}")
        return
    sc = pick_scenario(model, scenario)
    if policy not in POLICIES:
        raise usage_error(f"unknown policy '{policy}'; use one of: {', '.join(POLICIES)}")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    console.print(Text.assemble((shown(sc.title), "bold"), f" — {shown(model.title)} (seed {seed})"))
    for s in sc.sides:
        console.print(shown(f"  {s.title}: " + ", ".join(f"{u.count} {u.name}" for u in s.units)))
    policies: list[Policy] = [POLICIES[policy](seed + k + 1) for k in range(len(sc.sides))]
    if not auto:
        ids = [s.id for s in sc.sides]
        human = _ask_side(console, sc, side) if side is None else ids.index(side) if side in ids else None
        if human is None:
            raise usage_error(f"scenario '{sc.id}' has no side '{side}'; use one of: {', '.join(ids)}")
        policies[human] = HumanPolicy(lambda prompt: _read(console, prompt), lambda text: console.print(shown(text)))
    battle = Battle(rules, sc, policies, seed, listener=show)
    try:
        battle.run()
    except EOFError:
        console.print("No more input: the battle stops here.")
        raise Exit(1)
    if log is not None:
        with open(log, "w", encoding="utf-8") as out:
            write_log(out, battle, model.id, seed)
        console.print(shown(f"Battle log written to {log}"))


def _read(console: Any, prompt: str) -> str:
    from compiler.terminal import shown

    console.print(f"{shown(prompt)}: ", end="")
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


def _ask_side(console: Any, sc: A.Scenario, side: str | None) -> int:
    from compiler.terminal import shown

    console.print("Choose a side:")
    for i, s in enumerate(sc.sides, 1):
        console.print(f"  {i}. {shown(s.title)}")
    while True:
        answer = _read(console, f"Choose 1-{len(sc.sides)}").strip()
        if answer.isdigit() and 1 <= int(answer) <= len(sc.sides):
            return int(answer) - 1
        console.print(f"Please enter a number from 1 to {len(sc.sides)}.")


@app.command()
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("scenario", cls=Arg, required=False, help="The scenario id (default: the ruleset's first).")
@click.option("--games", type=click.IntRange(min=1), default=1000, help="How many battles.")
@click.option("--seed", type=int, default=1, help="The run's seed; game i is played with a seed made from it and i.")
@click.option("--jobs", type=click.IntRange(min=1), default=1,
              help="Worker processes (the answer does not depend on it).")
@click.option("--policy", default="greedy", help="How both sides decide: greedy or random.")
@click.option("--against", help="Also play under this base ruleset and report the change.")
@click.option("--scheduler", help="A dask.distributed scheduler address.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: win and draw rates with 95% intervals.")
def simulate(path: str, scenario: str | None, games: int, seed: int, jobs: int, policy: str, against: str | None,
             scheduler: str | None, as_json: bool) -> None:
    """Win and draw rates of many battles, with 95% intervals; the same seed gives the same answer."""
    from compiler.battle import POLICIES, run, summary
    from compiler.battle.simulate import against as change

    _, model = compile_one(path)
    sc = pick_scenario(model, scenario)
    if policy not in POLICIES:
        raise usage_error(f"unknown policy '{policy}'; use one of: {', '.join(POLICIES)}")
    try:
        tally = run(path, sc, games, seed, jobs, policy, scheduler=scheduler)
        out = summary(model, sc, tally, seed)
        if against is not None:
            _, base_model = compile_one(against)
            if not any(getattr(d, "id", None) == sc.id for d in base_model.walk()):
                raise usage_error(f"the base ruleset '{base_model.id}' has no scenario '{sc.id}'")
            base = run(against, sc, games, seed, jobs, policy, scheduler=scheduler)
            out["against"] = {"ruleset": base_model.id, "base": summary(base_model, sc, base, seed),
                              "change": change(sc, tally, base)}
    except ValueError as e:
        raise usage_error(str(e))
    if as_json:
        say(json.dumps(out, indent=2, ensure_ascii=False))
        return
    say(f"{model.title}: {sc.title} — {out['games']} games, seed {seed}, policy {policy}")
    for s in out["sides"]:
        lo, hi = s["ci95"]
        say(f"  {s['title']}: wins {s['wins']} = {s['win_rate']:.1%} (95% CI {lo:.1%}–{hi:.1%}), "
                   f"{s['survivors_mean']:.2f} models left on average")
    lo, hi = out["draw_ci95"]
    click.echo(f"  draws: {out['draws']} = {out['draw_rate']:.1%} (95% CI {lo:.1%}–{hi:.1%}); "
               f"{out['turns_mean']:.2f} game turns on average")
    if "against" in out:
        click.echo(f"  against {out['against']['ruleset']}:")
        for c in out["against"]["change"]:
            lo, hi = c["ci95"]
            click.echo(f"    {c['id']}: {c['base_win_rate']:.1%} → {c['overlay_win_rate']:.1%}, "
                       f"change {c['change']:+.1%} (95% CI {lo:+.1%} to {hi:+.1%})")


@app.group("army", no_args_is_help=True)
def army_app() -> None:
    """Army lists checked against a ruleset's army construction rules."""


_ROSTER_LINE = re.compile(r"^\s*(\d+)\s+([A-Za-z_]\w*)(?:\s+with\s+([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*))?\s*$")


@army_app.command("check")
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("roster", cls=Arg, type=click.Path(path_type=Path),
                help="The army list: one unit a line, e.g. `10 space_marine_squad`.")
@click.option("--army", help="The army rules to check against (default: the first).")
def army_check(path: str, roster: Path, army: str | None) -> None:
    """Check an army list against the ruleset's army construction rules; each violation cites its rule."""
    from compiler import ast as A
    from compiler.diagnostics import Span
    from compiler.model.armies import check_army, listed_units

    _, model = compile_one(path)
    armies = model.of_type(A.Army)
    chosen = model.get(army) if army else (armies[0] if armies else None)
    if not isinstance(chosen, A.Army):
        raise usage_error(f"ruleset '{model.id}' has no army rules" + (f" called '{army}'" if army else ""))
    try:
        text = roster.read_text("utf-8")
    except OSError as e:
        raise usage_error(f"cannot read {roster}: {e.strerror or e}")
    units: list[A.SideUnit] = []
    known = {p.id for p in model.profiles.values() if p.kind == "unit"} | {q.id for q in model.of_type(A.Squad)}
    weapons = {p.id for p in model.profiles.values() if p.kind == "weapon"}
    bad = 0
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        m = _ROSTER_LINE.match(body)
        span = Span(str(roster), n, 1, n, len(line) + 1)
        if m is None:
            say(f"{roster}:{n}:1: error: cannot read this line; write e.g. `10 space_marine_squad`")
            bad += 1
            continue
        extra = tuple(w.strip() for w in m.group(3).split(",")) if m.group(3) else ()
        unknown = [x for x in (m.group(2),) if x not in known] + [w for w in extra if w not in weapons]
        if unknown:
            say(f"{roster}:{n}:1: error: '{unknown[0]}' is not a unit, squad or weapon of {model.id}")
            bad += 1
            continue
        units.append(A.SideUnit(span, int(m.group(1)), m.group(2), extra))
    if bad:
        raise Exit(1)
    listed = listed_units(model, A.Side(Span(str(roster), 1, 1, 1, 1), "roster", "Roster", tuple(units)))
    violations = check_army(model, chosen, listed)
    total = sum(u.points for u in listed)
    for v in violations:
        trail = model.section_path(v.army)
        rule = trail[-1] if trail else None
        cited = f"rule '{rule.title}' ({rule.id}), " if rule is not None else ""
        say(f"{roster}: error[W862]: {v.message}\n  = see {cited}army '{v.army_title}' "
                   f"({v.army}) at {v.span.file}:{v.span.line}, on the site #{rule.id if rule else v.army}")
    verdict = "breaks" if violations else "meets"
    say(f"{roster}: {len(listed)} units, {total} points: the list {verdict} the rules of '{chosen.title}'"
               + (f" ({len(violations)} violation{'s' if len(violations) != 1 else ''})" if violations else ""))
    if violations:
        raise Exit(1)
