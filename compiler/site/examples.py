"""Worked examples run at build time: their results, and a chart of each distribution.

For every example the renderer evaluates its ``let`` values with the same
resolver that ``warscribe test`` uses; an attack gives one distribution per
step (shots, hits, wounds…), a random value gives one distribution.  Each
distribution becomes a :class:`Chart`: an SVG bar chart plus the rows of a
text table (value, chance, chance of at least that much).

Numbers follow the site's number style (:mod:`compiler.words`): chances as percentages,
averages to two decimals, the exact fraction on hover; charts are captioned in words
("Killed", not ``r.killed``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.resolve.report import distribution_rows, mean_of
from compiler.resolve.evaluator import AttackResult, Evaluator, LetVar, ResolveError, is_dist, show
from compiler.resolve.claims import judge_claim
from compiler.resolve.coverage import results_so_far
from compiler.resolve.runner import Failure, bound_lets, check_expect, run_property
from compiler.site.charts import bar_chart
from compiler.site.env import percent
from compiler.site.markup import attribute
from compiler.site.tables import TableView, claim_view
from compiler.words import chance_words, exact_words, mean_words


@dataclass(frozen=True)
class Row:
    value: str
    p: str  # "25%"
    exact: str  # "1/4"
    at_least: str  # "75%" or ""


@dataclass(frozen=True)
class Chart:
    name: str  # "r.killed"
    label: str  # text alternative of the picture, one line
    svg: str
    mean: str  # to two decimals
    rows: tuple[Row, ...]
    mean_exact: str = ""  # the exact fraction, for a tooltip


@dataclass(frozen=True)
class ExampleView:
    id: str
    passed: bool
    checked: int
    charts: tuple[Chart, ...]
    steps: tuple[tuple[str, str], ...]  # (let name, "on average shots 5 → hits 3.33 → …" or a chance)
    values: tuple[tuple[A.Expect, str, bool, str], ...]  # (expectation, actual value, held, expected value)
    failures: tuple[str, ...]
    verdict: str = ""  # a claim's verdict over its grid ("holds in 35% of the grid …")
    status: str = ""  # a claim's "holds", "holds in part", "fails" or "error"
    grid: TableView | None = None  # a claim's measure at every point of its grid


def _exact(p: Any) -> str:
    if isinstance(p, Fraction):
        return str(p.numerator) if p.denominator == 1 else f"{p.numerator}/{p.denominator}"
    return f"{float(p):.6g}"


TAIL = 0.0005  # values this unlikely at either end are left out of a chart, and said so


def chart_of(name: str, d: Any, caption: str, width: int = 480, height: int = 200) -> Chart | None:
    """A chart of one distribution (None when its values are not plain numbers or yes/no).

    Values at either end less likely than :data:`TAIL` are left out of the picture and
    the table; the row "other values" says how likely they are together.
    """
    rows = distribution_rows(d)
    if not rows or len(rows) > 400:
        return None
    values = [v for v, _, _ in rows]
    if not all(isinstance(v, (int, bool, Fraction, str)) or v is None for v in values):
        return None
    lo, hi = 0, len(rows)
    while hi - lo > 1 and float(rows[lo][1]) < TAIL:
        lo += 1
    while hi - lo > 1 and float(rows[hi - 1][1]) < TAIL:
        hi -= 1
    kept = rows[lo:hi]
    left_out = 1.0 - sum(float(p) for _, p, _ in kept)
    m = mean_of(d)
    mean_text = mean_words(m) if m is not None else ""
    mean_f = float(m) if m is not None and abs(m) < 2**1000 else None  # no mean line past a float's range
    int_rows = all(isinstance(v, int) and not isinstance(v, bool) for v, _, _ in kept)
    svg = bar_chart([(v if int_rows else show(v), float(p)) for v, p, _ in kept],
                    caption, width=width, height=height, mean=mean_f if int_rows else None)
    alt = f"{caption}: " + ", ".join(f"{show(v)} {percent(float(p))}" for v, p, _ in kept if p)
    table = [Row(show(v), percent(float(p)), _exact(p), percent(float(t)) if t is not None else "")
             for v, p, t in kept]
    if lo or hi < len(rows):
        alt += f"; other values {percent(left_out)} together"
        table.append(Row("other values", percent(left_out), "", ""))
    return Chart(name, alt, svg, mean_text, tuple(table), exact_words(m) if isinstance(m, Fraction) else "")


def _charts(name: str, value: Any) -> tuple[list[Chart], str]:
    """The chart of one ``let`` value, and a line about it: the means of an attack's
    steps, or the chance of a yes/no value (which needs no chart)."""
    if isinstance(value, LetVar):
        value = value.cached
    if isinstance(value, AttackResult):
        steps = [(step, d) for step, d in value.steps.items() if is_dist(d)]
        if not steps:
            return [], ""
        means = "on average " + " → ".join(f"{words(step).lower()} {_mean_text(d)}" for step, d in steps)
        step, d = steps[-1]
        c = chart_of(words(step), d, words(step)) if len(distribution_rows(d)) > 1 else None
        return ([c] if c is not None else []), means
    if not is_dist(value):
        return [], ""
    rows = distribution_rows(value)
    if all(isinstance(v, bool) for v, _, _ in rows):
        p = sum((q for v, q, _ in rows if v is True), Fraction(0))
        return [], f"yes with a chance of {percent(float(p))}"
    if len(rows) > 1:
        c = chart_of(words(name), value, words(name))
        return ([c] if c is not None else []), ""
    return [], ""


def _mean_text(d: Any) -> str:
    m = mean_of(d)
    if m is None:
        return "?"
    return mean_words(m)


def example_views(rs: Ruleset) -> dict[str, ExampleView]:
    """Run every example and property of a ruleset, and judge every claim; chart the
    distributions of the examples and each claim's measure over its grid."""
    views: dict[str, ExampleView] = {}
    ran = {r.id: r for r in results_so_far(rs) if r.kind == "property"}  # run for the coverage pins
    for d in rs.walk():
        if isinstance(d, A.Example):
            views[d.id] = _example(rs, d)
        elif isinstance(d, A.Claim):
            j = judge_claim(rs, d)
            views[d.id] = ExampleView(d.id, j.error is None, j.size, (), (), (),
                                      (_failure_text(j.error),) if j.error else (),
                                      j.verdict, j.status, claim_view(rs, d, j))
        elif isinstance(d, A.Property):
            res = ran.get(d.id) or run_property(rs, d)
            views[d.id] = ExampleView(d.id, res.passed, res.checked, (), (), (),
                                      tuple(_failure_text(f) for f in res.failures))
    return views


