"""The matchup calculator's build-time data: each stored distribution is `warscribe eval`'s exact answer."""
from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import compiler
from compiler.driver import compile_text
from compiler.resolve import Evaluator, parse_expression
from compiler.site.calculator import calculator_data, expression, semantic_key
from conftest import ROOT, warscribe


def unpacked(packed: list[Any]) -> dict[int, Fraction]:
    """The page's reading of a stored distribution: lowest value, denominator, numerators."""
    lo, den, *nums = packed
    return {lo + i: Fraction(int(n), int(den)) for i, n in enumerate(nums) if int(n)}


@pytest.fixture(scope="module")
def console() -> dict[str, Any]:
    rs = next(r for r in compiler.compile_paths([ROOT / "rules" / "console-40k"]).rulesets if r.id == "console-40k")
    data = calculator_data(rs, max_models=3)
    assert data is not None
    return data


def test_the_situations_offered_are_those_the_attack_reads(console: dict[str, Any]) -> None:
    shooting = next(a for a in console["attacks"] if a["id"] == "shooting")
    ids = {s["id"] for s in shooting["situations"]}
    # `ran` and `locked` change a shot in console-40k; `charging` and `two_weapons` are close combat's.
    assert {"ran", "locked"} <= ids and not ids & {"charging", "two_weapons"}


def test_stored_distributions_equal_warscribe_eval(console: dict[str, Any]) -> None:
    attacks = {a["id"]: a for a in console["attacks"]}
    keys = sorted(console["tables"])
    rng = random.Random(30)
    for key in rng.sample(keys, min(8, len(keys))):
        atk, unit, weapon, target, sits = key.split("|")
        grid = console["tables"][key]
        a, m = rng.randrange(len(grid)), rng.randrange(len(grid[0]))
        args = ["eval", "rules/console-40k", f"{atk}({a + 1} {unit}, {weapon}, {m + 1} {target})"
                f".{attacks[atk]['result']}", "--json"]
        for pair in filter(None, sits.split(",")):
            name, value = pair.split("=")
            args += ["--with", name if value == "yes" else f"{name} = {value}"] if value != "no" else []
        ran = warscribe(*args)
        assert ran.returncode == 0, ran.stderr
        want = {row["value"]: Fraction(row["p"]) for row in json.loads(ran.stdout)["distribution"]
                if Fraction(row["p"])}
        assert unpacked(grid[a][m]) == want, key


def test_expression_is_the_eval_line() -> None:
    rs = compiler.compile_paths([ROOT / "rules" / "console-40k"]).rulesets[0]
    shooting = next(a for a in rs.of_type(compiler.ast.Attack) if a.id == "shooting")
    assert expression(shooting, 5, "space_marine", "boltgun", 10, "ork_boy") == \
        "shooting(5 space_marine, boltgun, 10 ork_boy).killed"


# -- what the calculator relies on: plans shared across counts, data kept under the rules' meaning --

COUNTED = '''ruleset d "D":
  version 1.0.0
stat Q "Quality" 1..6: "q"
stat W "Wounds" 1..6 role wounds: "w"
test hit(target) = roll d6 >= (if target.models >= 5 then 3 else 5)
unit gunner "Gunner":
  Q 3
  W 1
attack volley(shooter, target) "Volley":
  """A volley: every model shoots once."""
  attacks = shooter.models
  hits = attacks each hit(target)
  killed = hits removes target
'''


def volley(model: Any, n: int, m: int) -> dict[int, Fraction]:
    value = Evaluator(model).evaluate(parse_expression(f"volley({n} gunner, {m} gunner).killed", "<test>"))
    return {k: Fraction(v) for k, v in value.probabilities().items()}


def test_a_plan_is_not_shared_across_counts_when_a_test_reads_the_count() -> None:
    """Many counts of one matchup share the per-attack plan, unless something the plan evaluates
    reads ``.models`` (here the hit test: 3+ against five models or more, else 5+)."""
    model = compile_text(COUNTED).rulesets[0]
    assert volley(model, 2, 2) == {0: Fraction(4, 9), 1: Fraction(4, 9), 2: Fraction(1, 9)}  # 5+: 1/3 a shot
    p = Fraction(2, 3)  # 3+ against six
    assert volley(model, 2, 6) == {0: (1 - p) ** 2, 1: 2 * p * (1 - p), 2: p * p}


def test_the_data_is_kept_under_the_rules_meaning() -> None:
    base = compile_text(COUNTED).rulesets[0]
    prose = compile_text(COUNTED.replace("every model shoots once", "all fire")).rulesets[0]
    moved = compile_text(COUNTED.replace("version 1.0.0\n", "version 1.0.0\n\n\n")).rulesets[0]
    stat = compile_text(COUNTED.replace("Q 3", "Q 4")).rulesets[0]
    rule = compile_text(COUNTED.replace("then 3 else 5", "then 3 else 4")).rulesets[0]
    assert semantic_key(base) == semantic_key(prose) == semantic_key(moved)
    assert len({semantic_key(base), semantic_key(stat), semantic_key(rule)}) == 3
