"""The walk over kept transitions (compiler.battle.walk): a game walked with a seed must be the
game the engine plays with that seed, on a duel whose positions differ only by the wounds on a
model (and on every bundled scenario: tests/test_battle_shortcuts.py); a kept transition that
disagrees with the engine is an error, never an answer."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import compiler
from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, Outcome, RandomPolicy, Rules, game_seed
from compiler.battle.rules import bernoulli
from compiler.battle.simulate import play_games
from compiler.battle.streams import Stream, draws_at, game_seed_array
from compiler.battle import walk as walk_module
from compiler.battle.walk import Position, Step, Walk, WalkError, position_key, walk_for
from compiler.driver import compile_text

from battle_duels import OGRES



@pytest.fixture(scope="module")
def wounds() -> compiler.Ruleset:
    result = compile_text(OGRES, "ogres.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    return result.rulesets[0]


def engine(rules: Rules, sc: A.Scenario, seed: int) -> Outcome:
    return Battle(rules, sc, [GreedyPolicy() for _ in sc.sides], seed, record=False).run()


def test_positions_that_differ_only_by_wounds_are_kept_apart(wounds: compiler.Ruleset) -> None:
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    walk, rules = Walk(Rules(wounds), sc, ["greedy", "greedy"]), Rules(wounds)
    for i in range(250):
        seed = game_seed(5, i)
        walked, played = walk.play(seed), engine(rules, sc, seed)
        assert walked == played, f"game {i}"
        assert walked.final is not None and played.final is not None
        assert walked.final.snapshot() == played.final.snapshot(), f"game {i}"
    assert walk.played < 0.9 * walk.games  # games walked without the engine playing any of it
    # the walk met positions equal in all but the wounds on the front ogre, and kept them apart
    apart: dict[tuple[object, ...], set[int]] = {}
    for position in walk.positions.values():
        assert position.state is not None
        ogres = position.state.units[0]
        key = (position.turn, position.first, position.player, tuple((u.models, u.position) for u in position.state.units))
        apart.setdefault(key, set()).add(ogres.wounds)
    assert any(len(w) > 1 for w in apart.values())
    # positions between the two players' turns are kept too (a battle resumed there plays the same game)
    assert {p.player for p in walk.positions.values()} == {0, 1}
    # each kept state is still the one it was kept under: the copy shares nothing the battles went on changing
    for kept, position in walk.positions.items():
        assert position.state is not None
        assert position_key(position.state, position.turn, position.first, position.player) == kept


def test_a_simulation_walks_its_greedy_games(wounds: compiler.Ruleset) -> None:
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    rules = Rules(wounds)
    tally = play_games(rules, sc, "greedy", 3, 0, 100)
    outcomes = [engine(Rules(wounds), sc, game_seed(3, i)) for i in range(100)]
    assert tally.wins == tuple(sum(1 for o in outcomes if o.winner == k) for k in (0, 1))
    assert tally.turns == sum(o.turns for o in outcomes)
    assert walk_for(rules, sc, ["greedy", "greedy"]).games == 100
    # a random side is never walked: its answers come from its own stream, game by game
    mixed = play_games(rules, sc, "random:greedy", 3, 0, 20)
    plain = []
    for i in range(20):
        s = game_seed(3, i)
        plain.append(Battle(rules, sc, [RandomPolicy(s + 1), GreedyPolicy()], s, record=False).run())
    assert mixed.wins == tuple(sum(1 for o in plain if o.winner == k) for k in (0, 1))
    assert mixed.turns == sum(o.turns for o in plain)


def test_games_walked_many_at_once_are_the_games_the_engine_plays(wounds: compiler.Ruleset) -> None:
    """Walk.play_many walks a batch over the kept transitions' flat arrays: each game's outcome is
    the engine's with its seed, alone (game by game) and in a batch (the same outcomes, as many)."""
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    rules, plain = Rules(wounds), Rules(wounds)
    walk = Walk(rules, sc, ["greedy", "greedy"])
    batch = game_seed_array(6, 0, 400)  # a fresh walk: most of it is explored by the first games
    played = Counter(engine(plain, sc, s) for s in batch.tolist())
    walked: Counter[Outcome] = Counter()
    for out, games in walk.play_many(batch):
        walked[out] += games
    assert walked == played and walk.games == 400
    batch = game_seed_array(8, 0, 600)  # more, over what is kept (the chance nodes' slices worked out)
    walked = Counter()
    for out, games in walk.play_many(batch):
        walked[out] += games
    assert walked == Counter(engine(plain, sc, s) for s in batch.tolist())
    assert walk.flat.sliced > 0
    explored = walk.played
    for i in range(150):  # new games, one at a time, over what is kept (or explored where nothing is)
        seed = game_seed(7, i)
        [(out, games)] = walk.play_many(np.array([seed], dtype=np.uint64))
        assert games == 1 and out == engine(plain, sc, seed), f"game {i}"
    assert walk.played < explored + 100, (explored, walk.played)


