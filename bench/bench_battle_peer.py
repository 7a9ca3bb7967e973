"""Battles per CPU second against their targets: a small duel against a Monte Carlo written
directly for it in plain Python (the peer), and ten units a side on a table with terrain.

    .venv/bin/python bench/bench_battle_peer.py                  # 20,000 duels, 400 table battles
    .venv/bin/python bench/bench_battle_peer.py --duels 5000 --tables 100

The battles are bench/battles/battles.rules: ``small_duel`` (two Ogres, W3, against six Gunners;
each side's whole army shoots once a turn, four turns, annihilation ends it) and ``ten_a_side``
(ten units a side on a 48" table with two woods and a wall; alternating units, moves and
shooting within range, greedy policies).  The peer plays the duel roll by roll — every hit and
save a ``random.random()`` — with the wounds on the front Ogre kept, as the rules say; it knows
nothing but this one duel.  Targets: the engine at least as fast as the peer on the duel (it
samples each volley from its exact law instead of rolling each die, and keeps the laws), and
500 table battles per CPU second.  Each figure is the best of three runs, in one process.

The engine's volley laws are worked out once before the runs (as in any long run); each timed
run plays games of a seed of its own (no game of one run is played again in another) and starts
with nothing kept of earlier runs' walks (:mod:`compiler.battle.walk`): what the walk keeps,
it keeps within the run, as a simulation does.  The duel is also timed with the walk of the
earlier runs kept (new games still), as a process that simulates again keeps it.  The line
"seeding" is what the engine spends per game before its first roll: the game's seed (from the
run's seed and the game's index, made for all the run's games at once), so that game ``i`` of a
run is the same game whatever the schedule — the peer seeds one stream for all its games.  For
scale, the line "python loop" times ten million additions, as bench_battle.py does.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Table battles (ten units a side, terrain) per CPU second.
TABLE_TARGET = 500.0


def peer(games: int, seed: int) -> tuple[int, int, int]:
    """The duel played die by die: (ogre wins, gunner wins, draws)."""
    rng = random.random
    random.seed(seed)
    won = [0, 0, 0]
    for _ in range(games):
        ogres, damaged, gunners = 2, 0, 6
        for _turn in range(4):
            # the Ogres: 2 shots each, hit on 4+, the Gunners save on 6
            for _ in range(ogres * 2):
                if rng() < 0.5 and rng() < 5 / 6:
                    gunners -= 1
                    if gunners == 0:
                        break
            if gunners == 0:
                break
            # the Gunners: 1 shot each, hit on 4+, the Ogres save on 5+; a wound stays on the front Ogre
            for _ in range(gunners):
                if rng() < 0.5 and rng() < 4 / 6:
                    damaged += 1
                    if damaged == 3:
                        ogres, damaged = ogres - 1, 0
                        if ogres == 0:
                            break
            if ogres == 0:
                break
        won[0 if gunners == 0 else 1 if ogres == 0 else 2] += 1
    return won[0], won[1], won[2]


def best(run: object, n: int = 3) -> float:
    times = []
    for _ in range(n):
        began = time.process_time()
        run()  # type: ignore[operator]
        times.append(time.process_time() - began)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duels", type=int, default=20_000)
    parser.add_argument("--tables", type=int, default=400)
    args = parser.parse_args()

    import compiler
    from compiler import ast as A
    from compiler.battle import Rules
    from compiler.battle.streams import game_seed_array
    from compiler.battle.simulate import play_games
    from compiler.battle.walk import forget

    began = time.process_time()
    x = 0
    for i in range(10_000_000):
        x += i
    print(f"python loop (10M additions): {time.process_time() - began:.2f} CPU s")

    model = compiler.compile_paths([str(ROOT / "bench" / "battles")]).rulesets[0]
    rules = Rules(model)
    duel = model.get("small_duel")
    assert isinstance(duel, A.Scenario)
    play_games(rules, duel, "greedy", 0, 0, 2000)  # the laws worked out once, as in any run
    seeds = iter(range(1, 100))

    def fresh(scenario: object, games: int) -> None:
        forget(rules)  # nothing kept of an earlier run's walk
        play_games(rules, scenario, "greedy", next(seeds), 0, games)  # type: ignore[arg-type]

    engine_s = best(lambda: fresh(duel, args.duels))
    # a walk that kept the transitions of an earlier run (a process that simulates again), new games
    warm_s = best(lambda: play_games(rules, duel, "greedy", next(seeds), 0, args.duels))
    peer_s = best(lambda: peer(args.duels, 1))
    seeding_s = best(lambda: game_seed_array(1, 0, args.duels))
    tally = play_games(rules, duel, "greedy", 1, 0, args.duels)
    print(f"small duel, {args.duels:,} games: engine {args.duels / engine_s:,.0f} games per CPU s, "
          f"peer {args.duels / peer_s:,.0f} ({engine_s / peer_s:.2f}x the peer's time; target <= 1: "
          f"{'met' if engine_s <= peer_s else 'not met'})")
    print(f"  with the transitions of an earlier run kept: {args.duels / warm_s:,.0f} games per CPU s "
          f"({warm_s / peer_s:.2f}x the peer's time)")
    print(f"  seeding: {seeding_s / args.duels * 1e6:.3f} us a game of the engine's "
          f"{engine_s / args.duels * 1e6:.2f} us ({seeding_s / peer_s:.3f}x the peer's whole time)")
    print(f"  wins: engine {tally.wins} draws {tally.draws}; peer {peer(args.duels, 1)}")

    table = model.get("ten_a_side")
    assert isinstance(table, A.Scenario)
    play_games(rules, table, "greedy", 0, 0, 50)
    table_s = best(lambda: fresh(table, args.tables))  # best of three, as every figure here
    rate = args.tables / table_s
    print(f"ten units a side on a table, {args.tables} games: {rate:,.0f} games per CPU s "
          f"(target {TABLE_TARGET:,.0f}: {'met' if rate >= TABLE_TARGET else 'not met'})")


if __name__ == "__main__":
    main()
