"""One unit at a time (``alternating_activations``) on a scripted battle: the unit each side picks
is weighed at its best action (the mean kills of its volley times a model's points, worked out
here), and the picked unit is the one that then acts, the phase's combat fought within its
activation; orders (``alternating_detachments``) that let the player pick the first action, or not."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from compiler.battle import Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset one "One at a time":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1
  points 10
unit marksman "Marksman":
  BS 2  W 1
  points 10
game g "A game":
  turns 1
  activation alternating_activations
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
scenario s "A skirmish":
  game g
  distance 12"
  first red
  side red "Red":
    2 trooper
    3 marksman
  side blue "Blue":
    6 trooper
'''


@pytest.fixture(scope="module")
def root() -> Node:
    result = compile_text(RULES, "one.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("s"))


def test_each_unit_is_weighed_at_its_best_action(root: Node) -> None:
    choice = root.choice()
    assert choice is not None and choice.kind == "unit"
    assert [o.label for o in choice.options] == ["Trooper 1", "Marksman 2"]
    assert choice.estimates is not None
    troopers = 2 * Fraction(1, 2) * 10  # two shots hitting on 4+, a model of 10 points each hit
    marksmen = 3 * Fraction(5, 6) * 10  # three on 2+
    assert list(choice.estimates()) == pytest.approx([float(troopers), float(marksmen)], rel=1e-12)


@pytest.mark.parametrize("picked", [0, 1])
def test_the_unit_picked_is_the_one_that_acts(root: Node, picked: int) -> None:
    node = root.child(picked)
    choice = node.choice()
    assert choice is not None and choice.kind == "action"
    assert choice.unit == ["Trooper 1", "Marksman 2"][picked]
    assert [o.label for o in choice.options] == ["Shoot", "Nothing"]
    volley = node.child(0)  # it shoots: a chance node whose law is that unit's volley at the six troopers
    assert volley.is_chance_node()
    p, shots = [(Fraction(1, 2), 2), (Fraction(5, 6), 3)][picked]
    law = {volley.child(k).state().units[2].models: float(chance) for k, chance in volley.chance_outcomes()}
    assert law == pytest.approx({6 - k: float(comb(shots, k) * p ** k * (1 - p) ** (shots - k)) for k in range(shots + 1)},
                                rel=1e-12)


ORDERS = RULES.replace('unit marksman', 'situation order "Order" one of advance, steady\nunit marksman').replace(
    '  activation alternating_activations\n  phase fire "Shooting":\n    action shoot "Shoot": attack shooting\n',
    '  activation alternating_detachments\n  orders set order\n  phase p "Orders":\n'
    '    action move "Move": move up to 3" toward the enemy\n    action shoot "Shoot": attack shooting\n'
    '    on advance "Advance orders": move and shoot\n    on steady "Steady orders": move then shoot\n'
).replace('    2 trooper\n    3 marksman\n', '    2 trooper\n')


@pytest.mark.parametrize("order,first", [(0, "action"), (1, "move")])
def test_an_order_in_any_order_lets_the_player_pick_the_first_action_and_one_in_turn_does_not(
        order: int, first: str) -> None:
    """``move and shoot``: the player picks which action comes first (Move or Shoot); ``move then
    shoot``: the move comes first (how far?), then the shot."""
    result = compile_text(ORDERS, "one.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("s"))
    choice = node.choice()
    assert choice is not None and choice.kind == "order"
    assert [o.label for o in choice.options] == ["Advance orders", "Steady orders", "No order"]
    node = node.child(order)
    choice = node.choice()
    assert choice is not None and choice.kind == first
    if first == "action":
        assert [o.label for o in choice.options] == ["Move", "Shoot"]
        node = node.child(1)  # Shoot first: the volley at 12"
        assert node.is_chance_node()


def test_the_combat_of_a_phase_is_fought_within_the_activation() -> None:
    """Red's one unit charges in its activation; the phase's combat is then fought before Blue's
    activation: Red strikes first (Ld 4 against 3), its two blows' law at the six troopers."""
    text = RULES.replace('stat W "Wounds"', 'stat Ld "Leadership" 2..12\nstat W "Wounds"').replace(
        'test hit(BS) = roll d6 >= BS', 'test hit(BS) = roll d6 >= BS\ntest blow(Ld) = roll d6 >= Ld\n'
        'status locked "Locked": "In combat."').replace(
        'attack shooting(shooter, target) "Shooting":', 'attack brawl(attacker, defender) "Brawl":\n'
        '  hits = attacker.models each blow(attacker.Ld)\n  killed = hits removes defender\n'
        'attack shooting(shooter, target) "Shooting":').replace(
        '  BS 4  W 1', '  BS 4  Ld 4  W 1').replace('  BS 2  W 1', '  BS 2  Ld 3  W 1').replace(
        '    action shoot "Shoot": attack shooting\n',
        '    action charge "Charge": engage within 12" as locked unless locked\n    combat brawl in order of Ld\n'
    ).replace('    2 trooper\n    3 marksman\n', '    2 trooper\n').replace('    6 trooper\n', '    6 marksman\n')
    result = compile_text(text, "one.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("s"))
    choice = node.choice()
    assert choice is not None and choice.kind == "action" and choice.unit == "Trooper"
    assert [o.label for o in choice.options] == ["Charge", "Nothing"]
    blows = node.child(0)
    assert blows.is_chance_node() and blows.state().active == 0
    law = {blows.child(k).state().units[1].models: float(chance) for k, chance in blows.chance_outcomes()}
    half = Fraction(1, 2)
    assert law == pytest.approx({6 - k: float(comb(2, k) * half ** 2) for k in range(3)}, rel=1e-12)


def test_under_detachments_a_phase_without_orders_is_played_unit_by_unit_before_the_orders() -> None:
    """A shooting phase with no orders comes first: each unit is asked for its action there (Red's
    troopers, then Blue's), and only then does the orders phase give an order."""
    text = ORDERS.replace('  phase p "Orders":', '  phase fire "Shooting":\n    action volley "Volley": attack shooting\n'
                          '  phase p "Orders":')
    result = compile_text(text, "one.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("s"))
    choice = node.choice()
    assert choice is not None and choice.kind == "action" and choice.unit == "Trooper"
    assert [o.label for o in choice.options] == ["Volley", "Nothing"] and node.state().phase == "fire"
    node = node.child(1)  # Red holds its fire: Blue's troopers are asked next, in the same phase
    choice = node.choice()
    assert choice is not None and choice.kind == "action" and node.state().active == 1
    node = node.child(1)
    choice = node.choice()
    assert choice is not None and choice.kind == "order" and node.state().phase == "p"


def test_a_status_bars_an_order_or_is_needed_for_one_and_coverage_notes_it() -> None:
    """``on … unless pinned``: not offered to a pinned unit; ``on … if pinned``: offered only to one;
    an order with neither, to every unit.  While coverage records, the status that barred or allowed
    an order is noted as having taken effect (and one the unit does not hold, never)."""
    from compiler import ast as A
    from compiler.battle.schemes import orders_for
    from compiler.battle.state import Unit
    from compiler.trace import recording
    text = ORDERS.replace('unit marksman', 'status pinned "Pinned": "Down."\nunit marksman').replace(
        'one of advance, steady', 'one of advance, hold, steady').replace(
        'move and shoot', 'move and shoot unless pinned').replace('move then shoot', 'shoot if pinned').replace(
        '    on steady', '    on hold "Hold orders": move\n    on steady')
    result = compile_text(text, "one.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    phase = model.get("g").phases[0]
    assert isinstance(phase, A.Phase)
    unit = Unit(0, 0, "Trooper", "trooper", (), 2, 2, 10, 0.0)
    assert [o.id for o in orders_for(unit, phase)] == ["advance", "hold"]
    unit.statuses = {"pinned": ""}
    assert [o.id for o in orders_for(unit, phase)] == ["hold", "steady"]
    with recording() as used:
        orders_for(unit, phase)
    assert "pinned" in used
    unit.statuses = {"routed": ""}
    with recording() as used:
        assert [o.id for o in orders_for(unit, phase)] == ["advance", "hold"]
    assert "pinned" not in used and "routed" not in used


SURE = '''
ruleset sure "Sure fire":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
situation order "Order" one of fire
status proud "Proud": "It fired well."
status done "Done": "It has finished."
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 1  W 1
game g "A game":
  turns 1
  activation alternating_detachments
  orders set order
  phase p "Orders":
    action shoot "Shoot": sets proud until end of turn, attack shooting, sets done
    on fire "Fire orders": shoot
  victory wipe "Annihilation" by annihilation
scenario s "A skirmish":
  game g
  distance 12"
  first red
  side red "Red":
    3 trooper
  side blue "Blue":
    2 trooper
'''


def test_an_order_carries_out_its_action_effect_by_effect_and_the_battle_ends_where_it_is_won() -> None:
    """Red's order: it becomes proud (until the end of the turn), then its sure volley wipes Blue
    out: the game is over there, so the rest of the action (``sets done``) never happens, and the
    turn does not go on to its end (where proud would lapse)."""
    from compiler.battle import Battle, GreedyPolicy
    result = compile_text(SURE, "sure.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("s"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    outcome = battle.run()
    assert (outcome.winner, outcome.survivors, outcome.reason) == (0, (3, 0), "wipe")
    red = battle.state.units[0]
    assert red.statuses == {"proud": "turn"} and red.values == {"order": "fire"}
    assert [e["event"] for e in battle.events][-3:] == ["status", "volley", "end"]


def test_casualties_marked_in_a_phase_wait_for_its_end_even_once_the_unit_is_used() -> None:
    """``casualties removed at end of phase`` under detachments: Red's sure volley marks three of
    Blue's five, which still fire all five; Blue's dead are removed when the phase ends, as Red's
    are, not when Blue has been used (that is ``casualties removed after the unit acts``)."""
    from compiler.battle import Battle, GreedyPolicy
    text = SURE.replace("  orders set order", "  casualties removed at end of phase\n  orders set order").replace(
        "    2 trooper", "    5 trooper")
    result = compile_text(text, "sure.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("s"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    outcome = battle.run()
    assert (outcome.winner, outcome.survivors) == (1, (0, 2))
    shown = [(e["event"], e["unit"], e.get("models"), e.get("removed"), e.get("acted"))
             for e in battle.events if e["event"] in ("volley", "removed")]
    assert shown == [("volley", "Trooper", 3, 3, None), ("volley", "Trooper", 5, 3, None),
                     ("removed", "Trooper", None, 3, None), ("removed", "Trooper", None, 3, None)]


def test_an_orders_action_stops_at_an_effect_that_fails() -> None:
    """``tests doubt(BS), sets done``: the test cannot be passed (a 7 on a d6), so the unit never
    holds ``done``."""
    from compiler.battle import Battle, GreedyPolicy
    text = SURE.replace("test hit(BS) = roll d6 >= BS", "test hit(BS) = roll d6 >= BS\ntest doubt(BS) = roll d6 >= 6 + BS").replace(
        "sets proud until end of turn, attack shooting, sets done", "tests doubt(BS), sets done")
    result = compile_text(text, "sure.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("s"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    battle.run()
    tests = [e for e in battle.events if e["event"] == "test"]
    assert len(tests) == 2 and not any(e["passed"] for e in tests)  # each side's unit took it, in its order
    assert all("done" not in u.statuses for u in battle.state.units)
