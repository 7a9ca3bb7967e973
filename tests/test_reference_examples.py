"""The reference's examples of abilities, hooks and attack sequences are real rules.

The fenced ``warscribe`` blocks of the "Abilities" and "Attack sequences" sections of
``site/language.md`` are checked together on top of a small prelude (the stats, tests and
profiles the examples name): they must check without an error and their examples must hold,
so the reference cannot show a form the language does not have.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from compiler.driver import compile_text
from compiler.resolve import run_ruleset

REFERENCE = Path(__file__).resolve().parent.parent / "site" / "language.md"

PRELUDE = '''ruleset ref "Reference":
  version 1.0.0

stat BS "Ballistic Skill" 1..6: "b"
stat S "Strength" 1..10: "s"
stat T "Toughness" 1..10: "t"
stat A "Attacks" 1..10: "a"
stat AP "AP" 0..6: "ap"
stat D "Damage" dice: "d"
stat Sv "Save" target: "sv"
stat W "Wounds" 1..10 role wounds: "w"

die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3

test hit(BS) = roll d6 >= BS
test wound(S, T) = roll d6 >= clamp(T - S + 4, 2, 6)
test save(Sv, AP) = roll d6 >= Sv + AP
'''


UNITS = '''
unit space_marine "Space Marine":
  BS 3  T 4  W 1  Sv 3+  A 1
unit ork_boy "Ork Boy":
  BS 5  T 5  W 1  Sv 6+  A 1
weapon boltgun "Boltgun":
  A 2  S 4  AP 0  D 1
weapon slugga "Slugga":
  A 1  S 4  AP 1  D 1
'''


def section(title: str) -> str:
    """The fenced examples of one section, one after the other."""
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.index("\n## ", start + 1)
    return "\n".join(re.findall(r"```warscribe\n(.*?)```", text[start:end], re.S))


SECTIONS = ("Abilities", "Attack sequences")


def subsection(title: str) -> str:
    """The fenced examples of one ``###`` subsection."""
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index(f"\n### {title}\n")
    end = min(i for i in (text.find("\n### ", start + 1), text.find("\n## ", start + 1)) if i > 0)
    return "\n".join(re.findall(r"```warscribe\n(.*?)```", text[start:end], re.S))


