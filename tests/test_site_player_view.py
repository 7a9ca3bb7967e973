"""The website as a player reads it, round 2: cards without raw Markdown, a comparison that adds
up, titles that name their ruleset, the author's material behind a toggle, a light first load,
no serious accessibility fault, tables that keep their columns on a phone, quick references that
print on one A4 page.

The cheap checks read every built HTML file directly (no browser); the others open a sample of
pages in Chromium at 1280x900 and 390x844.  The site is the session's one build (``built_site``,
``site_url`` in tests/browser_site.py).
"""
from __future__ import annotations

import functools
import gzip
import html
import html.parser
import http.server
import io
import os
import re
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

from browser_site import HAVE_CHROMIUM, ROOT

if not HAVE_CHROMIUM and not os.environ.get("CI"):
    pytest.skip("chromium is not installed (apt-get install chromium); CI=true makes this a failure",
                allow_module_level=True)

if os.environ.get("CI"):  # under CI a missing Playwright is a failure, not a skip
    from playwright.sync_api import Page, expect
else:
    Page = pytest.importorskip("playwright.sync_api").Page
    expect = pytest.importorskip("playwright.sync_api").expect

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
#: The theme's name of each colour scheme the reader's system asks for (``prefers-color-scheme``).
SCHEMES = {"light": "default", "dark": "slate"}

# A Markdown table's delimiter row (|:--|, | --- |, |:-:|) or a row of cells left as text.
RAW_TABLE = re.compile(r"\|\s*:?-{2,}:?\s*\|")


class _Text(html.parser.HTMLParser):
    """The text a page's article shows, outside code, scripts and styles; and its <title>."""

    SKIP = {"code", "pre", "script", "style", "svg", "template"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.article = 0
        self.in_title = False
        self.title = ""
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title" and not self.article and not self.depth:  # the page's, not a chart's
            self.in_title = True
        if tag == "article":
            self.article += 1
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag == "article":
            self.article -= 1
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title += data
        elif self.article and not self.depth:
            self.parts.append(data)


def read_html(path: Path) -> _Text:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def ruleset_ids() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "rules").glob("*/ruleset.rules"))


@pytest.fixture(scope="module")
def pages(built_site: Path) -> dict[str, _Text]:
    """Every built page, read once: its title and the text of its article."""
    found = {str(p.parent.relative_to(built_site)).replace(".", "") + "/": read_html(p)
             for p in sorted(built_site.rglob("index.html"))}
    assert len(found) > 100
    return found


# ---------------------------------------------------------------------------
# 1. Cards and the comparison
# ---------------------------------------------------------------------------

def test_no_raw_markdown_table_in_the_text_of_any_page(pages: dict[str, _Text]) -> None:
    raw = {path: m.group(0) for path, read in pages.items()
           for m in [RAW_TABLE.search(" ".join(read.parts))] if m}
    assert not raw, raw


def test_the_bad_pattern_is_seen_where_it_stands() -> None:
    parser = _Text()
    parser.feed("<article><p>Models: 5 to 10 | Weapon | S | |:--|:-:| <code>|:--|</code></p></article>")
    assert RAW_TABLE.search(" ".join(parser.parts))
    parser = _Text()
    parser.feed("<article><p>x</p><pre><code>| --- |</code></pre></article>")
    assert not RAW_TABLE.search(" ".join(parser.parts))


def test_a_squad_card_has_its_weapon_table_and_its_points_on_a_line_of_their_own(built_site: Path) -> None:
    page = (built_site / "console-40k" / "datasheets" / "index.html").read_text(encoding="utf-8")
    card = page[page.index('id="space_marine_squad"'):]
    card = card[:card.index('id="ork_boyz_squad"')]
    assert "<table" in card and ">Boltgun<" in card
    points = re.search(r"<strong>Points</strong>:?\s*(.*?)</", card, re.S)
    assert points is not None and points.group(1).strip() == "70 + 14 per extra model", points


