"""Attack sequences and combined rolls too big to work out are refused up front (compiler/resolve/budget.py).

Each refusal is a located ResolveError that says what to reduce, and comes before the
expensive work: the functions that would do it are replaced by ones that fail if called.
No clock is read (timings are in bench/bench_limits.py); a CPU-time guard turns a hang into
a failure.
"""
from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from conftest import cpu_budget, warscribe

from compiler import limits as L
from compiler.driver import compile_paths, compile_text
from compiler.resolve import budget
from compiler.resolve.dist import Dist
from compiler.resolve.evaluator import Evaluator, ResolveError, parse_expression

ROOT = Path(__file__).resolve().parent.parent
GUARD = 30  # CPU seconds: a hang guard, not a benchmark

RULES = '''ruleset big "Big":
  version 1.0.0

stat BS "Ballistic Skill" 1..10
stat W "Wounds" 1..1000 role wounds
stat Sv "Save" target
stat A "Attacks" dice
stat D "Damage" dice

ability sustained_hits(N: 1..3) "Sustained Hits": "Critical hits score extra hits."
  on natural 6 to hit: N extra hits

ability feel_no_pain(X: 2..6) "Feel No Pain":
  on each damage: roll d6, ignored on X+

test hit(BS) "Hit" = roll d6 >= BS, natural 1 fails
test save(Sv) "Save" = roll d6 >= Sv, natural 1 fails

attack shooting(shooter, weapon, target) "Shooting":
  attacks = shooter.models each weapon.A
  hits    = attacks each hit(shooter.BS)
  unsaved = hits each not save(target.Sv)
  killed  = unsaved removes target, damage weapon.D

unit guy "Guy":
  BS 3  W 1  Sv 4+
  abilities sustained_hits(2)

weapon xgun "X gun":
  A D6  D 1

weapon bigun "Big gun":
  A 4  D D6

unit tank "Tank":
  BS 3  W 1000  Sv 3+
  abilities feel_no_pain(5)
'''


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    result = compile_text(RULES)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    return result.rulesets[0]


@pytest.fixture
def no_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    """Summing many attacks fails if called: a refusal must come before it."""
    def refuse(self, count):  # type: ignore[no-untyped-def]
        raise AssertionError("the sum over all attacks was started")
    monkeypatch.setattr(Dist, "sum_of_random", refuse)
    original = Dist.convolve_power

    def power(self, n):  # type: ignore[no-untyped-def]
        if n > 5000:  # 1,000 D6 (the attacks of 1,000 models) are cheap; 10,000 shots summed are not
            refuse(self, n)
        return original(self, n)
    monkeypatch.setattr(Dist, "convolve_power", power)


def read_all(value) -> None:  # type: ignore[no-untyped-def]
    for name in value.steps:
        value.steps[name]


def test_a_thousand_models_with_d6_attacks_and_sustained_hits_are_refused_before_the_sum(model, no_sums) -> None:
    value = Evaluator(model).evaluate(parse_expression("shooting(1000 guy, xgun, 10 guy)"))
    with cpu_budget(GUARD), pytest.raises(ResolveError) as err:
        read_all(value)
    assert "up to 6,000 attacks" in err.value.message
    assert "fewer models" in (err.value.hint or "") and "--fast" in (err.value.hint or "")
    assert err.value.span is not None and err.value.span.line == 21  # the hits step


def test_the_same_question_in_floating_point_is_worked_out(model) -> None:
    value = Evaluator(model, exact=False).evaluate(parse_expression("shooting(1000 guy, xgun, 10 guy)"))
    with cpu_budget(GUARD):
        hits = value.steps["hits"]
    # 6,000 attacks at most, up to 3 hits each; on average 3.5 attacks × (4/6 hit + 2 extra on a 6).
    assert max(hits.outcomes()) <= 18_000
    assert abs(float(hits.mean()) - 1000 * 3.5 * (4 / 6 + 2 / 6)) < 1e-6 * 3500


