"""The army builder in Chromium: its verdict, points and messages are ``warscribe army check``'s.

For each bundled ruleset with army rules, one load of its builder page (the session's one site
build, ``site_url``): a list built with the keyboard, a list downloaded, then twenty lists (seeded,
valid and invalid in every ruleset: over the points, too few squads, squads under and over their
size, no warlord or two, a warlord in reserve, detachments, an empty list, units listed with weapons
that break a ``require each unit:`` line) read through the page's list box; the
file the page then holds is checked by ``warscribe army check --json`` and the page must say the
same: the verdict, the points, every message in order, each citing its rule.  On nuceria-rts, whose
army rules read the warlord and the reserves, the units' Warlord and In reserve boxes write the
marks into the list file; on 40k-s, which counts detachments, each unit's Detachment number does.

console-40k's list is also copied, printed (print emulation: the list and its cards, no controls),
played by ``simulate --army``, run through axe-core in both schemes and laid out at 390 px.

The fixture ruleset of tests/army_fixture.py, whose requirements use every kind of expression the
page mirrors, is checked the same way by the page's checker (``window.wsArmy``) in a page of its own
(the builder mounted on its data, no site build), at each game size; then through the page's
controls (the army rules, the game's size) with the command line the page shows.  400 seeded list
lines are read by the page and by the command's reader alike: the same units, the same located errors.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from army_fixture import EACH_ENTRIES, EACH_RULES, EACH_WEAPONS, ENTRIES, RULES, SIZES, random_lists
from browser_site import HAVE_CHROMIUM, ROOT
from conftest import warscribe

if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)

if os.environ.get("CI"):  # under CI a missing Playwright is a failure, not a skip
    from playwright.sync_api import Page
else:
    Page = pytest.importorskip("playwright.sync_api").Page

ARMY_JS = ROOT / "compiler" / "site" / "assets" / "army.js"

READ = """() => {
  const v = document.querySelector('.ws-army-verdict');
  return {ok: v.dataset.ok, points: v.dataset.points, text: document.getElementById('ws-army-text').value,
          messages: [...v.querySelectorAll('.ws-army-violations li')].map(li => [
            li.querySelector('.ws-army-message').textContent, (li.querySelector('a') || {}).href || null])};
}"""
#: The list ``text`` put in the page's list box and read with its button (as a click does); then READ.
READ_LIST = """text => {
  document.getElementById('ws-army-text').value = text;
  [...document.querySelectorAll('#ws-army button')].find(b => b.textContent === 'Read the list file').click();
  return (%s)();
}""" % READ


def army_check(rules: Path, text: str, folder: Path, army: str | None = None, points: int | None = None) -> dict[str, Any]:
    """``warscribe army check --json`` of a list file holding ``text``."""
    path = folder / "list.txt"
    path.write_text(text, encoding="utf-8")
    ran = warscribe("army", "check", str(rules), str(path), "--json", *(["--army", army] if army else []),
                    *(["--points", str(points)] if points is not None else []))
    assert ran.returncode in (0, 1), ran
    out: dict[str, Any] = json.loads(ran.stdout)
    assert (out["ok"] is not False) == (ran.returncode == 0)  # None: met, but with rules no list can show
    return out


def same_verdict(shown: dict[str, Any], want: dict[str, Any], lists: str) -> None:
    assert shown["ok"] == {True: "yes", False: "no", None: "unknown"}[want["ok"]], (lists, shown, want)
    assert shown["points"] == str(want["points"]), (lists, shown, want)
    assert [m for m, _ in shown["messages"]] == [v["message"] for v in want["violations"]], (lists, shown, want)
    for (_, href), v in zip(shown["messages"], want["violations"]):
        assert href is not None and href.endswith("#" + v["army"]), (href, v)  # the army or squad it breaks


def body(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("ruleset", ["console-40k", "40k-s", "nuceria-rts"])
def test_twenty_lists_equal_army_check(ruleset: str, page: Page, site_url: str, tmp_path: Path) -> None:
    from compiler.driver import compile_paths
    from compiler.model.army_data import army_rules_data

    rules = ROOT / "rules" / ruleset
    data = army_rules_data(compile_paths([rules]).rulesets[0])
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{site_url}{ruleset}/")  # the overview links to it
    assert page.locator("article a[href$='army/']").count() >= 1
    page.goto(f"{site_url}{ruleset}/army/")
    page.wait_for_selector("#ws-army[data-ready]")

    # With the keyboard only: pick the second unit offered, add it, type its models, leave the field.
    page.focus("#ws-army-pick")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    models = page.locator(".ws-army-models")
    assert models.count() == 1
    page.wait_for_function("document.activeElement.classList.contains('ws-army-models')")
    page.keyboard.press("Control+a")
    page.keyboard.type("4")
    page.keyboard.press("Tab")
    shown = page.evaluate(READ)
    assert body(shown["text"])[0].startswith("4 ")
    same_verdict(shown, army_check(rules, shown["text"], tmp_path), shown["text"])

    # Downloaded: the file itself, read by the command.
    with page.expect_download() as got:
        page.get_by_role("button", name="Download the list").click()
    downloaded = Path(got.value.path()).read_text(encoding="utf-8")
    assert downloaded == shown["text"]

    ids = [e["id"] for e in data["entries"]]
    sizes = {e["id"]: (e["min"], e["max"]) for e in data["entries"] if e["min"] is not None}
    each_unit = [r for a in data["armies"] for r in a["unit_requires"]]
    lists = random_lists(30, ids, sizes, 18, weapons=data["weapons"] if each_unit else None)
    if sizes:  # the bounds themselves: a squad at its largest, one past it
        big = max(sizes, key=lambda k: sizes[k][1])
        lists += [[(sizes[big][1], big, "")] * 3, [(sizes[big][1] + 1, big, ""), (sizes[big][0] - 1, big, "")]]
    else:
        lists += [[(1, ids[0], "")] * 7, [(10_000, ids[-1], " as warlord")]]
    verdicts, broken = set(), set()
    for i, units in enumerate(lists):
        text = "".join(f"{n} {name}{mark}\n" for n, name, mark in units)
        if i < 2:  # typed and clicked as a player does; the rest in one call each
            page.fill("#ws-army-text", text)
            page.get_by_role("button", name="Read the list file").click()
            shown = page.evaluate(READ)
        else:
            shown = page.evaluate(READ_LIST, text)
        assert body(shown["text"]) == body(text)  # the file the page writes is the list it read
        want = army_check(rules, shown["text"], tmp_path)
        same_verdict(shown, want, text)
        verdicts.add(want["ok"])
        broken |= {v["span"]["line"] for v in want["violations"] if v["span"]}
    if ruleset == "40k-s":  # no sizes declared: the game's size is any number the players agree
        page.fill("#ws-army-size", "1500")
        page.press("#ws-army-size", "Tab")
        shown = page.evaluate(READ)
        assert shown["text"].splitlines()[0].endswith(", a game of 1500 points")
        assert page.locator(".ws-army-total").text_content() == "Total: 0 points of 1500."
        same_verdict(shown, army_check(rules, shown["text"], tmp_path, points=1500), shown["text"])
    assert page.locator(".ws-army-never").count() == 0  # every rule is one a list can meet
    assert errors == []
    # Lists of both kinds in every ruleset: nuceria-rts's lists name their warlord (`as warlord`);
    # 40k-s's stand-in units carry no points, so its lists break its rules by being empty (no detachment)
    # or by a unit's melee profiles.
    assert verdicts == {True, False}, verdicts
    # 40k-s's `require each unit:` line (melee profiles) is broken by some lists, unit by unit.
    assert {r["line"] for r in each_unit} <= broken and (ruleset != "40k-s" or each_unit), (each_unit, broken)
    # The marks the army rules read are controls on each unit, written to the list file.
    assert data["marks"] == {"nuceria-rts": ["warlord", "reserve"], "40k-s": ["detachment"], "console-40k": []}[ruleset]
    if ruleset == "40k-s":
        shown = page.evaluate(READ_LIST, f"2 {ids[0]}\n1 {ids[1]}\n")
        page.get_by_role("spinbutton", name=f"Detachment: {data['entries'][1]['title']} 2").fill("2")
        page.get_by_role("spinbutton", name=f"Detachment: {data['entries'][1]['title']} 2").press("Tab")
        shown = page.evaluate(READ)
        assert body(shown["text"]) == [f"2 {ids[0]}", f"1 {ids[1]} in detachment 2"] and shown["ok"] == "yes"
        want = army_check(rules, shown["text"], tmp_path, points=1500)
        same_verdict(shown, want, shown["text"])
        assert want["quantities"]["detachments"] == 2
    if ruleset == "nuceria-rts":
        shown = page.evaluate(READ_LIST, f"3 {ids[0]}\n2 {ids[1]}\n")
        assert shown["ok"] == "no"  # no warlord
        page.get_by_role("checkbox", name=f"Warlord: {data['entries'][1]['title']} 2").check()
        shown = page.evaluate(READ)
        assert body(shown["text"]) == [f"3 {ids[0]}", f"2 {ids[1]} as warlord"] and shown["ok"] == "yes"
        same_verdict(shown, army_check(rules, shown["text"], tmp_path), shown["text"])
        page.get_by_role("checkbox", name=f"In reserve: {data['entries'][1]['title']} 2").check()
        shown = page.evaluate(READ)  # the warlord held back: broken, in army check's words
        assert body(shown["text"])[1] == f"2 {ids[1]} as warlord in reserve" and shown["ok"] == "no"
        same_verdict(shown, army_check(rules, shown["text"], tmp_path), shown["text"])
    if data["marks"]:  # on a phone, the list with its marks' columns fits the screen
        page.evaluate(READ_LIST, "".join(f"{e['min'] or 1} {e['id']}\n" for e in data["entries"][:4]))
        page.set_viewport_size({"width": 390, "height": 844})
        wide = page.evaluate("""() => [...document.querySelectorAll('#ws-army *')]
            .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map(e => e.tagName + '.' + e.className)""")
        assert wide == [], wide
        page.set_viewport_size({"width": 1280, "height": 900})
    if ruleset == "console-40k":
        assert page.locator(".ws-army-warlord, .ws-army-reserve, .ws-army-detachment").count() == 0


@pytest.fixture(scope="module")
def fixture_rules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("army") / "armytest"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    return folder


@pytest.mark.parametrize("army", ["main", "skirmish"])
def test_every_kind_of_requirement_equals_army_check(army: str, fixture_rules: Path, page: Page,
                                                    tmp_path: Path) -> None:
    from compiler.driver import compile_paths
    from compiler.model.army_data import army_rules_data

    data = army_rules_data(compile_paths([fixture_rules]).rulesets[0])
    requires = next(a for a in data["armies"] if a["id"] == army)["requires"]
    unchecked = {r["message"] for r in requires if r["tree"] is None}
    # max(points, …) reads a quantity inside a call (army check alone checks it)
    assert len(unchecked) == (1 if army == "skirmish" else 0)
    assert [r["unknown"] for r in requires if r["tree"] is None] == ([False] if unchecked else [])
    mount(page, data)
    seen_ok, seen_broken = 0, set()
    sizes = [500, 1000] if army == "main" else [0, 300, 450]  # its sizes; any number for the skirmish
    for i, units in enumerate(random_lists(47 if army == "main" else 32, list(ENTRIES), SIZES, 20, most_units=5)):
        listed = [{"id": name, "models": n, "weapons": [], "warlord": "warlord" in mark, "reserve": "reserve" in mark}
                  for n, name, mark in units]
        size = sizes[i % len(sizes)]
        got = page.evaluate("""([d, a, u, n]) => ({r: wsArmy.check(d, a, u, n), t: wsArmy.listText(d, a, u, n),
                                                   c: wsArmy.command(d, a, n, 'list.txt')})""",
                            [data, army, listed, size])
        default = size == sizes[0]
        assert got["c"] == "warscribe army check rules/armytest list.txt" + ("" if army == "main" else " --army skirmish") \
            + ("" if default else f" --points {size}") and got["r"]["limit"] == size
        want = army_check(fixture_rules, got["t"], tmp_path, army, None if default else size)
        kept = [v["message"] for v in want["violations"] if not any(v["message"].startswith(m) for m in unchecked)]
        assert [v["message"] for v in got["r"]["violations"]] == kept, units
        assert [v["cites"] for v in got["r"]["violations"]] == \
            [v["army"] for v in want["violations"] if not any(v["message"].startswith(m) for m in unchecked)]
        assert got["r"]["points"] == str(want["points"])
        assert [u["message"] for u in got["r"]["unchecked"]] == sorted(unchecked)
        if not unchecked:
            assert got["r"]["ok"] == want["ok"]
        seen_ok += want["ok"] is not False
        seen_broken |= {v["message"].split(" (")[0] for v in want["violations"]}
    assert seen_ok >= 2  # valid lists among the twenty, and most rules broken by one of them
    assert len(seen_broken) >= {"main": 6, "skirmish": 3}[army], seen_broken

    # The page's own controls: this army, a game size other than the default, a list read in; the
    # command line the page shows (with the author's notes) checks its file as the page did.
    page.locator(".ws-army-controls select").first.select_option(army)
    size = "1000" if army == "main" else "450"
    page.locator("#ws-army-size").select_option(size) if army == "main" else page.fill("#ws-army-size", size)
    page.press("#ws-army-size", "Tab")
    shown = page.evaluate(READ_LIST, "6 troop_squad\n1 tank\n4 veteran_squad\n")
    line = page.locator(".ws-army-cli").text_content() or ""
    assert line.endswith("armytest-army.txt" + ("" if army == "main" else " --army skirmish") + f" --points {size}")
    want = army_check(fixture_rules, shown["text"], tmp_path, army, int(size))
    assert shown["text"].splitlines()[0].endswith(f"({army}), a game of {size} points")
    kept = [v["message"] for v in want["violations"] if not any(v["message"].startswith(m) for m in unchecked)]
    assert [m for m, _ in shown["messages"]] == kept and shown["points"] == str(want["points"]) == "375"
    assert shown["ok"] == ("no" if kept else "unknown" if unchecked else "yes")

    # A file the command refuses is refused whole, each bad line said where it goes wrong (line and
    # column) in the command's words (the page gives its own ruleset's example), the list left as it was.
    refuse = ("x trooper\n1234567 tank\n2 nothing\n1 tank with laser\n3 scout\n1 hero as warlrd\n"
              "2 scout in reserve in reserve\n1 hero in reserve with flag\n1 hero as\n5 troop_squad reserve\n"
              "1 tank with\n1 tank!\n")
    bad = page.evaluate(READ_LIST, refuse)
    assert {k: bad[k] for k in ("ok", "points", "messages")} == {k: shown[k] for k in ("ok", "points", "messages")}
    path = tmp_path / "bad.txt"
    path.write_text(refuse, encoding="utf-8")
    refused = warscribe("army", "check", str(fixture_rules), str(path))
    said = [line.split(":", 1)[1].split(": error: ") for line in refused.stdout.splitlines() if ": error: " in line]
    assert refused.returncode == 1 and len(said) == 11, refused.stdout  # all but `3 scout`
    status = page.locator(".ws-army-status").text_content() or ""
    assert status == "The list was not read: " + "; ".join(
        "line {}, column {}: {}".format(*where.split(":"), message.replace("space_marine_squad", "troop_squad"))
        for where, message in said)
    assert said[4:7] == [["6:11", "'warlrd': a unit is marked `as warlord`"],
                         ["7:20", "the unit is marked `in reserve` twice"],
                         ["8:19", "cannot read 'with' here; the weapons come first, after `with`"]]
    assert "= hint: did you mean 'warlord'?" in refused.stdout  # the command also hints


def test_each_unit_requirements_equal_army_check(page: Page, tmp_path: Path) -> None:
    """``require each unit:`` lines over every kind of unit quantity (tests/army_fixture.py's EACH_RULES),
    on seeded lists with and without weapons: the page's messages, unit by unit, are the command's."""
    from compiler.driver import compile_paths
    from compiler.model.army_data import army_rules_data

    folder = tmp_path / "eachtest"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(EACH_RULES, encoding="utf-8")
    data = army_rules_data(compile_paths([folder]).rulesets[0])
    each = data["armies"][0]["unit_requires"]
    unchecked = [r["message"] for r in each if r["tree"] is None]
    assert unchecked == ["A yes/no as a number."]
    mount(page, data)
    broken: set[str] = set()
    seen_ok = 0
    for units in random_lists(11, list(EACH_ENTRIES), {"guard": (3, 6)}, 24, most_units=4, marks=False,
                              weapons=EACH_WEAPONS):
        listed = [{"id": name, "models": n, "weapons": mark.removeprefix(" with ").split(", ") if mark else []}
                  for n, name, mark in units]
        got = page.evaluate("([d, u]) => ({r: wsArmy.check(d, 'each', u), t: wsArmy.listText(d, 'each', u)})",
                            [data, listed])
        assert body(got["t"]) == [f"{n} {name}{mark}" for n, name, mark in units]
        want = army_check(folder, got["t"], tmp_path)
        kept = [v["message"] for v in want["violations"] if unchecked[0] not in v["message"]]
        assert [v["message"] for v in got["r"]["violations"]] == kept, units
        assert [u["message"] for u in got["r"]["unchecked"]] == unchecked
        seen_ok += not kept
        broken |= {m.split(": ", 1)[-1].split(" (")[0] for m in kept}  # a squad out of its size has no ":"
    assert seen_ok >= 2 and broken >= {r["message"] for r in each if r["tree"] is not None}, broken


def mount(page: Page, data: dict[str, Any]) -> None:
    """The builder's script on a page of its own, with ``data`` as its army.json (no site build)."""
    html = ('<!doctype html><html lang="en"><title>Army</title><main><p><a id="ws-army-data" href="army.json">data</a>'
            '</p><div id="ws-army"></div><p>' + "".join(f'<a id="ws-army-cite-{a["id"]}" href="#{a["id"]}">{a["id"]}</a> '
                                                       for a in data["armies"]) +
            '</p></main><script src="army.js"></script></html>')
    bodies = {"army/": (html, "text/html"), "army/army.json": (json.dumps(data), "application/json"),
              "army/army.js": (ARMY_JS.read_text(encoding="utf-8"), "text/javascript")}
    page.route("http://127.0.0.1:9/**", lambda route: route.fulfill(
        body=bodies[route.request.url.split(":9/", 1)[1]][0],
        content_type=bodies[route.request.url.split(":9/", 1)[1]][1]))
    page.goto("http://127.0.0.1:9/army/")
    page.wait_for_selector("#ws-army[data-ready]")


def test_the_list_copies_prints_with_its_cards_plays_and_reads_well(page: Page, site_url: str,
                                                                   tmp_path: Path) -> None:
    """console-40k's builder: the copied list is the file; it is still there after a reload; printed,
    the list and its units' cards without the controls; ``simulate --army`` plays the file; axe finds
    no serious fault in either scheme; at 390 px nothing is wider than the screen.  (One page session
    for all of them: about 7 s, most of it axe-core and the two-game simulation.)"""
    from test_site_axe import axe_script

    page.set_viewport_size({"width": 1280, "height": 900})
    page.emulate_media(color_scheme="light")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])  # taken back after the test (browser_site.page)
    page.goto(f"{site_url}console-40k/army/")
    page.wait_for_selector("#ws-army[data-ready]")
    page.select_option("#ws-army-pick", "space_marine_squad")
    page.get_by_role("button", name="Add to the list").click()
    page.select_option("#ws-army-pick", "ork_boyz_squad")
    page.get_by_role("button", name="Add to the list").click()
    page.locator(".ws-army-models").nth(1).fill("21")
    page.locator(".ws-army-models").nth(1).press("Tab")
    page.fill("#ws-army-name", "Gate <b>watch</b>")  # the player's own words, shown as text
    page.press("#ws-army-name", "Tab")
    page.get_by_role("button", name="Copy the list").click()
    page.wait_for_selector(".ws-army-status:has-text('copied')")
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert not page.locator(".ws-army-printonly").is_visible()  # on paper only
    assert copied == page.input_value("#ws-army-text") and body(copied) == ["5 space_marine_squad", "21 ork_boyz_squad"]
    want = army_check(ROOT / "rules" / "console-40k", copied, tmp_path)
    assert [v["message"] for v in want["violations"]] == page.locator(".ws-army-message").all_text_contents() \
        == ["Ork Boyz squad 2 has 21 models; a Ork Boyz squad has 10 to 20"]
    played = warscribe("simulate", str(ROOT / "rules" / "console-40k"), "--army",
                       f"space_marines={tmp_path / 'list.txt'}", "--games", "2", "--json")
    assert played.returncode == 0 and json.loads(played.stdout)["games"] == 2, played

    page.reload()  # the list is kept in the browser
    page.wait_for_selector("#ws-army[data-ready]")
    assert page.input_value("#ws-army-text") == copied and copied.splitlines()[1] == "# List: Gate <b>watch</b>"
    assert page.locator(".ws-army-list caption").text_content() == "Gate <b>watch</b>"
    assert page.locator(".ws-army-list b").count() == 0
    page.wait_for_selector(".ws-army-card >> nth=1")  # the squad's card and its models'
    page.emulate_media(media="print")
    assert page.locator(".ws-army-list").is_visible() and page.locator(".ws-army-verdict").is_visible()
    assert page.locator(".ws-army-printonly").text_content() == \
        "Warhammer 40,000: the console game: Choosing an army, a game of 400 points."
    assert page.locator(".ws-army-card").count() == 4 and page.locator(".ws-army-card").nth(3).is_visible()
    for hidden in ("#ws-army-rules", ".ws-army-controls", "#ws-army-text", ".ws-army-list button"):
        assert not page.locator(hidden).first.is_visible(), hidden
    page.emulate_media(media="screen")

    script = axe_script()
    for scheme in ("light", "dark"):
        if scheme == "dark":
            page.emulate_media(color_scheme="dark")
            page.reload()
            page.wait_for_selector("#ws-army[data-ready]")
            page.get_by_role("button", name="Add to the list").click()
        page.add_script_tag(content=script)
        bad = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']})).violations
            .filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.nodes[0].html)""")
        assert bad == [], (scheme, bad)

    page.set_viewport_size({"width": 390, "height": 844})
    wide = page.evaluate("""() => [...document.querySelectorAll('#ws-army *')]
        .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map(e => e.tagName)""")
    assert wide == []


def test_a_rule_no_list_can_meet_is_explained(page: Page, tmp_path: Path) -> None:
    """A keyword no unit has: every list breaks the rule needing it; the page says why, with army check's count.
    A rule reading `characters` when no keyword has that role: neither met nor broken, with army check's reason."""
    from compiler.driver import compile_paths
    from compiler.model.army_data import army_rules_data

    folder = tmp_path / "lonely"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(
        'ruleset lonely "Lonely":\n  version 1.0.0\nstat W "Wounds" 1..10 role wounds\nkeyword hq "HQ": "Leaders."\n'
        'unit grunt "Grunt":\n  W 1\n  points 5\narmy a "A":\n  require hq >= 1: "A leader."\n'
        '  require characters <= 1: "One leader at most."\n', encoding="utf-8")
    mount(page, army_rules_data(compile_paths([folder]).rulesets[0]))
    shown = page.evaluate(READ_LIST, "3 grunt as warlord\n")
    same_verdict(shown, army_check(folder, shown["text"], tmp_path), shown["text"])
    assert page.locator(".ws-army-never").all_text_contents() == [
        " No list can meet this rule: no unit or squad of the ruleset counts towards hq, and warscribe army check "
        "counts hq as 0."]
    # and one no list can show (no keyword is role characters): said as army check says it
    want = army_check(folder, shown["text"], tmp_path)
    assert page.locator(".ws-army-unchecked").all_text_contents() == [
        f"Not checked ({u['why']}): {u['message']}" for u in want["unchecked"]] and len(want["unchecked"]) == 1


