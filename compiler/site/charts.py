"""SVG bar charts of distributions and heat-map colours, drawn in Python at build time.

A chart is a self-contained ``<svg>`` (no script, no external resource) with a
``<title>`` and an ``aria-label``; the page shows a table of the same numbers
next to it, so nothing is lost without the picture.  Output depends only on
the numbers: the same distribution gives the same bytes.

>>> svg = bar_chart([(0, 0.25), (1, 0.5), (2, 0.25)], "Hits")
>>> svg.startswith("<svg") and "<title>Hits</title>" in svg
True
"""
from __future__ import annotations

from html import escape
from typing import Sequence


def _fmt(x: float) -> str:
    """Coordinates with at most two decimals, stable across platforms."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def bar_chart(rows: Sequence[tuple[str | int, float]], label: str, *, width: int = 480, height: int = 200,
              mean: float | None = None, highlight_from: int | None = None) -> str:
    """A vertical bar chart of ``(value, probability)`` rows.

    ``label`` is plain text (escaped here).  Bars are labelled with their value
    under the axis and their percentage above when there is room.
    """
    n = max(1, len(rows))
    left, right, top, bottom = 36, 8, 18, 28
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((p for _, p in rows), default=0.0) or 1.0
    # A round scale top: the next 10 % above the peak (or 5 % for small peaks).
    step = 0.1 if peak > 0.2 else 0.05 if peak > 0.05 else 0.01
    scale = min(1.0, step * (int(peak / step) + 1))
    slot = plot_w / n
    bar_w = max(1.0, slot * 0.72)
    show_every = max(1, round(n / 24))
    text = escape(label, quote=True)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ws-chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{text}">',
        f"<title>{text}</title>",
    ]
    # Grid lines and their percentages.
    ticks = 4
    for i in range(ticks + 1):
        v = scale * i / ticks
        y = top + plot_h - plot_h * v / scale
        parts.append(f'<line class="ws-grid" x1="{left}" x2="{width - right}" y1="{_fmt(y)}" y2="{_fmt(y)}"/>')
        parts.append(f'<text class="ws-tick" x="{left - 4}" y="{_fmt(y + 3)}" text-anchor="end">{v * 100:.0f}%</text>')
    for i, (value, p) in enumerate(rows):
        h = plot_h * p / scale
        x = left + slot * i + (slot - bar_w) / 2
        y = top + plot_h - h
        cls = "ws-bar ws-bar-hi" if highlight_from is not None and isinstance(value, int) and value >= highlight_from else "ws-bar"
        value_text = escape(str(value))
        parts.append(f'<rect class="{cls}" x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(bar_w)}" height="{_fmt(h)}">'
                     f"<title>{value_text}: {p * 100:.2f}%</title></rect>")
        if i % show_every == 0:
            parts.append(f'<text class="ws-label" x="{_fmt(x + bar_w / 2)}" y="{height - bottom + 14}" '
                         f'text-anchor="middle">{value_text}</text>')
        if n <= 16 and p >= 0.005:
            parts.append(f'<text class="ws-value" x="{_fmt(x + bar_w / 2)}" y="{_fmt(y - 3)}" '
                         f'text-anchor="middle">{p * 100:.0f}%</text>')
    if mean is not None and rows and all(isinstance(v, int) for v, _ in rows):
        lo = rows[0][0]
        values = [v for v, _ in rows]
        # Position of the mean on the value axis (values are consecutive in practice).
        if isinstance(lo, int) and values == list(range(lo, lo + n)):
            mx = left + slot * (mean - lo) + slot / 2
            parts.append(f'<line class="ws-mean" x1="{_fmt(mx)}" x2="{_fmt(mx)}" y1="{top}" y2="{top + plot_h}"/>')
            parts.append(f'<text class="ws-mean-label" x="{_fmt(mx + 3)}" y="{top - 5}">mean {mean:.2f}</text>')
    parts.append(f'<line class="ws-axis" x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}"/>')
    parts.append("</svg>")
    return "".join(parts)


def heat(p: float) -> str:
    """The CSS custom property that colours a cell by its chance (0 red … 1 green)."""
    return f"--ws-p:{p:.3f}"
