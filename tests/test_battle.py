"""Battles: scenarios played and simulated from the rules model (compiler.battle, play, simulate, army check)."""
from __future__ import annotations

import io
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import warscribe

import compiler
from compiler import ast as A
from compiler.battle import (Battle, GreedyPolicy, RandomPolicy, Rules, ScriptedPolicy, chi_square,
                             chi_square_critical, read_log, replay, run, wilson, write_log)
from compiler.driver import compile_text
from compiler.resolve import Evaluator, parse_expression

ROOT = Path(__file__).resolve().parent.parent
CONSOLE = str(ROOT / "rules" / "console-40k")


@pytest.fixture(scope="module")
def console() -> compiler.Ruleset:
    result = compiler.compile_paths([CONSOLE])
    assert result.ok
    return result.rulesets[0]


# A one-volley battle: one turn, one phase, five Marines fire at ten Orks 20" away, and nothing else.
VOLLEY = '''
ruleset volley "One volley":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat S "Strength" 1..10
stat T "Toughness" 1..10
stat Sv "Save" target
stat Range "Range" distance
stat W "Wounds" 1..10 role wounds
situation distance "Distance" 0..48
test hit(BS) = roll d6 >= 7 - BS, natural 1 fails
test wound(S, T) = roll d6 >= 4 + T - S
test save(Sv) = roll d6 >= Sv
attack shooting(shooter, weapon, target) "Shooting":
  shots = if distance > weapon.Range then 0 else shooter.models
  hits = shots each hit(shooter.BS)
  wounds = hits each wound(weapon.S, target.T)
  unsaved = wounds each not save(target.Sv)
  killed = unsaved removes target, damage 1
unit marine "Marine":
  BS 4  T 4  W 1  Sv 3+
  weapons boltgun
  points 14
unit ork "Ork":
  BS 2  T 4  W 1  Sv 6+
  points 7
weapon boltgun "Boltgun":
  Range 24"  S 4
game volley "A volley":
  turns 1
  activation whole_army
  phase fire "Fire":
    action shoot "Shoot": attack shooting
scenario one_volley "One volley":
  game volley
  distance 20"
  first marines
  side marines "Marines":
    5 marine
  side orks "Orks":
    10 ork
'''


def test_the_same_seed_gives_the_same_tally_whatever_the_number_of_workers(console) -> None:
    sc = console.get("sample_battle")
    one = run(CONSOLE, sc, 300, seed=11, jobs=1)  # two chunks: one worker, then two
    two = run(CONSOLE, sc, 300, seed=11, jobs=2)
    assert (one.wins, one.draws, one.turns, one.survivors) == (two.wins, two.draws, two.turns, two.survivors)
    assert sum(one.wins) + one.draws == one.games == 300
    other = run(CONSOLE, sc, 300, seed=12, jobs=1)
    assert (other.wins, other.survivors) != (one.wins, one.survivors)


