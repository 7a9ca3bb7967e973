"""``require each unit:``: an army rule every unit of a list must meet on its own quantities (its
models, points, weapons, keywords, its weapons' abilities, its stats), checked by ``warscribe army
check`` unit by unit with the unit's label and the rule it cites, and refused by ``check`` when it
reads a quantity of the whole list or a name that is no quantity of a unit.

40k-s's melee profiles (setting_up.rules) are the real case: a model that fights carries either its
basic profile or a melee profile that is not Extra, never both and never neither.
"""
from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from compiler import ast as A
from compiler.driver import compile_paths, compile_text
from compiler.model.armies import check_army, listed_units, unit_quantities
from compiler.model.army_data import army_rules_data
from compiler.model.listfile import read_list_file
from conftest import ROOT, warscribe

RULES = '''ruleset demo "Demo":
  version 1.0.0
stat A "Attacks" 0..10: "How many blows."
stat Range "Range" distance: "How far a weapon reaches."
keyword infantry "Infantry": "On foot."
ability extra "Extra": "A bonus blade."
unit trooper "Trooper":
  A 1  Range -
  keywords infantry
  points 10
  weapons rifle
unit drone "Drone":
  A -  Range -
  points 5
weapon rifle "Rifle":
  Range 24"
weapon blade "Blade":
  Range -
  abilities extra
section building "Building an army":
  rule picking "Picking units":
    army std "Choosing":
      points 200
      require points <= limit: "Too dear."
      require each unit: models <= 5: "A unit has at most five models."
      require each unit: infantry == 0 or weapons - extra >= 1 and A >= 1: "Infantry carry a weapon that is not Extra."
'''


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("each") / "demo"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return folder


def violations(rules: str, text: str) -> list[str]:
    rs = compile_text(rules).rulesets[0]
    army = next(iter(rs.of_type(A.Army)))
    weapons = {p.id for p in rs.profiles.values() if p.kind == "weapon"}
    got = read_list_file(text, set(rs.profiles) - weapons, weapons, rs.id)
    assert not got.errors
    side = A.Side(army.span, "list", "List", got.units)
    return [v.message for v in check_army(rs, army, listed_units(rs, side))]


