"""The greedy policy's shortcuts: the engine answers a greedy side's choices without building them,
keeping each pick per state; the battles must be the very ones the policy's general path plays.

A subclass of :class:`GreedyPolicy` makes the same choices through the general path (a
:class:`Choice` built, its estimates worked out, the best taken); every bundled scenario is played
both ways from the same seeds, each way with rules of its own, and the outcomes, the choices and
the events must be equal."""
from __future__ import annotations

from pathlib import Path

import pytest

import compiler
from compiler import ast as A
from compiler.battle import Battle, GreedyPolicy, RandomPolicy, Rules, game_seed
from compiler.battle.simulate import play_games
from compiler.battle.walk import Walk

ROOT = Path(__file__).resolve().parent.parent


class PlainGreedy(GreedyPolicy):
    """The greedy policy, asked every choice the way any other policy is."""


@pytest.fixture(scope="module")
def rulesets() -> dict[str, compiler.Ruleset]:
    result = compiler.compile_paths([str(ROOT / "rules")])
    assert result.ok
    return {rs.id: rs for rs in result.rulesets}


SCENARIOS = [("40k-s", "rifle_line"), ("classic-40k", "firefight"), ("classic-40k", "gorge"),
             ("classic-40k", "prepared_position"), ("console-40k", "full_armies"), ("console-40k", "sample_battle"),
             ("dark-millennia", "firefight"), ("dark-millennia", "gorge"), ("dark-millennia", "prepared_position"),
             ("gemini-arap", "firefight"), ("gemini-arap", "patrol_clash"), ("gemini-arap", "stealer_rush"),
             ("nuceria-rts", "ambush"), ("nuceria-rts", "closing_the_perimeter"),
             ("nuceria-rts", "line_skirmish")]


def test_every_bundled_scenario_is_played_here(rulesets: dict[str, compiler.Ruleset]) -> None:
    assert sorted((rs.id, sc.id) for rs in rulesets.values() for sc in rs.of_type(A.Scenario)) == SCENARIOS


def play(rules: Rules, sc: A.Scenario, policy: type[GreedyPolicy], index: int) -> tuple[object, ...]:
    seed = game_seed(1, index)
    battle = Battle(rules, sc, [policy() for _ in sc.sides], seed)
    out = battle.run()
    return out, battle.choices, battle.events


@pytest.mark.parametrize("ruleset,scenario", SCENARIOS)
def test_the_shortcuts_play_the_battles_the_policy_chooses(rulesets: dict[str, compiler.Ruleset], ruleset: str,
                                                           scenario: str) -> None:
    rs = rulesets[ruleset]
    sc = rs.get(scenario)
    assert isinstance(sc, A.Scenario)
    fast, plain = Rules(rs), Rules(rs)
    choices = 0
    for i in range(40):
        short = play(fast, sc, GreedyPolicy, i)
        assert short == play(plain, sc, PlainGreedy, i), f"game {i}"
        choices += len(short[1])  # type: ignore[arg-type]
    assert choices > 40  # the games had choices to make


@pytest.mark.parametrize("ruleset,scenario", SCENARIOS)
def test_a_walked_game_is_the_game_the_engine_plays(rulesets: dict[str, compiler.Ruleset], ruleset: str,
                                                    scenario: str) -> None:
    """Greedy games walked over kept transitions (compiler.battle.walk) against the engine, seed by seed."""
    rs = rulesets[ruleset]
    sc = rs.get(scenario)
    assert isinstance(sc, A.Scenario)
    walk, rules = Walk(Rules(rs), sc, ["greedy"] * len(sc.sides)), Rules(rs)
    for i in range(16):
        seed = game_seed(11, i)
        assert walk.play(seed) == Battle(rules, sc, [GreedyPolicy() for _ in sc.sides], seed, record=False).run(), i
    assert walk.positions


@pytest.mark.parametrize("ruleset,scenario", [("gemini-arap", "patrol_clash"), ("console-40k", "full_armies")])
def test_the_shortcuts_keep_nothing_a_random_side_reads(rulesets: dict[str, compiler.Ruleset], ruleset: str,
                                                        scenario: str) -> None:
    """A greedy side against a random one: what the shortcuts keep per state serves the greedy side only."""
    rs = rulesets[ruleset]
    sc = rs.get(scenario)
    assert isinstance(sc, A.Scenario)
    fast, plain = Rules(rs), Rules(rs)
    for i in range(20):
        seed = game_seed(3, i)
        one = Battle(fast, sc, [GreedyPolicy(), RandomPolicy(seed)], seed)
        two = Battle(plain, sc, [PlainGreedy(), RandomPolicy(seed)], seed)
        assert (one.run(), one.choices, one.events) == (two.run(), two.choices, two.events)


def test_a_simulation_tallies_the_games_it_played(rulesets: dict[str, compiler.Ruleset]) -> None:
    rs = rulesets["gemini-arap"]
    sc = rs.get("patrol_clash")
    assert isinstance(sc, A.Scenario)
    rules = Rules(rs)
    # ten games, each under rules of its own: both sides win some, in games of 4 to 6 turns
    outcomes = [play(Rules(rs), sc, PlainGreedy, i)[0] for i in range(10)]
    tally = play_games(rules, sc, "greedy", 1, 0, 10)
    assert tally.wins == tuple(sum(1 for o in outcomes if o.winner == k) for k in range(len(sc.sides)))  # type: ignore[attr-defined]
    assert tally.draws == sum(1 for o in outcomes if o.winner is None)  # type: ignore[attr-defined]
    assert tally.turns == sum(o.turns for o in outcomes)  # type: ignore[attr-defined]
    assert tally.survivors == tuple(sum(o.survivors[k] for o in outcomes) for k in range(len(sc.sides)))  # type: ignore[attr-defined]


