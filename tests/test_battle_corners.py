"""The table's corners: ``score … for units within 12" of every corner at end of own turn`` and
``move up to X toward the nearest corner`` — Nuceria's Establish Perimeter, played on the
document's 48" by 60" table."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

import compiler
from compiler.battle import Battle, GreedyPolicy, Node, Rules, corners
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


def four_scouts() -> tuple[Ruleset, Battle]:
    model = compiled('12"').rulesets[0]
    return model, Battle(Rules(model), model.get("four_scouts"), [GreedyPolicy(), GreedyPolicy()], seed=1)


def test_a_corner_is_held_by_a_standing_unit_of_the_side_at_most_the_reach_from_it() -> None:
    """On the 24" table: red's scouts at (6, 6) and (18, 6) stand 8.5" from the two lower corners,
    those at (6, 12) and (18, 12) 13.4" from every corner; exactly 12" away still holds, a unit
    with no models left never does, and ``but`` leaves one unit out."""
    _, b = four_scouts()
    st = b.state
    red, blue = st.units[:4], st.units[4]
    assert corners.corners(st) == ((0.0, 0.0), (24.0, 0.0), (0.0, 24.0), (24.0, 24.0))
    assert (corners.covered(st, 0, 12.0), corners.covered(st, 1, 12.0)) == (2, 0)
    assert corners.covered(st, 0, 12.0, but=red[0]) == 1 and corners.covered(st, 0, 8.0) == 0
    blue.position, blue.y = 0.0, 12.0  # exactly 12" from both left corners
    assert corners.covered(st, 1, 12.0) == 2 and corners.covered(st, 1, 11.99) == 0
    red[2].position, red[2].y, red[2].models = 24.0, 24.0, 0  # a unit wiped out, on the corner
    assert corners.covered(st, 0, 12.0) == 2 and not corners.near(st, 0, (24.0, 24.0), 12.0)


def test_a_move_toward_a_corner_heads_for_the_nearest_one_no_friend_holds() -> None:
    _, b = four_scouts()
    st = b.state
    scout = st.units[2]  # at (6, 12): 13.4" from (0, 0) and (0, 24) alike; (0, 0) is held
    first = corners.heading(st, scout, 12.0)
    assert first is not None and (first.position, first.y) == (0.0, 24.0)
    scout.position, scout.y = 14.0, 6.0  # nearest (24, 0), then (0, 0), both held: the nearest free one
    first = corners.heading(st, scout, 12.0)
    assert first is not None and (first.position, first.y) == (24.0, 24.0)
    # each corner held by another scout (one at each left corner's 12", one at each right one's):
    # the nearest of all
    st.units[0].position, st.units[0].y = 0.0, 12.0
    st.units[1].position, st.units[1].y = 24.0, 12.0
    scout.position, scout.y = 20.0, 14.0
    first = corners.heading(st, scout, 12.0)
    assert first is not None and (first.position, first.y) == (24.0, 24.0)


def test_a_line_has_no_corner_to_head_for(nuceria: Ruleset) -> None:
    b = Battle(Rules(nuceria), nuceria.get("line_skirmish"), [GreedyPolicy(), GreedyPolicy()], seed=0)
    assert corners.corners(b.state) == () and corners.heading(b.state, b.state.units[0], 12.0) is None


def test_a_move_toward_an_objective_heads_for_it_and_one_toward_a_corner_for_the_corner(nuceria: Ruleset) -> None:
    b = scripted(nuceria)
    st, game = b.state, nuceria.get("rts_game")
    captain = next(u for u in st.units if u.side == 0 and u.uid in st.warlords)  # at (30, 40)
    [effect] = next(a for p in game.phases for a in p.actions if a.id == "to_corner").effects
    corner = corners.goal(st, game, captain, effect)
    assert corner is not None and (corner.position, corner.y) == (48.0, 60.0)  # the one corner no squad holds
    for toward in (replace(effect, goal="nearest objective"), replace(effect, goal="objective", name="last_objective")):
        marker = corners.goal(st, game, captain, toward)
        assert marker is not None and (marker.oid, marker.position, marker.y) == ("last_objective", 24.0, 30.0)


def test_a_step_toward_a_free_corner_is_worth_the_score_times_the_share_held_then_by_reach_over_distance() -> None:
    """The ring scores 3 with a unit within 12" of every corner; red holds two lower corners, so a
    third held is worth 3 × 3/4 = 2.25 at the corner or within 12" of it, and in proportion to
    12" over the distance farther off (the fourth, the last missing: 3 in full); a corner another
    scout holds pulls nothing, nor does a corner on a move toward anything else."""
    model, b = four_scouts()
    st, game = b.state, model.get("corners_game")
    [effect] = game.phases[0].actions[0].effects
    scout = st.units[2]
    value = b.rules.constant
    pull = corners.pull(st, game, value, scout, effect, (0.0, 24.0))
    assert [pull(p) for p in ((0.0, 24.0), (0.0, 18.0), (0.0, 12.0), (0.0, 0.0))] == [2.25, 2.25, 2.25, 1.125]
    st.units[0].position, st.units[0].y = 4.0, 22.0  # that scout now holds (0, 24), and (0, 0) is free
    assert corners.covered(st, 0, 12.0, but=scout) == 2
    assert corners.pull(st, game, value, scout, effect, (0.0, 24.0))((0.0, 0.0)) == 0.0
    assert corners.pull(st, game, value, scout, effect, (0.0, 0.0))((0.0, 24.0)) == 1.125
    st.units[3].position, st.units[3].y = 20.0, 20.0  # and (24, 24) held too: the last corner counts in full
    assert corners.pull(st, game, value, scout, effect, (0.0, 0.0))((0.0, 12.0)) == 3.0
    other = replace(effect, goal="enemy")
    assert corners.pull(st, game, value, scout, other, (0.0, 0.0))((0.0, 24.0)) == 0.0


@pytest.mark.parametrize("length,move", [('6"', 6), ("M", 0)])
def test_a_game_whose_only_move_is_toward_a_corner_plays_through_on_a_line(length: str, move: int) -> None:
    """On a line there are no corners: the side weighs each scout's activation (alternating, its
    choice of scout) and finds nothing to do; nobody moves and nothing scores, to the turn limit
    (scouts that move 6", or that cannot move at all)."""
    text = GAME.replace("REACH", '12"').replace("ACTIVATION", "alternating_activations").replace(
        '  table 24" by 24"', '  distance 24"').replace('stat M "Move" 1..12', 'stat M "Move" 0..12').replace(
        "  M 6  W 1", f"  M {move}  W 1").replace('move up to 6" toward the nearest corner',
                                                  f"move up to {length} toward the nearest corner")
    text = text.replace('6", 6"', '6"').replace('18", 6"', '18"').replace('6", 12"', '6"').replace(
        '18", 12"', '18"').replace('12", 20"', '20"')
    result = compile_text(text)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("four_scouts"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    assert not [e for e in battle.events if e["event"] in ("move", "score", "action")]
    assert [u.position for u in battle.state.units] == [6.0, 18.0, 6.0, 18.0, 20.0]
    assert out.winner is None


def test_a_move_toward_a_corner_is_worth_the_pull_its_best_step_gains() -> None:
    """A lone scout 6" up and 6" across from the nearest corner, reach 3": where it stands the
    corner pulls 3 points × its share (1 of 4 corners) × 3" over its √72" off; 6" on it stands within
    the reach, pulled in full. The move is worth that gain (to 10⁻⁴), and the 10⁻³ of a move made."""
    text = GAME.replace("REACH", '3"').replace("ACTIVATION", "whole_army").replace(" own turn", " turn")
    text = text.split('    1 scout at 18", 6"')[0] + '  side blue "Blue":\n    1 scout at 12", 20"\n'
    result = compile_text(text)
    assert result.ok, [f"{d.code} {d.message}" for d in result.diagnostics]
    model = result.rulesets[0]
    node = Node.root(Rules(model), model.get("four_scouts"))
    choice = node.choice()
    assert choice is not None and [o.label for o in choice.options] == ["Go", "Nothing"]
    assert choice.estimates is not None
    share = 3 * 1 / 4
    gain = share - share * 3 / math.sqrt(72) + 6e-6
    worth, nothing = choice.estimates()
    assert worth == pytest.approx(gain + 1e-3, abs=1e-4) and nothing == 0.0
