"""The search view of a page: the theme's search parser makes the same sections of it as of the page."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler.site.searchview import search_view

Parser = pytest.importorskip("material.plugins.search.plugin").Parser


def sections(html: str) -> list[tuple[object, ...]]:
    """What mkdocs-material's search makes of some HTML: each section's heading, id, title and text."""
    p = Parser()
    try:
        p.feed(html)
        p.close()
    except ValueError as err:  # the parser fails on some nestings (a skipped <p> in a <p>): so must the view
        return [("fails", str(err))]
    return [(s.el.tag, s.id, s.title, s.text, s.depth, s.is_excluded()) for s in p.data]


def same(html: str) -> str | None:
    view = search_view(html)
    if view is not None:
        assert sections(view) == sections(html), (html, view)
        assert len(view) < len(html)
    return view


SKIP = ' data-search-exclude'


@pytest.mark.parametrize("html, emptied", [
    ('<h1 id="a">A</h1><p>Odds</p><table' + SKIP + '><tr><td>4+</td></tr></table><p>after</p>', True),
    ('<pre' + SKIP + '><code>x &lt; y</code></pre><pre' + SKIP + '><code>z</code></pre>', True),
    ('<figure' + SKIP + '><svg><rect width="3"/><title>t</title></svg></figure><p>t</p>', True),
    ('<div class="linenodiv"><pre>1</pre></div><pre' + SKIP + '><code>z</code></pre>', True),
    ('<table DATA-SEARCH-EXCLUDE><tr><td>x</td></tr></table><pre' + SKIP + '>z</pre>', True),
    ('<div class="LINENODIV"><pre' + SKIP + '><div>x</div></pre></div><p>z</p>', True),  # not skipped: any case
    # left whole: the parser would behave differently inside
    ('<details' + SKIP + '><summary>s</summary><h3 id="x">X</h3><p>t</p></details><p>after</p>', False),
    ('<table' + SKIP + '><tr><td><table><tr><td>x</td></tr></table>y</td></tr></table><p>z</p>', False),
    ('<div class="linenodiv"><pre' + SKIP + '><div>x</div></pre></div><p>z</p>', False),
    ('<table' + SKIP + '><tr><td>x</td></tr></table><!-- a comment --><p>z</p>', False),
    ('<table' + SKIP + '><tr><td>x<p>open</td></tr></table><p>z</p>', False),
    ('<table' + SKIP + '><tr><td>1 < 2</td></tr></table>', False),
    ('<table' + SKIP + '><tr><td><script>var a = "<b>";</script></td></tr></table>', False),
    ('<p>no block to skip</p>', False),
])
def test_blocks_are_emptied_only_where_the_sections_stay_the_same(html: str, emptied: bool) -> None:
    assert (same(html) is not None) is emptied


# Weighted by repetition: mostly plain nested HTML, now and then what makes a page be left whole.
TAGS = ["div", "p", "table", "tr", "td", "pre", "code", "details", "summary", "span", "h2", "h3", "figure", "svg",
        "li", "ul", "a", "br", "img"] * 3 + ["script"]
ATTRS = ["", "", SKIP, SKIP, SKIP, ' id="s1"', ' id="s2"', ' class="linenodiv"', ' class="headerlink"',
         ' data-search-exclude=""']


@st.composite
def fragments(draw: st.DrawFn, depth: int = 0) -> str:
    out = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["text"] * 6 + ["element"] * 13 + ["stray"] if depth < 4 else ["text"]))
        if kind == "text":
            out.append(draw(st.sampled_from(["word", "word", "other", " ", "\n", "a &amp; b"] * 4
                                            + ["x < y", "<!-- c -->"])))
        elif kind == "stray":
            out.append(draw(st.sampled_from(["</p>", "</td>", "<br/>", "<p>", "</div>"])))
        else:
            tag = draw(st.sampled_from(TAGS))
            inner = draw(fragments(depth + 1))
            close = "" if tag in ("br", "img") else f"</{tag}>"
            self_closing = draw(st.booleans()) and not inner
            out.append(f"<{tag}{draw(st.sampled_from(ATTRS))}/>" if self_closing
                       else f"<{tag}{draw(st.sampled_from(ATTRS))}>{inner}{close}")
    return "".join(out)


@settings(max_examples=600)
@given(fragments())
def test_the_search_view_of_any_html_gives_the_same_sections(html: str) -> None:
    same(html)
