"""``warscribe play``, ``simulate`` and ``army check``: battles played, simulated, and army lists checked."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.markup import escape

from compiler.cli.common import (Arg, Exit, app, compile_one, is_quiet, json_option, print_diagnostics, refuse,
                                 report_resolve_error, ruleset_path, say, unknown_name, usage_error)
from compiler.cli.common import console as make_console
from compiler.limits import MAX_GAMES, MAX_JOBS, MAX_ROSTER_BYTES
from compiler.terminal import rich_text

if TYPE_CHECKING:
    from compiler import ast as A
    from compiler.model.ruleset import Ruleset


def pick_scenario(model: Ruleset, name: str | None) -> A.Scenario:
    """The scenario called ``name``, or the ruleset's first; a usage error when there is none."""
    from compiler import ast as A
    scenarios = model.of_type(A.Scenario)
    if not scenarios:
        raise usage_error(f"ruleset '{model.id}' has no scenario to play; add a `scenario` declaration")
    if name is None:
        return scenarios[0]
    found = model.get(name)
    if not isinstance(found, A.Scenario):
        raise unknown_name(f"ruleset '{model.id}' has no scenario '{name}'", name, [s.id for s in scenarios], "scenarios")
    return found


@app.command()
@click.argument("path", cls=Arg, required=False,
                help="The ruleset folder (with --replay, default: the one the log names).")
@click.argument("scenario", cls=Arg, required=False, help="The scenario id (default: the ruleset's first).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1),  # what a battle log holds, so that --log can be replayed
              help="Seed of the dice (default: a new one, printed).")
@click.option("--auto", is_flag=True, help="Let the policies play both sides.")
@click.option("--side", help="The side you command (default: asked).")
@click.option("--policy", default="greedy", help="The policy of the sides you do not command: greedy, random, lookahead or mcts.")
@click.option("--site", metavar="URL",
              help="The built site's address: each rule is linked to its page there (default: its file and line).")
@click.option("--log", type=click.Path(path_type=Path),
              help="Write the battle log (JSON lines) to this file: a new file or an earlier log, never a .rules "
                   "file or a file in a ruleset folder (checked before the battle starts).")
@click.option("--force", is_flag=True, help="With --log: replace an existing file that is not a battle log.")
@click.option("--replay", "replay_log", type=click.Path(path_type=Path),
              help="Play back a battle log instead (its own seed, sides and choices).")
