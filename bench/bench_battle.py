"""Games per CPU second of console-40k's sample battle with greedy players, against the target of
10,000 (and the earlier one of 5,000); and the CPU
time of the whole command ``warscribe simulate rules/console-40k --games 10000 --seed 7``
(start-up and compiling included), against the target of 3.5 CPU s.

    .venv/bin/python bench/bench_battle.py                     # 10,000 games, one process
    .venv/bin/python bench/bench_battle.py --games 4000 --jobs 2
    .venv/bin/python bench/bench_battle.py --exact             # the exact law of a duel (simulate --exact)
    .venv/bin/python bench/bench_battle.py --balance           # games per CPU second of a points sweep

CPU time is ``time.process_time`` of this process plus the time each worker reports for its
chunks, so a pool is charged for all its CPUs.  The first games of a process pay for working out
the volley laws they meet (each is then cached); the figure includes that warm-up, as a real run
does.  For scale, the line "python loop" times ten million additions: a busy or slow machine
shows it well above 0.5 s, and every figure below is slower in proportion.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET = 10_000.0
#: The earlier target (battles on a real table), still printed.
FLOOR = 5_000.0
#: CPU seconds of ``simulate --exact`` on a two-unit, four-turn duel (classic-40k's firefight).
EXACT_TARGET = 0.5
#: CPU seconds of the whole ``warscribe simulate`` command (10,000 games, one process).
COMMAND_TARGET = 3.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--policy", default="greedy")
    parser.add_argument("--scenario", default="sample_battle")
    parser.add_argument("--exact", action="store_true", help="time the exact law of two-unit duels instead")
    parser.add_argument("--balance", action="store_true", help="time a points sweep (balance) instead")
    args = parser.parse_args()
    if args.exact:
        exact()
        return
    if args.balance:
        balance()
        return

    import compiler
    from compiler.battle import run

    began = time.process_time()
    x = 0
    for i in range(10_000_000):
        x += i
    print(f"python loop (10M additions): {time.process_time() - began:.2f} CPU s")

    path = str(ROOT / "rules" / "console-40k")
    model = compiler.compile_paths([path]).rulesets[0]
    scenario = model.get(args.scenario)
    began = time.process_time()
    tally = run(path, scenario, args.games, args.seed, args.jobs, args.policy)  # type: ignore[arg-type]
    own = time.process_time() - began
    cpu = own + tally.cpu if args.jobs > 1 else own
    rate = args.games / cpu
    print(f"{args.games} games of {args.scenario} ({args.policy}, {args.jobs} job(s)): {cpu:.2f} CPU s, "
          f"{rate:,.0f} games per CPU second (target {TARGET:,.0f}: {'met' if rate >= TARGET else 'not met'}; "
          f"{FLOOR:,.0f}: {'met' if rate >= FLOOR else 'not met'})")
    print(f"wins {tally.wins}, draws {tally.draws}")
    if args.games == 10_000 and args.jobs == 1:
        command()


def exact() -> None:
    """CPU seconds of the exact law (dynamic programming over positions, Fractions) of each
    bundled two-unit, four-turn duel, against sampling 20,000 games of it with float laws."""
    import compiler
    from compiler.battle import Rules, run
    from compiler.battle.exact import solve

    for ruleset, scenario in (("classic-40k", "firefight"), ("console-40k", "sample_battle")):
        path = str(ROOT / "rules" / ruleset)
        model = compiler.compile_paths([path]).rulesets[0]
        sc = model.get(scenario)
        began = time.process_time()
        law = solve(Rules(model, exact=True), sc)  # type: ignore[arg-type]
        cpu = time.process_time() - began
        began = time.process_time()
        run(path, sc, 20_000, 7)  # type: ignore[arg-type]
        sampled = time.process_time() - began
        print(f"{ruleset} {scenario}: exact law over {law.states} positions in {cpu:.2f} CPU s "
              f"(target {EXACT_TARGET}: {'met' if cpu <= EXACT_TARGET else 'not met'}); "
              f"sampling 20,000 games {sampled:.2f} CPU s; first side wins {float(law.win(0)):.4f}")


def balance() -> None:
    """Games per CPU second of ``warscribe balance rules/console-40k --vary space_marine.points=10..20
    --games 2000 --seed 1`` (one process; the armies rebuilt at each value)."""
    import compiler
    from compiler.battle.balance import parse_vary, sweep

    path = str(ROOT / "rules" / "console-40k")
    model = compiler.compile_paths([path]).rulesets[0]
    vary = parse_vary("space_marine.points=10..20", model)
    began = time.process_time()
    out = sweep(path, model, model.get("sample_battle"), vary, 2000, 1)  # type: ignore[arg-type]
    cpu = time.process_time() - began
    games = 2000 * len(vary.values)
    print(f"balance sweep, {len(vary.values)} values x 2000 games: {cpu:.2f} CPU s, {games / cpu:,.0f} games per "
          f"CPU second; fair value {out['fair']}")


def command() -> None:
    """The CPU time (user + system) of the whole command, start-up and compiling included."""
    import os
    import resource
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "compiler", "simulate", str(ROOT / "rules" / "console-40k"),
                    "--games", "10000", "--seed", "7"], env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"warscribe simulate rules/console-40k --games 10000 --seed 7: {cpu:.2f} CPU s in all "
          f"(target {COMMAND_TARGET}: {'met' if cpu <= COMMAND_TARGET else 'not met'})")


if __name__ == "__main__":
    main()
