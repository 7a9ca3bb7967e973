"""The searching players, ``lookahead`` and ``mcts``: their choices against exact values worked out
here by hand (binomial laws, Fractions), and their seeds and streams.

Two tiny games: a sniper duel (a gunner squad picks between a harmless, costly crate and a cheap
sniper that shoots back) and an overwatch duel (going on overwatch pays when the enemy must charge;
"Dash" also sets the status but bars the reaction, and the greedy policy's estimates cannot tell
the two apart).
"""
from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest

from compiler.battle import Battle, GreedyPolicy, LookaheadPolicy, MctsPolicy, Rules, ScriptedPolicy, game_seed
from compiler.battle.exact import solve
from compiler.battle.policies import Choice
from compiler.battle.search import answers_kept, greedy_order
from compiler.battle.simulate import play_games
from compiler.battle.tree import Node
from compiler.driver import compile_text
from compiler.model.ruleset import Ruleset

HEAD = '''
ruleset {id} "Tiny":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat W "Wounds" 1..10 role wounds
stat Reach "Reach" 0..48
test hit(BS) = roll d6 >= BS
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  killed = hits removes target
weapon rifle "Rifle":
  A 1
weapon long_rifle "Long rifle":
  A 2
'''

SNIPING = HEAD.format(id="sniping") + '''
unit gunner "Gunner":
  BS 4  W 1  Reach 0
  weapons rifle
  points 10
unit sniper "Sniper":
  BS 4  W 1  Reach 0
  weapons long_rifle
  points 5
unit crate "Crate":
  BS 4  W 1  Reach 0
  points 15
game g "A game":
  turns 1
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wiped_out "Wiped out" by annihilation: "A side with no models left loses."
scenario duel "Gunners against a sniper and a crate":
  game g
  distance 12"
  first red
  side red "Red":
    2 gunner
  side blue "Blue":
    1 sniper
    1 crate
'''

WATCHING = HEAD.format(id="watching") + '''
status on_overwatch "On overwatch": "Watching."
status moved "Moved": "It ran."
status locked "Locked": "In combat."
unit gunner "Gunner":
  BS 4  W 1  Reach 0
  weapons rifle
unit brute "Brute":
  BS 4  W 1  Reach 24
game g "A game":
  turns 1
  activation whole_army
  phase orders "Orders":
    action dash "Dash": sets on_overwatch, sets moved until end of game turn
    action watch "Overwatch": sets on_overwatch
  phase assault "Assault":
    must action charge "Charge": engage within Reach as locked unless locked
  when charged if on_overwatch unless moved: attack shooting
  victory wiped_out "Wiped out" by annihilation: "A side with no models left loses."
scenario duel "Gunners against brutes":
  game g
  distance 12"
  first red
  side red "Red":
    2 gunner
  side blue "Blue":
    2 brute
'''

HALF = Fraction(1, 2)  # every shot hits on 4+


