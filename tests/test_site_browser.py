"""The built website in a real browser: Playwright driving Debian's chromium.

The whole bundled site is built once per session (``mkdocs build --strict``; the
``built_site`` and ``site_url`` fixtures of tests/browser_site.py, shared through conftest),
served on 127.0.0.1 from a free port, and opened in headless chromium.  Without
chromium these tests are skipped on a developer's machine, but under CI
(``CI`` set) a missing chromium is a failure: `.ci/run` installs it.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from pathlib import Path
from typing import Iterator

import pytest

from browser_site import CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, ROOT  # noqa: F401  (re-exported)

if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)

if os.environ.get("CI"):  # under CI a missing Playwright is a failure, not a skip
    from playwright.sync_api import Page, expect
else:
    expect = pytest.importorskip("playwright.sync_api").expect
    Page = pytest.importorskip("playwright.sync_api").Page

# Under pytest-xdist, `--dist loadfile` (pyproject.toml) runs this whole file on one worker:
# the site is built and chromium started once. The built site and its server (`built_site`,
# `site_url`) are session fixtures in conftest.py, shared with test_site_players.py.


# The built site (`built_site`, `site_url`) and chromium's launch arguments are conftest fixtures
# (tests/browser_site.py): every browser test file shares the one build of a session.


@pytest.fixture
def errors(page: Page) -> list[str]:
    """Uncaught exceptions and console errors of every page the test opens."""
    found: list[str] = []
    page.on("pageerror", lambda e: found.append(f"pageerror: {e}"))
    page.on("console", lambda m: found.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    return found


def ruleset_titles() -> list[tuple[str, str]]:
    from compiler.driver import compile_paths

    return sorted((rs.id, rs.title) for rs in compile_paths([str(ROOT / "rules")]).rulesets)


def test_home_page_lists_every_ruleset(page: Page, site_url: str, errors: list[str]) -> None:
    page.goto(site_url)
    table = page.locator("article table").first
    for rs_id, title in ruleset_titles():
        link = table.locator(f'a[href="{rs_id}/"]')
        expect(link).to_have_text(title)
    assert len(ruleset_titles()) >= 5
    assert not errors


def test_searching_a_lexicon_term_finds_it_and_the_click_lands_on_it(page: Page, site_url: str,
                                                                     errors: list[str]) -> None:
    page.goto(site_url)
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("Deepstrike")
    box.press("End")  # mkdocs-material searches on keyup, not on input
    result = page.locator(".md-search-result__item a[href*='nuceria-rts/lexicon/'][href$='#deepstrike']").first
    expect(result).to_be_visible()
    result.click()
    expect(page).to_have_url(re.compile(r"nuceria-rts/lexicon/(\?h=\w+)?#deepstrike$"))
    heading = page.locator("h3#deepstrike")
    expect(heading).to_have_text(re.compile("Deepstrike"))
    expect(heading).to_be_in_viewport()
    assert not errors


def test_a_term_link_in_prose_shows_its_definition_on_hover(page: Page, site_url: str, errors: list[str]) -> None:
    page.goto(site_url + "console-40k/rulebook/setup/")
    link = page.locator("article p a[href='../../lexicon/#orks']").first
    expect(link).to_be_visible()
    link.hover()
    tooltip = page.locator(".md-tooltip2")
    expect(tooltip.filter(has_text="many cheap, hard-hitting")).to_be_visible()
    assert not errors


def test_quick_reference_heat_map_renders(page: Page, site_url: str, errors: list[str]) -> None:
    page.goto(site_url + "console-40k/quick-reference/")
    wound = page.locator("table").filter(has=page.locator("a[href$='#T']")).first
    expect(wound).to_be_visible()
    sure = wound.locator(".ws-heat[title^='2+:']").first  # what the roll needs over its chance
    unlikely = wound.locator(".ws-heat[title^='6+:']").first
    expect(sure).to_have_text("2+83%")
    expect(unlikely).to_have_text("6+17%")
    expect(sure).to_be_visible()
    expect(unlikely).to_be_visible()
    colour = "e => getComputedStyle(e).backgroundColor"
    assert sure.evaluate(colour) != unlikely.evaluate(colour)
    assert sure.evaluate(colour) not in ("rgba(0, 0, 0, 0)", "transparent")
    assert not errors


def test_worked_example_chart_renders_with_a_text_alternative(page: Page, site_url: str, errors: list[str]) -> None:
    page.goto(site_url + "console-40k/examples/#marines_shoot_boyz")
    figure = page.locator("#marines_shoot_boyz ~ div.ws-charts figure.ws-figure").first
    svg = figure.locator("svg")
    expect(svg).to_be_visible()
    box = svg.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100
    assert svg.locator("rect.ws-bar").count() >= 4
    assert "Killed" in (svg.get_attribute("aria-label") or "")
    expect(figure.locator("figcaption")).to_contain_text("on average 1.39")
    expect(figure.locator("figcaption abbr")).to_have_attribute("title", "mean exactly 25/18")
    assert not errors


def test_warscribe_code_is_highlighted(page: Page, site_url: str, errors: list[str]) -> None:
    page.goto(site_url + "console-40k/rulebook/the_battle/")
    source = page.locator("details:has(div.language-warscribe)").first  # the rule as written, folded
    source.locator("summary").click()
    block = source.locator("div.language-warscribe").first
    expect(block).to_be_visible()
    keyword = block.locator("span.kd").first
    name = block.locator("span.nf, span.n").first
    colour = "e => getComputedStyle(e).color"
    assert keyword.evaluate(colour) != name.evaluate(colour)
    assert not errors


def test_battles_page_shows_outcomes_with_intervals_and_a_report_linked_to_the_rules(
        page: Page, site_url: str, errors: list[str]) -> None:
    page.goto(site_url + "console-40k/battles/")
    expect(page.locator("h2#sample_battle")).to_be_visible()
    outcome = page.locator("article table").filter(has_text="Space Marines win").first
    expect(outcome).to_contain_text("of 400")
    rows = outcome.locator("tbody tr")
    assert rows.count() == 3  # each side's wins and the draws, each with its interval
    for i in range(3):
        expect(rows.nth(i).locator("td").nth(3)).to_have_text(re.compile(r"\d.*% – .*\d.*%"))
    link = page.locator("a[href$='rulebook/the_battle/#shooting']").first
    expect(link).to_be_visible()
    link.click()
    expect(page).to_have_url(re.compile(r"console-40k/rulebook/the_battle/#shooting$"))
    page.goto(site_url + "dark-millennia/battles/")
    expect(page.locator("h3#firefight-change")).to_contain_text("Classic 40K")
    page.goto(site_url + "dark-millennia/")
    assert page.locator("nav a[href$='battles/']").count() >= 1  # the page is in the navigation
    assert not errors


@pytest.mark.parametrize("path", [
    "", "comparison/", "console-40k/", "console-40k/lexicon/", "console-40k/datasheets/",
    "gemini-arap/quick-reference/", "dark-millennia/rulebook/shooting_phase/", "40k-s/notes/",
    "nuceria-rts/examples/", "language/", "templates/", "console-40k/battles/", "classic-40k/battles/",
])
def test_pages_open_without_errors(page: Page, site_url: str, errors: list[str], path: str) -> None:
    response = page.goto(site_url + path)
    assert response is not None and response.ok
    expect(page.locator("article h1").first).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert not errors


# ---------------------------------------------------------------------------
# A versioned site (mike): the same build served under a version prefix
# ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def versioned_url(built_site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site served at /1.0.0/, as ``mike deploy 1.0.0`` publishes it (a parent folder holding it)."""
    parent = tmp_path_factory.mktemp("versions")
    (parent / "1.0.0").symlink_to(built_site, target_is_directory=True)
    (parent / "index.html").write_text('<meta http-equiv="refresh" content="0; url=1.0.0/">', encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(parent))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/1.0.0/"
    httpd.shutdown()
    httpd.server_close()


