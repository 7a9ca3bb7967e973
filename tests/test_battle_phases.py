"""Phases played without a die, kept whole (compiler.battle.phases): between greedy sides a phase
with no roll is taken up from the state it starts from, and the games are the games the engine
plays when it plays every phase — the same choices, outcome and final state, game by game."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from test_battle_table_shortcuts import BANDED, ZOO

import compiler
from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Rules, game_seed, phases
from compiler.battle.setup import prepared
from compiler.battle.state import state_key
from compiler.battle.walk import Walk
from compiler.driver import compile_text

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ["zoo_table", "zoo_lean", "ten_a_side", "banded_table"]


@pytest.fixture(scope="module")
def scenarios() -> dict[str, tuple[compiler.Ruleset, A.Scenario]]:
    zoo, banded = compile_text(ZOO, "zoo.rules"), compile_text(BANDED, "banded.rules")
    bench = compiler.compile_paths([str(ROOT / "bench" / "battles")])
    assert zoo.ok and banded.ok and bench.ok
    out = {}
    for rs, sid in ((zoo.rulesets[0], "zoo_table"), (zoo.rulesets[0], "zoo_lean"),
                    (bench.rulesets[0], "ten_a_side"), (banded.rulesets[0], "banded_table")):
        sc = rs.get(sid)
        assert isinstance(sc, A.Scenario)
        out[sid] = (rs, sc)
    return out


@pytest.fixture()
def taken(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many phases were taken up whole (Battle.take_up), counted."""
    count = [0]
    original = Battle.take_up

    def counted(self: Battle, state: Any, choices: Any) -> None:
        count[0] += 1
        original(self, state, choices)
    monkeypatch.setattr(Battle, "take_up", counted)
    yield count


def play(rules: Rules, sc: A.Scenario, games: int, record: bool = False) -> list[tuple[Any, ...]]:
    out = []
    for i in range(games):
        battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], game_seed(4, i), record=record)
        o = battle.run()
        out.append((o.winner, o.turns, o.survivors, o.scores, o.reason, tuple(battle.choices), state_key(o.final)))
    return out


@pytest.mark.parametrize("sid", SCENARIOS)
def test_the_games_are_those_played_phase_by_phase(scenarios: dict[str, Any], sid: str, taken: list[int],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Greedy games with phases kept are those played with none kept (every phase judged not to
    recur), choice by choice, to the final state; where the first movement has no roll before
    it (ten units a side, the banded table) it is taken up in every game after the first of each
    side going first."""
    rs, sc = scenarios[sid]
    games = 8
    rules = Rules(rs)
    kept = play(rules, sc, games)
    took = taken[0]
    ends = prepared(rules, sc).engine.phases.ends
    monkeypatch.setattr(phases, "TRIAL", 0)
    monkeypatch.setattr(phases, "RECUR", 2.0)  # never found often enough: no phase keyed
    bare = Rules(rs)
    assert kept == play(bare, sc, games)
    assert taken[0] == took and not prepared(bare, sc).engine.phases.ends
    if sid in ("ten_a_side", "banded_table"):
        firsts = {k[2][8] for k, v in ends.items() if v[0] is not None and k[0] == "field_move" and k[2][1] == 1}
        assert firsts == {0, 1} and took >= games - 2
        # a phase that rolled from its state is kept as such, and played again
        assert any(v is phases.ROLLED and k[0] == "field_fire" for k, v in ends.items())
    assert sum(len(g[5]) for g in kept) > 100  # the games had choices to make


def test_a_battle_with_events_or_a_nature_plays_every_phase(scenarios: dict[str, Any], taken: list[int]) -> None:
    """A battle that writes its events, and the walk's exploring battle (a nature draws its
    rolls), play every phase: nothing is taken up, and the games are the same."""
    rs, sc = scenarios["ten_a_side"]
    rules = Rules(rs)
    recorded = play(rules, sc, 4, record=True)
    walk = Walk(rules, sc, ["greedy", "greedy"])
    walked = [walk.play(game_seed(4, i)) for i in range(4)]
    assert taken[0] == 0 and walk.played == 4
    assert recorded == play(rules, sc, 4)
    assert [(o.winner, o.turns, o.survivors) for o in walked] == [g[:3] for g in recorded]


def test_the_phases_kept_are_bounded_and_the_games_the_same(scenarios: dict[str, Any],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Past LIMIT phases kept the memo starts again: never more than LIMIT held, the same games."""
    rs, sc = scenarios["ten_a_side"]
    whole = play(Rules(rs), sc, 6)
    monkeypatch.setattr(phases, "LIMIT", 3)
    rules = Rules(rs)
    sizes = []
    original = phases.KeptPhases.keep

    def kept(self: phases.KeptPhases, key: Any, state: Any, choices: Any) -> None:
        original(self, key, state, choices)
        sizes.append(len(self.ends))
    monkeypatch.setattr(phases.KeptPhases, "keep", kept)
    assert play(rules, sc, 6) == whole
    assert max(sizes) == 3 and 1 in sizes[1:]  # full, then started again


def test_a_phase_in_a_game_turn_is_kept_while_found_at_least_recur_of_its_look_ups() -> None:
    """PhaseGroups judges a group after TRIAL look-ups: kept when found exactly RECUR of the time
    (the bound counts as enough), given up one find short of it; a group never looked up is kept."""
    from fractions import Fraction
    from math import ceil

    enough = ceil(Fraction(str(phases.RECUR)) * phases.TRIAL)  # the fewest finds that are enough
    for finds, kept in ((enough, True), (enough - 1, False)):
        groups = phases.PhaseGroups()
        assert groups.worth(("move", 2))
        verdicts = [groups.found(("move", 2), i < finds) for i in range(phases.TRIAL)]
        assert all(verdicts[:-1]) and verdicts[-1] is kept and groups.worth(("move", 2)) is kept
        assert groups.groups[("move", 2)] == [phases.TRIAL, finds] and groups.worth(("move", 3))


def test_with_a_trial_of_one_look_up_a_new_phase_group_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """(With a TRIAL of 0 none is: see the first test.)"""
    monkeypatch.setattr(phases, "TRIAL", 1)
    groups = phases.PhaseGroups()
    assert groups.worth(("move", 1)) and not groups.found(("move", 1), False) and groups.found(("fire", 1), True)


def test_a_phase_that_rolled_is_kept_as_such_and_not_counted_found() -> None:
    """KeptPhases: a phase that rolled a die is kept as ROLLED and its look-up counts as a miss;
    one played without a die is kept as a copy of its end state with its choices, and counts found."""
    from compiler.battle.state import State, Unit

    kept = phases.KeptPhases()
    group = ("move", 1)
    assert kept.find(group, ("never",)) is None
    kept.keep(("rolled",), None, [4])
    assert kept.find(group, ("rolled",)) == phases.ROLLED
    state = State([Unit(0, 0, "a", "p", (), 5, 5, 0, 0.0), Unit(1, 1, "b", "p", (), 5, 5, 0, 7.0)], ("x", "y"), ("X", "Y"))
    kept.keep(("played",), state, [0, 2])
    state.units[0].models = 1  # (what was kept is a copy: later play does not reach it)
    end, choices = kept.find(group, ("played",)) or (None, ())
    assert end is not None and end is not state and end.units[0].models == 5 and choices == (0, 2)
    assert kept.find(group, ("played",)) == (end, (0, 2))
    assert kept.recur.groups[group] == [4, 2]  # (never, rolled: misses; played twice: found)
