"""`check` refuses a battle expression that reads a stat some unit of a scenario lacks (W866),
located where it is read, for each kind of expression a battle works out for one unit; a part the
unit's profile keeps it from needs nothing; and `unit` reads the unit's keywords in a battle only."""
from __future__ import annotations

from pathlib import Path

import pytest

from compiler.battle import Battle, GreedyPolicy, Rules
from compiler.driver import compile_text

RULES = '''ruleset carried "Carried":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat Ld "Leadership" 2..12
stat M "Move" 1..12
stat W "Wounds" 1..10 role wounds
stat Blast "Blast" dice
keyword fearless "Fearless": "No fear."
situation engaged "Engaged"
situation pinned "Pinned"
situation pins "Pins" 0..6
situation stance "Stance" one of bold, wary
test hit(BS) = roll d6 >= BS
test steady(Ld) = roll 2d6 <= Ld
formula brave(u: unit) "Brave" = u has fearless or u.Ld > 8
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 4  W 1  Ld 7  M 6  Blast 3
unit drone "Drone":
  BS 4  W 1{drone}
game hold "Hold":
  turns 2
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
{line}
  victory wipe "Wipe" by annihilation
scenario field "A field":
  game hold
  distance 24"
  side red "Red":
    5 trooper
  side blue "Blue":
    5 drone
'''

#: each kind of expression a battle works out for one unit, with the stat it reads and where
KINDS = {
    "move": ('    action advance "Advance": move up to M toward the enemy', "M", "M toward"),
    "charge": ('    action charge "Charge": engage within M + d6 as engaged', "M", "M + d6"),
    "action test": ('    action brace "Brace": tests steady(Ld)', "Ld", "Ld)"),
    "status until": ('    action dig "Dig in": sets pinned until passed steady(Ld)', "Ld", "Ld)"),
    "reaction": ('  when charged: tests steady(Ld)', "Ld", "Ld)"),
    "end of turn": ('  at end of game turn: each unit with models < started tests steady(Ld), failing: destroyed', "Ld",
                    "Ld)"),
    "end condition": ('  at end of game turn: each unit with Ld < 8 tests steady(7), failing: destroyed', "Ld", "Ld <"),
    "takes": ('  at end of turn: each unit with models < started takes steady(Ld)\n    on "failed": sets pinned', "Ld",
              "Ld)"),
    "counter": ('  counter pins: rises by M when charged', "M", "M when"),
    "activation dice": ('  activation dice 1..3 of steady(Ld), bust on 2 failures', "Ld", "Ld)"),
    "derived": ('  situation stance is bold when Ld > 7, otherwise wary', "Ld", "Ld >"),
    "score": ('  score kept "Kept": M per surviving model', "M", "M per"),
    "unit.stat": ('    action brace "Brace": tests steady(unit.Ld)', "Ld", "unit.Ld"),
    "through a formula": ('    action brace "Brace": tests brave(unit) or steady(7)', "Ld", "unit)"),
}


