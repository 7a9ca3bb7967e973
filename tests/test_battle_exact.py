"""``simulate --exact``: the exact law of a battle by dynamic programming over its positions.

A small duel is written here with its own Markov chain (Fractions): the solver's law must equal
it fraction for fraction, sampled battles must follow it (chi-square), and the command line
must print the same fractions.
"""
from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.battle import Battle, GreedyPolicy, Rules, chi_square, chi_square_critical, game_seed
from compiler.battle.exact import TooManyStates, solve
from compiler.cli import app
from compiler.driver import compile_text

DUEL = '''
ruleset duel "Duel":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat Sv "Save" target
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target
unit gunner "Gunner":
  BS 4  W 1  Sv 6+
  weapons pistol
unit trooper "Trooper":
  BS 3  W 1  Sv 5+
  weapons carbine
weapon pistol "Pistol":
  A 2
weapon carbine "Carbine":
  A 1
game duel "A firefight":
  turns 4
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wipe_out "Annihilation" by annihilation: "A side with no model left loses."
scenario skirmish "Three gunners against four troopers":
  game duel
  distance 12"
  first random
  side gunners "Gunners":
    3 gunner
  side troopers "Troopers":
    4 trooper
'''

# per side: models, shots per model, the chance a shot kills (its hit × the enemy's failed save):
# gunners hit on 4+ and troopers save on 5+; troopers hit on 3+ and gunners save on 6+
SIDES = ((3, 2, Fraction(3, 6) * Fraction(4, 6)), (4, 1, Fraction(4, 6) * Fraction(5, 6)))
TURNS = 4
Ending = tuple[int | None, int, tuple[int, ...]]


def chain() -> dict[Ending, Fraction]:
    """The exact law of (winner, game turns, models left) of the duel: each side in turn fires its
    models' shots; each that hits and is not saved removes a model; a side left with none loses."""
    ends: dict[Ending, Fraction] = {}
    for first in (0, 1):
        states = {(SIDES[0][0], SIDES[1][0]): Fraction(1, 2)}
        for turn in range(1, TURNS + 1):
            for side in (first, 1 - first):
                nxt: dict[tuple[int, int], Fraction] = {}
                for left, p in states.items():
                    n = left[side] * SIDES[side][1]
                    q = SIDES[side][2]
                    for k in range(n + 1):
                        pk = comb(n, k) * q ** k * (1 - q) ** (n - k)
                        after = list(left)
                        after[1 - side] = max(0, after[1 - side] - k)
                        if after[1 - side] == 0:
                            end = (side, turn, (after[0], after[1]))
                            ends[end] = ends.get(end, Fraction(0)) + p * pk
                        else:
                            nxt[(after[0], after[1])] = nxt.get((after[0], after[1]), Fraction(0)) + p * pk
                states = nxt
        for left, p in states.items():
            ends[(None, TURNS, left)] = ends.get((None, TURNS, left), Fraction(0)) + p
    return {k: v for k, v in ends.items() if v}


@pytest.fixture(scope="module")
def duel():  # type: ignore[no-untyped-def]
    result = compile_text(DUEL, "duel.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


@pytest.fixture(scope="module")
def law(duel):  # type: ignore[no-untyped-def]
    return solve(Rules(duel, exact=True), duel.get("skirmish"))


def test_the_exact_law_is_the_markov_chain(law) -> None:  # type: ignore[no-untyped-def]
    assert law.endings == chain()
    assert sum(law.endings.values()) == 1
    assert law.win(0) + law.win(1) + law.draw() == 1
    assert 0 < law.states < 200  # positions merged: far fewer than the tree's paths


def test_sampled_battles_follow_the_exact_law(duel, law) -> None:  # type: ignore[no-untyped-def]
    rules, sc, games = Rules(duel), duel.get("skirmish"), 4000
    counts: dict[tuple[int | None, int], int] = {}
    for i in range(games):
        out = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], game_seed(5, i), record=False).run()
        counts[(out.winner, out.turns)] = counts.get((out.winner, out.turns), 0) + 1
    cells: dict[tuple[int | None, int], Fraction] = {}
    for (w, t, _), p in law.endings.items():
        cells[(w, t)] = cells.get((w, t), Fraction(0)) + p
    keys = sorted(cells, key=lambda k: (k[0] is None, k))
    stat, df = chi_square([counts.get(k, 0) for k in keys], [float(cells[k]) * games for k in keys])
    assert stat < chi_square_critical(df, 0.001)
    # and the same sample rejects a law that is slightly off: the gunners winning 20% more often
    wrong = {k: (p * Fraction(12, 10) if k[0] == 0 else p) for k, p in cells.items()}
    total = sum(wrong.values())
    stat, df = chi_square([counts.get(k, 0) for k in keys], [float(wrong[k] / total) * games for k in keys])
    assert stat > chi_square_critical(df, 0.001)


def test_the_solver_refuses_a_battle_past_its_limit(duel) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TooManyStates, match=r"more than 5 distinct positions \(6 found"):
        solve(Rules(duel, exact=True), duel.get("skirmish"), limit=5)
    with pytest.raises(ValueError, match="'random' does not"):
        solve(Rules(duel, exact=True), duel.get("skirmish"), "random")


def test_the_command_prints_the_exact_fractions(tmp_path: Path, law) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "duel.rules").write_text(DUEL)
    res = CliRunner().invoke(app, ["simulate", str(tmp_path), "--exact", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["exact"] is True and out["states"] == law.states
    for k, side in enumerate(out["sides"]):
        assert Fraction(side["win"]) == law.win(k) and side["win_float"] == float(law.win(k))
        assert side["policy"] == "greedy"
    assert Fraction(out["draw"]) == law.draw() and out["draw_float"] == float(law.draw())
    mean_turns = sum(t * p for (_, t, _), p in law.endings.items())
    assert Fraction(out["turns_mean"]) == mean_turns
    text = CliRunner().invoke(app, ["simulate", str(tmp_path), "--exact"])
    assert text.exit_code == 0 and f"{float(law.win(0)):.4%}" in text.output
    for bad, says in ((["--policy", "random"], "'random' does not"), (["--against", str(tmp_path)], "cannot be combined")):
        res = CliRunner().invoke(app, ["simulate", str(tmp_path), "--exact", *bad])
        assert res.exit_code == 2 and says in res.output, res.output
