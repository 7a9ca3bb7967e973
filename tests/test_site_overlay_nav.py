"""The overlay page, the navigation, search and the comparison page of the built site, in chromium.

The site is the session's one build (``built_site``/``site_url`` of tests/browser_site.py).
Pages are read at 1280x900, the desktop size the site is designed for.
"""
from __future__ import annotations

import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from browser_site import HAVE_CHROMIUM, ROOT

if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)

if os.environ.get("CI"):  # under CI a missing Playwright is a failure, not a skip
    from playwright.sync_api import Page, expect
else:
    expect = pytest.importorskip("playwright.sync_api").expect
    Page = pytest.importorskip("playwright.sync_api").Page

DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def errors(page: Page) -> list[str]:
    """Uncaught exceptions, console errors and requests that left the site, of every page the test opens."""
    found: list[str] = []
    page.on("pageerror", lambda e: found.append(f"pageerror: {e}"))
    page.on("console", lambda m: found.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("request", lambda r: found.append(f"off-site request {r.url}")
            if not r.url.startswith(("http://127.0.0.1:", "data:", "blob:")) else None)
    return found


def rulesets() -> list[tuple[str, str]]:
    from compiler.driver import compile_paths

    return sorted((rs.id, rs.title) for rs in compile_paths([str(ROOT / "rules")]).rulesets)


# ---------------------------------------------------------------------------
# The overlay page answers first
# ---------------------------------------------------------------------------


def test_the_first_screen_of_the_overlay_page_shows_the_effect_on_the_odds(page: Page, site_url: str,
                                                                         errors: list[str]) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + "dark-millennia/house-rules/")
    heading = page.locator("h2#ws-odds")
    expect(heading).to_be_in_viewport()
    table = page.locator("h3#ws-matchups ~ div table, h3#ws-matchups ~ table").first
    first_row = table.locator("tbody tr").first
    expect(first_row).to_be_in_viewport()
    box = first_row.bounding_box()
    assert box is not None and box["y"] + box["height"] <= DESKTOP["height"]
    # the row reads in words: a situation by its title, the means before and after, the change
    cells = [c.strip() for c in first_row.locator("td").all_inner_texts()]
    assert cells[1] == "Cover the target is in: light"
    assert re.fullmatch(r"\d+\.\d\d", cells[2]) and re.fullmatch(r"\d+\.\d\d", cells[3])
    assert re.fullmatch(r"[+-]\d+(\.\d)?%", cells[4])
    # the rules code is folded away; the text changes are marked word by word
    assert page.locator("details pre code").count() > 0
    assert page.locator("article pre:visible").count() == 0
    diff = page.locator("#ws-change-cover_saves ~ .ws-word-diff").first
    assert diff.locator("ins").count() > 0 and diff.locator("del").count() > 0
    colour = "e => getComputedStyle(e).backgroundColor"
    assert diff.locator("ins").first.evaluate(colour) != diff.locator("del").first.evaluate(colour)
    assert not errors


# ---------------------------------------------------------------------------
# Navigation
# ---------------------------------------------------------------------------


def test_every_navigation_tab_is_visible_at_1280_px(page: Page, site_url: str, errors: list[str]) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + "console-40k/")
    tabs = page.locator(".md-tabs__item")
    labels = [t.strip() for t in tabs.all_inner_texts()]
    assert len(labels) == len(rulesets()) + 3, labels  # Home, a tab per ruleset, Compare rulesets, Writing rules
    assert labels[0] == "Home" and labels[-2:] == ["Compare rulesets", "Writing rules"]
    for i in range(tabs.count()):
        box = tabs.nth(i).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= DESKTOP["width"], labels[i]
    overflow = page.locator(".md-tabs__list").evaluate("e => e.scrollWidth - e.clientWidth")
    assert overflow <= 0
    assert not errors


