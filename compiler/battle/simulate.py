"""Many battles: win and draw rates with their intervals, on a process pool or a dask cluster.

Game ``i`` of a run with seed ``s`` is played with its own seed, :func:`game_seed` ``(s, i)``, so
the answer does not depend on how the games are spread over processes or machines: ``--jobs 1``,
``--jobs 4`` and a cluster give the same numbers.  Games are cut into chunks of consecutive
indices; each worker compiles the ruleset once and keeps its caches of volley laws across its
chunks.  Each chunk reports the CPU time it used, so a benchmark can count the workers' time.
"""
from __future__ import annotations

import dataclasses
import gc
import threading
import time
from collections import deque
from contextlib import contextmanager
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from compiler import ast as A
from compiler.battle.streams import game_seed_array, game_seeds
from compiler.battle.streams import game_seed as game_seed  # a run's game seeds, as simulate has always offered them
from compiler.battle.engine import Battle, Outcome
from compiler.battle.policies import POLICIES
from compiler.battle.rules import Rules
from compiler.battle.stats import diff_interval, wilson
from compiler.battle.walk import WALKABLE, walk_for
from compiler.limits import MAX_GAMES
from compiler.model.ruleset import Ruleset

#: Games per chunk handed to a worker.
CHUNK = 250
#: Games whose seeds are made at once.
BLOCK = 256
#: While games are played, the collector's full passes come after this many passes over the middle
#: generation (Python's default: 10).
FULL_PASSES = 1000


@dataclass(frozen=True, slots=True)
class Tally:
    """What a set of games came to: wins per side, draws, turns and survivors summed, CPU time."""

    wins: tuple[int, ...]
    draws: int
    games: int
    turns: int
    survivors: tuple[int, ...]
    cpu: float
    ends: tuple[tuple[str, int], ...] = ()  # each way a game ended (a victory's id, "turn limit") → games

    def __add__(self, other: Tally) -> Tally:
        ends = dict(self.ends)
        for reason, k in other.ends:
            ends[reason] = ends.get(reason, 0) + k
        return Tally(tuple(a + b for a, b in zip(self.wins, other.wins)), self.draws + other.draws,
                     self.games + other.games, self.turns + other.turns,
                     tuple(a + b for a, b in zip(self.survivors, other.survivors)), self.cpu + other.cpu,
                     tuple(sorted(ends.items())))


def side_policies(policy: str, sides: int) -> list[str]:
    """Each side's policy from ``--policy A[:B]``: one name for every side, or one per side in the
    scenario's order (``ValueError``, one sentence, for an unknown name or a wrong count).

    >>> side_policies("greedy", 2), side_policies("random:greedy", 2)
    (['greedy', 'greedy'], ['random', 'greedy'])
    """
    names = policy.split(":")
    for name in names:
        if name not in POLICIES:
            raise ValueError(f"unknown policy '{name}' (known: {', '.join(POLICIES)})")
    if len(names) == 1:
        return names * sides
    if len(names) != sides:
        raise ValueError(f"--policy {policy} names {len(names)} policies for {sides} sides: give one for all, "
                         f"or one per side in the scenario's order")
    return names


@contextmanager
def fewer_full_collections() -> Iterator[None]:
    """Python's cyclic collector, while games are played, leaving alone what was there before they
    began (``gc.freeze``) and with its full passes made rarer (:data:`FULL_PASSES`); put back as it
    was after (a process that froze objects itself keeps them frozen, and the run adds none).
    A run keeps what it works out (the volley laws, the estimates' memos, the walk's
    transitions): hundreds of thousands of objects that every full pass went over again (some
    40 % of a table battle's time), while what a game leaves behind is young, or held by what is
    kept: the passes over the younger generations, which stay as they are, collect it.  Nothing a
    game does depends on when the collector runs.  Runs on several threads at once (a dask
    worker's) share the setting: the first makes it, the last to end puts back what the first
    found."""
    with _COLLECTOR:
        if not _RUNS:
            _SAVED[:] = [gc.get_threshold()]
            first, middle, full = _SAVED[0]
            gc.set_threshold(first, middle, max(full, FULL_PASSES))
            _THAWS[:] = [not gc.get_freeze_count()]  # objects frozen already: the process's own (kept so)
            if _THAWS[0]:
                gc.freeze()
        _RUNS.append(1)
    try:
        yield
    finally:
        with _COLLECTOR:
            _RUNS.pop()
            if not _RUNS:
                if _THAWS.pop():
                    gc.unfreeze()
                gc.set_threshold(*_SAVED.pop())