@json_option("Print the battle's events as JSON lines (with --auto or --replay).")
def play(path: str | None, scenario: str | None, seed: int | None, auto: bool, side: str | None, policy: str,
         site: str | None, log: Path | None, force: bool, replay_log: Path | None, as_json: bool) -> None:
    """A battle turn by turn in the terminal, each volley shown with the rule behind it.

    Each unit is named with its side ("Orks: Ork Boy"), each rule with its file and line, or
    its page on the built site with --site URL (or the `site` setting). Answer each choice with
    its number; q (or quit) at any prompt, or the end of the input, stops the battle (exit 0,
    no log written).
    """
    from compiler.battle import (POLICIES, Battle, HumanPolicy, LogError, Policy, Quit, ReplayMismatch, Rules,
                                 open_log, replay, write_log)
    from compiler.resolve.core import ResolveError
    from compiler.cli.battlemap import battle_map
    from compiler.cli.narrate import Narrator, label_units_by_side

    refuse(**{"--replay": replay_log, "--seed": seed, "--auto": auto, "--side": side, "SCENARIO": scenario,
              "--log": log})
    refuse(**{"--auto": auto, "--side": side})
    if as_json and not (auto or replay_log):
        raise usage_error("--json prints a battle no person plays: add --auto, or --replay a log")
    console = make_console(emoji=False)  # `:skull:` in a title prints as written
    played = None
    if replay_log is not None:
        try:
            played = open_log(replay_log)  # streamed, with a size limit and a schema
        except OSError as e:
            raise usage_error(f"cannot replay {replay_log}: {e.strerror or e}")
        except (ValueError, LogError) as e:
            raise usage_error(f"cannot replay {replay_log}: {e}")
        if path is None:
            path = played.path or _rules_of(played.ruleset)
            if path is None:
                raise usage_error(f"{replay_log} does not say where its ruleset '{played.ruleset}' is; "
                                  f"name its folder: warscribe play PATH --replay {replay_log}")
    if path is None:
        raise usage_error("name the ruleset folder: warscribe play PATH [SCENARIO]")
    path = ruleset_path(path)
    log_target = _log_target(log, path, force) if log is not None else None  # before any work
    compiled, model = compile_one(path)
    rules = Rules(model)
    if played is not None:
        scenario = played.scenario
        seed = played.seed
    sc = pick_scenario(model, scenario)
    narrator = Narrator(model, [s.title for s in sc.sides], site, [s.id for s in sc.sides])

    def show(event: dict[str, Any]) -> None:
        if as_json:
            say(json.dumps(event, sort_keys=True, ensure_ascii=False))
            return
        if playing and event["turn"] != drawn_at[-1]:  # on a table, the map as each game turn begins
            drawn_at.append(event["turn"])
            drawn = battle_map(playing[-1].state)
            if drawn is not None:
                console.print(drawn)
        text = narrator.line(event)
        if text is not None:
            console.print(text)

    playing: list[Battle] = []
    drawn_at: list[int] = [0]

    def begin(battle: Battle) -> None:
        playing.append(battle)
        label_units_by_side(battle.state.units, battle.state.side_titles)
        for line in [] if as_json else narrator.header(sc, battle_seed, battle.state.units):
            console.print(line)

    if played is not None:
        battle_seed = played.seed
        try:
            replay(rules, played, listener=show, before=begin)
        except ResolveError as err:
            report_resolve_error(err, dict(compiled.sources))
            raise Exit(1)
        except ReplayMismatch as e:
            say(f"warscribe: error: {replay_log}: {e}", err=True)
            raise Exit(1)
        except (ValueError, LogError) as e:
            raise usage_error(f"cannot replay {replay_log}: {e}")
        return
    if policy not in POLICIES:
        raise unknown_name(f"unknown policy '{policy}'", policy, list(POLICIES), "policies")
    battle_seed = int.from_bytes(os.urandom(4), "big") if seed is None else seed
    policies: list[Policy] = [POLICIES[policy](battle_seed + k + 1) for k in range(len(sc.sides))]
    if not auto:
        ids = [s.id for s in sc.sides]
        try:
            human = _ask_side(console, sc, side) if side is None else ids.index(side) if side in ids else None
        except (Quit, EOFError) as stop:
            _left(console, stop, log, None)
            return
        if human is None:
            raise unknown_name(f"scenario '{sc.id}' has no side '{side}'", side or "", ids, "sides")
        policies[human] = HumanPolicy(lambda prompt: _read(console, prompt),
                                      lambda text: console.print(rich_text(text)))  # author text, never markup
    battle = Battle(rules, sc, policies, battle_seed, listener=show, dice=True)  # a battle for people: its dice shown
    begin(battle)
    try:
        battle.run()
    except (Quit, EOFError) as stop:
        _left(console, stop, log, battle)
        return
    except ResolveError as err:  # a volley too big to work out (thousands of attacks): located, one sentence
        report_resolve_error(err, dict(compiled.sources))
        raise Exit(1)
    if log_target is not None:
        import io

        from compiler.atomic import write_atomic

        text = io.StringIO()
        write_log(text, battle, model.id, battle_seed, path=str(Path(path).resolve()))
        try:
            write_atomic(log_target, text.getvalue())
        except OSError as err:
            click.echo(f"warscribe: error: cannot write the battle log to {log}: {err.strerror or err}", err=True)
            raise Exit(1)
        if not is_quiet():
            click.echo(f"warscribe: the battle log is written to {log}", err=True)