def test_a_small_question_is_worked_out_exactly(model) -> None:
    value = Evaluator(model).evaluate(parse_expression("shooting(3 guy, xgun, 10 guy)"))
    hits = value.steps["hits"]
    assert isinstance(hits.mean(), Fraction) and hits.mean() == 3 * Fraction(7, 2) * (Fraction(4, 6) + Fraction(2, 6))


def test_a_hundred_models_against_a_thousand_wounds_with_feel_no_pain_are_refused(model) -> None:
    value = Evaluator(model).evaluate(parse_expression("shooting(100 guy, bigun, 1 tank)"))
    with cpu_budget(GUARD), pytest.raises(ResolveError) as err:
        value.steps["killed"]
    assert "removing casualties" in err.value.message and err.value.span.line == 23


def test_ten_thousand_models_of_the_console_game_are_refused_before_the_sum(no_sums) -> None:
    model = compile_paths([ROOT / "rules" / "console-40k"]).rulesets[0]
    value = Evaluator(model).evaluate(parse_expression("shooting(10000 space_marine, boltgun, 10000 ork_boy)"))
    with cpu_budget(GUARD), pytest.raises(ResolveError) as err:
        read_all(value)
    assert "10,000 attacks" in err.value.message and "fewer models" in (err.value.hint or "")


def test_the_estimate_grows_with_the_attacks_and_is_zero_for_one() -> None:
    per = Dist.from_weights({0: 1, 1: 2})
    assert budget.attack_sum_work(per, 1) == 0
    works = [budget.attack_sum_work(per, n) for n in (10, 100, 1000)]
    assert works == sorted(works) and works[0] > 0
    # a random number of attacks (up to n) costs more than n attacks
    assert budget.attack_sum_work(per, Dist.die(100)) > budget.attack_sum_work(per, 100)


@pytest.mark.parametrize("expr, results", [("d1000 / d999", 607_983), ("d1000 * d1000", 248_083),
                                           ("d1000 + d1000 * 1000", 1_000_000)])
def test_two_rolls_with_too_many_results_are_refused_before_the_work(
        expr: str, results: int, model, monkeypatch: pytest.MonkeyPatch) -> None:
    original = Dist.binary

    def refuse(self, op, other):  # type: ignore[no-untyped-def]
        if isinstance(other, Dist) and len(self) * len(other) > L.MAX_OUTCOMES:
            raise AssertionError("the pairs were worked out")
        return original(self, op, other)  # d1000 * 1000 is cheap
    monkeypatch.setattr(Dist, "binary", refuse)
    with cpu_budget(GUARD), pytest.raises(ResolveError) as err:
        Evaluator(model).evaluate(parse_expression(expr))
    assert f"{results:,} possible results" in err.value.message


@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_distinct_results_match_working_them_out(op: str) -> None:
    a = Dist.from_weights({v: 1 for v in (-400, -2, 0, 1, 3, 6, 1200)})
    b = Dist.from_weights({v: 1 for v in (-3, -1, 1, 2, 4, 6, 900)})
    work = {"+": lambda x, y: Fraction(x + y), "-": lambda x, y: Fraction(x - y), "*": lambda x, y: Fraction(x * y),
            "/": lambda x, y: Fraction(x, y)}[op]
    brute = {work(x, y) for x, y in product(a.outcomes(), b.outcomes())}
    assert budget.distinct_results(op, a, b) == len(brute)


def test_division_by_a_roll_that_can_be_zero_is_left_to_the_work() -> None:
    assert budget.distinct_results("/", Dist.die(6), Dist.const(0)) is None


def test_eval_prints_a_step_refused_while_printing_as_a_diagnostic(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    (folder / "ruleset.rules").write_text(RULES, encoding="utf-8")
    r = warscribe("eval", str(folder), "shooting(100 guy, bigun, 1 tank)")
    assert r.returncode == 1
    assert "ruleset.rules:23:3: error[W800]: removing casualties" in r.stderr and r.stdout == ""


def test_the_limit_is_listed() -> None:
    assert ("MAX_ATTACK_WORK", L.MAX_ATTACK_WORK) in [(n, v) for n, v, _ in L.LIMITS]
