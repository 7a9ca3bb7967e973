"""Gemini-ARAP's morale in battle, worked examples from scripted states: suppression points rise
with a volley's hits (drawn with its casualties from their joint law), fall each game turn, come
off on a regroup and on engaging in melee.  Every law is checked against a computation here, in
fractions, from the document's numbers (a low d6 roll to hit, (T + 4) - S to wound, 2d6 against Ld).
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import factorial
from pathlib import Path
from typing import Callable

import pytest

import compiler
from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Law, Rules
from compiler.model.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent
D6 = range(1, 7)


@pytest.fixture(scope="module")
def gemini() -> Ruleset:
    return compiler.compile_paths([ROOT / "rules" / "gemini-arap"]).rulesets[0]


class Scripted:
    """A nature that answers each chance node with ``pick(law, what)`` and keeps the laws asked."""

    def __init__(self, pick: Callable[[Law, str], int]) -> None:
        self.pick, self.asked = pick, []  # type: ignore[var-annotated]

    def outcome(self, battle: Battle, law: Law, what: str) -> int:
        self.asked.append((what, law))
        return self.pick(law, what)


def battle_of(model: Ruleset, pick: Callable[[Law, str], int], scenario: str = "firefight") -> tuple[Battle, Scripted]:
    nature = Scripted(pick)
    sc = model.get(scenario)
    assert isinstance(sc, A.Scenario)
    battle = Battle(Rules(model, exact=True), sc, [GreedyPolicy(), GreedyPolicy()], 0, nature=nature)
    for u in battle.state.units:
        if u.side == 0:
            u.position = 18.0  # 12" from the enemy: in rifle range
    return battle, nature


def shot_fates() -> dict[str, Fraction]:
    """One rifle shot of a stand-in trooper (BS 3, S 3) at another (T 3, Sv 5+, no AP), die by die:
    a miss, a hit that does not kill, a hit that kills."""
    hit = Fraction(sum(1 for f in D6 if f <= min(3, 5) and f != 6), 6)  # low roll, never above 5, a 6 misses
    need = (3 + 4) - 3  # (T + 4) - S
    wound = Fraction(sum(1 for f in D6 if f >= need and f != 1), 6)
    unsaved = Fraction(sum(1 for f in D6 if f < 5 or f == 1), 6)  # a 5+ save; a 1 always fails
    kill = hit * wound * unsaved
    return {"miss": 1 - hit, "hit": hit - kill, "kill": kill}


def joint_by_hand(shots: int, standing: int) -> dict[tuple[int, int], Fraction]:
    """The law of (hits, models removed): the multinomial of the shots' fates, the removed capped
    at the models standing."""
    fate = shot_fates()
    out: dict[tuple[int, int], Fraction] = {}
    for kills in range(shots + 1):
        for others in range(shots - kills + 1):
            misses = shots - kills - others
            ways = factorial(shots) // (factorial(kills) * factorial(others) * factorial(misses))
            p = ways * fate["kill"] ** kills * fate["hit"] ** others * fate["miss"] ** misses
            key = (kills + others, min(kills, standing))
            out[key] = out.get(key, Fraction(0)) + p
    return out


def two_d6_at_most(n: int) -> Fraction:
    return Fraction(sum(1 for a, b in product(D6, D6) if a + b <= n), 36)


def test_a_volley_draws_its_hits_and_its_casualties_from_their_joint_law(gemini: Ruleset) -> None:
    battle, _ = battle_of(gemini, lambda law, what: 0)
    attack = gemini.get("volley")
    assert isinstance(attack, A.Attack)
    shooter, target = battle.state.units[0], battle.state.units[2]
    for standing in (10, 4):
        target.models = standing
        law = battle.rules.volley_counting(attack, shooter, "rifle", target, (), "hits")
        got = {(h, r): p for h, r, p in zip(law.counts, law.values, law.probabilities)}
        assert got == joint_by_hand(10, standing)
        # summed over the hits, the volley's own law
        marginal: dict[int, Fraction] = {}
        for (_, r), p in got.items():
            marginal[r] = marginal.get(r, Fraction(0)) + p
        own = battle.rules.volley(attack, shooter, "rifle", target, ())
        assert dict(zip(own.values, own.probabilities)) == marginal


def pick_outcome(hits: int, removed: int, rise: int) -> Callable[[Law, str], int]:
    def pick(law: Law, what: str) -> int:
        if what == "volley":
            return next(i for i, (h, r) in enumerate(zip(law.counts, law.values)) if (h, r) == (hits, removed))
        if what == "counter":
            return law.values.index(rise)
        return 0
    return pick


def test_hits_over_a_quarter_of_the_unit_call_a_leadership_test_and_a_failure_adds_an_s_point(gemini: Ruleset) -> None:
    # ten troopers (Ld 7) with one S-point already take 3 hits, lose 1 model, and fail their test
    battle, nature = battle_of(gemini, pick_outcome(3, 1, 1))
    attack = gemini.get("volley")
    assert isinstance(attack, A.Attack)
    shooter, target = battle.state.units[0], battle.state.units[2]
    target.values["s_points"] = 1
    battle.strike(attack, shooter, target, "Range")
    assert (target.models, target.values["s_points"]) == (9, 2)
    what, rise = nature.asked[-1]
    assert what == "counter"
    # the test is 2d6 against Ld 7, less 1 for the S-point it has: passed, none; failed, one
    passed = two_d6_at_most(7 - 1)
    assert dict(zip(rise.values, rise.probabilities)) == {0: passed, 1: 1 - passed}


def test_hits_of_a_quarter_or_fewer_call_no_test(gemini: Ruleset) -> None:
    # 2 hits on ten troopers is not more than 25%: no test, no S-point, whatever the Ld
    battle, nature = battle_of(gemini, pick_outcome(2, 0, 0))
    attack = gemini.get("volley")
    assert isinstance(attack, A.Attack)
    shooter, target = battle.state.units[0], battle.state.units[2]
    battle.strike(attack, shooter, target, "Range")
    assert target.values["s_points"] == 0
    assert all(what != "counter" for what, _ in nature.asked)  # a sure amount is no chance node
    # the same 2 hits on a unit of 7 are more than a quarter: the test is taken
    battle, nature = battle_of(gemini, pick_outcome(2, 0, 1))
    target = battle.state.units[2]
    target.models = 7
    battle.strike(attack, battle.state.units[0], target, "Range")
    assert target.values["s_points"] == 1
    assert dict(zip(nature.asked[-1][1].values, nature.asked[-1][1].probabilities)) == {
        0: two_d6_at_most(7), 1: 1 - two_d6_at_most(7)}


def test_s_points_are_minus_one_each_to_shooting(gemini: Ruleset) -> None:
    battle, _ = battle_of(gemini, lambda law, what: 0)
    attack = gemini.get("volley")
    assert isinstance(attack, A.Attack)
    shooter, target = battle.state.units[0], battle.state.units[2]
    shooter.values["s_points"] = 1
    situation = battle.rules.situation(shooter, 24.0)
    law = battle.rules.volley(attack, shooter, "rifle", target, situation)
    # BS 3 less 1: a hit on 2 or less (1/3), then 1/2 to wound, 2/3 unsaved: each shot kills 1/9
    p = Fraction(1, 3) * Fraction(1, 2) * Fraction(2, 3)
    assert law.probabilities[law.values.index(0)] == (1 - p) ** 10


def test_s_points_fall_by_one_each_game_turn_and_a_regroup_sheds_d6(gemini: Ruleset) -> None:
    battle, nature = battle_of(gemini, lambda law, what: law.values.index(4) if what == "counter" else 0)
    units = battle.state.units
    units[0].values["s_points"], units[1].values["s_points"] = 3, 0
    battle.period_ends("game turn")
    assert [u.values["s_points"] for u in units[:2]] == [2, 0]
    game = gemini.get("turn_structure")
    assert isinstance(game, A.Game)
    regroup = next(a for p in game.phases for a in p.actions if a.id == "regroup_action")
    units[0].values["s_points"] = 6
    from compiler.battle import EFFECTS
    EFFECTS["lowers"](battle, units[0], regroup.effects[0], regroup)
    assert units[0].values["s_points"] == 2  # 6 less a 4 on the d6
    what, law = nature.asked[-1]
    assert what == "counter" and dict(zip(law.values, law.probabilities)) == {k: Fraction(1, 6) for k in D6}


def test_engaging_in_melee_clears_both_units_s_points(gemini: Ruleset) -> None:
    battle, _ = battle_of(gemini, lambda law, what: 0, "stealer_rush")
    units = battle.state.units
    stealers = next(u for u in units if u.profile == "stealer")
    troopers = next(u for u in units if u.profile == "trooper")
    stealers.values["s_points"], troopers.values["s_points"] = 2, 3
    stealers.position = troopers.position + 6 if stealers.position > troopers.position else troopers.position - 6
    game = gemini.get("turn_structure")
    assert isinstance(game, A.Game)
    charge = next(a for p in game.phases for a in p.actions if a.id == "charge_action")
    from compiler.battle import EFFECTS
    assert EFFECTS["engage"](battle, stealers, charge.effects[0], charge)
    assert troopers.uid in stealers.engaged
    assert (stealers.values["s_points"], troopers.values["s_points"]) == (0, 0)




COUNTING = '''
ruleset counting "Counting":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test steady(Ld) = roll 2d6 <= Ld
situation pins "Pins" 0..3
formula gained(Ld, n, size) "Pins gained" = if 2 * n > size and not steady(Ld) then 1 else 0
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  spare = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 3  Ld 7  W 1
game g "A game":
  turns 2
  activation whole_army
  counter pins: rises by RISE when shot, falls by 1 at end of game turn, cleared when CLEARED
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game g
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    4 trooper
'''


@pytest.mark.parametrize("rise, cleared, message", [
    ("gained(Ld, spare, models)", "engaged", "'pins' rises by the count of 'spare', which attack 'shooting' does not count"),
    ("gained(Ld, hits, killed)", "engaged", "'pins' rises by the counts of several steps (hits, killed)"),
    ("gained(Ld, hits, models)", "routed", "unknown event 'routed'"),
])
def test_check_refuses_a_counter_that_cannot_be_drawn_with_its_volley(rise: str, cleared: str, message: str) -> None:
    from compiler.driver import compile_text
    result = compile_text(COUNTING.replace("RISE", rise).replace("CLEARED", cleared), "counting.rules")
    found = [d for d in result.diagnostics if message in d.message]
    assert found and found[0].span.line == 21 and found[0].severity == "error", \
        [(d.code, d.message) for d in result.diagnostics]


def test_a_counter_on_the_counted_hits_plays(gemini: Ruleset) -> None:
    from compiler.driver import compile_text
    result = compile_text(COUNTING.replace("RISE", "gained(Ld, hits, models)").replace("CLEARED", "engaged"),
                          "counting.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    # Red's 3 troopers hit on 3+ (2/3 each); 3 hits are more than half of the 4 Blue had when shot at
    battle, nature = battle_of(model, pick_outcome(3, 3, 1), "duel")
    attack = model.get("shooting")
    assert isinstance(attack, A.Attack)
    red, blue = battle.state.units
    battle.strike(attack, red, blue)
    assert (blue.models, blue.values["pins"]) == (1, 1)
    law = nature.asked[0][1]
    hit = Fraction(2, 3)
    # the removed are the hits themselves (each hit kills): the joint law lies on h == r
    assert {(h, r): p for h, r, p in zip(law.counts, law.values, law.probabilities)} == {
        (k, k): Fraction(factorial(3), factorial(k) * factorial(3 - k)) * hit ** k * (1 - hit) ** (3 - k)
        for k in range(4)}
    assert dict(zip(nature.asked[1][1].values, nature.asked[1][1].probabilities)) == {
        0: two_d6_at_most(7), 1: 1 - two_d6_at_most(7)}


def casualty_law(ld: int) -> dict[str, Fraction]:
    """The 25% test by hand: 2d6 at most Ld passes; a failed even total pins, a failed odd one routs."""
    out = {"carries on": Fraction(0), "pinned": Fraction(0), "routs": Fraction(0)}
    for a, b in product(D6, D6):
        total = a + b
        key = "carries on" if total <= ld else "pinned" if total % 2 == 0 else "routs"
        out[key] += Fraction(1, 36)
    return out


def end_of_red_turn(model: Ruleset, pick: Callable[[Law, str], int]) -> tuple[Battle, Scripted]:
    battle, nature = battle_of(model, pick)
    battle.state.active = 0  # Red's turn ends: Blue's losses in it are counted
    return battle, nature


def test_a_quarter_of_the_unit_lost_in_a_turn_calls_the_casualty_test_with_ld_less_s_points(gemini: Ruleset) -> None:
    def pick(outcome: str) -> Callable[[Law, str], int]:
        def chosen(law: Law, what: str) -> int:
            if what == "test":
                labels = ("carries on", "pinned", "routs")
                return law.values.index(sorted(labels).index(outcome))
            return law.values.index(7) if what == "move" else 0
        return chosen
    for outcome in ("pinned", "routs", "carries on"):
        battle, nature = end_of_red_turn(gemini, pick(outcome))
        blue = battle.state.units[2]
        blue.turn_start, blue.models, blue.values["s_points"] = 10, 7, 2
        here = blue.position = 20.0  # 2" from Red, 10" from its own edge
        battle.period_ends("turn")
        asked = [law for what, law in nature.asked if what == "test"]
        assert len(asked) == 1  # the other units lost nothing: no test
        law = asked[0]
        assert dict(zip(sorted(("carries on", "pinned", "routs")), law.probabilities)) == casualty_law(7 - 2)
        assert blue.values["s_points"] == 0  # taking the test clears the S-points, whatever its result
        if outcome == "pinned":
            assert blue.statuses == {"pinned": "own turn"} and blue.position == here
        elif outcome == "routs":
            # routs, flinching a first flee move away from the enemy: 2d6 (its move is 4"), a 7 drawn
            assert "routing" in blue.statuses and blue.position == here + 7
            flee = next(law for what, law in nature.asked if what == "move")
            assert dict(zip(flee.values, flee.probabilities)) == {
                n: Fraction(sum(1 for a, b in product(D6, D6) if a + b == n), 36) for n in range(2, 13)}
        else:
            assert not blue.statuses and blue.position == here
        assert blue.turn_start == 7  # the next turn's losses are counted from here


def test_fewer_than_a_quarter_or_a_unit_in_melee_takes_no_casualty_test(gemini: Ruleset) -> None:
    battle, nature = end_of_red_turn(gemini, lambda law, what: 0)
    blue, blue2 = battle.state.units[2], battle.state.units[3]
    blue.turn_start, blue.models = 10, 8  # 2 of 10: under a quarter
    blue2.turn_start, blue2.models, blue2.statuses = 10, 5, {"close_quarters": ""}
    battle.period_ends("turn")
    assert not [law for what, law in nature.asked if what == "test"]
    assert not blue.statuses and blue2.statuses == {"close_quarters": ""}


def test_a_pinned_unit_takes_two_actions_fewer_than_it_rolls_in_its_next_turn_only(gemini: Ruleset) -> None:
    from compiler.battle.activation import try_units
    game = gemini.get("turn_structure")
    assert isinstance(game, A.Game)
    phase = next(p for p in game.phases if p.actions)

    def all_succeed(law: Law, what: str) -> int:
        return law.values.index(max(law.values)) if what == "activation" else 0
    battle, _ = battle_of(gemini, all_succeed)
    red = battle.state.units[0]
    battle.state.units[1].models = 0  # one Red unit to try
    red.statuses = {"pinned": "own turn"}
    red.position = 0.0  # 30" away: each action is a move
    battle.state.active = 1
    battle.state.expire("turn")  # Blue's turn ends: Red's pinning lasts until the end of Red's own turn
    assert red.has("pinned")
    battle.state.active = 0
    try_units(battle, phase, 0)
    rolled = next(e for e in battle.events if e["event"] == "activation")
    acted = [e for e in battle.events if e["event"] == "action"]
    assert rolled["successes"] == rolled["dice"] >= 3  # no unit waits: the greedy player rolls three
    assert len(acted) == rolled["successes"] - 2
    battle.state.expire("turn")
    assert not red.has("pinned")


def test_a_routing_unit_rolls_no_activation_dice_and_rallies_or_flees_each_turn(gemini: Ruleset) -> None:
    from compiler.battle.activation import try_units
    game = gemini.get("turn_structure")
    assert isinstance(game, A.Game)
    phase = next(p for p in game.phases if p.actions)
    for passed in (True, False):
        battle, nature = battle_of(gemini, lambda law, what: (1 if passed else 0) if what == "test" else
                                   law.values.index(5) if what == "move" else 0)
        red, red2 = battle.state.units[0], battle.state.units[1]
        red.statuses = {"routing": ""}
        red2.models = 0
        try_units(battle, phase, 0)
        assert not [e for e in battle.events if e["event"] == "activation"]
        red.values["s_points"], here = 1, red.position
        battle.state.active = 1
        battle.period_ends("turn")
        law = next(law for what, law in nature.asked if what == "test")
        # the rally is a Leadership test, less 1 for the S-point: labels in order "failed", "passed"
        assert law.probabilities == (1 - two_d6_at_most(6), two_d6_at_most(6))
        if passed:
            assert not red.statuses and red.position == here
        else:
            assert red.has("routing") and abs(red.position - here) == 5


TAKING = '''
ruleset taking "Taking":
  version 1.0.0
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test nerve(Ld) = roll 2d6 <= Ld
status pinned "Pinned": "Down."
formula verdict(Ld) "Verdict":
  let roll = nerve(Ld)
  result if roll then "holds" else "pinned"
unit trooper "Trooper":
  Ld 7  W 1
game g "A game":
  turns 2
  activation activation_rolls
  activation dice 1..3 of nerve(Ld), bust on 2 failures, 2 fewer actions when STATUS
  phase fire "Shooting":
    action wait "Wait": sets pinned until end of its next turn
  at end of turn: each unit with lost_this_turn > 0 and not pinned takes TAKEN
    on "CASE": sets pinned until end of its next turn
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game g
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    4 trooper
'''


@pytest.mark.parametrize("status, taken, case, message, line", [
    ("pinned", "verdict(Ld)", "pined", '"pined" is never a value of verdict', 20),
    ("pinned", "nerve(Ld)", "pinned", '"pinned" is never a value of nerve', 20),
    ("pinnned", "verdict(Ld)", "pinned", "unknown status 'pinnned'", 16),
])
def test_check_refuses_a_case_no_roll_gives_and_an_unknown_status(status: str, taken: str, case: str, message: str,
                                                                   line: int) -> None:
    from compiler.driver import compile_text
    good = compile_text(TAKING.replace("STATUS", "pinned").replace("TAKEN", "verdict(Ld)").replace("CASE", "pinned"),
                        "taking.rules")
    assert good.ok, [d.message for d in good.diagnostics]
    result = compile_text(TAKING.replace("STATUS", status).replace("TAKEN", taken).replace("CASE", case),
                          "taking.rules")
    found = [d for d in result.diagnostics if message in d.message]
    assert found and found[0].span.line == line, [(d.code, d.message, d.span.line) for d in result.diagnostics]


def test_a_router_stops_at_the_edge_of_the_battlefield_and_the_log_says_how_far_it_went(gemini: Ruleset) -> None:
    battle, _ = battle_of(gemini, lambda law, what: law.values.index(7) if what == "move" else 0)  # fails to rally
    blue = battle.state.units[2]
    blue.statuses, blue.position = {"routing": ""}, 28.0  # 2" from its edge (the line is 30" long)
    battle.state.active = 0
    battle.period_ends("turn")
    assert blue.position == 30.0 and blue.has("routing")
    assert [e["inches"] for e in battle.events if e["event"] == "move"] == [2]


def test_the_morale_rules_count_as_played_by_the_battles(gemini: Ruleset) -> None:
    from compiler.resolve.coverage import played
    # the statuses and counters a game sets are what the battle engine may execute
    assert {"pinned", "routing", "s_points", "close_quarters"} <= played(gemini)
    from compiler.site.fidelity import PLAYED, fidelity
    standing = {s.rule.id: s.status for s in fidelity(gemini)}
    assert {standing[r] for r in ("suppression_in_battle", "quarter_casualties", "pinning", "routing_rule")} == {PLAYED}


def test_the_greedy_player_regroups_when_its_s_points_cost_a_shot_more_than_the_shot_is_worth(gemini: Ruleset) -> None:
    game = gemini.get("turn_structure")
    assert isinstance(game, A.Game)
    phase = next(p for p in game.phases if p.actions)
    picked = {}
    for held in (0, 1, 3):
        battle, _ = battle_of(gemini, lambda law, what: 0)
        red = battle.state.units[0]
        red.values["s_points"] = held
        battle.state.active = 0
        battle.act(red, phase)
        picked[held] = next(e["action"] for e in battle.events if e["event"] == "action")
    # 3 S-points leave BS 3 at 0 (a 1, then 3 or less: 1/12 a shot); a regroup sheds 3 on average
    assert picked == {0: "shoot_action", 1: "shoot_action", 3: "regroup_action"}


def test_a_router_caught_in_melee_neither_rallies_nor_flees(gemini: Ruleset) -> None:
    battle, nature = battle_of(gemini, lambda law, what: 0)
    blue = battle.state.units[2]
    blue.statuses, here = {"routing": "", "close_quarters": ""}, blue.position
    battle.state.active = 0
    battle.period_ends("turn")
    assert not nature.asked and blue.position == here and blue.has("routing")


def test_the_greedy_player_tries_a_pinned_unit_last(gemini: Ruleset) -> None:
    from compiler.battle.activation import try_units
    game = gemini.get("turn_structure")
    assert isinstance(game, A.Game)
    phase = next(p for p in game.phases if p.actions)
    battle, _ = battle_of(gemini, lambda law, what: 0)  # every die fails: the first unit tried goes bust
    first, second = battle.state.units[0], battle.state.units[1]
    first.statuses = {"pinned": "own turn"}
    battle.state.active = 0
    try_units(battle, phase, 0)
    assert [e["unit"] for e in battle.events if e["event"] == "activation"] == [second.label]


FEARLESS = '''
section fearless_stand_ins "A fearless stand-in":
  unit fearless_trooper "Fearless trooper (stand-in)":
    WS 3  BS 3  S 3  T 3  W 1  I 3  A 1  Ld 7  Sv 5+  Inv -  M 4"  Size 2
    keywords humanoid, fearless
    weapons rifle

  scenario fearless_line "Troopers fire on a fearless squad and an ordinary one":
    game turn_structure
    distance 30"
    turns 6
    side red "Red":
      10 trooper with rifle
    side blue "Blue":
      10 fearless_trooper with rifle
      10 trooper with rifle
'''


@pytest.fixture(scope="module")
def with_fearless(tmp_path_factory: pytest.TempPathFactory) -> Ruleset:
    import shutil
    folder = tmp_path_factory.mktemp("gemini") / "gemini-arap"
    shutil.copytree(ROOT / "rules" / "gemini-arap", folder)
    (folder / "fearless.rules").write_text(FEARLESS, encoding="utf-8")
    head = folder / "ruleset.rules"
    head.write_text(head.read_text(encoding="utf-8") + '\ninclude "fearless.rules"\n', encoding="utf-8")
    result = compiler.compile_paths([folder])
    assert [d.message for d in result.diagnostics if d.severity.name == "ERROR"] == []
    return result.rulesets[0]


@pytest.mark.parametrize("profile, immune", [("fearless_trooper", True), ("war_beast", True),
                                             ("armoured_warrior", True), ("trooper", False)])
def test_a_unit_whose_profile_makes_it_immune_takes_no_s_points(with_fearless: Ruleset, profile: str,
                                                                immune: bool) -> None:
    # 3 hits on ten models, 1 removed, and a failed test if one is taken: the fearless (a keyword),
    # the monstrous (a keyword) and the armoured (an invulnerable save) take none, the trooper one
    battle, nature = battle_of(with_fearless, pick_outcome(3, 1, 1), "fearless_line")
    attack = with_fearless.get("volley")
    assert isinstance(attack, A.Attack)
    shooter = battle.state.units[0]
    target = battle.state.units[1] if profile == "fearless_trooper" else battle.state.units[2]
    target.profile = profile
    battle.strike(attack, shooter, target, "Range")
    assert target.models == 9
    rises = [law for what, law in nature.asked if what == "counter"]
    if immune:
        assert target.values["s_points"] == 0 and rises == []  # a sure 0 is no chance node
    else:
        ld = 7  # the trooper's Ld, no S-points yet
        assert target.values["s_points"] == 1
        assert dict(zip(rises[-1].values, rises[-1].probabilities)) == {0: two_d6_at_most(ld),
                                                                        1: 1 - two_d6_at_most(ld)}


def test_a_fearless_squad_keeps_no_s_points_through_a_whole_battle(with_fearless: Ruleset) -> None:
    sc = with_fearless.get("fearless_line")
    assert isinstance(sc, A.Scenario)
    rules = Rules(with_fearless)
    tested = rises = others = 0
    for seed in range(3):
        battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], seed)
        battle.run()
        fearless = battle.state.units[1].label
        assert battle.state.units[1].profile == "fearless_trooper"
        tested += sum(1 for e in battle.events if e["event"] == "volley" and e["target"] == fearless
                      and 4 * e["counted"]["hits"] > e["models"])  # enough hits for a test, were it not fearless
        rises += sum(1 for e in battle.events if e["event"] == "counter" and e["unit"] == fearless)
        others += sum(1 for e in battle.events if e["event"] == "counter" and e["why"] == "shot" and e["unit"] != fearless)
    assert tested > 0 and others > 0 and rises == 0
