"""What a new author meets while writing, checking, simulating and publishing a first ruleset:
each mistake answered by one located sentence (no cascade of errors about what only follows from
the first one, no option dropped in silence), and each answer saying what it leaves out."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from compiler.driver import compile_text

# An attack whose section is lost to a line indented one space too far, and an example that
# reads the steps of that attack through a `let`.
LOST_ATTACK = '''ruleset r "R":
  version 1.0.0

stat AIM "Aim" 1..9: "a"
stat W "Wounds" 1..3 role wounds: "w"

section combat "Combat":
  test shoot(AIM) "Shoot":
    roll d10 >= 11 - AIM
     natural 1 fails

  attack volley(shooter, target) "Volley":
    shots = shooter.models
    hits = shots each shoot(shooter.AIM)
    killed = hits removes target

unit scav "Scavenger":
  AIM 5  W 1

example fire "Five scavengers fire":
  let r = volley(5 scav, 5 scav)
  let again = r
  expect mean(r.hits) = 5/2
  expect mean(again.killed) = 5/2
  expect mean(volley(5 scav, 5 scav).hits) = 5/2
  expect mean(r.nonsense) = 1
'''


def test_the_steps_of_an_attack_lost_to_a_syntax_error_are_not_unknown_stats() -> None:
    result = compile_text(LOST_ATTACK, "r.rules")
    errors = [(d.code, d.span.line, d.message) for d in result.diagnostics if d.is_error]
    # one error for the broken section; reading the lost attack's steps (through a let, a let of
    # a let, or the call itself) says nothing more, whatever step is read
    assert [(code, line) for code, line, _ in errors] == [(errors[0][0], 10)] and errors[0][0] in ("W001", "W003"), errors


def test_a_step_read_from_a_profile_is_still_an_unknown_stat() -> None:
    text = LOST_ATTACK.replace("     natural 1 fails", "    natural 1 fails")
    result = compile_text(text, "r.rules")
    errors = [(d.code, d.message) for d in result.diagnostics if d.is_error]
    assert errors == [("W101", "unknown stat 'nonsense'")], errors


def _run(*args: str) -> tuple[int, str, str]:
    from click.testing import CliRunner

    from compiler.cli import app

    r = CliRunner().invoke(app, list(args), env={"NO_COLOR": "1"})
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


def test_an_option_given_twice_is_refused_not_the_last_kept() -> None:
    # before any work: the ruleset is not even read
    for args in (["simulate", "no-such-folder", "--games", "10", "--games", "20"],
                 ["simulate", "no-such-folder", "--seed=1", "-q", "--seed", "2"]):
        code, out, err = _run(*args)
        name = args[2] if args[2].startswith("--games") else "--seed"
        assert code == 2 and out == "" and err == f"warscribe: error: {name} is given twice; give it once\n", err
    code, _, err = _run("table", "no-such-folder", "x", "--json", "--json")  # a flag may repeat
    assert "given" not in err and "no such file or folder" in err


def test_a_repeatable_option_still_repeats() -> None:
    code, out, err = _run("eval", "rules/classic-40k", "P(d6 >= 4)", "-w", "target_cover = soft", "-w", "dug_in")
    assert code == 0 and out.splitlines()[-1].strip() == "1/2", (out, err)


CONSOLE = "rules/console-40k"


def test_an_army_list_for_a_scenario_must_meet_the_army_rules_it_names(tmp_path: Path) -> None:
    # full_armies names the army rules `standard`: at most 400 points, at least two squads
    one = tmp_path / "one.txt"
    one.write_text("10 space_marine_squad\n", encoding="utf-8")
    code, out, err = _run("simulate", CONSOLE, "full_armies", "--army", f"space_marines={one}", "--games", "1")
    assert code == 1 and out == "", (out, err)
    assert err.splitlines()[0] == (f"{one}: error[W862]: side 'space_marines' breaks the army rules of scenario "
                                   "'full_armies': The army has at least two squads. (squads = 1)")
    assert "army 'Choosing an army' (standard) at rules/console-40k/rulebook.rules:52" in err
    two = tmp_path / "two.txt"
    two.write_text("10 space_marine_squad\n10 space_marine_squad\n", encoding="utf-8")  # 280 points: within
    code, out, err = _run("simulate", CONSOLE, "full_armies", "--army", f"space_marines={two}", "--games", "1")
    assert code == 0 and "1 games" in out, (out, err)
    # a scenario that names no army rules plays any list, as before
    code, out, err = _run("simulate", CONSOLE, "sample_battle", "--army", f"space_marines={one}", "--games", "1")
    assert code == 0, (out, err)


def test_a_side_given_two_army_lists_is_refused(tmp_path: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text("10 space_marine_squad\n", encoding="utf-8")
    code, out, err = _run("simulate", CONSOLE, "--army", f"space_marines={one}", "--army",
                          f"space_marines={one}", "--games", "1")
    assert code == 2 and out == "" and err == (f"warscribe: error: --army space_marines={one}: side 'space_marines' "
                                               "is given two army lists; give it one\n"), err


def _folder(tmp_path: Path, lexicon: bytes) -> Path:
    folder = tmp_path / "r"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(LOST_ATTACK.replace("     natural 1 fails", "    natural 1 fails")
                                          .replace('stat AIM "Aim" 1..9: "a"\nstat W "Wounds" 1..3 role wounds: "w"\n',
                                                   'include "lexicon.rules"\n')
                                          .replace("  expect mean(r.nonsense) = 1\n", ""), encoding="utf-8")
    (folder / "lexicon.rules").write_bytes(lexicon)
    return folder


LEXICON = 'stat AIM "Aim" 1..9: "How well a model shoots."\nstat W "Wounds" 1..3 role wounds: "w"\n'


def test_a_stray_byte_that_is_not_utf8_is_one_located_error(tmp_path: Path) -> None:
    from compiler.driver import compile_paths

    assert compile_paths([_folder(tmp_path, LEXICON.encode())]).ok  # the ruleset as written is clean
    # "shoots." saved as Latin-1 with an accent: one error where the byte is, and nothing else
    # (the file used to be dropped whole: an unknown name for every use of AIM and W)
    text = LEXICON.encode().replace(b"shoots.", b"shoots \xe0 vue.")
    result = compile_paths([_folder(tmp_path / "1", text)])
    errors = [(d.code, d.span.line, d.span.column, d.message) for d in result.diagnostics if d.is_error]
    column = LEXICON.index("shoots.") + len("shoots ") + 1
    assert errors == [("W005", 1, column, "this file is not UTF-8 text (byte 0xE0)")], errors
    # a byte inside a name: the declaration it breaks is lost, and what only follows from that is not said
    text = LEXICON.encode().replace(b'stat W "Wounds"', b'stat W\xe9 "Wounds"')
    result = compile_paths([_folder(tmp_path / "2", text)])
    errors = [(d.code, d.span.line) for d in result.diagnostics if d.is_error]
    assert sorted(errors) == [("W001", 2), ("W005", 2)], errors


def test_a_binary_file_is_not_read_as_rules(tmp_path: Path) -> None:
    from compiler.driver import compile_paths

    result = compile_paths([_folder(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8\n" * 50)])
    errors = [(d.code, d.span.line) for d in result.diagnostics if d.is_error]
    assert errors[0] == ("W005", 1) and not [e for e in errors if e[0] in ("W001", "W003")], errors


EXPLODING = '''ruleset boom "Boom":
  version 1.0.0

formula blast() "Blast" = explode(d6, 6, 3)

formula sure() "Surely at least one" = P(blast() >= 1)

example blast_odds "A blast is at least one":
  expect P(blast() >= 1) = 1
  expect sure() = 1
'''


def test_a_cut_off_roll_is_said_where_p_and_mean_turn_it_into_a_number(tmp_path: Path) -> None:
    folder = tmp_path / "boom"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(EXPLODING, encoding="utf-8")
    # explode(d6, 6, 3): four sixes in a row would roll a fifth die, past the bound: (1/6)^4 is cut off
    from fractions import Fraction
    from itertools import product

    cut = Fraction(1, 6) ** 4
    weights: dict[int, Fraction] = {}
    for n in range(1, 5):  # n dice: a six on each but the last, which stops the explosion
        for f in product(range(1, 7), repeat=n):
            if all(x == 6 for x in f[:-1]) and f[-1] != 6:
                weights[sum(f)] = weights.get(sum(f), Fraction(0)) + Fraction(1, 6) ** n
    assert sum(weights.values()) == 1 - cut
    mean = sum(t * p for t, p in weights.items())
    for expression, value in (("P(blast() >= 1)", 1 - cut), ("mean(blast())", mean), ("sure()", 1 - cut)):
        code, out, err = _run("eval", str(folder), expression)
        assert code == 0 and out.splitlines()[1:] == [f"  {value.numerator}/{value.denominator}",
                                                      "  cut off (not counted): 1/1296 (≈ 0.000771605)"], (out, err)
        code, out, err = _run("eval", str(folder), expression, "--json")
        assert code == 0 and json.loads(out)["truncated"] == "1/1296"
    code, out, err = _run("eval", str(folder), "P(d6 >= 1)", "--json")  # nothing cut off: nothing said
    assert "truncated" not in json.loads(out)
    code, out, err = _run("test", str(folder))
    assert code == 1 and "  note: a roll here was cut off at its bound (explode): 1/1296 (≈ 0.000771605) of its " \
                         "chance is counted nowhere" in out, (out, err)


def test_the_battlescribe_export_names_the_weapon_abilities_and_values_it_cannot_carry(tmp_path: Path) -> None:
    code, out, err = _run("export", "rules/nuceria-rts", "--battlescribe", str(tmp_path / "bs"))
    said = out + err
    assert code == 0, said
    assert "weapon 'battle_cannon': its abilities (cooldown(2), blast); the catalogue links abilities to units " \
           "and squads only" in said
    assert "unit 'stalker': the value of sustained_hits(1)" in said
    # what it says is what an import of the catalogue gives back: the cannon without its abilities,
    # the Stalker Beast's Sustained Hits without its value
    code, out, err = _run("import", "battlescribe", str(tmp_path / "bs" / "nuceria-rts.gst"),
                          str(tmp_path / "bs" / "nuceria-rts.cat"), "--out", str(tmp_path / "again"))
    assert code == 0, out + err
    profiles = (tmp_path / "again" / "profiles.rules").read_text("utf-8")
    cannon = profiles.split('weapon battle_cannon "Battle Cannon":')[1].split("\n\n")[0]
    stalker = profiles.split('unit stalker "Stalker Beast":')[1].split("\n\n")[0]
    assert "abilities" not in cannon and "    abilities sustained_hits\n" in stalker + "\n", (cannon, stalker)


def test_eval_prints_short_fractions_and_leaves_long_ones_to_json() -> None:
    from fractions import Fraction

    # the highest of fifteen d10: P(k) = (k^15 - (k-1)^15) / 10^15, fractions of up to 31 characters
    law = {k: Fraction(k**15 - (k - 1) ** 15, 10**15) for k in range(1, 11)}
    code, out, err = _run("eval", "rules/classic-40k", "highest(15, d10)")
    assert code == 0, err
    rows = out.splitlines()[1:11]
    for k, row in zip(range(1, 11), rows):
        text = f"{law[k].numerator}/{law[k].denominator}"
        assert row.split()[0] == str(k) and (text in row) == (len(text) <= 24), row
        assert len(row) < 80, row
    assert "  (chances whose fractions run over 24 characters: exactly in --json)" in out.splitlines()
    code, out, err = _run("eval", "rules/classic-40k", "highest(15, d10)", "--json")
    assert {int(r["value"]): Fraction(r["p"]) for r in json.loads(out)["distribution"]} == law


SKIRMISH = '''ruleset alt "Alternating":
  version 1.0.0
stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..10 role wounds
test hit(BS) = roll d6 >= BS
attack shooting(shooter, target) "Shooting":
  hits = shooter.models each hit(shooter.BS)
  killed = hits removes target
unit trooper "Trooper":
  BS 6  W 1
game g "A firefight":
  turns 3
  activation {activation}
  phase fire "Shooting":
    action shoot "Shoot": attack shooting
  victory wipe "Annihilation" by annihilation: "A side with no models left loses."
scenario line "On a line":
  game g
  distance 18"
  first red
  side red "Red":
    2 trooper
  side blue "Blue":
    2 trooper
'''


@pytest.mark.parametrize("activation", ["alternating_units", "whole_army", "alternating_activations",
                                        "alternating_detachments"])
def test_each_game_turn_of_a_battle_starts_with_its_heading(activation: str) -> None:
    """A battle under alternating_units told no game turn: `play` printed none, and the Battles
    page put the whole sample battle under "Deployment"."""
    from compiler.battle import Battle, GreedyPolicy, Rules

    result = compile_text(SKIRMISH.format(activation=activation).replace("first red", "first blue"), "alt.rules")
    assert result.ok, [d.message for d in result.diagnostics]
    model = result.rulesets[0]
    battle = Battle(Rules(model), model.get("line"), [GreedyPolicy(), GreedyPolicy()], seed=1)
    out = battle.run()
    turns = [e["turn"] for e in battle.events if e["event"] == "turn"]
    shots = [e["turn"] for e in battle.events if e["event"] not in ("turn", "start")]
    # every event of a game turn comes after that turn's heading; each game turn played has one
    assert sorted(set(turns)) == list(range(1, out.turns + 1)), (turns, out.turns)
    assert all(t in turns for t in shots)
    first = {t: next(i for i, e in enumerate(battle.events) if e["event"] == "turn" and e["turn"] == t) for t in turns}
    acted = next(e for e in battle.events if e["event"] not in ("turn", "start"))
    assert battle.events[first[1]]["side"] == acted["side"] == "blue"  # the game turn of the side that acts first
    assert all(i >= first[e["turn"]] for i, e in enumerate(battle.events) if e["event"] not in ("turn", "start"))


def _fmt_stdin(data: bytes) -> tuple[int, bytes, str]:
    from click.testing import CliRunner

    from compiler.cli import app

    r = CliRunner().invoke(app, ["fmt", "-"], input=data, env={"NO_COLOR": "1"})
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout_bytes, r.stderr


def test_fmt_of_standard_input_never_changes_a_byte_it_cannot_read() -> None:
    from compiler.limits import MAX_FILE_BYTES

    code, out, err = _fmt_stdin('stat   X "café"  1..3\n'.encode())
    assert (code, out) == (0, 'stat X "café" 1..3\n'.encode()), err
    # a Latin-1 accent: refused where it stands, nothing on standard output (it was written back
    # as U+FFFD, or a traceback, by the locale)
    code, out, err = _fmt_stdin(b'stat X "caf\xe9" 1..3\n')
    assert (code, out) == (1, b"") and err.startswith("<stdin>:1:12: error[W005]: this text is not UTF-8 (byte 0xE9)")
    code, out, err = _fmt_stdin(b"# " + b"x" * MAX_FILE_BYTES)  # read up to the limit of a file, never on
    assert (code, out) == (1, b"") and "error[W902]: standard input runs past 2,000,000 bytes" in err


@pytest.mark.parametrize("game_turns, scenario_turns, refused", [
    (3, None, None), (1000, None, None), (0, None, "game 'g' has turns 0"),
    (99999999999999, None, "game 'g' has turns 99,999,999,999,999"),
    (3, 1001, "scenario 'line' has turns 1,001"), (3, 0, "scenario 'line' has turns 0"),
])
def test_a_battle_of_no_turns_or_of_endless_turns_is_refused(game_turns: int, scenario_turns: int | None,
                                                             refused: str | None) -> None:
    """A battle nobody can win before its last turn (here BS 7 never hits) is played to its end:
    `turns 99999999999999` ran for ever; `turns 0` on a scenario was read as the game's turns."""
    text = SKIRMISH.format(activation="alternating_units").replace("  turns 3", f"  turns {game_turns}")
    if scenario_turns is not None:
        text = text.replace('  distance 18"\n', f'  distance 18"\n  turns {scenario_turns}\n')
    result = compile_text(text.replace("BS 6  W 1", "BS 7  W 1"), "alt.rules")
    errors = [(d.code, d.message) for d in result.diagnostics if d.is_error]
    if refused is None:
        assert errors == [], errors
    else:
        assert errors == [("W864", f"{refused}; a battle is played over 1 to 1,000 game turns")], errors


