"""Charges with a rolled reach, close combat with the weapons that have no Range, the warlord, and
objectives scored at the end of a player's own turn — each a scripted battle whose next state,
and the exact law of each chance node on the way, is checked against a computation made here
with Fractions."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from compiler.battle import CHANCE, Battle, Choice, GreedyPolicy, Node, Rules
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset

RULES = '''
ruleset melee "Melee":
  version 1.0.0
stat M "Move" distance
stat Range "Range" distance
stat A "Attacks" 1..10
stat W "Wounds" 1..10 role wounds
status locked "Locked": "In close combat."
test hit() = roll d6 >= 4
formula charge_reach(M) = M + d6
attack strike(attacker, weapon, target) "Strike":
  attacks = attacker.models * weapon.A
  hits = attacks each hit()
  killed = hits removes target
unit trooper "Trooper":
  M 6"  W 1
  weapons rifle, blade
unit chief "Chief":
  M 6"  W 1
  weapons rifle, blade
weapon rifle "Rifle":
  Range 24"  A 1
weapon blade "Blade":
  Range -  A 2
game skirmish "Skirmish":
  turns {turns}
  activation alternating_activations
  control within 3" by models
  phase act "Activation":
    action fire "Shoot": attack strike within Range unless locked
    action charge "Charge": engage within charge_reach(M) as locked, attack strike without Range unless locked
    action fight "Fight": attack strike without Range, move up to M toward the enemy
  score held "Held": 2 for each objective held at end of {held}
  score lord "Warlord": 5 for each enemy warlord destroyed
  victory wiped "Wiped out" by annihilation
  victory ten "First to ten" by reaching 10
scenario duel "A duel":
  game skirmish
  distance {gap}"
  first red
  objective red_home "Red's objective" at 0"
  objective blue_home "Blue's objective" at {gap}"
  side red "Red":
    {red}
  side blue "Blue":
    1 chief as warlord
    {blue}
'''


def model_of(gap: int = 9, red: str = "3 trooper as warlord", blue: str = "2 trooper", held: str = "own turn",
             turns: int = 6) -> Ruleset:
    result = compile_text(RULES.format(gap=gap, red=red, blue=blue, held=held, turns=turns), "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    return result.rulesets[0]


def root(model: Ruleset) -> Node:
    return Node.root(Rules(model, exact=True), model.get("duel"))


def options(node: Node) -> list[str]:
    choice = node.choice()
    assert choice is not None
    return [o.label for o in choice.options]


def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def removed(law: list[Fraction], models: int) -> list[Fraction]:
    """The law of the models a target of ``models`` loses to ``law`` of kills (it cannot lose more)."""
    return law[:models] + [sum(law[models:], Fraction(0))]


def test_a_charge_rolls_its_reach_and_a_charge_that_lands_strikes_with_the_blades_only() -> None:
    node = root(model_of())  # Red's one unit, its troopers (its warlord), is activated
    assert options(node) == ["Shoot", "Charge", "Nothing"]  # no Fight: nobody is engaged yet
    node = node.child(1)  # Charge: both Blue units stand 9" away, within 6 + 6
    assert options(node) == ["Chief 1", "Trooper 2"]
    roll = node.child(1)  # at the Blue troopers
    assert roll.current_player() == CHANCE and roll.chance_kind() == "charge"
    assert [(roll.law().values[i], p) for i, p in roll.chance_outcomes()] == [(7 + k, Fraction(1, 6)) for k in range(6)]  # type: ignore[union-attr]

    landed = roll.child(2)  # a 9: exactly the gap, the charge lands
    red, blue = landed.state().units[0], landed.state().units[2]
    assert red.position == blue.position == 9.0
    assert red.engaged == [blue.uid] and blue.engaged == [red.uid]
    assert red.statuses == {"locked": ""} and blue.statuses == {"locked": ""}
    # three troopers strike with their blades (two attacks each), not their rifles: six dice at 4+
    assert landed.current_player() == CHANCE and landed.chance_kind() == "volley"
    assert [p for _, p in landed.chance_outcomes()] == removed(binomial(6, Fraction(1, 2)), 2)

    short = roll.child(0)  # a 7: two short; Red moves 7" toward the troopers and its action ends
    red, blue = short.state().units[0], short.state().units[2]
    assert red.position == 7.0 and not red.engaged and not blue.engaged and not red.statuses
    assert short.current_player() == 1  # Blue's activation: no volley was made


def test_a_locked_unit_may_only_fight_and_moves_on_once_its_enemy_is_destroyed() -> None:
    node = root(model_of(red="3 trooper as warlord\n    2 chief"))
    assert options(node) == ["Trooper 1", "Chief 2"]
    landed = node.child(0).child(1).child(1).child(2)  # Red's troopers charge Blue's (a 9) and land
    assert landed.state().units[0].engaged == [3]
    after = landed.child(0)  # the blades kill no one
    assert after.current_player() == 1
    blue = after.child(1)  # Blue activates its troopers (not its chief), locked with Red's
    assert options(blue) == ["Fight", "Nothing"]  # no Shoot, no Charge: the unit is locked
    fight = blue.child(0)
    # two troopers, two blade attacks each, at Red's three troopers (not at anyone else)
    law = binomial(4, Fraction(1, 2))
    assert fight.chance_kind() == "volley" and [p for _, p in fight.chance_outcomes()] == law[:3] + [law[3] + law[4]]
    held = fight.child(2)  # two of Red's three fall: still locked, Blue's troopers stay where they are
    assert held.state().units[3].position == 9.0 and held.state().units[3].engaged == [0]
    assert held.current_player() == 0 and options(held) == ["Trooper 1", "Chief 2"]  # Red's turn: no move asked
    wiped = fight.child(3)  # all three fall (Red's warlord: 5 to Blue); Blue's troopers are free and move on
    st = wiped.state()
    assert st.units[0].models == 0 and st.units[3].engaged == [] and st.units[3].statuses == {}
    assert st.scores[1] == 5.0
    assert wiped.choice() is not None and wiped.choice().kind == "move"  # type: ignore[union-attr]
    moved = wiped.child(6).state().units[3]  # 6" toward Red's chief, at Red's edge
    assert moved.position == 3.0


def test_the_enemy_warlord_scores_five_when_it_falls_and_no_other_unit_does() -> None:
    node = root(model_of(gap=20)).child(0)  # Red's troopers shoot (20": out of charge reach)
    assert options(node) == ['Chief 1 (20")', 'Trooper 2 (20")']
    at_chief = node.child(0)
    assert [p for _, p in at_chief.chance_outcomes()] == [Fraction(1, 8), Fraction(7, 8)]  # 3 shots, one model
    assert at_chief.child(1).state().scores == [5.0 + 2.0, 0.0]  # the warlord's 5, then Red's objective at turn end
    assert at_chief.child(0).state().scores == [2.0, 0.0]
    at_troopers = node.child(1)
    both = at_troopers.child(2)  # both Blue troopers fall: no points for them
    assert both.state().units[2].models == 0 and both.state().scores == [2.0, 0.0]


def test_objectives_held_at_the_end_of_an_own_turn_score_for_that_player_alone() -> None:
    """Both sides hold their own objective and never fight (each does nothing): with scoring at the
    end of each player's own turn, Red, who goes first, reaches 10 at its fifth turn while Blue
    has 8; scored together at the end of each game turn, both reach 10 together: a draw."""
    for held, winner, scores in (("own turn", 0, (10.0, 8.0)), ("game turn", None, (10.0, 10.0))):
        model = model_of(gap=40, held=held, turns=10)
        out = Battle(Rules(model), model.get("duel"), [Idle(), Idle()], seed=1).run()
        assert (out.winner, out.scores, out.turns, out.reason) == (winner, scores, 5, "ten")


class Idle:
    """Activates its first unit, which does nothing."""

    def choose(self, choice: Choice) -> int:
        return len(choice.options) - 1 if choice.kind == "action" else 0


@pytest.mark.parametrize("line, code, column, said", [
    ('    action hold "Hold": attack strike without Range', "W861", 25, "never engages"),
])
def test_check_refuses_a_close_combat_attack_in_a_game_that_never_engages(line: str, code: str, column: int,
                                                                          said: str) -> None:
    text = RULES.format(gap=9, red="3 trooper as warlord", blue="2 trooper", held="own turn", turns=4)
    text = text.replace('''    action charge "Charge": engage within charge_reach(M) as locked, attack strike without Range unless locked
    action fight "Fight": attack strike without Range, move up to M toward the enemy
''', line + "\n")
    result = compile_text(text, "melee.rules")
    errors = [d for d in result.diagnostics if d.is_error]
    assert [(d.code, d.span.line, d.span.column) for d in errors] == [(code, text.splitlines().index(line) + 1, column)]
    assert said in errors[0].message


def test_check_refuses_misused_warlords_own_turns_and_close_combat_reactions() -> None:
    base = RULES.format(gap=9, red="3 trooper as warlord", blue="2 trooper", held="own turn", turns=4)
    cases = [
        (base.replace("    1 chief as warlord\n", "    1 chief\n"), "W861", "side 'blue' names no warlord"),
        (base.replace("    2 trooper\n", "    2 trooper as warlord\n"), "W864", "names a second warlord"),
        (base.replace("alternating_activations", "alternating_units"), "W863", "no player has an own turn"),
        (base.replace("  victory wiped", "  when charged: attack strike without Range\n  victory wiped"), "W863",
         "a reaction to a charge comes before the engagement"),
    ]
    for text, code, said in cases:
        result = compile_text(text, "melee.rules")
        errors = [d for d in result.diagnostics if d.is_error]
        assert len(errors) == 1 and errors[0].code == code and said in errors[0].message, errors
        assert errors[0].span.line > 0 and errors[0].span.column > 0


def test_a_simulation_with_charges_and_fights_plays_greedy_games_to_their_end() -> None:
    text = RULES.format(gap=10, red="5 trooper as warlord", blue="5 trooper", held="own turn", turns=6)
    result = compile_text(text.replace('Range 24"', 'Range 6"'), "melee.rules")  # rifles out of reach: charge
    assert result.ok
    model = result.rulesets[0]
    rules = Rules(model)
    engaged = 0
    for seed in range(20):
        battle = Battle(rules, model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        battle.run()
        rolls = [e for e in battle.events if e["event"] == "charge_roll"]
        for r in rolls:
            landed = r["rolled"] >= r["distance"]
            nxt = battle.events[battle.events.index(r) + 1]
            assert (nxt["event"] == "engage") == landed
        engaged += sum(1 for e in battle.events if e["event"] == "engage")
        for e in battle.events:
            if e["event"] == "volley" and e["weapon"] == "blade":
                assert e["distance"] == 0  # blades strike only in contact
    assert engaged > 0


def test_a_unit_that_falls_back_takes_the_attack_of_each_enemy_it_leaves_then_goes_free() -> None:
    text = RULES.format(gap=9, red="3 trooper as warlord", blue='2 trooper at 5"', held="own turn", turns=4)
    text = text.replace('  score held', '    action back "Fall back": move up to M away from the enemy\n'
                        '  when left: attack strike without Range\n  score held')
    result = compile_text(text, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    node = root(result.rulesets[0]).child(1)  # Red's troopers charge
    assert options(node) == ["Chief 1", "Trooper 2"]
    roll = node.child(1)  # the Blue troopers, 5" away: every roll of 6 + d6 lands
    landed = roll.child(0).child(0)  # a 7; the blades kill no one
    blue = landed.child(1)  # Blue's troopers, locked
    assert options(blue) == ["Fight", "Fall back", "Nothing"]
    react = blue.child(1)  # they fall back: Red's troopers may strike first
    assert react.choice() is not None and react.choice().kind == "react"  # type: ignore[union-attr]
    assert react.current_player() == 0 and options(react) == ["Yes", "No"]
    strike = react.child(0)  # three troopers, six blade attacks at the two leaving, still in contact
    assert strike.chance_kind() == "volley"
    assert [p for _, p in strike.chance_outcomes()] == removed(binomial(6, Fraction(1, 2)), 2)
    one = strike.child(1)  # one falls; the other is let go and moves off toward its own edge
    st = one.state()
    assert st.units[2].models == 1 and st.units[2].engaged == [] and st.units[0].engaged == []
    assert st.units[0].statuses == {} and st.units[2].statuses == {}
    assert one.choice() is not None and one.choice().kind == "move"  # type: ignore[union-attr]
    assert one.child(4).state().units[2].position == 9.0  # 4" away, to Blue's edge
    declined = react.child(1)  # Red lets them go: no volley, straight to the move
    assert declined.choice() is not None and declined.choice().kind == "move"  # type: ignore[union-attr]
    both = strike.child(2)  # both fall to the attack of opportunity: no move is left to make
    assert both.state().units[2].models == 0 and both.current_player() == 0


def test_a_unit_that_disengages_takes_the_attack_of_each_enemy_it_leaves_as_one_that_moves_off() -> None:
    """`disengages` is leaving the melee too: the enemy answers (`when left`) before the break."""
    text = RULES.format(gap=9, red="3 trooper as warlord", blue='2 trooper at 5"', held="own turn", turns=4)
    text = text.replace('  score held', '    action back "Break off": disengages, move up to M away from the enemy\n'
                        '  when left: attack strike without Range\n  score held')
    result = compile_text(text, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    blue = root(result.rulesets[0]).child(1).child(1).child(0).child(0).child(1)  # charged, locked, as above
    assert options(blue) == ["Fight", "Break off", "Nothing"]
    react = blue.child(1)  # they break off: Red's troopers may strike first, still in contact
    assert react.choice() is not None and react.choice().kind == "react"  # type: ignore[union-attr]
    assert react.current_player() == 0 and options(react) == ["Yes", "No"]
    strike = react.child(0)
    assert strike.chance_kind() == "volley"
    assert [p for _, p in strike.chance_outcomes()] == removed(binomial(6, Fraction(1, 2)), 2)
    one = strike.child(1)  # one falls; the other breaks off and moves
    assert one.state().units[2].engaged == [] and one.state().units[0].engaged == []
    assert one.choice() is not None and one.choice().kind == "move"  # type: ignore[union-attr]
    assert strike.child(2).state().units[2].models == 0  # both fall: nothing is left to break off


def test_a_weapon_rests_after_firing_for_its_cooldown_counted_in_its_players_turns() -> None:
    """Cooldown 1: the rifle fires in Red's first turn, may not in its second (the volley's
    weapons leave it out, so Shoot is not offered), and fires again in its third."""
    text = RULES.format(gap=20, red="3 trooper as warlord", blue="2 trooper", held="own turn", turns=4)
    text = text.replace("game skirmish", 'ability cooldown(N: 0..3) "Cooldown": "Rests N turns after firing."\n'
                        "game skirmish", 1).replace("  control within", "  weapons rest after firing by cooldown\n"
                                                    "  control within", 1)
    text = text.replace('  Range 24"  A 1', '  Range 24"  A 1\n  abilities cooldown(1)')
    result = compile_text(text, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    node = root(result.rulesets[0])
    assert options(node) == ["Shoot", "Charge", "Nothing"]
    fired = node.child(0).child(1).child(0)  # at Blue's troopers; nobody falls
    assert fired.state().units[0].resting() == ("rifle",)
    blue_idle = fired.child(0)  # Blue activates its chief, which does nothing ...
    red_again = blue_idle.child(len(options(blue_idle)) - 1)
    assert red_again.state().turn == 2 and options(red_again) == ["Charge", "Nothing"]  # the rifle rests
    waited = red_again.child(1)  # Red waits; Blue again does nothing
    waited = waited.child(0)
    waited = waited.child(len(options(waited)) - 1)
    assert waited.state().turn == 3 and waited.state().units[0].resting() == ()
    assert options(waited) == ["Shoot", "Charge", "Nothing"]  # its turn of rest is over


def test_check_refuses_weapons_resting_by_an_ability_without_a_value_or_without_own_turns() -> None:
    base = RULES.format(gap=9, red="3 trooper as warlord", blue="2 trooper", held="game turn", turns=4)
    rest = base.replace("  control within", "  weapons rest after firing by {name}\n  control within", 1)
    cases = [(rest.format(name="steady") .replace("game skirmish", 'ability steady "Steady": "No value."\ngame skirmish', 1),
              "W863", "has no value"),
             (rest.format(name="cooldwn"), "W101", "unknown ability 'cooldwn'"),
             (rest.format(name="cooldown").replace("game skirmish", 'ability cooldown(N: 0..3) "Cooldown": "c"\n'
                                                   "game skirmish", 1).replace("alternating_activations",
                                                                               "alternating_units"),
              "W863", "no turns of its player")]
    for text, code, said in cases:
        result = compile_text(text, "melee.rules")
        errors = [d for d in result.diagnostics if d.is_error]
        assert len(errors) == 1 and errors[0].code == code and said in errors[0].message, errors
        assert errors[0].span.line == text.splitlines().index(next(
            line for line in text.splitlines() if line.startswith("  weapons rest"))) + 1


def test_only_the_resting_ability_sets_how_long_a_weapon_rests() -> None:
    """A rifle with ``cooldown(1)`` and another valued ability (``heavy(2)``) rests one turn; the
    blade without cooldown never rests."""
    from compiler.battle.turns import rest_turns
    text = RULES.format(gap=20, red="3 trooper as warlord", blue="2 trooper", held="own turn", turns=4)
    text = text.replace("game skirmish", 'ability cooldown(N: 0..3) "Cooldown": "Rests N turns after firing."\n'
                        'ability heavy(N: 0..3) "Heavy": "Hard to carry."\n'
                        "game skirmish", 1).replace("  control within", "  weapons rest after firing by cooldown\n"
                                                    "  control within", 1)
    text = text.replace('  Range 24"  A 1', '  Range 24"  A 1\n  abilities cooldown(1), heavy(2)')
    result = compile_text(text, "melee.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    assert rest_turns(Rules(model), model.get("skirmish")) == {"rifle": 1}
