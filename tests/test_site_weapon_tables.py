"""Unit cards show their weapons as players read a datasheet: ranged and melee apart, each weapon
with every stat the rules give it, read from the built pages (the session's one site build)."""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import compiler
from conftest import ROOT


class Tables(HTMLParser):
    """Each table of a page's cards: its header cells and rows (cell text, and each row's first link)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, Any]] = []
        self.cell: list[str] | None = None
        self.row: list[str] = []
        self.link: str | None = None
        self.card = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "div" and ("class", "ws-card") in attrs:
            self.card += 1
        if tag == "table":
            self.tables.append({"head": [], "rows": [], "card": self.card})
        elif tag == "tr":
            self.row, self.link = [], None
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "a" and self.cell is not None and not self.row and self.link is None:
            self.link = dict(attrs).get("href")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr" and self.tables:
            table = self.tables[-1]
            if not table["head"]:
                table["head"] = self.row
            else:
                table["rows"].append((self.link, self.row))

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def weapon_tables(page: Path) -> list[dict[str, Any]]:
    parser = Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return [t for t in parser.tables if t["head"] and t["head"][0] in ("Ranged weapon", "Melee weapon", "Weapon")]


def test_cards_show_ranged_and_melee_weapons_with_every_stat(built_site: Path) -> None:
    kinds: set[str] = set()
    for rs in compiler.compile_paths([ROOT / "rules"]).rulesets:
        page = built_site / rs.id / "datasheets" / "index.html"
        if not page.exists():
            continue
        weapons = {p.id: p for p in rs.of_type(compiler.ast.Profile) if p.kind == "weapon"}
        has_range = any(sv.stat.casefold() == "range" for w in weapons.values() for sv in w.stats)
        for table in weapon_tables(page):
            kind, columns = table["head"][0], table["head"][1:]
            kinds.add(kind)
            assert (kind == "Weapon") == (not has_range), (rs.id, kind)
            for link, cells in table["rows"]:
                weapon = weapons[link.rsplit("#", 1)[1]]
                given = {sv.stat: sv for sv in weapon.stats}
                reach = next((sv for s, sv in given.items() if s.casefold() == "range"), None)
                if has_range:  # a distance is ranged; "-" is melee, and its table has no Range column
                    ranged = reach is not None and reach.kind not in ("none",) and str(reach.text) != "-"
                    assert kind == ("Ranged weapon" if ranged else "Melee weapon"), (rs.id, weapon.id)
                for stat, sv in given.items():
                    if kind == "Melee weapon" and sv is reach:
                        assert stat not in columns
                        continue
                    assert cells[1 + columns.index(stat)] == str(sv.text), (rs.id, weapon.id, stat)
    assert {"Ranged weapon", "Melee weapon"} <= kinds
