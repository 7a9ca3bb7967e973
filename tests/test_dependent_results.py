"""Results of one attack are not independent rolls: combining them is refused (W415), in
examples and properties by check, inside an attack by the resolver."""
from __future__ import annotations

import pytest

from compiler.driver import compile_text
from compiler.resolve import run_ruleset
from test_hook_effects import BASE, ZAP

EXAMPLE = BASE + ZAP + '''
example e "E":
  let r = zap(2 gunner, pistol, 3 grunt)
  let rest = zap(2 gunner, pistol, (3 - r.killed) grunt)
  let k = r.killed
  {}
'''


@pytest.mark.parametrize("expect, shown", [
    ("expect P(r.killed - r.killed == 0) = 1", "'r.killed' is read twice"),
    ("expect P(r.killed == r.hits) = 1", "'r.killed' and 'r.hits'"),
    ("expect mean(rest.killed + r.killed) = 1", "'rest.killed' and 'r.killed'"),
    ("expect P(k + r.hits == 2) = 1", "'k' and 'r.hits'"),
    ("expect mean(zap(1 gunner, pistol, (3 - r.killed) grunt).killed + r.hits) = 1", "'zap(…)' and 'r.hits'"),
    ("expect mean(zap(1 gunner, pistol, (3 - r.killed - r.hits) grunt).killed) = 1", "'r.killed' and 'r.hits'"),
])
def test_two_results_of_one_attack_in_one_question_are_refused(expect: str, shown: str) -> None:
    result = compile_text(EXAMPLE.format(expect))
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["W415"]
    assert shown in errors[0].message
    assert errors[0].span.line == EXAMPLE.count("\n")


@pytest.mark.parametrize("expect", [
    "expect mean(r.killed) - mean(r.hits) <= 0",
    "expect mean(rest.killed) + mean(r.killed) <= 3",
    "expect P(k + k >= 0) = 1",
    "expect P(rest.killed >= 0) = 1",
])
def test_one_result_per_question_is_fine(expect: str) -> None:
    result = compile_text(EXAMPLE.format(expect))
    assert result.ok, [d.message for d in result.diagnostics]
    assert [r.failures for r in run_ruleset(result.rulesets[0]) if r.id == "e"] == [()]


def test_a_step_combining_two_counted_totals_is_refused_by_check() -> None:
    result = compile_text(BASE + ZAP + '''
attack odd(shooter, weapon, target) "Odd":
  attacks = shooter.models * weapon.A
  hits    = attacks each hit(shooter.Q)
  wounds  = hits each wound(weapon.S, target.T)
  lost    = hits - wounds
''')
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    assert [d.code for d in errors] == ["W415"] and "'hits' and 'wounds'" in errors[0].message


def test_a_step_combining_a_random_count_with_a_total_is_refused_by_the_resolver() -> None:
    # `attacks` may or may not be random (with the burst weapon it is: D D3), so check leaves it
    # to the resolver.
    result = compile_text(BASE + ZAP + '''
die D3 "D3" = d6 as 1, 2, 3, 1, 2, 3

weapon burst "Burst":
  A 1  S 4  AP 0  D D3

attack odd(shooter, weapon, target) "Odd":
  attacks = shooter.models * weapon.D
  hits    = attacks each hit(shooter.Q)
  misses  = attacks - hits

example e "E":
  expect mean(odd(2 gunner, pistol, 3 grunt).misses) = 1
  expect mean(odd(2 gunner, burst, 3 grunt).misses) = 2
''')
    assert result.ok, [d.message for d in result.diagnostics]
    # With a fixed number of attacks the step is right (2 attacks, half miss); with a random
    # number the attack is refused, at the step.
    failures = [f for r in run_ruleset(result.rulesets[0]) if r.id == "e" for f in r.failures]
    assert len(failures) == 1 and "'attacks' and 'hits'" in failures[0].message
