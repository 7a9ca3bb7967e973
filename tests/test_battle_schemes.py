"""Battles under the activation schemes where one unit acts at a time (compiler.battle.schemes).

Each ruleset's scenario plays to a result in the terminal, simulates to the same tally whatever
the number of workers, and shows its own turn structure in the battle log: alternating
activations (nuceria-rts), activation rolls with a bust (gemini-arap), orders (40k-s).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import warscribe

import compiler
from compiler.battle import Battle, Choice, GreedyPolicy, RandomPolicy, Rules, run
from compiler.battle import simulate as simulate_module
from compiler.site import battles as site_battles
from compiler.driver import compile_text
from compiler.resolve import Evaluator, parse_expression

ROOT = Path(__file__).resolve().parent.parent
NUCERIA = str(ROOT / "rules" / "nuceria-rts")
GEMINI = str(ROOT / "rules" / "gemini-arap")
FORTYK = str(ROOT / "rules" / "40k-s")
SCENARIOS = {NUCERIA: "line_skirmish", GEMINI: "patrol_clash", FORTYK: "rifle_line"}


def compiled(path: str) -> compiler.Ruleset:
    result = compiler.compile_paths([path])
    assert result.ok, [d.message for d in result.diagnostics if d.severity == "error"]
    return result.rulesets[0]


@pytest.fixture(scope="module")
def nuceria() -> compiler.Ruleset:
    return compiled(NUCERIA)


@pytest.fixture(scope="module")
def gemini() -> compiler.Ruleset:
    return compiled(GEMINI)


@pytest.fixture(scope="module")
def fortyk() -> compiler.Ruleset:
    return compiled(FORTYK)


def battle(model: compiler.Ruleset, scenario: str, seed: int, policies: list[Any] | None = None) -> Battle:
    b = Battle(Rules(model), model.get(scenario), policies or [GreedyPolicy(), GreedyPolicy()], seed=seed)
    b.run()
    return b


@pytest.mark.parametrize("path", list(SCENARIOS))
def test_the_scenario_simulates_to_the_same_tally_on_one_or_two_workers(path, monkeypatch) -> None:
    monkeypatch.setattr(simulate_module, "CHUNK", 25)  # three chunks: the pool gets work to share
    sc = compiled(path).get(SCENARIOS[path])
    one = run(path, sc, 60, seed=5, jobs=1)
    two = run(path, sc, 60, seed=5, jobs=2)
    assert (one.wins, one.draws, one.turns, one.survivors) == (two.wins, two.draws, two.turns, two.survivors)
    assert sum(one.wins) + one.draws == one.games == 60
    again = run(path, sc, 10, seed=5, jobs=1, policy="random")
    assert sum(again.wins) + again.draws == 10


@pytest.mark.parametrize("path", list(SCENARIOS))
def test_play_auto_reaches_a_result_and_simulate_answers_in_json(path) -> None:
    r = warscribe("play", path, SCENARIOS[path], "--auto", "--seed", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout.strip().splitlines()[-1]
    assert " win " in last or " wins " in last or last.lower().startswith("a draw")
    # As many games as it takes to see the tally add up (the greedy games themselves are played by
    # the hundred in the simulation tests above and in test_battle_shortcuts.py).
    s = warscribe("simulate", path, SCENARIOS[path], "--games", "10", "--seed", "3", "--json")
    assert s.returncode == 0, s.stdout + s.stderr
    out = json.loads(s.stdout)
    assert out["scenario"] == SCENARIOS[path] and out["games"] == 10
    assert sum(side["wins"] for side in out["sides"]) + out["draws"] == 10


# -- nuceria-rts: alternating activations --------------------------------------------------


def activations(b: Battle) -> list[dict[str, Any]]:
    return [e for e in b.events if e["event"] == "activated"]


def test_alternating_activations_interleave_the_sides_one_unit_at_a_time(nuceria) -> None:
    b = battle(nuceria, "line_skirmish", seed=4, policies=[RandomPolicy(1), RandomPolicy(2)])
    acts = activations(b)
    assert len(acts) >= 4
    sides = [e["side"] for e in acts]
    assert all(a != c for a, c in zip(sides, sides[1:])), sides  # never two activations in a row
    assert all(e["turn"] == i // 2 + 1 for i, e in enumerate(acts))  # a game turn: one each
    # everything done between two activations is done by the activated unit
    current: dict[str, Any] = {}
    for e in b.events:
        if e["event"] == "activated":
            current = e
        elif e["event"] in ("action", "move", "volley"):
            assert (e["side"], e["unit"]) == (current["side"], current["unit"]), (e, current)


class FirstUnit:
    """Activates the first unit listed every time; greedy otherwise."""

    def choose(self, choice: Choice) -> int:
        return 0 if choice.kind == "unit" else GreedyPolicy().choose(choice)


def test_any_unit_may_be_activated_again_even_the_last_one(nuceria) -> None:
    b = battle(nuceria, "line_skirmish", seed=2, policies=[FirstUnit(), FirstUnit()])
    for side in ("troopers", "bastion"):
        units = [e["unit"] for e in activations(b) if e["side"] == side]
        assert len(units) >= 2 and units[0] == units[1], units  # the same unit, turn after turn


# -- gemini-arap: activation rolls and busts ------------------------------------------------


def rolls(b: Battle) -> list[dict[str, Any]]:
    return [e for e in b.events if e["event"] == "activation"]


def test_a_bust_ends_the_players_activations_and_passes_play(gemini) -> None:
    busts = 0
    for seed in range(6):
        b = battle(gemini, "patrol_clash", seed=seed)
        events = b.events
        for i, e in enumerate(events):
            if e["event"] != "activation":
                continue
            failures = e["dice"] - e["successes"]
            # two or more failed dice, and only then, is a bust (the game's `bust on 2 failures`)
            assert e["bust"] == (failures >= 2) and 1 <= e["dice"] <= 3
            later = events[i + 1:]
            until = next((j for j, x in enumerate(later) if x["event"] in ("turn", "activation", "end")), len(later))
            mine = [x for x in later[:until] if x["event"] == "action"]
            if e["bust"]:
                busts += 1
                assert not mine  # the unit does nothing ...
                assert later[until]["event"] in ("turn", "end")  # ... and no other unit of the side is tried
                if later[until]["event"] == "turn":
                    assert later[until]["side"] != e["side"]
            else:
                assert all(x["unit"] == e["unit"] for x in mine)
                assert len(mine) <= e["successes"]  # one action per success
    assert busts > 0


def test_each_unit_tries_at_most_once_a_turn_with_the_chance_its_initiative_gives(gemini) -> None:
    b = battle(gemini, "patrol_clash", seed=3)
    tried: dict[tuple[int, str], list[str]] = {}
    for e in rolls(b):
        tried.setdefault((e["turn"], e["side"]), []).append(e["unit"])
        # a die passes at or under the activation value, never on a 6: I 3 gives 3 in 6, I 4 gives 4 in 6
        assert e["chance"] == pytest.approx(3 / 6 if e["side"] == "troopers" else 4 / 6)
    assert tried and all(len(units) == len(set(units)) for units in tried.values())


# -- 40k-s: orders ----------------------------------------------------------------------------


def orders_given(b: Battle) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each order event with what the unit did before the next order."""
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for e in b.events:
        if e["event"] == "order":
            out.append((e, []))
        elif out and e["event"] in ("action", "move", "volley"):
            out[-1][1].append(e)
    return out


