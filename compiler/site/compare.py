"""The comparison page: one matchup resolved under every ruleset, side by side.

A matchup is a question asked of several rulesets ("ten Space Marines shoot
ten Orks: how many Orks fall?").  Each ruleset answers it with an expression
in its own terms, given in the site configuration::

    matchups:
      - id: marines_shoot_orks
        title: Ten Space Marines shoot ten Orks
        ask: Orks removed
        rulesets:
          console-40k: shooting(10 space_marine, boltgun, 10 ork_boy).killed
          classic-40k:
            expression: shooting(10 space_marine, boltgun, 10 ork_boy).killed
            note: in the open
        most: 10                  # the target has ten models: no answer may be more

An expression is checked like ``warscribe eval`` checks one; a mistake fails
the build with a diagnostic, never a blank cell; so does an answer that can be more than
``most`` (a count of models removed from a target of ten that reaches 14 counts something else).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from compiler.check.passes import Context, Scope, check_expr
from compiler.diagnostics import Diagnostic, Sink
from compiler.model.ruleset import Ruleset
from compiler.resolve.report import distribution_rows, mean_of
from compiler.resolve.evaluator import AttackResult, Evaluator, ResolveError, is_dist, parse_expression, show
from compiler.resolve.runner import fmt_number
from compiler.site.charts import grouped_bar_chart
from compiler.site.examples import Chart, chart_of
from compiler.site.sitemap import short_titles
from compiler.site.env import percent
from compiler.words import decimal


@dataclass(frozen=True)
class MatchupEntry:
    ruleset: str
    expression: str
    note: str = ""


@dataclass(frozen=True)
class Matchup:
    id: str
    title: str
    ask: str  # what the number counts, e.g. "Orks removed"
    entries: tuple[MatchupEntry, ...]
    description: str = ""
    most: int | None = None  # the largest answer that makes sense (the target's models), if any

    @staticmethod
    def from_config(raw: Mapping[str, Any]) -> "Matchup":
        entries = []
        for rs_id, value in sorted((raw.get("rulesets") or {}).items()):
            if isinstance(value, str):
                entries.append(MatchupEntry(rs_id, value))
            else:
                entries.append(MatchupEntry(rs_id, str(value["expression"]), str(value.get("note", ""))))
        anchor = re.sub(r"[^A-Za-z0-9_-]+", "-", str(raw["id"])).strip("-") or "matchup"
        most = raw.get("most")
        if most is not None and (isinstance(most, bool) or not isinstance(most, int)):
            raise TypeError(f"most must be a whole number, not {most!r}")
        return Matchup(anchor, str(raw.get("title", raw["id"])), str(raw.get("ask", "result")),
                       tuple(entries), str(raw.get("description", "")), most)


@dataclass(frozen=True)
class Answer:
    ruleset: Ruleset
    entry: MatchupEntry
    mean: str
    at_least: tuple[tuple[int, str], ...]  # (k, "P(X >= k)") for the columns of the summary
    chart: Chart | None
    value: str  # for a plain (non-random) answer
    mean_short: str = ""  # the mean to two decimals ("3.33")
    dist: tuple[tuple[int, float], ...] = ()  # (value, chance) when the values are whole numbers


class MatchupError(Exception):
    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = (), sources: Mapping[str, str] | None = None):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.sources = dict(sources or {})


def answer(rs: Ruleset, entry: MatchupEntry, thresholds: tuple[int, ...], most: int | None = None) -> Answer:
    where = f"<matchup {entry.ruleset}>"
    try:
        expr = parse_expression(entry.expression, where)
    except ResolveError as err:
        raise MatchupError(f"matchup expression for {rs.id} does not parse: {err.message}: {entry.expression}")
    sink = Sink()
    check_expr(expr, Scope(Context(rs, sink), where))
    if sink.has_errors:
        raise MatchupError(f"matchup expression for {rs.id} has errors: {entry.expression}",
                           tuple(d for d in sink.items if d.is_error), {where: entry.expression})
    try:
        value = Evaluator(rs).evaluate(expr)
    except ResolveError as err:
        raise MatchupError(f"matchup expression for {rs.id} cannot be worked out ({err.message}): {entry.expression}")
    if isinstance(value, AttackResult):
        value = list(value.steps.values())[-1]
    if not is_dist(value):
        return Answer(rs, entry, show(value), (), None, show(value))
    m = mean_of(value)
    rows = distribution_rows(value)
    if most is not None:
        over = [v for v, p, _ in rows if isinstance(v, (int, Fraction, float)) and not isinstance(v, bool)
                and v > most and p > 0]
        if over:
            raise MatchupError(f"matchup expression for {rs.id} can answer {fmt_number(max(over))}, more than "
                               f"the {most} the matchup allows (most: {most}): {entry.expression}")
    tails = {v: t for v, _, t in rows if t is not None}
    at_least = []
    for k in thresholds:
        t = next((tails[v] for v in sorted(tails) if isinstance(v, int) and v >= k), Fraction(0))
        at_least.append((k, percent(float(t))))
    chart = chart_of(entry.ruleset, value, f"{rs.title}: {entry.expression}", width=360, height=180)
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v, _, _ in rows)
    dist = tuple((int(v), float(p)) for v, p, _ in rows) if whole else ()
    mean_short = decimal(m, ".2f") if isinstance(m, (Fraction, float, int)) else str(m)
    return Answer(rs, entry, fmt_number(m) if isinstance(m, Fraction) else str(m), tuple(at_least), chart, "",
                  mean_short, dist)


@dataclass(frozen=True)
class Comparison:
    """One matchup on the comparison page: every ruleset's answer, and one chart of them all on one scale."""

    matchup: Matchup
    answers: tuple[Answer, ...]
    names: Mapping[str, str]  # ruleset id -> the short title used in the table and the legend
    svg: str | None  # the grouped bar chart (None when no answer is a distribution of whole numbers)
    label: str  # the chart's text alternative


def comparison(matchup: Matchup, found: Sequence[Answer], chosen: Mapping[str, str] | None = None) -> Comparison:
    """The answers of a matchup with their shared chart: each value's chance, a bar per ruleset
    (named as the navigation's tabs name them: ``chosen``, else their short titles)."""
    names = short_titles(tuple(a.ruleset for a in found), chosen)
    charted = [a for a in found if a.dist]
    label = f"The chance of each number of {matchup.ask}, by ruleset, on one scale"
    alt = "; ".join(f"{names[a.ruleset.id]} mean {a.mean_short}" for a in charted)
    svg = grouped_bar_chart([(names[a.ruleset.id], a.dist) for a in charted],
                            f"{matchup.title}: {label[0].lower()}{label[1:]} ({alt})") if charted else None
    return Comparison(matchup, tuple(found), names, svg, label)


def answers(matchup: Matchup, rulesets: Mapping[str, Ruleset]) -> list[Answer]:
    known = [e for e in matchup.entries if e.ruleset in rulesets]
    missing = [e.ruleset for e in matchup.entries if e.ruleset not in rulesets]
    if missing:
        raise MatchupError(f"matchup '{matchup.id}' names rulesets that are not in the site: {', '.join(missing)}")
    return [answer(rulesets[e.ruleset], e, (1, 2, 3, 5), matchup.most) for e in known]