def test_the_comparison_never_removes_more_orks_than_there_are(built_site: Path) -> None:
    page = (built_site / "comparison" / "index.html").read_text(encoding="utf-8")
    # the exact numbers behind the chart: one table per ruleset, its first column the Orks removed
    values = [int(v) for v in re.findall(r'<tr>\s*<td style="text-align: ?right;?">(\d+)</td>', page)]
    assert len(values) > 30 and max(values) == 10, values
    means = [float(m) for m in re.findall(r"<td[^>]*>(\d+\.\d+)</td>", page)]
    assert means and all(0 <= m <= 10 for m in means), means


def test_a_matchup_whose_answer_can_exceed_its_most_fails_the_build() -> None:
    from compiler.driver import compile_paths
    from compiler.site.compare import Matchup, MatchupError, answers

    rulesets = {rs.id: rs for rs in compile_paths([str(ROOT / "rules" / "nuceria-rts")]).rulesets}
    raw = {"id": "m", "ask": "Troopers removed", "most": 10,
           "rulesets": {"nuceria-rts": "make_attacks(10 bastion_guard, line_rifle, 10 trooper).unsaved"}}
    with pytest.raises(MatchupError, match="more than the 10"):
        answers(Matchup.from_config(raw), rulesets)
    raw["rulesets"] = {"nuceria-rts": "min(make_attacks(10 bastion_guard, line_rifle, 10 trooper).unsaved, 10)"}
    (found,) = answers(Matchup.from_config(raw), rulesets)
    assert max(v for v, _ in found.dist) == 10


# ---------------------------------------------------------------------------
# 3. Titles and navigation
# ---------------------------------------------------------------------------

def ruleset_titles() -> dict[str, str]:
    from compiler.driver import compile_paths

    return {rs.id: rs.title for rs in compile_paths([str(ROOT / "rules")]).rulesets}


@pytest.fixture(scope="module")
def titles() -> dict[str, str]:
    return ruleset_titles()


def test_every_page_title_names_its_ruleset_and_no_two_pages_share_one(pages: dict[str, _Text],
                                                                        titles: dict[str, str]) -> None:
    seen: dict[str, str] = {}
    for path, read in pages.items():
        title = " ".join(read.title.split())
        rs_id = path.split("/", 1)[0]
        if rs_id in titles:
            assert titles[rs_id] in title, (path, title)
        assert title not in seen, f"{path} and {seen.get(title)} are both titled {title!r}"
        seen[title] = path


def test_stub_chapters_are_built_but_left_out_of_the_navigation(built_site: Path) -> None:
    from compiler.driver import compile_paths
    from compiler.site.sitemap import stub_chapters

    stubs = stub_chapters(compile_paths([str(ROOT / "rules")]).rulesets)
    assert 10 <= len(stubs) <= 20, sorted(stubs)
    assert "nuceria-rts/rulebook/dice.md" not in stubs  # a short chapter of rules in prose is no stub
    for stub in stubs:
        rs_id, _, rest = stub.partition("/")
        built = built_site / rs_id / rest.removesuffix(".md") / "index.html"
        assert built.is_file(), stub  # links to it still land
        overview = (built_site / rs_id / "index.html").read_text(encoding="utf-8")
        nav = overview[overview.index('md-nav--primary'):overview.index('md-sidebar--secondary')]
        assert f'href="rulebook/{rest.removeprefix("rulebook/").removesuffix(".md")}/"' not in nav, stub


def test_the_home_page_leads_to_each_rulesets_quick_reference_datasheets_and_battles(built_site: Path) -> None:
    home = (built_site / "index.html").read_text(encoding="utf-8")
    home = home[home.index("<article"):home.index("</article>")]  # the page, not the drawer's links
    for rs_id in ruleset_ids():
        for role in ("quick-reference", "datasheets", "battles"):
            if (built_site / rs_id / role / "index.html").is_file():
                assert f'href="{rs_id}/{role}/"' in home, (rs_id, role)