def test_the_author_docs_have_a_section_of_their_own(page: Page, site_url: str, errors: list[str]) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + "console-40k/")
    sidebar = [t.strip() for t in page.locator(".md-sidebar--primary a.md-nav__link:visible").all_inner_texts()]
    assert "The warscribe language" not in sidebar and "Templates and overrides" not in sidebar
    page.locator(".md-tabs__item", has_text="Writing rules").locator("a").click()
    expect(page).to_have_url(re.compile(r"/language/$"))
    sidebar = [t.strip() for t in page.locator(".md-sidebar--primary a.md-nav__link:visible").all_inner_texts()]
    assert "The warscribe language" in sidebar and "Templates and overrides" in sidebar
    assert not any(title in sidebar for _, title in rulesets())
    assert not errors


@pytest.mark.parametrize("rs_id", [rs_id for rs_id, _ in rulesets()])
def test_no_sidebar_lists_an_entry_twice(page: Page, site_url: str, errors: list[str], rs_id: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + rs_id + "/")
    links = page.locator(".md-sidebar--primary a.md-nav__link:visible")
    texts = [t.strip() for t in links.all_inner_texts()]
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    assert len(texts) >= 8
    assert len(set(texts)) == len(texts), [t for t in texts if texts.count(t) > 1]
    assert len(set(hrefs)) == len(hrefs)
    assert not errors


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------


def search(page: Page, words: str) -> None:
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(words)
    box.press("End")  # mkdocs-material searches on keyup, not on input
    expect(page.locator(".md-search-result__item").first).to_be_visible()


def test_search_results_name_their_ruleset_and_can_keep_to_the_current_one(page: Page, site_url: str,
                                                                         errors: list[str]) -> None:
    titles = dict(rulesets())
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + "console-40k/")
    search(page, "Toughness")
    items = page.locator(".md-search-result__item")
    expect(items.first.locator(".ws-search-ruleset")).to_be_visible()
    labels = [t.strip() for t in page.locator(".md-search-result__item .ws-search-ruleset").all_text_contents()]
    assert len(labels) == items.count()  # every result names where it comes from
    assert len(set(labels) & set(titles.values())) >= 3  # other rulesets' results, each named
    # this ruleset's results come first on the screen
    tops = [(items.nth(i).bounding_box() or {"y": 0.0})["y"] for i in range(items.count())]
    on_screen = [labels[i] for i in sorted(range(len(labels)), key=lambda i: tops[i])]
    mine = on_screen.count(titles["console-40k"])
    assert mine >= 2 and on_screen[:mine] == [titles["console-40k"]] * mine
    # the switch keeps to this ruleset
    switch = page.locator(".ws-search-scope input")
    expect(page.locator(".ws-search-scope")).to_contain_text(titles["console-40k"])
    switch.check()
    visible = page.locator(".md-search-result__item:visible")
    only_here = visible.count()
    assert only_here >= 1
    assert {visible.nth(i).get_attribute("data-ws-ruleset") for i in range(only_here)} == {"console-40k"}
    switch.uncheck()
    everywhere = page.locator(".md-search-result__item:visible")
    assert everywhere.count() > only_here
    assert len({everywhere.nth(i).get_attribute("data-ws-ruleset") for i in range(everywhere.count())}) > 1
    assert not errors


