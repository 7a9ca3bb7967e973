"""What the theme's search reads of a page: its HTML without the insides of the blocks it skips.

The search plugin of mkdocs-material parses each page's HTML (Python's ``HTMLParser``) and
leaves out any element marked ``data-search-exclude``; the MkDocs plugin marks a generated
page's tables, charts, folded details and code blocks so.  Those blocks are most of a
generated page's HTML, and parsing them to throw them away was about a fifth of a build.
:func:`search_view` gives the same HTML with each such block emptied (its own tags kept), so
the parser has less to read and builds exactly the same index entries.

Exactly the same, because a block is emptied only where the parser's treatment of its insides
provably changes nothing: the whole page is plain well-nested HTML (every ``<`` opens a tag
read the same way by both, start and end tags nest, no comment, script or style), and the
block holds no heading (a heading starts a section even where text is skipped) and no element
with its own tag name (the parser forgets a skipped element by its tag name).  Anything else,
and the page is left as it is (None).  Tests compare the parser's output on both.

>>> search_view('<p>Odds</p><table data-search-exclude><tr><td>4+</td></tr></table>')
'<p>Odds</p><table data-search-exclude></table>'
>>> search_view('<table data-search-exclude><tr><td><table><tr><td>x</td></tr></table></td></tr></table>') is None
True
"""
from __future__ import annotations

import re
from html import unescape as html_unescape
from html.parser import HTMLParser

__all__ = ["search_view"]

# A start tag (attributes quoted, unquoted or bare; "/>" closes it at once) or an end tag.
_TAG = re.compile(r"""<(?:(/)([a-zA-Z][a-zA-Z0-9:._-]*)\s*|([a-zA-Z][a-zA-Z0-9:._-]*)"""
                  r"""((?:\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*(/?))>""")
# Elements without an end tag, as the search plugin's parser knows them.
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
                   "track", "wbr"})
# Read as raw text (this Python's HTMLParser's list, and others' to come) or skipped for good by
# the search plugin's parser: a page holding one is left as it is.
_RAW = frozenset({"script", "style", "object", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext"}
                 | set(HTMLParser.CDATA_CONTENT_ELEMENTS) | set(getattr(HTMLParser, "RCDATA_CONTENT_ELEMENTS", ())))
_HEADING = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# The elements the parser skips: marked for it, or a code block's line numbers.
# (Attribute names are read in any case; the class value is compared as it is, like the parser.)
_SKIPPED = re.compile(r"""(?i:\sdata-search-exclude)(?=[\s=/]|$)|(?i:\sclass)\s*=\s*(["']?)linenodiv\1(?=[\s/]|$)""")


def search_view(html: str) -> str | None:
    """``html`` with the insides of its top-level ``data-search-exclude`` blocks removed, where
    that is sure to give the same search entries; None when nothing can be removed."""
    if "data-search-exclude" not in html:
        return None
    tags = list(_TAG.finditer(html))
    if len(tags) != html.count("<"):
        return None  # a comment, a stray "<", a tag written in a way not read here: parse it all
    stack: list[str] = []
    blocks: list[tuple[int, int, int]] = []  # (end of the start tag, start of the end tag, index of the end tag)
    opened: list[tuple[str, int, int]] = []  # an excluded block being read: tag, depth, position of its start tag
    names: list[set[str]] = []  # the tag names met inside it
    for i, m in enumerate(tags):
        closing, name = bool(m.group(1)), (m.group(2) or m.group(3)).lower()
        if name in _RAW:
            return None
        if closing:
            if name in _VOID or not stack or stack[-1] != name:
                return None  # not nested as written: the parser would keep elements open
            stack.pop()
            if opened and len(stack) == opened[-1][1]:
                tag, _, start = opened.pop()
                inside = names.pop()
                if tag not in inside and not inside & _HEADING and m.start() > tags[start].end():
                    blocks.append((tags[start].end(), m.start(), i))
            elif names:
                names[-1].add(name)
            continue
        if names:
            names[-1].add(name)
        if m.group(5) or name in _VOID:
            continue  # closed at once
        attrs = m.group(4) or ""
        if not opened and _SKIPPED.search(html_unescape(attrs) if "&" in attrs else attrs):
            opened.append((name, len(stack), i))
            names.append(set())
        stack.append(name)
    if stack or opened or not blocks:
        return None
    out: list[str] = []
    at = 0
    for inner_start, inner_end, _ in blocks:
        out.append(html[at:inner_start])
        at = inner_end
    out.append(html[at:])
    return "".join(out)