def test_tabs_say_what_they_are_and_all_fit_at_1280(page: Page, site_url: str, titles: dict[str, str]) -> None:
    page.set_viewport_size(DESKTOP)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url)
    tabs = page.locator(".md-tabs__link").all_inner_texts()
    names = [" ".join(t.split()) for t in tabs]
    assert len(names) == len(set(names)) == len(titles) + 3, names
    assert "Warhammer 40,000" not in names  # the console game is not the commercial game
    fits = page.evaluate("() => { const l = document.querySelector('.md-tabs__list');"
                         " return [l.scrollWidth, l.clientWidth]; }")
    assert fits[0] <= fits[1] + 1, fits


# ---------------------------------------------------------------------------
# 2. A player's view: the author's material behind a switch
# ---------------------------------------------------------------------------

AUTHOR_BOXES = """() => [...document.querySelectorAll('article .ws-author')].map(e => e.checkVisibility())"""


def test_author_notes_are_hidden_until_the_switch_is_on_and_the_choice_is_remembered(page: Page, site_url: str) -> None:
    page.set_viewport_size(PHONE)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url + "nuceria-rts/rulebook/attacks/")
    shown = page.evaluate(AUTHOR_BOXES)
    assert len(shown) >= 3 and not any(shown), shown  # open questions, "pinned by" lines
    switch = page.locator("button.ws-author-toggle")
    assert switch.get_attribute("aria-pressed") == "false"
    switch.click()
    assert all(page.evaluate(AUTHOR_BOXES))
    assert switch.get_attribute("aria-pressed") == "true"
    page.goto(site_url + "nuceria-rts/notes/")  # another page: still on
    shown = page.evaluate(AUTHOR_BOXES)
    assert shown and all(shown)
    page.locator("button.ws-author-toggle").click()
    assert not any(page.evaluate(AUTHOR_BOXES))
    page.reload()
    assert not any(page.evaluate(AUTHOR_BOXES))


def test_open_questions_and_pins_are_author_boxes(built_site: Path) -> None:
    page = (built_site / "nuceria-rts" / "rulebook" / "attacks" / "index.html").read_text(encoding="utf-8")
    assert re.search(r'class="admonition question ws-author"', page)
    assert re.search(r'<p class="ws-author"><em>Pinned by', page)
    notes = (built_site / "console-40k" / "index.html").read_text(encoding="utf-8")
    assert 'class="ws-author"' in notes and "At a glance" in notes



# ---------------------------------------------------------------------------
# 5. Accessibility
# ---------------------------------------------------------------------------

# Every heat cell's chance (--ws-p), and its text and background as the sRGB the browser paints.
HEAT_CELLS = """() => { const g = document.createElement('canvas').getContext('2d');
  const rgb = css => { g.clearRect(0, 0, 1, 1); g.fillStyle = '#000'; g.fillStyle = css; g.fillRect(0, 0, 1, 1);
                       return Array.from(g.getImageData(0, 0, 1, 1).data).slice(0, 3); };
  return [...document.querySelectorAll('article .ws-heat')].map(e => {
    const s = getComputedStyle(e);
    return {p: parseFloat(s.getPropertyValue('--ws-p') || '0'), fg: rgb(s.color), bg: rgb(s.backgroundColor),
            text: e.textContent};
  }); }"""


