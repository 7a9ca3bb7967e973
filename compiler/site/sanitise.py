"""The last line of defence: the HTML of every generated page, cleaned by an allow-list.

:mod:`compiler.site.markup` turns author text into Markdown that should render as
text; this module makes sure that whatever Markdown makes of it, nothing on a
generated page can run.  After MkDocs has rendered a page, :func:`clean` passes its
HTML through `nh3 <https://nh3.readthedocs.io>`_ (the Rust sanitiser *ammonia*, which
parses HTML as a browser does): only the elements and attributes the renderer and
the Markdown extensions produce survive, ``style`` keeps only ``text-align`` and the
heat-map's ``--ws-p``, and a link or image keeps its URL only when it is relative or
``http``/``https``/``mailto`` — decided after entities are decoded and whitespace is
dropped, so ``jav&#x61;script:`` and ``java\\nscript:`` are refused like
``javascript:``.  Scripts, event handlers, ``iframe``/``object``/``form`` and
unknown elements are dropped, their text kept where it is harmless.  A ``title``
attribute keeps its text, made :func:`~compiler.site.markup.inert`: the theme's tooltips
(mkdocs-material's ``content.tooltips``) build the tooltip from it as HTML.

>>> clean('<p onclick="alert(1)">Hi <a href="jav&#x61;script:alert(2)">x</a><script>alert(3)</script></p>')
'<p>Hi <a>x</a></p>'
>>> clean('<table><tr><td style="text-align: left; position: fixed">1</td></tr></table>')
'<table><tbody><tr><td style="text-align:left">1</td></tr></tbody></table>'
"""
from __future__ import annotations

import html

import nh3
from markupsafe import Markup

from compiler.site.markup import inert

__all__ = ["TAGS", "ATTRIBUTES", "URL_SCHEMES", "clean", "safe_title"]

#: Elements a generated page may hold: what Python-Markdown, its extensions (tables,
#: admonition, abbr, details, superfences/highlight, toc) and the renderer's charts write.
TAGS = frozenset({
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd",
    "del", "details", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s",
    "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "u", "ul",
    # the renderer's inline SVG charts
    "svg", "rect", "line", "text", "title", "circle", "polyline", "polygon",
})

#: Attributes per element ("*": on every element).  No event handler, no ``srcset``, no ``formaction``.
ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "dir"},
    "a": {"href", "name"},
    "abbr": set(),
    "details": {"open"},
    "img": {"src", "alt", "width", "height", "loading"},
    "ol": {"start", "type"},
    "td": {"style", "colspan", "rowspan"},
    "th": {"style", "colspan", "rowspan", "scope"},
    "span": {"style"},
    "svg": {"aria-label", "height", "role", "viewBox", "viewbox", "width", "xmlns"},  # nh3 matches case: viewBox
    "rect": {"x", "y", "width", "height"},
    "line": {"x1", "x2", "y1", "y2"},
    "text": {"x", "y", "text-anchor"},
    "circle": {"cx", "cy", "r"},  # geometry only: numbers, never a URL or a script
    "polyline": {"points"},
    "polygon": {"points"},
}

#: Schemes a link or an image may use; relative URLs (``../lexicon/#bs``) are always allowed.
URL_SCHEMES = frozenset({"http", "https", "mailto"})

_STYLES = frozenset({"text-align", "--ws-p"})


def clean(page_html: str) -> str:
    """``page_html`` with everything outside the allow-list removed (text kept, markup dropped)."""
    return nh3.clean(page_html, tags=set(TAGS), attributes={k: set(v) for k, v in ATTRIBUTES.items()},
                     url_schemes=set(URL_SCHEMES), link_rel=None, strip_comments=True,
                     clean_content_tags={"script", "style"}, filter_style_properties=set(_STYLES),
                     attribute_filter=_inert_title)


def _inert_title(element: str, attribute: str, value: str) -> str:
    """A ``title`` read as HTML (a tooltip built with ``innerHTML``) is still its text.

    >>> clean('<a href="#x" title="&lt;img src=x onerror=alert(1)&gt;">x</a>').replace("\u2060", "(WJ)")
    '<a href="#x" title="&lt;(WJ)img src=x onerror=alert(1)&gt;">x</a>'
    """
    return inert(value) if attribute == "title" else value


def safe_title(title: str) -> str:
    """A page title (HTML, as MkDocs reads it from the first heading) as escaped text, fit to be
    printed raw by a theme in ``<title>`` or the navigation, where ``striptags`` would un-escape it.

    Its text is :func:`~compiler.site.markup.inert`: the theme shows a truncated title in a
    tooltip built as HTML from the entry's text.

    >>> title = safe_title('Section &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; <a href="#s">¶</a>')
    >>> title.replace("\u2060", "(WJ)")
    'Section &lt;(WJ)/title&gt;&lt;(WJ)script&gt;alert(1)&lt;(WJ)/script&gt; ¶'
    """
    return html.escape(inert(Markup(title).striptags()), quote=True)
