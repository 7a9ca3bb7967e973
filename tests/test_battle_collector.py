"""A run plays its games with the collector's full passes made rarer and what was there before
frozen (:func:`compiler.battle.simulate.fewer_full_collections`), and puts the collector back as it
found it: after the run, after a run that fails, and after runs on several threads at once."""
from __future__ import annotations

import gc
import threading
from typing import Any, Iterator

import pytest

from compiler import ast as A
from compiler.battle import Rules
from compiler.battle import simulate
from compiler.battle.simulate import FULL_PASSES, play_games
from compiler.driver import compile_text

from battle_duels import OGRES


@pytest.fixture(scope="module")
def duel() -> tuple[Rules, A.Scenario]:
    result = compile_text(OGRES, "ogres.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    sc = result.rulesets[0].get("ogres")
    assert isinstance(sc, A.Scenario)
    return Rules(result.rulesets[0]), sc


@pytest.fixture()
def seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int, int, int]]]:
    """The collector's thresholds as each game's outcome is counted, under thresholds of our own
    (so that putting back a default could not pass for putting back what was found)."""
    out: list[tuple[int, int, int, int]] = []
    assert gc.get_freeze_count() == 0
    add = simulate._Count.add

    def counted(self: Any, outcome: Any, games: int) -> None:
        out.append(gc.get_threshold() + (gc.get_freeze_count(),))
        add(self, outcome, games)
    monkeypatch.setattr(simulate._Count, "add", counted)
    before = gc.get_threshold()
    gc.set_threshold(650, 9, 11)
    try:
        yield out
    finally:
        gc.set_threshold(*before)


def raised(seen: list[tuple[int, int, int, int]]) -> bool:
    """Whether each game was played with the full passes rarer and what was there before frozen
    (the rules and laws at least: thousands of objects)."""
    return all(t[:3] == (650, 9, FULL_PASSES) and t[3] > 1000 for t in seen)


def test_a_run_plays_with_rarer_full_passes_and_puts_the_collector_back(
        duel: tuple[Rules, A.Scenario], seen: list[tuple[int, int, int, int]]) -> None:
    rules, sc = duel
    for policy in ("greedy", "random:greedy"):  # walked, and played game by game
        seen.clear()
        # a few games: the setting is made once a run, and each game's look at it counts the frozen
        # objects one by one (gc.get_freeze_count walks them all: the whole test process)
        assert play_games(rules, sc, policy, 1, 0, 5).games == 5
        assert seen and raised(seen)
        assert gc.get_threshold() == (650, 9, 11) and gc.get_freeze_count() == 0


def test_a_failed_run_puts_the_collector_back(duel: tuple[Rules, A.Scenario], seen: list[tuple[int, int, int, int]],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    rules, sc = duel

    def broken(self: Any, outcome: Any, games: int) -> None:
        raise RuntimeError("a game went wrong")
    monkeypatch.setattr(simulate._Count, "add", broken)
    with pytest.raises(RuntimeError):
        play_games(rules, sc, "greedy", 1, 0, 5)
    assert gc.get_threshold() == (650, 9, 11) and gc.get_freeze_count() == 0


def test_runs_on_several_threads_put_back_what_the_first_found(
        duel: tuple[Rules, A.Scenario], seen: list[tuple[int, int, int, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs under way at once; the one that began second ends last (each run taking the
    thresholds it found and putting them back as it ends would leave the full passes rare)."""
    rules, sc = duel
    both = threading.Barrier(2, timeout=30)
    first_done = threading.Event()
    add = simulate._Count.add
    role = threading.local()

    def counted(self: Any, outcome: Any, games: int) -> None:
        if not getattr(role, "met", False):
            role.met = True
            both.wait()  # both runs under way
            if role.name == "second":
                assert first_done.wait(30)  # the other run has ended: this one is still under way
        add(self, outcome, games)  # (the fixture's: it notes the thresholds)
    monkeypatch.setattr(simulate._Count, "add", counted)

    def run(name: str, seed: int) -> None:
        role.name = name
        play_games(rules, sc, "random:greedy", seed, 0, 2)
        if name == "first":
            first_done.set()
    threads = [threading.Thread(target=run, args=("first", 1)), threading.Thread(target=run, args=("second", 2))]
    threads[0].start()
    threads[1].start()
    for t in threads:
        t.join()
    assert len(seen) == 4 and raised(seen)
    assert gc.get_threshold() == (650, 9, 11) and gc.get_freeze_count() == 0


def test_a_process_that_froze_objects_itself_keeps_them_frozen(duel: tuple[Rules, A.Scenario],
                                                               seen: list[tuple[int, int, int, int]]) -> None:
    rules, sc = duel
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        play_games(rules, sc, "greedy", 1, 0, 2)
        assert seen and all(t[:3] == (650, 9, FULL_PASSES) for t in seen)
        # still frozen (not thawed to 0), and nothing added: a frozen object may still be freed when
        # nothing refers to it any more, so the count can only stay or fall
        assert 0 < gc.get_freeze_count() <= frozen and gc.get_threshold() == (650, 9, 11)
    finally:
        gc.unfreeze()
