"""Author text never runs in a reader's browser: a hostile corpus built into a site and opened in Chromium.

The corpus carries every vector we know of — an escaped backtick before HTML, a code span across a
blank line, an unclosed fence, a fence indented in a list item, a section title closing ``<title>``,
an overlay's title with an attribute list, ``javascript:`` links hidden by entities, spaces,
newlines, block quotes and list items — and the earlier corpus of test_hostile_site.  Every page of
the strict build is checked in its HTML (no event handler, no script from author text, no
``javascript:`` URL, a ``<title>`` with no markup) and opened in Chromium, where every link,
abbreviation, title and navigation entry is hovered (all of them by the events the theme listens
to, a representative of each kind and every distinct title with the real pointer): no dialog may
open, no event-handler attribute may ever appear in the page (also for a moment, in a tooltip), no
request may leave 127.0.0.1, and no tooltip may be built from text that parses as HTML.  The same
rules are rendered by ``warscribe render`` and built by a plain MkDocs (the project's theme and
Markdown extensions, no warscribe plugin, so no HTML cleaning), and hovered the same way.
A derandomised hypothesis test throws generated Markdown constructs and encodings at the rendering path.
"""
from __future__ import annotations

import functools
import http.server
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Iterator

import yaml

import markdown
import pytest
from markdown_it import MarkdownIt
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.site import sanitise
from compiler.site.markup import WORD_JOINER, plain, prose
from browser_site import ROOT, WATCH_HANDLERS, Audit, hover_site
from test_hostile_site import CORPUS, Elements
from test_mkdocs_plugin import ENV, mkdocs, project
from test_site_browser import CHROMIUM, CHROMIUM_ARGS, HAVE_CHROMIUM, Page

BASE = r'''
ruleset hbase "Base ![i](x){ onerror=alert(30) } [l](javascript:alert(31))":
  version 1.0.0
  summary: "\\`<img src=x onerror=alert(32)>`"

stat WS "Weapon \\`<img src=x onerror=alert(33)>`" 1..10: "\\`<img src=x onerror=alert(34)>`"

section s1 "</title><script>alert(35)</script><title>":
  """
  Escaped \`<img src=x onerror=alert(36)>` backtick.

  A `code span

  <img src=x onerror=alert(37)>

  across` a blank line.

  [a](jav&#x61;script:alert(38)) [b]( javascript:alert(39)) [c](
  javascript:alert(40))

  > [d]: javascript:alert(41)

  See [d] and [e].

  - [e]: javascript:alert(42)

  ```
  unclosed fence
  """

  test hit(WS) = roll d6 >= WS

section s2 "Next <img src=x onerror=alert(43)>":
  """
  - item

        ```
        <img src=x onerror=alert(44)>
        ```

  <img src=x onerror=alert(45)>
  """
'''

OVERLAY = r'''
ruleset hover "Overlay ![i](x){ onerror=alert(50) } <img src=x onerror=alert(51)>":
  version 1.0.0
  extends hbase 1.0.0
  summary: "\\`<img src=x onerror=alert(52)>`"

stat BS "Ballistic \\`<img src=x onerror=alert(53)>`" 1..10: "\\`<img src=x onerror=alert(54)>`"
'''


