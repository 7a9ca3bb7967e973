"""Games per CPU second of console-40k's sample battle, against the target of 2,000; and the CPU
time of the whole command ``warscribe simulate rules/console-40k --games 10000 --seed 7``
(start-up and compiling included), against the target of 3.5 CPU s.

    .venv/bin/python bench/bench_battle.py                     # 10,000 games, one process
    .venv/bin/python bench/bench_battle.py --games 4000 --jobs 2

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

TARGET = 2000.0
#: CPU seconds of the whole ``warscribe simulate`` command (10,000 games, one process).
COMMAND_TARGET = 3.5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--policy", default="greedy")
    parser.add_argument("--scenario", default="sample_battle")
    args = parser.parse_args()

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
          f"{rate:,.0f} games per CPU second (target {TARGET:,.0f}: {'met' if rate >= TARGET else 'not met'})")
    print(f"wins {tally.wins}, draws {tally.draws}")
    if args.games == 10_000 and args.jobs == 1:
        command()


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
