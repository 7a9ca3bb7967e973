"""A list file's marks (``as warlord``, ``in reserve``) counted by ``warscribe army check``, and the
army rules no list can show met or broken said so, never passed or failed on a made-up value.

nuceria-rts requires exactly one warlord and keeps it out of reserve; the fixture ruleset of
tests/army_fixture.py counts points in reserve and reads ``characters``, which no list file shows.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from army_fixture import RULES
from compiler.model.armies import UNKNOWN
from conftest import ROOT, warscribe

NUCERIA = ROOT / "rules" / "nuceria-rts"


@pytest.fixture(scope="module")
def armytest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("marks") / "armytest"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return folder


def check(rules: Path, text: str, folder: Path, *extra: str) -> tuple[int, dict[str, object]]:
    path = folder / "list.txt"
    path.write_text(text, encoding="utf-8")
    ran = warscribe("army", "check", str(rules), str(path), "--json", *extra)
    return ran.returncode, json.loads(ran.stdout)


@pytest.mark.parametrize("text, warlords, broken", [
    ("5 trooper as warlord\n3 stalker\n", 1, []),
    ("5 trooper\n3 stalker\n", 0, ["Each army names exactly one warlord. (warlords = 0)"]),
    ("5 trooper as warlord\n3 stalker as warlord in reserve\n", 2,
     ["Each army names exactly one warlord. (warlords = 2)",
      "The warlord starts on the battlefield, not in reserve. (reserve_warlords = 1)"]),
    ("5 trooper in reserve as warlord\n", 1,
     ["The warlord starts on the battlefield, not in reserve. (reserve_warlords = 1)"]),
])
def test_nuceria_counts_the_warlords_a_list_names(text: str, warlords: int, broken: list[str],
                                                  tmp_path: Path) -> None:
    code, out = check(NUCERIA, text, tmp_path)
    assert out["quantities"]["warlords"] == warlords  # type: ignore[index]
    assert [v["message"] for v in out["violations"]] == broken  # type: ignore[union-attr]
    assert (code, out["ok"]) == ((0, True) if not broken else (1, False))
    assert all(v["rule"] == "setup" for v in out["violations"])  # type: ignore[union-attr]


def test_points_in_reserve_are_the_reserve_units_points(armytest: Path, tmp_path: Path) -> None:
    # troop squad of 6: 50 + 10 = 60 points; a tank 120; a hero 55 (the fixture's costs)
    code, out = check(armytest, "6 troop_squad in reserve\n1 tank in reserve\n1 hero as warlord\n", tmp_path)
    q = out["quantities"]
    assert (q["points"], q["reserve_points"], q["warlords"], q["reserve_warlords"], q["detachments"]) == \
        (235, 180, 1, 0, 1)  # type: ignore[index]
    assert code == 1 and [v["message"] for v in out["violations"]] == [  # type: ignore[union-attr]
        "Half the points in reserve, the warlord on the table. (points = 235, reserve_points = 180, "
        "reserve_warlords = 0)"]
    code, out = check(armytest, "6 troop_squad in reserve\n1 tank\n1 hero as warlord\n", tmp_path)
    assert code == 0 and out["ok"] is True and out["quantities"]["reserve_points"] == 60  # type: ignore[index]
    # two warlords, and an empty list has no detachment
    code, out = check(armytest, "1 hero as warlord\n1 hero as warlord\n5 troop_squad\n", tmp_path)
    assert [v["message"] for v in out["violations"]] == [  # type: ignore[union-attr]
        "One or two detachments, led by one warlord at most. (detachments = 1, warlords = 2)"]
    code, out = check(armytest, "", tmp_path)
    assert "One or two detachments, led by one warlord at most. (detachments = 0, warlords = 0)" in \
        [v["message"] for v in out["violations"]]  # type: ignore[union-attr]
    # the detachments its units belong to: a unit without the mark is in the first
    code, out = check(armytest, "5 troop_squad in detachment 2\n1 hero as warlord in detachment 3\n6 troop_squad\n",
                      tmp_path)
    assert out["quantities"]["detachments"] == 3 and [v["message"] for v in out["violations"]] == [  # type: ignore
        "One or two detachments, led by one warlord at most. (detachments = 3, warlords = 1)"]
    code, out = check(armytest, "5 troop_squad in detachment 2\n1 hero as warlord in detachment 2\n", tmp_path)
    assert code == 0 and out["quantities"]["detachments"] == 1  # type: ignore[index]


#: Army rules reading `characters` and `special_points` in a ruleset whose keywords have no role.
NO_ROLES = ('ruleset plain "Plain":\n  version 1.0.0\nstat W "Wounds" 1..10 role wounds\n'
            'keyword hq "HQ": "Leaders."\nunit boss "Boss":\n  W 3\n  keywords hq\n  points 50\n'
            'unit grunt "Grunt":\n  W 1\n  points 5\narmy a "A":\n  require points <= 200: "Small."\n'
            '  require characters <= 1 or special_points > 1000: "One leader at most."\n')


def test_a_rule_no_list_can_show_is_said_not_checked(tmp_path: Path) -> None:
    """No keyword is role characters or role special: the rule reading them is neither met nor broken, in JSON
    (ok: null), in words (W865), and by `check`."""
    rules = tmp_path / "plain"
    rules.mkdir()
    (rules / "ruleset.rules").write_text(NO_ROLES, encoding="utf-8")
    code, out = check(rules, "1 boss\n1 boss\n", tmp_path)
    assert code == 0 and out["ok"] is None and out["violations"] == []
    [unchecked] = out["unchecked"]  # type: ignore[misc]
    assert unchecked["message"] == "One leader at most." and unchecked["span"]["line"] == 14
    assert unchecked["why"] == UNKNOWN["characters"] + "; " + UNKNOWN["special_points"]
    assert "characters" not in out["quantities"] and "special_points" not in out["quantities"]  # type: ignore
    ran = warscribe("army", "check", str(rules), str(tmp_path / "list.txt"))
    assert ran.returncode == 0 and "warning[W865]: not checked: One leader at most." in ran.stdout
    assert "the list meets the rules of 'A' that a list file can show; 1 rule not checked" in ran.stdout
    # broken elsewhere: still broken, and the rule no list can show still said
    code, out = check(rules, "5 boss\n", tmp_path)
    assert code == 1 and out["ok"] is False and len(out["unchecked"]) == 1  # type: ignore[arg-type]
    checked = warscribe("check", str(rules))
    assert "warning[W865]" in checked.stderr and "no army list can show this requirement met or broken" in checked.stderr
    # with the roles, the same rule is checked: the boss's keyword counts characters, the grunt's special points
    (rules / "ruleset.rules").write_text(NO_ROLES.replace('keyword hq "HQ":', 'keyword hq "HQ" role characters:')
                                         .replace('unit grunt "Grunt":\n  W 1\n', 'keyword big "Big" role special\n'
                                                  'unit grunt "Grunt":\n  W 1\n  keywords big\n'), encoding="utf-8")
    code, out = check(rules, "1 boss\n1 boss\n3 grunt\n", tmp_path)
    assert (code, out["unchecked"], out["quantities"]["characters"], out["quantities"]["special_points"]) == \
        (1, [], 2, 15)  # type: ignore[index]
    assert [v["message"] for v in out["violations"]] == [  # type: ignore[union-attr]
        "One leader at most. (characters = 2, special_points = 15)"]
    assert "W865" not in warscribe("check", str(rules)).stderr
    exported = {d["id"]: d for d in json.loads(warscribe("export", str(rules)).stdout)["rulesets"][0]["declarations"]}
    assert (exported["hq"]["role"], exported["big"]["role"]) == ("characters", "special")


@pytest.mark.parametrize("lexicon, message", [
    ('keyword hq "HQ" role leader', "unknown role 'leader' of keyword 'hq'"),
    ('keyword hq "HQ" role character', "unknown role 'character' of keyword 'hq'; did you mean 'characters'?"),
    ('status hq "HQ" role characters', "a status has no role; a keyword may have one the army rules count"),
    ('keyword hq "HQ" role characters\nkeyword boss "Boss" role characters',
     "keywords 'hq' and 'boss' are both role characters"),
])
def test_a_keyword_role_the_army_rules_cannot_count_is_refused(lexicon: str, message: str, tmp_path: Path) -> None:
    rules = tmp_path / "roles"
    rules.mkdir()
    (rules / "ruleset.rules").write_text(f'ruleset roles "Roles":\n  version 1.0.0\n{lexicon}\n', encoding="utf-8")
    ran = warscribe("check", str(rules))
    assert ran.returncode == 1 and message in ran.stderr, ran.stderr
    assert f"ruleset.rules:{lexicon.count(chr(10)) + 3}:1: error[" in ran.stderr  # at the (last) declaration


def test_a_keyword_named_like_a_quantity_counts_the_units_that_have_it(tmp_path: Path) -> None:
    rules = tmp_path / "kw"
    rules.mkdir()
    (rules / "ruleset.rules").write_text(
        'ruleset kw "Keywords":\n  version 1.0.0\nkeyword characters "Characters": "Leaders."\n'
        'stat W "Wounds" 1..10 role wounds\nunit boss "Boss":\n  W 3\n  keywords characters\n'
        'unit grunt "Grunt":\n  W 1\narmy a "A":\n  require characters <= 1: "One leader at most."\n', encoding="utf-8")
    code, out = check(rules, "1 boss\n1 boss\n3 grunt\n", tmp_path)
    assert code == 1 and out["unchecked"] == [] and out["quantities"]["characters"] == 2  # type: ignore[index]


@pytest.mark.parametrize("line, column, message, hint", [
    ("1 trooper as warlrd", 14, "'warlrd': a unit is marked `as warlord`", "did you mean 'warlord'?"),
    ("1 trooper in reserve in reserve", 22, "the unit is marked `in reserve` twice", None),
    ("1 trooper as warlord as warlord", 22, "the unit is marked `as warlord` twice", None),
    ("1 trooper in reserve with line_rifle", 22, "cannot read 'with' here; the weapons come first, after `with`", None),
    ("1 trooper as", 13, "`as` ends the line; a unit is marked `as warlord`", None),
    ("1 trooper warlord", 11, "cannot read 'warlord' here; after the unit come `with` and its weapons, then "
                              "`as warlord`, `in reserve` or `in detachment N`", None),
    ("1 trooper in detachmnt 2", 14, "'detachmnt': a unit is marked `in reserve` or `in detachment N`",
     "did you mean 'detachment'?"),
    ("1 trooper in detachment", 24, "`in detachment` takes the detachment's number, from 1 to 99", None),
    ("1 trooper in detachment 100", 25, "`in detachment` takes the detachment's number, from 1 to 99", None),
    ("1 trooper in detachment 2 in detachment 2", 27, "the unit is marked `in detachment` twice", None),
    ("1 trooper with line_rifle, as warlord", 28, "'as' is not a unit, squad or weapon of nuceria-rts", None),
])
def test_a_bad_mark_is_located(line: str, column: int, message: str, hint: str | None, tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text(f"# a list\n5 trooper as warlord\n{line}\n", encoding="utf-8")
    ran = warscribe("army", "check", str(NUCERIA), str(path))
    assert ran.returncode == 1
    said = ran.stdout.splitlines()
    assert said[0] == f"{path}:3:{column}: error: {message}"
    if hint:
        assert said[1] == f"   = hint: {hint}"


def test_a_battle_refuses_a_unit_in_reserve_and_says_it_plays_no_detachments(tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text("5 space_marine_squad in reserve\n", encoding="utf-8")
    ran = warscribe("simulate", str(ROOT / "rules" / "console-40k"), "--army", f"space_marines={path}", "--games", "1")
    assert ran.returncode == 2 and f"{path}:1: a battle plays every unit of a list from its start" in ran.stderr
    path.write_text("5 space_marine_squad\n5 space_marine_squad in detachment 2\n", encoding="utf-8")
    ran = warscribe("simulate", str(ROOT / "rules" / "console-40k"), "--army", f"space_marines={path}", "--games", "1")
    assert ran.returncode == 0 and f"{path}:2: warning: a battle activates each unit as a detachment of its own" \
        in ran.stderr


ROSTER = '''<?xml version="1.0" encoding="UTF-8"?>
<roster xmlns="http://www.battlescribe.net/schema/rosterSchema" id="r" name="Host" battleScribeVersion="2.03">
  <forces><force id="f" name="Building an army" entryId="fe"><selections>
    <selection id="a" name="Line Trooper" entryId="x" number="5" type="unit">{a}</selection>
    <selection id="b" name="Stalker Beast" entryId="y" number="1" type="model">{b}</selection>
  </selections></force></forces>
</roster>
'''


@pytest.mark.parametrize("a, b, warlords", [
    ("", "", 0),
    ('<categories><category id="c" name="Warlord" entryId="cw" primary="false"/></categories>', "", 1),
    ("", '<selections><selection id="w" name="Warlord" entryId="uw" number="1" type="upgrade"/></selections>', 1),
    ('<categories><category id="c" name="Warlord" entryId="cw" primary="false"/></categories>',
     '<selections><selection id="w" name="Warlord" entryId="uw" number="1" type="upgrade"/></selections>', 2),
])
def test_a_roster_marks_its_warlord_as_battlescribe_does(a: str, b: str, warlords: int, tmp_path: Path) -> None:
    """A BattleScribe roster names its warlord with a category or a selection called Warlord."""
    path = tmp_path / "host.ros"
    path.write_text(ROSTER.format(a=a, b=b), encoding="utf-8")
    ran = warscribe("army", "check", str(NUCERIA), str(path), "--json")
    out = json.loads(ran.stdout)
    assert out["quantities"]["warlords"] == warlords and out["army"] == "rts_army"
    assert ran.returncode == (0 if warlords == 1 else 1)


def test_the_warlord_round_trips_through_an_exported_catalogue(tmp_path: Path) -> None:
    """nuceria-rts exported for BattleScribe: each unit may take the Warlord (at most once; the roster exactly
    one, as the army rules say); a roster built on it that picks the Warlord for one unit is that list's
    `as warlord`."""
    from lxml import etree

    out = tmp_path / "bs"
    ran = warscribe("export", str(NUCERIA), "--battlescribe", str(out))
    said = ran.stdout + ran.stderr  # `warlords == 1` becomes a constraint, not a note; the reserves stay a note
    assert ran.returncode == 0 and "require warlords == 1" not in said and "require reserve_warlords == 0" in said
    cat = etree.parse(str(out / "nuceria-rts.cat")).getroot()
    ns = {"c": "http://www.battlescribe.net/schema/catalogueSchema"}
    [shared] = cat.xpath("//c:sharedSelectionEntries/c:selectionEntry[@id='ws-warlord']", namespaces=ns)
    assert shared.get("name") == "Warlord" and shared.get("type") == "upgrade"
    assert {(c.get("type"), c.get("scope"), c.get("value")) for c in shared.xpath(".//c:constraint", namespaces=ns)} \
        == {("min", "roster", "1"), ("max", "roster", "1")}
    units = cat.xpath("//c:selectionEntries/c:selectionEntry", namespaces=ns)
    assert units and all(u.xpath("c:entryLinks/c:entryLink[@targetId='ws-warlord']", namespaces=ns) for u in units)
    assert not etree.parse(str(out / "nuceria-rts.cat")).xpath("//c:costs/following-sibling::c:entryLinks",
                                                              namespaces=ns)  # the schema's order
    pick = '<selections><selection id="w" name="Warlord" entryId="ws-unit-stalker-warlord::ws-warlord" ' \
           'number="1" type="upgrade"/></selections>'
    roster = tmp_path / "host.ros"
    roster.write_text(ROSTER.replace('entryId="y"', 'entryId="ws-unit-stalker"').format(a="", b=pick), encoding="utf-8")
    got = json.loads(warscribe("army", "check", str(NUCERIA), str(roster), "--json").stdout)
    assert got["ok"] is True and got["quantities"]["warlords"] == 1
    console = warscribe("export", str(ROOT / "rules" / "console-40k"), "--battlescribe", str(tmp_path / "c"))
    assert console.returncode == 0 and b"Warlord" not in (tmp_path / "c" / "console-40k.cat").read_bytes()