def test_draws_at_a_game_s_node_are_the_draws_of_its_stream() -> None:
    """The flat walk's k-th draw of a game is its stream's k-th draw, bit for bit."""
    seeds = game_seed_array(2, 0, 40)
    for k in (0, 1, 9, 30):
        assert draws_at(seeds, k).tolist() == [Stream(s, k).random() for s in seeds.tolist()]


# Each side charges, then shoots; a charged unit that fails its test has spent its action and does
# not shoot in its own turn, one that passes is braced only until the charger's turn ends: between
# the two players' turns, positions differ only by what a unit spent.
SPENT = '''
ruleset spent "Spent reactions":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat Sv "Save" target
stat W "Wounds" 1..10 role wounds
stat Ld "Leadership" 2..12
test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
test steady(Ld) = roll 2d6 <= Ld
status locked "Locked": "In combat."
status braced "Braced": "Ready for the charge."
attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each weapon.A
  hits = shots each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target
unit trooper "Trooper":
  BS 4  Sv 5+  W 1  Ld 7
  weapons rifle
weapon rifle "Rifle":
  A 1
game g "A firefight with charges":
  turns 3
  activation whole_army
  phase assault "Assault":
    must action charge "Charge": engage within 24" as locked
  phase fire "Fire":
    must action shoot "Shoot": attack shooting
  when charged unless braced, spending its action on a failure: tests steady(Ld), sets braced until end of turn
  victory wipe "Annihilation" by annihilation: "A side with no models left loses."
scenario s "Charge and shoot":
  game g
  distance 12"
  first red
  side red "Red":
    5 trooper
  side blue "Blue":
    5 trooper
'''


