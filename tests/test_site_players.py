"""The website as players read it: tables that fit the screen and A4, players' words, one number
style, datasheet cards, dark mode — checked in Chromium on the bundled site.

The site is built once per session (``built_site`` and ``site_url`` in conftest.py, shared with
test_site_browser.py). Pages are opened at 1280x900, as a reader on a laptop sees them, and the
quick references again as printed on A4 (print media, a viewport as wide as an A4 page at 96 dpi
less the print stylesheet's 12 mm margins).
"""
from __future__ import annotations

import html
import html.parser
import os
import re
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from compiler import ast as A

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).exists()
if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)

if os.environ.get("CI"):  # under CI a missing Playwright is a failure, not a skip
    from playwright.sync_api import Page
else:
    Page = pytest.importorskip("playwright.sync_api").Page

ROOT = Path(__file__).resolve().parent.parent
DESKTOP = {"width": 1280, "height": 900}
A4_WIDTH = round(210 / 25.4 * 96)  # 794 px
PRINT_MARGIN = round(12 / 25.4 * 96)  # the print stylesheet's @page margin, 12 mm
SNAKE = re.compile(r"\b[a-z][a-z0-9]*_[a-zA-Z0-9_]+\b")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):  # type: ignore[no-untyped-def]
    if not HAVE_CHROMIUM:
        pytest.fail(f"chromium is missing ({CHROMIUM}) and CI is set: install it with apt-get install chromium")
    from test_site_browser import CHROMIUM_ARGS

    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="module")
def rulesets() -> dict[str, Any]:
    from compiler.driver import compile_paths

    return {rs.id: rs for rs in compile_paths([str(ROOT / "rules")]).rulesets}


def ruleset_ids() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "rules").glob("*/ruleset.rules"))


def player_pages(built_site: Path, *roles: str) -> list[str]:
    """The paths of every ruleset's pages of the given roles (``quick-reference``, ``rulebook``…)."""
    found = []
    for rs_id in ruleset_ids():
        for role in roles:
            folder = built_site / rs_id / role
            found += sorted(str(p.parent.relative_to(built_site)) + "/" for p in folder.rglob("index.html"))
    return found


# What a page shows, read in the browser: only what is rendered (not inside a closed <details>).
VISIBLE_TEXT = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.querySelector('article'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (el && el.checkVisibility({visibilityProperty: true}) && !el.closest('svg')) out.push(n.textContent);
  }
  return out.join(' ');
}"""

WIDE_TABLES = """() => [...document.querySelectorAll('article table')]
  .filter(t => t.checkVisibility())
  .map(t => {
    const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
    return {head: t.rows[0].innerText.slice(0, 60), scroll: box.scrollWidth, client: box.clientWidth,
            right: t.getBoundingClientRect().right, page: document.documentElement.clientWidth};
  })"""

HEADERS = "() => [...document.querySelectorAll('article table th')].filter(h => h.checkVisibility()).map(h => h.innerText)"


READ_PAGE = "() => ({tables: (" + WIDE_TABLES + ")(), headers: (" + HEADERS + ")(), text: (" + VISIBLE_TEXT + ")()})"


@pytest.fixture(scope="module")
def desktop(shared_context: Any, site_url: str, built_site: Path) -> dict[str, dict[str, Any]]:
    """Every quick reference, datasheets, examples and notes page read once at 1280x900: its
    visible tables' widths, its table headers and its visible text."""
    page = shared_context.context.new_page()  # a page of its own in the worker's context (tests/browser_site.py)
    page.set_viewport_size(DESKTOP)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())  # search is not under test
    found = {}
    for path in [""] + player_pages(built_site, "quick-reference", "datasheets", "examples", "notes"):
        page.goto(site_url + path)
        found[path] = page.evaluate(READ_PAGE)
    page.close()
    shared_context.clear()
    return found


def rulebook_html(built_site: Path) -> dict[str, str]:
    """The rulebook and lexicon pages as built (every word of them is shown: they fold nothing
    but the rules' source away)."""
    return {path: (built_site / path / "index.html").read_text(encoding="utf-8")
            for path in player_pages(built_site, "rulebook", "lexicon")}


def long_fractions(text: str) -> list[str]:
    return [m.group(0) for m in re.finditer(r"\d+/\d+", text) if len(m.group(0)) - 1 >= 10]


def test_no_quick_reference_or_datasheet_table_scrolls_sideways(desktop: dict[str, dict[str, Any]]) -> None:
    pages = {path: read for path, read in desktop.items() if "/quick-reference/" in path or "/datasheets/" in path}
    assert len(pages) == 2 * len(ruleset_ids())
    assert sum(len(read["tables"]) for read in pages.values()) > 50  # the check looked at real tables
    wide = [f"{path}: {t['head']!r} is {t['scroll']} px in {t['client']} px"
            for path, read in pages.items() for t in read["tables"] if t["scroll"] > t["client"] + 1]
    assert not wide, "\n".join(wide)


