"""Turn structures: the initiative each game turn, `must` actions, statuses until a test is
passed, casualties removed at the end of the phase — each checked on the game tree (the exact
law of each chance node, the options of each choice) and on the state before and after."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from compiler.battle import CHANCE, Battle, GreedyPolicy, Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset turns "Turns":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test rally(Ld) = roll 2d6 <= Ld
status pinned "Pinned": "Flat on the ground."
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  Ld 7  W 1
game {game} "A game":
  turns 2
  activation {activation}
{extra}
  phase fire "Shooting":
    {shoot}
    action duck "Go to ground": sets pinned until passed rally(Ld)
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game {game}
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    2 trooper
'''


def model_of(extra: str = "", activation: str = "whole_army", shoot: str = 'action shoot "Shoot": attack shooting'):  # type: ignore[no-untyped-def]
    result = compile_text(RULES.format(game="g", activation=activation, extra=extra, shoot=shoot), "turns.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def root(model) -> Node:  # type: ignore[no-untyped-def]
    return Node.root(Rules(model, exact=True), model.get("duel"))


def test_the_initiative_is_a_chance_node_each_game_turn_with_the_exact_law_of_the_rolls() -> None:
    for ties, law in (("keep the order", (Fraction(15, 36), Fraction(15, 36), Fraction(6, 36))),
                      ("swap the order", (Fraction(15, 36), Fraction(15, 36), Fraction(6, 36))),
                      ("reroll", (Fraction(1, 2), Fraction(1, 2)))):
        node = root(model_of(f"  initiative each game turn: roll d6, ties {ties}"))
        assert node.current_player() == CHANCE and node.chance_kind() == "initiative"
        assert [p for _, p in node.chance_outcomes()] == list(law)
        assert node.child(1).current_player() == 1  # the second side (Blue) rolled higher: it acts first
        assert node.child(0).current_player() == 0
        if ties != "reroll":  # a tie on the first turn: the scenario's order kept (Red), or swapped (Blue)
            assert node.child(2).current_player() == (0 if ties == "keep the order" else 1)


def test_a_must_action_takes_away_doing_nothing() -> None:
    free = root(model_of())
    assert [o.label for o in free.choice().options] == ["Shoot", "Go to ground", "Nothing"]  # type: ignore[union-attr]
    forced = root(model_of(shoot='must action shoot "Shoot": attack shooting'))
    assert [o.label for o in forced.choice().options] == ["Shoot", "Go to ground"]  # type: ignore[union-attr]


def test_a_status_until_passed_is_tested_each_time_the_unit_is_about_to_act() -> None:
    node = root(model_of())
    ducked = node.child(1)  # Red goes to ground
    red = ducked.state().units[0]
    assert red.statuses == {"pinned": "passed"} and list(red.until) == ["pinned"]
    # Blue's turn: Blue does nothing; then, in game turn 2, Red tests rally(Ld 7) before acting
    at = ducked.child(2)
    assert at.current_player() == CHANCE and at.chance_kind() == "test"
    assert [p for _, p in at.chance_outcomes()] == [Fraction(21, 36), Fraction(15, 36)]  # 2d6 <= 7
    passed, failed = at.child(0), at.child(1)
    assert passed.state().units[0].statuses == {} and passed.state().units[0].until == {}
    assert failed.state().units[0].statuses == {"pinned": "passed"}
    assert passed.current_player() == 0 and failed.current_player() == 0  # either way Red then acts


def test_casualties_removed_at_the_end_of_the_phase_leave_the_unit_at_full_strength_until_then() -> None:
    model = model_of("  casualties removed at end of phase", activation="alternating_units")
    node = root(model)
    shot = node.child(0)  # Red's three troopers shoot at Blue
    assert [p for _, p in shot.chance_outcomes()] == [Fraction(1, 8), Fraction(3, 8), Fraction(1, 2)]
    # 0 or 1 killed; 2 or 3 hits kill the 2 there are
    one = shot.child(1)  # one Blue trooper falls: marked, not removed
    blue = one.state().units[1]
    assert (blue.models, blue.doomed) == (2, 1)
    back = one.child(0)  # Blue shoots back with both troopers (full strength): 0..2 of Red killed
    assert back.chance_kind() == "volley" and len(back.chance_outcomes()) == 3
    assert [p for _, p in back.chance_outcomes()] == [comb(2, k) * Fraction(1, 2) ** 2 for k in range(3)]
    end = back.child(2)  # two of Red fall; the phase ends: both sides' casualties go
    red, blue = end.state().units
    assert (red.models, red.doomed, blue.models, blue.doomed) == (1, 0, 1, 0)


def test_casualties_at_the_end_of_the_phase_are_removed_in_a_simulation_too() -> None:
    model = model_of("  casualties removed at end of phase", activation="alternating_units")
    rules = Rules(model)
    for seed in range(30):
        battle = Battle(rules, model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        battle.run()
        assert all(u.doomed == 0 for u in battle.state.units)
        removed = [e for e in battle.events if e["event"] == "removed"]
        volleys = [e for e in battle.events if e["event"] == "volley"]
        assert sum(e["removed"] for e in removed) == sum(e["removed"] for e in volleys)


@pytest.mark.parametrize("extra,message", [
    ("  initiative each game turn: roll d6, ties reroll", "rolls for the initiative between two players"),
])
def test_an_initiative_needs_two_sides(extra: str, message: str) -> None:
    source = RULES.format(game="g", activation="whole_army", extra=extra,
                          shoot='action shoot "Shoot": attack shooting').replace(
        '  side blue "Blue":\n    2 trooper\n', '  side blue "Blue":\n    2 trooper\n  side green "Green":\n    1 trooper\n')
    result = compile_text(source, "turns.rules")
    assert any(message in d.message and d.code == "W864" for d in result.diagnostics)


COUNTED = '''
ruleset counted "Counted":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
situation suppression "Suppression" 0..2
test hit(BS) = roll d6 >= BS + suppression
attack shooting(shooter, target) "Shooting":
  shots = shooter.models
  hits = shots each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 3  W 1
game g "A game":
  turns 3
  activation whole_army
  counter suppression: rises by 1 when shot, falls by 1 at end of game turn
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
    action rally "Rally": lowers suppression by 2
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


def test_a_counter_rises_when_shot_is_read_by_the_rules_and_falls_at_the_end_of_the_period() -> None:
    from compiler.model.values import ProfileRef
    from compiler.resolve import Evaluator, parse_expression
    result = compile_text(COUNTED, "counted.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel"))
    assert [u.values for u in node.state().units] == [{"suppression": 0}, {"suppression": 0}]
    shot = node.child(0).child(0)  # Red shoots; no Blue trooper falls
    assert [u.values["suppression"] for u in shot.state().units] == [0, 1]

    def law(shooters: int, suppression: int) -> list[Fraction]:
        ev = Evaluator(model, exact=True, situation={"suppression": suppression})
        steps = ev.evaluate(parse_expression("shooting(a, b)"),
                            {"a": ProfileRef("trooper", shooters), "b": ProfileRef("trooper", 3)}).steps
        return [p for _, p in sorted(steps.removal_state("killed").items())]
    back = shot.child(0)  # Blue, suppressed, shoots back: it hits on 4+, not 3+
    assert [p for _, p in back.chance_outcomes()] == law(4, 1) != law(4, 0)
    end = back.child(0)  # nobody falls; the game turn ends: Blue's counter falls, Red's (shot once) too
    assert [u.values["suppression"] for u in end.state().units] == [0, 0]
    rallied = shot.child(1)  # Blue rallies instead: down by 2, not below 0
    assert [u.values["suppression"] for u in rallied.state().units] == [0, 0]


def test_a_counter_must_be_a_numeric_situation() -> None:
    bad = COUNTED.replace('situation suppression "Suppression" 0..2', 'situation suppression "Suppression"')
    result = compile_text(bad, "counted.rules")
    assert any(d.code == "W863" and "'suppression' is not a numeric situation" in d.message for d in result.diagnostics)


REACTING = '''
ruleset reacting "Reacting":
  version 1.0.0
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test steady(Ld) = roll 2d6 <= Ld
status on_overwatch "On overwatch": "Watching."
status moved "Moved": "It moved this turn."
status locked "Locked": "In combat."
status braced "Braced": "Ready for the charge."
status held "Held": "Stood still."
unit trooper "Trooper":
  Ld 7  W 1
game g "A game":
  turns 1
  activation alternating_units
  phase orders "Orders":
    action watch "Overwatch": sets on_overwatch
    action dash "Dash": sets on_overwatch, sets moved until end of turn
  phase assault "Assault":
    action charge "Charge": engage within 24" as locked
    action hold "Hold": sets held until end of turn
  when charged if on_overwatch unless moved, spending its action on a failure: tests steady(Ld), sets braced until end of turn
scenario duel "A duel":
  game g
  distance 12"
  first red
  side red "Red":
    1 trooper
  side blue "Blue":
    1 trooper
'''


def test_a_reaction_barred_by_what_the_unit_did_and_a_failed_test_that_spends_its_action() -> None:
    result = compile_text(REACTING, "reacting.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    root = Node.root(Rules(model, exact=True), model.get("duel"))
    watching = root.child(2).child(0)  # Red does nothing; Blue goes on overwatch
    charged = watching.child(0)  # Red charges: Blue may react
    choice = charged.choice()
    assert choice is not None and choice.kind == "react" and choice.side == 1
    test = charged.child(0)  # it does: the steady test, 2d6 <= 7
    assert test.chance_kind() == "test" and [p for _, p in test.chance_outcomes()] == [Fraction(7, 12), Fraction(5, 12)]
    passed, failed = test.child(0), test.child(1)
    assert passed.state().units[1].statuses.get("braced") == "turn" and not passed.state().units[1].spent
    assert passed.current_player() == 1  # Blue still acts in the assault phase
    assert failed.state().units[1].spent and failed.is_terminal()  # a failure spent its action
    dashed = root.child(2).child(1).child(0)  # Blue dashed (on overwatch, but it moved): no reaction
    assert dashed.choice() is not None and dashed.choice().kind == "action" and dashed.current_player() == 1  # type: ignore[union-attr]


def test_a_counter_rising_by_a_sure_amount_that_is_no_literal_is_no_chance_node() -> None:
    """``rises by BS - 2`` (1 for these troopers): worked out for the unit, sure, so Red's volley is
    followed by no roll for the counter: Blue's counter is 1 at once, and Blue's choice comes next."""
    result = compile_text(COUNTED.replace("rises by 1 when shot", "rises by BS - 2 when shot"), "counted.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    shot = Node.root(Rules(model, exact=True), model.get("duel")).child(0).child(0)  # Red shoots; nobody falls
    assert not shot.is_chance_node() and shot.choice() is not None
    assert [u.values["suppression"] for u in shot.state().units] == [0, 1]


def test_a_status_ended_otherwise_is_no_longer_tested_for() -> None:
    """Pinned ``until passed rally(Ld)``, then cleared by something else: when the unit is next
    about to act, no rally test is taken (no chance drawn), and the test is forgotten."""
    from compiler.battle import Battle, GreedyPolicy
    from compiler.battle.turns import rally
    model = model_of()
    duck = model.get("g").phases[0].actions[1].effects[0]
    assert duck.kind == "sets" and duck.until is not None
    battle = Battle(Rules(model), model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    unit = battle.state.units[0]
    unit.until = {"pinned": duck.until}
    rally(battle, unit)
    assert unit.until == {} and unit.statuses == {}
    assert not [e for e in battle.events if e["event"] == "test"]


def test_a_value_taken_at_the_end_of_a_turn_that_is_sure_is_reported_with_chance_one() -> None:
    """``takes mood(Ld)``: Ld 7 troopers are surely "steady" (no chance node); the log reports the
    value with its chance, 1, and the case for "shaken" never applies."""
    from compiler.battle import Battle, GreedyPolicy
    text = RULES.format(game="g", activation="whole_army", extra="", shoot='action shoot "Shoot": attack shooting')
    text = text.replace('attack shooting(', 'formula mood(Ld) "Mood" = if Ld > 5 then "steady" else "shaken"\n'
                        'attack shooting(').replace(
        '  victory wipe', '  at end of turn: each unit takes mood(Ld)\n    on "shaken": sets pinned until end of turn\n'
        '  victory wipe').replace('    2 trooper', '    9 trooper')  # Blue lives through the first turn
    result = compile_text(text, "turns.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    taken = [(e["result"], e["chance"]) for e in battle.events if e["event"] == "test" and e["rule"] == "mood"]
    assert taken and set(taken) == {("steady", 1.0)}


def test_a_value_taken_at_the_end_of_a_turn_is_reported_with_its_chance_to_six_places() -> None:
    """``takes mood(Ld)`` with a die in it: "steady" on a 5 or 6 beside Ld 7, a chance of 1/3; the
    log reports each value drawn with its chance rounded to six places, as every chance it prints."""
    from fractions import Fraction

    from compiler.battle import Battle, GreedyPolicy
    text = RULES.format(game="g", activation="whole_army", extra="", shoot='action shoot "Shoot": attack shooting')
    text = text.replace('attack shooting(', 'formula mood(Ld) "Mood" = if d6 + Ld > 11 then "steady" else "shaken"\n'
                        'attack shooting(').replace(
        '  victory wipe', '  at end of turn: each unit takes mood(Ld)\n    on "shaken": sets pinned until end of turn\n'
        '  victory wipe').replace('    2 trooper', '    9 trooper')
    result = compile_text(text, "turns.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    taken = {(e["result"], e["chance"]) for e in battle.events if e["event"] == "test" and e["rule"] == "mood"}
    assert taken and taken <= {("steady", round(float(Fraction(1, 3)), 6)), ("shaken", round(float(Fraction(2, 3)), 6))}


def test_a_counter_lowered_by_a_roll_of_two_faces_is_a_chance_node_of_both() -> None:
    """``lowers suppression by d2``: Blue, suppressed 1, rallies: a roll of 1 or 2, even odds,
    either way down to 0 (its lowest)."""
    result = compile_text(COUNTED.replace("lowers suppression by 2", "lowers suppression by d2"), "counted.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    rallied = Node.root(Rules(model, exact=True), model.get("duel")).child(0).child(0).child(1)
    assert rallied.is_chance_node() and rallied.chance_kind() == "counter"
    assert rallied.chance_outcomes() == [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
    assert [rallied.child(k).state().units[1].values["suppression"] for k in (0, 1)] == [0, 0]


def test_a_players_turn_ending_cools_only_that_players_resting_weapons() -> None:
    """``weapons rest after firing``: at the end of Red's turn Red's resting weapons have one turn
    fewer to wait (one with a turn left is ready again); Blue's keep theirs."""
    from compiler.battle.state import REST, State, Unit
    from compiler.battle.turns import cool_down
    red = Unit(0, 0, "Red", "trooper", ("gun", "cannon"), 2, 2, 0, 0.0, values={REST + "gun": 1, REST + "cannon": 3, "pins": 1})
    blue = Unit(1, 1, "Blue", "trooper", ("gun",), 2, 2, 0, 9.0, values={REST + "gun": 2})
    st = State([red, blue], ("red", "blue"), ("Red", "Blue"))
    st.active = 0
    cool_down(st)
    assert red.values == {REST + "cannon": 2, "pins": 1} and red.resting() == ("cannon",)
    assert blue.values == {REST + "gun": 2}
