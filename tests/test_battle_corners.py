"""The table's corners: ``score … for units within 12" of every corner at end of own turn`` and
``move up to X toward the nearest corner`` — Nuceria's Establish Perimeter, played on the
document's 48" by 60" table."""
from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Node, Rules
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def nuceria() -> Ruleset:
    result = compiler.compile_paths([ROOT / "rules" / "nuceria-rts"])
    assert result.ok
    return result.rulesets[0]


def scripted(model: Ruleset) -> Battle:
    """The last corner before a move: the Troopers stand within 12" of three corners."""
    return Battle(Rules(model), model.get("closing_the_perimeter"), [GreedyPolicy(), GreedyPolicy()], seed=0)


def perimeter_events(b: Battle) -> list[dict]:
    return [e for e in b.events if e["event"] == "score" and e["score"] == "perimeter"]


def test_all_four_corners_score_five_at_the_end_of_the_holders_own_turn_and_three_score_nothing(nuceria) -> None:
    b = scripted(nuceria)
    st = b.state
    troopers, bastion = 0, 1
    captain = next(u for u in st.units if u.side == troopers and u.uid in st.warlords)
    corners = [(0.0, 0.0), (48.0, 0.0), (0.0, 60.0), (48.0, 60.0)]
    # the scenario's squads: one within 12" of each of three corners, none of the fourth
    near = [[c for c in corners if ((u.position - c[0]) ** 2 + (u.y - c[1]) ** 2) ** 0.5 <= 12]
            for u in st.units if u.side == troopers]
    assert sorted(map(len, near)) == [0, 1, 1, 1]
    # three corners: the end of the Troopers' own turn scores no perimeter
    st.active = troopers
    b.referee.period_ends("turn")
    assert perimeter_events(b) == [] and st.scores[troopers] == 0
    # the captain steps to exactly 12" of the fourth corner (48", 60"): all four are held
    captain.position, captain.y = 48.0, 48.0
    st.active = bastion  # the end of the Bastion's turn: the Troopers do not score then
    b.referee.period_ends("turn")
    assert perimeter_events(b) == [] and st.scores == [0.0, 2.0]  # the Bastion's guard holds the centre
    st.active = troopers  # the end of the Troopers' own turn: exactly the document's 5 points
    b.referee.period_ends("turn")
    [event] = perimeter_events(b)
    assert (event["to"], event["points"]) == ("troopers", 5.0) and st.scores == [5.0, 2.0]
    b.referee.period_ends("turn")  # held at the end of the next own turn too: 5 more (the assumption)
    assert st.scores == [10.0, 2.0] and st.over and st.winner == troopers and st.reason == "first_to_ten"


def test_a_unit_a_hair_beyond_twelve_inches_does_not_hold_its_corner(nuceria) -> None:
    b = scripted(nuceria)
    st = b.state
    captain = next(u for u in st.units if u.side == 0 and u.uid in st.warlords)
    captain.position, captain.y = 48.0, 47.99
    st.active = 0
    b.referee.period_ends("turn")
    assert perimeter_events(b) == [] and st.scores == [0.0, 0.0]


def test_the_greedy_captain_makes_for_the_last_corner_and_scores_the_perimeter(nuceria) -> None:
    """Played out: the captain goes for the free corner, and each perimeter score goes to the
    Troopers, 5 at a time, at the end of one of their own turns (its turn's last event)."""
    scored = 0
    for seed in range(4):
        b = Battle(Rules(nuceria), nuceria.get("closing_the_perimeter"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        b.run()
        moves = [e for e in b.events if e["event"] == "move" and e.get("objective") == "the nearest corner"
                 and e["unit"].startswith("Field Captain") and e["side"] == "troopers"]
        assert all(a["distance"] > b_["distance"] for a, b_ in zip(moves, moves[1:]))  # ever nearer
        for e in perimeter_events(b):
            scored += 1
            assert (e["to"], e["points"]) == ("troopers", 5.0)
            later = b.events[b.events.index(e) + 1:]
            nxt = next((x for x in later if x["event"] == "activated"), None)
            assert nxt is None or nxt["side"] == "bastion"  # scored as the Troopers' turn ended
    assert scored >= 1


def test_on_a_line_the_move_toward_a_corner_is_not_offered(nuceria) -> None:
    root = Node.root(Rules(nuceria), nuceria.get("line_skirmish"))
    node = root.child(0) if root.is_chance_node() else root
    node = node.child(0)  # the first unit
    labels = [o.label for o in node.choice().options]  # type: ignore[union-attr]
    assert "Move" in labels and "Move toward a corner" not in labels
    table = Node.root(Rules(nuceria), nuceria.get("closing_the_perimeter"))
    node = table.child(0) if table.is_chance_node() else table
    node = node.child(0)
    assert "Move toward a corner" in [o.label for o in node.choice().options]  # type: ignore[union-attr]


GAME = '''ruleset corners "Corners":
  version 1.0.0
stat M "Move" 1..12
stat W "Wounds" 1..10 role wounds
unit scout "Scout":
  M 6  W 1
game corners_game "Corners":
  turns 3
  activation ACTIVATION
  phase act "Activation":
    action go "Go": move up to 6" toward the nearest corner
  score ring "Ring": 3 for units within REACH of every corner at end of own turn
  victory most "Most" by highest_score: "The higher score wins."
scenario four_scouts "Four scouts":
  game corners_game
  table 24" by 24"
  first red
  side red "Red":
    1 scout at 6", 6"
    1 scout at 18", 6"
    1 scout at 6", 12"
    1 scout at 18", 12"
  side blue "Blue":
    1 scout at 12", 20"
'''
SCORE_LINE = GAME.splitlines().index('  score ring "Ring": 3 for units within REACH of every corner at end of own turn') + 1


def compiled(reach: str, activation: str = "alternating_activations") -> compiler.Compilation:
    return compile_text(GAME.replace("REACH", reach).replace("ACTIVATION", activation))


def test_the_corner_score_reads_back_and_scores_a_ring_of_scouts_each_own_turn() -> None:
    """Red's scouts start within 12" of two corners of a 24" table, and one moves each turn: the
    first to a third corner, the second to the fourth (each toward the corner no other scout is
    near). So from the end of red's second turn all four are held: 3 points at the end of each of
    red's turns from then on, never at the end of blue's (one scout cannot hold four corners)."""
    result = compiled('12"')
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    [score] = model.get("corners_game").scores
    assert (score.corners, score.held_at, score.own) == (12.0, "turn", True)
    b = Battle(Rules(model), model.get("four_scouts"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    outcome = b.run()
    rings = [e for e in b.events if e["event"] == "score"]
    assert [(e["to"], e["points"], e["turn"]) for e in rings] == [("red", 3.0, 2), ("red", 3.0, 3)]
    assert outcome.scores == (6.0, 0.0)


def test_a_corner_score_with_no_reach_or_no_own_turn_is_refused_on_its_line() -> None:
    [err] = [d for d in compiled('0"').diagnostics if d.severity == "error"]
    assert (err.code, err.span.line) == ("W863", SCORE_LINE) and "more than 0" in err.message
    [err] = [d for d in compiled('12"', "alternating_units").diagnostics if d.severity == "error"]
    assert (err.code, err.span.line) == ("W863", SCORE_LINE) and "own turn" in err.message
    assert err.hint is not None and "of every corner at end of game turn" in err.hint
