"""The matchup calculator in Chromium, on every ruleset of the bundled site: the page's answers are
`warscribe eval`'s exact answers.

For each ruleset one page load: 50 matchups drawn with a fixed seed from what the page's form
offers (attack, attacker and how many, weapon, target and how many, situations).  A few are asked
through the form itself (the rows the page shows); the rest are read from the exact JSON the page
loads and renders (its index, then the part of the attacker and target).  Each is compared with the resolver, run
here in this process, apart from the build that worked out the page's data.
"""
from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import compiler
from compiler.resolve import Evaluator, ResolveError, parse_expression
from compiler.resolve.report import distribution_rows
from compiler.site.calculator import expression
from conftest import ROOT

RULESETS = sorted(p.name for p in (ROOT / "rules").iterdir() if p.is_dir())
THROUGH_THE_FORM = 2  # of the 50, asked through the page's form (twelve in all); the rest read from its JSON


def exact(rs: Any, text: str, situation: dict[str, Any]) -> dict[int, Fraction] | None:
    """The resolver's answer (None when it refuses the matchup)."""
    try:
        value = Evaluator(rs, situation=situation).evaluate(parse_expression(text, "<test>"))
    except ResolveError:
        return None
    if hasattr(value, "steps"):
        value = list(value.steps.values())[-1]
    return {int(v): Fraction(p) for v, p, _ in distribution_rows(value) if p}


def unpacked(packed: list[Any]) -> dict[int, Fraction]:
    """A stored distribution as the page reads it: lowest value, denominator, numerators."""
    lo, den, *nums = packed
    return {lo + i: Fraction(int(n), int(den)) for i, n in enumerate(nums) if int(n)}


def table_key(attack: dict[str, Any], unit: str, weapon: str, target: str, sits: dict[str, str]) -> str:
    """The key of a matchup's table in the page's JSON: the situations away from their defaults."""
    default = {s["id"]: s["values"][0] for s in attack["situations"]}
    changed = ",".join(f"{k}={v}" for k, v in sorted(sits.items()) if v != default[k])
    return f"{attack['id']}|{unit}|{weapon}|{target}|{changed}"


def situation_value(raw: str) -> Any:
    return True if raw == "yes" else False if raw == "no" else raw


@pytest.mark.parametrize("ruleset", RULESETS)
def test_fifty_matchups_equal_the_resolver(site_url: str, page: Any, ruleset: str) -> None:
    rs = next(r for r in compiler.compile_paths([ROOT / "rules" / ruleset]).rulesets if r.id == ruleset)
    attacks = {a.id: a for a in rs.of_type(compiler.ast.Attack)}
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{site_url}{ruleset}/calculator/")
    page.wait_for_selector("#ws-calc[data-ready]")
    base = page.locator("#ws-calc-data").get_attribute("href")
    index = page.evaluate("h => fetch(h).then(r => r.json())", base)
    units = {u["id"]: u for u in index["units"]}
    armed = [u for u in index["units"] if u["weapons"]]
    rng = random.Random(f"calculator {ruleset}")
    parts: dict[int, dict[str, Any]] = {}
    answered = refused = 0
    for i in range(50):
        attack = rng.choice(index["attacks"])
        unit = rng.choice(armed)
        weapon = rng.choice(unit["weapons"])[0]
        target = rng.choice([u for u in index["units"] if u["target"]])
        n, m = rng.randint(1, unit["max"]), rng.randint(1, units[target["id"]]["max"])
        sits = {s["id"]: s["values"][0] for s in attack["situations"]}
        changed = attack["situations"] if attack["every"] else rng.sample(attack["situations"], 1)
        for s in changed:  # past the budget of combinations, one situation changed at a time
            sits[s["id"]] = rng.choice(s["values"])
        situation = {k: situation_value(v) for k, v in sits.items()}
        want = exact(rs, expression(attacks[attack["id"]], n, unit["id"], weapon, m, target["id"]), situation)
        if i < THROUGH_THE_FORM:
            got = through_the_form(page, attack, unit["id"], n, weapon, target["id"], m, sits)
        else:
            p = f"{unit['n']}-{target['n']}"
            if p not in parts:
                parts[p] = {} if target["n"] not in unit["targets"] else page.evaluate(
                    "u => fetch(u).then(r => r.json()).then(d => d.tables)", f"{site_url}{ruleset}/calculator-{p}.json")
            grid = parts[p].get(table_key(attack, unit["id"], weapon, target["id"], sits))
            got = unpacked(grid[n - 1][m - 1]) if grid is not None else None
        assert got == want, (ruleset, attack["id"], unit["id"], n, weapon, target["id"], m, sits)
        answered += want is not None
        refused += want is None
    for left_out in [u for u in index["units"] if not u["target"]][:3]:  # not offered: the rules refuse them
        attack, unit = rng.choice(index["attacks"]), rng.choice(armed)
        assert exact(rs, expression(attacks[attack["id"]], 1, unit["id"], rng.choice(unit["weapons"])[0], 1,
                                    left_out["id"]), {}) is None, left_out["id"]
    assert errors == [] and answered >= 25, (answered, refused, errors)  # refusals: shooting with a melee weapon…


