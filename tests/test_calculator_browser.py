"""The matchup calculator in Chromium: the page's distributions are `warscribe eval`'s exact answers.

One small site (console-40k, the calculator at ten models a side) is built for the module; one
page session reads 50 matchups picked with a fixed seed and compares each with the resolver.
"""
from __future__ import annotations

import functools
import http.server
import os
import random
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterator

import pytest

import compiler
from compiler.resolve import Evaluator, ResolveError, parse_expression
from compiler.resolve.report import distribution_rows
from compiler.site.calculator import expression
from browser_site import browser_type_launch_args  # noqa: F401  (Debian's chromium)
from conftest import ROOT

RULESET = "console-40k"


@pytest.fixture(scope="module")
def calc_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("calc")
    (root / "docs").mkdir()
    (root / "docs" / "about.md").write_text("# About\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(f"""site_name: Calculator
docs_dir: docs
theme: {{name: material, font: false}}
plugins:
  - search
  - warscribe: {{rules_dir: {ROOT / 'rules' / RULESET}, calculator_models: {{{RULESET}: 10}}}}
markdown_extensions: [tables, admonition, attr_list, md_in_html]
""", encoding="utf-8")
    out = root / "out"
    ran = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=root,
                         capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert ran.returncode == 0, ran.stdout + ran.stderr

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(out)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/{RULESET}/calculator/"
    httpd.shutdown()
    httpd.server_close()


def exact(rs: Any, text: str, situation: dict[str, Any]) -> dict[int, Fraction]:
    value = Evaluator(rs, situation=situation).evaluate(parse_expression(text, "<test>"))
    if hasattr(value, "steps"):
        value = list(value.steps.values())[-1]
    return {int(v): Fraction(p) for v, p, _ in distribution_rows(value) if p}


def test_fifty_matchups_equal_the_resolver(calc_site: str, page: Any) -> None:
    rs = compiler.compile_paths([ROOT / "rules" / RULESET]).rulesets[0]
    attack = next(a for a in rs.of_type(compiler.ast.Attack) if a.id == "shooting")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(calc_site + "../")  # the ruleset's overview: the calculator is in its navigation
    assert page.locator("nav a[href$='calculator/']").count() >= 1
    page.goto(calc_site)
    page.wait_for_selector("#ws-calc[data-ready]")
    selects = page.locator("#ws-calc select")
    assert selects.count() == 8  # attack, attacker, models, weapon, target, models, ran, locked
    units = selects.nth(1).locator("option").evaluate_all("os => os.map(o => o.value)")
    targets = selects.nth(4).locator("option").evaluate_all("os => os.map(o => o.value)")
    rng = random.Random(30)
    answered = refused = 0
    for _ in range(50):
        unit, target = rng.choice(units), rng.choice(targets)
        selects.nth(1).select_option(unit)
        weapons = selects.nth(3).locator("option").evaluate_all("os => os.map(o => o.value)")
        weapon = rng.choice(weapons)
        n = rng.randint(1, selects.nth(2).locator("option").count())
        selects.nth(4).select_option(target)
        m = rng.randint(1, selects.nth(5).locator("option").count())
        ran, locked = rng.choice(["no", "yes"]), rng.choice(["no", "yes"])
        selects.nth(2).select_option(str(n))
        selects.nth(3).select_option(weapon)
        selects.nth(5).select_option(str(m))
        selects.nth(6).select_option(ran)
        selects.nth(7).select_option(locked)
        shown = page.locator(".ws-calc-row").evaluate_all(
            "rs => rs.map(r => [r.dataset.value, r.dataset.p, r.dataset.atLeast])")
        try:
            want = exact(rs, expression(attack, n, unit, weapon, m, target),
                         {"ran": ran == "yes", "locked": locked == "yes"})
        except ResolveError:  # refused by the rules (a close-combat weapon shot): the page says so
            assert shown == [] and page.locator(".ws-calc-none").count() == 1
            refused += 1
            continue
        answered += 1
        got = {int(v): Fraction(p) for v, p, _ in shown}
        assert got == want, (unit, weapon, n, target, m, ran, locked)
        values = sorted(want)
        assert [Fraction(t) for _, _, t in shown] == [sum(want[w] for w in values[i:]) for i in range(len(values))]
        mean = page.locator(".ws-calc-mean").get_attribute("data-mean")
        assert Fraction(mean or "x") == sum(v * p for v, p in want.items())
    assert errors == [] and answered >= 30, (answered, refused)