def test_a_tab_in_the_indentation_is_named_as_the_mistake() -> None:
    text = LOST_ATTACK.replace("     natural 1 fails", "\tnatural 1 fails").replace("  expect mean(r.nonsense) = 1\n", "")
    errors = [(d.code, d.span.line, d.span.column, d.message, d.hint)
              for d in compile_text(text, "r.rules").diagnostics if d.is_error]
    assert errors == [("W001", 10, 1, "this line is indented with a tab, which counts as 8 spaces",
                       "indent with spaces, two for each block, as the lines around it are")], errors


def test_a_bracket_left_open_is_named_where_it_opens() -> None:
    # the next line reads as more of the bracket: the error was "unexpected 'natural'" on it
    text = LOST_ATTACK.replace("     natural 1 fails", "    natural 1 fails").replace(
        "  expect mean(r.nonsense) = 1\n", "").replace("roll d10 >= 11 - AIM", "roll d10 >= (11 - AIM")
    errors = [(d.code, d.span.line, d.span.column, d.message, d.hint)
              for d in compile_text(text, "r.rules").diagnostics if d.is_error]
    column = text.splitlines()[8].index("(") + 1
    assert errors == [("W001", 9, column, "this '(' is not closed, so line 10 reads as more of it",
                       "close it with ')' before the end of line 9")], errors
    # a bracket closed, in a line with inches and quoted text before it, is no such mistake
    fine = text.replace("roll d10 >= (11 - AIM", 'roll d10 >= (11 - AIM)').replace(
        'stat AIM "Aim" 1..9: "a"', 'stat AIM "Aim (" 1..9: "a ["')
    assert compile_text(fine, "r.rules").ok