def test_every_quick_reference_fits_a4_width_in_print(page: Page, site_url: str) -> None:
    page.set_viewport_size({"width": A4_WIDTH - 2 * PRINT_MARGIN, "height": 1100})
    page.emulate_media(media="print")
    for rs_id in ruleset_ids():
        page.goto(site_url + f"{rs_id}/quick-reference/")
        tables = page.evaluate(WIDE_TABLES)
        assert tables, rs_id
        # a large table prints as its rule (a few rows) instead of its pages of cells
        printed = page.locator("article table:not(.ws-print-only + details table)").count()
        assert len(tables) == printed, f"{rs_id}: a table is folded away in print"
        clipped = [t for t in tables if t["scroll"] > t["client"] + 1 or t["right"] > t["page"] + 1]
        assert not clipped, f"{rs_id}: tables wider than A4 in print: {clipped}"
        # navigation is not printed: the article takes the page's width
        assert page.locator("article").evaluate("a => a.getBoundingClientRect().width") > 0.9 * (A4_WIDTH - 2 * PRINT_MARGIN)


def test_no_identifier_in_a_visible_table_header(desktop: dict[str, dict[str, Any]], built_site: Path) -> None:
    found = [f"{path}: {h!r}" for path, read in desktop.items() for h in read["headers"] if SNAKE.search(h)]
    for path, text in rulebook_html(built_site).items():
        for cell in re.findall(r"<th[^>]*>(.*?)</th>", text, re.DOTALL):
            words = html.unescape(re.sub(r"<[^>]+>", "", cell))
            found += [f"{path}: {words!r}"] if SNAKE.search(words) else []
    assert not found, "\n".join(found)


def test_no_long_fraction_in_visible_text(desktop: dict[str, dict[str, Any]], built_site: Path) -> None:
    found = [f"{path}: {f}" for path, read in desktop.items() for f in long_fractions(read["text"])]
    for path, text in rulebook_html(built_site).items():
        shown = re.sub(r'<details class="abstract">.*?</details>', "", text, flags=re.DOTALL)  # the source, folded
        shown = re.sub(r"<[^>]+>", "", re.sub(r"<(script|svg)\b.*?</\1>", "", shown, flags=re.DOTALL))
        found += [f"{path}: {f}" for f in long_fractions(html.unescape(shown))]
    assert not found, "\n".join(found[:20])


def test_an_exact_fraction_is_there_on_hover(page: Page, site_url: str, rulesets: dict[str, Any]) -> None:
    """The wound chart's 3+ cell: 67% on the page, exactly 2/3 in its tooltip (a d6 needing 3+)."""
    page.goto(site_url + "console-40k/quick-reference/")
    cell = page.locator("#qr-to_wound ~ div table .ws-heat", has_text="3+").first
    assert cell.inner_text().split() == ["3+", "67%"]
    assert cell.get_attribute("title") == f"3+: exactly {Fraction(4, 6)}"


def test_impossible_and_certain_rolls_read_never_and_always(page: Page, site_url: str) -> None:
    page.goto(site_url + "console-40k/quick-reference/")
    heat = page.locator("article td .ws-heat")
    texts = heat.all_inner_texts()
    assert "never" in texts
    assert not [t for t in texts if t.split()[-1] in ("0%", "100%")]
    # the legend speaks the cells' language
    legend = page.locator("small.ws-note .ws-heat").all_inner_texts()
    assert legend == ["never", "33%", "50%", "83%", "always"]


def test_heat_colour_fills_its_cell(page: Page, site_url: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + "classic-40k/quick-reference/")
    boxes = page.evaluate("""() => [...document.querySelectorAll('article td > .ws-heat:only-child')].map(s => {
        const a = s.getBoundingClientRect(), b = s.parentElement.getBoundingClientRect();
        return [a.width / b.width, a.height / b.height]; })""")
    assert len(boxes) > 100
    assert all(w > 0.97 and h > 0.97 for w, h in boxes), [b for b in boxes if min(b) <= 0.97][:5]


def test_datasheet_card_shows_the_units_stats_weapons_and_keywords(page: Page, site_url: str,
                                                                   rulesets: dict[str, Any]) -> None:
    rs = rulesets["console-40k"]
    unit = rs.get("space_marine")
    page.goto(site_url + "console-40k/datasheets/")
    card = page.locator(".ws-card", has=page.locator("h3#space_marine"))
    stat_line = card.locator("table").first
    assert stat_line.locator("th").all_inner_texts() == [s.stat for s in unit.stats]
    assert stat_line.locator("td").all_inner_texts() == [s.text for s in unit.stats]
    for weapon_id, _ in unit.weapons:
        weapon = rs.get(weapon_id)
        row = card.locator("tr", has=page.locator(f"a[href$='#{weapon_id}']"))
        assert row.count() == 1
        for sv in weapon.stats:
            assert sv.text in row.locator("td").all_inner_texts()
    keywords = card.locator(".ws-keywords")
    for kw, _ in unit.keywords:
        assert keywords.locator(f"a[href$='#{kw}']").count() == 1


