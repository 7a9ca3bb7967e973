"""The matchup calculator's data: every attack a ruleset allows, worked out exactly ahead of time.

A calculator answers "what do N of these, with this weapon, do to M of those?" from a table, with
no server: this module works the table out with the resolver, as one JSON document per ruleset
(:func:`calculator_json`).  It is not yet part of ``warscribe build``: at the full budget below it
costs far more than the rest of the build (see :data:`MAX_MODELS`), so a page that loads it must
first keep it in the build cache or shrink the budget.

What is worked out (the *budget*, per ruleset):

* every attack whose parameters are an attacking unit, a weapon and a target (``shooting(shooter,
  weapon, target)``), answered at its last step (``killed``);
* every unit that carries weapons × each of its weapons × every unit as a target, leaving out the
  units written for the worked examples;
* every number of attacking models from 1 to the unit's squad maximum (``MAX_MODELS`` without a
  squad, never more than ``MAX_MODELS``), and the same for the target;
* the situations the attack reads: each yes/no or one-of situation of the ruleset that changes at
  least one answer of the attack at two models against two (a situation that changes nothing is
  not offered).  All their combinations are worked out when there are at most
  ``COMBINATION_BUDGET`` of them; past that, each situation changed alone (``every`` is false in the
  attack's entry: a page must say that a combination of two or more is outside the budget and
  give the ``warscribe eval`` line, :func:`expression` and :func:`with_text`, that answers it).  Situations that are numbers (a distance, a count) stay at their low end.

A matchup the resolver refuses (a weapon the target's rules cannot take) is left out (a page must
say so).  Each distribution is stored as its lowest value, a common denominator and one numerator
per value, as decimal strings when they pass JavaScript's exact integers (for a page to read as
BigInt), so the fractions a page shows can be exactly the resolver's.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import Any, Mapping

from compiler import ast as A
from compiler.model.ruleset import Ruleset
from compiler.resolve import Evaluator, ResolveError, parse_expression
from compiler.resolve.core import AttackResult
from compiler.resolve.report import distribution_rows

#: The largest model count worked out on either side.  Measured cost of :func:`calculator_data`
#: (CPU seconds, bytes of JSON): at 10, console-40k 0.3 s / 15 KB, classic-40k 6.2 s / 0.79 MB,
#: dark-millennia 7.0 s / 0.71 MB, gemini-arap 26 s / 2.7 MB, 40k-s 30 s / 2.3 MB, nuceria-rts
#: over 500 s; at 3, console-40k 0.03 s / 1.7 KB, classic-40k 0.5 s / 26 KB, dark-millennia 0.7 s /
#: 25 KB, gemini-arap 3.1 s / 95 KB, 40k-s 4.4 s / 0.10 MB, nuceria-rts 3.0 s / 0.37 MB.
MAX_MODELS = 10
COMBINATION_BUDGET = 24
_JS_EXACT = 2 ** 53 - 1


@dataclass(frozen=True)
class CalculatorSituation:
    id: str
    title: str
    values: tuple[Any, ...]  # the default first

    def shown(self) -> list[str]:
        return [("yes" if v else "no") if isinstance(v, bool) else str(v) for v in self.values]


def calculator_attacks(rs: Ruleset) -> list[A.Attack]:
    """The attacks the calculator offers: those of a unit, a weapon and a target."""
    return [a for a in rs.of_type(A.Attack) if len(a.params) == 3]


def expression(attack: A.Attack, attackers: int, unit: str, weapon: str, targets: int, target: str) -> str:
    """The ``warscribe eval`` expression of one matchup."""
    return f"{attack.id}({attackers} {unit}, {weapon}, {targets} {target}).{attack.steps[-1].name}"


def with_text(sits: dict[str, Any]) -> str:
    """The situations as ``warscribe eval --with`` takes them (``cover = soft``)."""
    return "; ".join(f"{k} = {('yes' if v else 'no') if isinstance(v, bool) else v}" for k, v in sorted(sits.items()))


def _exact(ev: Evaluator, text: str) -> dict[int, Fraction] | None:
    try:
        value = ev.evaluate(parse_expression(text, "<calculator>"))
    except ResolveError:
        return None
    if isinstance(value, AttackResult):
        value = list(value.steps.values())[-1]
    if not hasattr(value, "probabilities"):
        return None
    out: dict[int, Fraction] = {}
    for v, p, _ in distribution_rows(value):
        if isinstance(v, bool) or not isinstance(v, int):
            return None
        out[v] = out.get(v, Fraction(0)) + Fraction(p)
    return out


def _packed(dist: dict[int, Fraction]) -> list[Any]:
    """[lowest value, denominator, numerator of each value from the lowest]: exact, compact."""
    lo, hi = min(dist), max(dist)
    den = lcm(*(p.denominator for p in dist.values()))
    nums = [dist.get(v, Fraction(0)) * den for v in range(lo, hi + 1)]
    return [lo] + [n if n <= _JS_EXACT else str(n) for n in [den] + [int(x) for x in nums]]


def _squad_max(rs: Ruleset) -> dict[str, int]:
    out: dict[str, int] = {}
    for sq in rs.of_type(A.Squad):
        if sq.unit and sq.max_models:
            out[sq.unit] = max(out.get(sq.unit, 0), sq.max_models)
    return out


def _units(rs: Ruleset) -> list[A.Profile]:
    from compiler.site.pages import sample_profile

    units = [p for p in rs.of_type(A.Profile) if p.kind == "unit"]
    played = [p for p in units if not sample_profile(rs, p)]
    return played if any(p.weapons for p in played) else units


def _situations(rs: Ruleset) -> list[CalculatorSituation]:
    defaults = Evaluator(rs).situation
    out = []
    for s in rs.situations.values():
        if s.range is not None:
            continue
        values: tuple[Any, ...] = s.choices if s.choices else (False, True)
        first = defaults.get(s.id, values[0])
        out.append(CalculatorSituation(s.id, s.title, (first,) + tuple(v for v in values if v != first)))
    return out


def calculator_data(rs: Ruleset, max_models: int = MAX_MODELS) -> dict[str, Any] | None:
    """The calculator's data for one ruleset (None when it has no attack of a unit, a weapon and a target);
    ``max_models`` caps the model counts (the budget's largest side)."""
    attacks = calculator_attacks(rs)
    units = _units(rs)
    armed = [u for u in units if u.weapons]
    if not attacks or not armed:
        return None
    most = _squad_max(rs)
    size = {u.id: min(most.get(u.id, max_models), max_models) for u in units}
    weapons = {p.id: p for p in rs.of_type(A.Profile) if p.kind == "weapon"}
    base = Evaluator(rs)
    tables: dict[str, Any] = {}
    offered: list[dict[str, Any]] = []
    for attack in attacks:
        pairs = [(u, w) for u in armed for w, _ in u.weapons if w in weapons]
        # Which situations this attack reads: those that change an answer at two models against two.
        valid = [(u, w, t) for u, w in pairs for t in units
                 if _exact(base, expression(attack, 2, u.id, w, 2, t.id)) is not None]
        if not valid:
            continue
        read = []
        for sit in _situations(rs):
            for v in sit.values[1:]:
                ev = Evaluator(rs, situation={sit.id: v})
                if any(_exact(ev, expression(attack, 2, u.id, w, 2, t.id))
                       != _exact(base, expression(attack, 2, u.id, w, 2, t.id)) for u, w, t in valid):
                    read.append(sit)
                    break
        combos = 1
        for sit in read:
            combos *= len(sit.values)
        every = combos <= COMBINATION_BUDGET
        settings: list[dict[str, Any]] = [{}]
        if every:
            settings = [{s.id: v for s, v in zip(read, vs) if v != s.values[0]}
                        for vs in itertools.product(*(s.values for s in read))]
        else:
            settings += [{s.id: v} for s in read for v in s.values[1:]]
        for sits in settings:
            ev = Evaluator(rs, situation=sits) if sits else base
            for u, w, t in valid:
                grid = [[_exact(ev, expression(attack, a, u.id, w, m, t.id))
                         for m in range(1, size[t.id] + 1)] for a in range(1, size[u.id] + 1)]
                if any(d is None for row in grid for d in row):
                    continue
                tables[_key(attack.id, u.id, w, t.id, sits)] = [[_packed(d) for d in row if d is not None]
                                                               for row in grid]
        offered.append({"id": attack.id, "title": attack.title or attack.id, "result": attack.steps[-1].name,
                        "every": every,
                        "situations": [{"id": s.id, "title": s.title, "values": s.shown()} for s in read]})
    if not offered:
        return None
    return {
        "ruleset": rs.id,
        "attacks": offered,
        "units": [{"id": u.id, "title": u.title, "max": size[u.id],
                   "weapons": [[w, weapons[w].title] for w, _ in u.weapons if w in weapons]} for u in units],
        "tables": tables,
    }


def _key(attack: str, unit: str, weapon: str, target: str, sits: dict[str, Any]) -> str:
    shown = ",".join(f"{k}={('yes' if v else 'no') if isinstance(v, bool) else v}" for k, v in sorted(sits.items()))
    return f"{attack}|{unit}|{weapon}|{target}|{shown}"


def calculator_json(data: dict[str, Any]) -> str:
    """The data as the page loads it: compact JSON, nothing in it read as markup."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True)


def calculator_files(rs: Ruleset, sitemap: Any, sources: Any, site: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The calculator page of a ruleset and the data it loads, as (path, title, text): none when
    the site gives the ruleset no calculator (``calculator_models``) or it has no attack to offer."""
    from compiler.site.markup import plain

    models = int((site.get("calculator_models") or {}).get(rs.id, 0))
    data = calculator_data(rs, models) if models > 0 else None
    if data is None:
        return []
    page = "\n".join([
        "# Matchup calculator", "",
        f"What one unit's attack does to another under {plain(rs.title)}: pick the attacker and how many "
        "models, its weapon, the target and how many, and the situations the attack reads. The chances are "
        "exact, worked out by the same resolver as `warscribe eval` when this site was built.", "",
        f"Worked out for up to {models} models a side (fewer where a squad is smaller); situations that are "
        "numbers stay at their low end. Other matchups: `warscribe eval` with the line shown under the chart.", "",
        "[The calculator's data](calculator.json){ #ws-calc-data }", "",
        '<div class="ws-calc" id="ws-calc" markdown="0"></div>', ""])
    return [(f"{rs.id}/calculator.md", "Matchup calculator", page),
            (f"{rs.id}/calculator.json", "Matchup calculator data", calculator_json(data))]