def _failure_text(f: Failure) -> str:
    return f.message + (f" (expected {f.expected}, got {f.actual})" if f.expected else "")


def _example(rs: Ruleset, ex: A.Example) -> ExampleView:
    """Bind the example's lets and check its expectations, as ``warscribe test`` does, charting as we go."""
    ev = Evaluator(rs)
    bound = bound_lets(rs, ex)  # worked out already when the coverage pins ran the example
    env: dict[str, Any] = bound if bound is not None else {}
    charts: list[Chart] = []
    steps: list[tuple[str, str]] = []
    try:
        for let in ex.lets:
            if bound is None:
                ev.bind_let(let, env)
            made, line = _charts(let.name, env[let.name])
            charts.extend(made)
            if line:
                steps.append((let.name, line))
    except ResolveError as err:
        return ExampleView(ex.id, False, 0, tuple(charts), tuple(steps), (), (err.message,))
    values = []
    failures = []
    for e in ex.expects:
        failure, shown = check_expect(ev, e, env)
        chance = isinstance(e.subject, A.Call) and e.subject.func == "P"
        expected = literal_text(e.expected)
        values.append((e, shown_number(shown, chance), failure is None, shown_number(expected, chance)))
        if failure is not None:
            failures.append(_failure_text(failure))
    return ExampleView(ex.id, not failures, len(ex.expects), tuple(charts), tuple(steps), tuple(values),
                       tuple(failures))


def words(name: str) -> str:
    """A let or step name as a caption: ``past_armour`` → ``Past armour``."""
    text = name.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


_FRACTION = re.compile(r"^(-?\d+)/(\d+)(?: \(≈ [^)]*\))?$")
_APPROX = re.compile(r"^≈ (-?[\d.e+-]+)$")


def shown_number(text: str, chance: bool) -> str:
    """A number as a reader sees it (HTML): a chance as a percentage, anything else to two
    decimals, the exact fraction on hover; text that is not a number is left as it is (escaped).

    >>> shown_number("1518275/1889568 (≈ 0.803504)", True)
    '<abbr class="ws-exact" title="exactly 1518275/1889568">80%</abbr>'
    >>> shown_number("25/18", False), shown_number("3", False), shown_number("4+", False)
    ('<abbr class="ws-exact" title="exactly 25/18">1.39</abbr>', '3', '4+')
    """
    m = _FRACTION.match(text.strip())
    if m:
        f = Fraction(int(m.group(1)), int(m.group(2)))
        shown = chance_words(f) if chance else mean_words(f)
        return shown if f.denominator == 1 and not chance else \
            f'<abbr class="ws-exact" title="exactly {attribute(exact_words(f))}">{shown}</abbr>'
    m = _APPROX.match(text.strip())
    if m:
        x = float(m.group(1))
        return chance_words(x) if chance else mean_words(x)
    return attribute(text)


def literal_text(e: A.Expr) -> str:
    """The text of a literal number (``2/3``, ``5``) the way the resolver writes one; else ""."""
    if isinstance(e, A.Int):
        return str(e.value)
    if isinstance(e, A.Binary) and e.op == "/" and isinstance(e.left, A.Int) and isinstance(e.right, A.Int) \
            and e.right.value:
        return exact_words(Fraction(e.left.value, e.right.value))
    return ""