#: One entry per run under way, and the collector's thresholds before the first began.
_RUNS: list[int] = []
_SAVED: list[tuple[int, int, int]] = []
_THAWS: list[bool] = []
_COLLECTOR = threading.Lock()


def play_games(rules: Rules, scenario: A.Scenario, policy: str, seed: int, start: int, stop: int) -> Tally:
    """Games ``start`` to ``stop - 1`` of a run, tallied (``policy``: ``A`` or ``A:B``, one per side)."""
    with fewer_full_collections():
        return _play_games(rules, scenario, policy, seed, start, stop)


def _play_games(rules: Rules, scenario: A.Scenario, policy: str, seed: int, start: int, stop: int) -> Tally:
    began = time.process_time()
    n = len(scenario.sides)
    names = side_policies(policy, n)
    makers = [POLICIES[name] for name in names]
    walk = walk_for(rules, scenario, names) if WALKABLE.issuperset(names) else None
    count = _Count(n)
    if walk is not None:  # the same games, walked many at once over the engine's kept transitions
        for out, games in walk.play_many(game_seed_array(seed, start, stop)):
            count.add(out, games)
    else:
        for block in range(start, stop, BLOCK):  # the seeds of many games at once
            for s in game_seeds(seed, block, min(stop, block + BLOCK)):
                count.add(Battle(rules, scenario, [makers[k](s + k + 1) for k in range(n)], s, record=False).run(), 1)
    return Tally(tuple(count.wins), count.draws, stop - start, count.turns, tuple(count.survivors),
                 time.process_time() - began, tuple(sorted(count.ends.items())))


class _Count:
    """Wins, draws, turns, ends and survivors added up, game by game (or many equal games at once)."""

    __slots__ = ("wins", "draws", "turns", "ends", "survivors")

    def __init__(self, sides: int) -> None:
        self.wins, self.survivors = [0] * sides, [0] * sides
        self.draws = self.turns = 0
        self.ends: dict[str, int] = {}

    def add(self, out: Outcome, games: int) -> None:
        if out.winner is None:
            self.draws += games
        else:
            self.wins[out.winner] += games
        self.turns += out.turns * games
        self.ends[out.reason] = self.ends.get(out.reason, 0) + games
        for k, left in enumerate(out.survivors):
            self.survivors[k] += left * games


_WORKER_RULES: dict[tuple[str, bool], tuple[Ruleset, Rules]] = {}


def load(path: str, base: bool = False) -> Ruleset:
    """The compiled ruleset at ``path`` (or its base), raising ``ValueError`` when it does not compile."""
    from compiler.driver import compile_paths
    result = compile_paths([path])
    if not result.ok or not result.rulesets:
        raise ValueError(f"{path} does not compile; run `warscribe check {path}`")
    model = result.rulesets[0]
    if base:
        if model.base is None:
            raise ValueError(f"ruleset '{model.id}' is not an overlay: it has no base to compare with")
        return model.base
    return model


#: Army lists that stand in for a scenario's own: (side id, its units), as ``simulate --army`` gives them.
Armies = tuple[tuple[str, tuple[A.SideUnit, ...]], ...]
Job = tuple[str, bool, str, str, int, int, int, Armies]


def with_armies(scenario: A.Scenario, armies: Armies) -> A.Scenario:
    """``scenario`` with the army lists of some sides replaced."""
    lists = dict(armies)
    if not lists:
        return scenario
    sides = tuple(dataclasses.replace(s, units=lists[s.id]) if s.id in lists else s for s in scenario.sides)
    return dataclasses.replace(scenario, sides=sides)


def run_chunk(job: Job) -> Tally:
    """A worker's job: ``(ruleset path, base?, scenario, policy, seed, start, stop, army lists)``."""
    path, base, scenario_id, policy, seed, start, stop, armies = job
    cached = _WORKER_RULES.get((path, base))
    if cached is None:
        model = load(path, base)
        cached = _WORKER_RULES[(path, base)] = (model, Rules(model))
    model, rules = cached
    scenario = model.get(scenario_id)
    assert isinstance(scenario, A.Scenario)
    return play_games(rules, with_armies(scenario, armies), policy, seed, start, stop)


