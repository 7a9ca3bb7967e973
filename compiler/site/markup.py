"""Author text made safe for Markdown pages.

Two kinds of author text reach a page:

* **plain text** (titles, one-line definitions, names): shown exactly as
  written.  :func:`plain` turns every character that Markdown, attr_list or
  HTML would read as markup into a character reference, so ``<script>`` shows
  as text, ``*bold*`` shows its stars and ``{ onclick=… }`` stays words.
* **prose** (Markdown the author writes between triple quotes): rendered as
  Markdown, but :func:`prose` neutralises what could run code or change the
  page around it — raw HTML (``<`` outside code), attribute lists
  (``{ … }``), links to ``javascript:``/``data:``/``vbscript:`` URLs, and
  attributes on code fences — and turns ``[[id]]`` / ``[[id|words]]`` into
  links to the definition, with its one-line meaning as the link's title
  (shown as a tooltip by mkdocs-material's ``content.tooltips``).

Neither function ever treats author text as a template: ``{{ x }}`` stays
literal (it is output, never parsed by Jinja).

Author text must also stay text when a script reads it back and writes it as HTML, as
mkdocs-material does with a tooltip (it builds the tooltip of a ``title`` attribute, and of a
truncated navigation or contents entry from its text, with ``innerHTML``).  So a ``<`` that
an HTML reader would take for the start of a tag is followed by a word joiner (U+2060, which
shows as nothing): ``<\u2060img …>`` reads as text both in the page and in any tooltip made
from it, with the same letters on screen (:func:`inert`).

>>> plain("<script>alert(1)</script> *x*").replace(WORD_JOINER, "(WJ)")
'&lt;(WJ)script&gt;alert(1)&lt;(WJ)/script&gt; &#42;x&#42;'
>>> prose("Roll `a < b` <b>here</b>", lambda ref, text: text).replace(WORD_JOINER, "(WJ)")
'Roll `a < b` &lt;(WJ)b>here&lt;(WJ)/b>'
"""
from __future__ import annotations

import html
import re
from typing import Any, Callable

from compiler.syntax.prose import PROSE_REF as PROSE_REF  # one pattern for checker, site and editor

_PLAIN = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
    "\\": "&#92;", "`": "&#96;", "*": "&#42;", "_": "&#95;",
    "[": "&#91;", "]": "&#93;", "{": "&#123;", "}": "&#125;",
    "|": "&#124;", "#": "&#35;", "~": "&#126;", "^": "&#94;",
}
_PLAIN_RE = re.compile("[" + re.escape("".join(_PLAIN)) + "]")

#: The invisible character that keeps a ``<`` from opening a tag (U+2060 WORD JOINER).
WORD_JOINER = "\u2060"
# A `<` an HTML reader takes for markup: a tag, an end tag, a comment or a declaration.
_TAG_START = re.compile(r"<(?=[A-Za-z!/?])")
# `<` written as a character reference, in any of the forms HTML and Markdown decode.
_LT_REFERENCE = re.compile(r"&(?:lt|LT|#0*60|#[xX]0*3[cC]);")

# Link targets a reader's browser would execute or inline.
_BAD_SCHEME = re.compile(r"^<?(?:javascript|vbscript|data|file):", re.IGNORECASE)
_INLINE_LINK = re.compile(r"\]\(\s*(<[^>]*>?|[^)\s]*)")
# An image: `![` and, when it is an inline image, its URL (a reference image has none here).
_IMAGE = re.compile(r"!(?=\[)(?:\[(?:[^\[\]\n]|\[[^\]\n]*\])*\]\(\s*(<[^>]*>?|[^)\s]*))?")
# A URL that leaves the site: a scheme, or `//host` (browsers read `\\` as `/` there).
_REMOTE = re.compile(r"^<?(?:[A-Za-z][A-Za-z0-9+.-]*:|[/\\]{2})")
# A reference definition, also inside block quotes and list items (``> [x]: url``, ``- [x]: url``).
_REF_DEF = re.compile(r"^((?:[ \t]*(?:>|[-*+]|\d+[.)]))*[ \t]*\[[^\]]+\]:\s*)(\S+)", re.MULTILINE)
# A fence opens at most three spaces in (deeper, Markdown may read it as an indented line, so
# its contents are neutralised like any other text).
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_INVISIBLE = re.compile(r"[\x00-\x20\x7f\u00ad\u200b-\u200f\u2028\u2029\u2060\ufeff]+")
_SAFE_LANG = re.compile(r"[A-Za-z0-9_+.-]*")


def inert(text: str) -> str:
    """``text`` with a word joiner after each ``<`` that could open a tag: the same text on
    screen, and text still when a script writes it back as HTML (a tooltip, a copied entry).

    >>> inert("a < b <img src=x>") == "a < b <\u2060img src=x>"
    True
    """
    return _TAG_START.sub("<" + WORD_JOINER, text)


def plain(text: str | None) -> str:
    """Plain author text as Markdown that renders exactly that text (one line)."""
    if not text:
        return ""
    text = inert(" ".join(text.split()))
    return _PLAIN_RE.sub(lambda m: _PLAIN[m.group(0)], text)


def attribute(text: str | None) -> str:
    """Plain text for a Markdown link title ``"…"`` (also safe inside a table cell): a theme
    that shows the title as a tooltip built as HTML shows this text (see :func:`inert`)."""
    return plain(text)


Linker = Callable[[str, str | None], str]


