"""A hostile text corpus in every place author text lands, asserted in the built HTML.

Names, titles, prose, one-line definitions, table cells, notes and datasheets
carry HTML, Jinja syntax, Markdown that tries to smuggle raw HTML or
``javascript:`` links, very long words, right-to-left text and emoji.  The
built site must show all of it literally and run none of it.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from test_mkdocs_plugin import mkdocs, project

LONG = "Pneumonoultramicroscopicsilicovolcanoconiosis" * 8
RTL = "שלום עולם مرحبا بالعالم"
EMOJI = "🎲💀🛡️"

CORPUS = f'''\
ruleset evil "Evil {{{{ 7*7 }}}} {{% if true %}}x{{% endif %}} <b>bold</b>":
  version 1.0.0
  summary: "<iframe src=javascript:alert(1)></iframe> {RTL} {EMOJI}"

stat BS "Ballistic <svg onload=alert(2)>" 1..10: "Aim {{{{ config }}}} <script>alert(3)</script> {LONG}"
keyword infantry "Infantry {EMOJI}": "{RTL} <a href='javascript:alert(4)'>x</a>"
situation cover "Cover" one of open, soft

section s "Section {{% include 'x' %}} <script>alert(5)</script>":
  """
  Prose: <script>alert(6)</script> <img src=x onerror=alert(7)> {{{{ 7*7 }}}}
  [click](javascript:alert(8)) [data](data:text/html,<script>alert(9)</script>)
  <div markdown="1" onclick="alert(10)">raw block</div>
  {LONG} {RTL} {EMOJI} [[BS|the <u>skill</u>]]
  """

  table odd(roll: 1..2) "Table {{{{ 6*7 }}}} <script>alert(11)</script>":
    1 -> "<script>alert(12)</script> {EMOJI}"
    2 -> "{RTL} {{{{ 5*5 }}}} {LONG}"

  test hit(BS) = roll d6 >= BS

  assumption a1 "Note <script>alert(13)</script> {EMOJI}":
    """Assumed {{% raw %}} <img src=x onerror=alert(14)> {RTL}"""

  open question q1 "Question {{{{ 8*8 }}}}?": "<script>alert(15)</script> {LONG}"

unit thing "<script>alert(16)</script> {RTL} {EMOJI}":
  BS 4
  keywords infantry
  """Datasheet prose <img src=x onerror=alert(17)> {{{{ 9*9 }}}} {LONG}"""

example e1 "Example <script>alert(18)</script> {EMOJI}":
  expect P(hit(4)) = 1/2
'''


class Elements(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = project(tmp_path_factory.mktemp("hostile"), {"evil": CORPUS})
    result = mkdocs(root, "--strict")
    assert result.returncode == 0, result.stderr[-3000:]
    return root / "public" / "evil"


def pages(built: Path) -> list[Path]:
    found = sorted(built.rglob("*.html"))
    assert len(found) >= 6
    return found


def test_no_author_markup_becomes_an_element_or_a_script(built: Path) -> None:
    for page in pages(built):
        html = page.read_text(encoding="utf-8")
        body = html  # <title> included: the theme prints it raw after `striptags`
        title = re.search(r"<title>(.*?)</title>", html, flags=re.S)
        assert title is not None and "<" not in title.group(1), (page, title)
        assert "alert(" not in "".join(re.findall(r"<script[^>]*>(.*?)</script>", body, flags=re.S)), page
        for tag, attrs in Elements(body).found:
            if tag in ("iframe", "svg", "u", "b") and "alert" in str(attrs):
                pytest.fail(f"{page}: author markup became <{tag}>")
            for key, value in attrs.items():
                assert not (key.startswith("on") and "alert" in value), (page, tag, attrs)
                if key in ("href", "src"):
                    assert not value.strip().lower().startswith(("javascript:", "data:")), (page, tag, attrs)


def test_templates_in_author_text_stay_literal(built: Path) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages(built))
    for computed in (">49<", " 49 ", ">42<", ">64<", ">81<", ">25<"):
        assert computed not in text
    assert "{{ 7*7 }}" in text or "{{ 7*7 }}" in text.replace("&#123;", "{").replace("&#125;", "}")


def test_long_words_rtl_text_and_emoji_arrive_whole(built: Path) -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages(built))
    assert LONG in text
    assert RTL in text
    assert EMOJI in text


def test_hostile_text_is_shown_as_text(built: Path) -> None:
    def text(page: str) -> str:  # a word joiner follows each `<` that could open a tag (markup.inert)
        return (built / page / "index.html").read_text(encoding="utf-8").replace("&lt;\u2060", "&lt;")
    assert "&lt;script&gt;alert(16)&lt;/script&gt;" in text("datasheets")
    assert "&lt;script&gt;alert(12)&lt;/script&gt;" in text("quick-reference")
    assert "&lt;script&gt;alert(13)&lt;/script&gt;" in text("notes")
