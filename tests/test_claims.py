"""Claims judged over a grid: every point worked out exactly, the share where the claim holds,
the verdict in words, and the heat map of the measure on the examples page."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler import ast as A
from compiler.cli import app
from compiler.driver import Compilation, compile_paths, compile_text
from compiler.model.ruleset import Ruleset
from compiler.resolve.claims import CLAIM_GRID_LIMIT, judge_claim
from compiler.resolve.runner import run_ruleset
from compiler.site import site

ROOT = Path(__file__).resolve().parent.parent
HEAD = 'ruleset d "D":\n  version 1.0.0\nstat BS "BS" 1..10: "Aim."\ntest hit(BS) "Hit" = roll d6 <= BS\n'


def _claim(body: str) -> tuple[Ruleset, A.Claim]:
    comp = compile_text(HEAD + body)
    assert comp.ok, comp.diagnostics
    rs = comp.rulesets[0]
    return rs, rs.of_type(A.Claim)[0]


@pytest.mark.parametrize("tolerance, held, status", [
    ("(1/6)", 3, "holds in part"),   # 1/3, 1/2, 2/3 are within a sixth of 1/2
    ("1", 6, "holds"),
    ("0", 1, "holds in part"),
])
def test_share_of_the_grid_where_the_claim_holds(tolerance: str, held: int, status: str) -> None:
    rs, claim = _claim(f'claim half "Half":\n  for BS in 1..6\n  expect P(hit(BS)) ~ 1/2 ± {tolerance}\n')
    j = judge_claim(rs, claim)
    assert (j.held, j.size, j.status) == (held, 6, status)
    assert [p.measure for p in j.points] == [Fraction(n, 6) for n in range(1, 7)]  # d6 <= BS: BS/6


def test_a_claim_that_holds_nowhere_fails_but_does_not_fail_the_run() -> None:
    rs, claim = _claim('claim never "Never":\n  for BS in 1..4\n  expect P(hit(BS)) > 1\n')
    j = judge_claim(rs, claim)
    assert j.status == "fails" and j.verdict == "fails at every point of the grid (4 points)"
    results = run_ruleset(rs)
    assert [(r.kind, r.passed) for r in results] == [("claim", True)]


def test_a_partial_share_is_never_rounded_to_0_or_100_percent() -> None:
    rs, claim = _claim('claim one "One point":\n  for BS in 1..10, x in 1..30\n  expect BS * 100 + x = 1001\n')
    j = judge_claim(rs, claim)
    assert (j.held, j.size) == (1, 300)
    assert j.verdict.startswith("holds in 1% of the grid (1 of 300 points)")


def test_a_grid_too_large_is_refused_not_sampled() -> None:
    rs, claim = _claim('claim big "Big":\n  for a in 1..1000, b in 1..1000\n  expect a >= 1\n')
    j = judge_claim(rs, claim)
    assert j.error is not None and str(CLAIM_GRID_LIMIT) in j.error.message
    assert [r.passed for r in run_ruleset(rs)] == [False]


def test_an_error_at_one_point_names_the_point() -> None:
    rs, claim = _claim('claim div "Divides":\n  for BS in 0..2\n  expect 1 / BS >= 0\n')
    j = judge_claim(rs, claim)
    assert j.error is not None and "BS = 0" in j.error.message


def _hit(bs: int) -> Fraction:
    need = {1: 6, 2: 5, 3: 4, 4: 3}.get(max(bs, 1), 2)
    return Fraction(7 - need, 6)


def _wound(s: int, t: int) -> Fraction:
    d = t - s
    need = 2 if d <= -2 else 4 + d if d <= 1 else 6 if d <= 3 else 7
    return Fraction(max(0, 7 - need), 6)


@pytest.fixture(scope="module")
def overlay() -> Compilation:
    return compile_paths([str(ROOT / "rules" / "classic-40k"), str(ROOT / "rules" / "dark-millennia")])


def _claim_a(comp: Compilation) -> tuple[Ruleset, A.Claim]:
    dm = next(r for r in comp.rulesets if r.id == "dark-millennia")
    return dm, next(c for c in dm.of_type(A.Claim) if c.id == "first_method_like_cover_save")


def test_dark_millennia_claim_a_matches_an_enumeration_of_the_grid(overlay: Compilation) -> None:
    """The classic-40k charts worked by hand (to hit 6+..2+ by BS, the wound chart by T − S), the
    first method's −1/−1/−2 BS and +0/+1/+1 T against the base's 6+/5+/4+ cover save."""
    dm, claim = _claim_a(overlay)
    expected = {}
    for grade in (1, 2, 3):
        for bs in range(2, 6):
            for s in range(3, 9):
                for t in range(3, 7):
                    first = _hit(bs - (2 if grade == 3 else 1)) * _wound(s, t + (0 if grade == 1 else 1))
                    base = _hit(bs) * _wound(s, t) * (1 - Fraction(grade, 6))
                    expected[(grade, bs, s, t)] = first / base
    j = judge_claim(dm, claim)
    assert {p.at: p.measure for p in j.points} == expected
    assert j.held == sum(1 for r in expected.values() if abs(r - 1) <= Fraction(1, 8))
    assert j.status == "holds in part"


def test_claim_page_shows_the_verdict_and_the_heat_map(overlay: Compilation) -> None:
    md = site(overlay).page("dark-millennia/examples.md").markdown
    part = md[md.index("{ #first_method_like_cover_save }"):]
    part = part[:part.index("\n### ")]
    j = judge_claim(*_claim_a(overlay))
    assert f"claim holds in {round(float(j.share) * 100)}% of the grid ({j.held} of 288 points)" in part
    assert part.count("ws-heat") == 288
    assert part.count("✓</span>") == j.held
    assert "**grade = 1**" in part and "**grade = 3**" in part


def test_warscribe_test_prints_each_claims_verdict() -> None:
    result = CliRunner().invoke(app, ["test", str(ROOT / "rules" / "dark-millennia")])
    assert result.exit_code == 0, result.output
    assert "claim dark-millennia second_method_fractions: holds at every point of the grid (90 points)" \
        in result.output


def test_a_claim_without_a_grid_is_refused_by_check() -> None:
    comp = compile_text(HEAD + 'claim x "X":\n  expect 1 = 1\n')
    assert [(d.code, d.message) for d in comp.diagnostics] == [
        ("W106", "claim 'x' does not say what it ranges over")]
