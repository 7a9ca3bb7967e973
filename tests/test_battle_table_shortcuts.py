"""The table's shortcuts (compiler.battle.view, Table.pair and Table.move kept per points, the lean
key of a move's worth, the bands of distance a move's worth is kept and worked out by): every
answer they keep must be the answer worked out afresh, and the games must be the games the engine
plays without them, on a table with every kind of terrain, objectives, an engagement with a
reaction, on a table whose volleys read the distance (bands), and on the bench's ten units a side."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterator

import pytest

import compiler
from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, RandomPolicy, Rules, game_seed
from compiler.battle.bands import Bands
from compiler.battle.estimates import Estimates
from compiler.battle.signature import signature
from compiler.battle.table import Table
from compiler.battle.view import View, look
from compiler.driver import compile_text

ROOT = Path(__file__).resolve().parent.parent

# Woods (cover, difficult), a wall (blocks sight), a lake (impassable), haze (fire through it),
# weapons of three ranges, a distance situation and a derived one, an engagement and a combat; on
# zoo_table two objectives and overwatch (a status held for a reaction: a move is weighed against
# the whole state), on zoo_lean neither (a move is weighed by its lean key), a status that bars
# shooting, and a test before a volley.
ZOO = '''
ruleset zoo "Zoo":
  version 1.0.0

stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat Sv "Save" 1..7
stat Ld "Leadership" 1..10
stat W "Wounds" 1..10 role wounds
stat Range "Range" 0..100

situation in_cover "In cover"
situation smoke "Through smoke"
situation on_overwatch "On overwatch"
situation distance "Distance" 0..48
situation crowd "How many shoot" one of few, many
situation engaged "Engaged"
situation hunkered "Gone to ground"

test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv
test leadership(Ld) = roll 2d6 <= Ld

attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each (if distance <= 6 then weapon.A + 1 else weapon.A)
  hits = shots each hit(if smoke then shooter.BS + 1 else shooter.BS)
  unsaved = hits each not save(if in_cover then target.Sv - 1 else target.Sv)
  killed = unsaved removes target

unit ogre "Ogre":
  BS 4  Sv 5  Ld 8  W 3
  weapons cleaver, pistol
unit gunner "Gunner":
  BS 4  Sv 6  Ld 7  W 1
  weapons pistol, rifle
weapon cleaver "Cleaver":
  A 2  Range 8
weapon pistol "Pistol":
  A 1  Range 12
weapon rifle "Rifle":
  A 1  Range 24

game field "A field battle":
  turns 4
  activation alternating_units
  control within 3" by models
  situation crowd is many when models > 3, otherwise few
  terrain woods "Woods": sets in_cover for units in it, costs 2 inches per inch
  terrain wall "Wall": blocks sight
  terrain lake "Lake": impassable
  terrain haze "Haze": sets smoke for fire through it
  phase field_move "Movement":
    action advance "Advance": move up to 6" toward the enemy, clears on_overwatch
    action seize "Seize": move up to 5" toward the nearest objective
  phase field_watch "Overwatch":
    action hold_fire "Go on overwatch": tests leadership(Ld), sets on_overwatch unless on_overwatch
  phase field_fire "Shooting":
    action field_shoot "Shoot": attack shooting within Range unless on_overwatch
  phase field_assault "Assault":
    action charge "Charge": engage within 6" as engaged unless engaged
    combat shooting in order of Ld
  when charged if on_overwatch: attack shooting within Range, clears on_overwatch
  score held "Objective held": 1 for each objective held at end of turn
  victory field_wipe "Annihilation" by annihilation: "A side with no models left loses."
  victory most "Most points" by highest_score

game skirmish "A skirmish without reactions":
  turns 4
  activation alternating_units
  situation crowd is many when models > 3, otherwise few
  terrain woods "Woods": sets in_cover for units in it, costs 2 inches per inch
  terrain wall "Wall": blocks sight
  terrain lake "Lake": impassable
  terrain haze "Haze": sets smoke for fire through it
  phase skirmish_move "Movement":
    action close "Advance": move up to 6" toward the enemy, clears hunkered
  phase skirmish_fire "Shooting":
    action hunker "Go to ground": sets hunkered unless hunkered
    action steady "Steady fire": tests leadership(Ld), attack shooting within Range unless hunkered
  phase skirmish_assault "Assault":
    action assault "Charge": engage within 6" as engaged unless engaged or hunkered
    combat shooting in order of Ld
  victory skirmish_wipe "Annihilation" by annihilation: "A side with no models left loses."

scenario zoo_table "A table with everything":
  game field
  table 36" by 36"
  first random
  terrain west_wood "West wood" woods from 4", 12" to 12", 20"
  terrain middle_wall "Middle wall" wall from 16", 16" to 20", 20"
  terrain east_lake "East lake" lake from 24", 14" to 30", 22"
  terrain haze_band "Haze" haze from 0", 22" to 36", 24"
  objective centre "Centre" at 18", 10"
  objective north "North" at 10", 28"
  side north "North":
    2 ogre at 4", 2"
    2 ogre at 20", 2"
    5 gunner at 12", 6"
    5 gunner at 28", 6"
  side south "South":
    2 ogre at 6", 34"
    2 ogre at 22", 34"
    5 gunner at 14", 30"
    5 gunner at 30", 30"

scenario zoo_lean "A table without objectives or reactions":
  game skirmish
  table 36" by 36"
  first random
  terrain west_wood "West wood" woods from 4", 12" to 12", 20"
  terrain middle_wall "Middle wall" wall from 16", 16" to 20", 20"
  terrain east_lake "East lake" lake from 24", 14" to 30", 22"
  terrain haze_band "Haze" haze from 0", 22" to 36", 24"
  side north "North":
    2 ogre at 4", 2"
    2 ogre at 20", 2"
    5 gunner at 12", 6"
    5 gunner at 28", 6"
  side south "South":
    2 ogre at 6", 34"
    2 ogre at 22", 34"
    5 gunner at 14", 30"
    5 gunner at 30", 30"
'''

# No derived situation (so distances fall in bands), the situation ``distance`` read by the volley
# (a band is a whole inch within its range), weapons of two ranges, woods and a wall; no
# engagement, no objective: a move's worth is kept and worked out by bands of distance.  A status
# the rules read for the unit attacked (hunkered: +1 to save), which no greedy unit takes (it only
# sets a status) and a random one may.
BANDED = '''
ruleset banded "Banded":
  version 1.0.0

stat BS "Ballistic Skill" 1..10
stat A "Attacks" 1..10
stat Sv "Save" 1..7
stat W "Wounds" 1..10 role wounds
stat Range "Range" 0..100

situation in_cover "In cover"
situation distance "Distance" 0..20
situation hunkered "Gone to ground"

test hit(BS) = roll d6 >= BS
test save(Sv) = roll d6 >= Sv

attack shooting(shooter, weapon, target) "Shooting":
  shots = shooter.models each (if distance <= 6 then weapon.A + 1 else weapon.A)
  hits = shots each hit(shooter.BS)
  unsaved = hits each not save(if in_cover then target.Sv - 1 else target.Sv)
  killed = unsaved removes target

modifier hug "Hugging the ground": +1 to save when hunkered

unit ogre "Ogre":
  BS 4  Sv 5  W 3
  weapons cleaver, pistol
unit gunner "Gunner":
  BS 4  Sv 6  W 1
  weapons rifle
weapon cleaver "Cleaver":
  A 2  Range 8
weapon pistol "Pistol":
  A 1  Range 12
weapon rifle "Rifle":
  A 1  Range 24

game field "A field battle":
  turns 4
  activation alternating_units
  terrain woods "Woods": sets in_cover for units in it, costs 2 inches per inch
  terrain wall "Wall": blocks sight
  phase field_move "Movement":
    action advance "Advance": move up to 6" toward the enemy
  phase field_fire "Shooting":
    action field_shoot "Shoot": attack shooting within Range
    action hunker "Go to ground": sets hunkered unless hunkered
  victory field_wipe "Annihilation" by annihilation: "A side with no models left loses."

scenario banded_table "A table whose volleys read the distance":
  game field
  table 36" by 36"
  first random
  terrain west_wood "West wood" woods from 4", 12" to 12", 20"
  terrain middle_wall "Middle wall" wall from 16", 16" to 20", 20"
  side north "North":
    2 ogre at 4", 2"
    2 ogre at 20", 2"
    5 gunner at 12", 6"
    5 gunner at 28", 6"
  side south "South":
    2 ogre at 6", 34"
    2 ogre at 22", 34"
    5 gunner at 14", 30"
    5 gunner at 30", 30"
'''


@pytest.fixture(scope="module")
def scenarios() -> dict[str, tuple[compiler.Ruleset, A.Scenario]]:
    result = compile_text(ZOO, "zoo.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    bench = compiler.compile_paths([str(ROOT / "bench" / "battles")])
    assert bench.ok
    banded = compile_text(BANDED, "banded.rules")
    assert banded.ok, [d.message for d in banded.diagnostics]
    out = {}
    for rs, sid in ((result.rulesets[0], "zoo_table"), (result.rulesets[0], "zoo_lean"),
                    (bench.rulesets[0], "ten_a_side"), (banded.rulesets[0], "banded_table")):
        sc = rs.get(sid)
        assert isinstance(sc, A.Scenario)
        out[sid] = (rs, sc)
    return out


def game(rules: Rules, sc: A.Scenario, index: int, mixed: bool) -> tuple[Any, ...]:
    seed = game_seed(2, index)
    battle = Battle(rules, sc, [GreedyPolicy(), RandomPolicy(seed) if mixed else GreedyPolicy()], seed)
    return battle.run(), battle.choices, battle.events


def plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine without the shortcuts: each view looked at afresh, no pair of points kept, a
    move's worth kept under the whole signature and worked out at each distance (no bands)."""
    def pair(self: Table, ax: float, ay: float, bx: float, by: float) -> tuple[float, bool, tuple[str, ...]]:
        return (round(math.hypot(ax - bx, ay - by), 3), self.in_sight((ax, ay), (bx, by)),
                self.situations((ax, ay), (bx, by)) if self.areas else ())
    monkeypatch.setattr(Table, "pair", pair)
    monkeypatch.setattr(Estimates, "view", lambda self, unit: look(self.state, unit))
    monkeypatch.setattr(Estimates, "move_key", lambda self, unit: self.signature(unit))
    monkeypatch.setattr(Bands, "of", lambda self, distance: distance)
    monkeypatch.setattr(Estimates, "volleys", lambda self, unit, attack, reach: tuple(
        (self.weapons(attack, unit, f, reach, d), self.expected(attack, unit, f, d, reach=reach, cover=c))
        for (f, c), d in zip(self.view(unit).seen, self.view(unit).distances)))
    monkeypatch.setattr(Estimates, "worths", lambda self, unit, attack, reach, distance: [
        self.expected(attack, unit, f, distance, reach=reach, cover=c) for f, c in self.view(unit).distinct])