def test_army_check_names_each_unit_that_breaks_the_rule_and_cites_it(demo: Path, tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text("5 trooper\n6 trooper with rifle\n3 trooper with blade\n", encoding="utf-8")
    ran = warscribe("army", "check", str(demo), str(path), "--json")
    out = json.loads(ran.stdout)
    assert ran.returncode == 1 and out["ok"] is False
    assert [(v["message"], v["rule"], v["army"], v["span"]["line"], v["line"]) for v in out["violations"]] == [
        ("Trooper 2: A unit has at most five models. (models = 6)", "picking", "std", 25, 2),
        ("Trooper 3: Infantry carry a weapon that is not Extra. (A = 1, extra = 1, infantry = 1, weapons = 1)",
         "picking", "std", 26, 3)]
    assert RULES.splitlines()[24].strip().startswith("require each unit: models <= 5")
    text = warscribe("army", "check", str(demo), str(path)).stdout
    assert f"{path}:2: error[W862]: Trooper 2: A unit has at most five models." in text
    assert "rule 'Picking units' (picking), army 'Choosing' (std) at " in text


def test_a_unit_that_meets_every_line_breaks_nothing(demo: Path, tmp_path: Path) -> None:
    path = tmp_path / "list.txt"
    path.write_text("5 trooper with rifle, blade\n1 trooper\n", encoding="utf-8")
    ran = warscribe("army", "check", str(demo), str(path), "--json")
    assert ran.returncode == 0 and json.loads(ran.stdout)["violations"] == []


def test_a_unit_quantities_are_its_own() -> None:
    rs = compile_text(RULES).rulesets[0]
    weapons = {p.id for p in rs.profiles.values() if p.kind == "weapon"}
    got = read_list_file("4 trooper with blade, blade, rifle\n2 drone\n", {"trooper", "drone"}, weapons, rs.id)
    side = A.Side(got.units[0].span, "list", "List", got.units)
    trooper, drone = (unit_quantities(rs, u) for u in listed_units(rs, side))
    assert {k: trooper[k] for k in ("models", "points", "weapons", "melee_weapons", "ranged_weapons", "extra",
                                    "blade", "rifle", "infantry", "A")} == \
        {"models": 4, "points": 40, "weapons": 3, "melee_weapons": 2, "ranged_weapons": 1, "extra": 2,
         "blade": 2, "rifle": 1, "infantry": 1, "A": 1}
    assert "A" not in drone and drone["infantry"] == 0 and drone["weapons"] == 0


def test_a_stat_the_unit_gives_as_a_dash_neither_meets_nor_breaks() -> None:
    rules = RULES.replace('infantry == 0 or weapons - extra >= 1 and A >= 1: "Infantry carry a weapon that is not Extra."',
                          "A >= 1")
    assert violations(rules, "3 drone\n") == []  # A - : not worked out on the drone
    assert violations(rules.replace("A 1  Range -", "A 0  Range -"), "3 trooper\n") == \
        ["Trooper: A >= 1 (A = 0)"]


@pytest.mark.parametrize("line, code, col, words", [
    ("require each unit: warlords <= 1", "W101", 26, "'warlords' is a quantity of the whole list, not of one unit"),
    ("require each unit: limit >= points", "W101", 26, "'limit' is a quantity of the whole list"),
    ("require each unit: modles <= 5", "W101", 26, "unknown quantity of one unit 'modles'"),
    ("require each unit: trooper <= 1", "W101", 26, "unknown quantity of one unit 'trooper'"),
    ("require each unit: models <=", "W001", 35, ""),
])
def test_check_refuses_a_malformed_unit_requirement(line: str, code: str, col: int, words: str) -> None:
    text = RULES.replace('      require points <= limit: "Too dear."', "      " + line)
    found = [d for d in compile_text(text).diagnostics if d.is_error]
    assert [(d.code, d.span.line, d.span.column) for d in found][:1] == [(code, 24, col)], found
    assert words in found[0].message
    if "whole list" in words:
        assert found[0].hint is not None and "require` line of its own" in found[0].hint


# --- 40k-s: the melee profiles of each unit ----------------------------------------------------

S40K = ROOT / "rules" / "40k-s"


BASIC, EXTRA, MELEE = {"armoured_fists", "trooper_fists"}, {"combat_blade"}, {"armoured_fists", "trooper_fists",
                                                                         "combat_blade"}


def exactly_one(weapons: tuple[str, ...], attacks: int) -> bool:
    """The rule as the draft says it, from the stand-in weapons' names: a model that fights carries its
    basic profile or another melee profile that is not Extra (no stand-in is one: see the sword below)."""
    basic = sum(w in BASIC for w in weapons)
    other = sum(w in MELEE - BASIC - EXTRA for w in weapons)
    return attacks == 0 or (basic >= 1) != (other >= 1)


def test_the_melee_rule_refuses_a_basic_profile_beside_a_sword() -> None:
    rule = S40K.joinpath("setting_up.rules").read_text(encoding="utf-8")
    line = next(x.strip() for x in rule.splitlines() if x.strip().startswith("require each unit:"))
    rules = RULES.replace("abilities extra", "abilities extra\nweapon sword \"Sword\":\n  Range -\n"
                          "weapon fists \"Fists\":\n  Range -\n  abilities basic_profile\n"
                          "ability basic_profile \"Basic profile\": \"Bare hands.\"")
    rules = rules[:rules.index("      require each unit: models")] + "      " + line + "\n"
    assert violations(rules, "1 trooper with fists\n1 trooper with sword\n1 trooper with fists, blade\n") == []
    got = violations(rules, "1 trooper with fists, sword\n1 trooper with blade\n1 drone\n1 trooper with rifle\n")
    assert [m.split(":")[0] for m in got] == ["Trooper 1", "Trooper 2", "Trooper 4"]  # the drone's A is -


def test_40k_s_melee_profiles_are_checked_unit_by_unit() -> None:
    rs = compile_paths([S40K]).rulesets[0]
    army = next(iter(rs.of_type(A.Army)))
    assert len(army.unit_requires) == 1
    pool = ("heavy_rifle", "armoured_fists", "trooper_fists", "combat_blade", "rifle")
    cases = [(w, unit) for n in range(0, 3) for w in combinations(pool, n)
             for unit in ("armoured_trooper", "line_trooper", "twin_gunner", "battle_tank")]
    text = "".join(f"1 {unit}" + (f" with {', '.join(w)}" if w else "") + "\n" for w, unit in cases)
    weapons = {p.id for p in rs.profiles.values() if p.kind == "weapon"}
    got = read_list_file(text, set(rs.profiles) - weapons, weapons, rs.id)
    units = listed_units(rs, A.Side(army.span, "list", "List", got.units))
    broken = {v.message.split(":")[0] for v in check_army(rs, army, units, 10_000)}
    for u in units:
        attacks = rs.profiles[u.profile].stat("A").value  # type: ignore[union-attr]
        assert (u.label not in broken) == exactly_one(u.weapons, int(attacks)), (u.label, u.weapons)  # type: ignore[arg-type]
    assert broken and len(broken) < len(units)
    data = army_rules_data(rs)["armies"][0]["unit_requires"]
    assert data[0]["tree"] is not None and data[0]["unsupported"] is None  # the page checks it too


# --- The reference's example (site/language.md, "Army construction") ------------------------------

PRELUDE = '''ruleset ref "Reference":
  version 1.0.0
stat A "Attacks" 0..10: "a"
stat Range "Range" distance: "r"
ability basic "Basic": "Bare hands."
unit trooper "Trooper":
  A 1
  points 10
weapon fists "Fists":
  Range -
  abilities basic
weapon blade "Blade":
  Range -
weapon flamer "Flamer":
  Range 8"
'''


def test_the_reference_example_checks_and_army_check_prints_what_it_shows(tmp_path: Path) -> None:
    import re
    text = (ROOT / "site" / "language.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```warscribe\n(.*?)```", text, re.S) if "require each unit:" in b)
    shown = next(b for b in re.findall(r"```text\n(.*?)```", text, re.S) if "error[W862]" in b).splitlines()
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(PRELUDE + block, encoding="utf-8")
    assert warscribe("check", "--strict", str(folder)).returncode == 0
    path = tmp_path / "list.txt"
    path.write_text("5 trooper with fists\n3 trooper with fists, flamer, flamer\n2 trooper with fists, blade\n",
                    encoding="utf-8")
    ran = warscribe("army", "check", str(folder), str(path))
    assert ran.returncode == 1
    assert [x.replace(str(path), "list.txt") for x in ran.stdout.splitlines() if "error[W862]" in x] == shown


def test_the_builder_page_and_the_export_list_the_rule_on_each_unit() -> None:
    from compiler.site.army import army_files
    from compiler.site.export import export
    from compiler.site.sitemap import SiteMap

    compiled = compile_paths([S40K])
    rs = compiled.rulesets[0]
    files = {path: text for path, _, text in army_files(rs, SiteMap((rs,)))}
    assert "    - Each unit: A model that fights in close combat carries either its basic profile" \
        in files["40k-s/army.md"]
    army = next(d for d in export(compiled)["rulesets"][0]["declarations"] if d.get("kind") == "army")
    assert [q["message"].split(",")[0] for q in army["each_unit_requires"]] == \
        ["A model that fights in close combat carries either its basic profile or a melee profile that is not Extra"]