def run(path: str, scenario: A.Scenario, games: int, seed: int, jobs: int = 1, policy: str = "greedy",
        base: bool = False, scheduler: str | None = None, armies: Armies = (),
        progress: Callable[[int], None] | None = None) -> Tally:
    """``games`` battles of ``scenario`` (its sides' lists replaced by ``armies``); the same tally whatever
    ``jobs`` or ``scheduler``. ``progress`` is told how many games are done as each chunk ends.
    At most :data:`~compiler.limits.MAX_GAMES` games (``ValueError`` above, before any is
    played); the chunks of work are made as they are handed out, and a pool of processes has at
    most twice its workers' chunks waiting, so memory does not grow with ``games``."""
    if games > MAX_GAMES:
        raise ValueError(f"{games:,} games is more than the {MAX_GAMES:,} one run may play")
    count = -(-games // CHUNK)
    chunks = ((path, base, scenario.id, policy, seed, a, min(games, a + CHUNK), armies)
              for a in range(0, games, CHUNK))
    n = len(scenario.sides)
    total = Tally((0,) * n, 0, 0, 0, (0,) * n, 0.0)
    workers = max(1, min(jobs, count))
    if scheduler is not None:
        tallies: Iterable[Tally] = _on_cluster(scheduler, list(chunks))
    elif workers <= 1:
        tallies = (run_chunk(c) for c in chunks)
    else:
        tallies = _on_pool(workers, chunks)
    for t in tallies:
        total = total + t
        if progress is not None:
            progress(total.games)
    return total


def _on_pool(workers: int, chunks: Iterator[Job]) -> Iterator[Tally]:
    """Each chunk's tally, in order, from a pool of ``workers`` processes fed as they finish."""
    with ProcessPoolExecutor(max_workers=workers) as pool:
        waiting: deque[Future[Tally]] = deque()
        for c in chunks:
            waiting.append(pool.submit(run_chunk, c))
            if len(waiting) >= 2 * workers:
                yield waiting.popleft().result()
        while waiting:
            yield waiting.popleft().result()


def _on_cluster(address: str, chunks: list[Job]) -> list[Tally]:
    try:
        from dask.distributed import Client  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ValueError("--scheduler needs dask.distributed: pip install 'warscribe[cluster]'") from None
    client: Any = Client(address)  # type: ignore[no-untyped-call,unused-ignore]
    with client:
        futures = client.map(run_chunk, chunks, pure=False)
        return list(client.gather(futures))


def summary(model: Ruleset, scenario: A.Scenario, tally: Tally, seed: int, policy: str = "greedy") -> dict[str, Any]:
    """The JSON answer of ``warscribe simulate``: each side's wins with their interval, draws,
    each side's policy, and each way the games ended (a victory condition's id, or "turn limit")."""
    g = max(tally.games, 1)
    sides = []
    for k, side in enumerate(scenario.sides):
        lo, hi = wilson(tally.wins[k], tally.games)
        sides.append({"id": side.id, "title": side.title, "wins": tally.wins[k],
                      "win_rate": round(tally.wins[k] / g, 6), "ci95": [round(lo, 6), round(hi, 6)],
                      "survivors_mean": round(tally.survivors[k] / g, 6)})
    dlo, dhi = wilson(tally.draws, tally.games)
    return {"ruleset": model.id, "scenario": scenario.id, "games": tally.games, "seed": seed, "sides": sides,
            "draws": tally.draws, "draw_rate": round(tally.draws / g, 6), "draw_ci95": [round(dlo, 6), round(dhi, 6)],
            "turns_mean": round(tally.turns / g, 6),
            "policy": dict(zip((side.id for side in scenario.sides), side_policies(policy, len(scenario.sides)))),
            "ends": dict(tally.ends)}


def against(scenario: A.Scenario, overlay: Tally, base: Tally) -> list[dict[str, Any]]:
    """Each side's change in win rate from the base to the overlay, with Newcombe's 95% interval."""
    out = []
    for k, side in enumerate(scenario.sides):
        lo, hi = diff_interval(overlay.wins[k], overlay.games, base.wins[k], base.games)
        out.append({"id": side.id, "overlay_win_rate": round(overlay.wins[k] / overlay.games, 6),
                    "base_win_rate": round(base.wins[k] / base.games, 6),
                    "change": round(overlay.wins[k] / overlay.games - base.wins[k] / base.games, 6),
                    "ci95": [round(lo, 6), round(hi, 6)]})
    return out