def test_orders_are_obeyed_and_the_sides_take_turns(fortyk) -> None:
    game = fortyk.get("battle")
    granted = {o.id: set(o.actions) for p in game.phases for o in p.orders}
    assert granted == {"advance": {"move", "shoot"}, "first_fire": {"shoot"}, "charge": {"charge_in", "fight"},
                       "fall_back": {"fall_back_move"}, "overwatch": {"overwatch_fire"}, "pile_in": {"fight"}}
    seen, bands = set(), set()
    for seed in range(3):
        b = battle(fortyk, "rifle_line", seed=seed, policies=[RandomPolicy(seed), RandomPolicy(seed + 9)])
        given = orders_given(b)
        assert given
        for order, done in given:
            seen.add(order["order"])
            assert all((e["side"], e["unit"]) == (order["side"], order["unit"]) for e in done)
            taken = [e["action"] for e in done if e["event"] == "action"]
            assert set(taken) <= granted[order["order"]] and len(taken) == len(set(taken))  # each action once
            for v in (e for e in done if e["event"] == "volley"):
                assert f"order={order['order']}" in v["situation"]  # the modifiers see the order
                # short range reaches 18" on advance orders and 24" on first fire orders
                short = 24 if order["order"] == "first_fire" else 18
                band = "long" if v["distance"] > short else "short"
                assert f"range_band={band}" in v["situation"], (v, order)
                bands.add((order["order"], band))
        per_turn: dict[int, list[str]] = {}
        for e in activations(b):
            per_turn.setdefault(e["turn"], []).append(e["side"])
        units = {side.id: len(side.units) for side in fortyk.get("rifle_line").sides}
        for turn, sides in per_turn.items():
            # each unit acts once a turn, and the sides take turns while both have units to activate
            assert all(sides.count(side) <= n for side, n in units.items()), (turn, sides)
            both = 2 * min(sides.count(side) for side in units)
            assert all(sides[i] != sides[i + 1] for i in range(both - 1)), (turn, sides)
    assert {"advance", "first_fire", "charge"} <= seen
    assert ("advance", "long") in bands and ("first_fire", "short") in bands