def test_a_unit_shows_only_the_stats_it_has(page: Page, site_url: str, rulesets: dict[str, Any]) -> None:
    rs = rulesets["gemini-arap"]
    page.goto(site_url + "gemini-arap/datasheets/")
    for unit in [p for p in rs.of_type(A.Profile) if p.kind == "unit"]:
        anchor = page.locator(f"[id='{unit.id}']")
        card = page.locator(".ws-card", has=anchor)
        if card.count():
            heads = card.locator("table").first.locator("th").all_inner_texts()
        else:  # a unit with nothing but a stat line: a row of its section's table
            heads = page.locator("table", has=anchor).locator("th").all_inner_texts()[1:]
        assert heads == [s.stat for s in unit.stats], unit.id


def test_profiles_of_the_worked_examples_are_not_units(page: Page, site_url: str, rulesets: dict[str, Any]) -> None:
    """gemini-arap declares its example models inside the worked examples section."""
    rs = rulesets["gemini-arap"]
    assert "worked_examples" in [s.id for s in rs.section_path("hugo")]
    page.goto(site_url + "gemini-arap/datasheets/")
    order = page.evaluate("""ids => ids.map(id => [...document.querySelectorAll('[id]')].findIndex(e => e.id === id))""",
                          ["ws-units", "human", "ws-samples", "hugo"])
    assert -1 not in order
    assert order == sorted(order)  # the army's units, then the samples heading, then the samples


def test_quick_reference_speaks_in_titles(page: Page, site_url: str, rulesets: dict[str, Any]) -> None:
    page.goto(site_url + "console-40k/quick-reference/")
    text = page.locator("article").inner_text()
    assert "to_hit(BS)" not in text and "target_WS" not in text
    hit = rulesets["console-40k"].get("to_hit")
    tests = page.locator("#ws-tests ~ div table").first.inner_text()
    assert f"it needs the {hit.title}" in tests
    # the attack sequences are one item each
    attacks = page.locator("#ws-attacks ~ ul").first.locator("> li")
    assert attacks.count() == len(list(rulesets["console-40k"].of_type(A.Attack)))


def test_the_rule_as_written_is_collapsed_and_labelled(page: Page, site_url: str) -> None:
    page.goto(site_url + "console-40k/rulebook/the_battle/")
    sources = page.locator("article details:has(div.language-warscribe)")
    assert sources.count() > 3
    for i in range(sources.count()):
        box = sources.nth(i)
        assert box.get_attribute("open") is None
        assert box.locator("summary").inner_text() == "The rule as written in warscribe"


def test_a_palette_toggle_switches_to_dark_and_heat_maps_stay_readable(page: Page, site_url: str) -> None:
    page.emulate_media(color_scheme="light")
    page.goto(site_url + "console-40k/quick-reference/")
    body = page.locator("body")
    assert body.get_attribute("data-md-color-scheme") == "default"
    cell = page.locator("article td .ws-heat").first
    light = contrast(page, cell)
    page.locator("form[data-md-component='palette'] label:visible").first.click()
    assert body.get_attribute("data-md-color-scheme") == "slate"
    dark = contrast(page, cell)
    assert light >= 4.5 and dark >= 4.5, (light, dark)


# A CSS colour (rgb(), oklch()…) as the sRGB pixel the browser paints, read back from a canvas.
SRGB = """e => { const g = document.createElement('canvas').getContext('2d');
  const rgb = css => { g.clearRect(0, 0, 1, 1); g.fillStyle = '#000'; g.fillStyle = css; g.fillRect(0, 0, 1, 1);
                       return 'rgb(' + Array.from(g.getImageData(0, 0, 1, 1).data).slice(0, 3).join(', ') + ')'; }"""


def contrast(page: Page, cell: Any) -> float:
    """The WCAG contrast ratio of a cell's text on its background."""
    fg, bg = cell.evaluate(SRGB + "; return [rgb(getComputedStyle(e).color), rgb(getComputedStyle(e).backgroundColor)]; }")

    def luminance(css: str) -> float:
        r, g, b = (int(x) / 255 for x in re.findall(r"[\d.]+", css)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# ---------------------------------------------------------------------------
# Every link inside the site leads to a page that exists, and to an anchor on it
# ---------------------------------------------------------------------------


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.hrefs.append(str(a["href"]))


def test_the_link_crawl_finds_no_broken_link(built_site: Path) -> None:
    pages: dict[str, _Links] = {}
    for f in built_site.rglob("*.html"):
        parser = _Links()
        parser.feed(f.read_text(encoding="utf-8"))
        pages["/" + str(f.relative_to(built_site))] = parser
    broken = []
    for path, parser in pages.items():
        for href in parser.hrefs:
            url = urlsplit(urljoin("http://site" + path, href))
            if url.netloc != "site":
                continue
            target = unquote(url.path)
            target = target + "index.html" if target.endswith("/") else target
            if target not in pages:
                if not (built_site / target.lstrip("/")).exists():
                    broken.append(f"{path}: {href}")
                continue
            if url.fragment and url.fragment not in pages[target].ids:
                broken.append(f"{path}: {href} (no such anchor)")
    assert len(pages) > 50
    assert not broken, "\n".join(broken[:20])
