"""What the greedy policy reads: each choice's estimates on scripted battles, against values worked
out here from the exact laws (a volley's mean kills times the points of a model, a charge's blows
less the blows struck back, the worth of going on overwatch, each inch of a move)."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from compiler.battle import Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset watch "Watch":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test steady(Ld) = roll 2d6 <= Ld
test blow(Ld) = roll d6 >= Ld
status on_overwatch "On overwatch": "Watching."
status locked "Locked": "In combat."
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
attack brawl(attacker, defender) "Brawl":
  hits = attacker.models each blow(attacker.Ld)
  killed = hits removes defender
unit trooper "Trooper":
  BS 4  Ld 4  W 1
  points 10
unit brute "Brute":
  BS 6  Ld 3  W 1
  points 20
game g "A game":
  turns 1
  activation alternating_units
  phase move "Movement":
    action advance "Advance": move up to 3" toward the enemy unless locked
  phase orders "Orders":
    action watch "Overwatch": sets on_overwatch
    action careful "Careful watch": tests steady(Ld), sets on_overwatch
    action shoot "Shoot": attack shooting
    action charge "Charge": engage within 6" as locked
  phase fight "Fight":
    combat brawl in order of Ld
  when charged if on_overwatch: attack shooting
  victory wipe "Annihilation" by annihilation
scenario clash "A clash":
  game g
  distance 8"
  first red
  side red "Red":
    2 trooper
  side blue "Blue":
    3 brute
'''

HALF, THIRD = Fraction(1, 2), Fraction(1, 3)


def mean_kills(blows: int, p: Fraction, models: int) -> Fraction:
    """The mean of min(hits, models) for ``blows`` hits each of chance ``p``."""
    return sum((comb(blows, k) * p ** k * (1 - p) ** (blows - k) * min(k, models) for k in range(blows + 1)),
               Fraction(0))


@pytest.fixture(scope="module")
def root() -> Node:
    result = compile_text(RULES, "watch.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("clash"))


def estimates(node: Node) -> list[float]:
    choice = node.choice()
    assert choice is not None and choice.estimates is not None
    return list(choice.estimates())


def test_an_attack_is_worth_its_mean_kills_times_a_models_points(root: Node) -> None:
    orders = root.child(1).child(1)  # neither side advances: Red's orders, 8" from the brutes
    assert [o.label for o in orders.choice().options] == ["Overwatch", "Careful watch", "Shoot", "Charge", "Nothing"]  # type: ignore[union-attr]
    shoot = 2 * HALF * 20  # two troopers hit on 4+: one brute (20 points) on average
    # on overwatch: the brutes could reach the troopers (3" of move and 6" of charge >= 8"), and
    # would be shot at as they charge; a careful watch first passes steady(Ld 4) on 2d6: 6/36
    assert estimates(orders) == pytest.approx([float(shoot), float(Fraction(6, 36) * shoot), float(shoot), -1e-3, 0.0],
                                              rel=1e-12)


def test_a_charge_is_worth_its_blows_less_those_struck_back_and_a_move_each_inch(root: Node) -> None:
    # two blows on 4+ at three brutes; three back on 3+ at two troopers
    charge = mean_kills(2, HALF, 3) * 20 - mean_kills(3, 1 - THIRD, 2) * 10
    assert charge == 20 - Fraction(460, 27)
    move = root.child(0)
    assert [o.label for o in move.choice().options] == ['0"', '1"', '2"', '3"']  # type: ignore[union-attr]
    # after d inches the best later action: at 8 - d, only d >= 2 brings the brutes within the 6" charge;
    # the shot is worth 20 from anywhere; the greedy leans to the shorter move among equals
    best = max(float(charge), 20.0)
    assert estimates(move) == pytest.approx([best - 1e-6 * d for d in range(4)], rel=1e-12, abs=1e-12)
    # no inch gains anything (the shot is worth as much from here): advancing is worth less than
    # holding still
    assert estimates(root) == [-1e-3, 0.0]
    orders = move.child(3).child(1)  # 5" away (Blue stays): the charge reaches
    assert estimates(orders)[3] == pytest.approx(float(charge), rel=1e-12)
    edge = move.child(2).child(1)  # 6" away: just in reach
    assert estimates(edge)[3] == pytest.approx(float(charge), rel=1e-12)
    assert estimates(move.child(1).child(1))[3] == -1e-3  # 7" away: out of reach, worth less than nothing


def test_a_unit_charged_while_on_overwatch_weighs_its_volley_against_the_charger(root: Node) -> None:
    node = root.child(1).child(0).child(3)  # Red stays; Blue advances 3": 5" away
    node = node.child(0)  # Red goes on overwatch
    while node.choice() is not None and node.choice().kind != "react":  # type: ignore[union-attr]
        choice = node.choice()
        assert choice is not None
        labels = [o.label for o in choice.options]
        node = node.child(labels.index("Charge") if "Charge" in labels else len(labels) - 1)
    assert node.choice().side == 0  # type: ignore[union-attr]
    assert estimates(node) == pytest.approx([float(2 * HALF * 20), 0.0], rel=1e-12)


def test_the_greedy_side_moves_the_inch_that_brings_its_charge_in_reach() -> None:
    """Seven inches apart, a move of up to 1" and a charge of 6": the greedy policy moves the inch
    (then charges) both by its kept picks and when asked as any other policy is."""
    from compiler.battle import Battle, GreedyPolicy

    class PlainGreedy(GreedyPolicy):
        """The greedy policy, asked every choice."""

    text = RULES.replace('move up to 3" toward', 'move up to 1" toward').replace('distance 8"', 'distance 7"')
    for line in ('    action watch "Overwatch": sets on_overwatch\n',
                 '    action careful "Careful watch": tests steady(Ld), sets on_overwatch\n',
                 '    action shoot "Shoot": attack shooting\n'):
        text = text.replace(line, "")
    result = compile_text(text, "watch.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    for policy in (GreedyPolicy, PlainGreedy):
        battle = Battle(Rules(model), model.get("clash"), [policy(), policy()], 1)
        battle.run()
        moves = [(e["side"], e["inches"]) for e in battle.events if e["event"] == "move"]
        assert moves[0] == ("red", 1)
        assert [e["side"] for e in battle.events if e["event"] == "engage"][:1] == ["red"]


def test_an_attack_is_weighed_at_the_range_it_is_made_from() -> None:
    """Long range (over 6") needs a 6 to hit: the shot is worth a sixth of a hit a trooper from 8"
    away, half a hit from 5"."""
    text = RULES.replace('status on_overwatch', 'situation range_band "Range band" one of short, long\n'
                         'status on_overwatch').replace(
        'test hit(BS) = roll d6 >= BS', 'test hit(BS) = roll d6 >= BS\n'
        'modifier long_range "Long range": hit needs 6+ when range_band is long').replace(
        '  activation alternating_units\n', '  activation alternating_units\n'
        '  situation range_band is long when distance_to_enemy > 6, otherwise short\n')
    result = compile_text(text, "watch.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    root = Node.root(Rules(model, exact=True), model.get("clash"))
    far = root.child(1).child(1)  # nobody moves: 8" apart
    near = root.child(0).child(3).child(1)  # Red moves 3": 5" apart
    assert [o.label for o in far.choice().options][2] == "Shoot"  # type: ignore[union-attr]
    assert estimates(far)[2] == pytest.approx(float(2 * Fraction(1, 6) * 20), rel=1e-12)
    assert estimates(near)[2] == pytest.approx(float(2 * HALF * 20), rel=1e-12)


def test_with_no_enemy_left_holding_a_status_for_a_reaction_is_worth_nothing() -> None:
    """A game not won by annihilation plays on after Blue is wiped out: going on overwatch (and
    advancing) against nobody is worth less than holding still."""
    text = '''
ruleset last "Last stand":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
status on_overwatch "On overwatch": "Watching."
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
    action watch "Overwatch": sets on_overwatch
  when charged if on_overwatch: attack shooting
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
    result = compile_text(text, "last.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model, exact=True), model.get("duel")).child(0)  # Red shoots: the lone sniper falls
    node = node.child(node.legal_actions()[0])
    assert [u.models for u in node.state().units] == [2, 0]
    assert estimates(node) == [-1e-3, -1e-3, 0.0]
