"""The battle as a game tree, node by node: who acts at the root, a choice node, a chance node and
the end, what each kind of node answers (its legal actions, law, choice, outcome, returns), an
outcome of no chance that is not a legal answer, and the errors of a history the battle cannot
follow."""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from compiler.battle import CHANCE, TERMINAL, Node, Rules
from compiler.driver import compile_text

RULES = '''
ruleset duel "Duel":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Rd "Readiness" 1..6
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
test ready(Rd) = roll d6 >= Rd
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  Rd 1  W 1
game g "A game":
  turns 1
  activation activation_rolls
  activation dice 1..1 of ready(Rd), bust on 2 failures
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
scenario duel "A duel":
  game g
  distance 12"
{first}
  side red "Red":
    1 trooper
  side blue "Blue":
    1 trooper
'''


def root(first: str = "") -> Node:
    result = compile_text(RULES.format(first=first), "duel.rules")
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    return Node.root(Rules(model, exact=True), model.get("duel"))


@pytest.fixture(scope="module")
def start() -> Node:
    return root()


def test_the_first_roll_is_a_chance_node_of_the_two_sides(start: Node) -> None:
    assert start.current_player() == CHANCE != TERMINAL
    assert CHANCE < 0 and TERMINAL < 0  # never a side's index, however many sides
    assert start.is_chance_node() and not start.is_terminal()
    assert start.chance_kind() == "first" and start.choice() is None
    assert start.legal_actions() == [0, 1] and start.chance_outcomes() == [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
    law = start.law()
    assert law is not None and law.values == (0, 1)
    with pytest.raises(ValueError, match="not over"):
        start.outcome()


@pytest.mark.parametrize("first,side", [(0, 0), (1, 1)])
def test_a_choice_node_is_the_side_to_act_with_its_options(start: Node, first: int, side: int) -> None:
    node = start.child(first)
    assert node.current_player() == side and not node.is_chance_node() and not node.is_terminal()
    choice = node.choice()
    assert choice is not None and choice.kind == "unit" and choice.side == side
    assert node.legal_actions() == [0, 1]  # the trooper, or stop
    assert node.law() is None and node.chance_kind() == ""
    with pytest.raises(ValueError, match="not a chance node"):
        node.chance_outcomes()
    assert node.state().active == side


def test_an_outcome_of_no_chance_is_not_a_legal_answer(start: Node) -> None:
    """The activation die always succeeds (d6 >= 1): of its law's outcomes, 0 successes has no chance."""
    rolled = start.child(0).child(0)
    assert rolled.is_chance_node() and rolled.chance_kind() == "activation"
    law = rolled.law()
    assert law is not None and law.probabilities == (0, 1)
    assert rolled.legal_actions() == [1] and rolled.chance_outcomes() == [(1, Fraction(1))]
    with pytest.raises(ValueError, match="0 is not a legal answer here"):
        rolled.child(0)


def test_the_end_of_the_battle_and_each_sides_returns(start: Node) -> None:
    # Red first: tries its trooper (one success), shoots; the shot kills (outcome 1): Blue is wiped out
    node = start.child(0).child(0).child(1).child(0)
    assert node.chance_kind() == "volley" and node.chance_outcomes() == [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
    won = node.child(1)
    assert won.current_player() == TERMINAL and won.is_terminal() and not won.is_chance_node()
    assert won.legal_actions() == [] and won.choice() is None and won.law() is None and won.chance_kind() == ""
    assert won.outcome().winner == 0 and won.returns() == [1.0, -1.0]
    with pytest.raises(ValueError, match="not a chance node"):
        won.chance_outcomes()
    # both miss (Blue's turn: it tries its trooper, shoots, misses): the turn limit, equal scores, a draw
    drawn = node.child(0).child(0).child(1).child(0).child(0)
    assert drawn.is_terminal() and drawn.outcome().winner is None and drawn.returns() == [0.0, 0.0]
    lost = node.child(0).child(0).child(1).child(0).child(1)
    assert lost.outcome().winner == 1 and lost.returns() == [-1.0, 1.0]


def test_a_history_longer_than_the_battle_is_refused(start: Node) -> None:
    won = start.child(0).child(0).child(1).child(0).child(1)
    past = Node(won.rules, won.scenario, won.history + (0,))
    with pytest.raises(ValueError, match="the battle ended after 5 answers; the history has 6"):
        past.state()


def test_a_node_plays_its_history_once(start: Node) -> None:
    node = start.child(1)
    assert node.state() is node.state()
    assert node == Node(node.rules, node.scenario, (1,)) and node != start


def test_a_scenario_that_names_who_goes_first_asks_no_roll() -> None:
    node: Any = root("  first blue")
    assert node.current_player() == 1 and node.choice().kind == "unit"