NATURALS = '''ruleset n "N":
  version 1.0.0
stat Ld "Leadership" 2..12: "l"
stat BS "Ballistic Skill" 1..9: "b"
test nerve(Ld) "Nerve":
  roll 2d6 <= Ld
  {clause}
example e "E":
  expect P(nerve(7)) = {p}
'''


@pytest.mark.parametrize("clause, p, warned", [
    # 2d6 totals 2 to 12: a re-roll of 1s, or a natural 1, never happens (the law is the plain 7/12;
    # re-rolling 1 or 2 re-rolls the 2 alone)
    ("reroll 1s", "7/12", "no roll of 2d6 is a natural 1: 'reroll 1s' never applies"),
    ("natural 1 fails", "7/12", "no roll of 2d6 is a natural 1: 'natural 1 fails' never applies"),
    ("reroll natural 1 or 2", "20/36 + 1/36 * 7/12", "no roll of 2d6 is a natural 1: 'reroll natural 1 or 2' "
                                                     "never applies"),
    # faces the dice do show: nothing to say
    ("natural 12 fails", "7/12", None), ("natural 2 succeeds", "7/12", None),
    ("reroll failures", "7/12 + 5/12 * 7/12", None),
])
def test_a_natural_face_the_dice_never_total_is_warned_of(clause: str, p: str, warned: str | None) -> None:
    result = compile_text(NATURALS.format(clause=clause, p=p), "n.rules")
    assert result.ok
    said = [(d.code, d.message) for d in result.diagnostics if d.severity.name == "WARNING"]
    assert said == ([("W202", warned)] if warned else []), said
    from compiler.resolve.runner import run_example

    model = result.rulesets[0]
    assert run_example(model, model.get("e")).passed  # and the law is what the warning says it is


