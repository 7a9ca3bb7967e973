"""Generated HTML that Markdown passes on as it is: charts and the tables of numbers behind them.

A page's charts (SVG) and the long tables of numbers under them are generated HTML, not
prose; run through Markdown they cost most of a page's conversion (every cell of a Markdown
table is parsed for emphasis, links and code; every tag of a chart is parsed again by the
raw-HTML reader).  The templates put such a block between two marker lines::

    <!--ws-raw-->
    <table>…</table>
    <!--/ws-raw-->

and this Markdown extension keeps the block in Markdown's own store of raw HTML (its
``htmlStash``, which is how Markdown keeps any raw HTML block) before any other reading, so
it comes out unchanged where it stood — inside a folded block or a ``markdown`` div too.
A piece of a line between ``<!--ws:-->`` and ``<!--:ws-->`` (a cell of a heat-map table:
a coloured span with its exact fraction) is kept the same way, in its place in the line.
The page's HTML is still cleaned by the allow-list afterwards (:mod:`compiler.site.sanitise`).

>>> import markdown
>>> md = markdown.Markdown(extensions=[RawBlocks()])
>>> md.convert("Before.\\n\\n<!--ws-raw-->\\n<p>*kept*</p>\\n<!--/ws-raw-->\\n\\nAfter *this*.")
'<p>Before.</p>\\n<p>*kept*</p>\\n<p>After <em>this</em>.</p>'
>>> md.convert("A <!--ws:--><b>*kept*</b><!--:ws--> and *this*.")
'<p>A <b>*kept*</b> and <em>this</em>.</p>'
"""
from __future__ import annotations

import re

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

OPEN, CLOSE = "<!--ws-raw-->", "<!--/ws-raw-->"
INLINE_OPEN, INLINE_CLOSE = "<!--ws:-->", "<!--:ws-->"
_INLINE = re.compile(re.escape(INLINE_OPEN) + "(.*?)" + re.escape(INLINE_CLOSE))


class _Stash(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        if not any(OPEN in line or INLINE_OPEN in line for line in lines):
            return lines
        out: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.strip() != OPEN:
                if INLINE_OPEN in line:
                    line = _INLINE.sub(lambda m: self.md.htmlStash.store(m.group(1)), line)
                out.append(line)
                i += 1
                continue
            indent = line[:len(line) - len(line.lstrip())]
            end = i + 1
            while end < len(lines) and lines[end].strip() != CLOSE:
                end += 1
            if end == len(lines):  # never closed: left to Markdown as it is
                out.append(line)
                i += 1
                continue
            block = "\n".join(x[len(indent):] if x.startswith(indent) else x.lstrip() for x in lines[i + 1:end])
            out.extend(["", indent + self.md.htmlStash.store(block), ""])
            i = end + 1
        return out


class RawBlocks(Extension):
    """Keep each marked block of generated HTML as it is (see the module's text)."""

    def extendMarkdown(self, md: Markdown) -> None:
        # before MkDocs' reader of raw HTML (21) and Markdown's own (20)
        md.preprocessors.register(_Stash(md), "warscribe_raw_blocks", 25)