SCENARIOS = ["zoo_table", "zoo_lean", "ten_a_side", "banded_table"]


def test_a_move_is_weighed_by_its_lean_key_where_nothing_else_counts(scenarios: dict[str, Any]) -> None:
    lean = {sid: Battle(Rules(rs), sc, [GreedyPolicy(), GreedyPolicy()], 1).estimates.lean
            for sid, (rs, sc) in scenarios.items()}
    assert lean == {"zoo_table": False, "zoo_lean": True, "ten_a_side": True, "banded_table": True}


@pytest.mark.parametrize("sid", SCENARIOS)
def test_the_games_are_the_engines_without_the_shortcuts(scenarios: dict[str, Any], sid: str) -> None:
    rs, sc = scenarios[sid]
    fast = Rules(rs)
    games = 5 if sid == "ten_a_side" else 3
    played = [game(fast, sc, i, mixed) for i in range(games) for mixed in (False, True)]
    with pytest.MonkeyPatch.context() as mp:
        plain(mp)
        slow = Rules(rs)
        assert played == [game(slow, sc, i, mixed) for i in range(games) for mixed in (False, True)]
    assert sum(len(p[1]) for p in played) > 200  # the games had choices to make


@pytest.fixture()
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Every view, every volley's worth read from a view or a unit's row of volleys at a distance,
    every move's worth, and each acting unit's signature and view made in one pass, checked against the same worked out afresh as it is answered (a move's
    worth over every enemy in sight, not one of each kind); the counts of each check."""
    counts = [0, 0, 0, 0, 0]
    view, volleys, moves, worths, scan = Estimates.view, Estimates.volleys, Estimates.moves, Estimates.worths, \
        Estimates.scan

    def checked_scan(self: Estimates, unit: Any, *args: Any) -> Any:
        """The signature and the view of one pass are those worked out each on its own (and the
        view held in the signature's stead, where the state's answers are not kept, gives way to
        the signature when asked, and is still the view)."""
        got = scan(self, unit, *args)
        fresh = look(self.state, unit)
        assert self.sig == (unit, got) and (got == signature(self.state, unit) if isinstance(got, tuple) else
                                            got is self.view(unit) and self.signature(unit) == signature(self.state, unit))
        kept = self.view(unit)
        assert (kept.seen, kept.distances, kept.nearest, kept.gap) == (fresh.seen, fresh.distances, fresh.nearest,
                                                                       fresh.gap)
        counts[4] += 1
        return got

    def checked_view(self: Estimates, unit: Any) -> View:
        got, fresh = view(self, unit), look(self.state, unit)
        assert (got.seen, got.distances, got.nearest, got.gap, got.kinds, got.distinct) == \
            (fresh.seen, fresh.distances, fresh.nearest, fresh.gap, fresh.kinds, fresh.distinct)
        counts[0] += 1
        return got

    def checked_volleys(self: Estimates, unit: Any, attack: A.Attack, reach: str | None) -> Any:
        got = volleys(self, unit, attack, reach)
        st = self.state
        assert got == tuple((self.weapons(attack, unit, f, reach), self.expected(attack, unit, f, reach=reach))
                            for f in st.enemies(unit) if st.in_sight(unit, f))
        counts[1] += 1
        return got

    def checked_moves(self: Estimates, unit: Any, gap: float, steps: list[int]) -> list[float]:
        got = moves(self, unit, gap, steps)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(View, "distinct", property(lambda v: v.seen))
            mp.setattr(Bands, "of", lambda self, distance: distance)  # each step at its own distance
            assert got == self._moves(unit, gap, steps)
        counts[2] += 1
        return got

    def checked_worths(self: Estimates, unit: Any, attack: A.Attack, reach: str | None, distance: float) -> list[float]:
        got = worths(self, unit, attack, reach, distance)
        assert got == [self.expected(attack, unit, f, distance, reach=reach, cover=self.state.cover(unit, f))
                       for f, _ in look(self.state, unit).distinct]
        counts[3] += 1
        return got
    monkeypatch.setattr(Estimates, "view", checked_view)
    monkeypatch.setattr(Estimates, "scan", checked_scan)
    monkeypatch.setattr(Estimates, "worths", checked_worths)
    monkeypatch.setattr(Estimates, "volleys", checked_volleys)
    monkeypatch.setattr(Estimates, "moves", checked_moves)
    yield counts


@pytest.mark.parametrize("sid", SCENARIOS)
def test_what_the_shortcuts_keep_is_what_is_worked_out_afresh(scenarios: dict[str, Any], sid: str,
                                                              checked: list[int]) -> None:
    rs, sc = scenarios[sid]
    rules = Rules(rs)
    for i in range(6 if sid == "ten_a_side" else 3):
        game(rules, sc, i, mixed=False)
    assert min(checked) > 50, checked  # each shortcut was asked, and answered from what it kept
    battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], 1)
    table = battle.state.table
    assert table is not None and sum(map(len, table.pairs.values())) > 100
    bare = Table(table.width, table.depth, table.areas)  # nothing kept
    for a, row in table.pairs.items():
        for b, kept in row.items():
            assert kept == (round(math.dist(a, b), 3), bare.in_sight(a, b), bare.situations(a, b))
    assert len(table._moves) > 20  # and each move kept is the move worked out afresh
    for (start, goal, budget), kept_at in table._moves.items():
        assert kept_at == bare._move(start, goal, budget)


@pytest.mark.parametrize("sid", SCENARIOS)
def test_where_states_do_not_recur_nothing_is_kept_under_them_and_the_games_are_the_same(
        scenarios: dict[str, Any], sid: str, checked: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    """With every phase of every game turn judged not to recur (memo.Recurring), no offer is kept
    and a unit acting between greedy sides is given no signature unless one is asked: the games
    (greedy, and greedy against random) are those played with everything kept, and every view,
    volley, move and signature still the one worked out afresh."""
    from compiler.battle import memo
    from compiler.battle.setup import prepared
    rs, sc = scenarios[sid]
    played = [game(Rules(rs), sc, i, mixed) for i in range(2) for mixed in (False, True)]
    monkeypatch.setattr(memo, "TRIAL", 0)
    monkeypatch.setattr(memo, "RECUR", 2.0)  # never found often enough
    rules = Rules(rs)
    viewed = checked[0]
    assert played == [game(rules, sc, i, mixed) for i in range(2) for mixed in (False, True)]
    assert not prepared(rules, sc).engine.offers and checked[4] > 50 and checked[0] > viewed


def test_a_view_is_kept_only_while_the_signature_holds(scenarios: dict[str, Any]) -> None:
    rs, sc = scenarios["ten_a_side"]
    battle = Battle(Rules(rs), sc, [GreedyPolicy(), GreedyPolicy()], 1)
    est, st = battle.estimates, battle.state
    unit = st.units[0]
    est.sig = (unit, signature(st, unit))  # as the engine sets it when the unit acts
    before = est.view(unit)
    assert est.view(unit) is before and before.nearest is not None
    foe = before.nearest
    foe.models = 0  # the nearest enemy is destroyed; the unit acts again in the new state
    est.sig = (unit, signature(st, unit))
    after = est.view(unit)
    fresh = look(st, unit)
    assert after.nearest is not foe and (after.nearest, after.gap, after.seen) == (fresh.nearest, fresh.gap, fresh.seen)
    est.sig = None  # between effects nothing is kept
    assert est.view(unit) is not est.view(unit)


def lean_key(scenarios: dict[str, Any], unit_at: tuple[float, float], foe_at: tuple[float, float],
             hidden_at: tuple[float, float] = (23.0, 26.0), statuses: tuple[str, ...] = (),
             hidden_models: int = 5) -> tuple[Any, list[float]]:
    """On zoo_lean, North's first gunner unit at ``unit_at`` and South's first gunner unit at
    ``foe_at`` (South's second gunner unit at ``hidden_at``, behind the wall, its other units gone):
    the gunner's move key and a move's worth (6 steps) worked out afresh over every enemy in sight."""
    rs, sc = scenarios["zoo_lean"]
    battle = Battle(Rules(rs), sc, [GreedyPolicy(), GreedyPolicy()], 1)
    est, st = battle.estimates, battle.state
    unit, foe, hidden = st.units[2], st.units[6], st.units[7]
    for u in st.units[4:6]:
        u.models = 0
    unit.position, unit.y = unit_at
    foe.position, foe.y = foe_at
    (hidden.position, hidden.y), hidden.models = hidden_at, hidden_models
    unit.statuses = {s: "" for s in statuses}
    est.sig = (unit, signature(st, unit))
    assert est.view(unit).nearest is foe and [f for f, _ in est.view(unit).seen] == [foe]
    gap = est.view(unit).gap
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(View, "distinct", property(lambda v: v.seen))
        worth = est._moves(unit, gap, list(range(7)))
    return (gap, est.move_key(unit)), worth


def test_a_moves_lean_key_holds_everything_its_worth_depends_on(scenarios: dict[str, Any]) -> None:
    """States alike but for one thing a move's worth depends on get keys of their own: the enemy in
    the woods or in the open (at the same distance), the unit's statuses, its own cover (an enemy
    charging it), the models of an enemy out of sight (it can still be engaged)."""
    base, worth = lean_key(scenarios, (8.0, 2.0), (22.0, 2.0))
    in_wood, worth_wood = lean_key(scenarios, (8.0, 2.0), (8.0, 16.0))  # 14" off, in the west wood
    assert base[0] == in_wood[0] == 14.0 and base != in_wood and worth != worth_wood
    hunkered, worth_hunkered = lean_key(scenarios, (8.0, 2.0), (22.0, 2.0), statuses=("hunkered",))
    assert hunkered != base and worth_hunkered != worth
    wooded, _ = lean_key(scenarios, (8.0, 14.0), (22.0, 14.0), (28.0, 24.0))  # the unit itself in the west wood
    open_ground, _ = lean_key(scenarios, (14.0, 14.0), (28.0, 14.0), (28.0, 24.0))
    assert open_ground[0] == wooded[0] == 14.0 and open_ground != wooded
    assert lean_key(scenarios, (8.0, 2.0), (22.0, 2.0), hidden_models=2)[0] != base
    assert lean_key(scenarios, (8.0, 2.0), (22.0, 2.0))[0] == base  # and the same state, the same key


def test_without_an_engagement_the_lean_key_holds_the_cover_of_each_kind_in_sight(scenarios: dict[str, Any]) -> None:
    """On ten_a_side (no engagement among the later actions) two states alike but for the one
    enemy in sight standing in the woods or in the open, at the same distance, get keys of their own."""
    rs, sc = scenarios["ten_a_side"]
    rules = Rules(rs)
    keys = []
    for foe_at in ((10.0, 20.0), (26.0, 4.0), (10.0, 20.0)):  # 16" off: in the west wood, in the open
        battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], 1)
        est, st = battle.estimates, battle.state
        unit, foe = st.units[5], st.units[15]
        for u in st.units[10:]:
            u.models = 0 if u is not foe else u.models
        unit.position, unit.y = 10.0, 4.0
        foe.position, foe.y = foe_at
        est.sig = (unit, signature(st, unit))
        assert est.view(unit).gap == 16.0 and not est.lean_engage
        keys.append(est.move_key(unit))
    assert keys[0] != keys[1] and keys[0] == keys[2]


def test_the_views_example_holds() -> None:
    import doctest

    from compiler.battle import view
    assert doctest.testmod(view).failed == 0


def band_faults(scenarios: dict[str, Any], sid: str, band: Any) -> tuple[int, int]:
    """Over every shooter, target and cover of ``sid`` and distances 0" to 30" by quarter inches:
    the volleys at two distances of one ``band`` whose worth differs, and the bands met."""
    import bisect
    rs, sc = scenarios[sid]
    battle = Battle(Rules(rs), sc, [GreedyPolicy(), GreedyPolicy()], 1)
    est, st = battle.estimates, battle.state
    attack = rs.get("shooting")
    assert isinstance(attack, A.Attack)
    faults, bands = 0, set()
    for unit in (st.units[0], st.units[-1]):  # an ogre, a gunner (of the other side)
        for foe in (st.units[0], st.units[-1]):
            for cover in ((), ("in_cover",)):
                seen: dict[Any, float] = {}
                for d in (i / 4 for i in range(121)):
                    worth = est.expected(attack, unit, foe, d, reach="Range", cover=cover)
                    b = band(est.bands, d, bisect)
                    bands.add(b)
                    faults += seen.setdefault(b, worth) != worth
    return faults, len(bands)


@pytest.mark.parametrize("sid", ["banded_table", "ten_a_side"])
def test_a_band_of_distance_holds_distances_of_equal_worth(scenarios: dict[str, Any], sid: str) -> None:
    """Two distances of one band give every volley the same worth; bands left without the weapons'
    reaches, or (where the volley reads the situation ``distance``) without the whole inch, do not."""
    faults, bands = band_faults(scenarios, sid, lambda b, d, bisect: b.of(d))
    assert faults == 0 and 2 < bands < 40  # and they do group distances (121 of them)
    no_reach = band_faults(scenarios, sid, lambda b, d, bisect: int(round(d)) if b.rounded else 0)
    assert no_reach[0] > 0
    if sid == "banded_table":
        assert band_faults(scenarios, sid, lambda b, d, bisect: bisect.bisect_left(b.thresholds, d))[0] > 0
    else:  # no situation distance: a band per reach short of the distance, no more
        assert not scenarios[sid][0].situations.get("distance")
        thresholds = Battle(Rules(scenarios[sid][0]), scenarios[sid][1], [GreedyPolicy(), GreedyPolicy()],
                            1).estimates.bands.thresholds
        assert bands == 1 + sum(1 for t in thresholds if 0 <= t < 30)


def test_bands_are_left_out_where_a_derived_situation_reads_the_distance(scenarios: dict[str, Any]) -> None:
    rs, sc = scenarios["zoo_lean"]  # a derived situation (crowd): each distance its own band
    bands = Battle(Rules(rs), sc, [GreedyPolicy(), GreedyPolicy()], 1).estimates.bands
    assert bands.exact and bands.of(3.25) == 3.25 and bands.of(3.25) != bands.of(3.5)
    assert bands.run(10.5, 3) == (10.5, 9.5, 8.5)



def test_a_view_holds_the_statuses_a_volley_reads_of_each_enemy(scenarios: dict[str, Any]) -> None:
    """An enemy that holds a status the rules read for the side attacked (hunkered: +1 to save) is
    seen with it after the table's situations, as the volley at it is worked out; the others without."""
    rs, sc = scenarios["banded_table"]
    battle = Battle(Rules(rs), sc, [GreedyPolicy(), GreedyPolicy()], 1)
    est, st = battle.estimates, battle.state
    assert st.defending == frozenset({"hunkered"})
    unit, foe, other = st.units[2], st.units[6], st.units[7]
    (unit.position, unit.y), (foe.position, foe.y), (other.position, other.y) = (8.0, 10.0), (8.0, 16.0), (20.0, 10.0)
    foe.statuses, unit.statuses = {"hunkered": ""}, {"hunkered": ""}  # the shooter's own is not read
    seen = {f.uid: cover for f, cover in look(st, unit).seen}
    assert seen[foe.uid] == ("in_cover", "hunkered") == st.cover(unit, foe)
    assert seen[other.uid] == () == st.cover(unit, other)
    attack = rs.get("shooting")
    assert isinstance(attack, A.Attack)
    assert est.expected(attack, unit, foe, 6.0, reach="Range", cover=seen[foe.uid]) < \
        est.expected(attack, unit, foe, 6.0, reach="Range", cover=("in_cover",))


def test_whether_a_unit_can_attack_by_the_actions_plan_is_the_answer_worked_out_afresh(
        scenarios: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """On a table an action whose attacks are each a volley at every enemy in sight is answered
    by its plan (estimates.volley_plan); at every decision of greedy and mixed games on each test
    table the answer is the one the effects give read one by one (Estimates._can_attack), and
    both answers occur."""
    from compiler.battle.estimates import volley_plan
    planned = Estimates.can_attack
    answers: list[bool] = []

    def both(self: Estimates, unit: Any, action: A.Action) -> bool:
        got = planned(self, unit, action)
        if self.state.table is not None and volley_plan(self.rules, action):
            assert got == self._can_attack(unit, action)
            answers.append(got)
        return got
    monkeypatch.setattr(Estimates, "can_attack", both)
    for sid in SCENARIOS:
        rs, sc = scenarios[sid]
        rules = Rules(rs)
        for i in range(2):
            game(rules, sc, i, mixed=i == 1)
    assert True in answers and False in answers and len(answers) > 200