def test_the_order_given_changes_the_volley_by_the_rules_it_names(fortyk) -> None:
    b = battle(fortyk, "rifle_line", seed=1)
    fired = [(o["order"], v) for o, done in orders_given(b) for v in done if v["event"] == "volley"]
    first = next(v for order, v in fired if order == "first_fire")
    # the same volley on advance orders misses the first fire re-roll of 1s to hit, so it is weaker
    sc = fortyk.get("rifle_line")
    weapon = {"armoured": "heavy_rifle", "line": "rifle"}[first["side"]]
    profile = {"armoured": "armoured_trooper", "line": "line_trooper"}
    foe = "line" if first["side"] == "armoured" else "armoured"
    assert sc is not None
    expr = parse_expression(f"mean(shooting({first['models']} {profile[first['side']]}, {weapon}, "
                            f"{first['left'] + first['removed']} {profile[foe]}).killed)")
    with_reroll = Evaluator(fortyk, situation={"order": "first_fire"}).evaluate(expr)
    without = Evaluator(fortyk, situation={"order": "advance"}).evaluate(expr)
    assert float(with_reroll) == pytest.approx(first["mean"], abs=1e-6)
    assert float(with_reroll) == pytest.approx(float(without) * 7 / 6)  # 1s re-rolled: a hit chance p becomes p + p / 6


def test_orders_name_actions_of_their_phase_and_choices_of_the_order_situation() -> None:
    text = PRELUDE + """
situation order "Order" one of advance, first_fire
game g "G":
  activation alternating_detachments
  orders set order
  phase p "P":
    action move "Move": move up to M toward the enemy
    on advance "Advance orders": move and shoot
    on charge "Charge orders": move then move unless pinned
"""
    found = {(d.code, d.message) for d in compile_text(text).diagnostics}
    assert ("W101", "unknown action 'shoot'") in found
    assert ("W101", "order 'charge' is not a choice of the situation 'order'") in found
    assert ("W101", "unknown status 'pinned'") in found
    derived = text.replace("  orders set order\n", "  orders set order\n  situation order is near when "
                           "distance_to_enemy < 12, otherwise advance\n")
    found = {(d.code, d.message) for d in compile_text(derived).diagnostics}
    assert ("W101", "'near' is not a choice of the situation 'order'") in found


# -- the reference's examples of the schemes ------------------------------------------------

PRELUDE = '''ruleset ref "Reference":
  version 1.0.0
stat M "Move" distance
stat Range "Range" distance
stat A "Attacks" 1..10
stat P "Power" 1..10
stat T "Toughness" 1..10
stat I "Initiative" 1..10
stat Ld "Leadership" 2..12
stat W "Wounds" 1..10 role wounds
test hit(P, T) = roll d6 >= clamp(T - P + 4, 2, 6)
test activation_die(AV: 1..6) = roll d6 <= AV, natural 6 fails
test leadership(Ld) = roll 2d6 <= Ld
attack make_attacks(attacker, weapon, target) "Attacks":
  attacks = attacker.models * weapon.A
  hits = attacks each hit(weapon.P, target.T)
  killed = hits removes target
'''


def reference_blocks() -> list[str]:
    md = (ROOT / "site" / "language.md").read_text("utf-8")
    section = md.split("### Who acts when", 1)[1].split("\nA **scenario**", 1)[0]
    return re.findall(r"```warscribe\n(.*?)```", section, re.S)


def test_the_reference_examples_of_the_schemes_check() -> None:
    blocks = reference_blocks()
    assert blocks
    for block in blocks:
        result = compile_text(PRELUDE + block)
        errors = [f"{d.code} {d.message}" for d in result.diagnostics if d.severity == "error"]
        assert result.ok and not errors, (block, errors)


def test_the_battles_page_reports_activations_and_orders(nuceria, fortyk, monkeypatch) -> None:
    monkeypatch.setattr(site_battles, "GAMES", 20)  # the outcome table is not what is tested here
    monkeypatch.setattr(site_battles, "_CACHE", {})  # nor kept for a site built later in this process
    for model, saids in ((nuceria, ("activates", "and rolls", "rests for 1 turn")), (fortyk, ("gets First fire orders",))):
        views = site_battles.scenario_views(model)
        lines = [text for v in views for turn in v.report for text, _ in turn.lines]
        for said in saids:  # nuceria-rts: who activates, a charge's roll, a cannon cooling down
            assert any(said in text for text in lines), (said, lines[:5])
        assert all(sum(r.count for r in v.rates) == 20 for v in views)  # wins and draws add up to the games