def _carried(compiled: Any, model: Ruleset, sc: A.Scenario, armies: tuple[str, ...]) -> None:
    """Army lists from the command line, which ``check`` never saw: what the game reads of each of
    their units must be on its profile (W866), else the located errors and exit 1."""
    if not armies:
        return
    from compiler.check import carried_in

    lacking = carried_in(model, sc)
    if lacking:
        files = {given.partition("=")[2] for given in armies}
        print_diagnostics(lacking, {**dict(compiled.sources), **{f: _read_list(Path(f)) for f in files}})
        raise Exit(1)


def armies_given(armies: tuple[str, ...]) -> list[tuple[str, str]]:
    """``--army SIDE=LIST`` options as (side, list file) pairs."""
    return [(side, file) for side, _, file in (given.partition("=") for given in armies)]


def _within_army_rules(model: Ruleset, sc: A.Scenario, files: dict[str, str]) -> None:
    """An army list from the command line must meet the army rules its scenario names, as the
    scenario's own sides must (W862 in ``check``): each violation with its rule, and exit 1."""
    from compiler import ast as A
    from compiler.model.armies import check_army, listed_units

    army = model.get(sc.army) if sc.army is not None else None
    if not isinstance(army, A.Army):
        return
    broken = 0
    for side in sc.sides:
        if side.id not in files:
            continue
        for v in check_army(model, army, listed_units(model, side)):
            trail = model.section_path(v.army)
            cited = f"rule '{trail[-1].title}' ({trail[-1].id}), " if trail else ""
            where = f"{files[side.id]}:{v.unit.line}" if v.unit is not None else files[side.id]
            say(f"{where}: error[W862]: side '{side.id}' breaks the army rules of scenario '{sc.id}': {v.message}"
                f"\n  = see {cited}army '{v.army_title}' ({v.army}) at {v.span.file}:{v.span.line}", err=True)
            broken += 1
    if broken:
        raise Exit(1)


def _log_target(log: Path, path: str, force: bool) -> Path:
    """Where ``--log`` writes, checked before the battle (a usage error for a source or a foreign file)."""
    from compiler.battle.log import is_log
    from compiler.outputs import OutputRefused, check_output_file

    try:
        return check_output_file(log, "write the battle log to", is_log, force, sources=[path])
    except OutputRefused as err:
        raise usage_error(str(err))