def test_the_objectives_and_victory_example_checks_and_plays() -> None:
    from compiler.battle import Battle, GreedyPolicy, Rules
    source = subsection("Objectives, scores and victory") + "\n" + subsection("A table in two dimensions") + "\n" + \
        subsection("Turn structures").replace(
        "test steady(Ld)", "stat Ld \"Leadership\" 2..12: \"l\"\ntest steady(Ld)")
    assert "objective the_relic" in source and "by reaching 10" in source
    result = compile_text(PRELUDE + UNITS.replace("Sv 3+  A 1", "Sv 3+  A 1  OC 1  Ld 8").replace("Sv 6+  A 1", "Sv 6+  A 1  OC 1  Ld 7")
                          + "\n" + source)
    assert [f"{d.code} {d.message}" for d in result.diagnostics if d.severity.name == "ERROR"] == []
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("relic"), [GreedyPolicy(), GreedyPolicy()], seed=2)
    out = battle.run()
    assert out.reason in ("wipe_out", "first_to_ten", "most_points", "turn limit")
    crossing = Battle(Rules(model), model.get("crossing"), [GreedyPolicy(), GreedyPolicy()], seed=2)
    assert crossing.run().reason in ("crossing_won", "turn limit")
    assert any(e["event"] == "move" and "objective" in e for e in crossing.events)  # the greedy goes for them
    raid_game = model.get("raid")
    assert raid_game.control is not None and (raid_game.control.by, raid_game.control.sticky) == ("presence", True)
    raid = Battle(Rules(model), model.get("raid_line"), [GreedyPolicy(), GreedyPolicy()], seed=2)
    out = raid.run()
    held = [e["holders"] for e in raid.events if e["event"] == "control"]
    assert held and out.reason in ("raid_won", "turn limit")
    counted = [e for e in raid.events if e["event"] == "score" and e["score"] == "raid_held"]
    assert len(counted) == sum(h is not None for h in held[-1].values())  # the counters held at the end
    ring = Battle(Rules(model), model.get("ring_field"), [GreedyPolicy(), GreedyPolicy()], seed=2)
    assert ring.run().reason == "ring_won"
    assert any(e["event"] == "move" and e.get("objective") == "the nearest corner" for e in ring.events)
    rings = [(e["to"], e["points"]) for e in ring.events if e["event"] == "score" and e["score"] == "ring_held"]
    assert rings == [("marines", 5.0)] * 2  # the squads hold the four corners for two turns; the Orks cannot
    table = Battle(Rules(model), model.get("table_fight"), [GreedyPolicy(), GreedyPolicy()], seed=3)
    assert table.state.table is not None and [a.aid for a in table.state.table.areas] == ["copse", "east_wall"]
    assert table.run().reason in ("table_wipe", "turn limit")
    game = model.get("firefight_turns")
    assert game.initiative is not None and game.casualties_at_end and game.phases[0].actions[0].must
    assert [(c.situation, c.rises.func, c.event, c.falls, c.period, c.cleared) for c in game.counters] == [
        ("pins", "pins_gained", "shot", 1, "game turn", ("engaged",))]
    assert [(r.event, r.unless, r.spends) for r in game.reactions] == [("charged", ("pinned",), "failure"),
                                                                      ("shot", ("pinned",), None)]
    takes = game.at_end[0]
    assert takes.takes and [e.kind for e in takes.effects] == ["clears"]
    assert [(v, [(e.kind, e.name, e.period) for e in effects]) for v, effects in takes.cases] == [
        ("down", [("sets", "pinned", "own turn")]), ("breaks", [("sets", "routed", None), ("move", None, None)])]
    assert model.get("dice_turns").activation_dice.fewer == ((2, "pinned"),)
    duel = Battle(Rules(model), model.get("pin_duel"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    assert duel.run().reason in ("wipe_out_turns", "turn limit")
    answers = [e for e in duel.events if e["event"] == "reaction" and e["reaction"] == "shot"]
    assert answers  # the shot squads fire back before the volley at them
    after = duel.events[duel.events.index(answers[0]) + 1]
    assert after["event"] == "volley" and after["unit"] == answers[0]["unit"] and after["target"] == answers[0]["cause"]


@pytest.mark.parametrize("title", SECTIONS)
def test_the_examples_check_and_hold(title: str) -> None:
    source = section(title)
    assert source.count("\n") >= 10
    result = compile_text(PRELUDE + UNITS + "\n" + source)
    assert [f"{d.code} {d.message}" for d in result.diagnostics if d.severity.name == "ERROR"] == []
    results = run_ruleset(result.rulesets[0])
    assert len([r for r in results if r.kind == "example"]) == len(re.findall(r"^example ", source, re.M))
    assert [(r.id, r.failures) for r in results if r.failures] == []


def test_the_charges_close_combat_and_warlord_example_checks_and_plays() -> None:
    from compiler.battle import Battle, GreedyPolicy, Rules
    source = subsection("Charges, close combat and the warlord")
    assert "without Range" in source and "as warlord" in source and "end of own turn" in source
    result = compile_text(PRELUDE + UNITS + "\n" + source)
    assert [f"{d.code} {d.message}" for d in result.diagnostics if d.severity.name == "ERROR"] == []
    model = result.rulesets[0]
    rules = Rules(model)
    kinds: set[str] = set()
    for seed in range(6):
        battle = Battle(rules, model.get("brawl_line"), [GreedyPolicy(), GreedyPolicy()], seed=seed)
        out = battle.run()
        assert out.reason in ("brawl_ten", "brawl_wipe") and out.winner is not None
        kinds |= {e["event"] for e in battle.events} | {str(e.get("weapon")) for e in battle.events}
    assert {"charge_roll", "engage", "knife"} <= kinds


def test_the_what_a_battle_reads_example_checks_and_refuses_a_unit_without_ld() -> None:
    source = subsection("What a battle reads of a unit")
    assert "unit has fearless" in source or "u has fearless" in source
    stats = 'stat Ld "Leadership" 2..12: "l"\nstat Inv "Invulnerable" target: "i"\nstat Range "Range" distance: "r"\n'
    shooting = ('attack shooting(shooter, target) "Shooting":\n  hits = shooter.models each hit(shooter.BS)\n'
                '  killed = hits removes target\n')
    scenario = ('scenario pin_line "Pin line":\n  game pinning\n  distance 24"\n  side red "Red":\n    5 space_marine\n'
                '  side blue "Blue":\n    5 ork_boy\n')
    units = UNITS.replace("Sv 3+  A 1", "Sv 3+  A 1  Ld 8  Inv -").replace("Sv 6+  A 1", "Sv 6+  A 1  Inv -")
    result = compile_text(PRELUDE + stats + units + shooting + "\n" + source + scenario)
    found = [(d.code, d.message) for d in result.diagnostics if d.severity.name == "ERROR"]
    assert found == [("W866", "a battle reads 'Ld' for each unit here, but the profile of 'ork_boy' (scenario "
                      "'pin_line', side 'blue') has no Ld")]
    fixed = compile_text(PRELUDE + stats + units.replace("Sv 6+  A 1", "Sv 6+  A 1  Ld 7") + shooting + "\n"
                         + source + scenario)
    assert [d.message for d in fixed.diagnostics if d.severity.name == "ERROR"] == []
