"""Hints wherever a name can be wrong: the closest names by edit distance and by kind, and the
list when it is short."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import warscribe

from compiler.diagnostics import closest, suggestion

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = str(ROOT / "rules" / "classic-40k")
CONSOLE = str(ROOT / "rules" / "console-40k")


@pytest.mark.parametrize("name, pool, prefer, expected", [
    ("bolter", ["heavy_bolter", "boltgun", "lascannon"], (), ["boltgun", "heavy_bolter"]),  # edits before words
    ("cover", ["target_cover", "charged"], (), ["target_cover"]),  # a word of the name
    ("SV", ["Sv", "BS", "S"], (), ["Sv", "S"]),  # letter case aside
    ("hvy", ["heavy", "hvy_bolter_squad"], ["hvy_bolter_squad"], ["hvy_bolter_squad", "heavy"]),  # the kind first
    ("zzz", ["SV"], (), []),
])
def test_closest_names(name: str, pool: list[str], prefer: list[str], expected: list[str]) -> None:
    assert closest(name, pool, prefer) == expected


def test_the_list_is_given_when_short_and_useful() -> None:
    assert suggestion("cover", ["target_cover", "charged"], "situations") == \
        "did you mean 'target_cover'? the situations are: charged, target_cover"
    assert suggestion("hti", ["hit"], "tests") == "did you mean 'hit'?"  # a list of one adds nothing
    assert suggestion("qq", [f"n{i}" for i in range(20)], "names") is None  # too many to list, none close


def test_an_unknown_situation_on_the_command_line_is_answered_with_the_rulesets_own() -> None:
    r = warscribe("eval", CLASSIC, "shooting(5 space_marine, boltgun, 10 ork_boy).killed", "--with", "cover = soft")
    assert r.returncode == 1
    assert "unknown situation 'cover'" in r.stderr and "did you mean 'target_cover'?" in r.stderr


def test_scenarios_sides_policies_and_tables_get_the_closest_and_the_list() -> None:
    r = warscribe("play", CONSOLE, "sample_batle", "--auto")
    assert r.returncode == 2 and "did you mean 'sample_battle'? the scenarios are: full_armies, sample_battle" in r.stderr
    r = warscribe("play", CONSOLE, "nothing_like_it", "--auto")
    assert "the scenarios are: full_armies, sample_battle" in r.stderr
    r = warscribe("play", CONSOLE, "--side", "ork")
    assert r.returncode == 2 and "did you mean 'orks'? the sides are: orks, space_marines" in r.stderr
    r = warscribe("simulate", CONSOLE, "--policy", "gready")
    assert "did you mean 'greedy'? the policies are: greedy, lookahead, mcts, random" in r.stderr
    r = warscribe("table", CONSOLE, "to_wund")
    assert "did you mean 'to_wound'?" in r.stderr


def test_an_army_list_unit_gets_the_closest_unit(tmp_path: Path) -> None:
    roster = tmp_path / "list.txt"
    roster.write_text("10 ork_boyz\n5 space_marine with boltgn\n", encoding="utf-8")
    r = warscribe("army", "check", CONSOLE, str(roster))
    assert r.returncode == 1
    assert "'ork_boyz' is not a unit" in r.stdout and "did you mean 'ork_boy'?" in r.stdout
    assert "'boltgn' is not a unit, squad or weapon" in r.stdout and "did you mean 'boltgun'?" in r.stdout


@pytest.fixture
def overlay(tmp_path: Path):  # type: ignore[no-untyped-def]
    shutil.copytree(ROOT / "rules" / "console-40k", tmp_path / "console-40k")

    def write(body: str) -> Path:
        (tmp_path / "house").mkdir(exist_ok=True)
        (tmp_path / "house" / "ruleset.rules").write_text(textwrap.dedent(body), encoding="utf-8")
        return tmp_path / "house"
    return write


def test_a_replaced_weapon_suggests_a_weapon_first(overlay) -> None:
    house = overlay("""\
        ruleset house "House":
          version 1.0.0
          extends console-40k

        replace weapon bolter "Bolter":
          Range 24
        """)
    r = warscribe("check", "-q", str(house))
    assert r.returncode == 1
    assert "'bolter' cannot be replaced" in r.stderr
    assert "did you mean 'boltgun'? the weapons of 'console-40k' are: boltgun, lascannon" in r.stderr


def test_an_unknown_base_suggests_the_rulesets_beside_it(overlay) -> None:
    house = overlay("""\
        ruleset house "House":
          version 1.0.0
          extends console40k
        """)
    r = warscribe("check", "-q", str(house))
    assert r.returncode == 1
    assert "cannot find the base ruleset 'console40k'" in r.stderr and "did you mean 'console-40k'?" in r.stderr