def luminance(rgb: list[int]) -> float:
    lin = [c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def lightness(y: float) -> float:
    """CIE L* of a relative luminance: lightness as the eye sees it."""
    return 116 * y ** (1 / 3) - 16 if y > 216 / 24389 else y * 24389 / 27


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_heat_cells_grow_lighter_with_the_chance_and_keep_their_text_readable(page: Page, site_url: str,
                                                                             built_site: Path, scheme: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme=scheme)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url + "console-40k/quick-reference/")
    assert page.locator("body").get_attribute("data-md-color-scheme") == SCHEMES[scheme]
    cells = page.evaluate(HEAT_CELLS)
    assert len(cells) > 50
    # the text is what the renderer wrote (the colour changes nothing in it)
    built = (built_site / "console-40k" / "quick-reference" / "index.html").read_text(encoding="utf-8")
    assert sum(1 for c in cells if c["text"] == "always") == len(re.findall(r'class="ws-heat"[^>]*>always<', built))
    for c in cells:
        hi, lo = sorted((luminance(c["fg"]), luminance(c["bg"])), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, c
    # lightness alone tells the chances apart: a higher chance is never darker, and "never" and
    # "always" are far apart (colour-blind readers see lightness, not hue)
    by_p = sorted({round(c["p"], 3): lightness(luminance(c["bg"])) for c in cells}.items())
    assert all(b >= a - 0.1 for (_, a), (_, b) in zip(by_p, by_p[1:])), by_p
    assert by_p[-1][1] - by_p[0][1] >= 25, by_p  # CIE L*, 0 (black) to 100 (white)


# ---------------------------------------------------------------------------
# 4. Search for players, and a light first load
# ---------------------------------------------------------------------------

class _Compressing(http.server.SimpleHTTPRequestHandler):
    """Files as a web host serves them: gzip-compressed when the browser accepts it."""

    def log_message(self, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if "gzip" not in self.headers.get("Accept-Encoding", "") or not os.path.isfile(path):
            return super().send_head()
        data = _gzipped(path)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)


@functools.lru_cache(maxsize=None)
def _gzipped(path: str) -> bytes:
    """A file of the built site as a host sends it (the same files again for each page: once)."""
    with open(path, "rb") as f:
        return gzip.compress(f.read(), 6, mtime=0)


@pytest.fixture(scope="module")
def host_url(built_site: Path) -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Compressing, directory=str(built_site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def heaviest_pages(built_site: Path) -> list[str]:
    """The largest page of each ruleset, and the home page."""
    out = [""]
    for rs_id in ruleset_ids():
        biggest = max((built_site / rs_id).rglob("index.html"), key=lambda p: p.stat().st_size)
        out.append(str(biggest.parent.relative_to(built_site)) + "/")
    return out


def test_a_cold_page_load_stays_under_350_kb_and_leaves_the_search_index_until_search_opens(
        page: Page, host_url: str, built_site: Path) -> None:
    page.set_viewport_size(DESKTOP)
    # Cold: the browser's cache off, so that every file of each page is fetched as on a first visit.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    finished: list[Any] = []
    page.on("requestfinished", lambda r: finished.append(r))
    for path in heaviest_pages(built_site):
        finished.clear()
        page.goto(host_url + path, wait_until="networkidle")
        got = [(r.url, r.sizes()["responseBodySize"]) for r in finished]
        assert host_url + path in [url for url, _ in got], (path, got)  # the page itself, fetched again
        assert not any("search_index" in url for url, _ in got), path
        weight = sum(size for url, size in got)
        assert 50_000 < weight <= 350_000, (path, weight, sorted(got, key=lambda x: -x[1])[:5])
        if path == "":  # opening search fetches the index, and it works
            with page.expect_request_finished(lambda r: r.url.endswith("/search_index.json")):
                page.locator("input.md-search__input").click()
    cdp.detach()


def search(page: Page, url: str, query: str) -> list[str]:
    page.goto(url)
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(query)
    box.press("End")
    page.locator(".md-search-result__item").first.wait_for()
    return page.locator(".md-search-result__item").all_inner_texts()


def test_a_name_typed_as_one_word_finds_the_rule_and_units_show_their_stat_line(page: Page, site_url: str) -> None:
    page.set_viewport_size(DESKTOP)
    found = search(page, site_url + "40k-s/", "deepstrike")
    assert any(r.splitlines()[1:2] == ["Deep strike"] or "Deep strike" in r.split("\n")[:3] for r in found), found[:3]
    found = search(page, site_url + "console-40k/", "Ork Boy stat line")
    assert any("Stat line: WS 4 · BS 2 · S 3 · T 4" in r for r in found[:3]), found[:3]


def test_search_ranks_rules_above_the_lexicon_and_leaves_stubs_out(built_site: Path) -> None:
    import json

    from compiler.driver import compile_paths
    from compiler.site.searchextra import page_location
    from compiler.site.sitemap import stub_chapters

    docs = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    stubs = {page_location(p) for p in stub_chapters(compile_paths([str(ROOT / "rules")]).rulesets)}
    assert not [d["location"] for d in docs if d["location"].split("#")[0] in stubs]
    boost = {d["location"]: d.get("boost", 1.0) for d in docs}
    rule = boost["nuceria-rts/rulebook/movement/#arriving"]
    term = boost["nuceria-rts/lexicon/#deepstrike"]
    assert rule > term > boost.get("nuceria-rts/notes/#notes-deep_strike_penalty", 1.0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_colour_of_highlighted_code_reads_at_4_5_to_1(page: Page, site_url: str, scheme: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.emulate_media(color_scheme=scheme)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url + "language/")
    assert page.locator("body").get_attribute("data-md-color-scheme") == SCHEMES[scheme]
    pairs = page.evaluate("""() => { const g = document.createElement('canvas').getContext('2d');
      const rgb = css => { g.clearRect(0, 0, 1, 1); g.fillStyle = '#000'; g.fillStyle = css; g.fillRect(0, 0, 1, 1);
                           return Array.from(g.getImageData(0, 0, 1, 1).data).slice(0, 3).join(','); };
      const seen = {};  // a translucent colour is measured as painted on its background
      for (const e of document.querySelectorAll('article pre code span[class]')) {
        let under = e.parentElement, bg = 'rgba(0, 0, 0, 0)';
        while (under && /rgba\\(.*, 0\\)$|transparent/.test(bg = getComputedStyle(under).backgroundColor)) {
          under = under.parentElement;
        }
        let fg = getComputedStyle(e).color;
        const key = e.className + ' ' + fg + ' on ' + bg;
        if (!seen[key]) {
          const box = document.createElement('canvas').getContext('2d');
          box.fillStyle = bg; box.fillRect(0, 0, 1, 1); box.fillStyle = fg; box.fillRect(0, 0, 1, 1);
          seen[key] = [Array.from(box.getImageData(0, 0, 1, 1).data).slice(0, 3), rgb(bg).split(',').map(Number)];
        }
      }
      return seen; }""")
    assert len(pairs) >= 8
    for key, (fg, bg) in pairs.items():
        hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
        assert (hi + 0.05) / (lo + 0.05) >= 4.5, (key, round((hi + 0.05) / (lo + 0.05), 2))


# ---------------------------------------------------------------------------
# 6. Phone: no table loses a column
# ---------------------------------------------------------------------------

PHONE_TABLES = """() => [...document.querySelectorAll('article table')].filter(t => t.checkVisibility()).map(t => {
  const box = t.closest('.md-typeset__scrollwrap');
  const out = {head: t.rows[0].innerText.replace(/\\s+/g, ' ').slice(0, 50), box: !!box, columns: t.rows[0].cells.length};
  if (!box) { out.right = t.getBoundingClientRect().right; return out; }
  const b = box.getBoundingClientRect();
  out.boxRight = b.right; out.boxLeft = b.left;
  out.sideways = box.scrollWidth > box.clientWidth + 1;
  out.overflow = getComputedStyle(box).overflowX;
  out.focusable = box.getAttribute('tabindex') === '0';
  out.cue = getComputedStyle(box, '::before').content;
  box.scrollLeft = box.scrollWidth;  // then, scrolled to the end: the last column in view, the first held
  return out;
})"""

SCROLLED_TO_THE_END = """() => [...document.querySelectorAll('article table')].filter(t => t.checkVisibility()).map(t => {
  const box = t.closest('.md-typeset__scrollwrap');
  if (!box) { return {}; }
  const b = box.getBoundingClientRect();
  const last = t.rows[0].cells[t.rows[0].cells.length - 1].getBoundingClientRect();
  const first = t.rows[t.rows.length - 1].cells[0].getBoundingClientRect();
  return {lastIn: last.right <= b.right + 1 && last.left >= b.left - 1,
          firstIn: first.left >= b.left - 1 && first.right <= b.right + 1,
          cueAtEnd: getComputedStyle(box, '::before').content};
})"""


def test_at_390_px_every_chart_keeps_all_its_columns(page: Page, site_url: str, built_site: Path) -> None:
    page.set_viewport_size(PHONE)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    lost, seen, scrolled = [], 0, 0
    for path in [f"{rs_id}/quick-reference/" for rs_id in ruleset_ids()] + ["console-40k/datasheets/", "comparison/"]:
        page.goto(site_url + path)
        page.wait_for_timeout(100)  # the script that marks wide boxes runs once the page is ready
        tables = page.evaluate(PHONE_TABLES)
        page.wait_for_timeout(100)  # the scroll events reach the page's script
        for t, end in zip(tables, page.evaluate(SCROLLED_TO_THE_END)):
            t.update(end)
            seen += 1
            if not t["box"]:
                if t["right"] > PHONE["width"] + 1:
                    lost.append((path, t))
                continue
            if t["boxRight"] > PHONE["width"] + 1 or t["boxLeft"] < -1:
                lost.append((path, "box off screen", t))
            if t["sideways"]:
                scrolled += 1
                ok = (t["overflow"] in ("auto", "scroll") and t["focusable"] and t["lastIn"] and t["firstIn"]
                      and "More columns" in t["cue"] and t["cueAtEnd"] == "none")
                if not ok:
                    lost.append((path, t))
    assert seen > 40
    assert not lost, lost[:5]


#: A ruleset's pages that the phone's drawer lists under another ruleset's entry, in its order.
DRAWER_PAGES = ["", "quick-reference/", "datasheets/", "calculator/", "army/", "battles/"]


def test_the_phone_drawer_opens_another_ruleset_in_place_and_the_desktop_sidebar_keeps_to_its_own(
        page: Page, site_url: str, built_site: Path) -> None:
    page.set_viewport_size(PHONE)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url + "console-40k/")
    page.locator('label.md-header__button[for="__drawer"]').click()
    drawer = page.locator(".md-nav--primary")
    # the drawer opens on this ruleset's section; its title leads back to the list of rulesets
    drawer.locator(".md-nav__item--active > nav > label.md-nav__title").first.click()
    entry = drawer.locator("label.md-nav__link", has_text="40K-S beta")
    entry.click()
    assert page.url == site_url + "console-40k/"  # it opened, it did not navigate
    panel = drawer.locator(f'nav[aria-labelledby="{entry.get_attribute("id")}"]')
    links = panel.locator("a.md-nav__link")
    expected = [site_url + "40k-s/" + p for p in DRAWER_PAGES if (built_site / "40k-s" / p / "index.html").is_file()]
    assert len(expected) >= 5
    assert links.evaluate_all("as => as.map(a => a.href)") == expected
    for i in range(links.count()):
        expect(links.nth(i)).to_be_visible()
        expect(links.nth(i)).to_be_in_viewport()
    box = links.first.bounding_box()
    assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= PHONE["width"]
    links.nth(1).click()
    expect(page).to_have_url(site_url + "40k-s/quick-reference/")
    # at 1280 the sidebar holds the page's own ruleset only: no other ruleset's entry, no page twice
    page.set_viewport_size(DESKTOP)
    sidebar = page.locator(".md-sidebar--primary .md-nav__link:visible")
    expect(sidebar.first).to_be_visible()  # the page laid out again at its new width
    hrefs = [h for h in sidebar.evaluate_all("as => as.map(a => a.href)") if h]
    assert len(hrefs) >= 8 and len(set(hrefs)) == len(hrefs), hrefs
    assert all(h.startswith(site_url + "40k-s/") for h in hrefs), hrefs
    texts = [t.strip() for t in sidebar.all_inner_texts()]
    assert not {"Classic 40K", "40K console game"} & set(texts), texts


# ---------------------------------------------------------------------------
# 7. The quick reference on one sheet of A4
# ---------------------------------------------------------------------------

#: The largest rulesets may take two sheets.
SHEETS = {"40k-s": 2, "gemini-arap": 2}


def test_each_quick_reference_prints_on_one_a4_page(page: Page, site_url: str, tmp_path: Path) -> None:
    from pypdf import PdfReader

    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    pages = {}
    for rs_id in ruleset_ids():
        page.goto(site_url + f"{rs_id}/quick-reference/")
        page.emulate_media(media="print")
        # every chart is kept whole with its heading, and nothing of the charts is folded away
        kept = page.evaluate("""() => [...document.querySelectorAll('.ws-qr-chart')].map(c =>
            getComputedStyle(c).breakInside === 'avoid' && !!c.querySelector('h3')
            && (!!c.querySelector('table') || !!c.querySelector('.ws-print-only table')))""")
        assert kept and all(kept), (rs_id, kept)
        pdf = tmp_path / f"{rs_id}.pdf"
        page.pdf(path=str(pdf), format="A4")
        pages[rs_id] = len(PdfReader(str(pdf)).pages)
        page.emulate_media(media="screen")
    assert pages == {rs_id: min(pages[rs_id], SHEETS.get(rs_id, 1)) for rs_id in pages}, pages


def test_the_console_games_quick_reference_says_which_wound_chart_to_use(built_site: Path) -> None:
    page = (built_site / "console-40k" / "quick-reference" / "index.html").read_text(encoding="utf-8")
    charts = re.findall(r'<h3 id="qr-[^"]+">([^<]+)', page)
    assert sum("Wound chart" in c for c in charts) == 1, charts  # one chart per mechanic
    records = page[page.index('class="ws-records"'):]
    assert "Which chart to use" in records and "Wound chart as printed with the shooting rules" in records



# ---------------------------------------------------------------------------
# 8. Unit cards
# ---------------------------------------------------------------------------

def test_a_card_shows_its_abilities_text_and_prints_whole(page: Page, site_url: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url + "nuceria-rts/datasheets/")
    card = page.locator(".ws-card", has=page.locator("#bastion_guard"))
    assert "Invulnerable Save: The unit may use its Inv value instead of its armour save." in card.inner_text()
    page.emulate_media(media="print")
    assert card.evaluate("c => getComputedStyle(c).breakInside") == "avoid"


def test_keyword_filters_show_only_the_cards_that_carry_the_keywords(page: Page, site_url: str) -> None:
    page.set_viewport_size(PHONE)
    page.route(re.compile(r".*search_index\.json$"), lambda route: route.abort())
    page.goto(site_url + "nuceria-rts/datasheets/")
    read = """() => [...document.querySelectorAll('article .ws-card')].map(c => ({
        shown: c.checkVisibility(),
        keywords: [...c.querySelectorAll('.ws-keywords a')].map(a => a.textContent.trim())}))"""
    before = page.evaluate(read)
    assert len(before) >= 3 and all(c["shown"] for c in before)
    page.locator(".ws-filter button", has_text="Monster").click()
    after = page.evaluate(read)
    assert [c["shown"] for c in after] == ["Monster" in c["keywords"] for c in after]
    assert any(c["shown"] for c in after) and not all(c["shown"] for c in after)
    page.locator(".ws-filter button", has_text="Monster").click()
    assert all(c["shown"] for c in page.evaluate(read))