def test_the_hint_for_rerolling_ones_on_two_dice_is_a_rule_that_works() -> None:
    from fractions import Fraction

    from compiler.resolve.runner import run_example

    result = compile_text(NATURALS.format(clause="reroll 1s", p="1"), "n.rules")
    hint = next(d.hint for d in result.diagnostics if d.code == "W202")
    assert hint.endswith("to re-roll each die that shows 1, roll reroll(d6, 1) + reroll(d6, 1)")
    die = {1: Fraction(1, 36), **{k: Fraction(7, 36) for k in range(2, 7)}}  # a 1 rolled again, once
    law = sum(p * q for a, p in die.items() for b, q in die.items() if a + b <= 7)
    fixed = NATURALS.format(clause="", p=str(law)).replace("roll 2d6 <= Ld", "roll reroll(d6, 1) + reroll(d6, 1) <= Ld")
    result = compile_text(fixed, "n.rules")
    assert result.ok and not [d for d in result.diagnostics if d.code == "W202"]
    model = result.rulesets[0]
    assert run_example(model, model.get("e")).passed


def test_a_projects_own_mkdocs_yml_gets_the_markdown_extensions_the_pages_need(tmp_path: Path) -> None:
    """A mkdocs.yml written by hand, without attr_list and the others, built pages whose anchors
    showed as text ("{ #ws-calc-data }") and whose calculator never started, with exit 0."""
    import os

    from compiler.syntax.scaffold import create

    create("duel", tmp_path / "rules" / "duel")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "about.md").write_text("# About\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: Mine\ndocs_dir: docs\nsite_dir: public\ntheme:\n  name: material\n"
                                         "  font: false\nplugins:\n  - search\n  - warscribe:\n      rules_dir: rules\n"
                                         "      calculator_models:\n        duel: 2\n", encoding="utf-8")
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = _run("build")
    finally:
        os.chdir(before)
    assert code == 0, out + err
    page = (tmp_path / "public" / "duel" / "calculator" / "index.html").read_text("utf-8")
    assert 'id="ws-calc-data"' in page and "{ #" not in page
    pages = [p.read_text("utf-8") for p in (tmp_path / "public" / "duel").rglob("*.html")]
    assert any('class="admonition' in p for p in pages)  # the scaffold's assumption and designer's note
    assert not [p for p in pages if "!!! " in p or "??? " in p or "{ #" in p]
    # the ruleset's id names its folder in the project's rules folder, as the calculator writes it
    os.chdir(tmp_path)
    try:
        code, out, err = _run("eval", "duel", "P(hit(3))")
    finally:
        os.chdir(before)
    assert code == 0 and out.splitlines()[-1].strip() == "1/2", out + err


def test_a_ruleset_id_is_handed_on_as_its_folder(tmp_path: Path) -> None:
    """simulate hands its path to the workers, play to its log's check, export to the check of
    where it writes: the id must be the folder there too (simulate stopped with a traceback)."""
    import os

    folder = tmp_path / "rules" / "alt"
    folder.mkdir(parents=True)
    (folder / "ruleset.rules").write_text(SKIRMISH.format(activation="alternating_units"), encoding="utf-8")
    before = os.getcwd()
    os.chdir(tmp_path)
    try:
        code, out, err = _run("simulate", "alt", "--games", "2", "--json")
        assert code == 0 and json.loads(out)["games"] == 2, out + err
        code, out, err = _run("export", "alt", "--json", "--out", "rules/alt/out.json")
        assert code == 2 and "inside the ruleset folder" in err, out + err
        code, out, err = _run("play", "alt", "--auto", "--log", "rules/alt/ruleset.rules")
        assert code == 2 and "it is a .rules file, a source" in err, out + err
    finally:
        os.chdir(before)
    assert sorted(p.name for p in folder.iterdir()) == ["ruleset.rules"]
