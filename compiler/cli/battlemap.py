"""A small map of a battle on a table, for ``warscribe play``: terrain, objectives and units.

The table is drawn as a grid of characters, the first side's edge at the bottom: each terrain
area by the first letter of its kind (``#`` where it blocks sight, ``~`` where it is impassable),
each objective as ``*``, each unit standing by a letter (capitals for the first side, small
letters for the second, digits after), with a legend naming them and their models.
"""
from __future__ import annotations

from rich.text import Text

from compiler.battle.state import State
from compiler.terminal import shown

#: Columns of the map (the table's width is scaled to it); rows follow at two inches a row per column.
COLUMNS = 48
_STYLES = ("bold cyan", "bold red", "bold magenta", "bold yellow")


def battle_map(state: State, columns: int = COLUMNS) -> Text | None:
    """The map of ``state``'s table (None on the one-line battlefield)."""
    table = state.table
    if table is None:
        return None
    cols = max(8, min(columns, int(table.width) or 1))
    scale = table.width / cols
    rows = max(4, int(round(table.depth / (2 * scale))))
    grid = [[(" ", "") for _ in range(cols)] for _ in range(rows)]

    def cell(x: float, y: float) -> tuple[int, int]:
        c = min(cols - 1, max(0, int(x / scale)))
        r = min(rows - 1, max(0, int(y / (2 * scale))))
        return rows - 1 - r, c

    for area in table.areas:
        mark = "~" if area.kind.impassable else "#" if area.kind.blocks else (area.kind.id[:1] or "?")
        style = "blue" if area.kind.impassable else "dim" if area.kind.blocks else "green"
        r1, c0 = cell(area.x0, area.y0)
        r0, c1 = cell(area.x1, area.y1)
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                grid[r][c] = (mark, style)
    for obj in state.objectives:
        r, c = cell(obj.position, obj.y)
        grid[r][c] = ("*", "bold yellow")
    legend: list[tuple[str, str, str]] = []
    counts = [0] * len(state.sides)
    for u in state.units:
        if u.models <= 0:
            continue
        k = counts[u.side]
        counts[u.side] += 1
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if u.side == 0 else "abcdefghijklmnopqrstuvwxyz"
        mark = letters[k] if k < len(letters) else str(k % 10)
        style = _STYLES[u.side % len(_STYLES)]
        r, c = cell(u.position, u.y)
        grid[r][c] = (mark, style)
        legend.append((mark, style, f"{u.label} ({u.models})"))
    out = Text()
    out.append("+" + "-" * cols + "+\n")
    for row in grid:
        out.append("|")
        for mark, style in row:
            out.append(mark, style=style or None)
        out.append("|\n")
    out.append("+" + "-" * cols + "+")
    for mark, style, text in legend:
        out.append("\n  ")
        out.append(mark, style=style)
        out.append(f" = {shown(text)}")  # a unit's name: author text, shown, never obeyed
    return out
