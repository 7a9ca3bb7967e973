"""The turn engine on scripted battles of two units a side: who is asked what, in which order,
the state after each answer, the events of a recorded battle, the end of the game — each a known
next state, each chance node its exact law."""
from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest

from compiler.battle import CHANCE, TERMINAL, Battle, Node, Rules, ScriptedPolicy
from compiler.battle.policies import Choice
from compiler.driver import compile_text

HALF = Fraction(1, 2)

RULES = '''
ruleset squads "Squads":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
unit sniper "Sniper":
  BS 1  W 1
game g "A game":
  turns {turns}
  activation {activation}
  control within 3" by models
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  score held "Held": 1 for each objective held at end of game
  victory most "Most points" by highest_score
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  game g
  distance 12"
  first red
  objective hill "The hill" at 0"
  side red "Red":
    2 trooper
    1 sniper
  side blue "Blue":
    1 trooper
    2 trooper
'''


def model_of(activation: str = "whole_army", turns: int = 1):  # type: ignore[no-untyped-def]
    result = compile_text(RULES.format(activation=activation, turns=turns), "squads.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


@pytest.fixture(scope="module")
def whole() -> Node:
    model = model_of()
    return Node.root(Rules(model, exact=True), model.get("clash"))


@pytest.fixture(scope="module")
def alternating() -> Node:
    model = model_of("alternating_units")
    return Node.root(Rules(model, exact=True), model.get("clash"))


def labels(node: Node) -> tuple[str, str, list[str]]:
    choice = node.choice()
    assert choice is not None
    return choice.kind, choice.unit, [o.label for o in choice.options]


def test_the_active_player_picks_which_unit_acts_and_each_acts_once(whole: Node) -> None:
    assert labels(whole) == ("unit", "Red", ["Trooper 1", "Sniper 2"])
    sniper = whole.child(1)
    assert labels(sniper) == ("action", "Sniper 2", ["Shoot", "Nothing"])
    aim = sniper.child(0)
    assert labels(aim)[0] == "target" and len(labels(aim)[2]) == 2
    shot = aim.child(1)  # at Blue's second unit (two troopers): the sniper hits on a 1+
    assert shot.current_player() == CHANCE and shot.chance_kind() == "volley"
    assert [p for _, p in shot.chance_outcomes()] == [Fraction(1)]
    after = shot.child(shot.legal_actions()[0])
    assert [u.models for u in after.state().units] == [2, 1, 1, 1]
    # the one Red unit left acts without being picked; then Blue's turn
    assert labels(after) == ("action", "Trooper 1", ["Shoot", "Nothing"])
    idle = after.child(1)
    assert labels(idle) == ("unit", "Blue", ["Trooper 1", "Trooper 2"])
    assert idle.state().active == 1


def test_a_unit_wiped_out_before_its_turn_in_the_phase_is_not_offered(alternating: Node) -> None:
    """Alternating units: Red's sniper kills Blue's lone trooper; Blue's turn goes to its other
    unit (never to the dead one), then Red's last unit, then Blue has nothing left to move."""
    assert labels(alternating) == ("unit", "Red", ["Trooper 1", "Sniper 2"])
    aim = alternating.child(1).child(0)
    assert labels(aim) == ("target", "Sniper 2", ['Trooper 1 (12")', 'Trooper 2 (12")'])
    shot = aim.child(0)
    killed = shot.child(shot.legal_actions()[0])
    assert [u.models for u in killed.state().units] == [2, 1, 0, 2]
    assert labels(killed) == ("action", "Trooper 2", ["Shoot", "Nothing"])  # Blue's only unit left acts
    red = killed.child(1)
    assert labels(red) == ("action", "Trooper 1", ["Shoot", "Nothing"]) and red.state().active == 0
    end = red.child(1)  # Red's trooper does nothing: the phase and the only turn end
    assert end.current_player() == TERMINAL


def test_the_game_ends_with_its_scores_counted_at_the_end_of_the_game() -> None:
    """Nobody shoots: at the end of the last turn Red's units on the hill (0") hold it and score 1;
    the most points win."""
    model = model_of()
    battle = Battle(Rules(model), model.get("clash"), [ScriptedPolicy([1, 1, 1]), ScriptedPolicy([1, 1, 1])], 7)
    out = battle.run()
    assert (out.winner, out.reason, out.scores, out.turns, out.survivors) == (0, "most", (1.0, 0.0), 1, (3, 3))
    kinds = [e["event"] for e in battle.events]
    assert kinds[0] == "start" and kinds[-1] == "end" and "volley" not in kinds
    assert battle.events[-1]["winner"] == "red"
    assert battle.events[0]["turn"] == 0  # the start, before the first turn
    snap = battle.state.snapshot()
    assert (snap["turn"], snap["objectives"], snap["scores"]) == \
        (1, [{"objective": "hill", "position": 0.0, "holder": 0}], [1.0, 0.0])


class Counting:
    """A policy that does nothing, and counts the choices it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def choose(self, choice: Choice) -> int:
        self.asked.append(choice.kind)
        return len(choice.options) - 1


def test_a_policy_that_is_not_the_greedy_one_is_asked_every_choice() -> None:
    model = model_of(turns=2)
    red, blue = Counting(), Counting()
    battle = Battle(Rules(model), model.get("clash"), [red, blue], 3)
    out = battle.run()
    # each player's turn: which unit first (two units), then each unit's action
    assert red.asked == ["unit", "action", "action"] * 2 and blue.asked == red.asked
    assert out.survivors == (3, 3) and battle.choices == [1] * 12


def test_the_seeded_dice_give_the_same_battle_and_another_seed_another(whole: Node) -> None:
    model = model_of("alternating_units", turns=3)
    rules = Rules(model)

    def play(seed: int) -> tuple[Any, ...]:
        from compiler.battle import GreedyPolicy
        battle = Battle(rules, model.get("clash"), [GreedyPolicy(), GreedyPolicy()], seed)
        return battle.run(), battle.events
    assert play(5) == play(5)
    assert len({str(play(s)[1]) for s in range(6)}) > 1


ARMS = '''
ruleset arms "Arms":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
situation suppression "Suppression" 0..6
test hit(BS) = roll d6 >= BS
test nerve(Ld) = roll 2d6 <= Ld
status steady "Steady": "Rallied."
attack shooting(shooter, weapon, target) "Shooting":
  attacks = shooter.models * weapon.A
  hits = attacks each hit(shooter.BS)
  killed = hits removes target
weapon rifle "Rifle":
  A 1
weapon grenade "Grenade":
  A 1
unit gunner "Gunner":
  BS 1  Ld 7  W 1
  weapons rifle, grenade
unit target "Target":
  BS 6  Ld 7  W 1
  weapons rifle
game g "A game":
  turns 1
  activation whole_army
  casualties removed at end of phase
  counter suppression: rises by 1 when shot, falls by 1 at end of game turn
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
    action rally "Rally": tests nerve(Ld), sets steady
  at end of game turn: each unit with models < started tests nerve(Ld), failing: destroyed
  victory wipe "Annihilation" by annihilation
scenario range "A range":
  game g
  distance 12"
  first red
  side red "Red":
    1 gunner
  side blue "Blue":
    1 target
    3 target
'''


@pytest.fixture(scope="module")
def arms() -> Node:
    result = compile_text(ARMS, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("range"))


def test_a_target_whose_models_are_all_marked_takes_no_more_volleys_and_no_counter(arms: Node) -> None:
    """The gunner's rifle marks the lone target (a hit on a 1+ kills): its grenade is not thrown
    at it, and a unit with nothing left standing is not suppressed; the phase ends, the mark is
    removed, and Blue's other unit acts."""
    aim = arms.child(0)
    assert labels(aim) == ("target", "Gunner", ['Target 1 (12")', 'Target 2 (12")'])
    rifle = aim.child(0)
    assert rifle.chance_kind() == "volley" and [p for _, p in rifle.chance_outcomes()] == [Fraction(1)]
    after = rifle.child(rifle.legal_actions()[0])
    lone = after.state().units[1]
    assert (lone.models, lone.doomed, lone.values) == (0, 0, {"suppression": 0})
    assert labels(after) == ("action", "Target 2", ["Shoot", "Rally", "Nothing"])


def test_each_weapon_fires_the_counter_rises_once_and_the_end_of_turn_test_waits_for_its_turn(arms: Node) -> None:
    rifle = arms.child(0).child(1)  # at the three targets
    grenade = rifle.child(rifle.legal_actions()[0])
    assert grenade.chance_kind() == "volley"  # one model marked: the grenade still has a target
    squad = grenade.state().units[2]
    assert (squad.models, squad.doomed) == (3, 1)
    after = grenade.child(grenade.legal_actions()[0])
    squad = after.state().units[2]
    assert (squad.models, squad.doomed, squad.values) == (1, 0, {"suppression": 1})  # one strike: one rise
    # the end of the phase is not the end of the game turn: no test yet; Blue acts
    assert labels(after) == ("unit", "Blue", ["Target 1", "Target 2"])
    assert labels(after.child(0)) == ("action", "Target 1", ["Shoot", "Rally", "Nothing"])
    rally = after.child(1).child(1)  # the squad first: it rallies
    assert rally.chance_kind() == "test" and [p for _, p in rally.chance_outcomes()] == [Fraction(7, 12), Fraction(5, 12)]
    assert rally.child(0).state().units[2].statuses == {"steady": ""}
    failed = rally.child(1)
    assert failed.state().units[2].statuses == {}  # a failed test ends the action: nothing set
    assert labels(failed) == ("action", "Target 1", ["Shoot", "Rally", "Nothing"])
    failed = failed.child(2)  # the lone target does nothing
    # the game turn ends: the counter falls, and the damaged squad (not the others) tests its nerve
    assert failed.chance_kind() == "test" and [p for _, p in failed.chance_outcomes()] == [Fraction(7, 12), Fraction(5, 12)]
    broken, held = failed.child(1), failed.child(0)
    assert broken.is_terminal() and broken.outcome().survivors == (1, 1)  # the squad is destroyed
    assert held.is_terminal() and held.outcome().survivors == (1, 2)
    assert held.outcome().winner is None and held.state().units[2].values == {"suppression": 0}


def test_an_end_of_turn_test_that_cannot_be_passed_is_still_taken_and_failed() -> None:
    text = ARMS.replace("test nerve(Ld) = roll 2d6 <= Ld\n", "test nerve(Ld) = roll 2d6 <= Ld\n"
                        "test hopeless(Ld) = roll d6 >= Ld + 6\n").replace(
        "each unit with models < started tests nerve(Ld)", "each unit with models < started tests hopeless(Ld)")
    result = compile_text(text, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("range")).child(0).child(1)  # at the squad of three
    for _ in range(2):  # the rifle, the grenade: one model each
        node = node.child(node.legal_actions()[0])
    node = node.child(1).child(2).child(2)  # Blue: the squad, then the lone target, do nothing
    assert node.chance_kind() == "test" and node.chance_outcomes() == [(1, Fraction(1))]  # a sure failure
    end = node.child(1)
    assert end.is_terminal() and end.state().units[2].models == 0 and end.outcome().survivors == (1, 1)


DRILL = '''
ruleset drill "Drill":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
situation suppression "Suppression" 0..2
test hit(BS) = roll d6 >= BS
test rally(Ld) = roll 2d6 <= Ld
status pinned "Pinned": "Down."
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  Ld 7  W 1
game g "A game":
  turns 2
  activation alternating_units
  initiative each game turn: roll d6, ties swap the order
  casualties removed at end of phase
  counter suppression: rises by 1 when shot, falls by 1 at end of game turn
  phase fire "Fire":
    action shoot "Shoot": attack shooting
    action duck "Go to ground": sets pinned until passed rally(Ld)
    action steady "Steady": lowers suppression by 2
  at end of game turn: each unit with models < started tests rally(Ld), failing: destroyed
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game g
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    3 trooper
'''


class Dice:
    """A nature that gives the outcomes in order, and notes what each roll was for."""

    def __init__(self, outcomes: list[int]) -> None:
        self.outcomes, self.asked = list(outcomes), []  # type: list[int], list[str]

    def outcome(self, battle: Battle, law: Any, what: str) -> int:
        self.asked.append(what)
        return self.outcomes.pop(0)


def test_the_turn_structures_events_in_a_scripted_battle() -> None:
    """Turn 1: a tie for the initiative swaps the scenario's order (Blue first); Blue's volley
    marks one Red trooper and suppresses the unit; Red, at full strength, goes to ground; the
    phase ends (the mark removed), the game turn ends (the counter falls; Red, short of a model,
    passes its end-of-turn test).  Turn 2: Red wins the roll, passes its rally test before acting
    (the status ends) and steadies (nothing to lower); Blue does nothing; Red tests again."""
    result = compile_text(DRILL, "drill.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    first = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Red wins the roll: what is each action worth?
    assert first.choice().estimates() == [1.5, -1e-3, 0.0, 0.0]  # type: ignore[union-attr]  # 3 shots on 4+; a status; a counter at 0
    dice = Dice([2, 1, 0, 0, 0, 0])
    battle = Battle(Rules(model), model.get("duel"), [ScriptedPolicy([1, 2]), ScriptedPolicy([0, 3])], 0,
                    nature=dice)
    out = battle.run()
    assert dice.asked == ["initiative", "volley", "test", "initiative", "test", "test"] and dice.outcomes == []
    volleys = [e for e in battle.events if e["event"] == "volley"]
    assert [(v["side"], v["removed"], v["models"], v["left"]) for v in volleys] == [("blue", 1, 3, 3)]
    seen = [(e["event"], e["turn"], {k: v for k, v in e.items() if k not in ("event", "turn", "phase", "side")})
            for e in battle.events if e["event"] in ("initiative", "counter", "removed", "test", "status")]
    assert seen == [
        ("initiative", 1, {"first": "blue", "first_title": "Blue", "tie": True, "ties": "swap"}),
        ("counter", 1, {"unit": "Trooper", "counter": "suppression", "value": 1, "change": 1, "why": "shot"}),
        ("status", 1, {"unit": "Trooper", "status": "pinned", "until": None}),
        ("removed", 1, {"unit": "Trooper", "removed": 1, "left": 2}),
        ("counter", 1, {"unit": "Trooper", "counter": "suppression", "value": 0, "change": -1,
                        "why": "end of game turn"}),
        ("test", 1, {"rule": "rally", "unit": "Trooper", "chance": round(21 / 36, 6), "passed": True}),
        ("initiative", 2, {"first": "red", "first_title": "Red", "tie": False, "ties": "swap"}),
        ("test", 2, {"rule": "rally", "unit": "Trooper", "chance": round(21 / 36, 6), "passed": True, "ends": "pinned"}),
        ("status", 2, {"unit": "Trooper", "status": "pinned", "until": "now"}),
        ("test", 2, {"rule": "rally", "unit": "Trooper", "chance": round(21 / 36, 6), "passed": True}),
    ]
    assert out.survivors == (2, 3) and out.reason == "turn limit"
    assert [u.values for u in battle.state.units] == [{"suppression": 0}, {"suppression": 0}]


def test_a_choice_of_one_option_is_not_put_to_the_policy() -> None:
    """A `must` action alone in its phase: no unit is asked what it does (nor is the answer
    recorded); only which unit acts first and what it shoots at are choices."""
    result = compile_text(RULES.format(activation="whole_army", turns=1).replace(
        'action shoot "Shoot"', 'must action shoot "Shoot"'), "squads.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    red, blue = Counting(), Counting()
    battle = Battle(Rules(model), model.get("clash"), [red, blue], 3)
    battle.run()
    assert red.asked == ["unit", "target", "target"]  # the sniper's shot leaves both Blue units standing
    assert "action" not in blue.asked and len(battle.choices) == len(red.asked) + len(blue.asked)


FIGHT = '''
ruleset fight "Fight":
  version 1.0.0
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test blow(Ld) = roll d6 >= Ld
status locked "Locked": "In combat."
status proud "Proud": "It struck."
attack brawl(attacker, defender) "Brawl":
  hits = attacker.models each blow(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  Ld 4  W 1
unit brute "Brute":
  Ld 3  W 1
game g "A game":
  turns 1
  activation {activation}
{dice}
  phase assault "Assault":
    action charge "Charge": engage within 6" as locked
    action strike "Strike": attack brawl, sets proud
  phase fight "Fight":
    combat brawl in order of Ld
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  game g
  distance 4"
  first red
  side red "Red":
    2 trooper
    2 trooper
  side blue "Blue":
    {brutes} brute
'''


def fight(activation: str = "alternating_units", brutes: int = 3, dice: str = ""):  # type: ignore[no-untyped-def]
    result = compile_text(FIGHT.format(activation=activation, brutes=brutes, dice=dice), "fight.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def test_a_unit_engaged_with_two_enemy_units_chooses_which_to_strike() -> None:
    model = fight()
    node = Node.root(Rules(model, exact=True), model.get("clash"))
    node = node.child(0).child(0)  # Red's first unit charges the brutes
    node = node.child(2)  # the brutes do nothing
    node = node.child(0)  # Red's second unit charges too
    for _ in range(2):  # the troopers (Ld 4) strike first, one unit then the other: no brute falls
        assert node.chance_kind() == "volley"
        node = node.child(0)
    assert labels(node) == ("target", "Brute", ["Trooper 1", "Trooper 2"])
    assert "strike which enemy unit" in node.choice().prompt  # type: ignore[union-attr]
    struck = node.child(1)  # at the second unit: 3 blows on 3+ at two troopers
    assert [p for _, p in struck.chance_outcomes()] == [Fraction(1, 27), Fraction(6, 27), Fraction(20, 27)]
    assert [u.models for u in struck.child(2).state().units] == [2, 0, 3]


def test_a_recorded_fight_reports_each_volley_with_its_mean() -> None:
    model = fight()
    dice = Dice([0, 0, 1])
    battle = Battle(Rules(model), model.get("clash"), [ScriptedPolicy([0, 0, 0]), ScriptedPolicy([2, 1])], 0,
                    nature=dice)
    battle.run()
    volleys = [(e["unit"], e["target"], e["removed"], e["mean"]) for e in battle.events if e["event"] == "volley"]
    # two troopers: 2 blows on 4+ at three brutes (mean 1); three brutes: 3 blows on 3+ at two troopers
    assert volleys == [("Trooper 1", "Brute", 0, 1.0), ("Trooper 2", "Brute", 0, 1.0),
                       ("Brute", "Trooper 2", 1, round(46 / 27, 6))]
    assert dice.asked == ["volley"] * 3


def test_an_action_stops_when_the_battle_is_won() -> None:
    """The strike wipes out the last brute: the battle is over, and the rest of the action
    (setting a status) does not happen."""
    model = fight(brutes=1)
    node = Node.root(Rules(model, exact=True), model.get("clash")).child(0).child(1)  # Red's first unit strikes
    assert node.chance_kind() == "volley" and [p for _, p in node.chance_outcomes()] == [Fraction(1, 4), Fraction(3, 4)]
    won = node.child(1)
    assert won.is_terminal() and won.outcome().winner == 0
    assert [u.statuses for u in won.state().units] == [{}, {}, {}]
    assert node.child(0).state().units[0].statuses == {"proud": ""}  # a miss: the action goes on


def test_a_unit_that_does_nothing_with_its_activation_dice_is_not_asked_again() -> None:
    model = fight(activation="activation_rolls", dice="  activation dice 2..2 of blow(Ld), bust on 3 failures")
    node = Node.root(Rules(model, exact=True), model.get("clash"))
    assert labels(node)[0] == "unit"
    rolled = node.child(0)  # Red tries its first unit: two dice, each a success on 4+
    assert rolled.chance_kind() == "activation"
    assert [p for _, p in rolled.chance_outcomes()] == [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    two = rolled.child(2)  # two successes: two actions
    assert labels(two) == ("action", "Trooper 1", ["Charge", "Strike", "Nothing"])
    idle = two.child(2)  # it does nothing: its activation is over
    assert labels(idle)[0] == "unit" and labels(idle)[2] == ["Trooper 2", "Stop"]


def test_a_counter_stays_within_its_situations_range_and_a_lone_model_is_counted() -> None:
    text = DRILL.replace("rises by 1 when shot", "rises by 3 when shot").replace(
        '  side blue "Blue":\n    3 trooper', '  side blue "Blue":\n    1 trooper')
    result = compile_text(text, "drill.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Red wins the roll
    shot = node.child(0)  # Red's three troopers shoot at the lone Blue trooper
    missed = shot.child(0)
    assert [u.values for u in missed.state().units] == [{"suppression": 0}, {"suppression": 2}]  # 0..2: not 3


def test_an_initiative_roll_that_always_ties_keeps_the_order_even_with_rerolls() -> None:
    text = DRILL.replace("initiative each game turn: roll d6, ties swap the order",
                         "initiative each game turn: roll d1, ties reroll")
    result = compile_text(text, "drill.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel"))
    assert node.chance_kind() == "initiative" and node.chance_outcomes() == [(2, 1)]  # a tie, surely
    assert node.child(2).current_player() == 0  # nobody can win it: the scenario's first player keeps the lead


def test_a_detachment_wiped_out_before_its_activation_is_not_offered() -> None:
    """Alternating detachments with orders: the sniper's first-fire volley wipes out Blue's lone
    trooper; Blue's activation goes to its other squad, never to the dead one."""
    text = RULES.format(activation="alternating_detachments", turns=1).replace(
        'stat W "Wounds" 1..10 role wounds\n',
        'stat W "Wounds" 1..10 role wounds\nsituation order "Order" one of fire, hold\n').replace(
        '  phase fire "Shooting":\n    action shoot "Shoot": attack shooting\n',
        '  orders set order\n  phase fire "Shooting":\n    action shoot "Shoot": attack shooting\n'
        '    on fire "Fire orders": shoot\n')
    result = compile_text(text, "squads.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("clash"))
    assert labels(node)[0] == "unit" and labels(node)[2] == ["Trooper 1", "Sniper 2"]
    node = node.child(1)  # the sniper is activated
    while node.current_player() != CHANCE:  # its order (fire), then its target: the lone trooper
        choice = node.choice()
        assert choice is not None
        names = [o.label for o in choice.options]
        node = node.child(names.index("Fire orders") if "Fire orders" in names else 0)
    killed = node.child(node.legal_actions()[0])
    assert [u.models for u in killed.state().units] == [2, 1, 0, 2]
    choice = killed.choice()
    assert choice is not None and choice.side == 1
    assert (choice.kind, choice.unit) == ("order", "Trooper 2")  # its only squad left: activated, no pick


def test_a_counter_of_a_unit_wiped_out_does_not_fall_with_the_living() -> None:
    text = DRILL.replace('  side red "Red":\n    3 trooper', '  side red "Red":\n    3 trooper\n    3 trooper').replace(
        '  side blue "Blue":\n    3 trooper', '  side blue "Blue":\n    1 trooper\n    3 trooper')
    result = compile_text(text, "drill.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Red wins the roll
    node = node.child(0).child(0).child(0)  # Red's first squad shoots at the lone Blue trooper
    node = node.child(0)  # and misses: the trooper is suppressed
    assert node.state().units[2].values == {"suppression": 1}
    node = node.child(1).child(3)  # Blue's squad does nothing
    node = node.child(0).child(0)  # Red's second squad shoots at the lone trooper
    node = node.child(1)  # and kills it (marked: it still acts, at full strength)
    node = node.child(3)  # it does nothing; the phase ends (it is removed), then the game turn
    assert node.chance_kind() == "initiative" and node.state().turn == 2  # the roll for the second turn
    lone, squad = node.state().units[2:]
    assert (lone.models, lone.values) == (0, {"suppression": 1})  # gone: nothing falls for it
    assert squad.values == {"suppression": 0}


def test_a_charger_with_two_enemy_units_in_reach_chooses_which_to_engage() -> None:
    text = FIGHT.format(activation="alternating_units", brutes=1, dice="").replace(
        '  side blue "Blue":\n    1 brute', '  side blue "Blue":\n    1 brute\n    2 brute')
    result = compile_text(text, "fight.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("clash")).child(0).child(0)  # Red's first unit charges
    assert labels(node) == ("target", "Trooper 1", ["Brute 1", "Brute 2"])
    # what each is worth: 2 blows on 4+ (at most one kill against the lone brute: 3/4) less the
    # blows back (1, then 2, on 3+), a model each
    assert node.choice().estimates() == pytest.approx([3 / 4 - 2 / 3, 1 - 4 / 3], rel=1e-12)  # type: ignore[union-attr]
    engaged = node.child(1)
    red, _, lone, pair = engaged.state().units
    assert red.engaged == [pair.uid] and pair.engaged == [red.uid] and lone.engaged == []


def test_a_recorded_test_in_an_action_reports_its_rule_chance_and_result() -> None:
    result = compile_text(ARMS, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    dice = Dice([1])
    battle = Battle(Rules(model), model.get("range"), [ScriptedPolicy([1]), ScriptedPolicy([0, 2, 2])], 0, nature=dice)
    battle.run()
    tests = [{k: e[k] for k in ("rule", "unit", "chance", "passed")} for e in battle.events if e["event"] == "test"]
    assert tests == [{"rule": "nerve", "unit": "Gunner", "chance": round(21 / 36, 6), "passed": False}]
    assert not [e for e in battle.events if e["event"] == "status"]  # the failure ended the action


def test_an_action_goes_on_after_lowering_a_counter() -> None:
    text = ARMS.replace('    action rally "Rally": tests nerve(Ld), sets steady\n',
                        '    action rally "Rally": tests nerve(Ld), sets steady\n'
                        '    action regroup "Regroup": lowers suppression by 1, sets steady\n')
    result = compile_text(text, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    root = Node.root(Rules(model, exact=True), model.get("range"))
    assert labels(root) == ("action", "Gunner", ["Shoot", "Rally", "Regroup", "Nothing"])
    regrouped = root.child(2)  # nothing to lower (the counter is at its lowest): the status is still set
    assert regrouped.state().units[0].values == {"suppression": 0}
    assert regrouped.state().units[0].statuses == {"steady": ""}


def test_an_attack_that_takes_no_weapon_is_made_once_by_a_unit_with_two() -> None:
    text = ARMS.replace('attack shooting(shooter, weapon, target) "Shooting":',
                        'attack brawl(attacker, defender) "Brawl":\n'
                        '  hits = attacker.models each hit(attacker.BS)\n'
                        '  killed = hits removes defender\n'
                        'attack shooting(shooter, weapon, target) "Shooting":').replace(
        '    action shoot "Shoot": attack shooting\n', '    action shoot "Shoot": attack shooting\n'
                                                    '    action punch "Punch": attack brawl\n')
    result = compile_text(text, "arms.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    root = Node.root(Rules(model, exact=True), model.get("range"))
    assert labels(root) == ("action", "Gunner", ["Shoot", "Punch", "Rally", "Nothing"])
    assert root.choice().estimates()[:2] == [2.0, 1.0]  # type: ignore[union-attr]  # two weapons' shots; one blow
    blow = root.child(1).child(1)  # the gunner punches the squad of three: one blow, a sure hit
    assert blow.chance_kind() == "volley" and blow.chance_outcomes() == [(0, Fraction(1))]
    after = blow.child(0)
    assert after.current_player() == 1 and [u.models for u in after.state().units] == [1, 1, 2]


def test_how_many_activation_dice_to_roll_is_weighed_by_the_actions_less_a_bust() -> None:
    """Each die succeeds on 4+; two failures are a bust, which costs the unit still waiting its
    turn: the worth of n dice is the successes expected, less one for that unit on a bust."""
    model = fight(activation="activation_rolls", dice="  activation dice 1..3 of blow(Ld), bust on 2 failures")
    node = Node.root(Rules(model, exact=True), model.get("clash")).child(0)  # Red tries its first unit
    assert labels(node) == ("dice", "Trooper 1", ["1", "2", "3"])

    def worth(n: int, waiting: int = 1) -> Fraction:
        return sum((comb(n, s) * HALF ** n * (-waiting if n - s >= 2 else s) for s in range(n + 1)), Fraction(0))
    assert [worth(n) for n in (1, 2, 3)] == [Fraction(1, 2), Fraction(3, 4), Fraction(5, 8)]
    assert node.choice().estimates() == pytest.approx([float(worth(n)) for n in (1, 2, 3)], rel=1e-12)  # type: ignore[union-attr]
    from compiler.battle import GreedyPolicy
    battle = Battle(Rules(model), model.get("clash"), [GreedyPolicy(), GreedyPolicy()], 4)
    battle.run()
    assert next(e["dice"] for e in battle.events if e["event"] == "activation") == 2  # the best worth


def test_a_battle_won_in_the_first_players_turn_gives_the_second_no_turn() -> None:
    model = fight(activation="whole_army", brutes=1)
    battle = Battle(Rules(model), model.get("clash"), [ScriptedPolicy([0, 1]), ScriptedPolicy([])], 0,
                    nature=Dice([1]))
    out = battle.run()
    assert (out.winner, out.reason, out.turns) == (0, "wipe", 1)
    kinds = [(e["event"], e["side"]) for e in battle.events if e["event"] in ("turn", "volley", "end")]
    assert kinds == [("turn", "red"), ("volley", "red"), ("end", "red")]