def workers(jobs: int, games: int, force: bool) -> int:
    """``--jobs`` held to the work (chunks of games) and, unless ``force``, to the machine's cores."""
    from compiler.battle.simulate import CHUNK

    work = -(-games // CHUNK)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    cap = work if force else min(work, cores)
    if jobs > cap:
        if not is_quiet() and (jobs > cores and not force):
            click.echo(f"warscribe: note: --jobs {jobs} is more than the {cores} core(s) here; using {cap} "
                       f"(--jobs-force to start more)", err=True)
        return cap
    return jobs


def _rules_of(ruleset: str) -> str | None:
    """The folder of a ruleset named by its id, in the project's rules folder."""
    from compiler.cli.config import current

    folder = current().path("rules")
    if folder is not None and (folder / ruleset).is_dir():
        return str(folder / ruleset)
    return None


def _left(console: Any, stop: BaseException, log: Path | None, battle: Any) -> None:
    """The sentence ending a battle left half-way: no winner, no log (a log holds a finished battle)."""
    how = "No more input" if isinstance(stop, EOFError) else "You quit"
    where = f" in game turn {battle.state.turn}" if battle is not None and battle.state.turn else ""
    kept = f"; no battle log is written to {log}, as a log holds a battle played to its end" if log is not None else ""
    if isinstance(stop, EOFError):
        console.print()  # the prompt's line, which no answer ended
    console.print(f"{how}: the battle stops here{where}, with no winner{kept}.", soft_wrap=True)


def _read(console: Any, prompt: str) -> str:
    console.print(f"{rich_text(prompt)}: ", end="")
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line


def _ask_side(console: Any, sc: A.Scenario, side: str | None) -> int:
    from compiler.battle.policies import whole_number

    console.print("Choose a side:")
    for i, s in enumerate(sc.sides, 1):
        console.print(f"  {i}. {rich_text(s.title)}")
    from compiler.battle import Quit, wants_to_quit

    while True:
        answer = _read(console, f"Choose 1-{len(sc.sides)} (q quits)").strip()
        if wants_to_quit(answer):
            raise Quit
        number = whole_number(answer)
        if number is not None and 1 <= number <= len(sc.sides):
            return number - 1
        console.print(f"Please enter a number from 1 to {len(sc.sides)}, or q to quit.")


@app.command()
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("scenario", cls=Arg, required=False, help="The scenario id (default: the ruleset's first).")
@click.option("--games", type=click.IntRange(min=1, max=MAX_GAMES), default=1000,
              help=f"How many battles (at most {MAX_GAMES:,}).")
@click.option("--seed", type=int, default=1, help="The run's seed; game i is played with a seed made from it and i.")
@click.option("--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=1,
              help=f"Worker processes (the answer does not depend on it): at most {MAX_JOBS}, and never more than "
                   f"the chunks of 250 games or, without --jobs-force, the machine's cores.")
@click.option("--jobs-force", is_flag=True, help="Start more workers than the machine has cores.")
@click.option("--policy", metavar="A[:B]",
              help="How the sides decide (greedy, random, lookahead or mcts): one policy for both, or one per side in the "
                   "scenario's order (greedy:random). Default: greedy; with --against, the strongest player whose "
                   "estimated work fits a minute on two cores (mcts, else greedy).")
@click.option("--tournament", is_flag=True,
              help="Play every pair of the --policies (default: all) in both seatings and print a table of win "
                   "rates with 95% intervals; each pairing is said on stderr as it starts (not with -q).")
@click.option("--policies", metavar="A,B,…",
              help="With --tournament: the policies that play each other; with --against: make the judgement "
                   "under each, and flag a side whose change goes one way under one and the other way under another.")
@click.option("--against", help="Also play under this base ruleset and report the change.")
@click.option("--scheduler", help="A dask.distributed scheduler address.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: win and draw rates with 95% intervals.")
@click.option("--army", "armies", multiple=True, metavar="SIDE=LIST",
              help="Play this army list for a side: a list file (one unit a line; a unit `in reserve` is refused, "
                   "since every unit starts on the table) or a BattleScribe roster (.ros, .rosz); one a side, "
                   "held to the army rules the scenario names.")
@click.option("--exact", is_flag=True,
              help="Work out the exact law of the outcome instead of sampling (deterministic policies; refused, "
                   "with the count, past the limit of positions).")
def simulate(path: str, scenario: str | None, games: int, seed: int, jobs: int, jobs_force: bool, policy: str | None,
             against: str | None, scheduler: str | None, as_json: bool, armies: tuple[str, ...],
             exact: bool, tournament: bool, policies: str | None) -> None:
    """Win and draw rates of many battles, with 95% intervals; the same seed gives the same answer.

    With --exact: each side's chance of winning, the draw's, the models left and the game turns,
    exactly (fractions in --json), worked out over every position the battle can reach.
    """
    jobs = workers(jobs, games, jobs_force)
    from compiler.battle import POLICIES, run, summary
    from compiler.resolve.core import ResolveError
    from compiler.battle.simulate import against as change
    from compiler.battle.simulate import with_armies

    path = ruleset_path(path)  # handed on to the workers
    against = ruleset_path(against) if against is not None else None
    compiled, model = compile_one(path)
    sc = pick_scenario(model, scenario)
    from compiler.battle.simulate import side_policies

    for name in (policy.split(":") if policy else []) + (policies.split(",") if policies else []):
        if name not in POLICIES:
            raise unknown_name(f"unknown policy '{name}'", name, list(POLICIES), "policies")
    try:
        side_policies(policy or "greedy", len(sc.sides))
    except ValueError as e:
        raise usage_error(str(e))
    if policies is not None and not (tournament or against):
        raise usage_error("--policies names the players of a --tournament or of an --against judgement; add one "
                          "of them, or use --policy A[:B]")
    lists: list[tuple[str, tuple[A.SideUnit, ...]]] = []
    for given in armies:
        side, _, file = given.partition("=")
        if side not in {s.id for s in sc.sides} or not file:
            raise usage_error(f"--army {given}: write SIDE=LIST with a side of scenario '{sc.id}' "
                              f"({', '.join(s.id for s in sc.sides)})")
        if any(side == taken for taken, _ in lists):
            raise usage_error(f"--army {given}: side '{side}' is given two army lists; give it one")
        units = tuple(list_units(Path(file), model, quiet=True))
        held = next((u for u in units if u.reserve), None)
        if held is not None:  # a battle sets every unit of a list on the table at its start
            raise usage_error(f"{held.span.file}:{held.span.line}: a battle plays every unit of a list from its "
                              f"start, and this one is held in reserve; take `in reserve` off to play the list")
        grouped = next((u for u in units if u.detachment != 1), None)
        if grouped is not None:  # said, not dropped silently
            click.echo(f"{grouped.span.file}:{grouped.span.line}: warning: a battle activates each unit as a "
                       f"detachment of its own; the list's `in detachment` marks are not played", err=True)
        lists.append((side, units))
    sc = with_armies(sc, tuple(lists))
    _carried(compiled, model, sc, armies)
    _within_army_rules(model, sc, dict(armies_given(armies)))
    chosen = None
    if policy is None and against is not None and not (exact or tournament):
        from compiler.battle import Rules
        from compiler.battle.budget import AGAINST_BUDGET, strongest

        try:  # the strongest player whose estimated work fits the budget
            chosen = strongest(Rules(model), sc, games, AGAINST_BUDGET, sides=2, workers=jobs)
        except ResolveError as err:
            report_resolve_error(err, dict(compiled.sources))
            raise Exit(1)
        policy = chosen.policy
    policy = policy or "greedy"
    per_side = side_policies(policy, len(sc.sides))
    if exact:
        from compiler.cli.exact import exact_answer

        refuse(**{"--exact": exact, "--against": against, "--scheduler": scheduler, "--tournament": tournament})
        exact_answer(compiled, model, sc, per_side, as_json)
        return
    if tournament:
        from compiler.cli.tournament import play_tournament

        refuse(**{"--tournament": tournament, "--against": against})
        names = list(dict.fromkeys(policies.split(","))) if policies else list(POLICIES)
        play_tournament(compiled, model, path, sc, names, games, seed, jobs, scheduler, tuple(lists), as_json)
        return
    from compiler.cli.progress import progress

    base_model = None
    if against is not None:
        base_compiled, base_model = compile_one(against)
        if not any(getattr(d, "id", None) == sc.id for d in base_model.walk()):
            raise usage_error(f"the base ruleset '{base_model.id}' has no scenario '{sc.id}'")
        _carried(base_compiled, base_model, sc, armies)
    try:
        with progress("simulate", games * (2 if against else 1), "game") as advance:
            tally = run(path, sc, games, seed, jobs, policy, scheduler=scheduler, armies=tuple(lists),
                        progress=advance)
            out = summary(model, sc, tally, seed, policy)
            if against is not None and base_model is not None:
                base = run(against, sc, games, seed, jobs, policy, scheduler=scheduler, armies=tuple(lists),
                           progress=lambda done: advance(games + done))
                from compiler.cli.judge import flags, judge, judged

                out["against"] = {"ruleset": base_model.id, "title": base_model.title, "policy": policy,
                                  "chosen": None if chosen is None else chosen.to_json(),
                                  "base": summary(base_model, sc, base, seed, policy),
                                  "change": judged(change(sc, tally, base))}
                if policies:
                    names = list(dict.fromkeys(policies.split(",")))
                    under = judge(path, against, sc, names, games, seed, jobs, scheduler, tuple(lists))
                    out["against"]["under"] = under
                    out["against"]["flags"] = flags([{"policy": policy, "change": out["against"]["change"]}] + under)
    except ResolveError as err:  # a volley too big to work out (thousands of attacks): located, one sentence
        report_resolve_error(err, dict(compiled.sources))
        raise Exit(1)
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
        titles = {side.id: side.title for side in sc.sides}
        why = "" if chosen is None else ": the strongest player whose estimated work fits a minute on two cores"
        say(f"  against {out['against']['title']} (policy {policy}{why}):")
        for c in out["against"]["change"]:
            lo, hi = c["ci95"]
            say(f"    {titles.get(c['id'], c['id'])}: wins {c['base_win_rate']:.1%} → {c['overlay_win_rate']:.1%}, "
                       f"{_points(c['change'])} (95% CI {_points(lo, False)} to {_points(hi)}): {c['verdict']}")
        if "under" in out["against"]:
            from compiler.cli.judge import print_judgements

            print_judgements(out["against"]["under"], out["against"]["flags"], titles)


def _points(change: float, unit: bool = True) -> str:
    """A change of a rate in percentage points: ``+8.8 points``, ``-0.4 points``."""
    return f"{change * 100:+.1f}" + (" points" if unit else "")


@app.group("army", no_args_is_help=True)
def army_app() -> None:
    """Army lists checked against a ruleset's army construction rules."""


@army_app.command("check")
@click.argument("path", cls=Arg, help="The ruleset folder.")
@click.argument("roster", cls=Arg, type=click.Path(path_type=Path),
                help="The army list: one unit a line, e.g. `10 space_marine_squad` (marks: `1 captain as warlord`, "
                     "`5 scouts in reserve in detachment 2`); or a BattleScribe roster (.ros, .rosz).")
@click.option("--army", help="The army rules to check against (default: those a roster's force is named after, "
                            "else the first).")
@click.option("--points", "game_points", type=click.IntRange(0, 1_000_000_000), metavar="N",
              help="The game's size in points, the army rules' `limit`: one of the sizes they allow (default: a "
                   "roster's own limit, else their first size, else 0).")
@json_option("Print JSON: the units, the points, each violation with the rule it breaks.")
def army_check(path: str, roster: Path, army: str | None, game_points: int | None, as_json: bool) -> None:
    """Check an army list against the ruleset's army construction rules (the list's own, and each unit's:
    `require each unit:`, reported at the unit's line); each violation cites its rule, and
    a rule no list can show met or broken (one reading `characters` or `special_points` when no keyword
    has that role) is said to be not checked."""
    from compiler import ast as A
    from compiler.diagnostics import Span
    from compiler.model.armies import army_quantities, check_army, listed_units

    _, model = compile_one(path)
    armies = model.of_type(A.Army)
    chosen = model.get(army) if army else (armies[0] if armies else None)
    limit = None
    if roster.suffix.lower() in (".ros", ".rosz"):
        from compiler.cli.interop import roster_army

        named, limit = roster_army(roster, model)
        if army is None:
            chosen = named or chosen  # the army rules its force was built with
    if not isinstance(chosen, A.Army):
        raise usage_error(f"ruleset '{model.id}' has no army rules" + (f" called '{army}'" if army else ""))
    # the game size the player set: any when the rules name none, else one of theirs
    if limit is not None and chosen.points and limit not in chosen.points:
        click.echo(f"{roster}: the roster's limit of {limit} points is not one of {chosen.title}'s "
                   f"({', '.join(map(str, chosen.points))}); checked at {chosen.points[0]}", err=True)
        limit = None
    if game_points is not None:
        if chosen.points and game_points not in chosen.points:
            raise usage_error(f"--points {game_points}: '{chosen.title}' ({chosen.id}) is played at "
                              f"{' or '.join(map(str, chosen.points))} points")
        limit = game_points
    units = list_units(roster, model)
    listed = listed_units(model, A.Side(Span(str(roster), 1, 1, 1, 1), "roster", "Roster", tuple(units)))
    _report_army(model, chosen, roster, listed, check_army(model, chosen, listed, limit), as_json,
                 army_quantities(model, listed, limit if limit is not None else
                                 (chosen.points[0] if chosen.points else 0)))


def list_units(roster: Path, model: Ruleset, quiet: bool = False) -> list[A.SideUnit]:
    """The units of an army list: a BattleScribe roster (.ros, .rosz), or a text file, one unit a line."""
    from compiler import ast as A

    if roster.suffix.lower() in (".ros", ".rosz"):
        from compiler.cli.interop import roster_units

        return roster_units(roster, model, quiet)
    from compiler.model.listfile import read_list_file

    known = {p.id for p in model.profiles.values() if p.kind == "unit"} | {q.id for q in model.of_type(A.Squad)}
    weapons = {p.id for p in model.profiles.values() if p.kind == "weapon"}
    read = read_list_file(_read_list(roster), known, weapons, model.id, str(roster))
    for e in read.errors:
        say(f"{roster}:{e.line}:{e.column}: error: {e.message}" + (f"\n   = hint: {e.hint}" if e.hint else ""))
    if read.errors:
        raise Exit(1)
    return list(read.units)


def _read_list(roster: Path) -> str:
    """An army list's text, read up to :data:`~compiler.limits.MAX_ROSTER_BYTES` (a usage error past
    it, or for a file that is not UTF-8 text): ``/dev/zero`` stops at the limit."""
    try:
        with open(roster, "rb") as f:
            data = f.read(MAX_ROSTER_BYTES + 1)
    except OSError as e:
        raise usage_error(f"cannot read {roster}: {e.strerror or e}")
    if len(data) > MAX_ROSTER_BYTES:
        raise usage_error(f"{roster} is more than {MAX_ROSTER_BYTES:,} bytes: too long for an army list")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise usage_error(f"{roster}:{line}: this army list is not UTF-8 text; save it as UTF-8")
    if "\0" in text:
        line = text[:text.index("\0")].count("\n") + 1
        raise usage_error(f"{roster}:{line}: this army list holds binary data, not text")
    return text


def _report_army(model: Ruleset, chosen: A.Army, roster: Path, listed: list[Any], violations: list[Any],
                 as_json: bool, quantities: dict[str, Any]) -> None:
    """Print each violation with the rule it breaks, each rule a list file cannot show (a warning: neither
    met nor broken), then the verdict; exit 1 when the list breaks a rule."""
    from compiler.model.armies import unchecked_requirements

    total = sum(u.points for u in listed)
    unchecked = unchecked_requirements(model, chosen)
    if as_json:
        found: list[dict[str, Any]] = []
        for v in violations:
            trail = model.section_path(v.army)
            found.append({"message": v.message, "army": v.army, "rule": trail[-1].id if trail else None,
                          "span": v.span.to_json(), "line": v.unit.line if v.unit is not None else None})
        trail = model.section_path(chosen.id)
        say(json.dumps({"roster": str(roster), "army": chosen.id, "units": len(listed), "points": total,
                               "ok": False if violations else None if unchecked else True, "violations": found,
                               "unchecked": [{"message": u.message, "why": u.why, "army": u.army,
                                              "rule": trail[-1].id if trail else None, "span": u.span.to_json()}
                                             for u in unchecked],
                               "quantities": {k: int(v) for k, v in sorted(quantities.items())}},
                              indent=2, ensure_ascii=False))
        raise Exit(1 if violations else 0)
    for v in violations:
        trail = model.section_path(v.army)
        rule = trail[-1] if trail else None
        cited = f"rule '{rule.title}' ({rule.id}), " if rule is not None else ""
        where = f"{roster}:{v.unit.line}" if v.unit is not None else str(roster)  # the unit's line
        say(f"{where}: error[W862]: {v.message}\n  = see {cited}army '{v.army_title}' "
                   f"({v.army}) at {v.span.file}:{v.span.line}, on the site #{rule.id if rule else v.army}")
    for u in unchecked:
        say(f"{roster}: warning[W865]: not checked: {u.message}\n  = {u.why}\n  = see army '{u.army_title}' "
            f"({u.army}) at {u.span.file}:{u.span.line}")
    verdict = "breaks" if violations else "meets"
    say(f"{roster}: {len(listed)} units, {total} points: the list {verdict} the rules of '{chosen.title}'"
               + (f" ({len(violations)} violation{'s' if len(violations) != 1 else ''})" if violations else
                  f" that a list file can show; {len(unchecked)} rule{'s' if len(unchecked) != 1 else ''} "
                  f"not checked" if unchecked else ""))
    if violations:
        raise Exit(1)
