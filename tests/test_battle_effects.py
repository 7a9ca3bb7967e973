"""Each action effect and status on a scripted battle: the state before and after, the next
node, on the one-line battlefield (the game tree plays every answer given to it)."""
from __future__ import annotations

from fractions import Fraction

import pytest

from compiler.battle import CHANCE, EFFECTS, Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset effects "Effects":
  version 1.0.0
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
stat I "Initiative" 1..10
test nerve(Ld) = roll 2d6 <= Ld
status locked "Locked": "In combat."
status watching "Watching": "On overwatch."
status charging "Charging": "It charged this turn."
attack brawl(attacker, defender) "Brawl":
  blows = attacker.models
  hits = blows each nerve(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  Ld 7  W 1  I 3
unit brute "Brute":
  Ld 5  W 1  I 5
game g "A game":
  turns 2
  activation whole_army
  phase move "Movement":
    action advance "Advance": move up to 4" toward the enemy unless locked
  phase orders "Orders":
    action watch "Watch": sets watching
    action stop "Stop watching": clears watching
    action charge "Charge": engage within 6" as locked, sets charging until end of turn unless locked
  phase fight "Fight":
    combat brawl in order of I
  at end of game turn: each unit with models < started tests nerve(Ld), failing: destroyed
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game g
  distance 8"
  first red
  side red "Red":
    2 trooper
  side blue "Blue":
    2 brute
'''


@pytest.fixture(scope="module")
def root() -> Node:
    result = compile_text(RULES, "effects.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("duel"))


def test_move_closes_in_by_the_inches_chosen(root: Node) -> None:
    assert [o.label for o in root.choice().options] == ["Advance", "Nothing"]  # type: ignore[union-attr]
    how_far = root.child(0)
    assert [o.label for o in how_far.choice().options] == ['0"', '1"', '2"', '3"', '4"']  # type: ignore[union-attr]
    for inches in range(5):
        red, blue = how_far.child(inches).state().units
        assert (red.position, blue.position) == (float(inches), 8.0)


def test_sets_and_clears_a_status(root: Node) -> None:
    orders = root.child(1)  # Red stays: its orders phase
    assert [o.label for o in orders.choice().options] == ["Watch", "Stop watching", "Charge", "Nothing"]  # type: ignore[union-attr]
    watching = orders.child(0)
    assert watching.state().units[0].statuses == {"watching": ""}
    assert orders.child(1).state().units[0].statuses == {}  # clearing what it does not hold: nothing changes


def test_engage_locks_both_units_together_where_the_target_stands(root: Node) -> None:
    closer = root.child(0).child(4)  # Red advances 4": 4" away, within 6"
    charge = closer.child(2)
    red, blue = charge.state().units
    assert red.engaged == [blue.uid] and blue.engaged == [red.uid]
    assert red.statuses == {"locked": "", "charging": "turn"} and blue.statuses == {"locked": ""}
    assert red.position == blue.position == 8.0
    # then the fight: the brutes (I 5) strike first, a chance node of their blows' exact law
    fight = charge
    assert fight.current_player() == CHANCE and fight.chance_kind() == "volley"
    p = Fraction(10, 36)  # 2d6 <= 5
    assert [q for _, q in fight.chance_outcomes()] == [(1 - p) ** 2, 2 * p * (1 - p), p ** 2]
    far = root.child(1).child(2)  # Red stays 8" away and charges: nobody within 6", nothing happens
    red, blue = far.state().units
    assert (red.statuses, red.engaged, red.position) == ({}, [], 0.0)


def test_a_failed_end_of_turn_test_destroys_the_unit(root: Node) -> None:
    node = root.child(0).child(4).child(2)  # Red charges; the fight begins
    node = node.child(1)  # the brutes kill one trooper
    assert node.state().units[0].models == 1
    node = node.child(0)  # the last trooper strikes back: no kill
    # the rest of the turn is Blue's; find the end-of-turn test by answering "do nothing" / the first outcome
    seen = []
    while node.current_player() != CHANCE or node.chance_kind() != "test":
        seen.append(node.current_player())
        node = node.child(node.legal_actions()[-1] if node.current_player() != CHANCE else 0)
    red = node.state().units[0]
    assert red.models < red.started  # the wounded side tests
    assert [q for _, q in node.chance_outcomes()] == [Fraction(21, 36), Fraction(15, 36)]  # 2d6 <= 7
    failed = node.child(1)
    assert failed.state().units[0].models == 0 and failed.is_terminal()
    assert failed.outcome().winner == 1 and failed.outcome().reason == "wipe"


def test_every_effect_the_language_builds_is_registered_with_its_docstring() -> None:
    assert set(EFFECTS) == {"move", "attack", "engage", "sets", "destroyed", "tests", "clears", "lowers", "disengage"}
    assert all((fn.__doc__ or "").strip() for fn in EFFECTS.values())


def test_a_status_until_the_end_of_the_turn_lapses_then_and_an_engagement_lasts(root: Node) -> None:
    fight = root.child(0).child(4).child(2)  # Red advances 4" and charges: the brutes strike first
    calm = fight.child(0).child(0)  # nobody falls on either side; Red's turn ends
    assert calm.current_player() == 1 and calm.choice().kind == "action"  # type: ignore[union-attr]
    state = calm.state()
    assert state.snapshot() == {"turn": 1, "active": "blue", "units": [
        {"unit": "Trooper", "models": 2, "wounds": 0, "position": 8.0, "y": 0.0, "statuses": ["locked"], "engaged": [1]},
        {"unit": "Brute", "models": 2, "wounds": 0, "position": 8.0, "y": 0.0, "statuses": ["locked"], "engaged": [0]}]}
    copy = state.copy()
    copy.units[0].statuses.clear()
    copy.units[1].engaged.clear()
    assert copy.snapshot() != state.snapshot() and state.units[0].statuses == {"locked": ""}


def test_a_unit_wiped_out_leaves_its_engagement_and_its_foe_is_free(root: Node) -> None:
    fight = root.child(0).child(4).child(2)
    assert [p for _, p in fight.chance_outcomes()] == [Fraction(169, 324), Fraction(65, 162), Fraction(25, 324)]
    wiped = fight.child(2)  # both troopers fall to the brutes' blows
    red, blue = wiped.state().units
    assert (red.models, red.wounds, red.statuses, red.engaged) == (0, 0, {}, [])
    assert (blue.models, blue.statuses, blue.engaged) == (2, {}, [])  # no longer locked with anyone
    assert wiped.is_terminal() and wiped.outcome().winner == 1


LAST = '''
ruleset last "Last stand":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit sniper "Sniper":
  BS 1  W 1
game g "A game":
  turns 1
  activation whole_army
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  phase move "Movement":
    action advance "Advance": move up to 4" toward the enemy
  score kills "Kills": 1 for each enemy unit destroyed
  victory most "Most points" by highest_score
scenario duel "A duel":
  game g
  distance 8"
  first red
  side red "Red":
    2 sniper
  side blue "Blue":
    1 sniper
'''


def test_with_no_enemy_left_a_move_does_nothing() -> None:
    """A game that is not won by annihilation plays on after one side is wiped out: a move
    toward the enemy finds none, and stays where it is."""
    result = compile_text(LAST, "last.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Red shoots: the lone sniper falls
    node = node.child(node.legal_actions()[0])
    assert [u.models for u in node.state().units] == [2, 0] and not node.is_terminal()
    assert [o.label for o in node.choice().options] == ["Advance", "Nothing"]  # type: ignore[union-attr]
    end = node.child(0)  # no enemy to move toward (an action that also attacked would not be offered)
    assert end.is_terminal() and end.state().units[0].position == 0.0
    assert (end.outcome().winner, end.outcome().reason, end.outcome().scores) == (0, "most", (1.0, 0.0))


OVERWATCH = '''
ruleset overwatch "Overwatch":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat M "Move" 0..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
status on_overwatch "On overwatch": "Watching."
status locked "Locked": "In combat."
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  M 0  W 1
game g "A game":
  turns 1
  activation alternating_units
  phase move "Movement":
    action advance "Advance": move up to M toward the enemy
  phase orders "Orders":
    action watch "Overwatch": sets on_overwatch
  phase assault "Assault":
    action charge "Charge": engage within 12" as locked
  when charged if on_overwatch: attack shooting
scenario clash "A clash":
  game g
  distance 6"
  first red
  side red "Red":
    1 trooper
    1 trooper
  side blue "Blue":
    3 trooper
'''


def test_a_charger_shot_down_by_overwatch_engages_nobody() -> None:
    result = compile_text(OVERWATCH, "overwatch.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("clash"))
    # the movement phase: a move of up to 0" is no choice at all; each unit is only asked whether to advance
    node = node.child(0).child(0)  # Red's first trooper advances (0")
    assert node.choice().kind == "action" and node.state().units[0].position == 0.0  # type: ignore[union-attr]
    node = node.child(1).child(1)  # Blue, then Red's second trooper, stay
    node = node.child(0).child(1).child(0).child(1)  # orders: Red's first waits, Blue watches, Red's second waits
    assert node.state().units[2].statuses == {"on_overwatch": ""}
    charge = node.child(0).child(0)  # Red's first trooper charges the watching squad
    assert charge.choice().kind == "react"  # type: ignore[union-attr]
    volley = charge.child(0)  # it reacts: three shots at the lone charger
    assert [p for _, p in volley.chance_outcomes()] == [Fraction(1, 8), Fraction(7, 8)]
    shot = volley.child(1)
    red, _, blue = shot.state().units
    assert red.models == 0 and (blue.statuses, blue.engaged) == ({"on_overwatch": ""}, [])
    assert shot.choice().kind == "action" and shot.current_player() == 1  # type: ignore[union-attr]


def test_a_rolled_move_toward_the_enemy_offers_each_inch_up_to_the_roll() -> None:
    """``move up to (d6 - 3) toward the enemy``: the roll, six even outcomes, is the most inches;
    its side then picks 0" up to it (and the unit goes that far); a roll of 0 or less moves it
    nowhere, asking nothing (Red's orders come next)."""
    result = compile_text(RULES.replace('move up to 4" toward', 'move up to (d6 - 3) toward'), "effects.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Advance
    law = node.law()
    assert node.chance_kind() == "move" and law is not None and law.values == (-2, -1, 0, 1, 2, 3)
    for i, most in enumerate(law.values):
        after = node.child(i)
        choice = after.choice()
        assert choice is not None
        if most > 0:
            assert choice.kind == "move" and [o.label for o in choice.options] == [f'{d}"' for d in range(most + 1)]
            assert [after.child(d).state().units[0].position for d in range(most + 1)] == [float(d) for d in range(most + 1)]
        else:
            assert choice.kind == "action" and after.state().units[0].position == 0.0 and after.state().phase == "orders"


def test_a_move_whose_length_works_out_below_nothing_goes_nowhere_and_asks_nothing() -> None:
    """``move up to I - 5 toward the enemy``: Red's troopers (I 3) may move no inches at all — no
    choice of how far, Red where it stood, its orders next."""
    result = compile_text(RULES.replace('move up to 4" toward', 'move up to I - 5 toward'), "effects.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    after = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Advance
    choice = after.choice()
    assert choice is not None and choice.kind == "action" and after.state().phase == "orders"
    assert after.state().units[0].position == 0.0


PICKY = RULES.replace('    action stop "Stop watching": clears watching\n',
                      '    action stop "Stop watching": clears watching\n'
                      '    action snipe "Snipe": attack brawl at enemies not watching\n'
                      '    action flee "Break off": disengages\n')


def _battle_of(text: str):  # type: ignore[no-untyped-def]
    from compiler.battle import Battle, GreedyPolicy
    result = compile_text(text, "effects.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    actions = {a.id: a for p in model.get("g").phases for a in p.actions}
    return Battle(Rules(model), model.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=1), actions


def test_an_attack_at_enemies_not_holding_a_status_finds_no_target_when_all_hold_it() -> None:
    """``attack brawl at enemies not watching``: the only enemy is watching, so nothing happens and
    the log says there was no target; once it stops watching, the blows are struck."""
    battle, actions = _battle_of(PICKY)
    red, blue = battle.state.units
    blue.statuses = {"watching": ""}
    snipe = actions["snipe"]
    assert EFFECTS["attack"](battle, red, snipe.effects[0], snipe) is False
    assert battle.events[-1]["event"] == "no_target" and blue.models == 2
    blue.statuses = {}
    assert EFFECTS["attack"](battle, red, snipe.effects[0], snipe) is True
    assert battle.events[-1]["event"] == "volley" and battle.events[-1]["target"] == "Brute"


def test_a_unit_that_disengages_leaves_its_foe_free_and_the_log_names_the_foe() -> None:
    battle, actions = _battle_of(PICKY)
    red, blue = battle.state.units
    red.engaged, blue.engaged = [1], [0]
    red.engaged_as = blue.engaged_as = ("locked",)
    red.statuses, blue.statuses = {"locked": ""}, {"locked": ""}
    flee = actions["flee"]
    assert EFFECTS["disengage"](battle, red, flee.effects[0], flee) is True
    assert (red.engaged, blue.engaged, red.statuses, blue.statuses) == ([], [], {}, {})
    assert {k: battle.events[-1][k] for k in ("event", "unit", "foes")} == \
        {"event": "disengage", "unit": "Trooper", "foes": ["Brute"]}
