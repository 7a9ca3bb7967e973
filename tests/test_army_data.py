"""The army rules as the army builder's page loads them (compiler.model.army_data, compiler.site.army).

What the page computes is held to ``warscribe army check`` in tests/test_army_builder_browser.py;
here, what the data says without a browser: every bundled requirement is one the page checks, a
requirement it cannot mirror is marked so (never passed silently), and the page cites each rule.
"""
from __future__ import annotations

import pytest

from pathlib import Path

from army_fixture import RULES
from conftest import ROOT
from compiler.driver import compile_paths, compile_text
from compiler.model.armies import UNKNOWN
from compiler.model.army_data import LISTED, army_rules_data

BUNDLED = sorted(p.parent.name for p in (ROOT / "rules").glob("*/ruleset.rules"))


@pytest.mark.parametrize("ruleset", BUNDLED)
def test_every_bundled_requirement_is_checked_in_the_page(ruleset: str) -> None:
    rs = compile_paths([ROOT / "rules" / ruleset]).rulesets[0]
    data = army_rules_data(rs)
    assert [r["text"] for a in data["armies"] for r in a["requires"] if r["tree"] is None] == []
    assert bool(data["armies"]) == (ruleset in ("console-40k", "40k-s", "nuceria-rts"))


def test_what_the_page_cannot_mirror_is_marked_with_its_reason() -> None:
    rs = compile_text(RULES).rulesets[0]
    requires = {r["text"]: r for a in army_rules_data(rs)["armies"] for r in a["requires"]}
    call = requires["max(points, 100) == points or squads == 0"]
    assert call["tree"] is None and "inside call" in call["unsupported"]
    # A quantity no unit changes keeps its value in every list: worked out at build time, with a
    # formula on the game's size (500 / 2 / 4 = 125/2, exact).
    assert requires["points - heavy * 120 >= cap_for(limit) / 4"]["tree"] == \
        [">=", ["-", ["q", "points"], ["*", ["q", "heavy"], ["n", 120, 1]]], ["n", 125, 2]]
    # The list's own quantities (its warlords, its points in reserve, its one detachment) are counted
    # by the page; `characters` no list can show: the reason is army check's own.
    assert requires["detachments in 1..2 and warlords <= 1"]["tree"] == \
        ["and", ["in", ["q", "detachments"], ["n", 1, 1], ["n", 2, 1]], ["<=", ["q", "warlords"], ["n", 1, 1]]]
    # characters and special points by the roles of the keywords elite and heavy
    assert requires["characters <= 2 or warlords == 1"]["tree"] == \
        ["or", ["<=", ["q", "characters"], ["n", 2, 1]], ["==", ["q", "warlords"], ["n", 1, 1]]]
    entries = {e["id"]: e for e in army_rules_data(rs)["entries"]}
    assert entries["hero"]["adds"]["characters"] == entries["veteran_squad"]["adds"]["characters"] == 1
    assert "characters" not in entries["trooper"]["adds"] and "special_points" not in entries["tank"]["adds"]
    assert [e for e in entries if entries[e]["special"]] == ["tank"]
    assert not requires["max(points, 100) == points or squads == 0"]["unknown"]
    # without a keyword of that role, no list can show the quantity: the reason is army check's own
    plain = compile_text(RULES.replace(" role characters", "")).rulesets[0]
    unknown = {r["text"]: r for a in army_rules_data(plain)["armies"] for r in a["requires"]}[
        "characters <= 2 or warlords == 1"]
    assert unknown["tree"] is None and unknown["unknown"] and unknown["unsupported"] == UNKNOWN["characters"]
    assert requires["points / units >= 20"]["shown"] == ["points", "units"]


def test_yes_no_values_used_as_numbers_are_refused() -> None:
    rs = compile_text('ruleset demo "Demo":\n  version 1.0.0\narmy a "A":\n'
                      '  require (points > 1) + 1 > 0: "Mixed."\n  require squads == (models > 2): "Mixed too."\n'
                      ).rulesets[0]
    requires = army_rules_data(rs)["armies"][0]["requires"]
    assert [r["tree"] for r in requires] == [None, None]
    assert all("yes/no value" in r["unsupported"] for r in requires)