# Titles and definitions that land in title attributes and tooltips (links to the lexicon, the
# Battles and Changes tables, datasheet headers), entries long enough to be cut short in the
# navigation and the contents (the theme then builds a tooltip from their text), chart labels,
# scenario and side names, prose link titles, CommonMark escapes in links, and remote images.
CUT = "Pneumonoultramicroscopicsilicovolcanoconiosis"
BATTLE = r'''
ruleset hbattle "Battle<img/src=x/onerror=alert(60)>{cut}":
  version 1.0.0
  summary: "[s](javascript\:alert(61)) <img src=x onerror=alert(62)>"

stat BS "Ballistic <img src=x onerror=alert(63)>" 1..10: "Aim <img src=x onerror=alert(64)> &lt;img src=x onerror=alert(65)&gt;"
stat W "Wounds" 1..10 role wounds
stat Sv "Save" target: "Armour [a](javascript\:alert(66)) ![i](https://example.invalid/x.png)"
situation crowd "Crowd <img src=x onerror=alert(67)>" one of few, many

section long "Cut<img/src=x/onerror=alert(68)>{cut}":
  """
  Prose [[BS]] and [a link](https://127.0.0.1/ "<img src=x onerror=alert(69)>") and
  [b](javascript\:alert(70)) and [c](jav&#x61;script\:alert(71)) and ![img](https://example.invalid/y.png)
  and ![ref][pic].

  [pic]: //example.invalid/z.png

  ## Heading&lt;img/src=x/onerror=alert(72)&gt;{cut}

  ## Heading<img/src=x/onerror=alert(73)>{cut}
  """

  table outcome(roll: 1..2) "Outcome <img src=x onerror=alert(74)>":
    1 -> "[x](javascript:alert(75)){{ onclick=alert(76) }} <img src=x onerror=alert(77)>"
    2 -> "*b* <img src=x onerror=alert(78)>"

  test hit(BS) = roll d6 >= 7 - BS
  test save(Sv) = roll d6 >= Sv

attack shooting(shooter, target) "Shooting <img src=x onerror=alert(79)>":
  hits = shooter.models each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed = unsaved removes target, damage 1

unit marine "Marine <img src=x onerror=alert(80)>":
  BS 4  W 1  Sv 3+
  points 14
unit ork "Ork <img src=x onerror=alert(81)>":
  BS 2  W 1  Sv 6+

game skirmish "A skirmish <img src=x onerror=alert(82)>":
  turns 1
  activation whole_army
  phase fire "Fire <img src=x onerror=alert(83)>":
    action shoot "Shoot <img src=x onerror=alert(84)>": attack shooting

scenario clash "Clash <img src=x onerror=alert(85)> [c](javascript:alert(86))":
  game skirmish
  distance 20"
  side marines "Marines <img src=x onerror=alert(87)> {{ onclick=alert(88) }}":
    5 marine
  side orks "Orks [o](javascript\:alert(89)) <img src=x onerror=alert(90)>":
    10 ork

squad band "Band <img src=x onerror=alert(93)> {{ onclick=alert(94) }}":
  models marine 2..4
  points 20 + 5 per extra model

army muster "Muster <img src=x onerror=alert(95)>":
  points 100
  require squads >= 1: "Bring <img src=x onerror=alert(96)> [x](javascript:alert(97))"

example e2 "Chart <img src=x onerror=alert(91)> [l](javascript:alert(92))":
  let o = outcome(d2)
  let r = shooting(5 marine, 10 ork)
  expect mean(r.killed) > 0
'''.format(cut=CUT * 3)
RULESETS = {"evil": CORPUS, "hbase": BASE, "hover": OVERLAY, "hbattle": BATTLE}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("vectors"), RULESETS)
    config = root / "mkdocs.yml"  # the Battles page's Balance section, with the side and unit names above
    config.write_text(config.read_text(encoding="utf-8").replace(
        "      rules_dir: rules\n",
        "      rules_dir: rules\n      balance: {hbattle: {scenario: clash, vary: marine.points=10..16:3, games: 20}}\n"),
        encoding="utf-8")
    result = mkdocs(root, "--strict")
    assert result.returncode == 0, result.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def public(built: Path) -> Path:
    return built / "public"


@pytest.fixture(scope="module")
def plain_public(built: Path) -> Path:
    """The same rules through ``warscribe render`` and a plain MkDocs: the project's theme and
    Markdown extensions, its navigation from nav.yml, and no warscribe plugin (no HTML cleaning)."""
    docs = built / "rendered"
    result = subprocess.run([sys.executable, "-m", "compiler", "render", str(built / "rules"), "--out", str(docs)],
                            capture_output=True, text=True, env=ENV, cwd=built, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    ours = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    config = {"site_name": "Plain", "docs_dir": "rendered", "site_dir": "plain", "theme": ours["theme"],
              "plugins": ["search"], "markdown_extensions": ours["markdown_extensions"],
              "extra_css": ["assets/warscribe.css"],
              "nav": yaml.safe_load((docs / "nav.yml").read_text(encoding="utf-8"))["nav"]}
    (built / "plain.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(built / "plain.yml")],
                            capture_output=True, text=True, env=ENV, cwd=built, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return built / "plain"


def script_url(url: str) -> bool:
    """Would a browser run or inline ``url``?  As its URL parser reads it: leading and trailing
    controls and spaces dropped, tabs and newlines dropped anywhere (``java  script:`` is a
    harmless relative URL, ``java\\tscript:`` is ``javascript:``)."""
    url = re.sub(r"[\t\n\r]", "", url.strip("".join(map(chr, range(0x21))))).lower()
    return url.startswith(("javascript:", "data:", "vbscript:"))


def text(page: Path) -> str:
    """A page's HTML without the word joiners that keep author text inert when read back as HTML."""
    return page.read_text(encoding="utf-8").replace(WORD_JOINER, "")


def all_pages(public: Path) -> list[Path]:
    found = sorted(p for p in public.rglob("*.html") if p.name != "404.html")
    assert len(found) >= 15
    return found


def test_no_page_holds_author_script_handlers_or_script_urls(public: Path) -> None:
    for page in all_pages(public):
        text = page.read_text(encoding="utf-8")
        scripts = "".join(re.findall(r"<script[^>]*>(.*?)</script>", text, flags=re.S))
        assert "alert(" not in scripts, page
        for tag, attrs in Elements(text).found:
            for key, value in attrs.items():
                assert not (key.startswith("on") and "alert" in value), (page, tag, attrs)
                if key in ("href", "src", "action", "formaction"):
                    assert not script_url(value), (page, tag, attrs)


def test_the_title_element_holds_text_only(public: Path) -> None:
    for page in all_pages(public):
        title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), flags=re.S)
        assert title is not None, page
        assert "<" not in title.group(1), (page, title.group(1))
    s1 = (public / "hbase" / "rulebook").rglob("*.html")
    assert any("&lt;/title&gt;&lt;script&gt;alert(35)" in text(p) for p in s1)


