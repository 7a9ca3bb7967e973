"""The searching players measured: ``mcts`` against ``greedy`` on each bundled scenario, both
seatings, and the CPU time of ``simulate --against`` under ``mcts``.

    .venv/bin/python bench/bench_players.py                 # the tournament table (long: run it niced)
    .venv/bin/python bench/bench_players.py --against       # dark-millennia against classic-40k, 2,000 games

Each cell plays the same games (seeds) as the greedy/random table of bench/README.md; a scenario
whose games are long plays fewer of them (``--games`` for the small ones, ``--few`` for the big).
Figures are CPU seconds (user + system of the command and its workers).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMALL = [("classic-40k", "firefight"), ("console-40k", "sample_battle"), ("nuceria-rts", "line_skirmish"),
         ("dark-millennia", "firefight")]
BIG = [("console-40k", "full_armies"), ("gemini-arap", "firefight"), ("gemini-arap", "patrol_clash"),
       ("40k-s", "rifle_line")]
WARSCRIBE = [sys.executable, "-m", "compiler"]


def cpu_of(args: list[str]) -> tuple[float, float, str]:
    """Run ``warscribe ARGS``: its CPU seconds (children included), wall seconds and output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    out = subprocess.run(WARSCRIBE + args, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall, out


def cell(side: dict[str, object]) -> str:
    lo, hi = side["ci95"]  # type: ignore[misc]
    return f"{side['win_rate']:.1%} ({lo:.1%}–{hi:.1%})"  # type: ignore[str-format]


def tournament(games: int, few: int) -> None:
    print("| scenario | games | mcts v greedy | greedy v mcts | CPU s (both) | CPU ms a game |")
    print("|---|---|---|---|---|---|")
    for (rs, sc) in SMALL + BIG:
        n = games if (rs, sc) in SMALL else few
        cells, cpu = [], 0.0
        for pair in ("mcts:greedy", "greedy:mcts"):
            used, _, out = cpu_of(["simulate", f"rules/{rs}", sc, "--policy", pair, "--games", str(n), "--seed", "1",
                                   "--json", "-q"])
            cpu += used
            sides = json.loads(out)["sides"]
            cells.append(f"{cell(sides[0])} / {sides[1]['win_rate']:.1%}")
        print(f"| {rs} {sc} | {n} | {cells[0]} | {cells[1]} | {cpu:.1f} | {1000 * cpu / (2 * n):.1f} |", flush=True)


def against(games: int) -> None:
    used, wall, out = cpu_of(["simulate", "rules/dark-millennia", "--against", "rules/classic-40k", "--policy", "mcts",
                              "--games", str(games), "--jobs", "2", "--json", "-q"])
    change = json.loads(out)["against"]["change"]
    print(f"--against, mcts, {games} games, --jobs 2: {used:.1f} CPU s, {wall:.1f} s wall; "
          + "; ".join(f"{c['id']} {c['change'] * 100:+.1f} points ({c['verdict']})" for c in change))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--few", type=int, default=100)
    parser.add_argument("--against", action="store_true")
    args = parser.parse_args()
    if args.against:
        against(2000)
    else:
        tournament(args.games, args.few)


if __name__ == "__main__":
    main()