def test_simulate_json_has_rates_with_intervals_that_add_up() -> None:
    r = warscribe("simulate", CONSOLE, "--games", "120", "--seed", "7", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert {"ruleset", "scenario", "games", "seed", "sides", "draws", "turns_mean"} <= set(out)
    assert out["ruleset"] == "console-40k" and out["scenario"] == "sample_battle" and out["games"] == 120
    assert sum(s["wins"] for s in out["sides"]) + out["draws"] == 120
    for s in out["sides"]:
        lo, hi = s["ci95"]
        assert lo <= s["win_rate"] <= hi
        assert (lo, hi) == pytest.approx(wilson(s["wins"], 120), abs=1e-6)
    assert 1 <= out["turns_mean"] <= 4
    again = warscribe("simulate", CONSOLE, "--games", "120", "--seed", "7", "--json")
    assert again.stdout == r.stdout


def test_play_is_driven_by_a_person_to_a_result() -> None:
    # side 1 (Space Marines); then "1" at every choice: advance 0", shoot, assault when offered
    r = warscribe("play", CONSOLE, "--seed", "5", stdin="1\n" * 200)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Choose a side" in r.stdout and "How far does Space Marines: Space Marine move" in r.stdout
    assert re.search(r"\(Shooting, rules/console-40k/rulebook\.rules:\d+\)", r.stdout)  # each volley names its rule
    last = r.stdout.strip().splitlines()[-1]
    assert re.match(r"(Space Marines win|Orks win|A draw) ", last), last


def test_shooting_is_offered_only_with_a_weapon_in_reach(console: compiler.Ruleset) -> None:
    # the boltgun reaches 24" (its Range): from 36" and 30" the Marines have nothing to shoot with
    rules = Rules(console)
    shots = []
    for seed in range(12):
        battle = Battle(rules, console.get("sample_battle"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        battle.run()
        shots += [e for e in battle.events if e["event"] == "volley" and e["rule"] == "shooting"]
        assert not [e for e in battle.events if e["event"] == "out_of_reach" and e["reach"] is None]
    assert shots and all(e["distance"] <= 24 for e in shots)


def test_play_names_the_winner_by_the_side_title() -> None:
    r = warscribe("play", CONSOLE, "--auto", "--seed", "3")
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith(("Space Marines win", "Orks win", "A draw")), last
    assert "space_marines" not in r.stdout and re.search(r"^(Space Marines|Orks) go first", r.stdout, re.M)


def test_play_without_enough_answers_stops_cleanly() -> None:
    r = warscribe("play", CONSOLE, "--seed", "5", stdin="1\n1\n")
    assert r.returncode == 0 and "No more input: the battle stops here" in r.stdout


def test_a_log_replays_to_the_same_battle(console, tmp_path) -> None:
    rules = Rules(console)
    battle = Battle(rules, console.get("full_armies"), [RandomPolicy(1), RandomPolicy(2)], seed=99)
    battle.run()
    assert battle.choices, "a battle of two squads a side has decisions to take"
    out = io.StringIO()
    write_log(out, battle, console.id, 99)
    again = replay(Rules(console), read_log(out.getvalue().splitlines()))
    assert again.events == battle.events
    # the log drives the battle: other answers give another battle
    other = Battle(rules, console.get("full_armies"), [ScriptedPolicy([], GreedyPolicy())] * 2, seed=99)
    other.run()
    assert other.events != battle.events
    r = warscribe("play", CONSOLE, "--seed", "3", "--auto", "--log", str(tmp_path / "b.jsonl"))
    assert r.returncode == 0
    shown = warscribe("play", CONSOLE, "--replay", str(tmp_path / "b.jsonl"))
    assert shown.stdout.strip().splitlines()[-1] in r.stdout


def test_one_volley_agrees_with_the_exact_distribution() -> None:
    model = compile_text(VOLLEY).rulesets[0]
    exact = Evaluator(model, situation={"distance": 20}).evaluate(
        parse_expression("shooting(5 marine, boltgun, 10 ork).killed"))
    law = {int(k): Fraction(p) for k, p in exact.probabilities().items()}
    # an independent check of the law: P(a shot kills) = 1/2 (hit on 3+... BS 4 -> 3+) * 1/2 * 5/6
    assert law[0] == (1 - Fraction(2, 3) * Fraction(1, 2) * Fraction(5, 6)) ** 5
    rules, sc = Rules(model), model.get("one_volley")
    n = 20_000
    counts = dict.fromkeys(law, 0)
    for i in range(n):
        battle = Battle(rules, sc, [GreedyPolicy(), GreedyPolicy()], seed=i, record=False)
        battle.run()
        counts[10 - battle.state.units[1].models] += 1
    stat, df = chi_square([counts[k] for k in law], [float(law[k]) * n for k in law])
    assert stat < chi_square_critical(df, 0.001), (stat, df, counts)


def test_chi_square_rejects_a_wrong_law() -> None:
    observed = [600, 400]
    stat, df = chi_square(observed, [500.0, 500.0])
    assert stat == pytest.approx(40.0) and df == 1


def test_scenario_army_lists_are_checked_and_violations_cite_the_rule(write_ruleset) -> None:
    text = (Path(CONSOLE) / "scenarios.rules").read_text("utf-8")
    bad = text.replace("    game battle\n    distance 36\"", "    game battle\n    army standard\n    distance 36\"", 1)
    folder = ROOT / "rules" / "console-40k"
    files = {p.name: p.read_text("utf-8") for p in folder.glob("*.rules")}
    files["scenarios.rules"] = bad
    r = warscribe("check", str(write_ruleset(files, "console-40k")))
    assert r.returncode == 1
    assert "error[W862]" in r.stderr and "The army has at least two squads." in r.stderr
    assert "Buying squads" in r.stderr and "buying_squads" in r.stderr


def test_army_check_of_a_roster_file(tmp_path) -> None:
    roster = tmp_path / "army.txt"
    roster.write_text("# my army\n10 space_marine_squad\n10 space_marine_squad\n10 space_marine_squad\n", "utf-8")
    r = warscribe("army", "check", CONSOLE, str(roster))
    assert r.returncode == 1
    assert "error[W862]" in r.stdout and "points = 420" in r.stdout and "buying_squads" in r.stdout
    roster.write_text("10 space_marine_squad\n5 space_marine_squad\n", "utf-8")
    ok = warscribe("army", "check", CONSOLE, str(roster))
    assert ok.returncode == 0 and "210 points" in ok.stdout and "meets" in ok.stdout
    roster.write_text("11 space_marine_squad\n5 space_marine_squad\n", "utf-8")
    big = warscribe("army", "check", CONSOLE, str(roster))
    assert big.returncode == 1 and "has 11 models" in big.stdout


BROKEN_GAME = '''
ruleset b "B":
  version 1.0.0
stat I "Initiative" 1..10
situation locked "Locked"
unit u "U":
  I 3
weapon w "W":
  I 1
attack counted(a, b) "Counted":
  n = a.models * 2
game g "G":
  turns 2
  phase p "P":
    action a "A": attack w, sets lokced unless locked
    action b "B": attack counted
    combat missing in order of Q
scenario s "S":
  game g
  first nobody
  side one "One":
    5 u with nothing
'''


def test_a_game_and_scenario_that_cannot_be_played_get_located_diagnostics() -> None:
    result = compile_text(BROKEN_GAME)
    found = {(d.code, d.message) for d in result.diagnostics}
    assert ("W863", "'w' is not an attack sequence") in found
    assert ("W101", "unknown status 'lokced'") in found
    assert ("W101", "unknown attack sequence 'missing'") in found
    assert ("W101", "unknown stat 'Q'") in found
    assert ("W863", "attack 'counted' removes no models, so a battle cannot use it") in found
    assert ("W861", "scenario 's' needs two sides, not 1") in found
    assert ("W101", "unknown side 'nobody'") in found
    assert ("W101", "unknown weapon 'nothing'") in found
    assert all(d.span.line > 0 for d in result.diagnostics if d.code in ("W101", "W861", "W863"))


def test_scenarios_parse_into_the_model(console) -> None:
    sc = console.get("sample_battle")
    assert isinstance(sc, A.Scenario)
    assert [s.id for s in sc.sides] == ["space_marines", "orks"] and sc.distance == 36
    assert [(u.count, u.name, u.weapons) for u in sc.sides[0].units] == [(5, "space_marine", ("boltgun",))]
    game = console.get("battle")
    assert isinstance(game, A.Game)
    assert [a.id for p in game.phases for a in p.actions] == ["advance", "shoot", "run", "charge"]
    assert {v.kind for v in game.victories} == {"annihilation", "highest_score"}


def test_against_reports_the_change_an_overlay_makes_to_each_side() -> None:
    dark, classic = str(ROOT / "rules" / "dark-millennia"), str(ROOT / "rules" / "classic-40k")
    r = warscribe("simulate", dark, "--games", "150", "--seed", "3", "--policy", "random",
                  "--against", classic, "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout)
    assert out["ruleset"] == "dark-millennia" and out["against"]["ruleset"] == "classic-40k"
    base = warscribe("simulate", classic, "--games", "150", "--seed", "3", "--policy", "random", "--json")
    assert out["against"]["base"] == json.loads(base.stdout)
    for c, mine, theirs in zip(out["against"]["change"], out["sides"], out["against"]["base"]["sides"]):
        assert c["change"] == pytest.approx(mine["win_rate"] - theirs["win_rate"], abs=2e-6)
        assert c["ci95"][0] <= c["change"] <= c["ci95"][1]
    # the overlay's own game is played: its overwatch order is taken
    played = warscribe("play", dark, "--seed", "3", "--auto", "--policy", "random")
    assert re.search(r"\(Leadership test, rules/classic-40k/movement\.rules:\d+\)", played.stdout)
    assert ": on overwatch" in played.stdout
    assert "overwatch" not in warscribe("play", classic, "--seed", "3", "--auto", "--policy", "random").stdout
    no_base = warscribe("simulate", classic, "--games", "10", "--against", str(ROOT / "rules" / "console-40k"))
    assert no_base.returncode == 2 and "has no scenario 'gorge'" in no_base.stderr


def test_a_dask_cluster_gives_the_same_tally_as_one_process(console) -> None:
    distributed = pytest.importorskip("dask.distributed", reason="the cluster extra (pip install 'warscribe[cluster]')")
    sc = console.get("sample_battle")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        spread = run(CONSOLE, sc, 300, seed=5, scheduler=cluster.scheduler_address)
    local = run(CONSOLE, sc, 300, seed=5, jobs=1)
    assert (spread.wins, spread.draws, spread.turns, spread.survivors) == \
        (local.wins, local.draws, local.turns, local.survivors)


def test_activation_dice_give_actions_and_a_bust_ends_the_turn() -> None:
    gemini = compiler.compile_paths([str(ROOT / "rules" / "gemini-arap")]).rulesets[0]
    battle = Battle(Rules(gemini), gemini.get("firefight"), [GreedyPolicy(), GreedyPolicy()], seed=2)
    battle.run()
    rolls = [e for e in battle.events if e["event"] == "activation"]
    assert rolls and {e["dice"] for e in rolls} <= {1, 2, 3}
    assert all(e["bust"] == (e["dice"] - e["successes"] >= 2) for e in rolls)
    # after a bust, no other unit of that side acts until the other side's turn
    for i, e in enumerate(battle.events):
        if e["event"] == "activation" and e["bust"]:
            # (what the end of a turn does may come first: S-points falling, a router fleeing)
            after = next((a for a in battle.events[i + 1:] if a["event"] in ("activation", "action", "turn", "end")),
                         {"event": "end"})
            assert after["event"] in ("turn", "end")
    # actions taken never outnumber the successes rolled
    for i, e in enumerate(battle.events):
        if e["event"] == "activation" and not e["bust"]:
            taken = 0
            for later in battle.events[i + 1:]:
                if later["event"] in ("activation", "turn", "end"):
                    break
                taken += later["event"] in ("move", "volley", "out_of_reach")
            assert taken <= e["successes"]


def test_the_checker_knows_which_activation_schemes_the_engine_runs() -> None:
    from compiler.battle import ACTIVATIONS
    from compiler.check.battles import PLAYABLE

    assert {a for a in PLAYABLE if a} == set(ACTIVATIONS)
    # every scheme the language names is one the engine runs (a new name needs its scheme)
    assert set(A.ACTIVATIONS) == set(ACTIVATIONS)


def test_battles_page_cache_key_follows_the_base_of_an_overlay(tmp_path) -> None:
    """The Battles page keeps its runs between builds under a key of what the games are played
    from: a rule changed only in the base of an overlay gives the overlay's page a new key (no
    stale page); a comment or a title changed in the base does not (nothing to simulate again)."""
    import shutil

    from compiler.driver import compile_paths
    from compiler.site.battles import rules_key

    for name in ("classic-40k", "dark-millennia"):
        shutil.copytree(ROOT / "rules" / name, tmp_path / name)

    def overlay_key() -> str:
        c = compile_paths([str(tmp_path)])
        (rs,) = [r for r in c.rulesets if r.id == "dark-millennia"]
        return rules_key(rs)

    before = overlay_key()
    assert overlay_key() == before
    stats = tmp_path / "classic-40k" / "characteristics.rules"
    text = stats.read_text("utf-8")
    assert '"Ballistic Skill"' in text
    stats.write_text(text.replace('"Ballistic Skill"', '"Shooting Skill"') + "\n# a comment\n", "utf-8")
    assert overlay_key() == before
    profiles = tmp_path / "classic-40k" / "profiles.rules"
    profiles.write_text(profiles.read_text("utf-8") + '\nstat ZZ "Zeal" 1..6\n', "utf-8")
    assert overlay_key() != before


def test_the_text_written_for_readers_plays_no_part_in_a_battle(tmp_path) -> None:
    """What lets the Battles page keep its games when only readers' text changes: the same games
    come out of a ruleset whose definitions, titles and comments were rewritten, and the page's
    key is the same; a changed number gives another key."""
    import shutil

    from compiler.battle import Rules
    from compiler.battle.simulate import play_games
    from compiler.driver import compile_paths
    from compiler.site.battles import rules_key

    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "console-40k")

    def compiled():  # type: ignore[no-untyped-def]
        (rs,) = compile_paths([str(tmp_path / "console-40k")]).rulesets
        return rs

    def games(rs):  # type: ignore[no-untyped-def]
        t = play_games(Rules(rs), rs.get("sample_battle"), "greedy", 1, 0, 40)
        return t.wins, t.draws, t.turns, t.survivors

    before = compiled()
    lexicon, profiles = tmp_path / "console-40k" / "lexicon.rules", tmp_path / "console-40k" / "profiles.rules"
    lexicon.write_text(lexicon.read_text("utf-8").replace("How accurately the model shoots.", "Aim, in short."),
                       "utf-8")
    profiles.write_text("# units and their weapons\n" + profiles.read_text("utf-8")
                        .replace('unit space_marine "Space Marine"', 'unit space_marine "Battle Brother"'), "utf-8")
    reworded = compiled()
    assert reworded.get("space_marine").title == "Battle Brother"
    assert rules_key(reworded) == rules_key(before)
    assert games(reworded) == games(before)
    profiles.write_text(profiles.read_text("utf-8").replace("BS 4", "BS 3", 1), "utf-8")
    assert rules_key(compiled()) != rules_key(before)