def test_the_page_lists_the_rules_it_cites() -> None:
    from compiler.site.army import army_files
    from compiler.site.sitemap import SiteMap, navigation

    rs = compile_paths([ROOT / "rules" / "console-40k"]).rulesets[0]
    files = {path: text for path, _, text in army_files(rs, SiteMap((rs,)))}
    text = files["console-40k/army.md"]
    assert "[Choosing an army](rulebook/setup.md#standard){ #ws-army-cite-standard }" in text
    assert "(datasheets.md#ork_boyz_squad){ #ws-army-cite-ork_boyz_squad }: 10 to 20 models" in text
    assert '"size_message":"{label} has {models} models; a {squad} has {low} to {high}"' in files["console-40k/army.json"]
    nav = navigation((rs,), False, builders=frozenset({rs.id}))
    assert {"Army builder": "console-40k/army.md"} in nav[1][next(iter(nav[1]))]
    demo = compile_text('ruleset demo "Demo":\n  version 1.0.0\nterm t "T": "A term."\n').rulesets[0]
    assert army_files(demo, SiteMap((demo,))) == []


def test_the_marks_the_army_rules_read_are_offered() -> None:
    """nuceria-rts reads warlords and points in reserve: the page offers both marks; 40k-s its detachments;
    console-40k none.
    What one unit adds leaves out the list's own quantities (the page counts those from its marks)."""
    for ruleset, marks in (("nuceria-rts", ["warlord", "reserve"]), ("40k-s", ["detachment"]), ("console-40k", [])):
        data = army_rules_data(compile_paths([ROOT / "rules" / ruleset]).rulesets[0])
        assert data["marks"] == marks
        assert all(not set(e["adds"]) & set(LISTED) for e in data["entries"])
        assert all(r["never"] is None and not r["unknown"] for a in data["armies"] for r in a["requires"])


def test_army_check_takes_the_game_size_the_rules_allow(tmp_path: Path) -> None:
    from conftest import warscribe

    (tmp_path / "armytest").mkdir()
    (tmp_path / "armytest" / "ruleset.rules").write_text(RULES, encoding="utf-8")
    (tmp_path / "list.txt").write_text("4 tank\n8 troop_squad\n", encoding="utf-8")  # 4 x 120 + 80 = 560 points
    rules, listed = str(tmp_path / "armytest"), str(tmp_path / "list.txt")
    sized = {n: warscribe("army", "check", rules, listed, "--points", str(n)) for n in (500, 1000)}
    assert "Too many points. (limit = 500, points = 560)" in sized[500].stdout
    assert sized[500].returncode == 1 and sized[1000].returncode == 0, sized
    refused = warscribe("army", "check", rules, listed, "--points", "700")
    assert refused.returncode == 2 and "'The main army' (main) is played at 500 or 1000 points" in refused.stderr
    data = army_rules_data(compile_text(RULES).rulesets[0])
    main = data["armies"][0]
    assert main["sizes"] == [500, 1000] and set(main["sized"]) == {"1000"}
    # the formula on the game's size is worked out at each size: 1000 / 2 / 4 = 125
    assert main["sized"]["1000"][5]["tree"][2] == ["n", 125, 1] and main["requires"][5]["tree"][2] == ["n", 125, 2]


def test_a_rule_no_list_can_meet_names_what_it_reads() -> None:
    """A keyword no unit or squad has is 0 in every list: a rule needing it is broken by every list,
    and the page is told which quantity and its value (as army check counts it)."""
    rs = compile_text('ruleset demo "Demo":\n  version 1.0.0\nstat W "Wounds" 1..10 role wounds\n'
                      'keyword hq "HQ": "Leaders."\nunit grunt "Grunt":\n  W 1\n  points 5\n'
                      'army a "A":\n  require hq >= 1 or warlords > 5: "A leader."\n'
                      '  require points <= 100: "Small."\n').rulesets[0]
    first, _ = army_rules_data(rs)["armies"][0]["requires"]
    assert first["tree"] == ["or", ["b", False], [">", ["q", "warlords"], ["n", 5, 1]]] and first["never"] is None
    rs = compile_text('ruleset demo "Demo":\n  version 1.0.0\nstat W "Wounds" 1..10 role wounds\n'
                      'keyword hq "HQ": "Leaders."\nunit grunt "Grunt":\n  W 1\n'
                      'army a "A":\n  require hq >= 1: "A leader."\n').rulesets[0]
    [only] = army_rules_data(rs)["armies"][0]["requires"]
    assert only["tree"] == ["b", False] and only["never"] == {"hq": 0}