def test_the_page_reads_each_line_as_army_check_does(fixture_rules: Path, page: Page) -> None:
    """400 seeded lines of the list file's words (marks, weapons, numbers, stray words) read by the page's
    parser and by the command's reader (compiler.model.listfile): the same units, the same errors at the
    same line and column."""
    import random

    from compiler.driver import compile_paths
    from compiler.model.army_data import army_rules_data
    from compiler.model.listfile import read_list_file

    data = army_rules_data(compile_paths([fixture_rules]).rulesets[0])
    mount(page, data)
    words = ["1", "5", "12", "0", "99", "100", "1234567", "x", "hero", "tank", "troop_squad", "with", "as", "in",
             "warlord", "reserve", "detachment", "detachmnt", "warlrd", ",", "laser", "!", "2x", "#", "é",
             "as warlord", "in reserve", "in detachment 2", "in detachment 12"]
    rng = random.Random(7)
    lines = []
    for _ in range(400):
        head = [rng.choice(["1", "5", "10", "0", "x"]), rng.choice(["hero", "tank", "troop_squad", "nothing"])]
        tail = [rng.choice(words) for _ in range(rng.choice([0, 0, 1, 1, 2, 3, 6]))]
        lines.append(rng.choice([" ", "", "\t"]) + " ".join(head) + rng.choice([" ", "  ", "\t"]).join([""] + tail))
    got = page.evaluate("""lines => fetch('army.json').then(r => r.json())
        .then(d => lines.map(l => wsArmy.parseList(d, l)))""", lines)
    units = {e["id"] for e in data["entries"]}
    for line, shown in zip(lines, got):
        want = read_list_file(line, units, set(data["weapons"]), data["ruleset"], sample=data["entries"][0]["id"])
        assert shown["errors"] == [f"line {e.line}, column {e.column}: {e.message}" for e in want.errors], line
        assert [(u["models"], u["id"], u["weapons"], u["warlord"], u["reserve"], u["detachment"])
                for u in shown["units"]] == [(u.count, u.name, list(u.weapons), u.warlord, u.reserve, u.detachment)
                                             for u in want.units], line
    read = [u for s in got for u in s["units"]]  # lines of both kinds, marks of each kind among those read
    assert len(read) >= 50 and len(lines) - len(read) >= 200, len(read)
    assert all(any(u[k] for u in read) for k in ("warlord", "reserve")) and any(u["detachment"] > 1 for u in read)