def compiled(line: str, drone: str = "") -> list[tuple[str, int, int, str]]:
    result = compile_text(RULES.format(line=line, drone=drone), "carried.rules")
    return [(d.code, d.span.line, d.span.column, d.message) for d in result.diagnostics if d.severity.name == "ERROR"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_stat_the_unit_lacks_is_refused_where_it_is_read(kind: str) -> None:
    line, stat, at = KINDS[kind]
    if kind == "activation dice":
        line = line + "\n  activation activation_rolls"
    text = RULES.format(line=line, drone="")
    row = next(i for i, ln in enumerate(text.split("\n"), 1) if at in ln and ln.strip().startswith(line.split()[0]))
    col = text.split("\n")[row - 1].index(at) + 1
    found = compiled(line)
    assert [(c, r, k) for c, r, k, _ in found] == [("W866", row, col)], found
    assert f"a battle reads '{stat}' for each unit here" in found[0][3]
    assert f"the profile of 'drone' (scenario 'field', side 'blue') has no {stat}" in found[0][3]
    if kind == "through a formula":
        assert "(through 'brave')" in found[0][3]
    # the same line is accepted when the drone carries the stat
    assert compiled(line, "  Ld 7  M 6") == []


def test_a_dice_stat_read_is_refused_even_when_every_unit_has_one() -> None:
    # a unit expression cannot read a roll: the trooper's Blast 3 is a number, a D6 is not
    found = compiled('    action blast "Blast": tests hit(Blast)', "  Blast D6")
    assert [c for c, *_ in found] == ["W866"] and "its Blast is a roll (D6)" in found[0][3]


def test_a_part_the_profile_keeps_a_unit_from_needs_no_stat_and_plays() -> None:
    guarded = ('    action advance "Advance": move up to (if unit has fearless then 3 else M) toward the enemy\n'
               '  at end of game turn: each unit with not (unit has fearless) tests steady(Ld), failing: destroyed')
    assert [c for c, *_ in compiled(guarded)] == ["W866", "W866"]  # an ordinary drone lacks both
    fearless = "\n  keywords fearless"
    assert compiled(guarded, fearless) == []
    model = compile_text(RULES.format(line=guarded, drone=fearless), "carried.rules").rulesets[0]
    for seed in range(2):
        battle = Battle(Rules(model), model.get("field"), [GreedyPolicy(), GreedyPolicy()], seed)
        battle.run()
        drone = battle.state.units[1]
        moves = [e["inches"] for e in battle.events if e["event"] == "move" and e["unit"] == drone.label]
        assert all(m <= 3 for m in moves)  # the fearless drone moves 3" at most, reading no M


def test_unit_means_nothing_outside_a_battle() -> None:
    text = RULES.format(line="", drone="") + 'formula bold() "Bold" = unit has fearless\n'
    found = [(d.code, d.message, d.hint) for d in compile_text(text, "carried.rules").diagnostics]
    assert ("W101", "'unit' is the unit a battle works an expression out for, and there is none here",
            "take the profile as a parameter, e.g. (u: unit), then ask: u has KEYWORD") in found


def test_an_attack_reads_the_stats_of_the_unit_that_makes_it_and_of_its_target() -> None:
    # a drone with no BS would make no volley, and one with no T could never be shot: both refused
    text = RULES.replace("  hits = shooter.models each hit(shooter.BS)\n  killed = hits removes target",
                         "  hits = shooter.models each hit(shooter.BS)\n  wounds = hits each hit(target.T)\n"
                         "  killed = wounds removes target").replace('stat M "Move" 1..12', 'stat M "Move" 1..12\n'
                                                                    'stat T "Toughness" 1..10')
    text = text.replace("  BS 4  W 1  Ld 7  M 6  Blast 3", "  BS 4  W 1  Ld 7  M 6  Blast 3  T 3")
    text = text.replace('unit drone "Drone":\n  BS 4  W 1{drone}', 'unit drone "Drone":\n  W 1{drone}')
    lines = text.split("\n")
    found = [(d.code, d.span.line, d.message) for d in compile_text(text.format(line="", drone=""), "c.rules").diagnostics
             if d.severity.name == "ERROR"]
    assert found == [
        ("W866", lines.index("  hits = shooter.models each hit(shooter.BS)") + 1,
         "a battle reads 'BS' of each unit that makes attack 'shooting' here, but the profile of 'drone' "
         "(scenario 'field', side 'blue') has no BS"),
        ("W866", lines.index("  wounds = hits each hit(target.T)") + 1,
         "a battle reads 'T' of each unit attack 'shooting' is aimed at here, but the profile of 'drone' "
         "(scenario 'field', side 'blue') has no T")]
    assert [d for d in compile_text(text.format(line="", drone="  BS 5  T 4"), "c.rules").diagnostics
            if d.severity.name == "ERROR"] == []


@pytest.mark.parametrize("drone, errors", [("\n  keywords fearless", 0), ("  Ld 9", 0), ("", 2)])
def test_a_formula_of_one_result_called_with_unit_decides_what_the_unit_reaches(drone: str, errors: int) -> None:
    # brave(unit) is decided by the profile for a fearless drone (never reading Ld), not for another:
    # its `u.Ld > 8` reads Ld (once through brave), and the test the else branch takes reads it too
    line = '    action brace "Brace": tests (if brave(unit) then steady(12) else steady(Ld))'
    found = compiled(line, drone)
    assert [c for c, *_ in found] == ["W866"] * errors
    if errors:
        assert "(through 'brave')" in found[0][3] and "has no Ld" in found[1][3]


def test_a_stat_read_before_a_keyword_decides_is_still_read() -> None:
    # `unit.Ld > 8 or unit has fearless` works out Ld first, whatever the keyword says
    line = '    action brace "Brace": tests (if unit.Ld > 8 or unit has fearless then steady(12) else steady(7))'
    assert [c for c, *_ in compiled(line, "\n  keywords fearless")] == ["W866"]
    line = '    action brace "Brace": tests (if unit has fearless or unit.Ld > 8 then steady(12) else steady(7))'
    assert compiled(line, "\n  keywords fearless") == []


def test_an_army_list_given_on_the_command_line_is_held_to_the_same_rule(tmp_path: Path) -> None:
    from conftest import warscribe
    folder = tmp_path / "carried"
    folder.mkdir()
    text = RULES.format(line='    action advance "Advance": move up to M toward the enemy', drone="")
    (folder / "carried.rules").write_text(text.replace("    5 drone", "    5 trooper"), encoding="utf-8")
    listed = tmp_path / "drones.txt"
    listed.write_text("5 drone\n", encoding="utf-8")
    assert warscribe("check", str(folder)).returncode == 0  # the scenario's own units carry M
    ran = warscribe("simulate", str(folder), "--army", f"blue={listed}", "--games", "2")
    assert ran.returncode == 1 and ran.stdout == ""
    row = text.split("\n").index('    action advance "Advance": move up to M toward the enemy') + 1
    assert f"carried.rules:{row}:42: error[W866]: a battle reads 'M' for each unit here, but the profile of 'drone' " \
           "(scenario 'field', side 'blue') has no M" in ran.stderr
    assert f"{listed}:1:1: 'drone' is fielded here" in ran.stderr