CROWD = '''
ruleset crowd "Crowd":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat T "Toughness" 1..10
stat W "Wounds" 1..10 role wounds
stat Sv "Save" target
situation crowd "How many shoot" one of few, many
test hit(BS) = roll d6 >= 7 - BS
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target, damage 1
unit marine "Marine":
  BS 4  T 4  W 1  Sv 3+
unit ork "Ork":
  BS 2  T 4  W 1  Sv 6+
game skirmish "A skirmish":
  turns 1
  activation whole_army
  situation crowd is many when models > 3, otherwise few
  phase fire "Fire":
    action shoot "Shoot": attack shooting
scenario clash "Clash":
  game skirmish
  distance 20"
  side marines "Marines":
    5 marine
  side orks "Orks":
    10 ork
'''


def test_a_derived_situation_is_the_asking_units_whatever_was_asked_before() -> None:
    """The picks kept per state rely on the situations being a function of what they are asked
    with: a derived situation reads the unit's numbers, so it is kept per unit's numbers too."""
    from compiler.battle.state import Unit
    from compiler.driver import compile_text

    result = compile_text(CROWD)
    assert result.ok, [d.message for d in result.diagnostics]
    rules = Rules(result.rulesets[0])
    few = Unit(0, 0, "a", "marine", (), 2, 2, 0, 0.0)
    many = Unit(1, 0, "b", "marine", (), 5, 5, 0, 0.0)
    assert rules.situation(few, 10.0) == (("crowd", "few"),)
    assert rules.situation(many, 10.0) == (("crowd", "many"),)
    assert rules.situation(few, 10.0) == (("crowd", "few"),)


def test_the_games_an_overlay_compares_with_its_base_are_played_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before the rendering workers fork, the base's runs that an overlay's Battles page compares
    with are played once; then neither page (whichever worker renders it) plays them again."""
    from compiler.ast import cached
    from compiler.site import battles

    monkeypatch.setenv("WARSCRIBE_CACHE", "0")  # nothing from an earlier run's cache folder
    monkeypatch.setattr(cached, "_state", {})  # (which the process looks for once)
    monkeypatch.setattr(battles, "_CACHE", {})
    monkeypatch.setattr(battles, "SITE_BUDGET", 0.0)  # every page's player is the greedy one: the runs are shared
    result = compiler.compile_paths([str(ROOT / "rules" / "classic-40k"), str(ROOT / "rules" / "dark-millennia")])
    models = {rs.id: rs for rs in result.rulesets}
    played: list[str] = []
    real = battles.play_games

    def counting(rules: Rules, sc: A.Scenario, policy: str, *args: object) -> object:
        played.append(f"{rules.model.id}/{sc.id}/{policy}")
        return real(rules, sc, policy, *args)  # type: ignore[arg-type]
    monkeypatch.setattr(battles, "play_games", counting)
    battles.play_shared({"dark-millennia": models["dark-millennia"]})  # without its base: nothing shared
    assert played == []
    battles.play_shared(models)
    shared = list(played)
    assert [p.rsplit("/", 1)[0] for p in shared] == ["classic-40k/gorge", "classic-40k/prepared_position",
                                                       "classic-40k/firefight"]
    base_view = battles.scenario_views(models["classic-40k"])
    own = played[len(shared):]  # the base's page plays only runs under a player of its own choosing
    assert not own
    overlay_view = battles.scenario_views(models["dark-millennia"])
    assert [p.rsplit("/", 1)[0] for p in played[len(shared) + len(own):]] == \
        ["dark-millennia/gorge", "dark-millennia/prepared_position", "dark-millennia/firefight"]  # the overlay's own runs only
    assert len(played) == len(set(played))  # no run played twice
    assert overlay_view[0].changes and [c.base for c in overlay_view[0].changes] == \
        [r.rate for r in base_view[0].rates[:2]]


MARKED = '''
ruleset marked "Marked":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit gunner "Gunner":
  BS 1  W 1
unit runner "Runner":
  BS 6  W 1
game volleys "Volleys":
  turns 1
  activation whole_army
{extra}
  phase fire "Fire":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation
scenario clash "Clash":
  game volleys
  distance 20"
  first guns
  side guns "Guns":
    3 gunner
    3 gunner
  side runners "Runners":
    2 runner
    2 runner
'''


@pytest.mark.parametrize("extra", ["", "  casualties removed at end of phase"])
def test_a_greedy_side_never_shoots_at_a_unit_whose_models_are_all_marked(extra: str) -> None:
    """Casualties removed at the end of the phase: a unit whose every model is marked still stands,
    but no volley can take more from it.  The second gunner unit (the same profile, models and
    distances as the first: only the marks differ) must shoot the other runners, as plain greedy
    does; keeping the first unit's pick for it wasted its volley and let one runner unit live."""
    from compiler.driver import compile_text

    result = compile_text(MARKED.format(extra=extra), "marked.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    sc = model.get("clash")
    assert isinstance(sc, A.Scenario)
    fast, plain = Rules(model), Rules(model)
    for i in range(3):
        short = play(fast, sc, GreedyPolicy, i)
        assert short == play(plain, sc, PlainGreedy, i), f"game {i}"
        out, _, events = short
        volleys = [e for e in events if e["event"] == "volley"]  # type: ignore[index]
        # every hit kills (BS 1: a 1+ to hit): each gunner unit wipes out the runners it shoots
        assert [(v["unit"], v["removed"]) for v in volleys] == [("Gunner 1", 2), ("Gunner 2", 2)]
        assert volleys[0]["target"] != volleys[1]["target"]
        assert out.winner == 0 and out.reason  # type: ignore[attr-defined]
