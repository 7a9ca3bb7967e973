"""SVG bar charts of distributions and heat-map colours, drawn in Python at build time.

A chart is a self-contained ``<svg>`` (no script, no external resource) with a
``<title>`` and an ``aria-label``; the page shows a table of the same numbers
next to it, so nothing is lost without the picture.  Output depends only on
the numbers: the same distribution gives the same bytes.  Labels are author text
written as character references for every character HTML *or* Markdown would read as
markup (:func:`~compiler.site.markup.plain`): a chart is shown as it is by any Markdown
reader, also one that reads Markdown inside HTML (``md_in_html``, CommonMark).

>>> svg = bar_chart([(0, 0.25), (1, 0.5), (2, 0.25)], "Hits")
>>> svg.startswith("<svg") and "<title>Hits</title>" in svg
True
"""
from __future__ import annotations

from typing import Sequence

from compiler.site.markup import plain


def escape(text: str) -> str:
    """Author text for a chart's text or attribute: inert as HTML and as Markdown.

    >>> escape("[x](javascript:alert(1)){ onclick=alert(2) }")
    '&#91;x&#93;(javascript:alert(1))&#123; onclick=alert(2) &#125;'
    """
    return plain(text)


def _fmt(x: float) -> str:
    """Coordinates with at most two decimals, stable across platforms."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


#: Steps a percentage axis may use: its ticks are multiples of one of these.
STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.25)


def nice_scale(peak: float, most: int = 5) -> tuple[float, float]:
    """The top of a percentage axis and its tick step: round numbers just above ``peak``.

    >>> nice_scale(0.27), nice_scale(0.5), nice_scale(0.012)
    ((0.3, 0.1), (0.5, 0.1), (0.02, 0.01))
    """
    peak = min(1.0, max(peak, 1e-9))
    for step in STEPS:
        ticks = -(-round(peak / step, 9) // 1)  # ceil, without float noise
        if ticks <= most:
            return min(1.0, round(step * max(1, ticks), 6)), step
    return 1.0, 0.25


def _tick_text(v: float, step: float) -> str:
    return f"{v * 100:.0f}%" if step >= 0.01 else f"{v * 100:.1f}%"


def grouped_bar_chart(series: Sequence[tuple[str, Sequence[tuple[int, float]]]], label: str, *,
                      width: int = 680, height: int = 300, legend_columns: int = 3) -> str:
    """One chart of several distributions on one scale: for each value, a bar per series side by side.

    ``series`` is ``(name, [(value, probability), …])``; the bars of series *i* have the class
    ``ws-series-i`` (coloured by the stylesheet), and a legend above the plot names them.  The
    percentage axis has round ticks (:func:`nice_scale`); a value label is written under each
    group, every other one when they would crowd.

    >>> svg = grouped_bar_chart([("A", [(0, 0.5), (1, 0.5)]), ("B", [(1, 0.25), (2, 0.75)])], "Hits")
    >>> svg.count('class="ws-cbar ws-series-0"'), svg.count('class="ws-cbar ws-series-1"'), ">80%<" in svg  # 3 bars + a legend key
    (4, 4, True)
    """
    values = sorted({v for _, rows in series for v, p in rows if p >= 0.005})
    if values:
        values = list(range(values[0], values[-1] + 1))
    k = max(1, len(series))
    rows_of_legend = -(-k // legend_columns)
    left, right, top, bottom = 44, 16, 14 + 18 * rows_of_legend, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((p for _, rows in series for v, p in rows if v in values), default=0.0)
    scale, step = nice_scale(peak)
    text = escape(label)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ws-compare-svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{text}">',
        f"<title>{text}</title>",
    ]
    column = (width - left) / legend_columns
    for i, (name, _) in enumerate(series):
        x = left + column * (i % legend_columns)
        row = 4 + 18 * (i // legend_columns)
        parts.append(f'<rect class="ws-cbar ws-series-{i}" x="{_fmt(x)}" y="{row}" width="12" height="12"/>')
        parts.append(f'<text class="ws-legend" x="{_fmt(x + 17)}" y="{row + 10}">{escape(name)}</text>')
    n_ticks = round(scale / step)
    for t in range(n_ticks + 1):
        v = step * t
        y = top + plot_h - plot_h * v / scale
        parts.append(f'<line class="ws-grid" x1="{left}" x2="{width - right}" y1="{_fmt(y)}" y2="{_fmt(y)}"/>')
        parts.append(f'<text class="ws-tick" x="{left - 5}" y="{_fmt(y + 4)}" text-anchor="end">'
                     f"{_tick_text(v, step)}</text>")
    slot = plot_w / max(1, len(values))
    bar_w = slot * 0.8 / k
    every = 1 if slot >= 22 else 2 if slot >= 11 else 5
    for gi, value in enumerate(values):
        x0 = left + slot * gi + slot * 0.1
        for si, (name, rows) in enumerate(series):
            p = dict(rows).get(value, 0.0)
            h = plot_h * min(p, scale) / scale
            x = x0 + bar_w * si
            parts.append(f'<rect class="ws-cbar ws-series-{si}" x="{_fmt(x)}" y="{_fmt(top + plot_h - h)}" '
                         f'width="{_fmt(bar_w)}" height="{_fmt(h)}"><title>{escape(name)}, {value}: '
                         f"{p * 100:.1f}%</title></rect>")
        if gi % every == 0:
            parts.append(f'<text class="ws-label" x="{_fmt(left + slot * gi + slot / 2)}" y="{top + plot_h + 16}" '
                         f'text-anchor="middle">{value}</text>')
    parts.append(f'<line class="ws-axis" x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}"/>')
    parts.append("</svg>")
    return "".join(parts)


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
    scale, step = nice_scale(peak)  # round ticks: 0/10/20/30 %, never 0/8/15/23
    slot = plot_w / n
    bar_w = max(1.0, slot * 0.72)
    show_every = max(1, round(n / 24))
    text = escape(label)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ws-chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{text}">',
        f"<title>{text}</title>",
    ]
    # Grid lines and their percentages.
    for i in range(round(scale / step) + 1):
        v = step * i
        y = top + plot_h - plot_h * v / scale
        parts.append(f'<line class="ws-grid" x1="{left}" x2="{width - right}" y1="{_fmt(y)}" y2="{_fmt(y)}"/>')
        parts.append(f'<text class="ws-tick" x="{left - 4}" y="{_fmt(y + 3)}" text-anchor="end">'
                     f"{_tick_text(v, step)}</text>")
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


def curve_chart(points: Sequence[tuple[int, float, float, float]], label: str, *, x_label: str,
                mark: float | None = None, mark_label: str = "", width: int = 560, height: int = 240) -> str:
    """A rate against a value: ``(value, rate, low, high)`` rows drawn as a line through dots, the
    95% band (``low`` to ``high``) shaded behind it, a dashed line at 50% and, with ``mark``, a
    vertical line at that value (e.g. the fair value) labelled ``mark_label``.  The y axis runs
    from 0% to 100%; each dot's ``<title>`` gives its value, rate and interval.

    >>> svg = curve_chart([(10, 0.8, 0.7, 0.9), (12, 0.3, 0.2, 0.4)], "Wins", x_label="points", mark=11.2)
    >>> svg.count('class="ws-dot"'), 'class="ws-band"' in svg, 'class="ws-mean"' in svg, ">10<" in svg
    (2, True, True, True)
    """
    left, right, top, bottom = 40, 14, 18, 38
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [v for v, *_ in points]
    lo_x, hi_x = (min(xs), max(xs)) if xs else (0, 1)
    span = (hi_x - lo_x) or 1

    def x_at(v: float) -> float:
        return left + plot_w * (v - lo_x) / span if len(xs) > 1 else left + plot_w / 2

    def y_at(p: float) -> float:
        return top + plot_h - plot_h * min(max(p, 0.0), 1.0)

    text = escape(label)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="ws-chart ws-curve-chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{text}">',
        f"<title>{text}</title>",
    ]
    for i in range(5):
        v = 0.25 * i
        parts.append(f'<line class="ws-grid" x1="{left}" x2="{width - right}" y1="{_fmt(y_at(v))}" y2="{_fmt(y_at(v))}"/>')
        parts.append(f'<text class="ws-tick" x="{left - 4}" y="{_fmt(y_at(v) + 3)}" text-anchor="end">'
                     f"{v * 100:.0f}%</text>")
    if points:
        band = [f"{_fmt(x_at(v))},{_fmt(y_at(h))}" for v, _, _, h in points] + \
               [f"{_fmt(x_at(v))},{_fmt(y_at(lo))}" for v, _, lo, _ in reversed(points)]
        parts.append(f'<polygon class="ws-band" points="{" ".join(band)}"/>')
        line = " ".join(f"{_fmt(x_at(v))},{_fmt(y_at(p))}" for v, p, _, _ in points)
        parts.append(f'<polyline class="ws-curve" points="{line}"/>')
    parts.append(f'<line class="ws-half" x1="{left}" x2="{width - right}" y1="{_fmt(y_at(0.5))}" y2="{_fmt(y_at(0.5))}"/>')
    every = max(1, -(-len(points) // 12))
    for i, (v, p, lo, h) in enumerate(points):
        parts.append(f'<circle class="ws-dot" cx="{_fmt(x_at(v))}" cy="{_fmt(y_at(p))}" r="3">'
                     f"<title>{escape(str(v))}: {p * 100:.1f}% (95% interval {lo * 100:.1f}% to {h * 100:.1f}%)"
                     f"</title></circle>")
        if i % every == 0:
            parts.append(f'<text class="ws-label" x="{_fmt(x_at(v))}" y="{top + plot_h + 14}" '
                         f'text-anchor="middle">{escape(str(v))}</text>')
    parts.append(f'<text class="ws-label" x="{_fmt(left + plot_w / 2)}" y="{height - 4}" '
                 f'text-anchor="middle">{escape(x_label)}</text>')
    if mark is not None and points and lo_x <= mark <= hi_x:
        mx = x_at(mark)
        parts.append(f'<line class="ws-mean" x1="{_fmt(mx)}" x2="{_fmt(mx)}" y1="{top}" y2="{top + plot_h}"/>')
        anchor = "end" if mx > left + plot_w * 0.75 else "start"
        dx = -3 if anchor == "end" else 3
        parts.append(f'<text class="ws-mean-label" x="{_fmt(mx + dx)}" y="{top - 5}" text-anchor="{anchor}">'
                     f"{escape(mark_label)}</text>")
    parts.append(f'<line class="ws-axis" x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}"/>')
    parts.append("</svg>")
    return "".join(parts)