def prose(text: str | None, link: Linker) -> str:
    """Author Markdown made safe, with ``[[id]]`` links made by ``link(id, words)``.

    ``link`` returns finished Markdown for one reference (it escapes its own
    words).  Code spans and fenced code blocks are left as they are: Markdown
    escapes their contents itself.
    """
    if not text:
        return ""
    result: list[str] = []
    run: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence is None:
            if not m:
                run.append(line)
                continue
            if run:
                result.append(_text_run("\n".join(run), link))
                run = []
            fence = m.group(2)
            safe = _SAFE_LANG.match(m.group(3).strip().lstrip("{. "))  # always matches (it may be empty)
            lang = safe.group(0) if safe else ""
            result.append(f"{m.group(1)}{fence}{lang}")
        else:
            result.append(line)
            mark = m.group(2) if m else ""
            if m and mark[0] == fence[0] and len(mark) >= len(fence) and not m.group(3).strip():
                fence = None
    if run:
        result.append(_text_run("\n".join(run), link))
    if fence is not None:
        result.append(fence)  # an unclosed fence ends with the prose, not in the next declaration
    return "\n".join(result)


# A code span as Python-Markdown reads it: a run of backticks not escaped by a backslash, up to
# the same run, inside one paragraph (the text is split at blank lines first).
_CODE_SPAN = re.compile(r"(?<!\\)((?:\\\\)*)(`+)(.+?)(?<!`)\2(?!`)", re.DOTALL)
_BLANK_LINE = re.compile(r"(\n[ \t]*\n)")


def _text_run(text: str, link: Linker) -> str:
    """Rewrite text outside fences: code spans kept, the rest neutralised."""
    pieces: list[str] = []
    for block in _BLANK_LINE.split(text):
        pos = 0
        for m in _CODE_SPAN.finditer(block):
            start = m.start(2)
            pieces.append(_neutralise(block[pos:start], link))
            pieces.append(block[start:m.end()])
            pos = m.end()
        pieces.append(_neutralise(block[pos:], link))
    return "".join(pieces)


# A backslash escape of ASCII punctuation, which CommonMark reads as the character itself
# (``javascript\\:`` is ``javascript:`` there, though not in Python-Markdown).
_BACKSLASH_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _bad_url(url: str) -> bool:
    r"""Would a browser read ``url`` as a script or data URL once a Markdown reader has undone
    its backslash escapes and entities (invisible characters dropped)?

    >>> _bad_url("javascript\\:alert(1)"), _bad_url("jav&#x61;script:x"), _bad_url("java\tscript:x")
    (True, True, True)
    >>> _bad_url("../lexicon/#bs")
    False
    """
    url = _BACKSLASH_ESCAPE.sub(r"\1", url)
    return bool(_BAD_SCHEME.match(_INVISIBLE.sub("", html.unescape(url))))


def _local_image(m: re.Match[str]) -> str:
    """An image is shown only from the site itself: any other (a remote URL, a reference
    image) becomes a link to it, so that a page never asks another host for anything.

    >>> prose("![map](img/map.png) ![pixel](https://tracker.invalid/p.gif) ![r][ref]", lambda r, w: r)
    '![map](img/map.png) &#33;[pixel](https://tracker.invalid/p.gif) &#33;[r][ref]'
    """
    url = m.group(1)
    if url is not None and not _REMOTE.match(_INVISIBLE.sub("", html.unescape(_BACKSLASH_ESCAPE.sub(r"\1", url)))):
        return m.group(0)
    return "&#33;" + m.group(0)[1:]


def _neutralise(text: str, link: Linker) -> str:
    links: list[str] = []

    def keep(m: re.Match[str]) -> str:
        links.append(link(m.group(1).strip(), m.group(2)))
        return f"\x00{len(links) - 1}\x00"

    text = PROSE_REF.sub(keep, text)
    text = _LT_REFERENCE.sub("&lt;" + WORD_JOINER, text)  # `&lt;img…` in a heading or a link title, too
    text = inert(text).replace("<", "&lt;").replace("{", "&#123;").replace("}", "&#125;")
    text = _IMAGE.sub(_local_image, text)
    text = _INLINE_LINK.sub(lambda m: "](#" if _bad_url(m.group(1)) else m.group(0), text)
    text = _REF_DEF.sub(lambda m: m.group(1) + ("#" if _bad_url(m.group(2)) else m.group(2)), text)
    return re.sub("\x00(\\d+)\x00", lambda m: links[int(m.group(1))], text)


def strip_links(text: str | None, title_of: Callable[[str], str]) -> str:
    """One-line text with ``[[id|words]]`` reduced to its words (for tooltips and summaries)."""
    if not text:
        return ""
    return PROSE_REF.sub(lambda m: (m.group(2) if m.group(2) is not None else title_of(m.group(1).strip())), text)


def nav_html(item: Any) -> Any:
    """A navigation in MkDocs' shape (``{"Title": "page.md" | [...]}``…) with each title as
    escaped, :func:`inert` HTML text: MkDocs themes print a navigation title as it is, and
    mkdocs-material shows a truncated one in a tooltip built as HTML from its text.

    >>> nav_html([{"A <b>": "a.md"}, {"B & c": [{"<img src=x>": "b.md"}]}])[1]["B &amp; c"][0]
    {'&lt;\\u2060img src=x&gt;': 'b.md'}
    """
    if isinstance(item, dict):
        return {html.escape(inert(str(k)), quote=False): nav_html(v) for k, v in item.items()}
    if isinstance(item, (list, tuple)):
        return [nav_html(i) for i in item]
    return item
