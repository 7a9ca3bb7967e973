"""Many battles (:mod:`compiler.battle.simulate`): a run's tally against its games played one by
one here, the run cut in chunks, its bound, and the JSON answers built from tallies given by hand."""
from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from compiler import ast as A
from compiler.battle import Battle, Rules, game_seed
from compiler.battle import simulate
from compiler.battle.policies import POLICIES
from compiler.battle.simulate import Tally, against, load, play_games, run, side_policies, summary, with_armies
from compiler.battle.stats import diff_interval, wilson
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset

from battle_duels import OGRES


@pytest.fixture(scope="module")
def ogres(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Ruleset, A.Scenario]:
    """The duel's folder (with an overlay of it beside, in ``house``), its ruleset and scenario."""
    root = tmp_path_factory.mktemp("rules")
    folder, house = root / "ogres", root / "house"
    folder.mkdir()
    house.mkdir()
    (folder / "ogres.rules").write_text(OGRES, "utf-8")
    (house / "house.rules").write_text('ruleset house "House":\n  version 1.0.0\n  extends ogres ^1.0.0\n', "utf-8")
    result = compile_text(OGRES, "ogres.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    sc = result.rulesets[0].get("ogres")
    assert isinstance(sc, A.Scenario)
    return str(folder), result.rulesets[0], sc


def one_by_one(model: Ruleset, sc: A.Scenario, names: list[str], seed: int, start: int, stop: int) -> Tally:
    """Games ``start`` to ``stop - 1`` played here one at a time: game i on seed ``game_seed(seed, i)``,
    each side's policy seeded as ``warscribe play`` seeds it (the battle's seed + 1, + 2, ...)."""
    rules = Rules(model)
    wins, survivors, draws, turns = [0, 0], [0, 0], 0, 0
    ends: dict[str, int] = {}
    for i in range(start, stop):
        s = game_seed(seed, i)
        out = Battle(rules, sc, [POLICIES[name](s + k + 1) for k, name in enumerate(names)], s).run()
        if out.winner is None:
            draws += 1
        else:
            wins[out.winner] += 1
        turns += out.turns
        survivors = [a + b for a, b in zip(survivors, out.survivors)]
        ends[out.reason] = ends.get(out.reason, 0) + 1
    return Tally(tuple(wins), draws, stop - start, turns, tuple(survivors), 0.0, tuple(sorted(ends.items())))


def same(a: Tally, b: Tally) -> bool:
    return (a.wins, a.draws, a.games, a.turns, a.survivors, a.ends) == (b.wins, b.draws, b.games, b.turns, b.survivors,
                                                                           b.ends)


@pytest.mark.parametrize("policy", ["greedy", "random:random"])  # walked, and played game by game
def test_a_run_in_chunks_tallies_its_games_played_one_by_one(ogres: tuple[str, Ruleset, A.Scenario], policy: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path, model, sc = ogres
    names = side_policies(policy, 2)
    monkeypatch.setattr(simulate, "CHUNK", 4)
    told: list[int] = []
    total = run(path, sc, 10, seed=3, policy=policy, progress=told.append)
    assert told == [4, 8, 10]  # after each chunk, the games done
    by_hand = one_by_one(model, sc, names, 3, 0, 10)
    assert same(total, by_hand) and total.draws and any(total.wins)  # both kinds of ending met
    part = play_games(Rules(model), sc, policy, 3, 4, 9)
    assert same(part, one_by_one(model, sc, names, 3, 4, 9))


class InPlace:
    """A pool of processes played in this process, telling how many chunks were handed to it when
    each tally is taken."""

    made: list["InPlace"] = []

    def __init__(self, max_workers: int) -> None:
        self.workers, self.handed, self.taken_at = max_workers, 0, []  # type: ignore[var-annotated]
        InPlace.made.append(self)

    def __enter__(self) -> "InPlace":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def submit(self, fn: Any, job: Any) -> Future[Tally]:
        self.handed += 1
        done: Future[Tally] = Future()
        done.set_result(fn(job))
        return done


def test_a_pool_has_at_most_twice_its_workers_chunks_waiting(ogres: tuple[str, Ruleset, A.Scenario],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path, model, sc = ogres
    monkeypatch.setattr(simulate, "CHUNK", 2)
    monkeypatch.setattr(simulate, "ProcessPoolExecutor", InPlace)
    InPlace.made.clear()
    handed: list[int] = []
    total = run(path, sc, 15, seed=2, jobs=1, progress=lambda n: handed.append(n))
    assert InPlace.made == [] and handed == [2, 4, 6, 8, 10, 12, 14, 15]  # one job: played here, no pool
    told: list[tuple[int, int]] = []
    pooled = run(path, sc, 15, seed=2, jobs=3, progress=lambda n: told.append((n, InPlace.made[-1].handed)))
    assert [p.workers for p in InPlace.made] == [3] and same(pooled, total)
    # six chunks handed out before the first tally is taken, then one more for each tally, to the eighth
    assert told == [(2, 6), (4, 7), (6, 8), (8, 8), (10, 8), (12, 8), (14, 8), (15, 8)]
    run(path, sc, 4, seed=2, jobs=3)
    assert InPlace.made[-1].workers == 2  # no more workers than chunks


def test_a_run_is_bounded_before_any_game_is_played(ogres: tuple[str, Ruleset, A.Scenario],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path, _, sc = ogres
    monkeypatch.setattr(simulate, "MAX_GAMES", 3)
    assert run(path, sc, 3, seed=1).games == 3
    with pytest.raises(ValueError, match="^4 games is more than the 3 one run may play$"):
        run(path, sc, 4, seed=1)


def test_tallies_add_side_by_side_and_merge_their_ends() -> None:
    a = Tally((3, 1), 2, 6, 20, (5, 7), 0.25, (("annihilation", 4), ("turn limit", 2)))
    b = Tally((1, 4), 0, 5, 11, (2, 1), 0.5, (("annihilation", 5),))
    assert a + b == Tally((4, 5), 2, 11, 31, (7, 8), 0.75, (("annihilation", 9), ("turn limit", 2)))


def test_each_side_names_its_policy_or_the_count_is_refused() -> None:
    assert side_policies("random", 3) == ["random"] * 3
    assert side_policies("random:greedy:random", 3) == ["random", "greedy", "random"]
    with pytest.raises(ValueError, match="^--policy random:greedy names 2 policies for 3 sides: "):
        side_policies("random:greedy", 3)
    with pytest.raises(ValueError, match="^unknown policy 'greedier' "):
        side_policies("greedy:greedier", 2)


def test_the_json_answers_are_the_tallies_rates_with_their_intervals(ogres: tuple[str, Ruleset, A.Scenario]) -> None:
    """Seven games: every rate a seventh, so each is seen rounded to a millionth."""
    _, model, sc = ogres
    tally = Tally((3, 1), 3, 7, 20, (9, 13), 1.0, (("wipe_out", 4), ("turn limit", 3)))
    out = summary(model, sc, tally, 8, "random:greedy")
    assert {k: out[k] for k in ("ruleset", "scenario", "games", "seed", "draws", "draw_rate", "turns_mean")} == {
        "ruleset": "ogres", "scenario": "ogres", "games": 7, "seed": 8, "draws": 3, "draw_rate": 0.428571,
        "turns_mean": 2.857143}
    assert out["draw_ci95"] == [round(x, 6) for x in wilson(3, 7)]
    assert out["policy"] == {"ogres": "random", "gunners": "greedy"}
    assert out["ends"] == {"wipe_out": 4, "turn limit": 3}
    assert [(s["id"], s["wins"], s["win_rate"], s["survivors_mean"]) for s in out["sides"]] == [
        ("ogres", 3, 0.428571, 1.285714), ("gunners", 1, 0.142857, 1.857143)]
    assert out["sides"][1]["ci95"] == [round(x, 6) for x in wilson(1, 7)]
    assert summary(model, sc, Tally((0, 0), 0, 0, 0, (0, 0), 0.0), 1)["turns_mean"] == 0  # no games: no division
    base = Tally((1, 5), 1, 7, 30, (2, 20), 1.0)
    changes = against(sc, tally, base)
    assert [(c["id"], c["overlay_win_rate"], c["base_win_rate"], c["change"]) for c in changes] == [
        ("ogres", 0.428571, 0.142857, 0.285714), ("gunners", 0.142857, 0.714286, -0.571429)]
    assert [c["ci95"] for c in changes] == [[round(x, 6) for x in diff_interval(k, 7, b, 7)] for k, b in ((3, 1), (1, 5))]


def test_army_lists_stand_in_for_their_sides_only(ogres: tuple[str, Ruleset, A.Scenario]) -> None:
    _, _, sc = ogres
    assert with_armies(sc, ()) is sc
    more = sc.sides[1].units * 2
    swapped = with_armies(sc, (("gunners", more),))
    assert swapped.sides[1].units == more and swapped.sides[0] == sc.sides[0] and sc.sides[1].units != more


def test_a_ruleset_that_does_not_compile_or_has_no_base_is_refused_in_one_sentence(tmp_path: Path,
                                                                                     ogres: tuple[str, Ruleset, A.Scenario]) -> None:
    path, _, _ = ogres
    assert load(path).id == "ogres"
    house = str(Path(path).parent / "house")
    assert (load(house).id, load(house, base=True).id) == ("house", "ogres")
    with pytest.raises(ValueError, match="^ruleset 'ogres' is not an overlay: it has no base to compare with$"):
        load(path, base=True)
    (tmp_path / "bad.rules").write_text("ruleset bad\n", "utf-8")
    with pytest.raises(ValueError, match=f"does not compile; run `warscribe check {tmp_path}`"):
        load(str(tmp_path))