def test_the_overlay_title_in_added_by_is_text(public: Path) -> None:
    lexicon = text(public / "hover" / "lexicon" / "index.html")
    assert "Added by Overlay" in lexicon
    assert "{ onerror=alert(50) }" in lexicon and "&lt;img src=x onerror=alert(51)&gt;" in lexicon


def test_the_balance_section_shows_author_names_as_text(public: Path) -> None:
    battles = text(public / "hbattle" / "battles" / "index.html")
    section = battles[battles.index('id="clash-balance"'):battles.index('id="clash-report"')]
    assert "<svg" in section and "<circle" in section  # the curve is there, and only its names are text
    assert re.search(r"Marine &lt;\u2060?img src=x onerror=alert\(80\)&gt;", section)
    assert re.search(r"Marines &lt;\u2060?img src=x onerror=alert\(87\)&gt;", section)
    assert "<img" not in section


def test_the_next_declaration_keeps_its_heading(public: Path) -> None:
    pages = "\n".join(text(p) for p in (public / "hbase").rglob("*.html"))
    assert re.search(r"<h[1-6][^>]*>Next &lt;img src=x onerror=alert\(43\)&gt;", pages)


@pytest.fixture(scope="module")
def site_url(public: Path) -> Iterator[str]:
    yield from serve(public)


def serve(folder: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):  # type: ignore[no-untyped-def]
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


def assert_nothing_ran(audit: Audit, pages: int) -> None:
    assert audit.dialogs == []
    assert audit.handlers == []
    assert audit.foreign == []
    assert audit.markup == []
    assert audit.pages == pages
    # Every link and entry was hovered; the pointer went over a representative of each kind,
    # every distinct title and every entry cut short; the theme's tooltips still work, and show
    # the hostile titles and entries as the text they are.
    assert audit.batch_hovers > 2000 and audit.pointer_hovers > 25, audit
    assert {"nav A", "page A"} <= set(audit.kinds) and any(k.startswith("cut ") for k in audit.kinds), audit.kinds
    shown = {t.replace(WORD_JOINER, "") for t in audit.tooltips}
    assert any("Marine <img src=x onerror=alert(80)>" in t for t in shown), shown  # a lexicon link's title
    assert any("<img/src=x/onerror=alert(6" in t for t in shown), shown  # a truncated entry


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="chromium is not installed")
def test_hovering_every_link_and_entry_of_the_site_runs_nothing(page: Page, site_url: str, public: Path) -> None:
    pages = all_pages(public)
    for path in pages:  # no link from author text runs script when followed
        for tag, attrs in Elements(path.read_text(encoding="utf-8")).found:
            assert not script_url(attrs.get("href", "")), (path, tag, attrs)
    audit = hover_site(page, site_url, [p.relative_to(public).as_posix() for p in pages], searches=("onerror",))
    assert_nothing_ran(audit, len(pages))
    assert audit.searched >= 5  # the search results, built from the hostile pages' text, were shown


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="chromium is not installed")
def test_the_army_builder_shows_author_names_and_messages_as_text(page: Page, site_url: str) -> None:
    """The builder writes titles and messages from the rules into the page as it runs: as text."""
    dialogs: list[str] = []
    page.add_init_script(WATCH_HANDLERS)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(site_url + "hbattle/army/")
    page.wait_for_selector("#ws-army[data-ready]")
    assert page.locator(".ws-army-message").all_text_contents() == [
        "Bring <img src=x onerror=alert(96)> [x](javascript:alert(97)) (squads = 0)"]
    options = page.locator("#ws-army-pick option").all_text_contents()
    assert "Band <img src=x onerror=alert(93)> { onclick=alert(94) }, 2 to 4 models, 20 points + 5 per extra model" \
        in options
    page.select_option("#ws-army-pick", "band")
    page.get_by_role("button", name="Add to the list").click()
    page.locator(".ws-army-models").fill("5")
    page.locator(".ws-army-models").press("Tab")
    page.get_by_role("button", name="Add to the list").click()
    assert "Band <img src=x onerror=alert(93)> { onclick=alert(94) } 1 has 5 models; a Band <img src=x " \
        "onerror=alert(93)> { onclick=alert(94) } has 2 to 4" in page.locator(".ws-army-message").all_text_contents()
    page.wait_for_selector(".ws-army-card")  # the band's card and its marine's, from the datasheets
    assert page.locator("#ws-army img, #ws-army [onclick], #ws-army [onerror]").count() == 0
    assert page.locator("#ws-army a[href^='javascript']").count() == 0
    page.wait_for_timeout(50)
    assert page.evaluate("() => window.__wsHandlers") == [] and dialogs == []