def test_the_site_works_under_a_version_prefix(page: Page, versioned_url: str, errors: list[str]) -> None:
    failed: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    # (a request the page itself cancels by going to the next page, such as the search worker's
    # script still on its way, is not a file missing under the prefix: that is a 404 above)
    page.on("requestfailed", lambda r: failed.append(f"failed {r.url}: {r.failure}")
            if r.failure != "net::ERR_ABORTED" else None)
    page.goto(versioned_url)
    for rs_id, title in ruleset_titles():
        expect(page.locator(f'article a[href="{rs_id}/"]').first).to_have_text(title)
    # a ruleset page, its stylesheet and its links stay under the prefix
    page.goto(versioned_url + "dark-millennia/house-rules/")
    expect(page.locator("article h1")).to_have_text(re.compile("^What these house rules change"))
    sheet = page.locator("link[href$='warscribe.css']")
    assert sheet.count() == 1
    page.goto(versioned_url + "dark-millennia/")
    link = page.locator("article a[href='house-rules/']").first
    link.click()
    expect(page).to_have_url(versioned_url + "dark-millennia/house-rules/")
    # search loads its index from under the prefix and lands there
    box = page.locator("input.md-search__input")
    box.click()
    box.fill("Deepstrike")
    box.press("End")
    result = page.locator(".md-search-result__item a[href*='nuceria-rts/lexicon/'][href$='#deepstrike']").first
    expect(result).to_be_visible()
    result.click()
    expect(page).to_have_url(re.compile(re.escape(versioned_url) + r"nuceria-rts/lexicon/(\?h=\w+)?#deepstrike$"))
    assert not failed, failed
    assert not errors