def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def model_of(text: str) -> Ruleset:
    result = compile_text(text, "tiny.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


@pytest.fixture(scope="module")
def sniping() -> Ruleset:
    return model_of(SNIPING)


@pytest.fixture(scope="module")
def watching() -> Ruleset:
    return model_of(WATCHING)


def first_decision(model: Ruleset) -> Node:
    node = Node.root(Rules(model, exact=True), model.get("duel"))
    while node.is_chance_node():
        node = node.child(node.legal_actions()[0])
    return node


def sniping_values() -> dict[str, Fraction]:
    """The lookahead's evaluation of Red's two targets over the whole (one-turn) game, by hand: Red's
    two shots kill the target with chance 3/4; a live sniper's two shots kill Binomial(2, 1/2)
    gunners, and two gunners dead is a loss (-2). The evaluation is Red's share of its points left
    less Blue's."""
    kill = 1 - (1 - HALF) ** 2
    back = binomial(2, HALF)

    def after_sniper_fires(blue_lost: Fraction) -> Fraction:
        return sum((p * ((2 - k) / Fraction(2) - (1 - blue_lost) - (2 if k == 2 else 0)) for k, p in enumerate(back)),
                   Fraction(0))

    crate = kill * after_sniper_fires(Fraction(15, 20)) + (1 - kill) * after_sniper_fires(Fraction(0))
    sniper = kill * (1 - (1 - Fraction(5, 20))) + (1 - kill) * after_sniper_fires(Fraction(0))
    return {"crate": crate, "sniper": sniper}


def test_lookahead_at_depth_one_picks_what_greedy_picks_and_deeper_the_exact_best(sniping: Ruleset) -> None:
    action = first_decision(sniping)  # Red: shoot, or do nothing
    target = action.child(0)  # it shoots: at which unit?
    choice = target.choice()
    assert choice is not None and choice.kind == "target"
    labels = [o.label.split(" ")[0].lower() for o in choice.options]
    greedy = labels[greedy_order(choice)[0]]
    assert greedy == "crate"  # 15 points at 3/4 beat 5 points at 3/4
    exact = sniping_values()
    best = max(exact, key=lambda k: exact[k])
    assert best == "sniper"  # the crate is worth more, but the sniper shoots back
    picks = {}
    for depth in (1, 2):
        battle = Battle(Rules(sniping), sniping.get("duel"), [LookaheadPolicy(depth), GreedyPolicy()], seed=3,
                        record=False)
        battle.run()
        assert battle.choices[0] == 0  # Red shoots
        picks[depth] = labels[battle.choices[1]]
    assert picks == {1: greedy, 2: best}
    # the values it weighs are the exact ones: each target's worth over the whole game
    look = LookaheadPolicy(2)
    values = {labels[a]: look.value(target.child(a), 0, 1) for a in range(len(choice.options))}
    assert values == pytest.approx({k: float(v) for k, v in exact.items()}, abs=1e-12)


def watching_rewards() -> dict[str, Fraction]:
    """The mcts's reward of each of Red's orders, by hand: the brutes must charge; on overwatch (and
    not having dashed) the gunners' two shots kill Binomial(2, 1/2) brutes first; two dead is a win
    (0.9 + 0.1), else a draw (0.45 + 0.1 x Red's share over both shares)."""
    def draw(red: Fraction, blue: Fraction) -> Fraction:
        return Fraction(45, 100) + Fraction(1, 10) * red / (red + blue)

    overwatch = sum((p * (1 if k == 2 else draw(Fraction(1), (2 - k) / Fraction(2)))
                     for k, p in enumerate(binomial(2, HALF))), Fraction(0))
    still = draw(Fraction(1), Fraction(1))
    return {"Dash": still, "Overwatch": overwatch, "Nothing": still}


def test_mcts_goes_on_overwatch_when_it_pays_where_greedy_does_not(watching: Ruleset) -> None:
    node = first_decision(watching)
    choice = node.choice()
    assert choice is not None and [o.label for o in choice.options] == ["Dash", "Overwatch", "Nothing"]
    exact = watching_rewards()
    best = max(exact, key=lambda k: exact[k])
    assert best == "Overwatch"
    # the greedy policy's estimates weigh both statuses alike, and it takes the first: Dash
    assert [choice.options[i].label for i in greedy_order(choice)][0] == "Dash"
    labels = [o.label for o in choice.options]
    mcts = MctsPolicy(iterations=200, seed=5)
    battle = Battle(Rules(watching), watching.get("duel"), [mcts, GreedyPolicy()], seed=1)
    battle.run()
    assert labels[battle.choices[0]] == best
    assert [e["unit"] for e in battle.events if e["event"] == "volley"] == ["Gunner"]  # fire at the charge
    # a deeper lookahead sees it too (Red's orders, then its answer to the charge)
    look = Battle(Rules(watching), watching.get("duel"), [LookaheadPolicy(2), GreedyPolicy()], seed=1)
    look.run()
    assert labels[look.choices[0]] == best


def test_the_exact_law_under_the_searching_players(watching: Ruleset) -> None:
    """They are deterministic, so the exact solver takes them: with mcts on Red, Red wins exactly
    when its overwatch fire kills both brutes (1/4); the default lookahead (depth 1) does not see
    the charge coming, dashes as greedy does, and never wins."""
    rules, sc = Rules(watching, exact=True), watching.get("duel")
    law = solve(rules, sc, ["mcts", "greedy"])
    assert law.win(0) == Fraction(1, 4) and law.draw() == Fraction(3, 4)
    assert solve(rules, sc, ["lookahead", "greedy"]).win(0) == 0


def test_the_same_seed_gives_the_same_games_and_the_players_never_touch_the_dice(sniping: Ruleset) -> None:
    rules, sc = Rules(sniping), sniping.get("duel")
    for i in range(3):
        s = game_seed(11, i)
        first = Battle(rules, sc, [MctsPolicy(iterations=12, seed=2), GreedyPolicy()], s)
        first.run()
        again = Battle(rules, sc, [MctsPolicy(iterations=12, seed=2), GreedyPolicy()], s)
        again.run()
        assert first.events == again.events and first.choices == again.choices
        scripted = Battle(rules, sc, [ScriptedPolicy(first.choices)] * 2, s)
        scripted.run()
        volleys = [e for e in first.events if e["event"] == "volley"]
        assert volleys == [e for e in scripted.events if e["event"] == "volley"]


def test_a_position_is_searched_once_whatever_the_game_that_reaches_it(watching: Ruleset) -> None:
    """Games differ by their seeds, not by their positions: in the overwatch duel a few positions
    recur in every game, and simulating more games searches no new one."""
    rules, sc = Rules(watching), watching.get("duel")
    before = answers_kept()
    first = play_games(rules, sc, "mcts:greedy", 4, 0, 8)
    searched = answers_kept() - before
    more = play_games(rules, sc, "mcts:greedy", 4, 8, 40)
    assert 0 < searched <= 3 and answers_kept() - before == searched
    assert first.wins[1] == more.wins[1] == 0  # and on overwatch, Red never loses


def test_a_finished_battle_is_worth_its_result_and_a_tenth_of_its_material_share(sniping: Ruleset) -> None:
    """The mcts's reward, by hand: Red's two gunners are worth 10 points each, Blue's sniper 5 and
    its crate 15."""
    from compiler.battle.engine import Outcome
    from compiler.battle.search import material, reward

    state = Battle(Rules(sniping), sniping.get("duel"), [GreedyPolicy(), GreedyPolicy()], seed=0).state
    red, sniper, crate = (next(u for u in state.units if u.label.startswith(n)) for n in ("Gunner", "Sniper", "Crate"))
    red.models, crate.models = 1, 0  # Red has half its points left, Blue a quarter (the sniper)
    assert (material(state, 0), material(state, 1)) == (0.5, 0.25)
    share = 0.5 / 0.75

    def ended(winner: int | None) -> Outcome:
        return Outcome(winner, 1, (1, 1), (), "")
    assert reward(state, 0, ended(0)) == pytest.approx(0.9 + 0.1 * share, abs=1e-15)
    assert reward(state, 1, ended(0)) == pytest.approx(0.1 * (1 - share), abs=1e-15)
    assert reward(state, 0, ended(None)) == pytest.approx(0.45 + 0.1 * share, abs=1e-15)
    red.models = sniper.models = 0  # nothing left on either side: an even share
    assert reward(state, 1, ended(None)) == pytest.approx(0.45 + 0.05, abs=1e-15)
    red.models = 2
    assert material(state, 0) == 1.0 and reward(state, 1, ended(0)) == 0.0


def test_a_search_needs_a_choice_to_weigh_and_a_playout_to_make() -> None:
    for make in (lambda: LookaheadPolicy(0), lambda: MctsPolicy(iterations=0), lambda: MctsPolicy(depth=0)):
        with pytest.raises(ValueError):
            make()
    assert LookaheadPolicy(1).depth == 1 and MctsPolicy(iterations=1, depth=1).iterations == 1


def test_without_playouts_to_compare_an_option_with_the_greedy_pick_stands(sniping: Ruleset) -> None:
    """Two playouts a decision, and Red's two decisions (shoot or not, then the crate or the sniper)
    have two options each: each option played once, no spread to judge a difference by, so the
    greedy pick stands; and a searcher not seated at a battle picks as greedy does."""
    node = first_decision(sniping).child(0)
    choice = node.choice()
    assert choice is not None and len(choice.options) == 2
    greedy = greedy_order(choice)[0]
    battle = Battle(Rules(sniping), sniping.get("duel"), [MctsPolicy(iterations=2, seed=1), GreedyPolicy()], seed=3,
                    record=False)
    battle.run()
    assert battle.choices[:2] == [0, greedy]
    assert MctsPolicy().choose(choice) == LookaheadPolicy().choose(choice) == greedy


def test_another_option_replaces_the_greedy_pick_only_beyond_twice_the_standard_error() -> None:
    """Paired differences (0.75, 0.25): mean 0.5, standard error 0.25, so 0.5 is not beyond twice
    it; (0.75, 0.5): mean 0.625 against 0.25."""
    from compiler.battle.search import _Arm, surely_better

    def arm(other: list[float]) -> _Arm:
        a = _Arm([1, 0])  # option 1 is the greedy pick
        a.rewards = [other, [0.0, 0.0]]
        return a
    assert surely_better(arm([0.75, 0.25])) == 1
    assert surely_better(arm([0.75, 0.5])) == 0
    assert surely_better(arm([0.75])) == 1  # one playout: no spread
    three = _Arm([2, 0, 1])
    three.rewards = [[0.75, 0.5], [1.0, 1.0], [0.0, 0.0]]  # both beat the greedy pick; the better one is taken
    assert surely_better(three) == 1


def test_the_answers_kept_are_emptied_past_their_bound(sniping: Ruleset, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a bound of one answer, the store holds two at most (it is emptied when a search finds
    it past the bound), and a battle of four decisions still plays as it does unbounded."""
    from compiler.battle import search

    class Watched(LookaheadPolicy):
        def choose(self, choice: Choice) -> int:
            picked = super().choose(choice)
            held.append(answers_kept() - before)
            return picked

    rules, sc = Rules(sniping), sniping.get("duel")
    free = Battle(rules, sc, [LookaheadPolicy(), LookaheadPolicy()], seed=3, record=False)
    free.run()
    monkeypatch.setattr(search, "KEPT", 1)
    rules = Rules(sniping)  # a store of its own
    held: list[int] = []
    before = answers_kept()
    bounded = Battle(rules, sc, [Watched(), Watched()], seed=3, record=False)
    bounded.run()
    assert held == [1, 2, 1, 2] and bounded.choices == free.choices


def test_a_playout_plays_from_the_position_searched_and_asks_only_the_searching_sides_choices_in_its_tree(
        sniping: Ruleset, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each playout replays the battle's answers so far (choices and rolls) to the position searched,
    then asks its tree only the searching side's choices, as many as the tree is deep (one by
    default: the decision searched); everything else is the engine's greedy shortcut.  Blue's
    decisions come after Red's volley, so its playouts replay rolls."""
    from compiler.battle import search
    from compiler.battle.exact import state_key

    playouts: list[Any] = []

    class Recorded(search._Playout):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.asked: list[tuple[int, Any]] = []
            playouts.append(self)

        def choose(self, choice: Choice) -> int:
            if self.at >= len(self.trail):
                assert self.battle is not None
                self.asked.append((choice.side, state_key(self.battle.state)))
            return super().choose(choice)

    searched: list[tuple[int, Any, int]] = []

    class Watched(MctsPolicy):
        def search(self, battle: Battle, trail: tuple[int, ...], choice: Choice) -> int:
            searched.append((choice.side, state_key(battle.state), len(playouts)))
            return super().search(battle, trail, choice)

    monkeypatch.setattr(search, "_Playout", Recorded)
    sc = sniping.get("duel")
    for depth in (1, 2):
        playouts.clear()
        searched.clear()
        battle = Battle(Rules(sniping), sc, [Watched(iterations=8, seed=4, depth=depth)] * 2, seed=3, record=False)
        battle.run()
        assert {side for side, _, _ in searched} == {0, 1}
        for k, (side, state, start) in enumerate(searched):
            mine = playouts[start:start + 8]
            assert len(mine) == 8 and len({id(p.tree) for p in mine}) == 1
            for p in mine:
                assert p.asked[0] == (side, state) and {s for s, _ in p.asked} == {side}
                assert len(p.asked) <= depth
            assert (len(mine[0].tree) == 1) == (depth == 1 or all(len(p.asked) == 1 for p in mine))
        assert depth == 1 or any(len(p.asked) == 2 for p in playouts)  # Red's target, in the tree two deep