def through_the_form(page: Any, attack: dict[str, Any], unit: str, n: int, weapon: str, target: str, m: int,
                     sits: dict[str, str]) -> dict[int, Fraction] | None:
    """Pick the matchup in the page's form; the distribution its rows show (None when it says the
    matchup cannot be made), with the at-least column and the mean checked against the rows."""
    form = page.locator("#ws-calc")
    form.locator("select").nth(0).select_option(attack["id"])
    selects = form.locator("select")
    selects.nth(1).select_option(unit)
    selects.nth(2).select_option(str(n))
    selects.nth(3).select_option(weapon)
    selects.nth(4).select_option(target)
    selects.nth(5).select_option(str(m))
    for k, v in sits.items():
        form.locator(f"select[data-situation='{k}']").select_option(v)
    page.wait_for_function("s => document.getElementById('ws-calc').dataset.shown === s",
                           arg=f"{table_key(attack, unit, weapon, target, sits)}|{n}|{m}")
    if page.locator(".ws-calc-none").count():
        assert page.locator(".ws-calc-row").count() == 0
        return None
    shown = page.locator(".ws-calc-row").evaluate_all("rs => rs.map(r => [r.dataset.value, r.dataset.p, r.dataset.atLeast])")
    got = {int(v): Fraction(p) for v, p, _ in shown}
    values = sorted(got)
    assert [Fraction(t) for _, _, t in shown] == [sum(got[w] for w in values[i:]) for i in range(len(values))]
    mean = page.locator(".ws-calc-mean").get_attribute("data-mean")
    assert Fraction(mean or "x") == sum(v * p for v, p in got.items())
    line = page.locator(".ws-calc-out code").inner_text()
    assert json.dumps(expression_text(attack, unit, n, weapon, target, m))[1:-1] in line
    return got


def expression_text(attack: dict[str, Any], unit: str, n: int, weapon: str, target: str, m: int) -> str:
    return f"{attack['id']}({n} {unit}, {weapon}, {m} {target}).{attack['result']}"


def test_the_home_page_and_each_overview_link_the_calculator(built_site: Path) -> None:
    """In the built pages' main content (not only the navigation): the home page's row of each
    ruleset and the ruleset's overview link its calculator, and the link leads to it."""
    home = main_content(built_site / "index.html")
    for ruleset in RULESETS:
        assert f'href="{ruleset}/calculator/"' in home, ruleset
        overview = main_content(built_site / ruleset / "index.html")
        assert 'href="calculator/">Matchup calculator</a>' in overview, ruleset
        assert (built_site / ruleset / "calculator" / "index.html").exists()


def main_content(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[text.index('<article'):text.index('</article>')]
