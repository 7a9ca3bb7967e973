"""The matchup calculator's build-time data: each stored distribution is `warscribe eval`'s exact answer."""
from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import compiler
from compiler.site.calculator import calculator_data, expression
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
