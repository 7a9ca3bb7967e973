"""Text from a ruleset (or any file) on a terminal: shown, never obeyed.

A title, a name, a source line or a table's result may hold control characters: an escape
sequence can set the terminal's title, write to its clipboard, hide or rewrite what was printed
before it, and bidirectional controls reorder what the reader sees.  :func:`shown` writes every
such character as a ``\\uXXXX`` escape (valid in JSON too), keeping line breaks and tabs, so the
reader sees what the file holds.  Every command that prints author text (check, eval, test,
simulate, play…) goes through it.  :func:`rich_text` is the same text to put into Rich markup
(``play``): its own markup (``[bold]``, ``[link=…]``) escaped, so that it prints as written.

>>> shown("Orks\\x1b]0;pwned\\x07 \\u202eevil\\ttab\\nnext")
'Orks\\\\u001b]0;pwned\\\\u0007 \\\\u202eevil\\ttab\\nnext'
>>> rich_text("[link=https://x.invalid]click[/link] [bold]")
'\\\\[link=https://x.invalid]click\\\\[/link] \\\\[bold]'
"""
from __future__ import annotations

import re

__all__ = ["rich_text", "shown"]

# C0 controls but tab and line feed, DEL, C1 controls, and the bidirectional controls
# (marks, embeddings, overrides, isolates) that reorder a line on screen.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = re.compile("[\t\n]")


def shown(text: str, *, lines: bool = True) -> str:
    """``text`` with each control character written as ``\\uXXXX``; with ``lines=False`` tabs
    and line breaks too (a one-line field)."""
    text = _CONTROL.sub(_escape, text)
    return text if lines else _LINE_BREAKS.sub(_escape, text)


def _escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group(0)):04x}"



def rich_text(text: str) -> str:
    """:func:`shown` text to put into Rich markup: its markup escaped, printed as written."""
    from rich.markup import escape

    return escape(shown(text))
