"""What search should find that a page does not say in words: stat lines and words run together.

The theme's search reads a page's prose; the MkDocs plugin keeps tables out of it (so results show
sentences), which also keeps a unit's stat line out.  And a reader who types a rule's name as one
word ("deepstrike" for "Deep strike") finds nothing, since search matches whole words.  For each
entry a page gives search, :func:`search_extras` gives a line of plain text to add to it:

* a unit or weapon on the datasheets: its stat line, ``WS 4 · BS 4 · S 4 · T 4 …``;
* any declaration whose title is two or more words: the title run together (``deepstrike``).

Locations are those of the theme's index (``console-40k/datasheets/#space_marine``), so the
plugin can match them; the text is plain, a line per paragraph (the plugin escapes it).

>>> from compiler.driver import compile_text
>>> rs = compile_text('ruleset demo "Demo":\\n  version 1.0.0\\nstat BS "Ballistic Skill" 1..10\\n'
...                   'term deep_strike "Deep strike": "Arriving from reserve."\\nunit trooper "Trooper":\\n  BS 4\\n').rulesets
>>> extras = dict(search_extras(rs))
>>> extras["demo/datasheets/#trooper"], extras["demo/lexicon/#deep_strike"]
('Stat line: BS 4', 'Also written deepstrike.')
"""
from __future__ import annotations

import re

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.site.sitemap import SiteMap

__all__ = ["search_extras", "page_location"]


def page_location(path: str) -> str:
    """The address of a page of the Markdown tree as the theme's index writes it (directory URLs).

    >>> page_location("console-40k/lexicon.md"), page_location("console-40k/index.md"), page_location("index.md")
    ('console-40k/lexicon/', 'console-40k/', '')
    """
    stem = path[:-3] if path.endswith(".md") else path
    if stem == "index":
        return ""
    if stem.endswith("/index"):
        stem = stem[:-len("/index")]
    return stem + "/"


def search_extras(rulesets: tuple[Ruleset, ...]) -> tuple[tuple[str, str], ...]:
    """(location, plain text) for the search entries that need more words (see the module's text)."""
    sitemap = SiteMap(rulesets)
    out: dict[str, list[str]] = {}
    for rs in rulesets:
        for p in rs.of_type(A.Profile):
            place = sitemap.get(rs.id, p.id)
            if place is not None and p.stats:
                out.setdefault(f"{page_location(place.page)}#{place.anchor}", []).append(
                    "Stat line: " + " · ".join(f"{s.stat} {s.text}" for s in p.stats))
    for (rs_id, _), place in sorted(sitemap.places.items()):
        words = re.findall(r"[A-Za-z0-9]+", place.title)
        if len(words) < 2 or len(words) > 4:
            continue
        out.setdefault(f"{page_location(place.page)}#{place.anchor}", []).append(
            f"Also written {''.join(words).lower()}.")
    return tuple((location, "\n".join(texts)) for location, texts in sorted(out.items()))