@pytest.fixture(scope="module")
def plain_url(plain_public: Path) -> Iterator[str]:
    yield from serve(plain_public)


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="chromium is not installed")
def test_hovering_every_link_and_entry_of_render_output_in_plain_mkdocs_runs_nothing(
        page: Page, plain_url: str, plain_public: Path) -> None:
    pages = all_pages(plain_public)
    for path in pages:
        for tag, attrs in Elements(path.read_text(encoding="utf-8")).found:
            for key, value in attrs.items():
                assert not key.startswith("on"), (path, tag, attrs)
                assert not (key in ("href", "src", "action", "formaction") and script_url(value)), (path, tag, attrs)
    audit = hover_site(page, plain_url, [p.relative_to(plain_public).as_posix() for p in pages],
                       searches=("onerror",))
    assert_nothing_ran(audit, len(pages))
    assert audit.searched >= 5


# Generated vectors: Markdown constructs that open code, links, HTML and attribute lists, in
# several encodings, strung together; the prose path must never yield a handler or a script URL.
PIECES = st.sampled_from([
    "`", "``", "\\`", "\\\\`", "\n\n", "\n", "```", "~~~", "    ", "- ", "> ", "1. ", "[x]", "[x]: ",
    "](", ")", "(", " ", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<a href=",
    "javascript:alert(1)", "jav&#x61;script:alert(1)", "java\tscript:", "&#106;avascript:", "%6Aavascript:",
    "{ onclick=alert(1) }", "{: onmouseover=alert(1) }", "![i](x)", "<svg onload=alert(1)>",
    "data:text/html,<script>alert(1)</script>", "\"", "'", "<!--", "-->", "<![CDATA[", "&lt;", "*", "_",
    "[[BS]]", "<", ">", "=", "onerror", "<div markdown=1>", "</div>", "<iframe srcdoc=", "&#x3C;",
    "javascript\\:alert(1)", "java  script:", "\\", "![i](//x.invalid/p.gif)", "<javascript:alert(1)>",
])
EXTENSIONS = ["tables", "admonition", "abbr", "attr_list", "pymdownx.details", "pymdownx.superfences"]


COMMONMARK = MarkdownIt("commonmark")  # raw HTML on, as CommonMark has it


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(PIECES, min_size=1, max_size=30).map("".join))
def test_generated_markdown_never_yields_script(text: str) -> None:
    """The Markdown made of author text, read by Python-Markdown with the site's cleaning and
    without it (``render`` output in another pipeline), and by a CommonMark reader."""
    body = prose(text, lambda ref, words: f"[{plain(words or ref)}](#{ref})") + "\n\n# " + plain(text) + "\n"
    raw = markdown.markdown(body, extensions=EXTENSIONS)
    for made in (sanitise.clean(raw), raw, COMMONMARK.render(body)):
        for tag, attrs in Elements(made).found:
            assert tag not in ("script", "iframe", "svg", "object", "embed", "style"), (text, made)
            for key, value in attrs.items():
                assert not key.startswith("on"), (text, made)
                if key in ("href", "src"):
                    url = re.sub(r"[\t\n\r]", "", value.strip("".join(map(chr, range(0x21))))).lower()
                    scheme = re.match(r"[a-z][a-z0-9+.-]*:", url)
                    assert scheme is None or scheme.group(0) in ("http:", "https:", "mailto:"), (text, made)
                    if key == "src":  # an image only from the site itself
                        assert scheme is None and not re.match(r"[/\\\\]{2}", url), (text, made)


def test_plain_text_is_inert_in_every_slot() -> None:
    hostile = "\\`<img src=x onerror=alert(1)>` ![i](x){ onerror=alert(2) } </title><script>alert(3)</script>"
    cleaned = sanitise.clean(markdown.markdown("# " + plain(hostile) + "\n\n" + plain(hostile), extensions=EXTENSIONS))
    assert Elements(cleaned).found == [("h1", {}), ("p", {})]
    assert "<" not in sanitise.safe_title(textwrap.dedent("A <b>b</b> &lt;script&gt;"))
