"""Author text never runs in a reader's browser: a hostile corpus built into a site and opened in Chromium.

The corpus carries every vector we know of — an escaped backtick before HTML, a code span across a
blank line, an unclosed fence, a fence indented in a list item, a section title closing ``<title>``,
an overlay's title with an attribute list, ``javascript:`` links hidden by entities, spaces,
newlines, block quotes and list items — and the earlier corpus of test_hostile_site.  Every page of
the strict build is checked in its HTML (no event handler, no script from author text, no
``javascript:`` URL, a ``<title>`` with no markup) and opened in Chromium, where no dialog may open.
A hypothesis test throws generated Markdown constructs and encodings at the same rendering path.
"""
from __future__ import annotations

import functools
import http.server
import re
import textwrap
import threading
from pathlib import Path
from typing import Iterator

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.site import sanitise
from compiler.site.markup import plain, prose
from test_hostile_site import CORPUS, Elements
from test_mkdocs_plugin import mkdocs, project
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


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("vectors"), {"evil": CORPUS, "hbase": BASE, "hover": OVERLAY})
    result = mkdocs(root, "--strict")
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "public"


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
                    url = re.sub(r"[\x00-\x20]", "", value).lower()
                    assert not url.startswith(("javascript:", "data:", "vbscript:")), (page, tag, attrs)


def test_the_title_element_holds_text_only(public: Path) -> None:
    for page in all_pages(public):
        title = re.search(r"<title>(.*?)</title>", page.read_text(encoding="utf-8"), flags=re.S)
        assert title is not None, page
        assert "<" not in title.group(1), (page, title.group(1))
    s1 = (public / "hbase" / "rulebook").rglob("*.html")
    assert any("&lt;/title&gt;&lt;script&gt;alert(35)" in p.read_text(encoding="utf-8") for p in s1)


def test_the_overlay_title_in_added_by_is_text(public: Path) -> None:
    lexicon = (public / "hover" / "lexicon" / "index.html").read_text(encoding="utf-8")
    assert "Added by Overlay" in lexicon
    assert "{ onerror=alert(50) }" in lexicon and "&lt;img src=x onerror=alert(51)&gt;" in lexicon


def test_the_next_declaration_keeps_its_heading(public: Path) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (public / "hbase").rglob("*.html"))
    assert re.search(r"<h[1-6][^>]*>Next &lt;img src=x onerror=alert\(43\)&gt;", text)


@pytest.fixture(scope="module")
def site_url(public: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(public))
    handler.log_message = lambda *a, **k: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):  # type: ignore[no-untyped-def]
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="chromium is not installed")
def test_no_page_opens_a_dialog_in_chromium(page: Page, site_url: str, public: Path) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(f"{page.url}: {d.message}"), d.dismiss()))
    for path in all_pages(public):
        url = site_url + path.relative_to(public).as_posix()
        page.goto(url)
        page.wait_for_load_state("load")
        for link in page.locator("a[href]").all():  # no link from author text runs script when followed
            href = (link.get_attribute("href") or "").strip().lower()
            assert not href.startswith(("javascript:", "data:", "vbscript:")), (url, href)
        handlers = page.evaluate("""() => [...document.querySelectorAll('*')].flatMap(e =>
            [...e.attributes].filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))""")
        assert handlers == [], (url, handlers)
    assert dialogs == []


# Generated vectors: Markdown constructs that open code, links, HTML and attribute lists, in
# several encodings, strung together; the prose path must never yield a handler or a script URL.
PIECES = st.sampled_from([
    "`", "``", "\\`", "\\\\`", "\n\n", "\n", "```", "~~~", "    ", "- ", "> ", "1. ", "[x]", "[x]: ",
    "](", ")", "(", " ", "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "<a href=",
    "javascript:alert(1)", "jav&#x61;script:alert(1)", "java\tscript:", "&#106;avascript:", "%6Aavascript:",
    "{ onclick=alert(1) }", "{: onmouseover=alert(1) }", "![i](x)", "<svg onload=alert(1)>",
    "data:text/html,<script>alert(1)</script>", "\"", "'", "<!--", "-->", "<![CDATA[", "&lt;", "*", "_",
    "[[BS]]", "<", ">", "=", "onerror", "<div markdown=1>", "</div>", "<iframe srcdoc=", "&#x3C;",
])
EXTENSIONS = ["tables", "admonition", "abbr", "attr_list", "pymdownx.details", "pymdownx.superfences"]


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=30).map("".join))
def test_generated_markdown_never_yields_script(text: str) -> None:
    body = prose(text, lambda ref, words: f"[{plain(words or ref)}](#{ref})") + "\n\n# " + plain(text) + "\n"
    cleaned = sanitise.clean(markdown.markdown(body, extensions=EXTENSIONS))
    for tag, attrs in Elements(cleaned).found:
        assert tag not in ("script", "iframe", "svg", "object", "embed", "style"), (text, cleaned)
        for key, value in attrs.items():
            assert not key.startswith("on"), (text, cleaned)
            if key in ("href", "src"):
                url = re.sub(r"[\x00-\x20]", "", value).lower()
                assert url.startswith(("#", "http:", "https:", "mailto:")) or ":" not in url.split("/")[0], \
                    (text, cleaned)


def test_plain_text_is_inert_in_every_slot() -> None:
    hostile = "\\`<img src=x onerror=alert(1)>` ![i](x){ onerror=alert(2) } </title><script>alert(3)</script>"
    cleaned = sanitise.clean(markdown.markdown("# " + plain(hostile) + "\n\n" + plain(hostile), extensions=EXTENSIONS))
    assert Elements(cleaned).found == [("h1", {}), ("p", {})]
    assert "<" not in sanitise.safe_title(textwrap.dedent("A <b>b</b> &lt;script&gt;"))
