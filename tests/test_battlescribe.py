"""BattleScribe data in and out: import a game system and catalogues, check a roster, export and re-import.

The fixtures in tests/fixtures/battlescribe/ are small files written for these tests in the
published schema (BattleScribe 2.03): a game system with profile types, a cost type, categories,
a force organisation and a shared rule; a catalogue with a squad of two kinds of model, a
character, shared weapons reached through links and an ability profile; a second catalogue with
a horde squad and a conditional modifier; and a roster of the first.
"""
from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, warscribe

FIX = ROOT / "tests" / "fixtures" / "battlescribe"
DATA = [str(FIX / "skirmish.gst"), str(FIX / "marines.cat"), str(FIX / "greenskins.cat")]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bs") / "skirmish"
    r = warscribe("import", "battlescribe", *DATA, "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def _declarations(path: Path) -> dict[str, dict[str, object]]:
    r = warscribe("export", str(path))
    assert r.returncode == 0, r.stderr
    return {d["id"]: d for d in json.loads(r.stdout)["rulesets"][0]["declarations"]}


def test_the_import_checks_clean_is_formatted_and_names_its_source(imported: Path) -> None:
    assert warscribe("check", "--strict", str(imported)).returncode == 0
    fmt = warscribe("fmt", "--check", str(imported))
    assert fmt.returncode == 0, fmt.stdout
    header = (imported / "ruleset.rules").read_text("utf-8")
    assert 'source "BattleScribe data: skirmish.gst revision 3, marines.cat revision 7, greenskins.cat revision 2"' in header
    # what the language has no place for is listed, not dropped
    assert "conditional modifiers (e.g. Greenskin Mob)" in header
    assert "limits on how many of an entry a force or roster may take (e.g. Captain Varro)" in header
    assert "Tactical Squad: Brother Sergeant" in header


def test_every_unit_has_its_stats_weapons_keywords_points_and_composition(imported: Path) -> None:
    d = _declarations(imported)
    captain = d["captain_varro"]
    assert captain["stats"] == {"M": '6"', "WS": "6", "BS": "5", "S": "4", "T": "4", "W": "3", "I": "5", "A": "3",
                                "Ld": "10", "Save": "3+"}
    assert captain["keywords"] == ["hq", "character", "infantry"]
    assert captain["weapons"] == ["bolt_pistol"]  # through a link to a shared entry
    assert captain["points"] == 90
    assert [a["id"] for a in captain["abilities"]] == ["iron_halo", "fearless"]  # a profile and a linked rule
    squad = d["tactical_squad"]
    # a sergeant (1) and 4 to 9 brothers: 5 to 10 models; 18 + 4 x 14 points, 14 more per brother
    assert (squad["unit"], squad["models"], squad["points"], squad["points_per_extra_model"]) == \
        ("battle_brother", {"min": 5, "max": 10}, 74, 14)
    assert d["battle_brother"]["weapons"] == ["bolter"] and d["brother_sergeant"]["weapons"] == ["bolt_pistol"]
    mob = d["greenskin_mob"]
    assert (mob["models"], mob["points"], mob["points_per_extra_model"]) == ({"min": 10, "max": 30}, 60, 6)
    assert d["bolter"]["stats"] == {"Range": '24"', "S": "4", "AP": "5", "Shots": "1", "Type": "Rapid Fire"}
    # one weapon however many links lead to it
    assert sorted(k for k, v in d.items() if v["kind"] == "weapon") == ["bolt_pistol", "bolter", "shoota"]
    assert d["Save"]["kind"] == "stat" and "target" in str(d["Save"]["source"])
    assert "distance" in str(d["Range"]["source"]) and "Type" in d
    assert d["fearless"]["short"].startswith("This unit never falls back")
    reqs = [r["rule"] for r in d["patrol_detachment"]["requires"]]
    assert reqs == ["points <= limit", "hq >= 1", "hq <= 2", "troops >= 1", "troops <= 3"]


def test_zipped_catalogues_import_as_the_plain_ones(imported: Path, tmp_path: Path) -> None:
    zipped = []
    for plain in DATA:
        z_path = tmp_path / (Path(plain).name + "z")
        with zipfile.ZipFile(z_path, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(plain, Path(plain).name)
        zipped.append(str(z_path))
    out = tmp_path / "a" / "skirmish"
    assert warscribe("import", "battlescribe", *zipped, "--out", str(out)).returncode == 0
    for name in ("lexicon.rules", "profiles.rules", "army.rules"):
        assert (out / name).read_text("utf-8") == (imported / name).read_text("utf-8"), name


def test_a_library_the_catalogue_links_to_is_found_beside_it(imported: Path, tmp_path: Path) -> None:
    # the shared weapons in a library catalogue, the units in one that links to it: give the units only
    text = (FIX / "marines.cat").read_text("utf-8")
    start, end = text.index("  <selectionEntries>"), text.index("  <sharedSelectionEntries>")
    library = (text[:start] + text[end:]).replace('id="cat-marines" name="Star Wardens"',
                                                  'id="cat-lib" name="Wardens Library"')
    units = text[:end] + ('  <catalogueLinks>\n    <catalogueLink id="cl-lib" name="Wardens Library" '
                          'targetId="cat-lib" type="catalogue"/>\n  </catalogueLinks>\n</catalogue>\n')
    (tmp_path / "library.cat").write_text(library, "utf-8")
    (tmp_path / "units.cat").write_text(units, "utf-8")
    (tmp_path / "other.cat").write_text("<catalogue id='x' name='unrelated'/>", "utf-8")
    out = tmp_path / "a" / "skirmish"
    r = warscribe("import", "battlescribe", str(FIX / "skirmish.gst"), str(tmp_path / "units.cat"), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "links to entries in no file given" not in r.stdout
    assert "units.cat revision 7, library.cat revision 7" in (out / "ruleset.rules").read_text("utf-8")
    d = _declarations(out)
    assert d["captain_varro"]["weapons"] == ["bolt_pistol"] and d["battle_brother"]["weapons"] == ["bolter"]


def test_a_roster_checks_against_the_force_organisation(imported: Path, tmp_path: Path) -> None:
    r = warscribe("army", "check", str(imported), str(FIX / "patrol.ros"))
    assert r.returncode == 0, r.stdout + r.stderr
    # checked against the army rules its force was built with, not the first (Battalion: 2 Troops at least)
    assert "2 units, 164 points: the list meets the rules of 'Patrol Detachment'" in r.stdout
    assert "the roster counts 164 points" in r.stdout
    r = warscribe("army", "check", str(imported), str(FIX / "patrol.ros"), "--army", "battalion_detachment")
    assert r.returncode == 1 and "At least 2 Troops. (troops = 1)" in r.stdout
    # zipped, as the apps share it
    rosz = tmp_path / "patrol.rosz"
    with zipfile.ZipFile(rosz, "w", zipfile.ZIP_DEFLATED) as z:
        z.write(FIX / "patrol.ros", "patrol.ros")
    assert warscribe("army", "check", str(imported), str(rosz)).returncode == 0
    # without the captain the list has no HQ unit: the force organisation's rule is cited
    text = (FIX / "patrol.ros").read_text("utf-8")
    start, end = text.index('<selection id="s-cap"'), text.index('<selection id="s-tac"')
    no_hq = tmp_path / "no_hq.ros"
    no_hq.write_text(text[:start] + text[end:], "utf-8")
    r = warscribe("army", "check", str(imported), str(no_hq))
    assert r.returncode == 1
    assert "At least 1 HQ. (hq = 0)" in r.stdout and "1 units, 74 points" in r.stdout
    # a game size the army rules do not allow is said, and the list checked at theirs
    bigger = tmp_path / "bigger.ros"
    bigger.write_text(text.replace('<costLimit name="pts" typeId="ct-pts" value="500"/>',
                                   '<costLimit name="pts" typeId="ct-pts" value="1000"/>'), "utf-8")
    r = warscribe("army", "check", str(imported), str(bigger))
    assert r.returncode == 0 and "the roster's limit of 1000 points is not one of Patrol Detachment's (500)" in r.stderr
    allowing = tmp_path / "allowing"
    shutil.copytree(imported, allowing)
    army = (allowing / "army.rules").read_text("utf-8").replace("    points 500\n", "    points 500 or 1000\n")
    (allowing / "army.rules").write_text(army.replace("require points <= limit:", "require points >= limit / 4: "
                                                      '"A quarter of the game at least."\n    require points <= limit:'),
                                         "utf-8")
    assert warscribe("army", "check", str(allowing), str(FIX / "patrol.ros")).returncode == 0  # 164 >= 500 / 4
    r = warscribe("army", "check", str(allowing), str(bigger))  # the player's 1000: 164 < 1000 / 4
    assert r.returncode == 1 and "A quarter of the game at least. (limit = 1000, points = 164)" in r.stdout
    # army rules that name no game size: the roster's own limit is the game's
    unsized = tmp_path / "unsized"
    shutil.copytree(allowing, unsized)
    (unsized / "army.rules").write_text((allowing / "army.rules").read_text("utf-8").replace("    points 500 or 1000\n", ""),
                                        "utf-8")
    r = warscribe("army", "check", str(unsized), str(bigger))
    assert r.returncode == 1 and "A quarter of the game at least. (limit = 1000, points = 164)" in r.stdout, r.stdout
    assert "not one of" not in r.stderr
    # a squad bought too big breaks its composition
    big = tmp_path / "big.ros"
    big.write_text(text.replace('number="4" type="model"', 'number="12" type="model"'), "utf-8")
    r = warscribe("army", "check", str(imported), str(big))
    assert r.returncode == 1 and "has 13 models; a Tactical Squad has 5 to 10" in r.stdout


ODD_VALUES = """<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="g" name="Odd Values" revision="1">
  <profileTypes>
    <profileType id="pt-u" name="Unit">
      <characteristicTypes><characteristicType id="c-sv" name="Save"/><characteristicType id="c-m" name="Move"/>
      </characteristicTypes>
    </profileType>
    <profileType id="pt-w" name="Weapon">
      <characteristicTypes><characteristicType id="c-s" name="Strength"/><characteristicType id="c-d" name="Damage"/>
      <characteristicType id="c-a" name="Attacks"/></characteristicTypes>
    </profileType>
  </profileTypes>
  <sharedSelectionEntries>
    <selectionEntry id="w1" name="Claw" type="upgrade"><profiles><profile id="p1" name="Claw" typeId="pt-w">
      <characteristics><characteristic name="Strength" typeId="c-s">+2</characteristic>
      <characteristic name="Damage" typeId="c-d">D3+1</characteristic><characteristic name="Attacks" typeId="c-a">3</characteristic>
      </characteristics></profile></profiles></selectionEntry>
    <selectionEntry id="w2" name="Gun" type="upgrade"><profiles><profile id="p2" name="Gun" typeId="pt-w">
      <characteristics><characteristic name="Strength" typeId="c-s">*</characteristic>
      <characteristic name="Damage" typeId="c-d">2</characteristic><characteristic name="Attacks" typeId="c-a">-</characteristic>
      </characteristics></profile></profiles></selectionEntry>
  </sharedSelectionEntries>
  <selectionEntries>
    <selectionEntry id="u1" name="Beast" type="model">
      <profiles><profile id="pu" name="Beast" typeId="pt-u"><characteristics>
        <characteristic name="Save" typeId="c-sv">4+</characteristic><characteristic name="Move" typeId="c-m">8"</characteristic>
      </characteristics></profile></profiles>
      <entryLinks><entryLink id="l1" name="Claw" targetId="w1" type="selectionEntry"/>
        <entryLink id="l2" name="Gun" targetId="w2" type="selectionEntry"/></entryLinks>
    </selectionEntry>
  </selectionEntries>
</gameSystem>
"""


def test_values_are_read_by_kind_or_kept_as_text_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "odd.gst").write_text(ODD_VALUES, "utf-8")
    out = tmp_path / "a" / "odd"
    r = warscribe("import", "battlescribe", str(tmp_path / "odd.gst"), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    lexicon = (out / "lexicon.rules").read_text("utf-8")
    assert 'stat Save "Save" target' in lexicon and 'stat Move "Move" distance' in lexicon
    assert 'stat Damage "Damage" dice' in lexicon and 'stat Attacks "Attacks" 1..10' in lexicon
    assert "# Strength: kept as text: values such as '*', '+2' are not numbers, rolls or distances" in lexicon
    d = _declarations(out)
    assert d["claw"]["stats"] == {"Strength": "+2", "Damage": "D3+1", "Attacks": "3"}
    assert d["gun"]["stats"] == {"Strength": "*", "Damage": "2", "Attacks": "-"}
    assert d["beast"]["stats"] == {"Save": "4+", "Move": '8"'} and d["beast"]["weapons"] == ["claw", "gun"]


GROUPED = """<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="g" name="Grouped">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <profileTypes>
    <profileType id="pt-u" name="Unit"><characteristicTypes><characteristicType id="c1" name="T"/>
      <characteristicType id="c2" name="W"/></characteristicTypes></profileType>
    <profileType id="pt-a" name="Abilities"><characteristicTypes><characteristicType id="c3" name="Description"/>
      </characteristicTypes></profileType>
  </profileTypes>
  <selectionEntries>
    <selectionEntry id="u" name="Warriors" type="unit">
      <profiles>
        <profile id="pu" name="Warriors" typeId="pt-u"><characteristics><characteristic name="T" typeId="c1">4</characteristic>
          <characteristic name="W" typeId="c2">1</characteristic></characteristics></profile>
        <profile id="pa" name="Legion" typeId="pt-a"><characteristics>
          <characteristic name="Description" typeId="c3">Many.</characteristic></characteristics></profile>
      </profiles>
      <selectionEntryGroups>
        <selectionEntryGroup id="g1" name="Models">
          <constraints><constraint type="min" value="10" field="selections" scope="parent" id="g1min"/>
            <constraint type="max" value="20" field="selections" scope="parent" id="g1max"/></constraints>
          <selectionEntries>
            <selectionEntry id="m1" name="Warrior with flayer" type="model">
              <constraints><constraint type="max" value="20" field="selections" scope="parent" id="m1max"/></constraints>
            </selectionEntry>
            <selectionEntry id="m2" name="Warrior with reaper" type="model">
              <constraints><constraint type="max" value="20" field="selections" scope="parent" id="m2max"/></constraints>
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
        <selectionEntryGroup id="g2" name="Enhancements">
          <selectionEntries>
            <selectionEntry id="e1" name="Fancy Cloak" type="upgrade">
              <profiles><profile id="pe" name="Fancy Cloak" typeId="pt-a"><characteristics>
                <characteristic name="Description" typeId="c3">Looks good.</characteristic></characteristics></profile>
              </profiles>
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
      <costs><cost name="pts" typeId="pts" value="90"/></costs>
    </selectionEntry>
  </selectionEntries>
</gameSystem>
"""


def test_a_group_of_model_choices_bounds_the_squad_and_options_abilities_stay_off_it(tmp_path: Path) -> None:
    # ten to twenty models in any mix of two kinds (the unit profile shared); an enhancement a player may buy
    (tmp_path / "grouped.gst").write_text(GROUPED, "utf-8")
    out = tmp_path / "a" / "grouped"
    r = warscribe("import", "battlescribe", str(tmp_path / "grouped.gst"), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "abilities of options a unit may take (not given to the unit) (e.g. Fancy Cloak)" in r.stdout
    d = _declarations(out)
    squad = d["warriors"]
    assert (squad["unit"], squad["models"], squad["points"]) == ("warrior_with_flayer", {"min": 10, "max": 20}, 90)
    assert [a["id"] for a in squad["abilities"]] == ["legion"]
    assert d["warrior_with_reaper"]["stats"] == {"T": "4", "W": "1"}
    assert "fancy_cloak" not in d


def test_a_roster_of_units_the_ruleset_lacks_is_refused_by_name(imported: Path, tmp_path: Path) -> None:
    text = (FIX / "patrol.ros").read_text("utf-8").replace('name="Captain Varro"', 'name="Lord Inquisitor"')
    (tmp_path / "x.ros").write_text(text, "utf-8")
    r = warscribe("army", "check", str(imported), str(tmp_path / "x.ros"))
    assert r.returncode != 0 and "'Lord Inquisitor' is not a unit or squad of skirmish" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_export_then_import_gives_the_same_ruleset(imported: Path, tmp_path: Path) -> None:
    exported = tmp_path / "bs"
    r = warscribe("export", str(imported), "--battlescribe", str(exported))
    assert r.returncode == 0, r.stdout + r.stderr
    gst, cat = exported / "skirmish.gst", exported / "skirmish.cat"
    assert gst.read_bytes().startswith(b"<?xml") and b"gameSystemSchema" in gst.read_bytes()
    assert b'revision="10000"' in gst.read_bytes()  # version 1.0.0: a later version is a higher revision
    again = tmp_path / "skirmish"
    r = warscribe("import", "battlescribe", str(gst), str(cat), "--out", str(again))
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("lexicon.rules", "profiles.rules", "army.rules"):
        assert (again / name).read_text("utf-8") == (imported / name).read_text("utf-8"), name
    # exporting again writes over its own files without --force, and the same bytes
    before = cat.read_bytes()
    assert warscribe("export", str(imported), "--battlescribe", str(exported)).returncode == 0
    assert cat.read_bytes() == before


@pytest.mark.parametrize("ruleset", ["classic-40k", "nuceria-rts"])
def test_a_hand_written_ruleset_comes_back_from_its_catalogue(ruleset: str, tmp_path: Path) -> None:
    # ids travel in the exported ids; a stat may be called P (like the function), an unpriced unit stays so
    r = warscribe("export", str(ROOT / "rules" / ruleset), "--battlescribe", str(tmp_path / "bs"))
    assert r.returncode == 0, r.stdout + r.stderr
    out = tmp_path / "a" / ruleset
    r = warscribe("import", "battlescribe", str(tmp_path / "bs" / f"{ruleset}.gst"),
                  str(tmp_path / "bs" / f"{ruleset}.cat"), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    original, again = _declarations(ROOT / "rules" / ruleset), _declarations(out)
    fields = ("stats", "keywords", "weapons", "points", "models", "points_per_extra_model", "unit")
    profiles = [k for k, d in original.items() if d["kind"] in ("unit", "weapon", "squad")]
    assert profiles
    for k in profiles:
        assert k in again, k
        assert {f: original[k].get(f) for f in fields} == {f: again[k].get(f) for f in fields}, k


def test_the_outputs_never_overwrite_the_authors_files(imported: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", "utf-8")
    r = warscribe("import", "battlescribe", *DATA, "--out", str(mine))
    assert r.returncode != 0 and "holds files that an import did not write" in r.stderr
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    r = warscribe("import", "battlescribe", *DATA, "--out", str(imported / "inner"))
    assert r.returncode != 0 and "inside the ruleset folder" in r.stderr
    r = warscribe("export", str(imported), "--battlescribe", str(imported))
    assert r.returncode != 0 and "inside the ruleset folder" in r.stderr
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "skirmish.cat").write_text("someone else's", "utf-8")
    r = warscribe("export", str(imported), "--battlescribe", str(tmp_path / "out"))
    assert r.returncode != 0 and "is not a file this command wrote" in r.stderr
    assert (tmp_path / "out" / "skirmish.cat").read_text("utf-8") == "someone else's"
    # an earlier import is the command's own: it is replaced
    assert warscribe("import", "battlescribe", *DATA, "--out", str(imported)).returncode == 0


def test_an_overlay_on_classic_40k_resolves_imported_units_as_hand_typed_ones(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "rules" / "classic-40k", tmp_path / "classic-40k")
    (tmp_path / "map.toml").write_text('Save = "Sv"\n', "utf-8")
    out = tmp_path / "wardens"
    r = warscribe("import", "battlescribe", *DATA, "--out", str(out), "--extends", "classic-40k",
                  "--map", str(tmp_path / "map.toml"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "extends classic-40k: uses its" in r.stdout and "Sv" in r.stdout
    lexicon = (out / "lexicon.rules").read_text("utf-8")
    assert "stat M " in lexicon and "stat Sv" not in lexicon and "stat Save" not in lexicon
    assert "keyword infantry" not in lexicon  # the base's keyword, used as it is
    base = re.search(r"^  version (\S+)", (ROOT / "rules" / "classic-40k" / "ruleset.rules").read_text("utf-8"), re.M)
    assert base is not None  # the overlay asks for the base's version as it stands, or a later compatible one
    assert f"extends classic-40k ^{base.group(1)}" in (out / "ruleset.rules").read_text("utf-8")
    imported = warscribe("eval", str(out), "shooting(5 battle_brother, bolter, 10 greenskin).killed", "--json")
    by_hand = warscribe("eval", str(ROOT / "rules" / "classic-40k"),
                        "shooting(5 space_marine, boltgun, 10 ork_boy).killed", "--json")
    assert imported.returncode == 0 and by_hand.returncode == 0, imported.stdout + imported.stderr
    a, b = json.loads(imported.stdout), json.loads(by_hand.stdout)
    assert a["distribution"] == b["distribution"] and a["mean"] == b["mean"]
    # BS 4 hits on 3+, S4 v T4 wounds on 4+, a 6+ save is cut by AP 5: 5 x 2/3 x 1/2 = 5/3
    assert a["mean"] == "5/3"
    # the roster plays: its captain and five-model squad (6 models) for the marines, a text list for the orks
    (tmp_path / "orks.txt").write_text("20 greenskin_mob\n", "utf-8")
    r = warscribe("simulate", str(out), "--army", f"marines={FIX / 'patrol.ros'}", "--army",
                  f"orks={tmp_path / 'orks.txt'}", "--games", "20", "--seed", "3", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    sides = {s["id"]: s for s in json.loads(r.stdout)["sides"]}
    assert 0 <= sides["marines"]["survivors_mean"] <= 6 and 0 <= sides["orks"]["survivors_mean"] <= 20
    assert sides["orks"]["survivors_mean"] > 10  # twice the scenario's own ten orks: more than ten live on
    bad = warscribe("simulate", str(out), "--army", f"elves={FIX / 'patrol.ros'}", "--games", "2")
    assert bad.returncode != 0 and "a side of scenario 'gorge' (marines, orks)" in bad.stderr


def test_a_characteristic_that_does_not_fit_the_base_stat_of_its_name_is_kept_apart(tmp_path: Path) -> None:
    # ODD_VALUES's Save (4+) and Attacks (3) fit classic-40k's Sv-less lexicon and A 1..10; make A a target
    shutil.copytree(ROOT / "rules" / "classic-40k", tmp_path / "classic-40k")
    (tmp_path / "odd.gst").write_text(ODD_VALUES.replace('name="Attacks"', 'name="A"')
                                      .replace(">3</characteristic>", ">4+</characteristic>"), "utf-8")
    out = tmp_path / "odd"
    r = warscribe("import", "battlescribe", str(tmp_path / "odd.gst"), "--out", str(out), "--extends", "classic-40k")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "A → A_2 (the base's is 1..10)" in r.stdout and "checks clean" in r.stdout
    assert 'stat A_2 "A" target' in (out / "lexicon.rules").read_text("utf-8")
    assert _declarations(out)["claw"]["stats"]["A_2"] == "4+"
    # named by the map, it is the base's A: a value that does not fit is left out of its profile, kept in its text
    (tmp_path / "map.toml").write_text('A = "A"\n', "utf-8")
    r = warscribe("import", "battlescribe", str(tmp_path / "odd.gst"), "--out", str(tmp_path / "odd2"),
                  "--extends", "classic-40k", "--map", str(tmp_path / "map.toml"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "values that do not fit the base stat the map names (left out of the profile, kept in its text) " \
           "(e.g. Claw: A 4+)" in r.stdout
    claw = _declarations(tmp_path / "odd2")["claw"]
    assert "A" not in claw["stats"] and "A 4+" in str(claw["text"])
    assert "stat A" not in (tmp_path / "odd2" / "lexicon.rules").read_text("utf-8")
    # two characteristics, one stat: the units' S (spelled like the base's) and the weapons' Strength (mapped)
    (tmp_path / "two.gst").write_text(ODD_VALUES.replace('name="Move"', 'name="S"').replace('>8"<', '>4<')
                                      .replace('>*</characteristic>', '>5</characteristic>'), "utf-8")
    (tmp_path / "map.toml").write_text('Strength = "S"\n', "utf-8")
    r = warscribe("import", "battlescribe", str(tmp_path / "two.gst"), "--out", str(tmp_path / "two"),
                  "--extends", "classic-40k", "--map", str(tmp_path / "map.toml"))
    assert r.returncode == 0, r.stdout + r.stderr
    lexicon = (tmp_path / "two" / "lexicon.rules").read_text("utf-8")
    assert "stat S " not in lexicon and "stat Strength" not in lexicon
    d = _declarations(tmp_path / "two")
    assert d["beast"]["stats"]["S"] == "4" and d["gun"]["stats"]["S"] == "5"
    assert "S" not in d["claw"]["stats"] and "S +2" in str(d["claw"]["text"])


def test_a_map_naming_what_the_base_lacks_is_refused(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "rules" / "classic-40k", tmp_path / "classic-40k")
    (tmp_path / "map.toml").write_text('Save = "Armour"\n', "utf-8")
    r = warscribe("import", "battlescribe", *DATA, "--out", str(tmp_path / "w"), "--extends", "classic-40k",
                  "--map", str(tmp_path / "map.toml"))
    assert r.returncode != 0 and "'Armour', which classic-40k does not declare" in r.stderr
    assert not (tmp_path / "w").exists()


# ---------------------------------------------------------------------------
# Hostile files: each refused with one sentence, nothing written
# ---------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE gameSystem [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="g" name="&lol9;"/>
"""

EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE gameSystem [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="g" name="&secret;"/>
"""


def _refused(tmp_path: Path, path: Path, words: str) -> None:
    out = tmp_path / "never"
    r = warscribe("import", "battlescribe", str(path), "--out", str(out))
    assert r.returncode != 0
    assert "Traceback" not in r.stdout + r.stderr
    message = r.stderr.strip()
    assert words in message and len(message.splitlines()) == 1, message
    assert not out.exists()


LOOPS = """<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="g" name="Loops">
  <profileTypes>
    <profileType id="pt-u" name="Unit"><characteristicTypes><characteristicType id="c1" name="T"/>
      <characteristicType id="c2" name="W"/></characteristicTypes></profileType>
    <profileType id="pt-w" name="Weapon"><characteristicTypes><characteristicType id="c3" name="S"/>
      <characteristicType id="c4" name="AP"/></characteristicTypes></profileType>
  </profileTypes>
  <selectionEntries>
    <selectionEntry id="u" name="Loop &quot;&quot;&quot; [[x]]" type="model">
      <profiles><profile id="pu" name="Loop" typeId="pt-u"><characteristics>
        <characteristic name="T" typeId="c1">4</characteristic>
        <characteristic name="W" typeId="c2">\"\"\"[[x]]</characteristic></characteristics></profile></profiles>
      <entryLinks><entryLink id="l0" name="A" targetId="A" type="selectionEntry"/></entryLinks>
    </selectionEntry>
  </selectionEntries>
  <sharedSelectionEntries>
    <selectionEntry id="A" name="A" type="upgrade">
      <profiles><profile id="pw" name="Gun" typeId="pt-w"><characteristics>
        <characteristic name="S" typeId="c3">4</characteristic></characteristics></profile></profiles>
      <entryLinks><entryLink id="l1" name="A" targetId="A" type="selectionEntry"/>
        <entryLink id="l2" name="A" targetId="A" type="selectionEntry"/></entryLinks>
      <infoLinks><infoLink id="i1" targetId="G" type="infoGroup" name="g"/></infoLinks>
    </selectionEntry>
  </sharedSelectionEntries>
  <sharedInfoGroups>
    <infoGroup id="G" name="G"><infoLinks><infoLink id="i2" targetId="G" type="infoGroup" name="g"/>
      <infoLink id="i3" targetId="G" type="infoGroup" name="g"/></infoLinks></infoGroup>
  </sharedInfoGroups>
</gameSystem>
"""


def test_links_that_loop_and_text_that_looks_like_the_language_are_read_once_as_text(tmp_path: Path) -> None:
    # an entry linking to itself twice, an info group doing the same: 2**32 paths if followed blindly
    (tmp_path / "loops.gst").write_text(LOOPS, "utf-8")
    out = tmp_path / "a" / "loops"
    r = warscribe("import", "battlescribe", str(tmp_path / "loops.gst"), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    d = _declarations(out)
    assert d["loop_x"]["title"] == 'Loop """ [[x]]' and d["loop_x"]["stats"]["W"] == '"""[[x]]'
    assert d["loop_x"]["weapons"] == ["gun"]


def test_names_cannot_break_out_of_a_comment_or_command_the_terminal(tmp_path: Path) -> None:
    # a line break (allowed in XML as &#10;) in a name that lands in a comment of ruleset.rules, a
    # bidirectional override in one printed on the terminal
    evil = ODD_VALUES.replace('name="Beast" type="model"', 'name="Beast" type="model"><constraints>'
                              '<constraint type="max" value="1" field="selections" scope="roster" id="k1"/>'
                              '</constraints><x y="1"').replace('<x y="1">', "")
    evil = evil.replace('name="Beast" type="model"', 'name="Beast&#10;unit injected &quot;I&quot;:&#10;  Save 2+'
                        '\u202eevil" type="model"')
    (tmp_path / "evil.gst").write_text(evil, "utf-8")
    out = tmp_path / "a" / "evil"
    r = warscribe("import", "battlescribe", str(tmp_path / "evil.gst"), "--out", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "\u202e" not in r.stdout and "\\u202e" in r.stdout
    assert "injected" not in _declarations(out)
    assert all(line.startswith("#") or not line.startswith(("unit", "  Save"))
               for line in (out / "ruleset.rules").read_text("utf-8").splitlines())


def test_a_billion_laughs_is_refused(tmp_path: Path) -> None:
    (tmp_path / "laughs.gst").write_text(BILLION_LAUGHS, "utf-8")
    _refused(tmp_path, tmp_path / "laughs.gst", "declares a DTD")


def test_an_external_entity_is_refused_and_never_read(tmp_path: Path) -> None:
    (tmp_path / "ext.gst").write_text(EXTERNAL, "utf-8")
    _refused(tmp_path, tmp_path / "ext.gst", "declares a DTD")


def test_a_one_gigabyte_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.cat"
    with open(huge, "wb") as f:
        f.truncate(1 << 30)  # sparse: no disk is spent
    _refused(tmp_path, huge, "is 1,073,741,824 bytes; a BattleScribe file may have at most 64,000,000")


def test_a_zip_bomb_is_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.gstz"
    chunk = b"\0" * (1 << 20)
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z, z.open("bomb.gst", "w", force_zip64=True) as f:
        for _ in range(70):
            f.write(chunk)
    assert bomb.stat().st_size < 1_000_000
    _refused(tmp_path, bomb, "unzips to 73,400,320 bytes")


def test_a_zip_of_several_files_and_a_broken_file_are_refused(tmp_path: Path) -> None:
    two = tmp_path / "two.catz"
    with zipfile.ZipFile(two, "w") as z:
        z.writestr("a.cat", "<catalogue/>")
        z.writestr("b.cat", "<catalogue/>")
    _refused(tmp_path, two, "holds 2 files")
    (tmp_path / "broken.gst").write_text("<gameSystem><oops></gameSystem>", "utf-8")
    _refused(tmp_path, tmp_path / "broken.gst", "is not well-formed XML")