def test_search_snippets_are_prose_not_code_or_tables(built_site: Path) -> None:
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    texts = [d["text"] for d in index["docs"]]
    assert not [t for t in texts if "<pre" in t]
    assert not any("roll d6 against (" in t for t in texts)  # a test's code, as its page shows it
    language = " ".join(d["text"] for d in index["docs"] if d["location"].startswith("language/"))
    assert "ruleset my-skirmish" not in language and "stat BS" not in language
    lexicon = [d for d in index["docs"] if d["location"].startswith("console-40k/lexicon/#T")]
    assert lexicon and lexicon[0].get("boost", 1) > 1


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def test_comparison_is_one_chart_on_one_scale_with_a_table_that_reads(page: Page, site_url: str,
                                                                    errors: list[str]) -> None:
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + "comparison/")
    charts = page.locator("article figure.ws-compare-chart svg")
    assert charts.count() == 1
    svg = charts.first
    expect(svg).to_be_visible()
    assert svg.get_attribute("viewBox")  # kept by the sanitiser: the chart scales with the page
    assert page.locator("article svg").count() == 1
    n = len(rulesets())
    assert svg.locator("text.ws-legend").count() == n
    series = {c for i in range(svg.locator("rect.ws-cbar").count())
              for c in (svg.locator("rect.ws-cbar").nth(i).get_attribute("class") or "").split()
              if c.startswith("ws-series-")}
    assert len(series) == n
    ticks = [t.strip() for t in svg.locator("text.ws-tick").all_text_contents()]
    values = [float(t.rstrip("%")) for t in ticks]
    assert values[0] == 0 and len(values) >= 3
    step = values[1] - values[0]
    assert step in (1, 2, 5, 10, 20, 25)
    assert all(abs(v - i * step) < 1e-9 for i, v in enumerate(values)), ticks
    # no two labels overlap
    boxes = [b for b in (svg.locator("text").nth(i).bounding_box() for i in range(svg.locator("text").count()))
             if b is not None]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            apart = (a["x"] + a["width"] <= b["x"] + 0.5 or b["x"] + b["width"] <= a["x"] + 0.5
                     or a["y"] + a["height"] <= b["y"] + 0.5 or b["y"] + b["height"] <= a["y"] + 0.5)
            assert apart, (a, b)
    # the table: means to two decimals, one line each
    table = page.locator("article .ws-compare table").first
    rows = table.locator("tbody tr")
    assert rows.count() == n
    lines = "e => { const r = document.createRange(); r.selectNodeContents(e); " \
            "return new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))).size }"
    for i in range(n):
        mean = rows.nth(i).locator("td").nth(1)
        assert re.fullmatch(r"\d+\.\d\d", mean.inner_text().strip())
        assert mean.evaluate(lines) == 1
    # on a phone the whole chart shrinks to the screen's width, its legend with it
    page.set_viewport_size({"width": 390, "height": 844})
    box, legend = svg.bounding_box(), svg.locator("text.ws-legend").last.bounding_box()
    assert box is not None and legend is not None and box["x"] + box["width"] <= 390
    assert legend["x"] + legend["width"] <= box["x"] + box["width"]
    assert not errors


# ---------------------------------------------------------------------------
# Every link of the site leads somewhere
# ---------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if found.get("name"):
            self.ids.add(str(found["name"]))
        if tag in ("a", "link") and found.get("href"):
            self.hrefs.append(str(found["href"]))


def test_a_crawl_of_the_site_finds_no_broken_link(built_site: Path) -> None:
    pages: dict[str, _Links] = {}
    for html_file in sorted(built_site.rglob("*.html")):
        parsed = _Links()
        parsed.feed(html_file.read_text(encoding="utf-8"))
        pages[html_file.relative_to(built_site).as_posix()] = parsed
    assert len(pages) > 50
    broken: list[str] = []
    checked = 0
    for where, parsed in pages.items():
        base = "http://site/" + where
        for href in parsed.hrefs:
            url = urlparse(urljoin(base, href))
            if url.scheme in ("mailto",) or url.netloc not in ("site", ""):
                continue
            path = unquote(url.path.lstrip("/"))
            target = built_site / path
            if target.is_dir() or path.endswith("/") or path == "":
                path = (path.rstrip("/") + "/index.html").lstrip("/")
                target = built_site / path
            checked += 1
            if not target.is_file():
                broken.append(f"{where}: {href} (no {path})")
            elif url.fragment and path.endswith(".html") and unquote(url.fragment) not in pages[path].ids:
                broken.append(f"{where}: {href} (no #{url.fragment} in {path})")
    assert checked > 1000
    assert not broken, broken[:20]
