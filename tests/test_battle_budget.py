"""The player a judgement can afford (:func:`compiler.battle.budget.strongest`): its estimates of
the work, checked against counts taken here from the probe games' own logs.

The game: one gunner (18 shots hitting on 5+) fires at a crowd of 18 one-wound models, which fires
back with those left; one turn.  Every game asks four questions (Red's order, its volley, Blue's
order, its volley: the targets are choices of one option, never asked), and the positions a
searching player decides in are Red's first order (every game) and Blue's order, one per number of
models the crowd lost — so the positions the probes meet, and how often, are the volleys' counts.
"""
from __future__ import annotations

import math
from collections import Counter

import pytest

from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Rules, game_seed
from compiler.battle.budget import LOOKAHEAD_NODES, PROBES, QUESTIONS_PER_CPU_SECOND, strongest
from compiler.battle.search import MCTS_ITERATIONS
from compiler.driver import compile_text

BUDGETED = '''
ruleset budgeted "Budgeted":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..20
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  killed = hits removes target
weapon rifle "Rifle":
  A 1
weapon volley_gun "Volley gun":
  A 18
unit gunner "Gunner":
  BS 5  W 1
  weapons volley_gun
unit crowd "Crowd":
  BS 4  W 1
  weapons rifle
game g "A game":
  turns 1
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wiped_out "Wiped out" by annihilation: "A side with no models left loses."
scenario duel "A gunner against a crowd":
  game g
  distance 12"
  first red
  side red "Red":
    1 gunner
  side blue "Blue":
    18 crowd
'''


@pytest.fixture(scope="module")
def duel() -> tuple[Rules, A.Scenario, list[tuple[int, int]]]:
    """The rules, the scenario, and each probe game's (questions asked, models the crowd lost),
    read from its log: the choices recorded (those of more than one option) and the volleys rolled."""
    result = compile_text(BUDGETED, "budgeted.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    rules, sc = Rules(model), model.get("duel")
    assert isinstance(sc, A.Scenario)
    probes = []
    for i in range(PROBES):
        battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], game_seed(0, i))
        battle.run()
        volleys = [e for e in battle.events if e["event"] == "volley"]
        probes.append((len(battle.choices) + len(volleys), volleys[0]["removed"]))
    return rules, sc, probes


def by_hand(probes: list[tuple[int, int]], games: int, sides: int, workers: int) -> dict[str, float]:
    """The documented estimates from the probes: ``q`` the mean questions, the positions met plus
    Chao's estimate of those not met, capped by the rate new ones appeared in the probes' last half."""
    played = len(probes)
    q = sum(n for n, _ in probes) / played
    seen = Counter(lost for _, lost in probes)
    counts = [played, *seen.values()]  # Red's first order, met in every game; Blue's, one per loss
    met = [1 + len({lost for _, lost in probes[:k]}) for k in range(1, played + 1)]
    once, twice = counts.count(1), counts.count(2)
    rate = (met[-1] - met[played // 2 - 1]) / (played - played // 2)
    positions = workers * (len(counts) + min(once * (once - 1) / (2 * (twice + 1)),
                                                    max(0, games - played) * rate))

    def cost(plays: int) -> float:
        return sides * games * q * (1 + positions * plays / games) / QUESTIONS_PER_CPU_SECOND
    return {"mcts": cost(MCTS_ITERATIONS), "lookahead": cost(LOOKAHEAD_NODES), "greedy": cost(0)}


def test_the_estimates_count_the_probes_questions_and_positions(duel: tuple[Rules, A.Scenario, list[tuple[int, int]]]) -> None:
    rules, sc, probes = duel
    assert {n for n, _ in probes} == {4}  # four questions in every game
    seen = Counter(lost for _, lost in probes)
    # the probes meet two of Blue's positions once and one twice (Chao's estimate of those unseen: 1/2), and
    # new ones in their last half
    assert sorted(seen.values())[:3] == [1, 1, 2] and len({lost for _, lost in probes[PROBES // 2:]} - {
        lost for _, lost in probes[:PROBES // 2]}) > 0
    for games, sides, workers in ((10, 2, 1), (PROBES, 2, 1), (PROBES + 4, 1, 3), (5000, 2, 2)):
        pick = strongest(rules, sc, games, 1e9, sides=sides, workers=workers)
        assert pick.policy == "mcts"
        assert pick.estimates == pytest.approx(by_hand(probes, games, sides, workers), rel=1e-12)
        assert pick.to_json()["estimated_cpu_s"] == {k: round(v, 3) for k, v in pick.estimates.items()}


def test_the_strongest_player_whose_estimate_fits_is_chosen_at_its_bound(
        duel: tuple[Rules, A.Scenario, list[tuple[int, int]]]) -> None:
    rules, sc, probes = duel
    mcts = by_hand(probes, 400, 2, 1)["mcts"]
    assert strongest(rules, sc, 400, mcts).policy == "mcts"  # the estimate at the budget fits
    below = strongest(rules, sc, 400, math.nextafter(mcts, 0))
    assert below.policy == "greedy" and below.budget == math.nextafter(mcts, 0)


def test_the_probes_stop_at_a_quarter_when_even_a_lookahead_is_past_the_budget(
        duel: tuple[Rules, A.Scenario, list[tuple[int, int]]]) -> None:
    rules, sc, probes = duel
    quarter = probes[:PROBES // 4]
    # after a quarter of the probes: a lookahead's cost over the positions met so far
    met = 1 + len({lost for _, lost in quarter})
    so_far = 2 * (400 * 4 + 3 * met * LOOKAHEAD_NODES * 4) / QUESTIONS_PER_CPU_SECOND
    stopped = strongest(rules, sc, 400, math.nextafter(so_far, 0), workers=3)
    assert stopped.policy == "greedy"
    assert stopped.estimates == pytest.approx(by_hand(quarter, 400, 2, 3), rel=1e-12)
    assert by_hand(quarter, 400, 2, 3) != pytest.approx(by_hand(probes, 400, 2, 3), rel=1e-6)
    at = strongest(rules, sc, 400, so_far, workers=3)  # at the bound: every probe played
    assert at.estimates == pytest.approx(by_hand(probes, 400, 2, 3), rel=1e-12)