def test_positions_between_players_turns_keep_what_each_unit_spent() -> None:
    result = compile_text(SPENT, "spent.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    sc = model.get("s")
    assert isinstance(sc, A.Scenario)
    walk, rules = Walk(Rules(model), sc, ["greedy", "greedy"]), Rules(model)
    for i in range(150):
        seed = game_seed(3, i)
        assert walk.play(seed) == engine(rules, sc, seed), f"game {i}"
    between = [p for p in walk.positions.values() if p.player]
    assert any(any(u.spent for u in p.state.units) for p in between if p.state is not None)
    assert any(not any(u.spent for u in p.state.units) for p in between if p.state is not None)


def test_a_kept_transition_that_disagrees_with_the_engine_is_an_error(wounds: compiler.Ruleset) -> None:
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    walk = Walk(Rules(wounds), sc, ["greedy", "greedy"])
    walk.play(game_seed(1, 0))
    first = walk.root.next
    assert isinstance(first, Step)  # who goes first
    # the first turn's first volley replaced by a roll the engine does not make there
    position = first.children[0] or first.children[1]
    assert isinstance(position, Position)
    position.next = Step(bernoulli(0.5), position, ())
    first.children[:] = [position, position]  # whoever goes first, the walk reaches the wrong roll
    with pytest.raises(WalkError):
        walk.play(game_seed(1, 1))


def test_a_walk_refuses_players_that_do_not_always_answer_alike(wounds: compiler.Ruleset) -> None:
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    with pytest.raises(ValueError, match="random"):
        Walk(Rules(wounds), sc, ["random", "greedy"])


def test_a_walk_past_its_bounds_starts_again_or_gives_up_and_plays_the_same_games(
        wounds: compiler.Ruleset, monkeypatch: pytest.MonkeyPatch) -> None:
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    rules = Rules(wounds)
    monkeypatch.setattr(walk_module, "STEPS", 20)  # a handful of chance nodes, then start again
    monkeypatch.setattr(walk_module, "REVIEW", 5)
    small = Walk(Rules(wounds), sc, ["greedy", "greedy"])
    restarted = False
    for i in range(60):
        seed = game_seed(8, i)
        root = small.root
        assert small.play(seed) == engine(rules, sc, seed), f"game {i}"
        restarted |= small.root is not root
    assert restarted and small.steps < 20 + 40  # started again, and kept few
    monkeypatch.setattr(walk_module, "STEPS", 200_000)
    monkeypatch.setattr(walk_module, "TRIAL", 10)
    monkeypatch.setattr(walk_module, "GIVE_UP", 0.0)  # any new position is too many: give up
    given_up = Walk(Rules(wounds), sc, ["greedy", "greedy"])
    for i in range(30):
        seed = game_seed(9, i)
        assert given_up.play(seed) == engine(rules, sc, seed), f"game {i}"
    assert not given_up.keeping and not given_up.positions


def test_each_thread_walks_on_its_own(wounds: compiler.Ruleset) -> None:
    """Games played at once on several threads (a dask worker's) never share a walk: one thread's
    exploration would take up the state of another's."""
    import threading

    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    rules = Rules(wounds)
    here = walk_for(rules, sc, ["greedy", "greedy"])
    assert walk_for(rules, sc, ["greedy", "greedy"]) is here
    there: list[Walk] = []
    tallies = []
    both = threading.Barrier(2)  # both threads alive at once (a thread's id may be reused once it ends)

    def chunk() -> None:
        both.wait()
        there.append(walk_for(rules, sc, ["greedy", "greedy"]))
        tallies.append(play_games(rules, sc, "greedy", 4, 0, 150))

    threads = [threading.Thread(target=chunk) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(there) == 2 and here not in there and there[0] is not there[1]
    alone = play_games(rules, sc, "greedy", 4, 0, 150)
    assert all(t.wins == alone.wins and t.turns == alone.turns for t in tallies)


def tallied(ends: list[tuple[Outcome, int]]) -> Counter[Outcome]:
    out: Counter[Outcome] = Counter()
    for outcome, games in ends:
        out[outcome] += games
    return out


def crowd() -> tuple[Rules, A.Scenario]:
    """Forty gunners a side over six turns: nearly every game turn begins at a position not met
    before, some 2.3 a game over the first fifty (2.45 over the first twenty)."""
    text = OGRES.replace("turns 4", "turns 6").replace("    2 ogre\n", "    40 gunner\n").replace(
        "    6 gunner\n", "    40 gunner\n")
    result = compile_text(text, "crowd.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    sc = result.rulesets[0].get("ogres")
    assert isinstance(sc, A.Scenario)
    return Rules(result.rulesets[0]), sc


def test_a_walk_whose_positions_come_thick_gives_up_keeping_at_its_twentieth_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """More than EARLY_GIVE_UP new positions a game over the first EARLY = 20 games (the
    documented bound, at exactly the bound; EARLY_GIVE_UP lowered from its 2.8 under the crowd's
    2.45): the engine plays alone from the twentieth."""
    rules, sc = crowd()
    assert (walk_module.EARLY, walk_module.EARLY_GIVE_UP) == (20, 2.8)
    monkeypatch.setattr(walk_module, "EARLY_GIVE_UP", 2.3)
    seeds = game_seed_array(12, 0, 21)
    walk = Walk(rules, sc, ["greedy", "greedy"])
    walked = [walk.play(s) for s in seeds[:19].tolist()]
    assert walk.keeping and walk.games == 19 and 2.3 * 20 < walk.turns <= 2.8 * 20 and walk.positions
    walked.append(walk.play(int(seeds[19])))
    assert not walk.keeping and not walk.positions and walk.games == 19
    assert walked[::5] == [engine(rules, sc, s) for s in seeds[:20:5].tolist()]


def test_a_walk_whose_positions_do_not_recur_gives_up_keeping_at_its_two_hundredth_game() -> None:
    """Fewer than EARLY_GIVE_UP new positions a game by the twentieth and the fiftieth (the
    crowd's 2.45 and 2.3, under 2.8), more than one a game: the walk keeps them for its first TRIAL = 200
    games (the documented bound, at exactly the bound), then the engine plays alone — the same
    games, walked one at a time or many at once."""
    rules, sc = crowd()
    assert walk_module.TRIAL == 200
    seeds = game_seed_array(12, 0, 201)
    one, many = Walk(Rules(rules.model), sc, ["greedy", "greedy"]), Walk(Rules(rules.model), sc, ["greedy", "greedy"])
    walked = [one.play(s) for s in seeds[:199].tolist()]
    assert tallied(many.play_many(seeds[:199])) == Counter(walked)
    for walk in (one, many):
        assert walk.keeping and walk.games == 199 and walk.turns > 199 and walk.positions
    walked += [one.play(s) for s in seeds[199:].tolist()]  # the 200th game is played with nothing kept
    assert tallied(many.play_many(seeds[199:])) == Counter(walked[199:])
    for walk in (one, many):
        assert not walk.keeping and not walk.positions and walk.games == 199
    assert walked[::20] + walked[199:] == [engine(rules, sc, s) for s in seeds[::20].tolist() + seeds[199:].tolist()]


def test_a_game_walked_again_is_not_played_by_the_engine_again(wounds: compiler.Ruleset) -> None:
    """``played`` counts the games the engine had to play some of: the first game of a fresh walk,
    not the same game walked again (everything it met is kept)."""
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    walk = Walk(Rules(wounds), sc, ["greedy", "greedy"])
    seed = game_seed(13, 0)
    first = walk.play(seed)
    assert (walk.games, walk.played) == (1, 1)
    assert walk.play(seed) == first and (walk.games, walk.played) == (2, 1)
    seeds = [game_seed(13, i) for i in range(1, 21)]
    for s in seeds:  # new games: those that meet an outcome not met before are played from there on
        walk.play(s)
    assert 1 < walk.played <= 21
    played = walk.played
    for s in seeds:
        walk.play(s)
    assert walk.played == played


def test_the_flat_arrays_mirror_every_kept_transition(wounds: compiler.Ruleset) -> None:
    """After games walked many at once, each kept chance node's row holds, per outcome, the code of
    what followed it — passing over the positions between, which draw nothing — or nothing kept."""
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    walk = Walk(Rules(wounds), sc, ["greedy", "greedy"])
    walk.play_many(game_seed_array(14, 0, 300))
    flat = walk.flat
    flat.sync()

    def code(node: object) -> int:
        while isinstance(node, Position):
            node = node.next
        if node is None:
            return walk_module.UNKNOWN
        if isinstance(node, Step):
            return node.row
        return -2 - next(k for k, end in enumerate(flat.ends) if end is node)

    assert walk.root.code == code(walk.root) != walk_module.UNKNOWN
    assert len(flat.nodes) == walk.steps > 50
    linked = 0
    for row, step in enumerate(flat.nodes):
        assert step.row == row
        for i, child in enumerate(step.children):
            assert flat.child[row, i] == code(child), (row, i)
            linked += child is not None
    assert linked > len(flat.nodes)


def test_a_kept_successor_other_than_the_one_the_engine_reaches_is_an_error(wounds: compiler.Ruleset) -> None:
    """The exploring battle's nature, told the engine reached a position, an outcome or a chance node
    after an outcome whose successor is kept: the same one goes on; any other is an error."""
    sc = wounds.get("ogres")
    assert isinstance(sc, A.Scenario)
    walk = Walk(Rules(wounds), sc, ["greedy", "greedy"])
    walk.play(game_seed(1, 0))
    first = walk.root.next
    assert isinstance(first, Step) and walk._explorer is not None
    i = 0 if first.children[0] is not None else 1
    kept = first.children[i]
    assert isinstance(kept, Position)
    keeper = walk._explorer[1]
    keeper.parent, keeper.index = first, i
    keeper._attach(kept)  # the same successor
    assert first.children[i] is kept
    with pytest.raises(WalkError, match="kept transition leads to"):
        keeper._attach(Position(kept.turn, kept.first, kept.state, kept.player))
