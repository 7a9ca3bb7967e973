"""The army builder: a page per ruleset with army rules, where a player builds a list in the browser.

The page (``<ruleset>/army.md``) loads the ruleset's army rules as data (``<ruleset>/army.json``,
made by :func:`compiler.model.army_data.army_rules_data` from the model and from ``check_army``'s own
message templates) and checks the list as it changes with a small evaluator (``assets/army.js``),
with no server: the running points, and every rule the list breaks in the words ``warscribe army
check`` uses, each with a link to the rule.  The list prints with its units' datasheet cards and is
copied or downloaded as the list file ``army check`` reads and ``simulate --army`` plays.

The page's Markdown lists the army rules themselves, with links MkDocs checks and resolves: the
script takes each violation's link from there (``#ws-army-cite-<id>``), so the data holds no URL.
"""
from __future__ import annotations

import json
from typing import Any

from compiler import ast as A
from compiler.model.armies import requirement_text
from compiler.model.army_data import army_rules_data
from compiler.model.ruleset import Ruleset
from compiler.site.markup import plain
from compiler.site.sitemap import SiteMap, relative, ruleset_pages
from compiler.site.tools import PageTools

PAGE = "army.md"


def army_page(rs_id: str) -> str:
    """The path of a ruleset's army builder in the Markdown tree."""
    return f"{rs_id}/{PAGE}"


def army_files(rs: Ruleset, sitemap: SiteMap) -> list[tuple[str, str, str]]:
    """The army builder of a ruleset and the data it loads, as (path, title, text): none without army rules."""
    from compiler.site.pages import sample_profile

    data = army_rules_data(rs)
    if not data["armies"]:
        return []
    for e in data["entries"]:
        profile = rs.profiles.get(e["unit"])
        e["sample"] = e["kind"] == "unit" and profile is not None and sample_profile(rs, profile)
    page = army_page(rs.id)
    r = PageTools(page, rs, sitemap, {})
    sheets = relative(page, ruleset_pages(rs.id)["datasheets"])
    marks = [words for m, words in (("warlord", "name your warlord"), ("reserve", "hold units back in reserve"),
                                    ("detachment", "put units in detachments")) if m in data["marks"]]
    marked = (", " + ", ".join(marks[:-1]) + (" and " if len(marks) > 1 else "") + marks[-1]) if marks else ""
    lines = [
        "# Army builder", "",
        f"Build an army for {plain(rs.title)}: add units, choose how many models each has{marked}, and see the list's "
        "points and every army rule it breaks, as the rules below say. Print the list with its units' "
        f"[datasheets]({sheets}){{ #ws-army-sheets }}, or copy or download it as a list file.", "",
        "[The army builder's data](army.json){ #ws-army-data }", "",
        '<div class="ws-army" id="ws-army" markdown="0"></div>', "",
        "## The army rules { #ws-army-rules }", "",
    ]
    for army in rs.of_type(A.Army):
        where = sitemap.get(rs.id, army.id)
        shown = plain(army.title)
        head = f"[{shown}]({sitemap.url(page, rs.id, army.id)}){{ #ws-army-cite-{army.id} }}" if where else shown
        size = f": a game of {' or '.join(str(p) for p in army.points)} points" if army.points else ""
        lines.append(f"- **{head}**{size}")
        for req in army.requires:
            lines.append(f"    - {r.text(req.message) if req.message else r.code(requirement_text(req))}")
        for req in army.unit_requires:
            lines.append(f"    - Each unit: {r.text(req.message) if req.message else r.code(requirement_text(req))}")
        lines.append("")
    sized = [q for q in rs.of_type(A.Squad) if q.min_models is not None and q.max_models is not None
             and q.unit is not None]
    if sized:
        lines += ["- **Squad sizes**"]
        for q in sized:
            link = f"[{plain(q.title)}]({sitemap.url(page, rs.id, q.id)}){{ #ws-army-cite-{q.id} }}"
            lines.append(f"    - {link}: {q.min_models} to {q.max_models} models")
        lines.append("")
    lines += [
        '<div class="ws-author" markdown>', "",
        f"The builder checks a list as `warscribe army check` does, with the same messages; the file it saves "
        f"is the list file that command reads (`warscribe army check rules/{rs.id} army.txt`) and that "
        "`warscribe simulate --army SIDE=army.txt` plays.", "",
        "</div>", ""]
    return [(page, "Army builder", "\n".join(lines)), (f"{rs.id}/army.json", "Army builder data", army_json(data))]


def army_json(data: dict[str, Any]) -> str:
    """The data as the page loads it: compact JSON, nothing in it read as markup."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
